// Point-to-point programs on every p: a token around a ring, a binomial broadcast and an
// all-to-all exchange, each checked against the data it must deliver; split sub-groups;
// reuse of one machine for many runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "runtime/machine.hpp"
#include "tests/runtime/programs.hpp"
#include "tests/sanitized.hpp"

namespace vmc {
namespace {

// Under a sanitizer (tests/sanitized.hpp) fewer node counts of every kind.
std::vector<int> sizes() {
  if (testing::kSanitized) return {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 31, 32, 33, 63, 64, 1024};
  std::vector<int> ps;
  for (int p = 1; p <= 64; ++p) ps.push_back(p);
  ps.push_back(256);
  ps.push_back(1024);
  return ps;
}

// Node 0 starts a token; each node adds its rank and passes it on; node 0 checks the sum.
void token_ring(Machine& m) {
  const int p = m.size();
  std::atomic<long> final_token{-1};
  m.run([&](Node& node) {
    const Comm& c = node.world();
    const int me = c.rank();
    if (p == 1) {
      final_token = 0;
      return;
    }
    long token = 0;
    if (me == 0) {
      c.send(std::span<const long>(&token, 1), 1, 7);
      c.recv(std::span<long>(&token, 1), p - 1, 7);
      final_token = token;
    } else {
      c.recv(std::span<long>(&token, 1), me - 1, 7);
      token += me;
      c.send(std::span<const long>(&token, 1), (me + 1) % p, 7);
    }
  });
  EXPECT_EQ(final_token.load(), long(p) * (p - 1) / 2) << "p = " << p;
}

// Binomial broadcast from `root` written with sends and receives (003 Alg. 4.1, any p).
void binomial_broadcast(Machine& m, int root, std::size_t n) {
  const int p = m.size();
  std::vector<std::vector<int>> got(p);
  m.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> data(n, -1);
    if (c.rank() == root) std::iota(data.begin(), data.end(), 100);
    broadcast(c, data, root);
    got[c.rank()] = data;
  });
  std::vector<int> expect(n);
  std::iota(expect.begin(), expect.end(), 100);
  for (int r = 0; r < p; ++r) EXPECT_EQ(got[r], expect) << "p = " << p << " root " << root;
}

// Every node sends a distinct block to every other node (shifted ring order).
void all_to_all(Machine& m) {
  const int p = m.size();
  std::atomic<int> bad{0};
  m.run([&](Node& node) {
    const Comm& c = node.world();
    const int me = c.rank();
    for (int k = 1; k < p; ++k) {
      int to = (me + k) % p, from = (me - k + p) % p;
      std::vector<int> out = {me, to, me * 1000 + to};
      std::vector<int> in(3, -1);
      c.sendrecv(std::span<const int>(out), to, std::span<int>(in), from, 11);
      if (in != std::vector<int>{from, me, from * 1000 + me}) ++bad;
    }
  });
  EXPECT_EQ(bad.load(), 0) << "p = " << p;
}

TEST(PointToPoint, TokenRingEveryP) {
  for (int p : sizes()) {
    Machine m({.nodes = p});
    token_ring(m);
  }
}

TEST(PointToPoint, BinomialBroadcastEveryPAndRoot) {
  for (int p : sizes()) {
    Machine m({.nodes = p});
    if (p <= 16) {
      for (int root = 0; root < p; ++root) binomial_broadcast(m, root, 5);
    } else {
      binomial_broadcast(m, 0, 100);
      binomial_broadcast(m, p - 1, 1);
      binomial_broadcast(m, p / 3, 0);
    }
  }
}

TEST(PointToPoint, AllToAllEveryP) {
  for (int p : sizes()) {
    if (p > 256) continue;  // p^2 messages; 1024 is covered by the ring and the broadcast
    Machine m({.nodes = p});
    all_to_all(m);
  }
}

TEST(PointToPoint, SameTagSamePairNeverOvertakes) {
  Machine m({.nodes = 2});
  std::vector<int> got;
  m.run([&](Node& node) {
    const Comm& c = node.world();
    if (c.rank() == 0) {
      for (int i = 0; i < 1000; ++i) c.send(std::span<const int>(&i, 1), 1, 5);
    } else {
      for (int i = 0; i < 1000; ++i) {
        int x = -1;
        c.recv(std::span<int>(&x, 1), 0, 5);
        got.push_back(x);
      }
    }
  });
  ASSERT_EQ(got.size(), 1000u);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(got[i], i);
}

TEST(PointToPoint, TagsSelectMessagesOutOfArrivalOrder) {
  Machine m({.nodes = 2});
  std::vector<int> got;
  m.run([&](Node& node) {
    const Comm& c = node.world();
    if (c.rank() == 0) {
      for (int t = 0; t < 5; ++t) c.send(std::span<const int>(&t, 1), 1, t);
    } else {
      for (int t = 4; t >= 0; --t) {
        int x = -1;
        c.recv(std::span<int>(&x, 1), 0, t);
        got.push_back(x);
      }
    }
  });
  EXPECT_EQ(got, (std::vector<int>{4, 3, 2, 1, 0}));
}

// A mailbox holding messages under many keys at once (the first few kept in the node, the
// rest in its table, which grows and closes the gaps its takes leave): each key's messages
// are taken oldest first, whatever order the keys are asked for in.
TEST(PointToPoint, ManyKeysWaitingEachGivesItsMessagesInOrder) {
  constexpr int kTags = 200, kRounds = 4;
  for (Engine engine : {Engine::fibers, Engine::threads}) {
    Machine m({.nodes = 2, .engine = engine});
    std::vector<int> got, want;
    m.run([&](Node& node) {
      const Comm& c = node.world();
      if (c.rank() == 0) {
        for (int r = 0; r < kRounds; ++r) {
          for (int t = 0; t < kTags; ++t) {
            const int x = t * 10 + r;
            c.send(std::span<const int>(&x, 1), 1, t);
          }
        }
      } else {
        for (int k = 0; k < kTags; ++k) {
          const int t = (k * 73) % kTags;  // every tag once, scattered
          for (int r = 0; r < kRounds; ++r) {
            int x = -1;
            c.recv(std::span<int>(&x, 1), 0, t);
            got.push_back(x);
            want.push_back(t * 10 + r);
          }
        }
      }
    });
    EXPECT_EQ(got, want) << (engine == Engine::fibers ? "fibers" : "threads");
  }
}

TEST(PointToPoint, ReceiveReturnsItemCount) {
  Machine m({.nodes = 2});
  std::size_t count = 0;
  m.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<double> buf(10, 0.0);
    if (c.rank() == 0) c.send(std::span<const double>(buf.data(), 3), 1, 0);
    else count = c.recv(std::span<double>(buf), 0, 0);
  });
  EXPECT_EQ(count, 3u);
}

// Long sendrecvs lend their send buffers: the receiver copies straight from the sender's
// buffer, and the sender takes the loan back before it returns. Each node overwrites its
// buffer the moment its sendrecv returns: a receiver that copied later would see it.
TEST(PointToPoint, LongSendrecvsDeliverWhatWasSentOnBothEngines) {
  for (Engine engine : {Engine::fibers, Engine::threads}) {
    for (int p : {2, 3, 6}) {
      Machine m({.topology = parse_topology("full:" + std::to_string(p)), .engine = engine});
      std::atomic<int> bad{0};
      m.run([&](Node& node) {
        const Comm& c = node.world();
        const int me = c.rank();
        constexpr int kItems = 64 * 1024;
        std::vector<int> out(kItems), in(kItems);
        for (int round = 0; round < 8; ++round) {
          const int k = 1 + round % (p - 1);
          const int to = (me + k) % p, from = (me - k + p) % p;
          std::iota(out.begin(), out.end(), me * 1'000'000 + round);
          c.sendrecv(std::span<const int>(out), to, std::span<int>(in), from, 3);
          std::fill(out.begin(), out.end(), -1);
          for (int i = 0; i < kItems; i += 997) {
            if (in[i] != from * 1'000'000 + round + i) ++bad;
          }
        }
      });
      EXPECT_EQ(bad.load(), 0) << to_string(engine) << " p = " << p;
    }
  }
}

// A long send to a receiver already blocked in its recv lends the send buffer too, and
// takes it back before the send returns: the sender overwrites its buffer at once, so a
// receiver that copied later would see it. The sender waits until the receiver has said
// it is about to receive, then a little more, so that most rounds find it blocked.
TEST(PointToPoint, LongSendsToAWaitingReceiverDeliverWhatWasSentOnBothEngines) {
  for (Engine engine : {Engine::fibers, Engine::threads}) {
    Machine m({.topology = parse_topology("full:2"), .engine = engine, .workers = 2});
    std::atomic<int> bad{0}, ready{-1};
    m.run([&](Node& node) {
      const Comm& c = node.world();
      constexpr int kItems = 48 * 1024;
      std::vector<int> buf(kItems);
      for (int round = 0; round < 12; ++round) {
        if (c.rank() == 0) {
          // Bounded: a receiver that never gets here must not hang the test.
          const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
          while (ready.load() != round && std::chrono::steady_clock::now() < until) {
            std::this_thread::yield();
          }
          std::this_thread::sleep_for(std::chrono::microseconds(500));
          std::iota(buf.begin(), buf.end(), round * 1'000'000);
          c.send(std::span<const int>(buf), 1, round);
          std::fill(buf.begin(), buf.end(), -1);
        } else {
          ready.store(round);
          c.recv(std::span<int>(buf), 0, round);
          for (int i = 0; i < kItems; i += 499) {
            if (buf[i] != round * 1'000'000 + i) ++bad;
          }
        }
      }
    });
    EXPECT_EQ(bad.load(), 0) << to_string(engine);
  }
}

// The receiver wants a lent message only after the sender's sendrecv has returned (it takes
// another tag first): the sender copies its bytes into the message before it goes on.
TEST(PointToPoint, ALongSendrecvReceivedLaterKeepsItsBytes) {
  for (Engine engine : {Engine::fibers, Engine::threads}) {
    Machine m({.topology = parse_topology("full:3"), .engine = engine});
    std::vector<int> got;
    m.run([&](Node& node) {
      const Comm& c = node.world();
      constexpr int kItems = 50'000;
      std::vector<int> out(kItems), in(kItems);
      if (c.rank() == 0) {
        std::iota(out.begin(), out.end(), 5);
        c.sendrecv(std::span<const int>(out), 1, std::span<int>(in), 2, 0);
        std::fill(out.begin(), out.end(), -1);
        c.send(std::span<const int>(out.data(), 1), 1, 7);
      } else if (c.rank() == 1) {
        c.recv(std::span<int>(in.data(), 1), 0, 7);
        c.recv(std::span<int>(in), 0, 0);
        got = in;
      } else {
        c.send(std::span<const int>(out), 0, 0);
      }
    });
    std::vector<int> expect(50'000);
    std::iota(expect.begin(), expect.end(), 5);
    EXPECT_EQ(got, expect) << to_string(engine);
  }
}

// A long sendrecv whose receiver fails (its buffer is too small): the error names the
// node, the sender's loan comes back, and the machine runs again.
TEST(PointToPoint, ALongSendrecvIntoTooSmallABufferIsAnError) {
  Machine m({.topology = parse_topology("full:2")});
  std::string error;
  try {
    m.run([&](Node& node) {
      const Comm& c = node.world();
      std::vector<int> out(40'000, 1), in(c.rank() == 1 ? 10 : 40'000);
      c.sendrecv(std::span<const int>(out), 1 - c.rank(), std::span<int>(in), 1 - c.rank(), 0);
    });
  } catch (const RunError& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("node 1"), std::string::npos) << error;
  EXPECT_NE(error.find("does not fit"), std::string::npos) << error;
  token_ring(m);
}

TEST(Split, RowsColumnsAndSubsets) {
  const int rows = 4, cols = 6;
  Machine m({.nodes = rows * cols});
  std::vector<int> row_sum(rows * cols, -1), col_size(rows * cols, -1), rev_rank(rows * cols, -1);
  std::vector<int> odd_rank(rows * cols, -2);
  m.run([&](Node& node) {
    const Comm& w = node.world();
    const int me = w.rank();
    Comm row = w.split(me / cols, me % cols);
    Comm col = w.split(me % cols, me / cols);
    Comm rev = w.split(0, -me);
    Comm odd = w.split(me % 2 == 1 ? 0 : -1, me);
    // Sum the ranks of the row with a token around the row's ranks.
    int token = 0;
    if (row.rank() == 0) {
      token = me;
      row.send(std::span<const int>(&token, 1), 1, 0);
      row.recv(std::span<int>(&token, 1), row.size() - 1, 0);
    } else {
      row.recv(std::span<int>(&token, 1), row.rank() - 1, 0);
      token += me;
      row.send(std::span<const int>(&token, 1), (row.rank() + 1) % row.size(), 0);
    }
    if (row.rank() == 0) row_sum[me] = token;
    col_size[me] = col.size();
    rev_rank[me] = rev.rank();
    odd_rank[me] = odd.valid() ? odd.rank() : -1;
    EXPECT_EQ(row.world_rank(row.rank()), me);
  });
  for (int r = 0; r < rows; ++r) {
    int first = r * cols;
    EXPECT_EQ(row_sum[first], cols * first + cols * (cols - 1) / 2);
  }
  for (int i = 0; i < rows * cols; ++i) {
    EXPECT_EQ(col_size[i], rows);
    EXPECT_EQ(rev_rank[i], rows * cols - 1 - i);
    EXPECT_EQ(odd_rank[i], i % 2 == 1 ? i / 2 : -1);
  }
}

// create_group: only the members call; each gets the rank of its place in the list; two
// calls with one list and tag make two groups; another tag, another group.
TEST(CreateGroup, MembersOnlyInTheOrderGiven) {
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    const int p = 9;
    Machine m({.nodes = p, .engine = engine});
    std::vector<int> rank_in(p, -1), size_of(p, -1), sum(p, -1), distinct(p, 0);
    m.run([&](Node& node) {
      const Comm& w = node.world();
      const int me = w.rank();
      if (me % 3 == 0) return;  // 0, 3 and 6 never call
      // The others, listed backwards.
      std::vector<int> members;
      for (int r = p - 1; r >= 0; --r) {
        if (r % 3 != 0) members.push_back(r);
      }
      Comm g = w.create_group(members, 5);
      Comm again = w.create_group(members, 5);
      Comm other = w.create_group(members, 6);
      rank_in[me] = g.rank();
      size_of[me] = g.size();
      distinct[me] = g.id() != again.id() && g.id() != other.id() && again.id() != other.id();
      EXPECT_EQ(g.world_rank(g.rank()), me);
      // A token around the new group sums its world ranks.
      int token = 0;
      const int n = g.size();
      if (g.rank() == 0) {
        token = me;
        g.send(std::span<const int>(&token, 1), 1, 0);
        g.recv(std::span<int>(&token, 1), n - 1, 0);
        sum[me] = token;
      } else {
        g.recv(std::span<int>(&token, 1), g.rank() - 1, 0);
        token += me;
        g.send(std::span<const int>(&token, 1), (g.rank() + 1) % n, 0);
      }
    });
    const std::vector<int> order{8, 7, 5, 4, 2, 1};
    for (int i = 0; i < static_cast<int>(order.size()); ++i) {
      EXPECT_EQ(rank_in[order[i]], i);
      EXPECT_EQ(size_of[order[i]], 6);
      EXPECT_EQ(distinct[order[i]], 1);
    }
    EXPECT_EQ(sum[8], 8 + 7 + 5 + 4 + 2 + 1);
    EXPECT_EQ(rank_in[0], -1);
  }
}

TEST(CreateGroup, RefusesABadList) {
  Machine m({.nodes = 4});
  for (const std::vector<int>& bad :
       {std::vector<int>{0, 4}, std::vector<int>{1, 1}, std::vector<int>{2, 3}}) {
    std::string error;
    try {
      m.run([&](Node& node) {
        if (node.rank() == 1) node.world().create_group(bad, 0);
      });
    } catch (const RunError& e) {
      error = e.what();
    }
    EXPECT_NE(error.find("node 1: create_group: "), std::string::npos) << error;
  }
}

TEST(Reuse, ThousandConsecutiveRuns) {
  Machine m({.nodes = 8});
  for (int run = 0; run < 1000; ++run) {
    std::atomic<int> sum{0};
    m.run([&](Node& node) {
      const Comm& c = node.world();
      int x = c.rank() + run;
      int y = -1;
      c.sendrecv(std::span<const int>(&x, 1), (c.rank() + 1) % 8, std::span<int>(&y, 1),
                 (c.rank() + 7) % 8, 0);
      sum += y;
    });
    ASSERT_EQ(sum.load(), 28 + 8 * run) << "run " << run;
  }
}

}  // namespace
}  // namespace vmc
