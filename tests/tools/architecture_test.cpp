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

}  // namespace
