// The architecture holds: every include points down or sideways, never up a level.
//
// The levels are docs/architecture.md's: each block fenced as ```levels SCOPE lists the levels
// of SCOPE (the folders of the repository for ".", the files of one folder otherwise), bottom
// first, one level a line (a line that starts with white space goes on with the level above),
// each a list of path patterns: "runtime/" a folder and all below it, "runtime/transport.*" a
// glob of files. The longest file pattern that matches a file places it, else the longest
// folder that holds it; text after '#' is a comment.
//
// The test reads every source file's quoted includes and fails on one that goes from a level
// to a higher one, in the folders' order and inside every folder that has a block; on a file
// of such a folder that no pattern places; on a pattern that places no file (the picture would
// drift from the code); and on an include it cannot find. There is no list of exceptions: to
// change the picture, change the page.
#include <fnmatch.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = VMC_SOURCE_DIR;

std::string slurp(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// One scope's levels: patterns by level, bottom first.
struct Levels {
  std::string scope;  // "." or a folder with its slash: "runtime/"
  std::vector<std::vector<std::string>> patterns;

  bool covers(const std::string& path) const {
    return scope == "." || path.rfind(scope, 0) == 0;
  }
  // The level of `path` (-1: no pattern matches) and the pattern that placed it: the longest
  // file pattern that matches it, else the longest folder that holds it.
  std::pair<int, std::string> level_of(const std::string& path) const {
    int best = -1;
    std::string best_pattern;
    bool best_is_file = false;
    for (std::size_t l = 0; l < patterns.size(); ++l) {
      for (const std::string& p : patterns[l]) {
        const bool folder = !p.empty() && p.back() == '/';
        const bool match = folder ? path.rfind(p, 0) == 0
                                  : fnmatch(p.c_str(), path.c_str(), FNM_PATHNAME) == 0;
        if (!match) continue;
        const bool better = best < 0 || (!folder && !best_is_file) ||
                            (!folder == best_is_file && p.size() > best_pattern.size());
        if (better) {
          best = static_cast<int>(l);
          best_pattern = p;
          best_is_file = !folder;
        }
      }
    }
    return {best, best_pattern};
  }
};

std::vector<Levels> read_levels() {
  std::istringstream doc(slurp(kRoot / "docs/architecture.md"));
  std::vector<Levels> all;
  Levels* open = nullptr;
  for (std::string line; std::getline(doc, line);) {
    if (open == nullptr) {
      if (line.rfind("```levels ", 0) == 0) {
        all.push_back({line.substr(10), {}});
        open = &all.back();
      }
      continue;
    }
    if (line.rfind("```", 0) == 0) {
      open = nullptr;
      continue;
    }
    const std::string text = line.substr(0, line.find('#'));
    std::istringstream words(text);
    std::vector<std::string> level;
    for (std::string w; words >> w;) level.push_back(w);
    if (level.empty()) continue;
    // A line that starts with white space goes on with the level above it.
    const bool continues = (line[0] == ' ' || line[0] == '\t') && !open->patterns.empty();
    if (continues) {
      open->patterns.back().insert(open->patterns.back().end(), level.begin(), level.end());
    } else {
      open->patterns.push_back(level);
    }
  }
  return all;
}

bool is_source(const fs::path& p) {
  static const std::vector<std::string> kExtensions = {".cpp", ".hpp", ".h", ".c", ".cc"};
  return std::find(kExtensions.begin(), kExtensions.end(), p.extension().string()) !=
         kExtensions.end();
}

// Every source file of the repository (build directories and hidden ones left out), as a
// path relative to the root.
std::vector<std::string> sources() {
  std::vector<std::string> files;
  for (auto it = fs::recursive_directory_iterator(kRoot); it != fs::recursive_directory_iterator();
       ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name.rfind("build", 0) == 0 || name.rfind('.', 0) == 0)) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file() && is_source(it->path())) {
      files.push_back(fs::relative(it->path(), kRoot).generic_string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

struct Include {
  std::string target;  // relative to the root; empty when not found
  std::string written;
  int line = 0;
};

std::vector<Include> includes_of(const std::string& file) {
  static const std::regex kInclude(R"(^\s*#\s*include\s*"([^"]+)\")");
  std::vector<Include> found;
  std::istringstream text(slurp(kRoot / file));
  int number = 0;
  for (std::string line; std::getline(text, line);) {
    ++number;
    std::smatch m;
    if (!std::regex_search(line, m, kInclude)) continue;
    Include inc{"", m[1], number};
    const fs::path from_root = kRoot / inc.written;
    const fs::path from_here = (kRoot / file).parent_path() / inc.written;
    if (fs::exists(from_root)) {
      inc.target = fs::relative(from_root, kRoot).lexically_normal().generic_string();
    } else if (fs::exists(from_here)) {
      inc.target = fs::relative(from_here, kRoot).lexically_normal().generic_string();
    }
    found.push_back(inc);
  }
  return found;
}

std::string describe(const Levels& l, int level) {
  std::string patterns;
  for (const std::string& p : l.patterns[level]) patterns += (patterns.empty() ? "" : " ") + p;
  return "level " + std::to_string(level + 1) + " of " + l.scope + ": " + patterns;
}

TEST(Architecture, LevelsArePlacedOnThePage) {
  const std::vector<Levels> all = read_levels();
  ASSERT_FALSE(all.empty()) << "docs/architecture.md has no ```levels block";
  EXPECT_EQ(all.front().scope, ".") << "the first block places the folders";
  for (const Levels& l : all) EXPECT_GE(l.patterns.size(), 2u) << l.scope;
}

TEST(Architecture, EveryFileHasALevelAndEveryPatternPlacesAFile) {
  const std::vector<Levels> all = read_levels();
  const std::vector<std::string> files = sources();
  ASSERT_GT(files.size(), 100u);
  for (const Levels& l : all) {
    std::map<std::string, int> placed;  // pattern -> files it placed
    for (const std::string& f : files) {
      if (!l.covers(f)) continue;
      const auto [level, pattern] = l.level_of(f);
      if (level < 0) {
        ADD_FAILURE() << f << " has no level in the block of " << l.scope
                      << " (docs/architecture.md): place it";
      } else {
        ++placed[pattern];
      }
    }
    for (const auto& level : l.patterns) {
      for (const std::string& p : level) {
        EXPECT_GT(placed[p], 0) << "pattern " << p << " of " << l.scope
                                << " places no file (docs/architecture.md is out of date)";
      }
    }
  }
}

TEST(Architecture, NoIncludePointsUpALevel) {
  const std::vector<Levels> all = read_levels();
  int checked = 0;
  for (const std::string& f : sources()) {
    for (const Include& inc : includes_of(f)) {
      if (inc.target.empty()) {
        ADD_FAILURE() << f << ":" << inc.line << " includes \"" << inc.written
                      << "\", which is not in the repository";
        continue;
      }
      for (const Levels& l : all) {
        if (!l.covers(f) || !l.covers(inc.target)) continue;
        const int from = l.level_of(f).first, to = l.level_of(inc.target).first;
        if (from < 0 || to < 0) continue;  // reported by the test above
        ++checked;
        EXPECT_LE(to, from) << f << ":" << inc.line << " (" << describe(l, from) << ") includes "
                            << inc.target << " (" << describe(l, to) << "): an include that "
                            << "points up a level";
      }
    }
  }
  EXPECT_GT(checked, 500);
}


// A source's code without its comments and the contents of its string and character literals
// (so that words in an error text or a comment are not read as code).
std::string code_of(const std::string& file) {
  const std::string text = slurp(kRoot / file);
  std::string code;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n') ++i;
      code += '\n';
    } else if (text.compare(i, 2, "/*") == 0) {
      const std::size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? text.size() : end + 1;
      code += ' ';
    } else if (text[i] == '"' || text[i] == '\'') {
      const char quote = text[i];
      code += quote;
      for (++i; i < text.size() && text[i] != quote; ++i) {
        if (text[i] == '\\') ++i;
      }
      code += quote;
    } else {
      code += text[i];
    }
  }
  return code;
}

// Comm and Machine know no transport and no clock: every difference between the local machine
// on either clock, the spread machine and the MPI transport is behind the transport interface
// (runtime/transport.hpp). Their code names none of them, nor the enums that choose them.
TEST(Architecture, CommAndMachineHoldNoBranchOnTheTransport) {
  const std::regex named(
      R"([A-Za-z_0-9]*(mpi|spread|real|clock)[A-Za-z_0-9]*|Transport::\w+|config(\(\))?\.transport\b)",
      std::regex::icase);
  for (const std::string file : {"runtime/comm.cpp", "runtime/machine.cpp"}) {
    const std::string code = code_of(file);
    ASSERT_GT(code.size(), 1000u) << file;
    for (std::sregex_iterator it(code.begin(), code.end(), named), end; it != end; ++it) {
      const std::size_t line = std::count(code.begin(), code.begin() + it->position(), '\n') + 1;
      ADD_FAILURE() << file << ":" << line << " names " << it->str()
                    << ": a transport or a clock (that belongs behind runtime/transport.hpp)";
    }
  }
}

// The port rule is written once (runtime/ports.hpp): no other source switches on a port
// model, and the simulator, the real clock and the collectives' cost replay include it.
TEST(Architecture, ThePortRuleIsWrittenOnce) {
  for (const std::string& f : sources()) {
    if (f == "runtime/ports.hpp" || f.rfind("tests/", 0) == 0) continue;
    const std::string code = code_of(f);
    EXPECT_EQ(code.find("case Port::"), std::string::npos)
        << f << " switches on the port model: ask runtime/ports.hpp";
  }
  for (const std::string file :
       {"runtime/simulator.cpp", "runtime/real_clock.cpp", "collectives/costs/port_clocks.hpp"}) {
    bool includes = false;
    for (const Include& inc : includes_of(file)) includes |= inc.target == "runtime/ports.hpp";
    EXPECT_TRUE(includes) << file << " does not ask runtime/ports.hpp for the port rule";
  }
}

}  // namespace
