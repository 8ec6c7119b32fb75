// Loading libraries of algorithms (algorithm_libraries.hpp). A library is opened once, never
// closed (its rows point into its code), its entry point called with a collector, and its rows
// checked as a whole before any is registered, so that a refused library adds nothing.
#include "tools/algorithm_libraries.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "collectives/algorithm_library.hpp"

namespace vmc::cli {
namespace {

struct LoadedRow {
  Operation op;
  std::string name;
  std::string file;
};

struct Loaded {
  std::mutex mutex;
  std::vector<std::string> files;  // as given, and canonical where the file exists
  std::vector<LoadedRow> rows;
};

Loaded& loaded() {
  static Loaded state;
  return state;
}

// The rows a library's entry point adds, in order.
class Collector final : public AlgorithmLibrary {
 public:
  void add(Operation op, Algorithm algorithm) override {
    rows.emplace_back(op, std::move(algorithm));
  }
  std::vector<std::pair<Operation, Algorithm>> rows;
};

std::string canonical_name(const std::string& file) {
  std::error_code error;
  const std::filesystem::path path = std::filesystem::canonical(file, error);
  return error ? file : path.string();
}

// Why op's row `name` from `file` cannot join the registry; empty when it can.
std::string clash(const Loaded& state, Operation op, const std::string& name,
                  const std::vector<std::pair<Operation, Algorithm>>& earlier) {
  for (const auto& [other_op, other] : earlier) {
    if (other_op == op && other.name == name) return "the library adds it twice";
  }
  for (const LoadedRow& row : state.rows) {
    if (row.op == op && row.name == name) {
      return "the library " + row.file + " has already added an algorithm of that name";
    }
  }
  if (find_algorithm(op, name) != nullptr) return "vmc has a built-in algorithm of that name";
  return {};
}

}  // namespace

void load_algorithm_library(const std::string& file) {
  Loaded& state = loaded();
  std::lock_guard lock(state.mutex);
  // dlopen takes "" for the program itself, and searches a name without a slash on the
  // library path, not in the working directory: a file that exists is opened by its path.
  if (file.empty()) throw std::invalid_argument("--load: give a library's file, not \"\"");
  const std::string canonical = canonical_name(file);
  for (const std::string& done : state.files) {
    if (done == canonical) return;
  }
  const std::string where = "--load " + file + ": ";
  void* handle = dlopen(canonical.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    throw std::invalid_argument(where + "cannot load it: " + (why != nullptr ? why : "dlopen failed"));
  }
  using Version = const char* (*)();
  using Entry = void (*)(AlgorithmLibrary&);
  auto version = reinterpret_cast<Version>(dlsym(handle, VMC_ALGORITHM_LIBRARY_VERSION_SYMBOL));
  auto entry = reinterpret_cast<Entry>(dlsym(handle, VMC_ALGORITHM_LIBRARY_ENTRY));
  if (version == nullptr || entry == nullptr) {
    dlclose(handle);
    throw std::invalid_argument(where + "it has no entry point " VMC_ALGORITHM_LIBRARY_ENTRY
                                " (a library of algorithms defines it with "
                                "VMC_ALGORITHM_LIBRARY, see docs/library.md)");
  }
  const std::string built_against = version();
  if (built_against != VMC_VERSION_STRING) {
    dlclose(handle);
    throw std::invalid_argument(where + "it was built against vmc " + built_against +
                                ", and this is vmc " VMC_VERSION_STRING
                                ": rebuild it against this vmc");
  }
  Collector collector;
  try {
    entry(collector);
  } catch (const std::exception& e) {
    throw std::invalid_argument(where + "its entry point failed: " + e.what());
  }
  if (collector.rows.empty()) throw std::invalid_argument(where + "it adds no algorithm");
  for (std::size_t i = 0; i < collector.rows.size(); ++i) {
    const auto& [op, row] = collector.rows[i];
    const std::vector<std::pair<Operation, Algorithm>> earlier(collector.rows.begin(),
                                                               collector.rows.begin() + i);
    const std::string why = clash(state, op, row.name, earlier);
    if (!why.empty()) {
      throw std::invalid_argument(where + "its " + to_string(op) + " algorithm \"" + row.name +
                                  "\" clashes: " + why + " (rename it)");
    }
    if (row.name.empty() || row.name == "auto" || row.run == nullptr || row.cost == nullptr) {
      try {
        register_algorithm(op, row);  // throws, saying what is missing
      } catch (const std::exception& e) {
        throw std::invalid_argument(where + e.what());
      }
    }
  }
  for (auto& [op, row] : collector.rows) {
    state.rows.push_back({op, row.name, canonical});
    register_algorithm(op, std::move(row));
  }
  state.files.push_back(canonical);
}

void load_algorithm_libraries(std::string_view list) {
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(':', start), list.size());
    if (end > start) load_algorithm_library(std::string(list.substr(start, end - start)));
    start = end + 1;
  }
}

std::optional<std::string> loaded_from(Operation op, std::string_view name) {
  Loaded& state = loaded();
  std::lock_guard lock(state.mutex);
  for (const LoadedRow& row : state.rows) {
    if (row.op == op && row.name == name) return row.file;
  }
  return std::nullopt;
}

void add_load_options(CLI::App& app) {
  for (CLI::App* cmd : app.get_subcommands({})) {
    // topo draws a network and calibrate times MPI: neither runs a collective algorithm, so
    // a library has nothing to add there. --load is refused; VMC_LOAD, set for every
    // command, is left alone.
    if (const std::string name = cmd->get_name(); name == "topo" || name == "calibrate") {
      cmd->add_option_function<std::string>(
             "--load",
             [name](const std::string&) {
               throw std::invalid_argument("--load: vmc " + name +
                                           " runs no collective algorithm, so it loads no "
                                           "library of algorithms");
             },
             "refused: this command runs no collective algorithm")
          ->trigger_on_parse()
          ->type_name("FILE");
      continue;
    }
    // VMC_LOAD as the command starts, before its flags are read.
    cmd->preparse_callback([](std::size_t) {
      if (const char* list = std::getenv("VMC_LOAD")) load_algorithm_libraries(list);
    });
    // One file a flag (a list would take mpirun's PROGRAM too), loaded as it is read.
    cmd->add_option_function<std::string>(
           "--load", [](const std::string& file) { load_algorithm_library(file); },
           "load a library of algorithms (again for more; also VMC_LOAD=FILE:FILE); "
           "docs/library.md")
        ->trigger_on_parse()
        ->type_name("FILE");
  }
}

}  // namespace vmc::cli
