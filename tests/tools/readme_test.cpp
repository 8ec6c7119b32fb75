// The README and the pages of docs/ tell the truth about what can be checked mechanically:
// - docs/algorithms.md's table is what `vmc list --markdown` prints (the registry);
// - every file a page shows between "<!-- begin: PATH -->" and "<!-- end: PATH -->" is shown
//   as it is: the README's library example (examples/readme_example.cpp, which the suite
//   builds and runs as readme.example) and docs/writing-a-collective.md's harness example
//   (examples/my_allreduce/, which install.my_allreduce builds against the installed library);
// - the README is a front page of at most 250 lines, and its test command is what CI runs;
// - every relative link (and its #anchor) and every repository path the pages name exists;
// - every subcommand `vmc --help` lists is in the README's list and has its section in
//   docs/cli.md;
// - no source file sends its reader to a file outside the repository (the planning notes the
//   project started from) or to an issue number of a tracker the reader does not have.
#include <fnmatch.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path kSource = VMC_SOURCE_DIR;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// What `vmc ARGS` prints on standard output; the test fails when it exits with an error.
std::string vmc(const std::string& args) {
  std::string printed;
  FILE* pipe = popen((std::string("'") + VMC_BINARY + "' " + args).c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "cannot run vmc " << args;
    return printed;
  }
  char buf[4096];
  while (std::size_t got = std::fread(buf, 1, sizeof buf, pipe)) printed.append(buf, got);
  EXPECT_EQ(pclose(pipe), 0) << "vmc " << args;
  return printed;
}

// The README and every page of docs/, as paths relative to the repository.
std::vector<fs::path> pages() {
  std::vector<fs::path> all = {"README.md"};
  std::vector<fs::path> docs;
  for (const auto& entry : fs::directory_iterator(kSource / "docs")) {
    if (entry.path().extension() == ".md") docs.push_back(fs::relative(entry.path(), kSource));
  }
  std::sort(docs.begin(), docs.end());
  all.insert(all.end(), docs.begin(), docs.end());
  return all;
}

// The text between the lines "<!-- begin: NAME -->" and "<!-- end: NAME -->".
std::string section(const std::string& text, const std::string& name) {
  const std::string begin = "<!-- begin: " + name + " -->\n", end = "<!-- end: " + name + " -->";
  const std::size_t from = text.find(begin);
  if (from == std::string::npos) return "(no " + begin + ")";
  const std::size_t to = text.find(end, from);
  if (to == std::string::npos) return "(no " + end + ")";
  return text.substr(from + begin.size(), to - from - begin.size());
}

// The NAMEs of a page's lines "<!-- begin: NAME -->" (whole lines: the same text inside a
// sentence or a code span is not a section).
std::vector<std::string> sections(const std::string& text) {
  std::vector<std::string> names;
  const std::regex begin(R"(<!-- begin: (.+) -->)");
  std::smatch m;
  for (const std::string& line : lines_of(text)) {
    if (std::regex_match(line, m, begin)) names.push_back(m[1]);
  }
  return names;
}

// How a page shows a file: a fenced block in the file's language.
std::string shown(const fs::path& file) {
  const std::string ext = file.extension().string();
  std::string language = "text";
  if (ext == ".cpp" || ext == ".hpp" || ext == ".h") language = "cpp";
  if (ext == ".cmake" || file.filename() == "CMakeLists.txt") language = "cmake";
  if (ext == ".sh") language = "sh";
  return "```" + language + "\n" + slurp(kSource / file) + "```\n";
}

// GitHub's anchor of a heading: lower case, spaces to hyphens, other punctuation dropped.
std::string anchor(const std::string& heading) {
  std::string out;
  for (unsigned char ch : heading) {
    if (std::isalnum(ch) || ch == '_' || ch == '-' || ch >= 0x80) {
      out += char(std::tolower(ch));
    } else if (ch == ' ') {
      out += '-';
    }
  }
  return out;
}

std::set<std::string> anchors(const std::string& text) {
  std::set<std::string> out;
  bool fenced = false;
  for (const std::string& line : lines_of(text)) {
    if (line.rfind("```", 0) == 0) fenced = !fenced;
    if (fenced || line.empty() || line[0] != '#') continue;
    const std::size_t text_from = line.find_first_not_of('#');
    if (text_from == std::string::npos || line[text_from] != ' ') continue;
    std::string a = anchor(line.substr(text_from + 1));
    // A second heading of the same text gets "-1", a third "-2".
    std::string unique = a;
    for (int k = 1; out.count(unique) != 0; ++k) unique = a + "-" + std::to_string(k);
    out.insert(unique);
  }
  return out;
}

TEST(Readme, IsAFrontPageOfAtMost250Lines) {
  const std::size_t lines = lines_of(slurp(kSource / "README.md")).size();
  EXPECT_LE(lines, 250u) << "README.md has " << lines << " lines: move the detail to docs/";
}

// The README's test command (its first "set up, run the tests" line) is what CI runs: .ci/run
// holds it word for word, so that the command the README promises is the one CI checks.
TEST(Readme, TestCommandIsWhatCiRuns) {
  std::string command;
  for (const std::string& line : lines_of(slurp(kSource / "README.md"))) {
    const std::size_t comment = line.find("# set up, run the tests");
    if (comment == std::string::npos) continue;
    command = line.substr(0, line.find_last_not_of(' ', comment - 1) + 1);
    break;
  }
  ASSERT_FALSE(command.empty()) << "README.md gives no line commented '# set up, run the tests'";
  EXPECT_NE(slurp(kSource / ".ci/run").find("'" + command + "'"), std::string::npos)
      << ".ci/run does not run the README's test command: " << command;
}

TEST(Docs, AlgorithmTableIsWhatVmcListPrints) {
  const std::string printed = vmc("list --markdown");
  ASSERT_FALSE(printed.empty());
  EXPECT_EQ(section(slurp(kSource / "docs/algorithms.md"), "vmc list --markdown"), printed)
      << "write the table again with: tools/update_algorithm_table.sh";
}

// The examples the pages must show, and every file any page shows, as it is.
TEST(Docs, ShownFilesAreTheFilesAsTheyAre) {
  const std::vector<std::pair<fs::path, std::string>> required = {
      {"README.md", "examples/readme_example.cpp"},
      {"docs/writing-a-collective.md", "examples/my_allreduce/my_allreduce_test.cpp"},
  };
  for (const auto& [page, file] : required) {
    EXPECT_NE(slurp(kSource / page).find("<!-- begin: " + file + " -->"), std::string::npos)
        << page.string() << " does not show " << file;
  }
  int checked = 0;
  for (const fs::path& page : pages()) {
    const std::string text = slurp(kSource / page);
    for (const std::string& name : sections(text)) {
      if (name == "vmc list --markdown") continue;
      ++checked;
      ASSERT_TRUE(fs::is_regular_file(kSource / name))
          << page.string() << " shows " << name << ", which is not a file";
      EXPECT_EQ(section(text, name), shown(name))
          << page.string() << " does not show " << name << " as it is";
    }
  }
  EXPECT_GE(checked, 2);
}

// A link [text](target) whose target is not a URL: relative to its page, and its #anchor (if
// any) a heading of the page it points to.
TEST(Docs, RelativeLinksLeadSomewhere) {
  const std::regex link(R"(\]\(([^()\s]+)\))");
  for (const fs::path& page : pages()) {
    const std::string text = slurp(kSource / page);
    for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
      const std::string target = (*it)[1];
      if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0) continue;
      const std::size_t hash = target.find('#');
      const std::string file = target.substr(0, hash);
      const fs::path to = file.empty() ? kSource / page : kSource / page.parent_path() / file;
      if (!fs::exists(to)) {
        ADD_FAILURE() << page.string() << " links to " << target << ", which does not exist";
        continue;
      }
      if (hash == std::string::npos || to.extension() != ".md") continue;
      EXPECT_EQ(anchors(slurp(to)).count(target.substr(hash + 1)), 1u)
          << page.string() << " links to " << target << ": "
          << to.lexically_relative(kSource).string() << " has no such heading";
    }
  }
}

// A repository path is a word that starts with one of the repository's top-level folders and
// a slash ("tools/figures.sh", "tests/collectives/", "examples/my_allreduce"), preceded by
// the start of a line, a space, a quote, a bracket or "=" (not by a letter or a slash, so
// "PREFIX/lib/cmake/vmc" and "build/bench/bench_runtime" are not read as paths of the
// clone). The word ends at the first character that cannot be in a file name of the
// repository (a space, a quote, "<", ...), less a trailing ".", ",", ":" or ";": so
// "collectives/<operation>/" names the folder collectives/. Paths under build directories
// are not paths of the repository and are not checked. The word must exist from the root; a
// word with a "*" (a glob, as architecture.md's levels are written) must match a file.
TEST(Docs, RepositoryPathsNamedExist) {
  const std::regex path(std::string(R"((^|[\s`'"(\[=]))") +
                        "((?:topology|runtime|collectives|tools|tests|bench|examples|cmake|docs|"
                        R"(\.ci)/[A-Za-z0-9_./*\-]*))");
  std::vector<std::string> files;  // every file of the repository, for globs
  for (auto it = fs::recursive_directory_iterator(kSource);
       it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (it->is_directory() && (name.rfind("build", 0) == 0 || name.rfind('.', 0) == 0)) {
      it.disable_recursion_pending();
    } else if (it->is_regular_file()) {
      files.push_back(fs::relative(it->path(), kSource).generic_string());
    }
  }
  auto exists = [&](const std::string& named) {
    if (named.find('*') == std::string::npos) return fs::exists(kSource / named);
    return std::any_of(files.begin(), files.end(), [&](const std::string& f) {
      return fnmatch(named.c_str(), f.c_str(), FNM_PATHNAME) == 0;
    });
  };
  for (const fs::path& page : pages()) {
    int number = 0;
    for (const std::string& line : lines_of(slurp(kSource / page))) {
      ++number;
      for (std::sregex_iterator it(line.begin(), line.end(), path), end; it != end; ++it) {
        std::string named = (*it)[2];
        while (!named.empty() && std::string(".,:;").find(named.back()) != std::string::npos) {
          named.pop_back();
        }
        EXPECT_TRUE(exists(named))
            << page.string() << ":" << number << " names " << named << ", which does not exist";
      }
    }
  }
}

// Every page of docs/ is linked from the README or from another page.
TEST(Docs, EveryPageIsLinked) {
  std::string all;
  for (const fs::path& page : pages()) all += slurp(kSource / page);
  for (const fs::path& page : pages()) {
    if (page == "README.md") continue;
    const std::string name = page.filename().string();
    const bool linked = all.find("](" + name) != std::string::npos ||
                        all.find("](docs/" + name) != std::string::npos;
    EXPECT_TRUE(linked) << page.string() << " is linked from no page";
  }
}

// `vmc --help` lists the subcommands after "Subcommands:", one a line, name first.
TEST(Docs, EverySubcommandIsInTheReadmeAndInCliMd) {
  const std::string help = vmc("--help");
  const std::size_t from = help.find("Subcommands:");
  ASSERT_NE(from, std::string::npos) << help;
  std::vector<std::string> commands;
  for (const std::string& line : lines_of(help.substr(from))) {
    std::istringstream words(line);
    std::string first;
    if (line.size() > 2 && line.rfind("  ", 0) == 0 && line[2] != ' ' && (words >> first)) {
      commands.push_back(first);
    }
  }
  ASSERT_GE(commands.size(), 9u) << help;
  const std::string readme = slurp(kSource / "README.md");
  const std::string cli = slurp(kSource / "docs/cli.md");
  for (const std::string& c : commands) {
    EXPECT_NE(readme.find("\n- `vmc " + c), std::string::npos)
        << "README.md's list of commands has no line \"- `vmc " << c << "...\"";
    EXPECT_NE(cli.find("\n## vmc " + c + "\n"), std::string::npos)
        << "docs/cli.md has no section \"## vmc " << c << "\"";
  }
}

// The files whose text the check below reads: the repository's sources, build scripts,
// scripts and docs. Build directories are left out (any folder named build* or holding a
// CMakeCache.txt), and so are hidden folders but .ci.
bool is_source(const fs::path& file) {
  static const std::set<std::string> extensions = {".cpp", ".hpp", ".h", ".c", ".cmake",
                                                   ".sh", ".md", ".in", ".json"};
  if (file.filename() == "CMakeLists.txt" || extensions.count(file.extension().string()) != 0) {
    return true;
  }
  if (!file.extension().empty()) return false;
  std::ifstream in(file, std::ios::binary);  // a script without an extension: .ci/run
  char head[2] = {};
  in.read(head, 2);
  return head[0] == '#' && head[1] == '!';
}

TEST(Docs, NoSourceNamesAFileOutsideTheRepositoryOrAnIssueNumber) {
  // Their names without the extension, so that this file does not name them itself.
  const std::vector<std::string> notes = {"DESIGN", "STYLE"};
  const std::regex issue(R"(\bissues?\s*#?\s*[0-9]+)", std::regex::icase);
  int files = 0;
  const fs::recursive_directory_iterator end;
  for (auto it = fs::recursive_directory_iterator(kSource); it != end; ++it) {
    const fs::path& p = it->path();
    const std::string name = p.filename().string();
    if (it->is_directory()) {
      const bool hidden = name[0] == '.' && name != ".ci";
      if (hidden || name.rfind("build", 0) == 0 || fs::exists(p / "CMakeCache.txt")) {
        it.disable_recursion_pending();
      }
      continue;
    }
    if (!it->is_regular_file() || !is_source(p)) continue;
    ++files;
    int number = 0;
    for (const std::string& line : lines_of(slurp(p))) {
      ++number;
      std::string upper = line;
      std::transform(upper.begin(), upper.end(), upper.begin(),
                     [](unsigned char ch) { return char(std::toupper(ch)); });
      const std::string where = p.lexically_relative(kSource).string() + ":" +
                                std::to_string(number) + ": " + line;
      for (const std::string& note : notes) {
        EXPECT_EQ(upper.find(note + ".MD"), std::string::npos)
            << where << "\n  names " << note << ".md, which is not in the repository: point at "
            << "docs/ (model.md, architecture.md, ...) or say the thing itself";
      }
      EXPECT_FALSE(std::regex_search(line, issue))
          << where << "\n  cites an issue number a reader cannot look up: say the thing itself";
    }
  }
  EXPECT_GT(files, 100);
}

}  // namespace
