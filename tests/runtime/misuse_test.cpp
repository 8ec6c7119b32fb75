// Misuse of the runtime and the collectives: each is a clear error naming the node and the
// problem, never a crash or a hang, and the machine stays usable after.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <thread>
#include <vector>

#include "collectives/collectives.hpp"
#include "runtime/machine.hpp"

namespace vmc {
namespace {

using ::testing::HasSubstr;

// Runs fn on m and returns the message of the RunError it must end with.
std::string failure(Machine& m, const std::function<void(Node&)>& fn) {
  try {
    m.run(fn);
  } catch (const RunError& e) {
    return e.what();
  }
  ADD_FAILURE() << "the run did not fail";
  return "";
}

// A run of a ring exchange and an allreduce proves the machine is usable.
void expect_healthy(Machine& m) {
  const int p = m.size();
  std::vector<long> sums(p, -1);
  m.run([&](Node& node) {
    const Comm& c = node.world();
    long x = c.rank() + 1, y = 0;
    allreduce<long>(c, std::span<const long>(&x, 1), std::span<long>(&y, 1), ops::sum<long>());
    sums[c.rank()] = y;
  });
  for (long s : sums) EXPECT_EQ(s, long(p) * (p + 1) / 2);
}

Options with(const std::string& algorithm) {
  Options o;
  o.algorithm = algorithm;
  return o;
}

TEST(Misuse, CollectiveOnTheResultOfSplitWithANegativeColour) {
  Machine m({.nodes = 4});
  std::string e = failure(m, [](Node& node) {
    Comm none = node.world().split(node.rank() == 2 ? -1 : 0, 0);
    if (node.rank() != 2) return;
    long x = 1, y = 0;
    allreduce<long>(none, std::span<const long>(&x, 1), std::span<long>(&y, 1),
                    ops::sum<long>());
  });
  EXPECT_THAT(e, HasSubstr("node 2"));
  EXPECT_THAT(e, HasSubstr("allreduce"));
  EXPECT_THAT(e, HasSubstr("invalid Comm"));
  expect_healthy(m);
}

TEST(Misuse, EveryCollectiveOnADefaultConstructedComm) {
  Machine m({.nodes = 2});
  const std::vector<std::pair<std::string, std::function<void(const Comm&)>>> calls = {
      {"broadcast", [](const Comm& c) { std::vector<int> v(3); broadcast<int>(c, v, 0); }},
      {"barrier", [](const Comm& c) { barrier(c); }},
      {"charge_combine", [](const Comm& c) { c.charge_combine(4); }},
      {"charge_compute", [](const Comm& c) { c.charge_compute(1e-6); }},
      {"allgatherv",
       [](const Comm& c) {
         std::vector<int> s(1), r(2);
         std::vector<std::size_t> n{1, 1}, d{0, 1};
         allgatherv<int>(c, s, r, n, d);
       }},
      {"alltoall",
       [](const Comm& c) {
         std::vector<int> s(2), r(2);
         alltoall<int>(c, s, r);
       }},
      {"scatterv",
       [](const Comm& c) {
         std::vector<int> s(2), r(1);
         std::vector<std::size_t> n{1, 1}, d{0, 1};
         scatterv<int>(c, s, n, d, r, 0);
       }},
  };
  for (const auto& [name, call] : calls) {
    std::string e = failure(m, [&](Node&) { call(Comm()); });
    EXPECT_THAT(e, HasSubstr("node ")) << name;
    EXPECT_THAT(e, HasSubstr(name + ": called on an invalid Comm")) << name;
  }
  EXPECT_THROW(Comm().size(), UsageError);  // outside any node, too
  expect_healthy(m);
}

TEST(Misuse, ARefusedNodeThreadIsACleanErrorSayingHowManyWereMade) {
  detail::refuse_thread_creation_at(5);
  try {
    Machine m({.nodes = 8, .engine = Engine::threads});
    ADD_FAILURE() << "the machine was made";
  } catch (const UsageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("node 5 of 8"));
    EXPECT_THAT(e.what(), HasSubstr("could create only 5"));
    EXPECT_THAT(e.what(), HasSubstr("fewer nodes"));
  }
  detail::refuse_thread_creation_at(-1);
  Machine m({.nodes = 8, .engine = Engine::threads});
  expect_healthy(m);
}

TEST(Misuse, MachineRunFromInsideANodeOfTheSameMachine) {
  for (Clock clock : {Clock::virtual_time, Clock::real_time}) {
    Machine m({.nodes = 3, .clock = clock, .time_scale = 1e-3});
    std::string e = failure(m, [&](Node& node) {
      if (node.rank() == 1) m.run([](Node&) {});
    });
    EXPECT_THAT(e, HasSubstr("node 1"));
    EXPECT_THAT(e, HasSubstr("Machine::run"));
    EXPECT_THAT(e, HasSubstr("same machine"));
    expect_healthy(m);
  }
  // Another machine may run inside a node (automatic selection does, to simulate).
  Machine outer({.nodes = 2});
  outer.run([](Node& node) {
    if (node.rank() != 0) return;
    Machine inner({.nodes = 2});
    inner.run([](Node&) {});
  });
}

TEST(Misuse, TagsAboveTheUserMaximumAreRefused) {
  Machine m({.nodes = 2});
  const Tag too_big = kMaxUserTag + 1;
  std::string e = failure(m, [&](Node& node) {
    int x = 0;
    if (node.rank() == 0) node.world().send(std::span<const int>(&x, 1), 1, too_big);
    else node.world().recv(std::span<int>(&x, 1), 0, 0);
  });
  EXPECT_THAT(e, HasSubstr("node 0"));
  EXPECT_THAT(e, HasSubstr("send to rank 1 tag " + std::to_string(too_big)));
  EXPECT_THAT(e, HasSubstr(std::to_string(kMaxUserTag)));
  // A user receive in a collective's tag space cannot take a collective's message.
  e = failure(m, [&](Node& node) {
    int x = 0;
    if (node.rank() == 1) node.world().recv(std::span<int>(&x, 1), 0, Tag{1} << 40);
    barrier(node.world());
  });
  EXPECT_THAT(e, HasSubstr("node 1"));
  EXPECT_THAT(e, HasSubstr("recv from rank 0"));
  EXPECT_THAT(e, HasSubstr("reserved for collective calls"));
  // The largest user tag itself is fine.
  m.run([&](Node& node) {
    int x = 7;
    if (node.rank() == 0) node.world().send(std::span<const int>(&x, 1), 1, kMaxUserTag);
    else node.world().recv(std::span<int>(&x, 1), 0, kMaxUserTag);
  });
  expect_healthy(m);
}

TEST(Misuse, NodesThatChooseDifferentAlgorithmsAreTold) {
  Machine m({.nodes = 4});
  std::string e = failure(m, [](Node& node) {
    long x = 1, y = 0;
    allreduce<long>(node.world(), std::span<const long>(&x, 1), std::span<long>(&y, 1),
                    ops::sum<long>(), with(node.rank() == 3 ? "ring" : "recursive_doubling"));
  });
  EXPECT_THAT(e, HasSubstr("the algorithms differ"));
  EXPECT_THAT(e, HasSubstr("ring"));
  EXPECT_THAT(e, HasSubstr("recursive_doubling"));
  EXPECT_THAT(e, HasSubstr("node 3"));
  // Counts that differ between members of a v-variant: said so, whatever the algorithm.
  e = failure(m, [](Node& node) {
    std::vector<std::size_t> counts{1, 2, 3, 4};
    if (node.rank() == 2) counts[0] = 0;
    std::vector<std::size_t> displs{0, 1, 3, 6};
    std::vector<int> send(counts[node.rank()]), recv(10);
    gatherv<int>(node.world(), send, recv, counts, displs, 0);
  });
  EXPECT_THAT(e, HasSubstr("the counts differ"));
  expect_healthy(m);
}

// A node that skips a collective: the others are reported as deadlocked. How soon is
// printed, not asserted (the suite runs on loaded machines).
TEST(Misuse, ANodeThatSkipsACollectiveIsReported) {
  Machine m({.nodes = 8});
  for (int round = 0; round < 3; ++round) {
    const auto t0 = std::chrono::steady_clock::now();
    std::string e = failure(m, [](Node& node) {
      if (node.rank() != 5) barrier(node.world());
    });
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_THAT(e, HasSubstr("deadlock"));
    // Each waiting node names its barrier algorithm's partner; the cause is named apart.
    EXPECT_THAT(e, HasSubstr("\n  nodes 0, 1, 2, 3, 4, 6, 7 wait inside collective call 0 on "
                             "comm 0, which node 5 has not begun"))
        << e;
    std::printf("skipped collective reported after %.1f ms\n", ms);
  }
  expect_healthy(m);
}

// A message no receive takes ends the run with an error naming the receiving node, the
// sender, the tag and the size; so does a node that skips a collective whose other members
// finish without it (a broadcast's root at p = 2 sends and returns).
TEST(Misuse, AMessageLeftUnreceivedIsReported) {
  Machine m({.nodes = 3});
  try {
    m.run([](Node& node) {
      int x = 7;
      if (node.rank() == 0) node.world().send(std::span<const int>(&x, 1), 2, 5);
    });
    ADD_FAILURE() << "the run did not fail";
  } catch (const RunError& e) {
    EXPECT_EQ(e.kind(), RunError::Kind::unreceived);
    EXPECT_EQ(e.node(), 2);
    EXPECT_THAT(e.what(), HasSubstr("messages left unreceived"));
    EXPECT_THAT(e.what(), HasSubstr("node 2: from node 0, tag 5 on comm 0, 4 bytes"));
  }
  Machine two({.nodes = 2});
  const std::string e = failure(two, [](Node& node) {
    long x = 1;
    if (node.rank() == 0) broadcast(node.world(), std::span<long>(&x, 1), 0);
  });
  EXPECT_THAT(e, HasSubstr("node 1: from node 0, tag 0 of collective call 0 on comm 0, 8 bytes"));
  expect_healthy(m);
  expect_healthy(two);
}

// An irecv let go of (Comm::free) takes its message even when the message comes in after its
// node returned: no "left unreceived" then, and nothing is written into the receive buffer
// once the node's function has returned (it may have gone with the node's stack). A message
// beside it that no receive takes is still reported. Under rendezvous too, where the send
// waits for the freed receive; and a freed rendezvous isend whose receive is never posted is a
// message left unreceived, not a run that never ends.
TEST(Misuse, FreedRequestsOutliveTheirNodesWithoutWritingOrHanging) {
  for (const Clock clock : {Clock::virtual_time, Clock::real_time}) {
    for (const Protocol protocol : {Protocol::eager, Protocol::rendezvous}) {
      SCOPED_TRACE(std::string(to_string(clock)) + ", " + to_string(protocol));
      MachineConfig config;
      config.nodes = 2;
      config.clock = clock;
      config.model.protocol = protocol;
      config.engine = Engine::threads;  // node 0 waits for node 1 by sleeping: not on one worker
      Machine m(config);
      for (const bool stray : {false, true}) {
        std::vector<int> kept(1, -1);
        std::atomic<bool> let_go{false};
        auto body = [&](Node& node) {
          const Comm& c = node.world();
          if (node.rank() == 1) {
            Request r = c.irecv(std::span<int>(kept), 0, 3);
            c.free(r);
            let_go.store(true);
            return;
          }
          // Bounded: node 1 lets go of its irecv at once.
          for (int i = 0; i < 5000 && !let_go.load(); ++i) {
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          }
          const int x = 7;
          c.send(std::span<const int>(&x, 1), 1, 3);
          if (stray) {
            Request s = c.isend(std::span<const int>(&x, 1), 1, 4);
            c.free(s);
          }
        };
        if (stray) {
          EXPECT_THAT(failure(m, body), HasSubstr("node 1: from node 0, tag 4 on comm 0, 4 bytes"));
        } else {
          EXPECT_NO_THROW(m.run(body));
        }
        EXPECT_TRUE(let_go.load());
        EXPECT_EQ(kept[0], -1) << "written after node 1 returned";
      }
      expect_healthy(m);
    }
  }
}

// A receive that waits under one tag while its message waits under another: the deadlock
// report names the message that waits (sender, tag, size).
TEST(Misuse, ADeadlockOnAWrongTagNamesTheMessageThatWaits) {
  Machine m({.nodes = 2});
  const std::string e = failure(m, [](Node& node) {
    std::int64_t x = 3;
    if (node.rank() == 0) node.world().send(std::span<const std::int64_t>(&x, 1), 1, 4);
    else node.world().recv(std::span<std::int64_t>(&x, 1), 0, 5);
  });
  EXPECT_THAT(e, HasSubstr("deadlock"));
  EXPECT_THAT(e, HasSubstr("node 1: recv from rank 0 tag 5 on comm 0 (a message from node 0 "
                           "waits under tag 4, 8 bytes)"));
  expect_healthy(m);
}

// Tags print one way in every message: a user tag as "tag 7", a collective call's as its
// tag within the call and the call's number on the comm.
TEST(Misuse, TagsPrintOneWay) {
  EXPECT_EQ(tag_text(7), "tag 7");
  EXPECT_EQ(tag_text(kAnyTag), "any tag");
  EXPECT_EQ(tag_text((Tag{1} << 40) + (Tag{3} << 20) + 2), "tag 2 of collective call 3");
  Machine m({.nodes = 8});
  const std::string e = failure(m, [](Node& node) {
    if (node.rank() != 5) barrier(node.world());
  });
  EXPECT_THAT(e, HasSubstr("of collective call 0 on comm 0"));
  EXPECT_THAT(e, ::testing::Not(HasSubstr("1099511627776")));
  EXPECT_THAT(e, ::testing::Not(HasSubstr("collective tag")));
}

// Counts and their nouns agree: "1 item", "2 bytes".
TEST(Misuse, OneItemIsOneItem) {
  Machine m({.nodes = 2});
  const std::string e = failure(m, [](Node& node) {
    std::int32_t x = 1;
    char small[2];
    if (node.rank() == 0) node.world().send(std::span<const std::int32_t>(&x, 1), 1, 0);
    else node.world().recv_raw(small, sizeof small, 1, 0, 0);
  });
  EXPECT_THAT(e, HasSubstr("message of 4 bytes (1 item) does not fit the receive buffer of 2 "
                           "bytes"));
  EXPECT_EQ(counted(1, "item"), "1 item");
  EXPECT_EQ(counted(0, "item"), "0 items");
}

}  // namespace
}  // namespace vmc
