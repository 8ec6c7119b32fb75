// `vmc tune`, as a user runs it: its CSV names `vmc explain`'s winner and time at every grid
// point; its MPICH JSON is laid out as MPICH's example files are (maint/tuning/coll/mpir/
// generic.json: "collective=", "comm_type=intra", size conditions, "algorithm=MPIR_..."),
// and looked up as MPICH looks it up it gives the CSV's algorithms (no MPICH is installed
// here, so MPICH itself does not read it); its Open MPI rules file, given to Open MPI's
// mpirun, makes Open MPI run the algorithms it names, seen in the messages Open MPI's own
// counters (pml monitoring) report for one collective at a time.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "shell.hpp"

namespace {

using vmc::testing::Outcome;

// The machine of every test: startups cheap beside bandwidth, so that the winners change
// with the length (recursive doubling, then recursive halving and doubling for allreduce;
// binomial, then a scatter and allgather for broadcast).
const std::string kMachine = " --alpha 2us --beta 1ns --gamma 0.5ns";
const std::string kGrid = " --op allreduce,bcast --p 4,8 --n 1,256,65536";

Outcome vmc(const std::string& args) {
  return vmc::testing::run_shell(std::string("'") + VMC_BINARY + "' " + args, 300);
}

using Row = std::map<std::string, std::string>;

std::vector<Row> parse_csv(const std::string& text) {
  std::stringstream in(text);
  std::string line;
  std::vector<std::string> header;
  std::vector<Row> rows;
  auto split = [](const std::string& s) {
    std::vector<std::string> cells;
    std::stringstream cell(s);
    std::string c;
    while (std::getline(cell, c, ',')) cells.push_back(c);
    if (!s.empty() && s.back() == ',') cells.push_back("");
    return cells;
  };
  while (std::getline(in, line)) {
    if (header.empty()) {
      header = split(line);
      continue;
    }
    const std::vector<std::string> cells = split(line);
    EXPECT_EQ(cells.size(), header.size()) << line;
    Row r;
    for (std::size_t i = 0; i < header.size() && i < cells.size(); ++i) r[header[i]] = cells[i];
    rows.push_back(r);
  }
  return rows;
}

std::vector<Row> tune_csv() {
  const Outcome o = vmc("tune" + kGrid + kMachine + " --format csv");
  EXPECT_EQ(o.exit_code, 0) << o.err;
  return parse_csv(o.out);
}

// `vmc explain --json`'s choice at a grid point, and its time as explain shows it.
std::pair<std::string, double> explained(const Row& r) {
  const std::string op = r.at("op");
  const Outcome o = vmc("explain --json --op " + op + " --topology " + r.at("topology") +
                        " --n " + r.at("n") + " --type " + r.at("type") + kMachine);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  const std::string chosen = j["chosen"];
  for (const auto& a : j["algorithms"]) {
    if (a["algorithm"] == chosen) {
      return {chosen, a.contains("simulated_s") ? a["simulated_s"].get<double>()
                                                : a["predicted_s"].get<double>()};
    }
  }
  ADD_FAILURE() << "explain's chosen " << chosen << " is not among its rows";
  return {chosen, 0};
}

TEST(Tune, CsvNamesExplainsWinnerAndTimeAtEveryPoint) {
  const std::vector<Row> rows = tune_csv();
  ASSERT_EQ(rows.size(), 12u);  // 2 operations x 2 node counts x 3 lengths
  std::set<std::string> winners;
  for (const Row& r : rows) {
    const auto [chosen, seconds] = explained(r);
    EXPECT_EQ(r.at("winner"), chosen) << r.at("op") << " p " << r.at("p") << " n " << r.at("n");
    EXPECT_DOUBLE_EQ(std::stod(r.at("predicted_s")), seconds);
    EXPECT_EQ(std::stoul(r.at("item_bytes")), 4u);  // float
    // Open MPI keys allreduce and bcast on count x type size.
    EXPECT_EQ(std::stoul(r.at("open_mpi_msg_size")), 4 * std::stoul(r.at("n")));
    // Where the winner has an equivalent, it is what is written, at the winner's time.
    for (const std::string lib : {"open_mpi", "mpich"}) {
      ASSERT_FALSE(r.at(lib + "_from").empty()) << lib;
      if (r.at(lib + "_from") == r.at("winner")) {
        EXPECT_DOUBLE_EQ(std::stod(r.at(lib + "_predicted_s")), seconds);
      } else {  // another algorithm, never faster than the winner
        EXPECT_GE(std::stod(r.at(lib + "_predicted_s")), seconds);
      }
    }
    winners.insert(r.at("op") + ":" + r.at("open_mpi_algorithm"));
  }
  // The grid is one where the written algorithms change with the length.
  EXPECT_TRUE(winners.count("allreduce:recursive_doubling") && winners.count("allreduce:rabenseifner"));
  EXPECT_TRUE(winners.count("broadcast:binomial") && winners.count("broadcast:scatter_allgather"));
}

// MPICH's lookup (src/mpi/coll/src/csel.c): the first key of an object whose condition
// holds, down to the "algorithm=" leaf.
std::string mpich_lookup(const nlohmann::ordered_json& node, int p, long bytes) {
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string key = it.key();
    if (key.rfind("algorithm=", 0) == 0) return key.substr(10);
    if (key == "comm_type=intra") return mpich_lookup(it.value(), p, bytes);  // MPI_COMM_WORLD
    std::smatch m;
    static const std::regex condition(R"(^(comm_size|avg_msg_size|total_msg_size)(<=|<|=)(\w+)$)");
    if (!std::regex_match(key, m, condition)) {
      ADD_FAILURE() << "a key MPICH does not read here: " << key;
      return "";
    }
    const long value = m[1] == "comm_size" ? p : bytes;
    const bool holds = m[3] == "any" || (m[2] == "<" && value < std::stol(m[3])) ||
                       (m[2] == "<=" && value <= std::stol(m[3]));
    if (holds) return mpich_lookup(it.value(), p, bytes);
  }
  ADD_FAILURE() << "no condition holds for p " << p << ", " << bytes << " bytes";
  return "";
}

TEST(Tune, MpichJsonHasTheLayoutOfMpichsExamplesAndTheCsvsAlgorithms) {
  const Outcome o = vmc("tune" + kGrid + kMachine + " --format mpich");
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const auto json = nlohmann::ordered_json::parse(o.out);  // strict JSON, as MPICH's files
  ASSERT_EQ(json.size(), 2u);
  const std::map<std::string, std::string> prefix = {{"bcast", "MPIR_Bcast_intra_"},
                                                     {"allreduce", "MPIR_Allreduce_intra_"}};
  for (auto c = json.begin(); c != json.end(); ++c) {
    std::smatch m;
    const std::string key = c.key();
    ASSERT_TRUE(std::regex_match(key, m, std::regex("^collective=(\\w+)$"))) << key;
    ASSERT_TRUE(prefix.count(m[1])) << key;
    // As generic.json: the intra-communicator branch, then sizes of communicator, then of
    // message, each level's conditions increasing and its last one "=any".
    ASSERT_EQ(c.value().size(), 1u);
    const auto& intra = c.value().at("comm_type=intra");
    std::vector<std::string> sizes;
    for (auto s = intra.begin(); s != intra.end(); ++s) sizes.push_back(s.key());
    EXPECT_EQ(sizes, (std::vector<std::string>{"comm_size<8", "comm_size=any"}));
    for (auto s = intra.begin(); s != intra.end(); ++s) {
      std::vector<std::string> lengths;
      for (auto l = s.value().begin(); l != s.value().end(); ++l) {
        lengths.push_back(l.key());
        ASSERT_EQ(l.value().size(), 1u);  // one algorithm, its parameters under it
        const std::string leaf = l.value().begin().key();
        EXPECT_EQ(leaf.rfind("algorithm=" + prefix.at(m[1]), 0), 0u) << leaf;
        EXPECT_TRUE(l.value().begin().value().empty()) << leaf;
      }
      EXPECT_EQ(lengths, (std::vector<std::string>{"avg_msg_size<1024", "avg_msg_size<262144",
                                                   "avg_msg_size=any"}));
    }
  }
  // Looked up as MPICH does, every grid point gives the CSV's algorithm.
  for (const Row& r : tune_csv()) {
    const std::string op = r.at("op") == "broadcast" ? "bcast" : r.at("op");
    EXPECT_EQ(mpich_lookup(json.at("collective=" + op), std::stoi(r.at("p")),
                           std::stol(r.at("mpich_bytes"))),
              r.at("mpich_algorithm"))
        << op << " p " << r.at("p") << " n " << r.at("n");
  }
}

// Open MPI's classic rules file read as Open MPI 4.1 reads it (coll_tuned_dynamic_file.c):
// numbers, '#' to the end of the line a comment. Returns, per collective id and
// communicator size, the (message size, algorithm) rules.
using Rules = std::map<std::pair<long, long>, std::vector<std::pair<long, long>>>;
Rules parse_rules(const std::string& text) {
  std::stringstream lines(text);
  std::string line, numbers;
  while (std::getline(lines, line)) numbers += line.substr(0, line.find('#')) + " ";
  std::stringstream in(numbers);
  auto next = [&] {
    long v = -1;
    EXPECT_TRUE(in >> v) << "the rules end early";
    return v;
  };
  Rules rules;
  for (long c = next(); c > 0; --c) {
    const long id = next();
    for (long s = next(); s > 0; --s) {
      const long comm = next();
      for (long k = next(); k > 0; --k) {
        const long size = next(), alg = next();
        EXPECT_EQ(next(), 0);  // fan-in/out
        EXPECT_EQ(next(), 0);  // segment size
        rules[std::make_pair(id, comm)].push_back({size, alg});
      }
      const auto& made = rules[std::make_pair(id, comm)];
      EXPECT_EQ(made.front().first, 0) << "the first rule must start at 0";
    }
  }
  long extra = 0;
  EXPECT_FALSE(in >> extra) << "numbers after the last rule";
  return rules;
}

// The rule Open MPI takes: the last whose message size is at most the call's.
long rule_for(const std::vector<std::pair<long, long>>& rules, long bytes) {
  long alg = rules.front().second;
  for (const auto& [size, a] : rules) {
    if (size <= bytes) alg = a;
  }
  return alg;
}

// Which of Open MPI's algorithms sent these messages (rank -> peer -> messages) on 4 ranks:
// the patterns of coll_base_allreduce.c and coll_base_bcast.c, told apart by who sends to
// whom, and how often.
long classify(const std::string& op, const std::map<int, std::map<int, long>>& sent) {
  auto peers = [&](int r) {
    std::set<int> s;
    if (sent.count(r)) {
      for (const auto& [peer, count] : sent.at(r)) s.insert(peer);
    }
    return s;
  };
  if (op == "allreduce") {
    bool ring = true, butterfly = true, twice = true;
    for (int r = 0; r < 4; ++r) {
      ring = ring && peers(r) == std::set<int>{(r + 1) % 4};
      butterfly = butterfly && peers(r) == std::set<int>{r ^ 1, r ^ 2};
      twice = twice && butterfly && sent.at(r).at(r ^ 1) == 2 && sent.at(r).at(r ^ 2) == 2;
    }
    if (ring) return 4;
    if (butterfly) return twice ? 6 : 3;  // rabenseifner halves and doubles: two each
    return -1;
  }
  if (sent.size() == 1 && peers(0).size() == 3) return 1;  // linear: the root alone
  if (sent.size() == 2 && peers(0).size() == 2) return 6;  // binomial: 0 -> 1, 2; 1 -> 3
  if (sent.size() == 4) return peers(1).count(2) ? 9 : 8;  // scatter, then ring or doubling
  return -1;
}

// The algorithm Open MPI ran for one call of `op` with n floats on 4 ranks under the rules
// file: the program with Open MPI's message counters on, written at MPI_Finalize into a file
// per rank (PREFIX.RANK.prof; four ranks printing to one output can interleave their lines
// on a loaded machine), whose "I" lines are the messages its collectives sent, "I rank peer
// BYTES bytes COUNT msgs sent".
long observed(const std::string& file, const std::string& op, const std::string& n) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / ("vmc_tune_counts_" + op + "_" + n);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const Outcome run = vmc::testing::run_shell(
      std::string("'") + VMC_MPIEXEC +
          "' --oversubscribe --allow-run-as-root --mca btl_vader_single_copy_mechanism none"
          " --mca coll ^han,adapt --mca coll_tuned_use_dynamic_rules 1"
          " --mca coll_tuned_dynamic_rules_filename " +
          vmc::testing::shell_quoted(file) +
          " --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3"
          " --mca pml_monitoring_filename " +
          vmc::testing::shell_quoted((dir / "counts").string()) + " -np 4 '" +
          VMC_TUNE_PROGRAM + "' " + op + " " + n,
      300);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  std::map<int, std::map<int, long>> sent;
  static const std::regex internal(R"(^I\s+(\d+)\s+(\d+)\s+\d+ bytes\s+(\d+) msgs sent.*)");
  for (int rank = 0; rank < 4; ++rank) {
    std::ifstream lines(dir / ("counts." + std::to_string(rank) + ".prof"));
    EXPECT_TRUE(lines.good()) << "no message counts from Open MPI's rank " << rank << "\n"
                              << run.out << run.err;
    std::string line;
    for (std::smatch m; std::getline(lines, line);) {
      if (std::regex_match(line, m, internal)) {
        sent[std::stoi(m[1])][std::stoi(m[2])] += std::stol(m[3]);
      }
    }
  }
  EXPECT_FALSE(sent.empty()) << "no message counts from Open MPI:\n" << run.out << run.err;
  return classify(op, sent);
}

TEST(Tune, OpenMpiRunsTheAlgorithmsOfTheRulesFile) {
  if (std::string(VMC_MPIEXEC).empty()) {
    GTEST_SKIP() << "mpirun was not found when vmc was configured (CMake's FindMPI); install "
                    "Open MPI (tools/setup.sh does) and configure again";
  }
  const std::string file = ::testing::TempDir() + "/vmc_tune_rules.txt";
  const Outcome o = vmc("tune --op allreduce,bcast --p 4 --n 1,256,65536" + kMachine +
                        " --format ompi -o " + vmc::testing::shell_quoted(file));
  ASSERT_EQ(o.exit_code, 0) << o.err;
  const Rules rules = parse_rules(vmc::testing::slurp(file));
  ASSERT_EQ(rules.size(), 2u);  // allreduce (2) and bcast (7) at p = 4
  std::set<long> seen;
  for (const Row& r : tune_csv()) {
    if (r.at("p") != "4") continue;
    const std::string op = r.at("op") == "broadcast" ? "bcast" : r.at("op");
    const long id = op == "bcast" ? 7 : 2;
    const long alg = rule_for(rules.at({id, 4}), std::stol(r.at("open_mpi_msg_size")));
    EXPECT_EQ(alg, std::stol(r.at("open_mpi_id"))) << op << " n " << r.at("n");
    EXPECT_EQ(observed(file, op, r.at("n")), alg) << op << " n " << r.at("n");
    seen.insert(id * 100 + alg);
  }
  EXPECT_EQ(seen, (std::set<long>{203, 206, 706, 708}));
  // The file decides, not Open MPI's own rules: the same file with every rule's algorithm 3
  // or 6 made 4 (allreduce's ring) runs the ring.
  std::string text = vmc::testing::slurp(file);
  text = std::regex_replace(text, std::regex(R"((\n\d+) [36] 0 0)"), "$1 4 0 0");
  const std::string ring = file + ".ring";
  std::ofstream(ring) << text;
  EXPECT_EQ(observed(ring, "allreduce", "65536"), 4);
}

TEST(Tune, RefusesASizedTopologyAndNamesTheFlag) {
  const Outcome o = vmc("tune --op allreduce --topology hypercube:8 --p 4 --n 1");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_NE(o.err.find("--topology"), std::string::npos) << o.err;
  const Outcome bad = vmc("tune --op allreduce,nonsense --p 4 --n 1");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--op"), std::string::npos) << bad.err;
}

}  // namespace
