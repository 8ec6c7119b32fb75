// Faults end a run with a report, never a hang, and leave the machine usable.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/machine.hpp"

namespace vmc {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// Runs fn, expects a RunError, returns it. No wall-clock bound: a fault that is never
// reported hangs until ctest's timeout, which fails the test under any load.
template <class Fn>
RunError expect_failure(Machine& m, Fn fn) {
  try {
    m.run(fn);
  } catch (const RunError& e) {
    return e;
  }
  ADD_FAILURE() << "the run did not fail";
  return RunError(RunError::Kind::watchdog, "", -1, {});
}

// A healthy run after a fault proves the machine is usable again.
void expect_healthy(Machine& m) {
  const int p = m.size();
  std::vector<int> got(p, -1);
  m.run([&](Node& node) {
    const Comm& c = node.world();
    int x = c.rank(), y = -1;
    if (p == 1) {
      got[0] = 0;
      return;
    }
    c.sendrecv(std::span<const int>(&x, 1), (x + 1) % p, std::span<int>(&y, 1), (x + p - 1) % p,
               0);
    got[x] = y;
  });
  for (int r = 0; r < p; ++r) EXPECT_EQ(got[r], (r + p - 1) % p);
}

TEST(Faults, ThrowerAtEveryPosition) {
  for (int p = 1; p <= 8; ++p) {
    Machine m({.nodes = p});
    for (int thrower = 0; thrower < p; ++thrower) {
      RunError e = expect_failure(m, [&](Node& node) {
        const Comm& c = node.world();
        // Everyone else waits for a message that never comes.
        if (c.rank() == thrower) throw std::runtime_error("boom at " + std::to_string(thrower));
        int x;
        c.recv(std::span<int>(&x, 1), thrower, 0);
      });
      EXPECT_EQ(e.kind(), RunError::Kind::node_threw);
      EXPECT_EQ(e.node(), thrower);
      EXPECT_THAT(e.what(), HasSubstr("node " + std::to_string(thrower) + " threw: boom at " +
                                      std::to_string(thrower)));
      expect_healthy(m);
    }
  }
}

TEST(Faults, ThrowerWhileOthersComputeAndSend) {
  Machine m({.nodes = 16});
  RunError e = expect_failure(m, [&](Node& node) {
    const Comm& c = node.world();
    for (int i = 0; i < 100; ++i) {
      int x = i;
      if (c.rank() == 5 && i == 50) throw std::logic_error("half way");
      int to = (c.rank() + 1) % 16, from = (c.rank() + 15) % 16;
      c.sendrecv(std::span<const int>(&x, 1), to, std::span<int>(&x, 1), from, 0);
    }
  });
  EXPECT_EQ(e.node(), 5);
  EXPECT_THAT(e.what(), HasSubstr("half way"));
  expect_healthy(m);
}

TEST(Faults, TwoNodeDeadlockIsReported) {
  Machine m({.nodes = 2});
  RunError e = expect_failure(m, [&](Node& node) {
    const Comm& c = node.world();
    int x;
    c.recv(std::span<int>(&x, 1), 1 - c.rank(), 42);
  });
  EXPECT_EQ(e.kind(), RunError::Kind::deadlock);
  ASSERT_EQ(e.blocked().size(), 2u);
  EXPECT_THAT(e.what(), HasSubstr("node 0: recv from rank 1 tag 42 on comm 0"));
  EXPECT_THAT(e.what(), HasSubstr("node 1: recv from rank 0 tag 42 on comm 0"));
  expect_healthy(m);
}

TEST(Faults, DeadlockReportNamesTheFrontDoorsCall) {
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    Machine m({.nodes = 3, .engine = engine});
    RunError e = expect_failure(m, [&](Node& node) {
      const Comm& c = node.world();
      int x;
      if (c.rank() == 2) {
        // A context left before the wait is not reported.
        { CallContext gone("MPI_Barrier(MPI_COMM_WORLD)"); }
        c.recv(std::span<int>(&x, 1), 0, 7);
        return;
      }
      CallContext outer("MPI_Recv(source " + std::to_string(1 - c.rank()) + ")");
      CallContext inner("not this one: the outermost is kept");
      c.recv(std::span<int>(&x, 1), 1 - c.rank(), 42);
    });
    EXPECT_EQ(e.kind(), RunError::Kind::deadlock);
    ASSERT_EQ(e.blocked().size(), 3u);
    EXPECT_THAT(e.what(), HasSubstr("node 0: recv from rank 1 tag 42 on comm 0, in MPI_Recv(source 1)"));
    EXPECT_THAT(e.what(), HasSubstr("node 1: recv from rank 0 tag 42 on comm 0, in MPI_Recv(source 0)"));
    for (const BlockedWait& w : e.blocked()) {
      EXPECT_EQ(w.context.empty(), w.node == 2) << w.describe();
    }
    EXPECT_THAT(e.what(), Not(HasSubstr("not this one")));
    EXPECT_THAT(e.what(), Not(HasSubstr("MPI_Barrier")));
    expect_healthy(m);
  }
}

TEST(Faults, CyclicDeadlockIsReported) {
  for (int p : {3, 7, 64}) {
    Machine m({.nodes = p});
    RunError e = expect_failure(m, [&](Node& node) {
      const Comm& c = node.world();
      int x;
      c.recv(std::span<int>(&x, 1), (c.rank() + 1) % p, 9);
    });
    EXPECT_EQ(e.kind(), RunError::Kind::deadlock);
    EXPECT_EQ(e.blocked().size(), static_cast<std::size_t>(p));
    for (const BlockedWait& w : e.blocked()) {
      EXPECT_EQ(w.operation, "recv");
      EXPECT_EQ(w.peer, (w.node + 1) % p);
      EXPECT_EQ(w.tag, 9);
    }
    expect_healthy(m);
  }
}

TEST(Faults, WaitingForAFinishedNodeIsADeadlock) {
  Machine m({.nodes = 4});
  RunError e = expect_failure(m, [&](Node& node) {
    const Comm& c = node.world();
    if (c.rank() == 3) {
      int x;
      c.recv(std::span<int>(&x, 1), 0, 1);  // node 0 sends with tag 0, not 1
    } else if (c.rank() == 0) {
      int x = 0;
      c.send(std::span<const int>(&x, 1), 3, 0);
    }
  });
  EXPECT_EQ(e.kind(), RunError::Kind::deadlock);
  ASSERT_EQ(e.blocked().size(), 1u);
  EXPECT_EQ(e.blocked()[0].node, 3);
  expect_healthy(m);
}

TEST(Faults, DeadlockInsideASubgroup) {
  Machine m({.nodes = 6});
  RunError e = expect_failure(m, [&](Node& node) {
    Comm half = node.world().split(node.rank() / 3, node.rank());
    if (node.rank() < 3) return;
    int x;
    half.recv(std::span<int>(&x, 1), (half.rank() + 1) % 3, 2);
  });
  EXPECT_EQ(e.kind(), RunError::Kind::deadlock);
  EXPECT_EQ(e.blocked().size(), 3u);
  EXPECT_THAT(e.what(), HasSubstr("(node 4)"));
  expect_healthy(m);
}

TEST(Faults, MissingSplitMemberIsADeadlock) {
  Machine m({.nodes = 4});
  RunError e = expect_failure(m, [&](Node& node) {
    if (node.rank() == 2) return;
    node.world().split(0, 0);
  });
  EXPECT_EQ(e.kind(), RunError::Kind::deadlock);
  EXPECT_THAT(e.what(), HasSubstr("split"));
  expect_healthy(m);
}

TEST(Faults, ReceiveBufferTooSmall) {
  Machine m({.nodes = 2});
  RunError e = expect_failure(m, [&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> buf(4);
    if (c.rank() == 0) c.send(std::span<const int>(buf), 1, 3);
    else c.recv(std::span<int>(buf.data(), 2), 0, 3);
  });
  EXPECT_EQ(e.kind(), RunError::Kind::node_threw);
  EXPECT_EQ(e.node(), 1);
  EXPECT_THAT(e.what(), HasSubstr("node 1: recv from rank 0 tag 3: message of 16 bytes (4 items) "
                                  "does not fit the receive buffer of 8 bytes"));
  expect_healthy(m);
}

TEST(Faults, ItemSizeMismatch) {
  Machine m({.nodes = 2});
  RunError e = expect_failure(m, [&](Node& node) {
    const Comm& c = node.world();
    char bytes[6] = {};
    if (c.rank() == 0) c.send(std::span<const char>(bytes, 6), 1, 0);
    else {
      double d[4];
      c.recv(std::span<double>(d, 4), 0, 0);
    }
  });
  EXPECT_THAT(e.what(), HasSubstr("not a whole number of 8-byte items"));
  expect_healthy(m);
}

TEST(Faults, RankOutOfRange) {
  Machine m({.nodes = 3});
  // -1 is kAnySource: out of range for a send, a receive from any source otherwise.
  for (int bad : {-2, -1, 3, 1000}) {
    RunError e = expect_failure(m, [&](Node& node) {
      int x = 0;
      if (node.rank() == 1) node.world().send(std::span<const int>(&x, 1), bad, 0);
    });
    EXPECT_EQ(e.node(), 1);
    EXPECT_THAT(e.what(), HasSubstr("node 1: send to rank " + std::to_string(bad) +
                                    " tag 0: rank out of range (comm has 3 ranks)"));
    e = expect_failure(m, [&](Node& node) {
      int x = 0;
      if (node.rank() == 2) node.world().recv(std::span<int>(&x, 1), bad, 0);
    });
    if (bad == kAnySource) {
      // Nobody sends: a deadlock, reported with the receive from any source.
      EXPECT_EQ(e.kind(), RunError::Kind::deadlock);
      EXPECT_THAT(e.what(), HasSubstr("node 2: recv from any node tag 0"));
    } else {
      EXPECT_THAT(e.what(), HasSubstr("node 2: recv from rank " + std::to_string(bad)));
    }
  }
  expect_healthy(m);
}

TEST(Faults, NegativeTag) {
  Machine m({.nodes = 2});
  RunError e = expect_failure(m, [&](Node& node) {
    int x = 0;
    if (node.rank() == 0) node.world().send(std::span<const int>(&x, 1), 1, -4);
  });
  EXPECT_THAT(e.what(), HasSubstr("node 0: send to rank 1 tag -4: tag is negative"));
}

TEST(Faults, SendToSelfIsRefusedUnlessAllowed) {
  Machine m({.nodes = 2});
  RunError e = expect_failure(m, [&](Node& node) {
    int x = 0;
    node.world().send(std::span<const int>(&x, 1), node.rank(), 0);
  });
  EXPECT_THAT(e.what(), HasSubstr("may not send to itself"));

  Machine allowed({.nodes = 2, .allow_self_messages = true});
  std::vector<int> got(2, -1);
  auto r = allowed.run([&](Node& node) {
    int x = node.rank() * 10, y = -1;
    node.world().send(std::span<const int>(&x, 1), node.rank(), 0);
    node.world().recv(std::span<int>(&y, 1), node.rank(), 0);
    got[node.rank()] = y;
  });
  EXPECT_EQ(got, (std::vector<int>{0, 10}));
  EXPECT_EQ(r.time_ps(), 0);
}

TEST(Faults, AbsurdSizesAreRefused) {
  Machine m({.nodes = 2});
  RunError e = expect_failure(m, [&](Node& node) {
    if (node.rank() == 0) {
      int x = 0;
      node.world().send_raw(&x, std::size_t{1} << 40, 1, 1, 0);
    }
  });
  EXPECT_THAT(e.what(), HasSubstr("node 0: send to rank 1 tag 0: message of 1099511627776 "
                                  "bytes is larger than"));
  e = expect_failure(m, [&](Node& node) {
    if (node.rank() == 0) {
      int x[2] = {};
      node.world().send_raw(x, 8, 3, 1, 0);
    }
  });
  EXPECT_THAT(e.what(), HasSubstr("8 bytes cannot hold 3 items"));
  e = expect_failure(m, [&](Node& node) {
    if (node.rank() == 1) node.charge_compute(-1.0);
  });
  EXPECT_THAT(e.what(), HasSubstr("node 1: charge_compute: duration -1"));
  expect_healthy(m);
}

TEST(Faults, BadMachineConfigurations) {
  EXPECT_THROW(Machine({.nodes = 0}), UsageError);
  EXPECT_THROW(Machine({.nodes = -3}), UsageError);
  EXPECT_THROW(Machine({.topology = parse_topology("ring:8"), .nodes = 6}), UsageError);
  EXPECT_THROW(Machine({.nodes = 2, .time_scale = 0}), UsageError);
}

TEST(Faults, CollectiveSignatureMismatchNamesTheNode) {
  Machine m({.nodes = 4});
  RunError e = expect_failure(m, [&](Node& node) {
    CallSignature sig{.operation = "allreduce", .op = "sum", .root = -1, .count = 10,
                      .item_size = 4};
    const Comm& c = node.world();
    int x = 0;
    if (c.rank() != 2) {
      c.begin_collective(sig);
      c.send(std::span<const int>(&x, 1), 2, 0);  // node 2 enters last
    } else {
      for (int r : {0, 1, 3}) c.recv(std::span<int>(&x, 1), r, 0);
      sig.count = 11;
      c.begin_collective(sig);
    }
  });
  EXPECT_EQ(e.node(), 2);
  EXPECT_THAT(e.what(), HasSubstr("node 2: allreduce: collective call 0 on this comm: the "
                                  "members' calls differ: rank 2 (node 2) called allreduce with "
                                  "op sum count 11 item size 4, ranks 0, 1, 3 (nodes 0, 1, 3) "
                                  "called allreduce with op sum count 10 item size 4"));
  expect_healthy(m);
}

// Members whose calls differ, coming in another order of the host's on each run (node r
// sleeps (r + k) % p ms first) and on both engines: the report is the same, and it is the
// failure of the lowest rank outside the call most members made, whether that member waited
// in the call or went on (here into a receive that nothing answers, as an algorithm's would).
TEST(Faults, CollectiveCallsThatDifferBlameOneNodeOnEveryRun) {
  const std::string allreduce = " called allreduce with op sum count 4 item size 4";
  const std::string bcast = " called broadcast root 0 count 4 item size 4, ";
  const std::vector<std::pair<std::vector<int>, std::string>> cases = {
      {{3, 6},
       "node 3 threw: node 3: broadcast: collective call 0 on this comm: the members' calls "
       "differ: ranks 3, 6 (nodes 3, 6)" + bcast + "ranks 0-2, 4, 5, 7 (nodes 0-2, 4, 5, 7)" +
           allreduce},
      {{0},
       "node 0 threw: node 0: broadcast: collective call 0 on this comm: the members' calls "
       "differ: rank 0 (node 0)" + bcast + "ranks 1-7 (nodes 1-7)" + allreduce}};
  for (Engine engine : {Engine::fibers, Engine::threads}) {
    Machine m({.nodes = 8, .engine = engine});
    for (const auto& [odd, report] : cases) {
      for (int k = 0; k < 6; ++k) {
        RunError e = expect_failure(m, [&](Node& node) {
          const Comm& c = node.world();
          std::this_thread::sleep_for(std::chrono::milliseconds((c.rank() + k) % 8));
          const bool other = std::find(odd.begin(), odd.end(), c.rank()) != odd.end();
          const CallSignature sig{.operation = other ? "broadcast" : "allreduce",
                                  .op = other ? "" : "sum", .root = other ? 0 : -1, .count = 4,
                                  .item_size = 4};
          c.begin_collective(sig);
          int x = 0;
          c.recv(std::span<int>(&x, 1), (c.rank() + 1) % 8, 0);
        });
        EXPECT_EQ(e.kind(), RunError::Kind::node_threw);
        EXPECT_EQ(e.node(), odd.front());
        EXPECT_EQ(std::string(e.what()), report) << "k " << k;
      }
    }
    expect_healthy(m);
  }
}

// A member that never comes to a call whose members' calls differ (it waits for a message
// that a member sends only after the call): a deadlock report, not a hang.
TEST(Faults, AMemberThatNeverComesToCallsThatDifferIsADeadlock) {
  Machine m({.nodes = 8});
  RunError e = expect_failure(m, [&](Node& node) {
    const Comm& c = node.world();
    int x = 0;
    if (c.rank() == 5) c.recv(std::span<int>(&x, 1), 3, 0);
    const CallSignature sig{.operation = "allreduce", .op = "sum", .root = -1,
                            .count = c.rank() == 3 ? 2u : 1u, .item_size = 4};
    c.begin_collective(sig);
    if (c.rank() == 3) c.send(std::span<const int>(&x, 1), 5, 0);
  });
  EXPECT_EQ(e.kind(), RunError::Kind::deadlock);
  EXPECT_THAT(e.what(), HasSubstr("node 5: recv from rank 3 tag 0"));
  expect_healthy(m);
}

// The first member's call is kept in an entry reused from earlier calls (its texts' storage
// too): after calls whose texts were longer and shorter, a mismatch still names it whole.
TEST(Faults, CollectiveSignatureMismatchAfterReusedEntries) {
  Machine m({.nodes = 4});
  RunError e = expect_failure(m, [&](Node& node) {
    const Comm& c = node.world();
    for (int k = 0; k < 8; ++k) {
      const CallSignature agreed{.operation = k % 2 == 0 ? "allreduce" : "reduce",
                                 .op = k % 2 == 0 ? "an_op_with_a_name_longer_than_sso" : "sum",
                                 .root = -1, .count = static_cast<std::uint64_t>(k),
                                 .item_size = 4};
      c.begin_collective(agreed);
    }
    CallSignature sig{.operation = "allreduce", .op = "max", .root = -1, .count = 10,
                      .item_size = 4};
    int x = 0;
    if (c.rank() != 2) {
      c.begin_collective(sig);
      c.send(std::span<const int>(&x, 1), 2, 0);  // node 2 enters last
    } else {
      for (int r : {0, 1, 3}) c.recv(std::span<int>(&x, 1), r, 0);
      sig.op = "min";
      c.begin_collective(sig);
    }
  });
  EXPECT_THAT(e.what(), HasSubstr("node 2: allreduce: collective call 8 on this comm: the "
                                  "members' calls differ: rank 2 (node 2) called allreduce with "
                                  "op min count 10 item size 4, ranks 0, 1, 3 (nodes 0, 1, 3) "
                                  "called allreduce with op max count 10 item size 4"));
  expect_healthy(m);
}

}  // namespace
}  // namespace vmc
