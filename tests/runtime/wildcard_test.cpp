// Receives from any source or of any tag, probes, matched probes, cancel, the list
// completions (wait_some, test_any, test_some, test_all) and completed (a query that leaves
// the request alone) on the virtual clock: each decided in
// model time, so that the matches and the times are the same on every run, on both engines,
// whatever the thread schedule (schedule perturbation shuffles it here). Also MPI's rules
// that hold whatever the time: receives take messages in the order they were posted, a probed
// message is the one the next matching receive takes, a wildcard tag never takes a
// collective's message. Synchronous sends, and the transports that refuse all this.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <numeric>
#include <string>
#include <vector>

#include "runtime/machine.hpp"

namespace vmc {
namespace {

using ::testing::HasSubstr;

constexpr double kAlpha = 10e-6, kBeta = 1e-9;

MachineConfig config(int p, Engine engine, std::uint64_t perturb = 0) {
  return {.nodes = p,
          .model = {.alpha = kAlpha, .beta = kBeta},
          .perturb_seed = perturb,
          .engine = engine};
}

std::string run_error(Machine& m, const std::function<void(Node&)>& fn) {
  try {
    m.run(fn);
  } catch (const RunError& e) {
    return e.what();
  }
  return "(no error)";
}

// Every other rank computes for a time that depends on its rank (so they finish in an order
// that is not the rank order), then sends its rank to rank 0; rank 0 receives them all from
// any source and records the order. Returns the order and the run's time.
struct Arrivals {
  std::vector<int> sources;
  std::vector<long long> tags;
  double time = 0;
  bool operator==(const Arrivals&) const = default;
};
Arrivals arrivals(const MachineConfig& cfg) {
  Machine m(cfg);
  const int p = cfg.nodes;
  Arrivals out;
  const RunResult r = m.run([&](Node& node) {
    const Comm& c = node.world();
    const int me = c.rank();
    if (me != 0) {
      node.charge_compute(1e-6 * ((me * 7) % p));  // finishing order: not the rank order
      c.send(std::span<const int>(&me, 1), 0, 100 + me);
      return;
    }
    for (int k = 1; k < p; ++k) {
      int x = -1;
      Status st;
      c.recv_raw(&x, sizeof x, sizeof x, kAnySource, kAnyTag, &st);
      EXPECT_EQ(x, st.source);
      EXPECT_EQ(st.tag, 100 + st.source);
      EXPECT_EQ(st.bytes, sizeof x);
      EXPECT_EQ(st.items, 1u);
      out.sources.push_back(st.source);
      out.tags.push_back(st.tag);
    }
  });
  out.time = r.time();
  return out;
}

TEST(Wildcards, AnySourceTakesTheFirstInVirtualTime) {
  const int p = 13;
  // The expected order: by compute time, (me * 7) % p microseconds; all distinct.
  std::vector<int> expected(p - 1);
  std::iota(expected.begin(), expected.end(), 1);
  std::sort(expected.begin(), expected.end(),
            [&](int a, int b) { return (a * 7) % p < (b * 7) % p; });
  const Arrivals first = arrivals(config(p, Engine::threads));
  EXPECT_EQ(first.sources, expected);
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    for (std::uint64_t seed : {0, 1, 2, 3, 4, 5}) {
      EXPECT_EQ(arrivals(config(p, engine, seed)), first) << "seed " << seed;
    }
  }
}

TEST(Wildcards, TiesGoToTheLowerSourceRank) {
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    Machine m(config(9, engine, 7));
    std::vector<int> order;
    m.run([&](Node& node) {
      const Comm& c = node.world();
      const int me = c.rank();
      if (me != 0) {
        c.send(std::span<const int>(&me, 1), 0, 0);
        return;
      }
      for (int k = 1; k < c.size(); ++k) {
        int x = -1;
        c.recv_raw(&x, sizeof x, sizeof x, kAnySource, 0);
        order.push_back(x);
      }
    });
    EXPECT_EQ(order, (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
  }
}

TEST(Wildcards, ReceivesTakeMessagesInTheOrderTheyArePosted) {
  // Rank 1 sends 10, 11, 12, 13 with one tag. Rank 0 posts an irecv from any source, then a
  // blocking receive from rank 1, then an irecv of any tag from rank 1, then a receive from
  // rank 1: each takes the message of its place (the first posted, the first message).
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    for (std::uint64_t seed : {0, 3, 9}) {
      Machine m(config(2, engine, seed));
      m.run([&](Node& node) {
        const Comm& c = node.world();
        if (c.rank() == 1) {
          for (int v = 10; v < 14; ++v) c.send(std::span<const int>(&v, 1), 0, 5);
          return;
        }
        int a = -1, b = -1, d = -1, e = -1;
        Request ra = c.irecv_raw(&a, sizeof a, sizeof a, kAnySource, 5);
        c.recv_raw(&b, sizeof b, sizeof b, 1, 5);
        Request rd = c.irecv_raw(&d, sizeof d, sizeof d, 1, kAnyTag);
        c.recv_raw(&e, sizeof e, sizeof e, 1, 5);
        Status sa, sd;
        c.wait(rd, &sd);
        c.wait(ra, &sa);
        EXPECT_EQ(a, 10);
        EXPECT_EQ(b, 11);
        EXPECT_EQ(d, 12);
        EXPECT_EQ(e, 13);
        EXPECT_EQ(sa.source, 1);
        EXPECT_EQ(sd.tag, 5);
      });
    }
  }
}

TEST(Wildcards, AnyTagNeverTakesACollectivesMessage) {
  // Rank 1 is inside a "collective" (a call's tag space) when it sends to rank 0, and sends
  // a user message after it; rank 0's receive of any tag takes the user message.
  Machine m(config(2, Engine::threads));
  m.run([&](Node& node) {
    const Comm& c = node.world();
    const Tag base = c.begin_collective({.operation = "test"});
    Comm::CollectiveScope scope(c);
    if (c.rank() == 1) {
      const int inner = 1, user = 2;
      c.send(std::span<const int>(&inner, 1), 0, base);
      c.send(std::span<const int>(&user, 1), 0, 3);
      return;
    }
    int x = -1;
    Status st;
    c.recv_raw(&x, sizeof x, sizeof x, kAnySource, kAnyTag, &st);
    EXPECT_EQ(x, 2);
    EXPECT_EQ(st.tag, 3);
    c.recv_raw(&x, sizeof x, sizeof x, 1, base);
    EXPECT_EQ(x, 1);
  });
}

TEST(Wildcards, TimesAreTheModelsAndTheSameOnEveryRun) {
  // Rank 1 computes 1 ms, then sends 1000 items; rank 0 receives from any source at once:
  // it waits until the message ends, 1 ms + alpha + 1000 beta.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    Machine m(config(2, engine));
    double got = -1;
    const RunResult r = m.run([&](Node& node) {
      const Comm& c = node.world();
      std::vector<int> x(1000, 4);
      if (c.rank() == 1) {
        node.charge_compute(1e-3);
        c.send(std::span<const int>(x), 0, 0);
        return;
      }
      c.recv_raw(x.data(), x.size() * sizeof(int), sizeof(int), kAnySource, kAnyTag);
      got = c.now();
    });
    EXPECT_NEAR(got, 1e-3 + kAlpha + 1000 * kBeta, 1e-12);
    EXPECT_EQ(r.time_ps(), to_picos(1e-3) + to_picos(kAlpha) + 1000 * to_picos(kBeta));
  }
}

TEST(Probes, ProbeThenReceiveTakesTheProbedMessage) {
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    Machine m(config(5, engine, 11));
    m.run([&](Node& node) {
      const Comm& c = node.world();
      const int me = c.rank();
      if (me != 0) {
        node.charge_compute(1e-6 * (5 - me));  // rank 4 first
        std::vector<int> x(me, me);
        c.send(std::span<const int>(x), 0, me);
        return;
      }
      for (int k = 1; k < c.size(); ++k) {
        const Status st = c.probe(kAnySource, kAnyTag);
        EXPECT_EQ(st.source, c.size() - k);
        EXPECT_EQ(st.items, static_cast<std::size_t>(st.source));
        std::vector<int> x(st.items, -1);
        Status got;
        c.recv_raw(x.data(), x.size() * sizeof(int), sizeof(int), kAnySource, kAnyTag, &got);
        EXPECT_EQ(got.source, st.source);
        EXPECT_EQ(x, std::vector<int>(st.items, st.source));
      }
    });
  }
}

TEST(Probes, ALoopOfIprobesEndsWhenTheMessageArrives) {
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    Machine m(config(2, engine));
    int loops = 0;
    double found_at = 0;
    m.run([&](Node& node) {
      const Comm& c = node.world();
      int x = 7;
      if (c.rank() == 1) {
        node.charge_compute(1e-3);
        c.send(std::span<const int>(&x, 1), 0, 4);
        return;
      }
      Status st;
      while (!c.iprobe(1, 4, &st)) ++loops;
      found_at = c.now();
      EXPECT_EQ(st.source, 1);
      c.recv(std::span<int>(&x, 1), 1, 4);
    });
    // The message's send is reached at 1 ms: the probe sees it then, not before.
    EXPECT_DOUBLE_EQ(found_at, 1e-3);
    EXPECT_GE(loops, 1);
  }
}

TEST(Probes, MatchedProbeTakesTheMessageFromMatching) {
  // Rank 0 mprobes from any source: the message it took cannot be taken by the receive it
  // posts after, which gets the next one.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    Machine m(config(3, engine, 5));
    m.run([&](Node& node) {
      const Comm& c = node.world();
      const int me = c.rank();
      if (me != 0) {
        node.charge_compute(1e-6 * me);
        c.send(std::span<const int>(&me, 1), 0, 9);
        return;
      }
      Status st;
      Request msg = c.mprobe(kAnySource, 9, &st);
      EXPECT_EQ(st.source, 1);
      int other = -1;
      c.recv_raw(&other, sizeof other, sizeof other, kAnySource, 9);
      EXPECT_EQ(other, 2);
      int x = -1;
      c.mrecv_into(msg, &x, sizeof x, sizeof x);
      Status got;
      c.wait(msg, &got);
      EXPECT_EQ(x, 1);
      EXPECT_EQ(got.source, 1);
      Request none;
      EXPECT_FALSE(c.improbe(kAnySource, kAnyTag, none, nullptr));
      EXPECT_TRUE(none.null());
    });
  }
}

TEST(Cancel, AReceiveNothingMatchesIsWithdrawn) {
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    Machine m(config(2, engine));
    m.run([&](Node& node) {
      const Comm& c = node.world();
      int x = 0;
      if (c.rank() == 1) {
        c.send(std::span<const int>(&x, 1), 0, 1);
        return;
      }
      int y = 0, z = 0;
      Request never = c.irecv(std::span<int>(&y, 1), 1, 99);
      Request wild = c.irecv_raw(&z, sizeof z, sizeof z, kAnySource, 98);
      EXPECT_TRUE(c.cancel(never));
      EXPECT_TRUE(c.cancel(wild));
      Status st;
      c.wait(never, &st);
      EXPECT_TRUE(st.cancelled);
      c.wait(wild, &st);
      EXPECT_TRUE(st.cancelled);
      // A receive whose message was sent by then is not withdrawn.
      Request r = c.irecv(std::span<int>(&x, 1), 1, 1);
      node.charge_compute(1e-3);
      EXPECT_FALSE(c.cancel(r));
      c.wait(r, &st);
      EXPECT_FALSE(st.cancelled);
      EXPECT_EQ(st.source, 1);
    });
  }
}

TEST(Lists, WaitSomeAndTheTestsAnswerInModelTime) {
  // Rank 0 posts a receive from each of ranks 1..4; rank k sends at k ms. wait_some at once
  // returns rank 1's alone; test_some right after finds nothing more; test_any after 2.5 ms of
  // work takes rank 2's; test_all is false until every one has arrived.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    Machine m(config(5, engine, 2));
    m.run([&](Node& node) {
      const Comm& c = node.world();
      const int me = c.rank();
      if (me != 0) {
        node.charge_compute(1e-3 * me);
        c.send(std::span<const int>(&me, 1), 0, 0);
        return;
      }
      std::vector<int> x(5, -1);
      std::vector<Request> rs;
      for (int k = 1; k <= 4; ++k) rs.push_back(c.irecv(std::span<int>(&x[k], 1), k, 0));
      std::vector<Status> st(rs.size());
      EXPECT_EQ(c.wait_some(rs, st), (std::vector<std::size_t>{0}));
      EXPECT_EQ(st[0].source, 1);
      EXPECT_TRUE(c.test_some(rs).empty());
      node.charge_compute(1.5e-3);  // now past 2 ms (+ alpha)
      std::size_t index = 99;
      EXPECT_TRUE(c.test_any(rs, index));
      EXPECT_EQ(index, 1u);
      EXPECT_FALSE(c.test_all(rs));
      while (!c.test_all(rs)) {
      }
      EXPECT_EQ(x, (std::vector<int>{-1, 1, 2, 3, 4}));
      EXPECT_TRUE(c.test_all(rs));  // all null
      EXPECT_TRUE(c.wait_some(rs).empty());
    });
  }
}

TEST(Lists, CompletedSaysWithoutCompleting) {
  // Rank 1 sends at 1 ms. Rank 0's completed() is false at first, then a loop of it ends
  // (each call that finds nothing moves rank 0 on), with the status the wait will give; the
  // request is still rank 0's to complete, and completing it gives the same. A send request
  // alike, and a receive whose message does not fit: completed, its error at the wait.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    Machine m(config(2, engine, 3));
    m.run([&](Node& node) {
      const Comm& c = node.world();
      int x = -1, y = 7;
      if (c.rank() == 1) {
        node.charge_compute(1e-3);
        c.send(std::span<const int>(&y, 1), 0, 5);
        c.send_raw(&y, sizeof y, 1, 0, 6);
        std::array<int, 2> two{1, 2};
        c.send(std::span<const int>(two), 0, 8);
        c.recv(std::span<int>(&y, 1), 0, 9);
        return;
      }
      Request r = c.irecv(std::span<int>(&x, 1), 1, 5);
      Status st;
      EXPECT_FALSE(c.completed(r, &st));
      const double before = c.now();
      while (!c.completed(r, &st)) {
      }
      EXPECT_GE(c.now(), 1e-3);
      EXPECT_GT(c.now(), before);
      EXPECT_EQ(st.source, 1);
      EXPECT_EQ(st.tag, 5);
      EXPECT_EQ(st.bytes, sizeof(int));
      EXPECT_EQ(st.items, 1u);
      EXPECT_FALSE(r.null());
      EXPECT_TRUE(c.completed(r));  // again: still completed, still not null
      Status done;
      EXPECT_EQ(c.wait(r, &done), 1u);
      EXPECT_TRUE(r.null());
      EXPECT_EQ(done.source, 1);
      EXPECT_EQ(done.tag, 5);
      EXPECT_EQ(x, 7);

      // A send: completed by now once its transfer has ended; test then completes it.
      Request s = c.isend(std::span<const int>(&y, 1), 1, 9);
      while (!c.completed(s)) {
      }
      EXPECT_TRUE(c.test(s));
      EXPECT_TRUE(s.null());

      // A receive whose message does not fit: completed; the wait says why.
      int small = 0;
      Request t = c.irecv(std::span<int>(&small, 1), 1, 8);
      Status got;
      while (!c.completed(t, &got)) {
      }
      EXPECT_EQ(got.source, 1);
      EXPECT_EQ(got.tag, 8);
      EXPECT_THROW(c.wait(t), TruncationError);
      int z = 0;
      c.recv(std::span<int>(&z, 1), 1, 6);
      EXPECT_THROW(c.completed(t), UsageError);  // completed by the wait already
    });
  }
}

TEST(Polling, ABoundedLoopOfTestsEndsWhenNothingElseCanHappen) {
  // Rank 0's synchronous isend cannot complete until rank 1 posts its receive, which rank 1
  // does only after rank 0's "go": rank 0's 1000 tests find nothing while nothing else can
  // happen, and the run goes on (at the same instant) instead of being called a deadlock.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    Machine m(config(2, engine));
    int failed_tests = 0;
    m.run([&](Node& node) {
      const Comm& c = node.world();
      int x = 5, go = 1;
      if (c.rank() == 0) {
        Request r = c.isend_raw(&x, sizeof x, 1, 1, 0, SendMode::synchronous);
        for (int k = 0; k < 1000; ++k) failed_tests += c.test(r) ? 0 : 1;
        c.send(std::span<const int>(&go, 1), 1, 1);
        c.wait(r);
        return;
      }
      c.recv(std::span<int>(&go, 1), 0, 1);
      c.recv(std::span<int>(&x, 1), 0, 0);
    });
    EXPECT_EQ(failed_tests, 1000);
  }
}

TEST(Polling, ABusyWaitOnTheClockIsADeadlockNotAHang) {
  // Virtual time moves with messages and charged work only: a loop that waits for the clock
  // to pass a value never ends, and the run says so (after poll_limit reads in a row).
  MachineConfig c = config(1, Engine::fibers);
  c.poll_limit = 1000;
  Machine m(c);
  const std::string e = run_error(m, [&](Node& node) {
    const double t0 = node.world().now();
    while (node.world().now() - t0 < 1.0) {
    }
  });
  EXPECT_THAT(e, HasSubstr("node 0 read its clock 1000 times in a row with nothing in between"));
}

TEST(Polling, ALoopOfProbesForWhatNeverComesIsADeadlockNotAHang) {
  MachineConfig c = config(2, Engine::threads);
  c.poll_limit = 1000;
  Machine m(c);
  const std::string e = run_error(m, [&](Node& node) {
    if (node.rank() == 0) {
      while (!node.world().iprobe(kAnySource, 3, nullptr)) {
      }
    }
  });
  EXPECT_THAT(e, HasSubstr("node 0: tests or probes again and again while nothing else can happen"));
}

TEST(Polling, ALoopOfTestsThatReadsTheClockMovesOnAsOneWithout) {
  // A clock read between two failed tests is nothing in between (docs/model.md): the loop
  // moves on in virtual time and sees the message at the time a wait does; before, it stayed
  // at one instant for ever. With nothing left to happen it is a deadlock, not a hang.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    SCOPED_TRACE(to_string(engine));
    std::vector<double> at;
    for (int reads : {-1, 0, 1, 3}) {  // -1: a wait instead of the loop
      Machine m(config(2, engine));
      double got_at = -1;
      long tests = 0;
      m.run([&](Node& node) {
        const Comm& c = node.world();
        int x = 0;
        if (c.rank() == 1) {
          node.charge_compute(1e-3);
          c.send(std::span<const int>(&x, 1), 0, 0);
          return;
        }
        Request r = c.irecv(std::span<int>(&x, 1), 1, 0);
        if (reads < 0) {
          c.wait(r);
        } else {
          while (!c.test(r) && tests < 100000) {
            ++tests;
            for (int k = 0; k < reads; ++k) (void)c.now();
          }
        }
        got_at = c.now();
      });
      if (reads >= 0) {
        EXPECT_LT(tests, 10) << reads << " clock reads a test";
      }
      at.push_back(got_at);
    }
    EXPECT_GT(at[0], 1e-3);
    for (double t : at) EXPECT_EQ(t, at[0]);
    MachineConfig c = config(2, engine);
    c.poll_limit = 1000;
    Machine m(c);
    const std::string e = run_error(m, [&](Node& node) {
      if (node.rank() != 0) return;
      int x = 0;
      Request r = node.world().irecv(std::span<int>(&x, 1), 1, 0);
      while (!node.world().test(r)) (void)node.world().now();
    });
    EXPECT_THAT(e, HasSubstr("node 0: tests or probes again and again while nothing else can happen"));
  }
}

TEST(Synchronous, ASynchronousSendWaitsForItsReceive) {
  Machine m(config(2, Engine::threads));
  double sent_at = 0;
  m.run([&](Node& node) {
    const Comm& c = node.world();
    int x = 1;
    if (c.rank() == 0) {
      c.send_raw(&x, sizeof x, 1, 1, 0, SendMode::synchronous);
      sent_at = c.now();
      return;
    }
    node.charge_compute(2e-3);
    c.recv(std::span<int>(&x, 1), 0, 0);
  });
  EXPECT_NEAR(sent_at, 2e-3 + kAlpha + kBeta, 1e-12);

  // Both ranks send synchronously first: neither receive is ever posted.
  const std::string e = run_error(m, [&](Node& node) {
    const Comm& c = node.world();
    int x = 1;
    c.send_raw(&x, sizeof x, 1, 1 - c.rank(), 0, SendMode::synchronous);
    c.recv(std::span<int>(&x, 1), 1 - c.rank(), 0);
  });
  EXPECT_THAT(e, HasSubstr("synchronous sends wait for receives that are never posted"));
}

TEST(Synchronous, ANodeDoesNotRunPastASynchronousSendThatNeverCompletes) {
  // Rank 0's synchronous send completes only once rank 1 posts its receive, which rank 1
  // does after rank 0's next message: in virtual time rank 0 never gets past its wait, and
  // in the run it does not either (it waits there for the simulation), so the deadlock is
  // found while both wait, with both waits named, and rank 0 never goes on.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    Machine m(config(2, engine));
    std::atomic<bool> went_on{false};
    RunError error(RunError::Kind::node_threw, "", -1, {});
    try {
      m.run([&](Node& node) {
        const Comm& c = node.world();
        int x = 1, go = 0;
        if (c.rank() == 0) {
          Request r = c.isend_raw(&x, sizeof x, 1, 1, 5, SendMode::synchronous);
          c.wait(r);
          went_on = true;
          c.send(std::span<const int>(&go, 1), 1, 123);
        } else {
          c.recv(std::span<int>(&go, 1), 0, 123);
          c.recv(std::span<int>(&x, 1), 0, 5);
        }
      });
    } catch (const RunError& e) {
      error = e;
    }
    EXPECT_EQ(error.kind(), RunError::Kind::deadlock) << error.what();
    EXPECT_THAT(error.what(), HasSubstr("synchronous sends wait for receives that are never posted"));
    EXPECT_EQ(error.blocked().size(), 2u);
    EXPECT_FALSE(went_on.load());
  }
}

TEST(Refusals, TheRealClockAndTheSpreadMachineSaySo) {
  Machine m({.nodes = 2, .clock = Clock::real_time});
  const std::string e = run_error(m, [&](Node& node) {
    int x = 0;
    if (node.rank() == 0) node.world().recv_raw(&x, sizeof x, sizeof x, kAnySource, 0);
  });
  EXPECT_THAT(e, HasSubstr("node 0: recv from any rank tag 0: receives from any source"));
  const std::string p = run_error(m, [&](Node& node) {
    if (node.rank() == 0) node.world().iprobe(1, 0, nullptr);
  });
  EXPECT_THAT(p, HasSubstr("probes are offered on the virtual clock only"));
}

TEST(Replay, ContentionFreePassFollowsTheRunsMatches) {
  // On a ring with exclusive links, senders' messages contend; rank 0 takes them from any
  // source. The contention-free replay after the run must take the same messages (or the
  // data would not follow it); the run's time is at least the contention-free time.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    Machine m({.topology = parse_topology("ring:8"),
               .model = {.alpha = kAlpha, .beta = kBeta, .routing = Routing::wormhole},
               .engine = engine});
    const RunResult r = m.run([&](Node& node) {
      const Comm& c = node.world();
      std::vector<int> x(4000, c.rank());
      if (c.rank() != 0) {
        c.send(std::span<const int>(x), 0, 0);
        return;
      }
      for (int k = 1; k < c.size(); ++k) {
        Status st;
        c.recv_raw(x.data(), x.size() * sizeof(int), sizeof(int), kAnySource, 0, &st);
        EXPECT_EQ(x[17], st.source);
      }
    });
    EXPECT_GE(r.stats().time, r.stats().free_time);
    EXPECT_EQ(r.stats().messages, 7u);
  }
}

}  // namespace
}  // namespace vmc
