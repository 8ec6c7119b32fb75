// `vmc show` as a person sees it: its pages opened in headless Chromium (tools/browser.sh:
// Debian's chromium, network off, a fresh profile), checked through what the page itself
// reports in <pre id="vmc-status"> after it ran: no error and no console message, p nodes
// and every link of the network drawn, stepping from the start to the end shows every
// message of the run (as many as `vmc run --json` counts) and ends at the run's time, and
// the demo's hypercube:64 has no node drawn over another. It saves screenshots at three
// moments of hypercube:16 beside mesh:4x4 (allreduce) and one of the demo's page in
// VMC_SCREENSHOT_DIR. Chromium missing is a failure: tools/setup.sh installs it.
//
// Nothing here measures wall-clock time; Chromium's own clock is virtual
// (--virtual-time-budget), and the page steps by events, not by timers.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Ran {
  int exit_code = -1;
  std::string out, err;
};

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A directory of this test's own in this process: another checkout's suite running the same
// test on the machine at the same moment must not write the same page or the same output.
fs::path scratch() {
  const fs::path dir = fs::path(testing::TempDir()) /
                       ("vmc_show_" + std::to_string(::getpid()) + "_" +
                        std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
  // Removed when the test program ends (the directories of the process, not of the others).
  static struct Made {
    std::vector<fs::path> dirs;
    ~Made() {
      std::error_code ignored;
      for (const fs::path& d : dirs) fs::remove_all(d, ignored);
    }
  } made;
  if (fs::create_directories(dir)) made.dirs.push_back(dir);
  return dir;
}

// Runs a program with arguments under timeout(1) (a hang fails, never blocks the suite).
Ran run(const std::vector<std::string>& args) {
  const fs::path dir = scratch();
  std::string command = "timeout -k 10 600";
  for (const std::string& a : args) command.append(" ").append(quoted(a));
  command.append(" >").append(quoted(dir / "out.txt"));
  command.append(" 2>").append(quoted(dir / "err.txt")).append(" </dev/null");
  const int status = std::system(command.c_str());
  Ran r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read(dir / "out.txt");
  r.err = read(dir / "err.txt");
  return r;
}

Ran vmc(std::vector<std::string> args) {
  args.insert(args.begin(), VMC_BINARY);
  Ran r = run(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r;
}

const std::string kBrowser = std::string(VMC_SOURCE_DIR) + "/tools/browser.sh";

// The page's own report after it ran with this fragment, and its console lines.
nlohmann::json page_status(const fs::path& page, const std::string& fragment) {
  const Ran r = run({kBrowser, "dom", page.string() + "#" + fragment});
  EXPECT_NE(r.exit_code, 3) << "chromium is missing: tools/setup.sh installs it\n" << r.err;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // Chromium prints console messages as "...:CONSOLE..." lines ending in ", source: URL
  // (line)": none of the page's is allowed. Chromium's own pages (source: chrome://...) write
  // some of their own when the machine is slow ("Slow network is detected"): not the page's.
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);) {
    if (line.find(":CONSOLE") == std::string::npos) continue;
    EXPECT_NE(line.find(", source: chrome://"), std::string::npos) << line;
  }
  const std::string open = "<pre id=\"vmc-status\" hidden=\"\">";
  const std::size_t from = r.out.find(open);
  if (from == std::string::npos) {
    ADD_FAILURE() << "the page wrote no status: its script did not run to the end\n"
                  << r.out.substr(0, 2000);
    return nlohmann::json::object();
  }
  const std::size_t to = r.out.find("</pre>", from);
  nlohmann::json status = nlohmann::json::parse(r.out.substr(from + open.size(), to - from - open.size()));
  EXPECT_EQ(status["errors"], nlohmann::json::array()) << status["errors"].dump();
  return status;
}

struct Expected {
  std::string network;
  int p = 0;
  int links = 0;  // undirected
  std::uint64_t messages = 0;
  std::int64_t time_ps = 0;
};

// What `vmc topo` and `vmc run` say of this run, to hold the page to.
Expected expected(const std::string& network, const std::vector<std::string>& call) {
  Expected e;
  const nlohmann::json topo = nlohmann::json::parse(vmc({"topo", network, "--json"}).out);
  e.network = topo["spec"];
  e.p = topo["nodes"];
  e.links = topo["links"];
  std::vector<std::string> args{"run", "--topology", network, "--json"};
  args.insert(args.end(), call.begin(), call.end());
  const nlohmann::json ran = nlohmann::json::parse(vmc(args).out);
  e.messages = ran["messages"];
  e.time_ps = std::llround(ran["time_s"].get<double>() * 1e12);
  return e;
}

void expect_drawn_and_stepped(const nlohmann::json& status, const std::vector<Expected>& runs) {
  ASSERT_EQ(status["runs"].size(), runs.size()) << status.dump();
  std::int64_t longest = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const nlohmann::json& got = status["runs"][i];
    const Expected& want = runs[i];
    SCOPED_TRACE(want.network);
    EXPECT_EQ(got["network"], want.network);
    EXPECT_EQ(got["nodes"], want.p);
    EXPECT_EQ(got["links"], want.links);
    EXPECT_EQ(got["messages"], want.messages);
    EXPECT_EQ(got["seen"], want.messages) << "stepping to the end did not show every message";
    EXPECT_EQ(got["time_ps"], want.time_ps);
    EXPECT_TRUE(got["state"]["finished"]);
    longest = std::max(longest, want.time_ps);
  }
  EXPECT_EQ(status["t_ps"], longest) << "the page's clock does not end at the run's time";
  EXPECT_EQ(status["t_max_ps"], longest);
}

const std::vector<std::string> kAllreduce{"--op", "allreduce", "--n", "1024"};
// The mesh's algorithm of the comparison, named: automatic selection takes
// mesh_pfr_pfr_dc_alt_optimal there, whose rings alternate dimensions and wait for no link.
const char* const kMeshAllreduce = "mesh_pfr_pfr_dc_optimal";
std::vector<std::string> mesh_allreduce() {
  std::vector<std::string> call = kAllreduce;
  call.insert(call.end(), {"--algorithm", kMeshAllreduce});
  return call;
}

fs::path compare_page() {
  const fs::path page = scratch() / "compare.html";
  std::vector<std::string> args{"show", "--topology", "hypercube:16", "--compare", "mesh:4x4",
                                "--compare-algorithm", kMeshAllreduce, "-o", page.string()};
  args.insert(args.end(), kAllreduce.begin(), kAllreduce.end());
  vmc(args);
  return page;
}

TEST(ShowPage, HypercubeBesideMeshStepsToTheEnd) {
  const fs::path page = compare_page();
  const nlohmann::json status = page_status(page, "end");
  expect_drawn_and_stepped(status, {expected("hypercube:16", kAllreduce),
                                    expected("mesh:4x4", mesh_allreduce())});
  // The mesh's messages wait for links the hypercube's never need.
  EXPECT_GT(status["runs"][1]["seen_waiting"], 0);
  EXPECT_EQ(status["runs"][0]["seen_waiting"], 0);
  // After an allreduce every node holds the inputs of all 16.
  for (const nlohmann::json& r : status["runs"]) {
    EXPECT_EQ(r["holdings"], nlohmann::json(std::vector<int>(16, 16))) << r.dump();
  }
}

TEST(ShowPage, BroadcastOnATreeWithSwitchesAndARing) {
  const fs::path page = scratch() / "broadcast.html";
  const std::vector<std::string> call{"--op", "broadcast", "--n", "64", "--root", "3"};
  std::vector<std::string> args{"show", "--topology", "tree:8", "--compare", "ring:8", "-o",
                                page.string()};
  args.insert(args.end(), call.begin(), call.end());
  vmc(args);
  const nlohmann::json status = page_status(page, "end");
  expect_drawn_and_stepped(status, {expected("tree:8", call), expected("ring:8", call)});
  EXPECT_EQ(status["runs"][0]["switches"], 7);
  // Every node ends with the root's 64 items; before the first message only the root has them.
  for (const nlohmann::json& r : status["runs"]) {
    EXPECT_EQ(r["holdings"], nlohmann::json(std::vector<int>(8, 64))) << r.dump();
  }
  const nlohmann::json start = page_status(page, "at=0");
  EXPECT_EQ(start["runs"][1]["holdings"], nlohmann::json({0, 0, 0, 64, 0, 0, 0, 0}));
}

// A run with failures is not the run its cost formula describes: the page says whose time
// the formula's is, instead of calling it this run's.
TEST(ShowPage, AFailedRunSaysWhoseTimeTheFormulaGives) {
  const fs::path page = scratch() / "failed.html";
  vmc({"show", "--topology", "hypercube:8", "--op", "broadcast", "--algorithm", "binomial",
       "--n", "1", "--fail", "node:2@1ms", "-o", page.string()});
  const Ran dom = run({kBrowser, "dom", page.string() + "#end"});
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_NE(dom.out.find("(exact for the run without its failures)"), std::string::npos)
      << dom.out.substr(0, 3000);
  EXPECT_EQ(dom.out.find("(exact for this run)"), std::string::npos);
  // #at= takes a virtual time with its unit: the moment node 2 stopped.
  const nlohmann::json stopped = page_status(page, "at=1.054ms");
  EXPECT_EQ(stopped["t_ps"], 1054000000) << stopped.dump();
  EXPECT_EQ(stopped["errors"], nlohmann::json::array()) << stopped.dump();
}

// Three moments of the README's comparison; the first is the first moment a message waits,
// and the page says what that picture shows: links in use on both networks and a waiting
// message on the mesh.
TEST(ShowPage, ScreenshotsAtThreeMoments) {
  const fs::path page = compare_page();
  const nlohmann::json waiting = page_status(page, "at=wait");
  ASSERT_EQ(waiting["runs"].size(), 2u);
  EXPECT_GT(waiting["runs"][1]["state"]["waiting"], 0) << waiting.dump();
  EXPECT_GT(waiting["runs"][1]["state"]["blocked"], 0) << waiting.dump();
  EXPECT_GT(waiting["runs"][0]["state"]["busy"], 0) << waiting.dump();
  EXPECT_GT(waiting["t_ps"], 0);
  const fs::path dir = VMC_SCREENSHOT_DIR;
  fs::create_directories(dir);
  for (const std::string moment : {"wait", "0.5", "end"}) {
    const fs::path shot = dir / ("show-allreduce-" + moment + ".png");
    fs::remove(shot);
    const Ran r = run({kBrowser, "screenshot", page.string() + "#at=" + moment, shot.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::string png = read(shot);
    EXPECT_GT(png.size(), 20000u) << shot << ": too small to show the two networks";
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8)) << shot;
  }
}

// The demo's page (hypercube:64 beside mesh:8x8) as rendered: no node's circle, number, bits
// or bar overlaps another node's (the boxes the page reads back from the browser's layout
// of its elements); on the hypercube the links of the dimension in use are drawn over the
// rest. A screenshot of it is kept beside the others.
TEST(ShowPage, DemoPageDrawsHypercube64WithoutOverlaps) {
  const fs::path page = scratch() / "demo.html";
  vmc({"demo", "-o", page.string()});
  for (const std::string moment : {"at=0.25", "at=end"}) {
    SCOPED_TRACE(moment);
    const nlohmann::json status = page_status(page, moment);
    ASSERT_EQ(status["runs"].size(), 2u) << status.dump().substr(0, 2000);
    EXPECT_EQ(status["runs"][0]["network"], "hypercube:64");
    for (const nlohmann::json& run : status["runs"]) {
      SCOPED_TRACE(run["network"].dump());
      const nlohmann::json& boxes = run["node_boxes"];
      ASSERT_EQ(boxes.size(), 64u);
      int elements = 0;
      for (std::size_t u = 0; u < boxes.size(); ++u) {
        elements += static_cast<int>(boxes[u].size());
        for (std::size_t v = u + 1; v < boxes.size(); ++v) {
          for (const nlohmann::json& a : boxes[u]) {
            for (const nlohmann::json& b : boxes[v]) {
              // Overlapping by more than half a pixel both ways: [left, top, right, bottom].
              auto at = [](const nlohmann::json& box, int i) { return box[i].get<double>(); };
              const double across = std::min(at(a, 2), at(b, 2)) - std::max(at(a, 0), at(b, 0));
              const double down = std::min(at(a, 3), at(b, 3)) - std::max(at(a, 1), at(b, 1));
              EXPECT_FALSE(across > 0.5 && down > 0.5)
                  << "node " << u << " " << a.dump() << " overlaps node " << v << " " << b.dump();
            }
          }
        }
      }
      EXPECT_GE(elements, 3 * 64) << "circle, number and bar of every node";
    }
    const nlohmann::json& cube = status["runs"][0];
    EXPECT_EQ(cube["lit_on_top"], true) << cube["state"].dump();
    if (moment == "at=0.25") {
      EXPECT_FALSE(cube["state"]["dimensions_in_use"].empty()) << cube["state"].dump();
    }
  }
  const fs::path dir = VMC_SCREENSHOT_DIR;
  fs::create_directories(dir);
  const fs::path shot = dir / "demo-hypercube64.png";
  fs::remove(shot);
  const Ran r = run({kBrowser, "screenshot", page.string() + "#at=0.25", shot.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(read(shot).size(), 20000u) << shot;
}

}  // namespace
