// docs/cli.md's table of equivalents (vmc tune) held to the table vmc tune writes from
// (tools/mpi_tables.cpp): every equivalent is on the page, in the row of its operation and
// algorithm and the column of its library; every row names operations and algorithms vmc has;
// a cell that says "none" is a pair the table gives no equivalent.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "collectives/registry.hpp"
#include "tools/mpi_tables.hpp"

namespace vmc::cli {
namespace {

struct DocRow {
  std::string text;                 // the line, for messages
  std::vector<Operation> ops;       // before the first cell's colon
  std::vector<std::string> names;   // after it: the algorithms (qualifiers left out)
  std::string open_mpi, mpich;      // the library cells
};

std::vector<std::string> split(const std::string& text, const std::string& by) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (true) {
    const std::size_t next = text.find(by, at);
    out.push_back(text.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) return out;
    at = next + by.size();
  }
}

std::string trimmed(std::string s) {
  while (!s.empty() && s.front() == ' ') s.erase(s.begin());
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// The rows of the table under "**Equivalents.**".
std::vector<DocRow> equivalents_on_the_page() {
  std::ifstream page(VMC_SOURCE_DIR "/docs/cli.md");
  std::string line;
  while (std::getline(page, line) && !line.starts_with("**Equivalents.**")) {
  }
  std::vector<DocRow> rows;
  bool in_table = false;
  while (std::getline(page, line)) {
    if (!line.starts_with("|")) {
      if (in_table) break;
      continue;
    }
    in_table = true;
    if (line.starts_with("|---") || line.starts_with("| vmc operation")) continue;
    const std::vector<std::string> cells = split(line, "|");  // "", first, ompi, mpich, ""
    EXPECT_EQ(cells.size(), 5u) << line;
    if (cells.size() != 5) continue;
    DocRow row{.text = line, .open_mpi = trimmed(cells[2]), .mpich = trimmed(cells[3])};
    const std::vector<std::string> halves = split(cells[1], ":");
    EXPECT_EQ(halves.size(), 2u) << line;
    if (halves.size() != 2) continue;
    for (const std::string& op : split(trimmed(halves[0]), ", ")) {
      row.ops.push_back(parse_operation(op));
    }
    std::string names = halves[1];
    names = names.substr(0, names.find('('));  // "(p a power of two)"
    for (const std::string& name : split(trimmed(names), ", ")) {
      if (name.find(' ') == std::string::npos && !name.empty()) row.names.push_back(name);
    }
    rows.push_back(row);
  }
  return rows;
}

// Whether `cell` holds `words` as whole words ("1 linear" is not in "11 linear").
bool holds_words(const std::string& cell, const std::string& words) {
  const auto inside_a_word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  };
  for (std::size_t at = cell.find(words); at != std::string::npos;
       at = cell.find(words, at + 1)) {
    const std::size_t end = at + words.size();
    if ((at == 0 || !inside_a_word(cell[at - 1])) &&
        (end == cell.size() || !inside_a_word(cell[end]))) {
      return true;
    }
  }
  return false;
}

bool names(const DocRow& row, Operation op, const std::string& algorithm) {
  bool op_named = false, algorithm_named = false;
  for (Operation o : row.ops) op_named = op_named || o == op;
  for (const std::string& n : row.names) algorithm_named = algorithm_named || n == algorithm;
  return op_named && algorithm_named;
}

TEST(MpiTables, TheDocsTableOfEquivalentsIsTheToolsTable) {
  const std::vector<DocRow> rows = equivalents_on_the_page();
  ASSERT_GT(rows.size(), 20u) << "docs/cli.md's table of equivalents was not found";
  for (const LibraryEquivalent& e : library_equivalents()) {
    const bool ompi = e.library == MpiLibrary::open_mpi;
    // Open MPI's cell gives the number and the name ("6 binomial"), MPICH's the name.
    const std::string shown =
        ompi ? std::to_string(e.id) + " " + e.name : std::string(e.name);
    bool found = false;
    for (const DocRow& row : rows) {
      if (!names(row, e.op, e.algorithm)) continue;
      const std::string& cell = ompi ? row.open_mpi : row.mpich;
      found = found || holds_words(cell, shown);
    }
    EXPECT_TRUE(found) << to_string(e.op) << ": " << e.algorithm << " is " << shown << " in "
                       << to_string(e.library) << ", and no row of docs/cli.md says so";
  }
  for (const DocRow& row : rows) {
    EXPECT_FALSE(row.ops.empty() || row.names.empty()) << row.text;
    for (Operation op : row.ops) {
      for (const std::string& name : row.names) {
        EXPECT_NE(find_algorithm(op, name), nullptr)
            << row.text << ": vmc has no " << to_string(op) << " algorithm " << name;
        for (MpiLibrary library : {MpiLibrary::open_mpi, MpiLibrary::mpich}) {
          const std::string& cell = library == MpiLibrary::open_mpi ? row.open_mpi : row.mpich;
          if (!cell.starts_with("none")) continue;
          for (int p : {4, 6}) {  // a power of two and another p
            EXPECT_EQ(equivalent(library, op, name, p), nullptr)
                << row.text << ": the page says none, the table has one at p = " << p;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace vmc::cli
