// A machine spread over MPI processes (MachineConfig::transport = Transport::spread), run
// under `mpirun -np K`: every process runs every test, each its block of the nodes. Messages
// between nodes of different processes (order, tags, sizes, nonblocking), virtual times and
// traces equal to the same program's on one process, and faults: a node that throws, a
// deadlock across processes, the watchdog, messages left unreceived, collective calls that
// differ between processes, a process that stops at each phase of a run's end, and what a
// spread machine refuses, and a process that does not make the machine.
// Every process (that did not stop) must end a failed run with the same report, and the
// machine must be usable after it (not after a process stopped: it says so).
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "collectives/collectives.hpp"
#include "runtime/machine.hpp"
#include "runtime/mpi.hpp"

namespace {

constexpr int kNodes = 10;  // over 2 or 3 processes: blocks of 5 and 5, or 4, 3 and 3

vmc::MachineConfig config(vmc::Transport transport, const std::string& topology = "mesh:2x5") {
  vmc::MachineConfig c;
  c.transport = transport;
  c.topology = vmc::parse_topology(topology);
  c.model.alpha = 2e-6;
  c.model.beta = 3e-9;
  c.model.gamma = 1e-9;
  c.watchdog_seconds = 20;
  return c;
}

vmc::Machine& spread() {
  static vmc::Machine m(config(vmc::Transport::spread));
  return m;
}

// The report every process ends the run with (empty when it succeeded).
template <class F>
std::string failure_of(vmc::Machine& m, F&& f, vmc::RunError::Kind* kind = nullptr) {
  try {
    m.run(f);
  } catch (const vmc::RunError& e) {
    if (kind != nullptr) *kind = e.kind();
    return e.what();
  }
  return "";
}

// Every process ended with the same report as process 0.
bool same_everywhere(vmc::Machine& m, const std::string& text) {
  int length = static_cast<int>(text.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string first = text;
  first.resize(static_cast<std::size_t>(length));
  MPI_Bcast(first.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  return m.everywhere(first == text);
}

void ping_program(vmc::Node& node) {
  const vmc::Comm& c = node.world();
  const int p = c.size(), r = c.rank();
  // Two messages to every other node, of sizes that differ by sender and receiver, on two
  // tags; received in the other tag order, so the second waits in the mailbox.
  for (int to = 0; to < p; ++to) {
    if (to == r) continue;
    std::vector<int> a(static_cast<std::size_t>((r * 7 + to * 13) % 600), r * 1000 + to);
    std::vector<int> b(static_cast<std::size_t>(to % 3), -r);
    c.send(std::span<const int>(a), to, 1);
    c.send(std::span<const int>(b), to, 2);
  }
  for (int from = 0; from < p; ++from) {
    if (from == r) continue;
    std::vector<int> a(600, 0), b(3, 0);
    const std::size_t nb = c.recv(std::span<int>(b), from, 2);
    const std::size_t na = c.recv(std::span<int>(a), from, 1);
    EXPECT_EQ(na, static_cast<std::size_t>((from * 7 + r * 13) % 600)) << "from " << from;
    EXPECT_EQ(nb, static_cast<std::size_t>(r % 3)) << "from " << from;
    for (std::size_t i = 0; i < na; ++i) ASSERT_EQ(a[i], from * 1000 + r);
    for (std::size_t i = 0; i < nb; ++i) ASSERT_EQ(b[i], -from);
  }
  // Nonblocking, across the machine: a ring shift both ways, completed together.
  const int next = (r + 1) % p, prev = (r + p - 1) % p;
  std::vector<double> to_next(100, r + 0.5), to_prev(50, r - 0.5), from_prev(100), from_next(50);
  std::vector<vmc::Request> reqs = {c.irecv(std::span<double>(from_prev), prev, 3),
                                    c.irecv(std::span<double>(from_next), next, 4),
                                    c.isend(std::span<const double>(to_next), next, 3),
                                    c.isend(std::span<const double>(to_prev), prev, 4)};
  node.charge_compute(1e-6 * (r + 1));
  c.wait_all(reqs);
  EXPECT_EQ(from_prev, std::vector<double>(100, prev + 0.5));
  EXPECT_EQ(from_next, std::vector<double>(50, next - 0.5));
  // A large message from the first node to the last (another process), and back by sendrecv.
  if (r == 0 || r == p - 1) {
    const int peer = p - 1 - r;
    std::vector<std::uint8_t> big(1 << 20), back(1 << 20);
    for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<std::uint8_t>(i * 31 + r);
    c.sendrecv(std::span<const std::uint8_t>(big), peer, std::span<std::uint8_t>(back), peer, 5);
    for (std::size_t i = 0; i < back.size(); i += 4093) {
      ASSERT_EQ(back[i], static_cast<std::uint8_t>(i * 31 + peer));
    }
  }
  // A collective on the whole machine.
  std::vector<long> in(17, r + 1), out(17);
  vmc::allreduce(c, std::span<const long>(in), std::span<long>(out), vmc::ops::sum<long>());
  EXPECT_EQ(out, std::vector<long>(17, p * (p + 1) / 2));
}

TEST(Spread, ContiguousBlocks) {
  vmc::Machine& m = spread();
  const int k = vmc::mpi_world_size(), me = vmc::mpi_world_rank();
  ASSERT_EQ(m.size(), kNodes);
  const int lo = me * (kNodes / k) + std::min(me, kNodes % k);
  const int count = kNodes / k + (me < kNodes % k ? 1 : 0);
  for (int r = 0; r < kNodes; ++r) EXPECT_EQ(m.hosts(r), r >= lo && r < lo + count) << r;
  std::vector<int> ran(kNodes, 0);
  m.run([&](vmc::Node& node) { ran[node.rank()] = 1; });
  for (int r = 0; r < kNodes; ++r) EXPECT_EQ(ran[r], m.hosts(r) ? 1 : 0) << r;
}

TEST(Spread, PointToPointAcrossProcesses) {
  vmc::RunResult res = spread().run(ping_program);
  EXPECT_GT(res.stats().messages, 0u);
}

TEST(Spread, TimesAndTraceEqualOneProcessBitForBit) {
  // Model choices the pass makes: store and forward, shared links, on a torus with
  // contention, and under both engines.
  for (vmc::Engine engine : {vmc::Engine::fibers, vmc::Engine::threads}) {
    vmc::MachineConfig c = config(vmc::Transport::spread, "torus:2x5");
    c.model.routing = vmc::Routing::store_and_forward;
    c.model.contention = vmc::Contention::shared;
    c.engine = engine;
    vmc::Machine m(c);
    c.transport = vmc::Transport::local;
    vmc::Machine one(c);
    const vmc::RunResult a = m.run(ping_program);
    const vmc::RunResult b = one.run(ping_program);
    EXPECT_EQ(a.stats().time, b.stats().time);
    EXPECT_EQ(a.stats().node_time, b.stats().node_time);
    EXPECT_EQ(a.stats().messages, b.stats().messages);
    EXPECT_EQ(a.stats().bytes, b.stats().bytes);
    EXPECT_EQ(a.stats().link_busy, b.stats().link_busy);
    EXPECT_EQ(a.stats().link_peak, b.stats().link_peak);
    EXPECT_EQ(a.stats().contention_delay, b.stats().contention_delay);
    EXPECT_EQ(a.stats().free_time, b.stats().free_time);
    EXPECT_EQ(a.stats().critical_startups, b.stats().critical_startups);
    if (vmc::mpi_world_rank() == 0) {
      EXPECT_EQ(a.trace().hash(), b.trace().hash());
      EXPECT_EQ(a.trace().messages.size(), a.stats().messages);
    } else {
      EXPECT_TRUE(a.trace().messages.empty());  // the trace stays on process 0
    }
  }
}

TEST(Spread, ScheduleDeadlockIsReportedAsOnOneProcess) {
  // ping_program sends before it receives: under the rendezvous protocol the pass finds the
  // sends waiting for receives never posted, after the run, on process 0.
  vmc::MachineConfig c = config(vmc::Transport::spread);
  c.model.protocol = vmc::Protocol::rendezvous;
  vmc::Machine m(c);
  c.transport = vmc::Transport::local;
  vmc::Machine one(c);
  vmc::RunError::Kind kind{}, kind_one{};
  const std::string spread_report = failure_of(m, ping_program, &kind);
  const std::string one_report = failure_of(one, ping_program, &kind_one);
  EXPECT_EQ(kind, vmc::RunError::Kind::deadlock);
  EXPECT_EQ(kind_one, vmc::RunError::Kind::deadlock);
  EXPECT_NE(spread_report.find("deadlock under the rendezvous protocol"), std::string::npos)
      << spread_report;
  EXPECT_EQ(spread_report, one_report);
  EXPECT_TRUE(same_everywhere(m, spread_report));
}

TEST(Spread, TimingOnlyEqualsTheRunWithData) {
  vmc::MachineConfig c = config(vmc::Transport::spread);
  c.data = vmc::Data::none;
  vmc::Machine m(c);
  auto program = [](vmc::Node& node) {
    const vmc::Comm& c = node.world();
    std::vector<int> in(300, 1), out(300);
    vmc::allreduce(c, std::span<const int>(in), std::span<int>(out), vmc::ops::sum<int>());
    vmc::broadcast(c, std::span<int>(out), c.size() - 1);
  };
  const vmc::RunResult a = m.run(program);
  const vmc::RunResult b = spread().run(program);
  EXPECT_EQ(a.stats().time, b.stats().time);
  EXPECT_EQ(a.stats().node_time, b.stats().node_time);
  EXPECT_EQ(a.stats().bytes, b.stats().bytes);
}

TEST(Spread, NodeThatThrowsEndsTheRunEverywhereWithOneReport) {
  vmc::Machine& m = spread();
  vmc::RunError::Kind kind{};
  const std::string report = failure_of(
      m,
      [](vmc::Node& node) {
        const vmc::Comm& c = node.world();
        if (node.rank() == 7) throw std::runtime_error("boom at seven");
        // Everyone else waits for a message that node 7 never sends.
        int x = 0;
        if (node.rank() != 7) c.recv(std::span<int>(&x, 1), 7, 0);
      },
      &kind);
  EXPECT_EQ(kind, vmc::RunError::Kind::node_threw);
  EXPECT_EQ(report, "node 7 threw: boom at seven");
  EXPECT_TRUE(same_everywhere(m, report));
  // The machine runs the next program as if nothing had happened.
  EXPECT_GT(m.run(ping_program).stats().messages, 0u);
}

TEST(Spread, DeadlockAcrossProcessesIsReportedEverywhere) {
  vmc::Machine& m = spread();
  vmc::RunError::Kind kind{};
  const std::string report = failure_of(
      m,
      [](vmc::Node& node) {
        const vmc::Comm& c = node.world();
        const int last = c.size() - 1;
        int x = 0;
        // The first and the last node (two processes) each wait for the other first.
        if (node.rank() == 0) c.recv(std::span<int>(&x, 1), last, 8);
        if (node.rank() == last) c.recv(std::span<int>(&x, 1), 0, 8);
      },
      &kind);
  EXPECT_EQ(kind, vmc::RunError::Kind::deadlock) << report;
  EXPECT_NE(report.find("node 0: recv from rank 9 tag 8"), std::string::npos) << report;
  EXPECT_NE(report.find("node 9: recv from rank 0 tag 8"), std::string::npos) << report;
  EXPECT_TRUE(same_everywhere(m, report));
  EXPECT_GT(m.run(ping_program).stats().messages, 0u);
}

TEST(Spread, WatchdogEndsARunWithNoProgressAnywhere) {
  vmc::MachineConfig c = config(vmc::Transport::spread);
  c.watchdog_seconds = 1;
  // The processes make the machine together within the watchdog time: level them first (the
  // last test may have ended a second apart on a loaded host).
  MPI_Barrier(MPI_COMM_WORLD);
  vmc::Machine m(c);
  vmc::RunError::Kind kind{};
  const std::string report = failure_of(
      m,
      [](vmc::Node& node) {
        const vmc::Comm& c = node.world();
        int x = 0;
        // Node 4 computes for real for longer than the watchdog allows; the others wait.
        if (node.rank() == 4) {
          std::this_thread::sleep_for(std::chrono::milliseconds(2500));
          for (int to = 0; to < c.size(); ++to) {
            if (to != 4) c.send(std::span<const int>(&x, 1), to, 0);
          }
        } else {
          c.recv(std::span<int>(&x, 1), 4, 0);
        }
      },
      &kind);
  EXPECT_EQ(kind, vmc::RunError::Kind::watchdog) << report;
  // Every process's nodes, in one report: what moves and what waits.
  EXPECT_NE(report.find("processes of the spread machine"), std::string::npos) << report;
  EXPECT_NE(report.find("node 4: running (in none of vmc's waits)"), std::string::npos) << report;
  EXPECT_NE(report.find("node 0: recv from rank 4 tag 0"), std::string::npos) << report;
  EXPECT_TRUE(same_everywhere(m, report));
}

// The first node of process k.
int first_node_of(int k) {
  const int size = vmc::mpi_world_size();
  return k * (kNodes / size) + std::min(k, kNodes % size);
}

TEST(Spread, MessagesLeftUnreceivedAreReportedAsOnOneProcess) {
  // Node 0 sends the last node (on the last process) and node 1 (on its own) a message that
  // no receive takes: both are listed, as one process lists them, on every process.
  auto program = [](vmc::Node& node) {
    const int x[2] = {1, 2};
    if (node.rank() == 0) {
      node.world().send(std::span<const int>(x, 1), kNodes - 1, 5);
      node.world().send(std::span<const int>(x, 2), 1, 6);
    }
  };
  vmc::Machine& m = spread();
  vmc::Machine one(config(vmc::Transport::local));
  vmc::RunError::Kind kind{};
  const std::string report = failure_of(m, program, &kind);
  EXPECT_EQ(kind, vmc::RunError::Kind::unreceived) << report;
  EXPECT_EQ(report, failure_of(one, program));
  EXPECT_NE(report.find("\n  node 1: from node 0, tag 6 on comm 0, 8 bytes\n  node 9: from node "
                        "0, tag 5 on comm 0, 4 bytes"),
            std::string::npos)
      << report;
  EXPECT_TRUE(same_everywhere(m, report));
  EXPECT_GT(m.run(ping_program).stats().messages, 0u);  // and the machine runs on
}

TEST(Spread, CollectiveCallsThatDifferBetweenProcessesAreNamed) {
  // The nodes of the last process agree among themselves, but not with rank 0: a count
  // mismatch between processes is named as on one process, not left to deadlock or to a
  // wrong result.
  vmc::Machine& m = spread();
  const int last = vmc::mpi_world_size() - 1;
  const std::string first = std::to_string(first_node_of(last));
  vmc::RunError::Kind kind{};
  const std::string report = failure_of(
      m,
      [](vmc::Node& node) {
        const vmc::Comm& c = node.world();
        const std::size_t n = vmc::mpi_world_rank() == vmc::mpi_world_size() - 1 ? 5 : 4;
        std::vector<long> in(n, 1), out(n);
        vmc::allreduce(c, std::span<const long>(in), std::span<long>(out), vmc::ops::sum<long>());
      },
      &kind);
  if (last == 0) {
    EXPECT_EQ(report, "");  // one process: no other to differ from
    return;
  }
  EXPECT_EQ(kind, vmc::RunError::Kind::node_threw) << report;
  EXPECT_EQ(report.rfind("node " + first + " threw: node " + first +
                             ": allreduce: collective call 0 on this comm is allreduce",
                         0),
            0u)
      << report;
  EXPECT_NE(report.find("count 5"), std::string::npos) << report;
  EXPECT_NE(report.find("but rank 0 (node 0) called allreduce"), std::string::npos) << report;
  EXPECT_NE(report.find("count 4"), std::string::npos) << report;
  EXPECT_TRUE(same_everywhere(m, report));
  // A broadcast whose receivers on the last process take more than the root sends may end
  // without an error: the pass's outcome names the mismatch then.
  const std::string broadcast = failure_of(m, [](vmc::Node& node) {
    const std::size_t n = vmc::mpi_world_rank() == vmc::mpi_world_size() - 1 ? 6 : 3;
    std::vector<int> data(n, node.rank() == 0 ? 7 : 0);
    vmc::broadcast(node.world(), std::span<int>(data), 0);
  });
  EXPECT_EQ(broadcast.rfind("node " + first + " threw: node " + first + ": broadcast: ", 0), 0u)
      << broadcast;
  EXPECT_TRUE(same_everywhere(m, broadcast));
  EXPECT_GT(m.run(ping_program).stats().messages, 0u);  // and the machine runs on
}

// A run of `program` on a spread machine (watchdog 1 s) whose process `stopping` stops at
// `phase` (VMC_SPREAD_TEST_FAIL, as a process that throws there): the report every other
// process ends with, checked to be the same on all of them; the machine refuses to run again.
template <class F>
std::string report_when_stopped(const std::string& phase, int stopping, F&& program) {
  const int me = vmc::mpi_world_rank();
  setenv("VMC_SPREAD_TEST_FAIL", (phase + ":" + std::to_string(stopping)).c_str(), 1);
  vmc::MachineConfig c = config(vmc::Transport::spread);
  c.watchdog_seconds = 1;
  std::string report;
  MPI_Barrier(MPI_COMM_WORLD);  // made together within the watchdog time, as above
  {
    vmc::Machine m(c);
    unsetenv("VMC_SPREAD_TEST_FAIL");
    try {
      m.run(program);
      report = "(no error)";
    } catch (const std::exception& e) {
      report = e.what();
    }
    if (me == stopping) {
      EXPECT_EQ(report, "spread machine: process " + std::to_string(me) + " stopped at " + phase +
                            " (VMC_SPREAD_TEST_FAIL)");
    }
    try {
      m.run(program);
      ADD_FAILURE() << "a spread machine ran again after a process stopped";
    } catch (const vmc::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("cannot run again"), std::string::npos) << e.what();
    }
  }
  // Every process but the one that stopped: the same report as the first of them.
  const int root = stopping == 0 ? 1 : 0;
  std::string theirs = report;
  int length = static_cast<int>(theirs.size());
  MPI_Bcast(&length, 1, MPI_INT, root, MPI_COMM_WORLD);
  theirs.resize(static_cast<std::size_t>(length));
  MPI_Bcast(theirs.data(), length, MPI_CHAR, root, MPI_COMM_WORLD);
  int same = me == stopping || theirs == report ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &same, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  EXPECT_EQ(same, 1) << report;
  return theirs;
}

std::string not_answered(int process, const std::string& during) {
  return "spread machine: process " + std::to_string(process) +
         " did not answer within the watchdog time (1 s) during " + during +
         ": the run was ended, and this machine cannot run again";
}

// A process that stops at each phase of a run's end (at 3 processes: two go on, and one of
// them is not process 0). Each takes about the watchdog time.
TEST(Spread, AProcessThatStopsBeforeTheVerdictEndsTheRunEverywhere) {
  if (vmc::mpi_world_size() != 3) GTEST_SKIP() << "run at 3 processes";
  EXPECT_EQ(report_when_stopped("rounds", 2, ping_program),
            "no word from every process of the spread machine for 1 s (one stopped, or "
            "did not call run): the run was ended");
}

TEST(Spread, AProcessThatStopsAtTheVerdictEndsTheRunEverywhere) {
  if (vmc::mpi_world_size() != 3) GTEST_SKIP() << "run at 3 processes";
  EXPECT_EQ(report_when_stopped("drain", 2, ping_program),
            not_answered(2, "the wait for every message between processes to arrive"));
}

TEST(Spread, AProcessThatStopsAfterTheVerdictEndsTheRunEverywhere) {
  if (vmc::mpi_world_size() != 3) GTEST_SKIP() << "run at 3 processes";
  const std::string logs = "the gathering of the logs and the sharing of the outcome";
  EXPECT_EQ(report_when_stopped("logs", 1, ping_program), not_answered(1, logs));
  EXPECT_EQ(report_when_stopped("outcome", 0, ping_program), not_answered(0, logs));
  // A failed run's end: its errors shared.
  EXPECT_EQ(report_when_stopped("errors", 2,
                                [](vmc::Node& node) {
                                  if (node.rank() == 3) throw std::runtime_error("boom");
                                }),
            not_answered(2, "the sharing of the errors"));
}

TEST(Spread, RefusesWhatItDoesNotOfferWithTheNodeNamed) {
  vmc::Machine& m = spread();
  EXPECT_NE(failure_of(m, [](vmc::Node& node) { node.world().split(0, 0); })
                .find("does not split its groups or make new ones yet"),
            std::string::npos);
  const std::string any = failure_of(m, [](vmc::Node& node) {
    const vmc::Comm& c = node.world();
    const int p = c.size(), r = c.rank();
    int x = r, y = 0;
    std::vector<vmc::Request> reqs = {c.irecv(std::span<int>(&y, 1), (r + p - 1) % p, 1),
                                      c.isend(std::span<const int>(&x, 1), (r + 1) % p, 1)};
    c.wait_any(reqs);
  });
  EXPECT_NE(any.find("does not answer wait_any or test"), std::string::npos) << any;
  EXPECT_NE(any.find("threw: node "), std::string::npos) << any;
  vmc::MachineConfig real = config(vmc::Transport::spread);
  real.clock = vmc::Clock::real_time;
  try {
    vmc::Machine r(real);
    ADD_FAILURE() << "a spread machine on the real clock was made";
  } catch (const vmc::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("virtual clock only"), std::string::npos) << e.what();
  }
  if (vmc::mpi_world_size() > 1) {
    vmc::MachineConfig small = config(vmc::Transport::spread, "ring:1");
    try {
      vmc::Machine r(small);
      ADD_FAILURE() << "a machine of fewer nodes than processes was spread";
    } catch (const vmc::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("every process runs at least one node"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST(Spread, EverywhereIsTheConjunctionOverProcesses) {
  vmc::Machine& m = spread();
  EXPECT_TRUE(m.everywhere(true));
  EXPECT_FALSE(m.everywhere(vmc::mpi_world_rank() != vmc::mpi_world_size() - 1));
}

TEST(Spread, AMachineThatAProcessDoesNotMakeIsRefusedOnTheOthers) {
  // The last process makes the machine only once the others gave up on it (after their
  // watchdog time): its calls complete what they left pending, and it gets the machine. Only
  // the others' watchdog is short: the last one's calls wait for MPI to progress theirs, which
  // a loaded host may take longer than 0.2 s to do (and a failure here would leave the
  // processes in different MPI calls, hanging the tests after it).
  const int me = vmc::mpi_world_rank(), late = vmc::mpi_world_size() - 1;
  if (late == 0) GTEST_SKIP() << "run at 2 processes or more";
  MPI_Comm comm = MPI_COMM_NULL;  // not freed: the others' machines' communicators come of it
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  vmc::MachineConfig c = vmc::on_communicator(config(vmc::Transport::spread), comm);
  c.watchdog_seconds = me == late ? 60 : 0.2;
  if (me != late) {
    try {
      vmc::Machine m(c);
      ADD_FAILURE() << "a spread machine was made without its last process";
    } catch (const vmc::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("not every process of the spread machine made it"),
                std::string::npos)
          << e.what();
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (me == late) {
    vmc::Machine m(c);
    EXPECT_EQ(m.size(), kNodes);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(Spread, MachinesOnCommunicatorsOfTheirOwn) {
  // The processes split in two (odd and even ranks); each half runs a spread machine of its
  // own and an MPI-transport machine of one node per process, side by side with the other
  // half's, and gets the one-process run's times.
  MPI_Comm half = MPI_COMM_NULL;
  const int me = vmc::mpi_world_rank();
  MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
  int size = 0;
  MPI_Comm_size(half, &size);
  {
    vmc::Machine m(vmc::on_communicator(config(vmc::Transport::spread, "ring:7"), half));
    vmc::Machine one(config(vmc::Transport::local, "ring:7"));
    const vmc::RunResult a = m.run(ping_program);
    const vmc::RunResult b = one.run(ping_program);
    EXPECT_EQ(a.stats().time, b.stats().time);
    EXPECT_EQ(a.stats().node_time, b.stats().node_time);
    int hosted = 0;
    for (int r = 0; r < m.size(); ++r) hosted += m.hosts(r) ? 1 : 0;
    int total = 0;
    MPI_Allreduce(&hosted, &total, 1, MPI_INT, MPI_SUM, half);
    EXPECT_EQ(total, 7);
    vmc::MachineConfig c = config(vmc::Transport::mpi, "full:" + std::to_string(size));
    vmc::Machine per_process(vmc::on_communicator(c, half));
    std::vector<int> sums(1, -1);
    per_process.run([&](vmc::Node& node) {
      const int in = node.rank() + 1;
      vmc::allreduce(node.world(), std::span<const int>(&in, 1), std::span<int>(sums),
                     vmc::ops::sum<int>());
    });
    EXPECT_EQ(sums[0], size * (size + 1) / 2);
  }
  MPI_Comm_free(&half);
}

}  // namespace
