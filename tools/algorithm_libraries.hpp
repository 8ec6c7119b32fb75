// Libraries of a user's algorithms (collectives/algorithm_library.hpp), loaded into the vmc
// program: every command that runs collective algorithms (all but topo and calibrate) takes
// `--load FILE` (again for more) and reads VMC_LOAD (colon-separated files) before its flags,
// so that the rows of each library are in the registry before --algorithm, --algorithms or
// --coll name them.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "collectives/vocabulary/operation.hpp"

namespace vmc::cli {

// Loads `file` (dlopen; a file that exists by its path, so that a bare name is the one in the
// working directory), checks its entry point and version, and registers its rows. Loading
// a file already loaded does nothing. Throws std::invalid_argument naming the file (and the
// algorithm) when the file does not load (dlerror's text), has no entry point, was built
// against another vmc, or adds a row that cannot be registered: a name that a built-in row
// or another library's row already has, or a row without its run or cost.
void load_algorithm_library(const std::string& file);
// Each file of a colon-separated list (VMC_LOAD's form; empty entries are skipped).
void load_algorithm_libraries(std::string_view list);
// The file whose library added op's row `name`; none for a built-in row.
std::optional<std::string> loaded_from(Operation op, std::string_view name);
// Gives every subcommand of app --load FILE and VMC_LOAD, as said above; topo's and
// calibrate's --load is refused (a one-line error), and VMC_LOAD left alone there.
void add_load_options(CLI::App& app);

}  // namespace vmc::cli
