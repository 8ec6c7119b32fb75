// Times that do not fit, time scales out of range, and real-clock runs that must end when
// the watchdog or a failing node ends them. Each leaves the machine usable.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "runtime/machine.hpp"
#include "runtime/scratch.hpp"

namespace vmc {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Timing-only buffers (nowhere memory) are handed out from a 64 GiB reservation and start
// again at its beginning when it is used up: buffers handed out one after the other never
// overlap, across the wrap too (they did: a send and a receive buffer taken at the wrap
// aliased, and the collective refused them).
TEST(Limits, NowhereBuffersTakenInTurnNeverOverlap) {
  const std::size_t chunk = (std::size_t{1} << 30) + 4096 + 7;  // not a divisor of 64 GiB
  std::span<std::byte> previous = nowhere(chunk);
  for (int i = 0; i < 150; ++i) {  // more than two laps
    const std::span<std::byte> next = nowhere(i % 3 == 0 ? 100 : chunk);
    ASSERT_TRUE(is_nowhere(next.data()));
    const bool apart = next.data() >= previous.data() + previous.size() ||
                       next.data() + next.size() <= previous.data();
    ASSERT_TRUE(apart) << "buffer " << i << " overlaps the one before";
    previous = next;
  }
}

// Buffers larger than a quarter of the reservation (a timing-only broadcast of 2^40 floats
// is 4 TiB) come from the far range: nowhere too, apart from each other and from the
// reservation's; one beyond what vmc hands out is a length_error naming its size, not a
// bad_alloc. A timing-only run sends from and receives into such buffers (32 GiB).
TEST(Limits, HugeNowhereBuffersAreFarApartAndTooHugeOnesNamed) {
  const std::size_t huge = std::size_t{4} << 40;
  const std::span<std::byte> a = nowhere(huge), b = nowhere(huge), small = nowhere(64);
  for (const auto& s : {a, b, small}) EXPECT_TRUE(is_nowhere(s.data()));
  EXPECT_TRUE(b.data() >= a.data() + a.size() || b.data() + b.size() <= a.data());
  EXPECT_TRUE(small.data() + small.size() <= a.data() || small.data() >= a.data() + a.size());
  try {
    nowhere(std::size_t{1} << 60);
    ADD_FAILURE() << "no error";
  } catch (const std::length_error& e) {
    EXPECT_TRUE(contains(e.what(), "a timing-only buffer of 1152921504606846976 bytes")) << e.what();
  }
  Machine m({.nodes = 2, .data = Data::none});
  m.run([&](Node& node) {
    const std::size_t n = std::size_t{1} << 33;
    auto* x = reinterpret_cast<float*>(nowhere(n * sizeof(float)).data());
    if (node.rank() == 0) node.world().send(std::span<const float>(x, n), 1, 0);
    else node.world().recv(std::span<float>(x, n), 0, 0);
  });
}

TEST(Limits, CheckedPicosecondArithmetic) {
  EXPECT_EQ(checked_add(1, 2), 3);
  EXPECT_EQ(checked_mul(3, 4), 12);
  EXPECT_THROW(checked_add(std::numeric_limits<Picos>::max(), 1), std::overflow_error);
  EXPECT_THROW(checked_mul(2, std::uint64_t{1} << 62), std::overflow_error);
  EXPECT_THROW(checked_mul(1, ~std::uint64_t{0}), std::overflow_error);
  const CostUnits u(Model{.alpha = 1, .beta = 9e6, .gamma = 1e-6});
  EXPECT_THROW(u.message(2), std::overflow_error);  // 1.8e7 s
  EXPECT_THROW(u.combine(std::size_t{1} << 62), std::overflow_error);
  EXPECT_EQ(u.message(1), to_picos(9e6) + to_picos(1));
}

// `vmc run --topology full:2 --op broadcast --n 2 --beta 9000000s` once gave time 0 and a
// negative prediction: a message of 2 items at beta = 9e6 s is refused, by the node that
// sends it, and the machine stays usable.
TEST(Limits, MessageWithHugeBetaIsRefused) {
  Machine m({.nodes = 2, .model = Model{.alpha = 525e-6, .beta = 9e6}});
  try {
    m.run([](Node& node) {
      const Comm& c = node.world();
      int x[2] = {1, 2};
      if (c.rank() == 0) c.send(std::span<const int>(x), 1, 0);
      if (c.rank() == 1) c.recv(std::span<int>(x), 0, 0);
    });
    ADD_FAILURE() << "expected an overflow";
  } catch (const RunError& e) {
    EXPECT_TRUE(contains(e.what(), "does not fit")) << e.what();
    EXPECT_TRUE(contains(e.what(), "node 0")) << e.what();
  }
  auto r = m.run([](Node&) {});
  EXPECT_EQ(r.time_ps(), 0);
}

TEST(Limits, ComputeSumsThatDoNotFitAreRefused) {
  Machine m({.nodes = 2});
  try {
    m.run([](Node& node) {
      if (node.rank() == 1) {
        for (int i = 0; i < 3; ++i) node.charge_compute(8e6);
      }
    });
    ADD_FAILURE() << "expected an overflow";
  } catch (const RunError& e) {
    EXPECT_TRUE(contains(e.what(), "node 1")) << e.what();
    EXPECT_TRUE(contains(e.what(), "does not fit")) << e.what();
  }
  auto r = m.run([](Node& node) { node.charge_compute(1.0); });
  EXPECT_EQ(r.time_ps(), kPicosPerSecond);
}

TEST(Limits, CombineThatDoesNotFitIsRefused) {
  Machine m({.nodes = 2, .model = Model{.gamma = 1e-6}});
  try {
    m.run([](Node& node) {
      if (node.rank() == 0) node.charge_combine(std::size_t{1} << 62);
    });
    ADD_FAILURE() << "expected an overflow";
  } catch (const RunError& e) {
    EXPECT_EQ(e.node(), 0);
    EXPECT_TRUE(contains(e.what(), "combine")) << e.what();
  }
}

TEST(Limits, TimeScaleOutOfRangeIsRefused) {
  for (double bad : {0.0, -1.0, 1e-10, 1e300, std::numeric_limits<double>::infinity(),
                     std::numeric_limits<double>::quiet_NaN()}) {
    for (Clock clock : {Clock::virtual_time, Clock::real_time}) {
      try {
        Machine m({.nodes = 2, .clock = clock, .time_scale = bad});
        ADD_FAILURE() << "time_scale " << bad << " accepted";
      } catch (const UsageError& e) {
        EXPECT_TRUE(contains(e.what(), "time_scale")) << e.what();
      }
    }
  }
  for (double good : {1e-6, 1e-3, 1.0, 1e3}) {
    EXPECT_NO_THROW(Machine({.nodes = 2, .clock = Clock::real_time, .time_scale = good}));
  }
}

// A real-clock run whose single message lasts 9e6 modelled seconds: the watchdog ends it
// (it used to sleep on regardless). Asserted: it ends, with the watchdog's report.
TEST(Limits, WatchdogEndsARealClockSleep) {
  Machine m({.nodes = 2, .model = Model{.alpha = 9e6}, .clock = Clock::real_time,
             .watchdog_seconds = 0.2});
  try {
    m.run([](Node& node) {
      const Comm& c = node.world();
      int x = 0;
      if (c.rank() == 0) c.send(std::span<const int>(&x, 1), 1, 0);
      if (c.rank() == 1) c.recv(std::span<int>(&x, 1), 0, 0);
    });
    ADD_FAILURE() << "expected the watchdog";
  } catch (const RunError& e) {
    EXPECT_EQ(e.kind(), RunError::Kind::watchdog) << e.what();
  }
  // The tokens it held are released for the next run.
  auto r = m.run([](Node& node) { node.charge_compute(0); });
  EXPECT_EQ(r.stats().messages, 0u);
}

// The watchdog's report says what every unfinished node was doing: node 2 computes for real
// (outside any wait of vmc), the others wait for its message; on both engines. The watchdog
// time leaves nodes 0 and 1 time to reach their receive on a loaded host.
TEST(Limits, WatchdogReportNamesWhatEachNodeDoes) {
  for (Engine engine : {Engine::fibers, Engine::threads}) {
    Machine m({.nodes = 3, .watchdog_seconds = 0.5, .engine = engine});
    try {
      m.run([](Node& node) {
        const Comm& c = node.world();
        int x = 0;
        if (c.rank() == 2) {
          std::this_thread::sleep_for(std::chrono::milliseconds(1500));
          c.send(std::span<const int>(&x, 1), 0, 5);
          c.send(std::span<const int>(&x, 1), 1, 5);
        } else {
          c.recv(std::span<int>(&x, 1), 2, 5);
        }
      });
      ADD_FAILURE() << "expected the watchdog";
    } catch (const RunError& e) {
      const std::string what = e.what();
      EXPECT_EQ(e.kind(), RunError::Kind::watchdog) << what;
      EXPECT_NE(what.find("node 2: running (in none of vmc's waits)"), std::string::npos) << what;
      EXPECT_NE(what.find("node 0: recv from rank 2 tag 5"), std::string::npos) << what;
      EXPECT_NE(what.find("node 1: recv from rank 2 tag 5"), std::string::npos) << what;
      EXPECT_EQ(e.blocked().size(), 3u) << what;
    }
  }
}

// A node that never returns (it loops in its own code, which vmc cannot interrupt): the
// watchdog ends the run, and when the node has not returned 2 s later (the grace time: the
// watchdog time, from 2 s to 30 s) the process ends, the report naming it. The default
// handler writes the report on stderr and ends the process with status 1.
TEST(LimitsDeathTest, ANodeThatNeverReturnsEndsTheProcessNamingIt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (Engine engine : {Engine::fibers, Engine::threads}) {
    EXPECT_EXIT(
        {
          std::atomic<bool> never{false};
          Machine m({.nodes = 3, .watchdog_seconds = 0.2, .engine = engine});
          m.run([&](Node& node) {
            const Comm& c = node.world();
            int x = 0;
            if (c.rank() == 1) {
              while (!never.load(std::memory_order_relaxed)) {
              }
              c.send(std::span<const int>(&x, 1), 0, 5);
            } else {
              c.recv(std::span<int>(&x, 1), 1, 5);
            }
          });
        },
        ::testing::ExitedWithCode(1),
        "vmc: no progress for 0.2 s.*node 1 did not return within 2 s of the run's end: in "
        "the program's own code")
        << (engine == Engine::fibers ? "fibers" : "threads");
  }
}

// A node that throws ends the others' real sleeps (a long compute, a long message).
TEST(Limits, AThrowingNodeEndsRealSleeps) {
  Machine m({.nodes = 3, .model = Model{.alpha = 9e6}, .clock = Clock::real_time});
  try {
    m.run([](Node& node) {
      const Comm& c = node.world();
      int x = 0;
      if (c.rank() == 0) c.send(std::span<const int>(&x, 1), 1, 0);
      if (c.rank() == 1) c.recv(std::span<int>(&x, 1), 0, 0);
      if (c.rank() == 2) {
        c.charge_compute(1e-3);
        throw std::runtime_error("stop");
      }
    });
    ADD_FAILURE() << "expected node 2's error";
  } catch (const RunError& e) {
    EXPECT_EQ(e.node(), 2);
  }
}

// Fiber stacks are mapped anew for every machine, often where the last machine's were, at
// another offset. A node that fills most of its stack must not meet what the last machine
// left there: under AddressSanitizer, the poison of frames that never returned (a fiber's
// entry frame) outlived the mapping and was reported as an overflow in the middle of a
// collective (CI, ScatterGatherProperty). Machines of 1 to 24 nodes, one after the other,
// each with stacks a page larger than the last, so old stack tops fall inside new stacks.
[[gnu::noinline]] int fill_stack(int rank) {
  char block[160 << 10];
  std::memset(block, rank, sizeof block);
  volatile char* v = block;
  return v[rank % sizeof block] + v[sizeof block - 1];
}

TEST(Limits, FiberStacksMappedWhereOthersWereStartClean) {
  for (int p = 1; p <= 24; ++p) {
    Machine m({.nodes = p,
               .engine = Engine::fibers,
               .stack_bytes = static_cast<std::size_t>(256 + 4 * p) << 10});
    std::vector<int> seen(static_cast<std::size_t>(p), -1);
    m.run([&](Node& node) {
      seen[static_cast<std::size_t>(node.rank())] = fill_stack(node.rank());
    });
    for (int r = 0; r < p; ++r) {
      ASSERT_EQ(seen[static_cast<std::size_t>(r)], 2 * static_cast<signed char>(r)) << "p " << p;
    }
  }
}

}  // namespace
}  // namespace vmc
