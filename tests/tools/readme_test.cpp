// The README tells the truth about what can be checked mechanically: its algorithm table is
// what `vmc list --markdown` prints (the registry), its library example is
// examples/readme_example.cpp, which the suite builds and runs (readme.example), and its
// harness example is examples/my_allreduce/my_allreduce_test.cpp, which install.my_allreduce
// builds against the installed library and runs.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
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

std::string readme() { return slurp(std::string(VMC_SOURCE_DIR) + "/README.md"); }

TEST(Readme, AlgorithmTableIsWhatVmcListPrints) {
  std::string printed;
  FILE* pipe = popen((std::string("'") + VMC_BINARY + "' list --markdown").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buf[4096];
  while (std::size_t got = std::fread(buf, 1, sizeof buf, pipe)) printed.append(buf, got);
  ASSERT_EQ(pclose(pipe), 0);
  ASSERT_FALSE(printed.empty());
  EXPECT_EQ(section(readme(), "vmc list --markdown"), printed)
      << "regenerate the README's table with: tools/update_readme.sh";
}

TEST(Readme, HarnessExampleIsTheTestTheInstallTestBuilds) {
  const std::string code =
      slurp(std::string(VMC_SOURCE_DIR) + "/examples/my_allreduce/my_allreduce_test.cpp");
  ASSERT_FALSE(code.empty());
  EXPECT_EQ(section(readme(), "examples/my_allreduce/my_allreduce_test.cpp"),
            "```cpp\n" + code + "```\n");
}

TEST(Readme, LibraryExampleIsTheProgramTheTestsBuild) {
  const std::string code = slurp(std::string(VMC_SOURCE_DIR) + "/examples/readme_example.cpp");
  ASSERT_FALSE(code.empty());
  EXPECT_EQ(section(readme(), "examples/readme_example.cpp"), "```cpp\n" + code + "```\n");
}

}  // namespace
