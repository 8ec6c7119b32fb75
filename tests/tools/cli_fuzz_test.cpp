// The vmc command line, run as a user runs it: every flag of every command with malformed
// values (empty, negative, zero, huge, garbage, bad units, unknown names) gives exit code 2
// and one line on standard error naming the flag, never a crash, a signal, a hang or a silent
// wrap; good invocations of every command exit 0. The binary comes from CMake (VMC_BINARY).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "shell.hpp"
#include "tests/sanitized.hpp"

namespace {

using ::testing::HasSubstr;
using ::testing::ContainsRegex;
using ::testing::Not;

using vmc::testing::kSanitized;
using vmc::testing::Outcome;
using vmc::testing::run_shell;
using vmc::testing::shell_quoted;
using vmc::testing::slurp;

Outcome vmc(const std::vector<std::string>& args) {
  std::string command = shell_quoted(VMC_BINARY);
  for (const std::string& a : args) command.append(" ").append(shell_quoted(a));
  return run_shell(command, 120);
}

std::string joined(const std::vector<std::string>& args) {
  std::string s = "vmc";
  for (const std::string& a : args) s += " '" + a + "'";
  return s;
}

// A bad command line: exit 2, one line on stderr that names the flag.
void expect_refused(const std::vector<std::string>& args, const std::string& flag) {
  const Outcome o = vmc(args);
  EXPECT_EQ(o.exit_code, 2) << joined(args) << "\nstderr: " << o.err;
  EXPECT_THAT(o.err, HasSubstr(flag)) << joined(args);
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << joined(args) << "\n" << o.err;
}

Outcome expect_ok(const std::vector<std::string>& args) {
  Outcome o = vmc(args);
  EXPECT_EQ(o.exit_code, 0) << joined(args) << "\nstderr: " << o.err;
  return o;
}

// The malformed values of each kind of flag.
const std::vector<std::string> kBadCounts = {"", "-1", "-0x10", "abc", "1.5", "1e3", "12abc",
                                             "99999999999999999999999", "2000000000000"};
const std::vector<std::string> kBadDurations = {"", "-1us", "5", "5xs", "us", "inf", "nan",
                                                "1e400s", "-0.5ms", "5 us"};
const std::vector<std::string> kBadNames = {"", "bogus", "-1", "0"};
const std::vector<std::string> kBadTopologies = {"",        "bogus",        "ring:0",
                                                 "ring:-1", "mesh:0x3",     "hypercube:x",
                                                 "full:",   "full:99999999999999999999"};
const std::vector<std::string> kBadScales = {"", "0", "-1", "1e-10", "1e300", "inf", "nan", "x"};
// Per-class link rates: malformed lists, and (on full:3, which has no link classes) good ones.
const std::vector<std::string> kBadRates = {"", "5", "x=1us", "1=5", "1=-1us", "1=1us,1=2us",
                                            "1=1xs", "1=1us,", "1=1us"};
// Stragglers: malformed items, a node outside full:3, a negative delay, a factor below 1, a
// detour not shorter than its period, a time without a unit.
const std::vector<std::string> kBadSkews = {"", "uniform", "uniform:-1us", "node:3=1ms",
                                            "node:x=1ms", "node:1=1ms,1=2ms", "gauss:1ms",
                                            "node:1=5", "1ms"};
const std::vector<std::string> kBadSlows = {"", "node:1=0.5x", "node:1=0", "node:3=2x",
                                            "node:1=fast", "2x", "node:-1=2"};
const std::vector<std::string> kBadNoises = {"", "every:1ms", "every:1ms,for:1ms",
                                             "every:1ms,for:2ms", "every:1ms,for:5",
                                             "every:1ms,for:50us,seed:x", "often:1ms,for:1us"};
const std::vector<std::string> kBadRoots = {"", "-1", "x", "1.5", "99999999999999999999", "3"};

// Each flag of the commands that build a machine, with its bad values. Base arguments keep
// the machine tiny (full:3: --root 3 is out of range).
std::vector<std::pair<std::string, std::vector<std::string>>> machine_flags() {
  return {{"--topology", kBadTopologies}, {"--alpha", kBadDurations},
          {"--beta", kBadDurations},      {"--gamma", kBadDurations},
          {"--short-alpha", kBadDurations}, {"--short-items", kBadCounts},
          {"--port", kBadNames},          {"--routing", kBadNames},
          {"--contention", kBadNames},    {"--protocol", kBadNames},
          {"--beta-net", kBadDurations},  {"--delta", kBadDurations},
          {"--worm", kBadNames},          {"--op", kBadNames},
          {"--beta-dim", kBadRates},      {"--beta-level", kBadRates},
          {"--beta-up", kBadRates},       {"--beta-down", kBadRates},
          {"--root", kBadRoots},          {"--type", kBadNames},
          {"--reduction", kBadNames},     {"--segment-items", kBadCounts},
          {"--strategy", {"2", "abc", "0x1"}},
          {"--skew", kBadSkews},          {"--slow", kBadSlows},
          {"--noise", kBadNoises}};
}

void fuzz(const std::string& command, const std::vector<std::string>& base,
          std::vector<std::pair<std::string, std::vector<std::string>>> flags) {
  // The command, its base arguments and one more.
  const auto with_base = [&](const std::string& extra) {
    std::vector<std::string> args{command};
    args.insert(args.end(), base.begin(), base.end());
    args.push_back(extra);
    return args;
  };
  // Under the sanitizers, where each run of vmc costs several times as much, a third of each
  // flag's malformed values (the next flag another third); the release run tries them all.
  std::size_t turn = 0;
  for (const auto& [flag, values] : flags) {
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (kSanitized && (i + turn) % 3 != 0) continue;
      expect_refused(with_base(flag + "=" + values[i]), flag);
    }
    ++turn;
    expect_refused(with_base(flag), flag);  // the flag without a value
  }
  // An unknown flag or a stray word beside good ones (a missing required flag comes first).
  expect_refused(with_base("--bogus"), "--bogus");
  expect_refused(with_base("--bogus"), "(see vmc " + command + " --help)");
  expect_refused(with_base("--bogus=1"), "--bogus");
  expect_refused(with_base("stray"), "stray");
}

TEST(CommandLine, RunRefusesEveryMalformedFlag) {
  auto flags = machine_flags();
  flags.push_back({"--n", kBadCounts});
  flags.push_back({"--algorithm", {"", "bogus", "hybrid", "pairwise_xor"}});
  flags.push_back({"--clock", kBadNames});
  flags.push_back({"--time-scale", kBadScales});
  flags.push_back({"--trace", {""}});
  flags.push_back({"--engine", kBadNames});
  flags.push_back({"--data", kBadNames});
  flags.push_back({"--workers", {"", "-1", "x", "4097", "1e3"}});
  flags.push_back({"--transport", kBadNames});
  flags.push_back({"--repeat", {"", "0", "-1", "x", "100001", "1.5"}});
  fuzz("run", {"--topology=full:3", "--n=2"}, flags);
  // The MPI transport's refusals come before MPI starts (and in a build without MPI).
  expect_refused({"run", "--transport=mpi", "--clock=real"}, "--clock");
  expect_refused({"run", "--transport=mpi", "--data=none"}, "--data");
  expect_refused({"run", "--transport=mpi", "--trace=run.json"}, "--trace");
  expect_refused({"run", "--transport=spread", "--clock=real"}, "--clock");
  // Combinations that only fail together, each naming a flag.
  expect_refused({"run", "--topology=full:3", "--reduction=matmul", "--type=float"},
                 "--reduction");
  expect_refused({"run", "--topology=full:3", "--reduction=bxor", "--type=double"},
                 "--reduction");
  expect_refused({"run", "--topology=hypercube:8", "--op=alltoall", "--algorithm=ring",
                  "--n=1000000000000"},
                 "--n");
  expect_refused({"run", "--topology=full:2", "--op=allreduce", "--n=1000000000000"}, "--n");
  expect_refused({"run", "--topology=full:3", "--engine=fibers", "--clock=real"}, "--engine");
  expect_refused({"run", "--topology=full:3", "--data=none", "--check"}, "--check");
  // 004's hybrid families: a member row needs a member, and only a member row takes one.
  const std::vector<std::string> mesh{"run", "--topology=mesh:2x3", "--op=broadcast", "--n=6"};
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = mesh;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  expect_refused(with({"--algorithm=mesh_mst_sc"}), "--hybrid");
  expect_refused(with({"--algorithm=mesh_mst_sc", "--hybrid=99"}), "--hybrid 99");
  expect_refused(with({"--algorithm=mesh_mst_sc", "--hybrid=x"}), "--hybrid");
  expect_refused(with({"--algorithm=binomial", "--hybrid=0"}), "mesh_mst_sc");
  expect_ok(with({"--algorithm=mesh_mst_sc", "--hybrid=1", "--check"}));
  // 004's DOPL: --dopl-steps names overlap or synchronized, and synchronized goes with the
  // mesh_dopl rows only (or auto, on an operation that has one).
  expect_refused(with({"--algorithm=mesh_dopl", "--dopl-steps=sync"}), "--dopl-steps");
  expect_refused(with({"--algorithm=binomial", "--dopl-steps=synchronized"}), "mesh_dopl");
  expect_refused({"run", "--topology=mesh:2x3", "--op=allgather", "--n=6",
                  "--dopl-steps=synchronized"},
                 "--dopl-steps");
  expect_refused({"explain", "--topology=mesh:6x4", "--op=allgather", "--n=10",
                  "--dopl-steps=synchronized"},
                 "--dopl-steps");
  // The demo refuses it before it runs anything: nothing on standard output.
  const Outcome demo = vmc({"demo", "--topology=mesh:4x4", "--op=allgather",
                            "--dopl-steps=synchronized"});
  EXPECT_EQ(demo.exit_code, 2) << demo.err;
  EXPECT_THAT(demo.err, HasSubstr("--dopl-steps synchronized"));
  EXPECT_EQ(demo.out, "");
  expect_ok({"run", "--topology=mesh:2x3", "--op=reduce", "--n=30011", "--port=duplex",
             "--algorithm=mesh_dopl", "--dopl-steps=synchronized", "--check"});
  expect_ok(with({"--dopl-steps=synchronized", "--check"}));
  expect_ok(with({"--algorithm=binomial", "--dopl-steps=overlap", "--check"}));
}

TEST(CommandLine, ExplainRefusesEveryMalformedFlag) {
  auto flags = machine_flags();
  flags.push_back({"--n", kBadCounts});
  fuzz("explain", {"--topology=full:3", "--n=2"}, flags);
  expect_refused({"explain", "--item-size=0"}, "--item-size");
}

// An option the command does not take is named as typed, with its value, then any stray
// words (CLI11's own message named them last first: "none --data").
TEST(CommandLine, AnUnknownOptionIsNamedAsTyped) {
  expect_refused({"explain", "--op=broadcast", "--topology=mesh:6x4", "--data", "none"},
                 "vmc explain: unknown option --data none (see vmc explain --help)");
  expect_refused({"run", "--op", "broadcast", "--bogus", "3", "--nodes", "4", "extra", "words"},
                 "vmc run: unknown options --bogus 3, --nodes 4; unexpected arguments: extra "
                 "words (see vmc run --help)");
  expect_refused({"run", "stray"}, "vmc run: unexpected arguments: stray (see vmc run --help)");
}

TEST(CommandLine, SweepRefusesEveryMalformedFlag) {
  auto flags = machine_flags();
  flags.push_back({"--n", {"", "-1", "1:0:x2", "5:1:+1", "1:8:x1", "0:8:x2", "a,b", "1:8:y2",
                           "1,,-2", "1:99999999999999999999:+1"}});
  flags.push_back({"--algorithms", {"bogus", "ring,bogus"}});
  flags.push_back({"--clock", kBadNames});
  flags.push_back({"--time-scale", kBadScales});
  flags.push_back({"--repeat", {"", "0", "-1", "x", "1001"}});
  flags.push_back({"--engine", kBadNames});
  flags.push_back({"--data", kBadNames});
  flags.push_back({"--csv", {"", "/nonexistent-directory/x.csv"}});
  flags.push_back({"--skews", {"", "5", ",", "0,,1ms", "-1us", "1ms,x"}});
  fuzz("sweep", {"--topology=full:3", "--n=1,2"}, flags);
  expect_refused({"sweep", "--topology=full:3", "--n=1000000000000"}, "--n");
}

TEST(CommandLine, TuneRefusesEveryMalformedFlag) {
  const std::vector<std::string> bad_lists = {"", "-1", "abc", "1.5", "4:2:x2", "1:8:x1",
                                              "0:8:x2", "a,b", "1,,-2",
                                              "99999999999999999999"};
  fuzz("tune", {"--p=4", "--n=1"},
       {{"--topology", {"", "bogus", "ring:4", "hypercube:x"}},
        {"--alpha", kBadDurations},
        {"--beta", kBadDurations},
        {"--gamma", kBadDurations},
        {"--port", kBadNames},
        {"--routing", kBadNames},
        {"--beta-dim", kBadRates},
        {"--op", {"", ",", "bogus", "allreduce,bogus", "-1"}},
        {"--p", bad_lists},
        {"--n", bad_lists},
        {"--type", kBadNames},
        {"--reduction", kBadNames},
        {"--format", {"", "bogus", "OMPI"}},
        {"--output", {"", "/nonexistent-directory/rules.txt"}},
        // Selection chooses on the steady machine: stragglers are refused, not ignored.
        {"--skew", {"uniform:1ms", "uniform:-1us"}},
        {"--slow", {"node:1=2x", "node:1=0.5x"}},
        {"--noise", {"every:1ms,for:50us", "every:1ms"}}});
  // No nodes, more than any machine, a count too large, a reduction the type cannot take.
  expect_refused({"tune", "--p=0", "--n=1"}, "--p");
  expect_refused({"tune", "--p=70000", "--n=1"}, "--p");
  expect_refused({"tune", "--p=4", "--n=2000000000000"}, "--n");
  expect_refused({"tune", "--p=4", "--n=1", "--type=float", "--reduction=bxor"}, "--reduction");
}

// A malformed straggler flag is refused under its own name, not the three together.
TEST(CommandLine, AStragglerErrorNamesItsOwnFlag) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"--skew", "gauss:1ms"}, {"--slow", "node:1=fast"}, {"--noise", "often:1ms,for:1us"}};
  for (const auto& [flag, value] : bad) {
    expect_refused({"run", "--topology=full:3", "--n=2", flag + "=" + value}, flag + ": ");
    const Outcome o = vmc({"run", "--topology=full:3", "--n=2", flag + "=" + value});
    for (const auto& [other, unused] : bad) {
      if (other != flag) {
        EXPECT_THAT(o.err, Not(HasSubstr(other))) << flag << ": " << o.err;
      }
    }
  }
}

// Failures run on the virtual clock only, failed links with eager sends only: --clock real
// (and, for a link, --protocol rendezvous) with `fail` on `topology` are refused naming --fail.
void expect_failures_refused_off_eager_virtual(const std::string& topology,
                                               const std::string& fail) {
  for (const std::string other : {"--clock=real", "--protocol=rendezvous"}) {
    if (other == "--protocol=rendezvous" && !fail.starts_with("link:")) continue;
    expect_refused({"run", "--topology=" + topology, "--n=2", "--fail=" + fail, other}, "--fail");
  }
}

// --fail: malformed items, a node twice, a node the machine does not have, a random draw
// without its seed, what is not offered (the real clock), each refused
// naming --fail; and docs/model.md's examples, whose reports end the run with exit code 1, a
// random draw among them that its node: items replay.
TEST(CommandLine, FailRefusesBadSpecsAndReportsAFailure) {
  const std::vector<std::string> base = {"run", "--topology=full:3", "--n=2"};
  for (const std::string bad : {"", "node:1", "node:x@1ms", "node:1@-1ms", "node:1@1xs",
                                "node:1@1ms,node:1@2ms", "node:1@1ms,", "link:0-5@1ms",
                                "random:rate=1", "rack:1@0", "node:3@0"}) {
    std::vector<std::string> args = base;
    args.push_back("--fail=" + bad);
    expect_refused(args, "--fail");
  }
  expect_failures_refused_off_eager_virtual("full:3", "node:1@0");
  const Outcome o = vmc({"run", "--topology", "hypercube:8", "--op", "broadcast", "--algorithm",
                         "binomial", "--n", "1", "--fail", "node:2@1ms"});
  EXPECT_EQ(o.exit_code, 1) << o.err;
  // Line by line, as docs/model.md shows it.
  EXPECT_THAT(o.err, HasSubstr("vmc: nodes failed, and calls that needed them ended their nodes:\n"
                               "node 2 stopped at 1.054 ms (a failure it was given)\n"
                               "node 3 stopped at 1.054 ms (it ended on the error of a call "
                               "that needed failed node 2)\n"
                               "node 3: recv from rank 2 tag 0 of collective call 0 failed at "
                               "1.054 ms: node 2 has failed\n"));

  const std::vector<std::string> broadcast = {"run", "--topology", "hypercube:8", "--op",
                                              "broadcast", "--algorithm", "binomial", "--n", "1",
                                              "--fail"};
  auto with = [&](const std::string& fail) {
    std::vector<std::string> args = broadcast;
    args.push_back(fail);
    return vmc(args);
  };
  const Outcome drawn = with("random:count=1,before=1.5ms,seed=8");
  EXPECT_EQ(drawn.exit_code, 1) << drawn.err;
  const std::string draw = "random:count=1,before=1.5ms,seed=8 drew node:4@435.071us\n";
  const std::size_t at = drawn.err.find(draw);
  ASSERT_NE(at, std::string::npos) << drawn.err;
  const Outcome replayed = with("node:4@435.071us");
  EXPECT_EQ(replayed.exit_code, 1);
  EXPECT_EQ(replayed.err, drawn.err.substr(0, at) + drawn.err.substr(at + draw.size()));
  // A draw that stops no node (a leaf, after its only receive): the run succeeds and says it.
  const Outcome quiet = with("random:count=1,before=1.5ms,seed=1");
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_THAT(quiet.out, HasSubstr("failures   random:count=1,before=1.5ms,seed=1 drew node:"));
}

// A failure that ends no other node (a leaf of the broadcast tree), and one that never
// happens (the allreduce's node 4 waits in one receive from before its time to the end):
// the run succeeds, says what each did, and checks the nodes that did not stop.
TEST(CommandLine, RunSaysWhatAFailureDidWhenNoNodeEndedOnIt) {
  const Outcome leaf = vmc({"run", "--topology", "hypercube:8", "--op", "broadcast",
                            "--algorithm", "binomial", "--n", "3", "--fail", "node:7@0",
                            "--check"});
  EXPECT_EQ(leaf.exit_code, 0) << leaf.err;
  EXPECT_THAT(leaf.out, HasSubstr("failures   node 7 stopped at 0 s (a failure it was given)\n"
                                  "check      correct (the 7 nodes that did not stop)\n"));
  const Outcome json = vmc({"run", "--topology", "hypercube:8", "--op", "broadcast",
                            "--algorithm", "binomial", "--n", "3", "--fail", "node:7@0",
                            "--json"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"failures\":{\"did_not_stop\":[],\"drawn\":\"\",\"failed_calls\":[],"
                                  "\"links\":[],\"lost\":[],\"stopped\":[{\"at_s\":0.0,"
                                  "\"cause\":null,\"cause_link\":null,\"node\":7}]}"));
  const Outcome blocked = vmc({"run", "--topology", "mesh:5x3", "--op", "allreduce",
                               "--algorithm", "recursive_doubling", "--n", "7", "--fail",
                               "node:4@1ms", "--check"});
  EXPECT_EQ(blocked.exit_code, 0) << blocked.err;
  EXPECT_THAT(blocked.out, HasSubstr("failures   node 4 did not stop: it made no call at or "
                                     "after 1 ms, its failure's time\ncheck      correct\n"));
}

// --fail link:A-B@T (docs/model.md, "Failed links"): the broadcast's first message, 0 to 4, is
// lost; the run ends with the report, exit code 1, as node failures end it. A link down after
// its last message: the run succeeds and says the link lost nothing, in text and in --json.
// Bad link specs are refused naming --fail.
TEST(CommandLine, RunReportsAFailedLink) {
  const std::vector<std::string> broadcast = {"run", "--topology", "hypercube:8", "--op",
                                              "broadcast", "--algorithm", "binomial", "--n", "1",
                                              "--fail"};
  auto with = [&](const std::string& fail, const std::string& extra = "") {
    std::vector<std::string> args = broadcast;
    args.push_back(fail);
    if (!extra.empty()) args.push_back(extra);
    return vmc(args);
  };
  const Outcome lost = with("link:0-4@0");
  EXPECT_EQ(lost.exit_code, 1) << lost.err;
  // The first line says a link failed, not nodes: no node was given a failure.
  EXPECT_THAT(lost.err, HasSubstr("vmc: links failed, and calls whose messages they lost ended "
                                  "their nodes:\n"
                                  "link 0-4 down at 0 s rerouted none, lost 1 message\n"))
      << lost.err;
  EXPECT_THAT(lost.err, HasSubstr("link 0-4 down at 0 s rerouted none, lost 1 message\n"
                                  "message lost: node 0 to node 4 tag 0 of collective call 0, "
                                  "sent at 0 s, on link 0-4\n"
                                  "node 4 stopped at 0 s (it ended on the error of a receive whose "
                                  "message was lost on link 0-4)\n"
                                  "node 5 stopped at 0 s (it ended on the error of a call that "
                                  "needed failed node 4)\n"));
  EXPECT_THAT(lost.err, HasSubstr("node 4: recv from rank 0 tag 0 of collective call 0 failed at "
                                  "0 s: the message was lost on link 0-4"));
  const Outcome quiet = with("link:0-4@1ns", "--check");
  EXPECT_EQ(quiet.exit_code, 0) << quiet.err;
  EXPECT_THAT(quiet.out, HasSubstr("failures   link 0-4 down at 1 ns rerouted none, lost none\n"
                                   "check      correct\n"));
  // --json of the failed run: still one object (what failed, what the run did until then,
  // the error), exit code 1, the report on standard error as without --json.
  const Outcome json = with("link:0-4@0", "--json");
  EXPECT_EQ(json.exit_code, 1);
  EXPECT_THAT(json.err, HasSubstr("node 4: recv from rank 0 tag 0 of collective call 0 failed"));
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["messages"], 3) << json.out;
  EXPECT_EQ(j["time_s"], 0.001054) << json.out;
  EXPECT_EQ(j["failures"]["links"][0]["link"], "0-4") << json.out;
  EXPECT_EQ(j["failures"]["links"][0]["lost"], 1) << json.out;
  EXPECT_EQ(j["failures"]["stopped"][0]["cause_link"], "0-4") << json.out;
  EXPECT_EQ(j["failures"]["lost"][0]["tag"], 0) << json.out;  // the call's first tag
  EXPECT_EQ(j["failures"]["lost"][0]["collective_call"], 0) << json.out;
  EXPECT_EQ(j["failures"]["stopped"].size(), 4u) << json.out;
  EXPECT_EQ(j["algorithm"], "binomial") << json.out;
  EXPECT_EQ(j["error"], "links failed, and calls whose messages they lost ended their nodes")
      << json.out;
  // A node given a failure beside the link: the first line names both.
  const Outcome both = with("link:0-4@0,node:2@0");
  EXPECT_EQ(both.exit_code, 1) << both.err;
  EXPECT_THAT(both.err, HasSubstr("vmc: nodes and links failed, and calls that needed them ended "
                                  "their nodes:\n"))
      << both.err;
  // Under auto it names the algorithm auto chose (for the machine without its failures).
  const Outcome chosen = vmc({"run", "--topology", "hypercube:8", "--op", "broadcast", "--n",
                              "1", "--fail", "link:0-4@0", "--json"});
  EXPECT_EQ(chosen.exit_code, 1) << chosen.err;
  const std::string algorithm = nlohmann::json::parse(chosen.out).value("algorithm", "");
  EXPECT_NE(algorithm, "auto") << chosen.out;
  EXPECT_FALSE(algorithm.empty()) << chosen.out;
  // --trace writes what the failed run did: the three messages delivered, none to node 4.
  const std::string trace =
      (std::filesystem::temp_directory_path() / "vmc_cli_failed_link_trace.json").string();
  std::filesystem::remove(trace);
  const Outcome traced = with("link:0-4@0", "--trace=" + trace);
  EXPECT_EQ(traced.exit_code, 1) << traced.err;
  std::ifstream in(trace);
  ASSERT_TRUE(in.good()) << "no trace written: " << traced.err;
  const nlohmann::json events = nlohmann::json::parse(in)["traceEvents"];
  int sends = 0;
  for (const auto& e : events) {
    if (e.value("ph", "") == "s") ++sends;  // a message's flow starts at its send
  }
  EXPECT_EQ(sends, 3) << events.dump().substr(0, 2000);
  std::filesystem::remove(trace);
  const Outcome json_quiet = with("link:0-4@1ns", "--json");
  EXPECT_EQ(json_quiet.exit_code, 0) << json_quiet.err;
  EXPECT_THAT(json_quiet.out, HasSubstr("\"links\":[{\"a\":0,\"at_s\":1e-09,\"b\":4,"
                                        "\"link\":\"0-4\",\"lost\":0,\"rerouted\":0}],\"lost\":[]"));
  for (const std::string bad : {"link:0-3@0", "link:0-8@0", "link:0-4", "link:0-4@-1ms"}) {
    std::vector<std::string> args = broadcast;
    args.push_back(bad);
    expect_refused(args, "--fail");
  }
  expect_failures_refused_off_eager_virtual("hypercube:8", "link:0-1@0");
}

// vmc show --fail draws the run as far as it went: node 2 stops at 1.054 ms, node 3 on the
// error of its receive from 2; the page's data names both, and vmc show says what happened.
TEST(CommandLine, ShowDrawsTheNodesThatFailed) {
  const std::string page =
      (std::filesystem::temp_directory_path() / "vmc_cli_show_fail.html").string();
  const Outcome o = vmc({"show", "--topology", "hypercube:8", "--op", "broadcast",
                         "--algorithm", "binomial", "--n", "1", "--fail", "node:2@1ms", "-o",
                         page});
  const std::string text = slurp(page);
  std::filesystem::remove(page);
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_THAT(text, HasSubstr("\"failed\":[[2,1054000000],[3,1054000000]]"));
  EXPECT_THAT(o.out, HasSubstr("failures   node 2 stopped at 1.054 ms (a failure it was given)\n"
                               "           node 3 stopped at 1.054 ms (it ended on the error of "
                               "a call that needed failed node 2)\n"));
  // A failed link: the page draws it down from its time, and the nodes below it stopped.
  const Outcome down = vmc({"show", "--topology", "hypercube:8", "--op", "broadcast",
                            "--algorithm", "binomial", "--n", "1", "--fail", "link:0-4@0", "-o",
                            page});
  const std::string down_text = slurp(page);
  std::filesystem::remove(page);
  EXPECT_EQ(down.exit_code, 0) << down.err;
  EXPECT_THAT(down_text, HasSubstr("\"failed\":[[4,0],[5,0],[6,0],[7,0]],"
                                   "\"failed_links\":[[0,4,0]]"));
  EXPECT_THAT(down.out, HasSubstr("failures   link 0-4 down at 0 s rerouted none, lost 1 message\n"));
}

// A failed link that messages route around: on torus:4x4 the binomial broadcast's 0 -> 2
// (0-1-2 on the tie) goes 0-3-2 with 1-2 down, and the run succeeds in its time without the
// failure (four steps of 527 us), printing the failures line; --fail-routes fixed loses it and
// nodes 2 and 3 with it. vmc show draws the detour: the message 0 -> 2 of the third step
// (1.054 ms to 1.581 ms) on links 7 (0 to 3, edge 3 of row 0 going down) and 5 (3 to 2).
TEST(CommandLine, RunAndShowRouteAroundAFailedLink) {
  const std::vector<std::string> broadcast = {"--topology", "torus:4x4", "--op", "broadcast",
                                              "--algorithm", "binomial", "--n", "1",
                                              "--fail", "link:1-2@0"};
  auto with = [&](const std::string& command, const std::vector<std::string>& extra) {
    std::vector<std::string> args{command};
    args.insert(args.end(), broadcast.begin(), broadcast.end());
    args.insert(args.end(), extra.begin(), extra.end());
    return vmc(args);
  };
  const Outcome around = with("run", {"--check"});
  EXPECT_EQ(around.exit_code, 0) << around.err;
  EXPECT_THAT(around.out, HasSubstr("2.108 ms"));
  EXPECT_THAT(around.out, HasSubstr("failures   link 1-2 down at 0 s rerouted 1 message, lost "
                                    "none\ncheck      correct\n"));
  const Outcome json = with("run", {"--json"});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"link\":\"1-2\",\"lost\":0,\"rerouted\":1}]"));
  const Outcome fixed = with("run", {"--fail-routes", "fixed"});
  EXPECT_EQ(fixed.exit_code, 1);
  EXPECT_THAT(fixed.err, HasSubstr("link 1-2 down at 0 s lost 1 message\nmessage lost: node 0 "
                                   "to node 2"));
  expect_refused({"run", "--topology", "torus:4x4", "--op", "broadcast", "--fail-routes",
                  "adaptive"},
                 "--fail-routes");
  const Outcome worms = with("run", {"--worm", "blocking"});
  EXPECT_EQ(worms.exit_code, 2) << worms.err;
  EXPECT_THAT(worms.err, HasSubstr("--worm blocking is not supported"));

  const std::string page =
      (std::filesystem::temp_directory_path() / "vmc_cli_show_around.html").string();
  const Outcome show = with("show", {"-o", page});
  const std::string text = slurp(page);
  std::filesystem::remove(page);
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_THAT(text, HasSubstr("[0,2,1054000000,1054000000,1581000000,0,1,0,[7,5]]"));
  EXPECT_THAT(show.out, HasSubstr("failures   link 1-2 down at 0 s rerouted 1 message, lost "
                                  "none\n"));
}

// vmc show --terminal --fail says, step by step, which nodes have stopped and which links are
// down, and ends with the failures lines. Node 2 stops at 1.054 ms (its second receive's end:
// 0 -> 4 then 0 -> 2, each 525 us + 2 us), so the step at 527 us names none; 0-4 is down from 0.
TEST(CommandLine, ShowInTheTerminalNamesWhatFailedAtEachStep) {
  const Outcome o = vmc({"show", "--topology", "hypercube:8", "--op", "broadcast",
                         "--algorithm", "binomial", "--n", "1", "--fail", "node:2@1ms",
                         "--terminal"});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  const std::size_t at_527us = o.out.find("step 2 at 527 us");
  const std::size_t at_1054us = o.out.find("step 3 at 1.054 ms");
  ASSERT_NE(at_527us, std::string::npos) << o.out;
  ASSERT_NE(at_1054us, std::string::npos) << o.out;
  EXPECT_EQ(o.out.substr(at_527us, at_1054us - at_527us).find("stopped:"), std::string::npos)
      << o.out;
  EXPECT_THAT(o.out.substr(at_1054us),
              HasSubstr("stopped: node 2 (at 1.054 ms), 3 (at 1.054 ms)\n"));
  EXPECT_THAT(o.out, HasSubstr("failures   node 2 stopped at 1.054 ms (a failure it was given)\n"));
  const Outcome down = vmc({"show", "--topology", "hypercube:8", "--op", "broadcast",
                            "--algorithm", "binomial", "--n", "1", "--fail", "link:0-4@0",
                            "--terminal"});
  EXPECT_EQ(down.exit_code, 0) << down.err;
  EXPECT_THAT(down.out, HasSubstr("stopped: node 4 (at 0 s), 5 (at 0 s), 6 (at 0 s), 7 (at 0 s)\n"
                                  "down:    link 0-4\n"));
  EXPECT_THAT(down.out, HasSubstr("failures   link 0-4 down at 0 s rerouted none, lost 1 message\n"));
}

TEST(CommandLine, LoadRefusesWhatItCannotUse) {
  expect_refused({"run", "--load="}, "--load");
  expect_refused({"run", "--load", ""}, "--load: give a library's file");
  expect_refused({"list", "--load"}, "--load");
  expect_refused({"run", "--load=/nonexistent-directory/lib.so"},
                 "--load /nonexistent-directory/lib.so: cannot load it");
  // topo and calibrate run no collective algorithm.
  expect_refused({"topo", "ring:4", "--load=x.so"}, "--load: vmc topo runs no collective");
  expect_refused({"calibrate", "--load=x.so"}, "--load: vmc calibrate runs no collective");
  // VMC_LOAD is left alone there: set for every command, it does not break them.
  const Outcome topo = run_shell("env VMC_LOAD=/nonexistent-directory/lib.so " +
                                     shell_quoted(VMC_BINARY) + " topo ring:4",
                                 120);
  EXPECT_EQ(topo.exit_code, 0) << topo.err;
}

TEST(CommandLine, DemoRefusesEveryMalformedFlag) {
  auto flags = machine_flags();
  flags.push_back({"--n", kBadCounts});
  flags.push_back({"--versus", kBadTopologies});
  flags.push_back({"--clock", kBadNames});
  flags.push_back({"--time-scale", kBadScales});
  flags.push_back({"--trace", {""}});
  flags.push_back({"--output", {""}});
  fuzz("demo", {"--topology=full:3", "--n=2"}, flags);
}

TEST(CommandLine, TopoAndListRefuseMalformedArguments) {
  for (const std::string& spec : kBadTopologies) expect_refused({"topo", spec}, "spec");
  expect_refused({"topo"}, "spec");
  expect_refused({"topo", "ring:4", "--route", "0", "9"}, "--route");
  expect_refused({"topo", "ring:4", "--route", "0", "-1"}, "--route");
  expect_refused({"topo", "ring:4", "--route", "a", "b"}, "--route");
  expect_refused({"topo", "ring:4", "--route", "0"}, "--route");
  expect_refused({"topo", "ring:4", "--draw", "--no-draw"}, "--draw");
  expect_refused({"topo", "ring:4", "--bogus"}, "--bogus");
  expect_refused({"list", "--bogus"}, "--bogus");
  expect_refused({"list", "--json", "--markdown"}, "--json");
  expect_refused({"bogus"}, "bogus");
  expect_refused({"--bogus"}, "(see vmc --help)");
  expect_refused({}, "subcommand");
}

TEST(CommandLine, GoodInvocationsOfEveryCommandSucceed) {
  expect_ok({"run", "--topology=full:3", "--n=4", "--check"});
  // Every engine gives the same virtual time, and a timing-only run too.
  std::vector<std::string> times;
  for (const char* extra : {"--engine=threads", "--engine=fibers", "--engine=fibers --workers=1",
                            "--data=none"}) {
    std::vector<std::string> args{"run", "--topology=mesh:4x3", "--op=allreduce", "--n=1000",
                                  "--json"};
    std::istringstream more(extra);
    for (std::string a; more >> a;) args.push_back(a);
    const Outcome o = expect_ok(args);
    times.push_back(nlohmann::json::parse(o.out)["time_s"].dump());
  }
  EXPECT_THAT(times, ::testing::Each(times.front()));
  Outcome run = expect_ok({"run", "--topology", "hypercube:4", "--op", "reduce_scatter", "--n",
                           "5", "--type", "int64", "--reduction", "max", "--check", "--json"});
  EXPECT_THAT(run.out, HasSubstr("\"correct\":true"));
  expect_ok({"run", "--topology=ring:5", "--op=scan", "--reduction=matmul", "--type=int64",
             "--n=2", "--alpha=0", "--beta=1ns", "--check"});
  // Without --type, a reduction that needs integers gets them: matmul int64, bitwise int32.
  for (const auto& [reduction, type] : {std::pair{"matmul", "int64"}, std::pair{"bxor", "int32"},
                                        std::pair{"sum", "float"}}) {
    for (const char* command : {"run", "explain"}) {
      const Outcome o = expect_ok({command, "--topology=ring:5", "--op=allreduce",
                                   std::string("--reduction=") + reduction, "--n=4", "--json"});
      EXPECT_THAT(o.out, ::testing::ContainsRegex(std::string("\"type\": ?\"") + type + "\""))
          << command << " --reduction " << reduction;
    }
  }
  expect_ok({"demo", "--topology=ring:4", "--op=scan", "--reduction=matmul", "--n=3"});
  expect_ok({"sweep", "--topology=ring:4", "--op=allreduce", "--reduction=matmul", "--n=1,3"});
  expect_ok({"run", "--topology=hypercube:4", "--op=allreduce", "--algorithm=hybrid",
             "--strategy=01", "--n=8", "--check"});
  expect_ok({"run", "--topology=full:2", "--clock=real", "--alpha=20us", "--beta=0",
             "--n=3", "--check"});
  expect_ok({"explain", "--topology=ring:5", "--op=reduce", "--n=3", "--root=4"});
  expect_ok({"explain", "--topology=mesh:2x3", "--op=alltoall", "--n=3", "--json"});
  expect_ok({"sweep", "--topology=hypercube:4", "--n=1,2", "--algorithms=ring"});
  expect_ok({"demo", "--topology=hypercube:8", "--n=4", "--op=allgather", "--port=duplex",
             "--routing=direct", "--contention=shared", "--alpha=10us", "--beta=1us",
             "--gamma=1ns", "--output=none"});
  // 004's terms: beta_net (the run is faster when links outrun nodes), delta, worms.
  const std::vector<std::string> shared = {"run", "--topology=mesh:4x4", "--op=alltoall",
                                           "--algorithm=ring", "--n=64", "--port=duplex",
                                           "--contention=shared", "--json"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = shared;
    args.insert(args.end(), extra.begin(), extra.end());
    return nlohmann::json::parse(expect_ok(args).out);
  };
  const double plain = with({})["time_s"], fast_links = with({"--beta-net=0.5us"})["time_s"];
  EXPECT_LT(fast_links, plain);
  expect_ok({"run", "--topology=mesh:3x3", "--op=alltoall", "--n=2", "--worm=blocking",
             "--delta=0.1us", "--check"});
  EXPECT_THAT(expect_ok({"explain", "--topology=mesh:2x2", "--n=2", "--beta-net=1us",
                         "--delta=5ns", "--worm=blocking"})
                  .out,
              HasSubstr("beta_net 1 us, gamma 350 ns, delta 5 ns"));
  expect_ok({"topo", "mesh:3x3"});
  expect_ok({"topo", "ring:4", "--route", "0", "2", "--json"});
  expect_ok({"list"});
  expect_ok({"list", "--json"});
  expect_ok({"list", "--markdown"});
  EXPECT_EQ(expect_ok({"--version"}).out, std::string("vmc ") + VMC_VERSION + "\n");
  expect_ok({"--help"});
  expect_ok({"run", "--help"});
}

// Stragglers: a node the machine does not have is refused naming the flag and the node;
// explain shows every algorithm's time with and without them, and sweep sweeps the skew.
// --stats gives the host's rate per message (and memory per message) only for a run whose
// messages are what it cost: a run of a few messages would report its fixed costs as a rate.
// Ctrl-C ends a run that would take hours (a real-clock broadcast of 100 s per message) with
// what each node was doing, and the status 128 + SIGINT; the process does not sit out the
// delays it was modelling.
TEST(CommandLine, AnInterruptedRunSaysWhatEachNodeWasDoing) {
  const Outcome o = run_shell("timeout --preserve-status -s INT 2 " + shell_quoted(VMC_BINARY) +
                                  " run --op broadcast --topology ring:4 --clock real --alpha "
                                  "100s --n 4",
                              120);
  EXPECT_EQ(o.exit_code, 130) << o.err;
  EXPECT_THAT(o.err, HasSubstr("vmc: interrupted (SIGINT): the run was ended; its unfinished "
                               "nodes:\n"))
      << o.err;
  EXPECT_THAT(o.err, HasSubstr("\n  node 3: recv from rank ")) << o.err;
}

TEST(CommandLine, RunStatsGiveARatePerMessageOnlyForARunOfManyMessages) {
  const Outcome small = expect_ok({"run", "--op", "allreduce", "--topology", "ring:4", "--n",
                                   "10", "--stats"});
  EXPECT_THAT(small.out, ContainsRegex("host +[0-9]+ messages in [^ ]+ [a-z]+ of wall time \\(no rate "
                                       "per message under 10000 messages: the run's fixed costs "
                                       "dominate\\)"))
      << small.out;
  EXPECT_THAT(small.out, Not(HasSubstr("messages/s"))) << small.out;
  EXPECT_THAT(small.out, Not(HasSubstr("bytes per message"))) << small.out;
  // 128 nodes, each sending to the 127 others: 16,256 messages.
  const Outcome large = expect_ok({"run", "--op", "alltoall", "--topology", "hypercube:128",
                                   "--algorithm", "pairwise_xor", "--n", "1", "--data", "none",
                                   "--stats"});
  EXPECT_THAT(large.out, ContainsRegex("host +16256 messages in [^ ]+ [a-z]+ of wall time: [0-9]+ "
                                       "messages/s"))
      << large.out;
  EXPECT_THAT(large.out, ContainsRegex("grew [0-9.]+ MB over the run: [0-9]+ bytes per message"))
      << large.out;
}

TEST(CommandLine, StragglersNameTheFlagAndExplainShowsWhatTheyCost) {
  expect_refused({"run", "--topology=hypercube:8", "--skew=node:8=1ms"},
                 "--skew names node 8, outside the machine (nodes 0..7)");
  expect_refused({"explain", "--topology=ring:4", "--slow=node:4=2x"}, "--slow names node 4");
  expect_refused({"sweep", "--topology=ring:4", "--n=1", "--skews=0,5"}, "--skews");
  const std::vector<std::string> explain = {"explain", "--op=broadcast", "--topology=hypercube:8",
                                            "--n=1000", "--skew=node:0=2ms", "--json"};
  const nlohmann::json out = nlohmann::json::parse(expect_ok(explain).out);
  EXPECT_EQ(out["stragglers"], "skew node 0 2 ms");
  bool binomial = false;
  for (const auto& row : out["algorithms"]) {
    if (row["algorithm"] != "binomial") continue;
    binomial = true;
    // The root starts 2 ms late, and every node waits for its data.
    EXPECT_NEAR(row["with_stragglers_s"].get<double>() - row["simulated_s"].get<double>(), 2e-3,
                1e-12);
  }
  EXPECT_TRUE(binomial);
  EXPECT_THAT(expect_ok({"explain", "--op=allreduce", "--topology=ring:6", "--n=60",
                         "--skew=uniform:1ms", "--skew-seed=3", "--slow=node:2=3x",
                         "--noise=every:1ms,for:20us,seed:4"})
                  .out,
              HasSubstr("Stragglers: skew uniform 1 ms (seed 3); slow node 2 3x; noise 20 us "
                        "every 1 ms (seed 4)"));
  const Outcome sweep = expect_ok({"sweep", "--topology=hypercube:8", "--op=broadcast",
                                   "--n=10", "--algorithms=binomial", "--skews=0,1ms",
                                   "--skew-seed=2"});
  std::istringstream lines(sweep.out);
  std::string header, zero, one;
  std::getline(lines, header);
  std::getline(lines, zero);
  std::getline(lines, one);
  EXPECT_THAT(header, ::testing::EndsWith(",skew_s"));
  EXPECT_THAT(zero, ::testing::EndsWith(",0"));
  EXPECT_THAT(one, ::testing::EndsWith(",0.001"));
  for (const char* command : {"run", "show", "demo"}) {
    std::vector<std::string> args = {command, "--topology=hypercube:8", "--n=4",
                                     "--skew=uniform:50us", "--slow=node:1=2x",
                                     "--noise=every:100us,for:5us"};
    if (std::string(command) == "show") args.push_back("--terminal");
    if (std::string(command) == "demo") args.push_back("--output=none");
    expect_ok(args);
  }
}

// Per-class link rates (002 §3.3.4): a class the topology does not have is refused naming the
// flag and the class; docs/model.md's reproduction of 002's crossover runs as printed there.
TEST(CommandLine, LinkRatesNameTheFlagAndTheClass) {
  expect_refused({"run", "--topology=hypercube:16", "--beta-dim=4=1us"}, "--beta-dim: dimension 4");
  expect_refused({"explain", "--topology=mesh:4x4", "--beta-up=1us"}, "--beta-up: up links");
  expect_refused({"sweep", "--topology=tree:8", "--n=1", "--beta-level=4=1us"},
                 "--beta-level: level 4 links");
  expect_refused({"run", "--topology=tree:8", "--beta-down=1=1us,4=2us"}, "level 4 down links");
  expect_refused({"run", "--topology=mesh:4x4", "--beta-dim=0=1us", "--routing=direct"},
                 "routing direct");
  const std::vector<std::string> readme = {"explain", "--op", "allreduce", "--topology",
                                           "tree:8", "--n", "2", "--alpha", "20us",
                                           "--contention", "shared", "--json"};
  auto explain = [&](const std::string& rate) {
    std::vector<std::string> args = readme;
    args.push_back("--beta-level");
    args.push_back(rate);
    return nlohmann::json::parse(expect_ok(args).out);
  };
  const auto below = explain("1=15us"), above = explain("1=17us");
  // 002's two swap places at s* = 16 us; selection takes 004's hybrid, faster than both.
  const auto simulated = [](const nlohmann::json& e, const std::string& name) {
    for (const auto& row : e["algorithms"]) {
      if (row["algorithm"] == name) return row["simulated_s"].get<double>();
    }
    ADD_FAILURE() << name << " not listed";
    return 0.0;
  };
  EXPECT_LT(simulated(below, "recursive_doubling"), simulated(below, "reduce_broadcast"));
  EXPECT_GT(simulated(above, "recursive_doubling"), simulated(above, "reduce_broadcast"));
  EXPECT_EQ(below["chosen"], "mesh_pfr_pfr_dc_optimal");
  EXPECT_EQ(above["chosen"], "mesh_pfr_pfr_dc_optimal");
  EXPECT_THAT(above["model"].get<std::string>(), HasSubstr("beta_net level 1 links 17 us"));
  const std::vector<std::string> run_args = {"run", "--op=allreduce", "--topology=tree:8",
                                             "--n=2", "--alpha=20us", "--contention=shared",
                                             "--beta-level=1=17us", "--check", "--json"};
  const auto run = nlohmann::json::parse(expect_ok(run_args).out);
  EXPECT_EQ(run["algorithm"], "mesh_pfr_pfr_dc_optimal");
  EXPECT_NEAR(run["time_s"].get<double>(), 157.05e-6, 1e-12);
  EXPECT_EQ(run["correct"], true);
  std::vector<std::string> tree = run_args;
  tree.push_back("--algorithm=reduce_broadcast");
  const auto tree_run = nlohmann::json::parse(expect_ok(tree).out);
  EXPECT_NEAR(tree_run["time_s"].get<double>(), 206.1e-6, 1e-12);
  EXPECT_EQ(tree_run["correct"], true);
}

TEST(CommandLine, SweepSkipsAndListsAlgorithmsThatDoNotApply) {
  // alltoall's pairwise_xor and hypercube need a power of two; ring:6 has 6 nodes.
  const Outcome o = expect_ok({"sweep", "--op", "alltoall", "--topology", "ring:6", "--n",
                               "1:8:+3"});
  EXPECT_THAT(o.err, HasSubstr("skipped hypercube"));
  EXPECT_THAT(o.err, HasSubstr("skipped pairwise_xor"));
  EXPECT_THAT(o.out, HasSubstr("ring,7,"));
  EXPECT_THAT(o.out, ::testing::Not(HasSubstr("pairwise_xor,")));
}

// The summary line of each curve says what its formula claims: on private links (full:8)
// the ring's formula is exact, and the run matches it; on ring:8 recursive doubling's (a
// hypercube's schedule, its messages sharing links the formula does not see) is a lower bound
// that the run exceeds.
TEST(CommandLine, SweepSaysWhetherEachFormulaIsExactOrABound) {
  const auto summary = [](const std::string& topology, const std::string& algorithm) {
    const Outcome o = expect_ok({"sweep", "--op", "allreduce", "--topology", topology, "--n",
                                 "1024", "--algorithms", algorithm});
    std::istringstream in(o.err);
    for (std::string l; std::getline(in, l);) {
      if (l.rfind(algorithm + " ", 0) == 0) return l;
    }
    return "no summary line in: " + o.err;
  };
  EXPECT_THAT(summary("full:8", "ring"),
              HasSubstr("mean 0.00%, worst 0.00% (the formula: exact)"));
  const std::string doubling = summary("ring:8", "recursive_doubling");
  EXPECT_THAT(doubling, HasSubstr("(the formula: a lower bound)"));
  EXPECT_THAT(doubling, Not(HasSubstr("worst 0.00%")));
}

TEST(CommandLine, SweepListsTheRowsItLeavesOutAndRefusesToSweepNothing) {
  // mesh_mst_sc runs the member --hybrid names: without it the sweep leaves it out, and says so.
  const Outcome o = expect_ok({"sweep", "--op", "broadcast", "--topology", "ring:8", "--n", "4"});
  EXPECT_THAT(o.err, HasSubstr("left out mesh_mst_sc"));
  EXPECT_THAT(o.out, HasSubstr("binomial,4,"));
  // Named, it applies nowhere: an error, not a table of nothing.
  const Outcome none = vmc({"sweep", "--op", "broadcast", "--topology", "ring:8", "--n", "4",
                            "--algorithms", "mesh_mst_sc"});
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_THAT(none.err, HasSubstr("skipped mesh_mst_sc"));
  EXPECT_THAT(none.err, HasSubstr("nothing to sweep"));
}

TEST(CommandLine, SweepRangesSayWhatIsWrong) {
  expect_refused({"sweep", "--topology", "mesh", "--p", "5:2:x2", "--n", "8"},
                 "bad node-count list \"5:2:x2\": the range A:B runs from A up to B");
  expect_refused({"sweep", "--n", "0:10:x2"}, "cannot start at 0");
  expect_refused({"sweep", "--n", "4:8:x1"}, "needs K >= 2");
  expect_refused({"sweep", "--n", "4:8:+0"}, "needs K >= 1");
}

// A range whose steps would pass the largest count ends there instead of wrapping around
// (the sweep would never end), and lengths beyond what vmc takes are refused before any run.
TEST(CommandLine, SweepRangesToTheLargestCountEndAndAreRefusedUpFront) {
  expect_refused({"sweep", "--n", "1:18446744073709551615:x2"},
                 "--n: 2199023255552 in \"1:18446744073709551615:x2\" is too large");
  expect_refused({"sweep", "--n", "1:18446744073709551615:+4611686018427387904"},
                 "--n: 4611686018427387905 in");
  expect_refused({"sweep", "--n", "0:18446744073709551615"},
                 "(18446744073709551616 entries; at most 10000)");
  expect_refused({"sweep", "--n", "5:18446744073709551615:+2"},
                 "(9223372036854775806 entries; at most 10000)");
  std::string many = "1";  // a comma list is held to the same count
  for (int i = 0; i < 10000; ++i) many += ",1";
  expect_refused({"sweep", "--n", many}, "(10001 entries; at most 10000)");
  expect_refused({"sweep", "--topology", "ring:4", "--op", "allgather", "--n",
                  "1:1099511627776:x4"},
                 "would exceed 2 GiB (--data none times the run without data)");
  expect_refused({"tune", "--p", "4", "--n", "1:18446744073709551615:x2"},
                 "--n: 2199023255552 is too large");
  expect_refused({"tune", "--p", "1:18446744073709551615:+1", "--n", "1"},
                 "(18446744073709551615 entries; at most 10000)");
  // Timing only, the point whose data would exceed the bound runs.
  const Outcome o = expect_ok({"sweep", "--op", "broadcast", "--topology", "ring:4", "--n",
                               "1:268435456:x16384", "--algorithms", "binomial", "--data",
                               "none"});
  for (const char* row : {"binomial,1,", "binomial,16384,", "binomial,268435456,"}) {
    EXPECT_THAT(o.out, HasSubstr(row));
  }
}

TEST(CommandLine, ARangeWithoutAStepTakesEveryCount) {
  const Outcome o = expect_ok({"sweep", "--op", "broadcast", "--topology", "ring:4", "--n",
                               "2:4", "--algorithms", "binomial"});
  for (const char* row : {"binomial,2,", "binomial,3,", "binomial,4,"}) {
    EXPECT_THAT(o.out, HasSubstr(row));
  }
  EXPECT_THAT(o.out, ::testing::Not(HasSubstr("binomial,5,")));
  expect_refused({"sweep", "--n", "4:2"}, "the range A:B runs from A up to B");
}

TEST(CommandLine, AStrategyOfTheWrongLengthSaysHowManyDigitsPTakes) {
  expect_refused({"run", "--op", "allreduce", "--algorithm", "hybrid", "--strategy", "01",
                  "--topology", "hypercube:64"},
                 "digits: 6 at p = 64, 2 given");
}

TEST(CommandLine, DemoTableFollowsItsFlags) {
  const Outcome o = expect_ok({"demo", "--topology", "ring:6", "--versus", "full:6", "--op",
                               "reduce_scatter", "--n", "7", "--type", "int32", "--reduction",
                               "max", "--alpha", "1us", "--output", "none"});
  EXPECT_THAT(o.out, HasSubstr("on ring:6 (6 nodes)"));
  EXPECT_THAT(o.out, HasSubstr("reduce_scatter (max of int32 items, algorithm chosen by cost) "
                               "on ring:6 and full:6"));
  EXPECT_THAT(o.out, HasSubstr("alpha 1 us"));
  // A row per length and network: the only length, --n, on both.
  EXPECT_THAT(o.out, HasSubstr("\n       n  network  time")) << o.out;
  EXPECT_THAT(o.out, ContainsRegex("\n       7  ring:6   [0-9.]+ [mu]?s +\\+[0-9.]+ [mu]?s +[0-9.]+ "
                                   "[mu]?s +[a-z_]+\n          full:6   [0-9.]+ [mu]?s"))
      << o.out;
  EXPECT_THAT(o.out, ::testing::Not(HasSubstr("65536")));
}

// On the real clock no two messages start at one instant: the steps come from the order of
// the messages, and the startups on the critical path are the tree's steps (log2 p).
TEST(CommandLine, DemoOnTheRealClockCountsStepsAndStartups) {
  const Outcome o = expect_ok({"demo", "--clock", "real", "--topology", "hypercube:8", "--n",
                               "2", "--alpha", "50us", "--beta", "0", "-o", "none"});
  EXPECT_THAT(o.out, HasSubstr("step 3 at"));
  EXPECT_THAT(o.out, ::testing::Not(HasSubstr("step 4 at")));
  EXPECT_THAT(o.out, HasSubstr("startups on the critical path: 3"));
  EXPECT_THAT(o.out, HasSubstr("every node has the data: yes (8 of 8)"));
}

// Several networks on one CSV, and a sweep over p with each --topology a family.
TEST(CommandLine, SweepTakesSeveralNetworksAndSweepsOverP) {
  const Outcome two = expect_ok({"sweep", "--topology", "hypercube:8", "--topology", "mesh:2x4",
                                 "--n", "16", "--algorithms", "recursive_doubling"});
  EXPECT_THAT(two.out, HasSubstr("algorithm,n,predicted_s,measured_s,messages,startups,detail,"
                                 "topology,p,algbw_Bps,busbw_Bps\n"));
  EXPECT_THAT(two.out, ContainsRegex(",hypercube:8,8,[0-9.e+-]+,[0-9.e+-]+\n"));
  EXPECT_THAT(two.out, ContainsRegex(",mesh:2x4,8,[0-9.e+-]+,[0-9.e+-]+\n"));
  EXPECT_THAT(two.err, HasSubstr("recursive_doubling@mesh:2x4"));
  const Outcome over_p = expect_ok({"sweep", "--topology", "hypercube", "--topology", "mesh",
                                    "--p", "2:8:x2", "--n", "4", "--algorithms", "ring"});
  // Each curve's rows one after another (a plot draws each as one line): p 2, 4, 8.
  EXPECT_THAT(over_p.out, ContainsRegex(",hypercube:2,2,[0-9.e+-]+,[0-9.e+-]+\nring,4,"));
  EXPECT_THAT(over_p.out, ContainsRegex(",hypercube:4,4,[0-9.e+-]+,[0-9.e+-]+\nring,4,"));
  EXPECT_THAT(over_p.out, ContainsRegex(",mesh:2x2,4,[0-9.e+-]+,[0-9.e+-]+\nring,4,"));
  EXPECT_THAT(over_p.out, ContainsRegex(",mesh:2x4,8,[0-9.e+-]+,[0-9.e+-]+\n"));
  EXPECT_THAT(over_p.err, HasSubstr("ring@mesh"));
  expect_refused({"sweep", "--topology", "ring:4", "--p", "4", "--n", "4"}, "--topology");
  expect_refused({"sweep", "--topology", "ring", "--n", "4"}, "--topology");
  expect_refused({"sweep", "--topology", "ring", "--p", "0", "--n", "4"}, "--p");
  for (const char* bad : {"", "abc", "-1", "4:2:x2", "1.5"}) {
    expect_refused({"sweep", "--topology", "ring", "--p", bad, "--n", "4"}, "--p");
  }
}

// The sources' figures, one command each: LIST names them, each renders, the replayed ones
// as a page too.
TEST(CommandLine, FigureListsTheSourcesFiguresAndEachRenders) {
  const std::vector<std::string> names = {"003-fig4.2", "003-fig4.3", "003-fig4.5",
                                          "003-fig4.6", "003-fig4.7", "004-fig1",
                                          "004-fig2",   "004-fig3",   "004-fig4",
                                          "004-fig5a",  "004-fig5b",  "004-fig6",
                                          "001-costs",  "000-fig7",   "000-fig8"};
  const Outcome list = expect_ok({"figure", "LIST"});
  for (const std::string& name : names) {
    EXPECT_THAT(list.out, HasSubstr(name)) << name;
    const Outcome o = expect_ok({"figure", name});
    EXPECT_THAT(o.out, HasSubstr(name + ": ")) << name;
    EXPECT_GT(std::count(o.out.begin(), o.out.end(), '\n'), 10) << name << "\n" << o.out;
  }
  // 003 Fig. 4.2: farthest first, then halving distances.
  const Outcome ring = expect_ok({"figure", "003-fig4.2"});
  EXPECT_THAT(ring.out, HasSubstr("moving:  0->4 "));
  EXPECT_THAT(ring.out, HasSubstr("moving:  0->2 (1 item, until 1.054 ms), 4->6 "));
  // 004 Fig. 1: a message waits for a link another holds.
  EXPECT_THAT(expect_ok({"figure", "004-fig1"}).out, HasSubstr("waits for link"));
  const std::string page = testing::TempDir() + "/vmc_figure_" + std::to_string(::getpid()) +
                           ".html";
  expect_ok({"figure", "003-fig4.6", "--html", page});
  EXPECT_THAT(slurp(page), HasSubstr("hypercube:8"));
  std::remove(page.c_str());
  expect_refused({"figure", "001-costs", "--html", page}, "--html");
  expect_refused({"figure", "003-fig9"}, "003-fig9");
  expect_refused({"figure", "003-fig4.2", "--html", ""}, "--html");
}

// The demo ends with its comparison as a page, and with --steps draws the broadcast on its
// network once per step.
TEST(CommandLine, DemoWritesItsComparisonAsAPageAndDrawsItsSteps) {
  const std::string page = testing::TempDir() + "/vmc_demo_" + std::to_string(::getpid()) +
                           ".html";
  const Outcome o = expect_ok({"demo", "--topology", "hypercube:8", "--versus", "mesh:2x4",
                               "--op", "allreduce", "--n", "8", "--steps", "-o", page});
  EXPECT_THAT(o.out, HasSubstr("wrote " + page));
  // The tree's steps double, as 003 Fig. 4.6 draws them: the root's second message is step 2.
  EXPECT_THAT(o.out, HasSubstr("step 1 at 0 s: 1 message  0->4\n"));
  EXPECT_THAT(o.out, HasSubstr(": 2 messages  0->2  4->6\n"));
  EXPECT_THAT(o.out, HasSubstr(": 4 messages  0->1  2->3  4->5  6->7\n"));
  EXPECT_THAT(o.out, HasSubstr("step by step on its network"));
  EXPECT_THAT(o.out, HasSubstr("moving:"));
  const std::string html = slurp(page);
  EXPECT_THAT(html, HasSubstr("<script"));
  EXPECT_THAT(html, HasSubstr("hypercube:8"));
  EXPECT_THAT(html, HasSubstr("mesh:2x4"));
  std::remove(page.c_str());
}

}  // namespace
