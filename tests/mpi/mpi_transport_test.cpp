// The MPI transport's runtime (MachineConfig::transport = Transport::mpi), run under
// `mpirun -np 3`: every process runs every test, each process one node. Point to point with
// user tags, the nonblocking calls, splits, and faults: a node that throws, a receive that
// never matches, calls that disagree, a message too large for its buffer, messages no receive
// took, a process that stays in its function past the end's bound. Every process must end a
// failed run with the same report (but for the last: each names the wait it gave up).
#include <gtest/gtest.h>
#include <mpi.h>

#include <chrono>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "collectives/collectives.hpp"
#include "runtime/machine.hpp"

namespace {

vmc::Machine& machine() {
  static vmc::Machine m([] {
    vmc::MachineConfig c;
    c.transport = vmc::Transport::mpi;
    c.watchdog_seconds = 5;  // the deadlock test waits this long
    return c;
  }());
  return m;
}

// The report every process ends the run with (empty when it succeeded).
template <class F>
std::string failure_of(F&& f) {
  try {
    machine().run(f);
  } catch (const vmc::RunError& e) {
    return e.what();
  }
  return "";
}

TEST(MpiTransport, OneNodePerProcess) {
  EXPECT_EQ(machine().size(), vmc::mpi_world_size());
  EXPECT_EQ(machine().topology().spec(), "full:" + std::to_string(vmc::mpi_world_size()));
  int seen = -1;
  machine().run([&](vmc::Node& node) { seen = node.rank(); });
  EXPECT_EQ(seen, vmc::mpi_world_rank());
}

TEST(MpiTransport, BlockingAndNonblockingPointToPoint) {
  machine().run([](vmc::Node& node) {
    const vmc::Comm& c = node.world();
    const int p = c.size(), r = c.rank();
    const int next = (r + 1) % p, prev = (r + p - 1) % p;
    if (p == 1) return;
    // A ring shift with sendrecv and a user tag.
    std::vector<int> out(5, r), in(5, -1);
    EXPECT_EQ(c.sendrecv(std::span<const int>(out), next, std::span<int>(in), prev, 77), 5u);
    EXPECT_EQ(in, std::vector<int>(5, prev));
    // isend/irecv, completed by wait_any and test.
    std::vector<double> a(3, r * 1.5), b(3, 0);
    std::vector<vmc::Request> reqs = {c.irecv(std::span<double>(b), prev, 9),
                                      c.isend(std::span<const double>(a), next, 9)};
    std::size_t done = 0;
    while (done < 2) {
      if (c.wait_any(reqs) != vmc::kNoRequest) ++done;
    }
    EXPECT_EQ(b, std::vector<double>(3, prev * 1.5));
    vmc::Request s = c.isend(std::span<const double>(a), next, 10);
    vmc::Request q = c.irecv(std::span<double>(b), prev, 10);
    std::size_t got = 0;
    while (!c.test(q, &got)) {
    }
    c.wait(s);
    EXPECT_EQ(got, 3u);
    // A smaller message than the buffer: recv says how many items came.
    if (r == 0) c.send(std::span<const int>(out.data(), 2), 1, 5);
    if (r == 1) {
      EXPECT_EQ(c.recv(std::span<int>(in), 0, 5), 2u);
    }
  });
}

TEST(MpiTransport, SplitRanksByKeyAndLeavesNegativeColoursOut) {
  machine().run([](vmc::Node& node) {
    const vmc::Comm& w = node.world();
    const int p = w.size(), r = w.rank();
    // Odd ranks leave; the others are ranked in reverse.
    const vmc::Comm c = w.split(r % 2 == 1 ? -1 : 0, p - r);
    if (r % 2 == 1) {
      EXPECT_FALSE(c.valid());
      return;
    }
    const int members = (p + 1) / 2;
    ASSERT_EQ(c.size(), members);
    EXPECT_EQ(c.rank(), members - 1 - r / 2);
    EXPECT_EQ(c.world_rank(c.rank()), r);
    std::vector<long> v(4, r), sum(4, 0);
    vmc::allreduce(c, std::span<const long>(v), std::span<long>(sum),
                   vmc::ops::sum<long>());
    long want = 0;
    for (int k = 0; k < p; k += 2) want += k;
    EXPECT_EQ(sum, std::vector<long>(4, want));
  });
}

TEST(MpiTransport, ANodeThatThrowsEndsTheRunEverywhereWithOneReport) {
  const std::string report = failure_of([](vmc::Node& node) {
    const vmc::Comm& c = node.world();
    if (c.rank() == c.size() - 1) throw std::runtime_error("broken on purpose");
    // The others wait for a message that never comes: the notice releases them.
    if (c.size() > 1) {
      int x = 0;
      c.recv(std::span<int>(&x, 1), c.size() - 1, 1);
    }
  });
  EXPECT_EQ(report, "node " + std::to_string(machine().size() - 1) + " threw: broken on purpose");
  // The machine is usable afterwards.
  EXPECT_EQ(failure_of([](vmc::Node& node) { vmc::barrier(node.world()); }), "");
}

TEST(MpiTransport, AReceiveThatNeverMatchesEndsAtTheWatchdog) {
  if (machine().size() == 1) GTEST_SKIP() << "needs two processes";
  const std::string report = failure_of([](vmc::Node& node) {
    const vmc::Comm& c = node.world();
    int x = 0;
    if (c.rank() == 0) c.recv(std::span<int>(&x, 1), 1, 3);  // rank 1 sends nothing
  });
  EXPECT_NE(report.find("node 0 threw: no progress for 5"), std::string::npos) << report;
  EXPECT_NE(report.find("recv from rank 1"), std::string::npos) << report;
}

TEST(MpiTransport, CallsThatDisagreeAreNamed) {
  if (machine().size() == 1) GTEST_SKIP() << "needs two processes";
  const std::string report = failure_of([](vmc::Node& node) {
    const vmc::Comm& c = node.world();
    std::vector<int> v(c.rank() == 1 ? 8 : 4, 1);
    vmc::broadcast(c, std::span<int>(v), 0);
  });
  EXPECT_NE(report.find("node 1 threw: node 1: broadcast: collective call 0 on this comm is "
                        "broadcast root 0 count 8"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("but rank 0 (node 0) called broadcast root 0 count 4"),
            std::string::npos)
      << report;
}

TEST(MpiTransport, AMessageLargerThanTheBufferIsNamed) {
  if (machine().size() == 1) GTEST_SKIP() << "needs two processes";
  const std::string report = failure_of([](vmc::Node& node) {
    const vmc::Comm& c = node.world();
    std::vector<int> v(10, 1);
    if (c.rank() == 0) c.send(std::span<const int>(v), 1, 4);
    if (c.rank() == 1) c.recv(std::span<int>(v.data(), 3), 0, 4);
  });
  EXPECT_NE(report.find("node 1 threw: node 1: recv from rank 0 tag 4: the message is larger "
                        "than the receive buffer of 12 bytes"),
            std::string::npos)
      << report;
}

TEST(MpiTransport, MessagesNoReceiveTookAreNamedOnEveryProcess) {
  if (machine().size() == 1) GTEST_SKIP() << "needs two processes";
  const int p = machine().size();
  // Node 0 sends two messages to node 1 on the world (small: their sends complete at once)
  // and, on a split of the even nodes, one to node 2; none is received.
  vmc::RunError::Kind kind{};
  std::string report;
  try {
    machine().run([](vmc::Node& node) {
      const vmc::Comm& c = node.world();
      const std::vector<int> v(3, 7);
      if (c.rank() == 0) {
        c.send(std::span<const int>(v), 1, 42);
        c.send(std::span<const int>(v.data(), 1), 1, 43);
      }
      const vmc::Comm even = c.split(c.rank() % 2 == 0 ? 0 : -1, c.rank());
      if (c.rank() == 0 && even.valid() && even.size() > 1) {
        even.send(std::span<const int>(v.data(), 2), 1, 5);
      }
    });
  } catch (const vmc::RunError& e) {
    kind = e.kind();
    report = e.what();
  }
  EXPECT_EQ(kind, vmc::RunError::Kind::unreceived) << report;
  EXPECT_NE(report.find("messages left unreceived"), std::string::npos) << report;
  EXPECT_NE(report.find("node 1: from node 0, tag 42 on comm 0, 12 bytes"), std::string::npos)
      << report;
  EXPECT_NE(report.find("node 1: from node 0, tag 43 on comm 0, 4 bytes"), std::string::npos)
      << report;
  const bool split_message = p > 2;
  EXPECT_EQ(report.find("node 2: from node 0, tag 5 on comm ") != std::string::npos, split_message)
      << report;
  // Every process ends with the same report: each compares its own with rank 0's.
  std::vector<char> first(report.begin(), report.end());
  int len = static_cast<int>(first.size());
  MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD);
  first.resize(static_cast<std::size_t>(len));
  MPI_Bcast(first.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
  EXPECT_EQ(std::string(first.begin(), first.end()), report);
  // A run that receives what it sends passes on the same machine after it.
  EXPECT_EQ(failure_of([](vmc::Node& node) {
              const vmc::Comm& c = node.world();
              int x = c.rank(), y = -1;
              const int next = (c.rank() + 1) % c.size(), prev = (c.rank() + c.size() - 1) % c.size();
              c.sendrecv(std::span<const int>(&x, 1), next, std::span<int>(&y, 1), prev, 1);
            }),
            "");
}

TEST(MpiTransport, AProcessThatStaysInItsFunctionEndsTheRunOnEveryProcess) {
  if (machine().size() == 1) GTEST_SKIP() << "needs two processes";
  // A machine of its own: the one this test breaks cannot run again.
  vmc::MachineConfig config;
  config.transport = vmc::Transport::mpi;
  config.watchdog_seconds = 0.5;
  // The processes make the machine together within the watchdog time: level them first (the
  // last test may have ended apart on a loaded host).
  MPI_Barrier(MPI_COMM_WORLD);
  vmc::Machine m(config);
  vmc::RunError::Kind kind{};
  std::string report;
  try {
    m.run([](vmc::Node& node) {
      // The last node computes for three watchdog times without a call of vmc.
      if (node.rank() == node.world().size() - 1) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      }
    });
  } catch (const vmc::RunError& e) {
    kind = e.kind();
    report = e.what();
  }
  // Every process ends the run (the late one after its sleep, at the next wait of the end,
  // which the others have left): none waits for ever.
  EXPECT_EQ(kind, vmc::RunError::Kind::watchdog) << report;
  EXPECT_NE(report.find("MPI transport: not every process"), std::string::npos) << report;
  // The machine says it cannot run again, instead of mismatching its processes' calls.
  try {
    m.run([](vmc::Node&) {});
    ADD_FAILURE() << "the broken machine ran";
  } catch (const vmc::UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("this machine cannot run again"), std::string::npos)
        << e.what();
  }
}

TEST(MpiTransport, WhatItRefuses) {
  vmc::MachineConfig c;
  c.transport = vmc::Transport::mpi;
  c.topology = vmc::parse_topology("full:" + std::to_string(vmc::mpi_world_size() + 1));
  EXPECT_THROW(
      {
        try {
          vmc::Machine m(c);
        } catch (const vmc::UsageError& e) {
          EXPECT_NE(std::string(e.what()).find("one node per process"), std::string::npos);
          throw;
        }
      },
      vmc::UsageError);
  c.topology = nullptr;
  c.clock = vmc::Clock::real_time;
  EXPECT_THROW(vmc::Machine{c}, vmc::UsageError);
  c.clock = vmc::Clock::virtual_time;
  c.data = vmc::Data::none;
  EXPECT_THROW(vmc::Machine{c}, vmc::UsageError);
}

}  // namespace
