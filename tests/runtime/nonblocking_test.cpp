// Nonblocking point to point (Comm::isend, irecv, wait, wait_all, wait_any, test): MPI's
// ordering rules, the model (every posted transfer is a message that starts when its ports
// and links allow), deterministic answers of wait_any and test in virtual time, and the
// errors: requests never completed, completed twice, buffers reused while in flight, and
// deadlocks among requests.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <latch>
#include <numeric>
#include <string>
#include <vector>

#include "runtime/machine.hpp"
#include "tests/sanitized.hpp"

namespace vmc {
namespace {

using ::testing::HasSubstr;

constexpr double kAlpha = 525e-6, kBeta = 2e-6;

Model model_with(Port port) {
  return {.alpha = kAlpha, .beta = kBeta, .port = port, .routing = Routing::wormhole};
}

std::string run_error(Machine& m, const std::function<void(Node&)>& fn) {
  try {
    m.run(fn);
  } catch (const RunError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Nonblocking, ReceivesMatchInTheOrderTheyArePosted) {
  // Node 0 sends 0, 1, 2, 3 with one tag; node 1 posts two irecvs, then a blocking recv,
  // then an irecv, and completes them in another order: each gets the message of its place
  // in the posting order (MPI's non-overtaking rule), on both clocks.
  for (Clock clock : {Clock::virtual_time, Clock::real_time}) {
    Machine m({.nodes = 2, .model = model_with(Port::all), .clock = clock});
    m.run([&](Node& node) {
      const Comm& c = node.world();
      if (c.rank() == 0) {
        for (int i = 0; i < 4; ++i) {
          std::vector<int> x(3 + i, i);
          c.send(std::span<const int>(x), 1, 7);
        }
        return;
      }
      std::vector<int> a(8), b(8), d(8), e(8);
      Request ra = c.irecv(std::span<int>(a), 0, 7);
      Request rb = c.irecv(std::span<int>(b), 0, 7);
      EXPECT_EQ(c.recv(std::span<int>(d), 0, 7), 5u);
      Request re = c.irecv(std::span<int>(e), 0, 7);
      EXPECT_EQ(c.wait(re), 6u);
      EXPECT_EQ(c.wait(rb), 4u);
      EXPECT_EQ(c.wait(ra), 3u);
      EXPECT_EQ(a[0], 0);
      EXPECT_EQ(b[0], 1);
      EXPECT_EQ(d[0], 2);
      EXPECT_EQ(e[0], 3);
      EXPECT_TRUE(ra.null() && rb.null() && re.null());
    });
  }
}

// Node 0 sends n items to each of nodes 1, 2 and 4 of hypercube:8 with isends and waits
// for all of them.
RunResult fan_out(Port port, std::size_t n, Clock clock = Clock::virtual_time) {
  Machine m({.topology = parse_topology("hypercube:8"), .model = model_with(port),
             .clock = clock});
  return m.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> x(n, 9);
    if (c.rank() == 0) {
      std::vector<Request> rs;
      for (int d : {1, 2, 4}) rs.push_back(c.isend(std::span<const int>(x), d, 0));
      const auto items = c.wait_all(rs);
      EXPECT_EQ(items, std::vector<std::size_t>(3, 0));
      for (const Request& r : rs) EXPECT_TRUE(r.null());
    } else if (c.rank() == 1 || c.rank() == 2 || c.rank() == 4) {
      std::vector<int> y(n);
      Request r = c.irecv(std::span<int>(y), 0, 0);
      EXPECT_EQ(c.wait(r), n);
      EXPECT_EQ(y, x);
    }
  });
}

TEST(Nonblocking, AllPortNodesSendToSeveralNeighboursAtOnce) {
  const std::size_t n = 1000;
  const Picos t = CostUnits(model_with(Port::all)).message(n);
  EXPECT_EQ(fan_out(Port::all, n).time_ps(), t);          // 000 §7: d-way all-port
  EXPECT_EQ(fan_out(Port::duplex, n).time_ps(), 3 * t);   // one send at a time
  EXPECT_EQ(fan_out(Port::exchange, n).time_ps(), 3 * t);
  EXPECT_EQ(fan_out(Port::half, n).time_ps(), 3 * t);
  // The real clock runs the same transfers beside the node (and is never faster).
  const RunResult real = fan_out(Port::all, 200, Clock::real_time);
  EXPECT_EQ(real.stats().messages, 3u);
  EXPECT_GE(real.time_ps(), CostUnits(model_with(Port::all)).message(200));
}

TEST(Nonblocking, DuplexOverlapsOneSendAndOneReceive) {
  // A ring shift written with isend and irecv: under duplex every node sends and receives
  // at once (one message time); under half ports the two serialise.
  for (Port port : {Port::duplex, Port::half}) {
    Machine m({.topology = parse_topology("ring:6"), .model = model_with(port)});
    auto r = m.run([&](Node& node) {
      const Comm& c = node.world();
      const int p = c.size();
      std::vector<int> out(100, c.rank()), in(100);
      Request rr = c.irecv(std::span<int>(in), (c.rank() + p - 1) % p, 0);
      Request rs = c.isend(std::span<const int>(out), (c.rank() + 1) % p, 0);
      std::vector<Request> both{rr, rs};
      c.wait_all(both);
      EXPECT_EQ(in[0], (c.rank() + p - 1) % p);
    });
    const Picos t = CostUnits(model_with(port)).message(100);
    if (port == Port::duplex) {
      EXPECT_EQ(r.time_ps(), t);
    } else {
      EXPECT_GT(r.time_ps(), t);
    }
  }
}

// Node 0 posts irecvs from nodes 1 and 2 (in that order) and calls wait_any twice. Node 1
// sends `long_items` at 0; node 2 computes `delay`, then sends `short_items`.
std::vector<std::size_t> race(std::size_t long_items, double delay, std::size_t short_items,
                              std::uint64_t perturb_seed = 0, RunResult* result = nullptr) {
  Machine m({.nodes = 3, .model = model_with(Port::all), .perturb_seed = perturb_seed});
  std::vector<std::size_t> order;
  RunResult r = m.run([&](Node& node) {
    const Comm& c = node.world();
    if (c.rank() == 0) {
      std::vector<int> a(long_items), b(short_items);
      std::vector<Request> rs{c.irecv(std::span<int>(a), 1, 0), c.irecv(std::span<int>(b), 2, 0)};
      order.push_back(c.wait_any(rs));
      order.push_back(c.wait_any(rs));
      EXPECT_EQ(c.wait_any(rs), kNoRequest);
    } else {
      if (c.rank() == 2 && delay > 0) c.charge_compute(delay);
      std::vector<int> x(c.rank() == 1 ? long_items : short_items, c.rank());
      c.send(std::span<const int>(x), 0, 0);
    }
  });
  if (result != nullptr) *result = r;
  return order;
}

TEST(Nonblocking, WaitAnyAnswersWithTheFirstToCompleteInModelTime) {
  // The long message from node 1 ends at alpha + 1000 beta; the short one from node 2,
  // sent 100 us later, at 100 us + alpha + 10 beta: node 2's comes first.
  EXPECT_EQ(race(1000, 100e-6, 10), (std::vector<std::size_t>{1, 0}));
  // Sent 5 ms later, the short one comes second.
  EXPECT_EQ(race(1000, 5e-3, 10), (std::vector<std::size_t>{0, 1}));
  // Equal messages at the same time: the lowest index first.
  EXPECT_EQ(race(10, 0, 10), (std::vector<std::size_t>{0, 1}));
}

TEST(Nonblocking, WaitAnyIsTheSameUnderAnyThreadSchedule) {
  RunResult first;
  const auto expected = race(1000, 100e-6, 10, 0, &first);
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    RunResult r;
    EXPECT_EQ(race(1000, 100e-6, 10, seed, &r), expected) << "seed " << seed;
    EXPECT_EQ(r.trace().hash(), first.trace().hash()) << "seed " << seed;
    EXPECT_EQ(r.time_ps(), first.time_ps());
  }
}

TEST(Nonblocking, ATestLoopEndsWhenTheRequestCompletes) {
  // A spin on test moves on with the machine's events; with work between the tests the
  // node's own time moves.
  for (double work : {0.0, 1e-4}) {
    Machine m({.nodes = 2, .model = model_with(Port::all)});
    int tests = 0;
    auto r = m.run([&](Node& node) {
      const Comm& c = node.world();
      std::vector<int> x(1000, 1);
      if (c.rank() == 0) {
        c.send(std::span<const int>(x), 1, 0);
        return;
      }
      Request req = c.irecv(std::span<int>(x), 0, 0);
      std::size_t items = 0;
      while (!c.test(req, &items)) {
        ++tests;
        if (work > 0) c.charge_compute(work);
      }
      EXPECT_EQ(items, 1000u);
    });
    const Picos t = CostUnits(model_with(Port::all)).message(1000);
    if (work == 0) {
      EXPECT_EQ(r.stats().node_time[1], t);
      EXPECT_GE(tests, 1);
    } else {
      // Tests at 0, 100 us, ..., until the first at or after t (2.525 ms): at 2.6 ms.
      const Picos step = to_picos(work);
      EXPECT_EQ(r.stats().node_time[1], (t + step - 1) / step * step);
      EXPECT_EQ(tests, (t + step - 1) / step);
    }
  }
}

TEST(Nonblocking, ARequestNeverCompletedIsAnError) {
  Machine m({.nodes = 2, .model = model_with(Port::all)});
  const std::string what = run_error(m, [&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> x(4);
    if (c.rank() == 0) c.isend(std::span<const int>(x), 1, 3);
    else c.recv(std::span<int>(x), 0, 3);
  });
  EXPECT_THAT(what, HasSubstr("node 0"));
  EXPECT_THAT(what, HasSubstr("never completed"));
  EXPECT_THAT(what, HasSubstr("isend to rank 1 tag 3"));
  // The machine is usable afterwards.
  EXPECT_EQ(fan_out(Port::all, 4).stats().messages, 3u);
}

TEST(Nonblocking, CompletingARequestTwiceIsAnError) {
  Machine m({.nodes = 2, .model = model_with(Port::all)});
  const std::string twice = run_error(m, [&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> x(4);
    if (c.rank() == 0) {
      Request r = c.isend(std::span<const int>(x), 1, 0);
      Request copy = r;
      c.wait(r);
      c.wait(copy);
    } else {
      c.recv(std::span<int>(x), 0, 0);
    }
  });
  EXPECT_THAT(twice, HasSubstr("node 0"));
  EXPECT_THAT(twice, HasSubstr("already completed"));
  const std::string null = run_error(m, [&](Node& node) {
    Request r;
    if (node.rank() == 1) node.world().wait(r);
  });
  EXPECT_THAT(null, HasSubstr("node 1"));
  EXPECT_THAT(null, HasSubstr("null"));
  // Another node's request.
  std::vector<Request> shared(1);
  const std::string other = run_error(m, [&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> x(4), y(4);
    if (c.rank() == 0) {
      shared[0] = c.irecv(std::span<int>(x), 1, 0);
      c.send(std::span<const int>(y), 1, 1);  // shared[0] is set before node 1 goes on
      c.recv(std::span<int>(y), 1, 2);
    } else {
      c.recv(std::span<int>(x), 0, 1);
      c.wait(shared[0]);
    }
  });
  EXPECT_THAT(other, HasSubstr("node 1"));
  EXPECT_THAT(other, HasSubstr("posted by node 0"));
}

TEST(Nonblocking, ABufferReusedWhileInFlightIsAnError) {
  Machine m({.nodes = 2, .model = model_with(Port::all)});
  // Two receives into one buffer.
  const std::string two = run_error(m, [&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> x(8);
    if (c.rank() == 1) {
      Request a = c.irecv(std::span<int>(x), 0, 0);
      Request b = c.irecv(std::span<int>(x).subspan(4), 0, 1);
      c.wait(a);
      c.wait(b);
    } else {
      c.send(std::span<const int>(x), 1, 0);
      c.send(std::span<const int>(x), 1, 1);
    }
  });
  EXPECT_THAT(two, HasSubstr("node 1"));
  EXPECT_THAT(two, HasSubstr("overlaps that of irecv from rank 0 tag 0"));
  // An isend's buffer changed before its wait.
  const std::string changed = run_error(m, [&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> x(8, 1);
    if (c.rank() == 0) {
      Request r = c.isend(std::span<const int>(x), 1, 0);
      x[3] = 2;
      c.wait(r);
    } else {
      c.recv(std::span<int>(x), 0, 0);
    }
  });
  EXPECT_THAT(changed, HasSubstr("node 0"));
  EXPECT_THAT(changed, HasSubstr("buffer changed while the transfer was in flight"));
  // In a longer buffer: a word of the hash's lanes (its 64-byte blocks), one of the 8-byte
  // words after them, and the last bytes; and two changes in one lane (ints 10 and 26: the
  // low halves of words 5 and 13) that leave its sum as it was and change its weighted sum.
  for (const std::vector<std::size_t>& at :
       std::vector<std::vector<std::size_t>>{{0}, {499}, {992}, {1000}, {10, 26}}) {
    const std::string longer = run_error(m, [&](Node& node) {
      const Comm& c = node.world();
      std::vector<int> x(1001, 1);
      if (c.rank() == 0) {
        Request r = c.isend(std::span<const int>(x), 1, 0);
        x[at[0]] = 2;
        if (at.size() > 1) x[at[1]] = 0;  // +1 at one place, -1 at another
        c.wait(r);
      } else {
        c.recv(std::span<int>(x), 0, 0);
      }
    });
    EXPECT_THAT(longer, HasSubstr("buffer changed while the transfer was in flight")) << at[0];
  }
}

TEST(Nonblocking, AnOverlapErrorNamesTheFirstTransferInPostingOrder) {
  // Node 1 posts irecvs into x[0..4), x[4..8) and x[8..12) (tags 0, 1, 2) and completes the
  // first, then posts a transfer whose buffer overlaps both others: the error names the one
  // posted first (tag 1), whatever order the node keeps its open buffers in.
  Machine m({.nodes = 2, .model = model_with(Port::all)});
  for (const bool send : {true, false}) {
    const std::string error = run_error(m, [&](Node& node) {
      const Comm& c = node.world();
      std::vector<int> x(12);
      if (c.rank() == 0) {
        c.send(std::span<const int>(x).first(4), 1, 0);
        return;
      }
      std::vector<Request> r;
      for (int k = 0; k < 3; ++k) r.push_back(c.irecv(std::span<int>(x).subspan(4 * k, 4), 0, k));
      c.wait(r[0]);
      const auto both = std::span<int>(x).subspan(4, 8);
      if (send) {
        r.push_back(c.isend(std::span<const int>(both), 0, 3));
      } else {
        r.push_back(c.irecv(both, 0, 3));
      }
      c.wait_all(r);
    });
    EXPECT_THAT(error, HasSubstr(send ? "isend to rank 0" : "irecv from rank 0 tag 3"));
    EXPECT_THAT(error, HasSubstr("overlaps that of irecv from rank 0 tag 1, still in flight"));
  }
  // A receive into the buffers of two isends in flight names the first.
  const std::string sends = run_error(m, [&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> y(8);
    if (c.rank() == 1) return;
    Request a = c.isend(std::span<const int>(y).first(4), 1, 5);
    Request b = c.isend(std::span<const int>(y).subspan(4), 1, 6);
    c.recv(std::span<int>(y).subspan(2, 4), 1, 0);
    c.wait(a);
    c.wait(b);
  });
  EXPECT_THAT(sends, HasSubstr("overlaps that of isend to rank 1 tag 5, still in flight"));
}

TEST(Nonblocking, IsendsOfOneBufferAreEachChecked) {
  // isend_raw_each posts one buffer to several nodes, hashing it once: a change after it is
  // found at completion, and nothing is found when nothing changed, also where wait_all
  // completes isends of one buffer with other lengths in a row (each checked for its own).
  Machine m({.nodes = 3, .model = model_with(Port::all)});
  for (const bool change : {false, true}) {
    const std::string error = run_error(m, [&](Node& node) {
      const Comm& c = node.world();
      std::vector<int> x(64, 7);
      if (c.rank() != 0) {
        std::vector<int> got(64);
        EXPECT_EQ(c.recv(std::span<int>(got), 0, 0), 64u);
        EXPECT_EQ(c.recv(std::span<int>(got), 0, 1), 32u);
        EXPECT_EQ(got[31], 7);
        return;
      }
      const int dests[] = {1, 2};
      std::vector<Request> r(4);
      c.isend_raw_each(x.data(), 64 * sizeof(int), 64, dests, 0, SendMode::standard,
                       std::span<Request>(r).first(2));
      r[2] = c.isend(std::span<const int>(x).first(32), 1, 1);
      r[3] = c.isend(std::span<const int>(x).first(32), 2, 1);
      if (change) x[40] = 8;
      c.wait_all(r);
    });
    if (change) {
      EXPECT_THAT(error, HasSubstr("isend to rank 1 tag 0: its buffer changed while the "
                                   "transfer was in flight"));
    } else {
      EXPECT_EQ(error, "(no error)");
    }
  }
}

TEST(Nonblocking, AListWithARequestTwiceIsAnError) {
  // Ids out of order too: the later request first, then the earlier, then the later again.
  Machine m({.nodes = 2, .model = model_with(Port::all)});
  const std::string error = run_error(m, [&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> x(2), y(2);
    if (c.rank() == 0) {
      c.send(std::span<const int>(x), 1, 0);
      c.send(std::span<const int>(y), 1, 1);
      return;
    }
    Request a = c.irecv(std::span<int>(x), 0, 0);
    Request b = c.irecv(std::span<int>(y), 0, 1);
    std::vector<Request> list{b, a, b};
    c.wait_all(list);
  });
  EXPECT_THAT(error, HasSubstr("node 1: wait_all: the list holds one request twice"));
}

TEST(Nonblocking, AnAbortedRunNeverWritesIntoAReceiveBufferThatIsGone) {
  // Node 1 posts an irecv into a buffer on its stack and fails once node 0's message is on
  // its way: the buffer goes with the stack, and the message arrives for a request nobody
  // will wait for. Ending the run must free it, not copy it into the dead buffer (a
  // sanitizer build sees the write). The latches (outside the model, so threads only) make
  // the order certain. The machine then runs again as new.
  Machine m({.nodes = 2, .model = model_with(Port::all), .engine = Engine::threads});
  std::latch posted(1), sent(1);
  const std::string error = run_error(m, [&](Node& node) {
    const Comm& c = node.world();
    if (c.rank() == 1) {
      std::vector<int> x(1024);
      [[maybe_unused]] Request r = c.irecv(std::span<int>(x), 0, 0);  // never waited for
      posted.count_down();
      sent.wait();
      throw std::runtime_error("node 1 gives up");
    }
    std::vector<int> y(1024, 7);
    posted.wait();
    Request r = c.isend(std::span<const int>(y), 1, 0);
    sent.count_down();
    c.wait(r);
  });
  EXPECT_THAT(error, HasSubstr("node 1 gives up"));
  std::vector<int> got(4, -1);
  m.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> z{40, 41, 42, 43};
    if (c.rank() == 0) c.send(std::span<const int>(z), 1, 0);
    else c.recv(std::span<int>(got), 0, 0);
  });
  EXPECT_EQ(got, (std::vector<int>{40, 41, 42, 43}));
}

TEST(Nonblocking, ADeadlockAmongRequestsIsReported) {
  for (Clock clock : {Clock::virtual_time, Clock::real_time}) {
    Machine m({.nodes = 2, .model = model_with(Port::all), .clock = clock});
    try {
      m.run([&](Node& node) {
        const Comm& c = node.world();
        std::vector<int> x(4);
        Request r = c.irecv(std::span<int>(x), 1 - c.rank(), 5);  // nobody sends
        c.wait(r);
      });
      FAIL() << "expected a deadlock";
    } catch (const RunError& e) {
      EXPECT_EQ(e.kind(), RunError::Kind::deadlock) << e.what();
      EXPECT_THAT(std::string(e.what()), HasSubstr("wait for irecv"));
    }
  }
}

TEST(Nonblocking, AWaitAnyThatCanNeverCompleteIsADeadlock) {
  Machine m({.nodes = 2, .model = model_with(Port::all)});
  try {
    m.run([&](Node& node) {
      const Comm& c = node.world();
      std::vector<int> x(4);
      if (c.rank() == 0) {
        std::vector<Request> rs{c.irecv(std::span<int>(x), 1, 5)};
        c.wait_any(rs);
      }
    });
    FAIL() << "expected a deadlock";
  } catch (const RunError& e) {
    EXPECT_EQ(e.kind(), RunError::Kind::deadlock) << e.what();
    EXPECT_THAT(std::string(e.what()), HasSubstr("irecv from node 1 tag 5"));
  }
}

TEST(Nonblocking, UnderRendezvousAPostedIrecvLetsTheTransferOverlapWork) {
  // Node 1 posts its irecv, computes 2T, then waits: the message moves during the work
  // (the receive is posted), so node 1 ends at 2T; with a blocking recv after the work it
  // could start only then (3T).
  const std::size_t n = 1000;
  Model model = model_with(Port::duplex);
  model.protocol = Protocol::rendezvous;
  const Picos t = CostUnits(model).message(n);
  for (bool nonblocking : {true, false}) {
    Machine m({.nodes = 2, .model = model});
    auto r = m.run([&](Node& node) {
      const Comm& c = node.world();
      std::vector<int> x(n, 1);
      if (c.rank() == 0) {
        c.send(std::span<const int>(x), 1, 0);
      } else if (nonblocking) {
        Request req = c.irecv(std::span<int>(x), 0, 0);
        c.charge_compute(to_seconds(2 * t));
        c.wait(req);
      } else {
        c.charge_compute(to_seconds(2 * t));
        c.recv(std::span<int>(x), 0, 0);
      }
    });
    EXPECT_EQ(r.stats().node_time[1], nonblocking ? 2 * t : 3 * t);
  }
}

TEST(Nonblocking, ManyRequestsOnEveryPortModelAndClock) {
  // Every node posts irecvs from all others, then isends to all, then completes them with
  // wait_any: results are right and, on the virtual clock, the time is the same on every
  // run.
  for (Clock clock : {Clock::virtual_time, Clock::real_time}) {
    for (Port port : {Port::exchange, Port::duplex, Port::half, Port::all}) {
      Machine m({.topology = parse_topology("mesh:3x3"), .model = model_with(port),
                 .clock = clock, .time_scale = 0.01});
      Picos first = -1;
      for (int rep = 0; rep < (clock == Clock::virtual_time ? 3 : 1); ++rep) {
        auto r = m.run([&](Node& node) {
          const Comm& c = node.world();
          const int p = c.size(), me = c.rank();
          std::vector<std::vector<int>> in(p, std::vector<int>(5)), out(p);
          std::vector<Request> rs;
          for (int k = 1; k < p; ++k) {
            const int src = (me + p - k) % p;
            rs.push_back(c.irecv(std::span<int>(in[src]), src, 11));
          }
          for (int k = 1; k < p; ++k) {
            const int dst = (me + k) % p;
            out[dst].assign(5, me * 100 + dst);
            rs.push_back(c.isend(std::span<const int>(out[dst]), dst, 11));
          }
          std::size_t done = 0;
          while (c.wait_any(rs) != kNoRequest) ++done;
          EXPECT_EQ(done, rs.size());
          for (int src = 0; src < p; ++src) {
            if (src != me) {
              EXPECT_EQ(in[src][0], src * 100 + me);
            }
          }
        });
        if (clock == Clock::virtual_time) {
          if (first < 0) first = r.time_ps();
          EXPECT_EQ(r.time_ps(), first) << to_string(port);
        }
        EXPECT_EQ(r.stats().messages, 72u);
      }
    }
  }
}

TEST(Nonblocking, AnIsendToItselfCompletesOnEveryClock) {
  // With allow_self_messages, a node's isend to itself is a local copy: it completes, and on
  // the real clock counts as no message (as a blocking send to itself).
  for (Clock clock : {Clock::virtual_time, Clock::real_time}) {
    Machine m({.topology = parse_topology("full:2"), .model = model_with(Port::exchange),
               .clock = clock, .time_scale = 0.01, .allow_self_messages = true});
    auto r = m.run([&](Node& node) {
      const Comm& c = node.world();
      std::vector<int> out{c.rank(), 7}, in(2);
      Request s = c.isend(std::span<const int>(out), c.rank(), 3);
      EXPECT_EQ(c.recv(std::span<int>(in), c.rank(), 3), 2u);
      c.wait(s);
      EXPECT_EQ(in, out);
    });
    if (clock == Clock::real_time) {
      EXPECT_EQ(r.stats().messages, 0u);
    }
  }
}

TEST(Nonblocking, ALentIsendDeliversItsBytesAsTheyWereWhetherTakenBeforeOrAfterCompletion) {
  // SendMode::lent: a receiver may copy from the sender's buffer until the request completes
  // or is withdrawn; then the bytes are the message's own, so the sender may change its buffer
  // and a receiver that takes the message later still gets what was sent. Node 0 lends two
  // messages of 64 KiB (above the loan's threshold) to nodes 1 and 2: the first completed by
  // wait, the second withdrawn and then completed; after each it overwrites its buffer and
  // only then tells its receiver to take the message. Node 3 receives a third one at once.
  constexpr std::size_t kInts = 16 * 1024;
  for (int workers : {1, 2}) {
    Machine m({.nodes = 4, .model = model_with(Port::all), .workers = workers});
    m.run([&](Node& node) {
      const Comm& c = node.world();
      std::vector<int> buffer(kInts);
      if (c.rank() == 0) {
        const int go = 1;
        auto lend = [&](int value, int dest) {
          std::fill(buffer.begin(), buffer.end(), value);
          return c.isend_raw(buffer.data(), kInts * sizeof(int), kInts, dest, 0, SendMode::lent);
        };
        Request first = lend(11, 1);
        c.wait(first);
        std::fill(buffer.begin(), buffer.end(), -1);
        c.send(std::span<const int>(&go, 1), 1, 1);
        Request second = lend(22, 2);
        c.withdraw(std::span<const Request>(&second, 1));
        c.wait(second);
        std::fill(buffer.begin(), buffer.end(), -2);
        c.send(std::span<const int>(&go, 1), 2, 1);
        Request third = lend(33, 3);
        c.wait(third);
      } else {
        int go = 0;
        if (c.rank() != 3) c.recv(std::span<int>(&go, 1), 0, 1);
        EXPECT_EQ(c.recv(std::span<int>(buffer), 0, 0), kInts);
        const int sent = 11 * c.rank();
        EXPECT_EQ(std::count(buffer.begin(), buffer.end(), sent), static_cast<long>(kInts))
            << "node " << c.rank() << " with " << workers << " worker(s)";
      }
    });
  }
}

// --- communicator constructors on the virtual clock ----------------------------------------
// A constructor meets the group's other members at no cost (docs/model.md, "Communicator
// constructors"): a node waiting there has logged that, so the others' queries are answered.

TEST(Nonblocking, ASplitDoesNotHoldBackTheOthersTests) {
  // Node 0 completes its exchange with node 1 by a wait and goes into split; node 1 works
  // for 1 ms and then tests its requests: to answer, the pass needs node 0's next step (its
  // wait ended long before), which is the split, where node 0 waits for node 1. At p = 4 the
  // other pair does the same.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    for (int p : {2, 4}) {
      Machine m({.nodes = p, .model = model_with(Port::all), .engine = engine});
      std::vector<int> tests(p, 0), new_rank(p, -1);
      auto r = m.run([&](Node& node) {
        const Comm& c = node.world();
        const int me = c.rank(), partner = me ^ 1;
        std::vector<int> out(100, me), in(100, -1);
        std::vector<Request> rs;
        rs.push_back(c.irecv(std::span<int>(in), partner, 3));
        rs.push_back(c.isend(std::span<const int>(out), partner, 3));
        if (me % 2 == 0) {
          c.wait_all(rs);
        } else {
          c.charge_compute(1e-3);
          while (!c.test_all(rs)) ++tests[me];
        }
        EXPECT_EQ(in[0], partner);
        const Comm half = c.split(me % 2, -me);
        new_rank[me] = half.rank();
      });
      for (int me = 0; me < p; ++me) {
        EXPECT_EQ(new_rank[me], (p - 1 - me) / 2) << "node " << me;
      }
      // Node 1's first test is at 1 ms, after its messages ended: no second one.
      EXPECT_EQ(tests[1], 0);
      // The split is free: everyone finishes at node 1's time, 1 ms.
      for (int me = 0; me < p; ++me) {
        EXPECT_EQ(r.stats().node_time[me], to_picos(1e-3)) << "node " << me << ", p " << p;
      }
      EXPECT_EQ(r.stats().messages, static_cast<std::uint64_t>(p));  // one each
    }
  }
}

TEST(Nonblocking, ConstructorsResumeEveryMemberAtTheLatestArrival) {
  // Node r reaches the constructor at (r + 1) 100 us; every member goes on at the latest of
  // the group's arrivals, exactly, and nothing is counted. split(r % 2): the even nodes meet
  // the odd ones (the split is on the whole group); create_group of nodes 0 and 1 only: they
  // go on at 200 us, and nodes 2 and 3 keep their times.
  for (Engine engine : {Engine::threads, Engine::fibers}) {
    Machine m({.nodes = 4, .model = model_with(Port::all), .engine = engine});
    auto split = m.run([&](Node& node) {
      const Comm& c = node.world();
      c.charge_compute((c.rank() + 1) * 100e-6);
      const Comm half = c.split(c.rank() % 2, c.rank());
      EXPECT_EQ(half.size(), 2);
    });
    for (int r = 0; r < 4; ++r) {
      EXPECT_EQ(split.stats().node_time[r], to_picos(400e-6)) << "node " << r;
    }
    EXPECT_EQ(split.stats().messages, 0u);
    EXPECT_EQ(split.stats().critical_startups, 0);

    const std::vector<int> pair{1, 0};
    auto made = m.run([&](Node& node) {
      const Comm& c = node.world();
      c.charge_compute((c.rank() + 1) * 100e-6);
      if (c.rank() < 2) {
        const Comm two = c.create_group(pair, 9);
        EXPECT_EQ(two.rank(), 1 - c.rank());
      }
    });
    for (int r = 0; r < 4; ++r) {
      EXPECT_EQ(made.stats().node_time[r], to_picos((r < 2 ? 2 : r + 1) * 100e-6))
          << "node " << r;
    }
    EXPECT_EQ(made.stats().messages, 0u);

    // Arriving together: the constructor takes no time.
    auto together = m.run([&](Node& node) {
      const Comm& c = node.world();
      c.charge_compute(100e-6);
      const Comm all = c.split(0, c.rank());
      all.charge_compute(50e-6);
    });
    for (int r = 0; r < 4; ++r) {
      EXPECT_EQ(together.stats().node_time[r], to_picos(150e-6)) << "node " << r;
    }
  }
}

TEST(Nonblocking, AGroupMadeByOnlySomeOfItsMembersIsADeadlock) {
  // create_group waits for no one in the run, but in virtual time node 0 waits there for
  // node 1, which never makes the group: reported, naming the node.
  Machine m({.nodes = 2, .model = model_with(Port::all)});
  const std::vector<int> both{0, 1};
  const std::string error = run_error(m, [&](Node& node) {
    if (node.rank() == 0) (void)node.world().create_group(both, 4);
  });
  EXPECT_THAT(error, HasSubstr("deadlock"));
  EXPECT_THAT(error, HasSubstr("node 0: a communicator constructor"));
  EXPECT_THAT(error, HasSubstr("1 have reached it"));
}

TEST(Nonblocking, NodesKeepTheRequestsInFlightNotEveryOneTheyPosted) {
  // A ring shift repeated many times, each completed before the next (the pattern of a loop
  // of nonblocking collectives): the node's table and the simulation hold the two requests
  // in flight (and at most a chunk of completed ones), not the run's 2 x kShifts. Before
  // they let go of completed requests both grew by one entry per request posted. A request
  // open throughout (an irecv posted first and completed last) keeps those after it.
  // Fewer under the sanitizers, still ten times the bound.
  constexpr int kShifts = vmc::testing::kSanitized ? 320 : 3000;
  constexpr std::size_t kBound = 64;  // far below 2 x kShifts
  for (Clock clock : {Clock::virtual_time, Clock::real_time}) {
    for (bool pinned : {false, true}) {
      Machine m({.topology = parse_topology("ring:4"), .model = model_with(Port::duplex),
                 .clock = clock});
      const RunResult r = m.run([&](Node& node) {
        const Comm& c = node.world();
        const int p = c.size();
        const int next = (c.rank() + 1) % p, prev = (c.rank() + p - 1) % p;
        int first = -1;
        Request open;
        if (pinned) open = c.irecv(std::span<int>(&first, 1), prev, 1);
        int out = c.rank(), in = -1;
        for (int i = 0; i < kShifts; ++i) {
          std::vector<Request> both{c.irecv(std::span<int>(&in, 1), prev, 0),
                                    c.isend(std::span<const int>(&out, 1), next, 0)};
          c.wait_all(both);
          ASSERT_EQ(in, prev);
        }
        if (pinned) {
          EXPECT_GE(c.requests_kept(), std::size_t{2 * kShifts});
          c.send(std::span<const int>(&out, 1), next, 1);
          c.wait(open);
          EXPECT_EQ(first, prev);
          // Its last shift's two entries are all it keeps once the oldest is done.
        }
        EXPECT_LE(c.requests_kept(), kBound) << "node " << c.rank();
      });
      if (clock == Clock::virtual_time && !pinned) {
        EXPECT_LE(r.stats().requests_held_peak, kBound);
        EXPECT_GE(r.stats().requests_held_peak, 2u);
      }
    }
  }
}

}  // namespace
}  // namespace vmc
