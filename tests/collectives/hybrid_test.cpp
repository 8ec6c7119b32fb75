// van de Geijn's hybrid global combine (000 §3.4-§6): the cost recursion, Theorem 1 and
// Corollary 4 against brute force, and the virtual time of the code against T(S, n, d).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "collectives/global_combine/hybrid_combine.hpp"
#include "collectives/global_combine/strategy.hpp"
#include "runtime/machine.hpp"

namespace vmc {
namespace {

using global_combine::Strategy;

CostUnits units(double alpha, double beta, double gamma) {
  return CostUnits(Model{.alpha = alpha, .beta = beta, .gamma = gamma});
}

Strategy from_bits(std::uint64_t bits, int d) {
  Strategy s(d);
  for (int i = 0; i < d; ++i) s[i] = static_cast<int>((bits >> i) & 1);
  return s;
}

TEST(HybridStrategy, VersionsTwoAndThreeClosedForms) {
  for (int d = 1; d <= 8; ++d) {
    const std::size_t p = std::size_t{1} << d;
    for (std::size_t n : {p, 4 * p, 1000 * p}) {
      CostUnits u = units(525e-6, 2e-6, 0.35e-6);
      // Version 2: d(alpha + n beta + n gamma).
      EXPECT_EQ(global_combine::cost(Strategy(d, 0), n, u),
                d * (u.alpha + Picos(n) * u.beta + Picos(n) * u.gamma));
      // Version 3: 2 d alpha + (p-1)/p n (2 beta + gamma).
      EXPECT_EQ(global_combine::cost(Strategy(d, 1), n, u),
                2 * d * u.alpha + Picos((p - 1) * (n / p)) * (2 * u.beta + u.gamma));
    }
  }
}

TEST(HybridStrategy, OptimalIsTheBruteForceMinimum) {
  for (int d = 1; d <= 8; ++d) {
    for (double alpha : {0.0, 75e-6, 525e-6}) {
      for (double beta : {0.0, 0.1e-6, 2e-6}) {
        for (double gamma : {0.0, 0.35e-6, 2e-6}) {
          CostUnits u = units(alpha, beta, gamma);
          for (std::size_t n : {0, 1, 3, 7, 64, 100, 1000, 4096, 65536, 1000000}) {
            Picos best = global_combine::cost(global_combine::brute_force_strategy(n, d, u), n, u);
            EXPECT_EQ(global_combine::cost(global_combine::optimal_strategy(n, d, u), n, u), best)
                << "d " << d << " n " << n;
          }
        }
      }
    }
  }
}

// Theorem 1 (000 §4) is stated for n a multiple of p. vmc checks it against brute force on
// a grid of machines; Corollary 4 must equal the cost of Theorem 1's strategy.
TEST(HybridStrategy, TheoremOneAndCorollaryFourHoldOnTheGrid) {
  int checked = 0;
  for (int d = 1; d <= 8; ++d) {
    for (double alpha : {1e-6, 75e-6, 136e-6, 525e-6, 5e-3}) {
      for (double beta : {0.1e-6, 1.6e-6, 2e-6, 10e-6}) {
        for (double gamma : {0.05e-6, 0.35e-6, 2e-6}) {
          CostUnits u = units(alpha, beta, gamma);
          for (std::size_t m = 1; m <= (std::size_t{1} << 14); m *= 2) {
            for (std::size_t factor : {1, 3}) {
              const std::size_t n = (std::size_t{1} << d) * m * factor;
              Strategy t1 = global_combine::theorem1_strategy(n, d, u);
              Picos best = global_combine::cost(global_combine::brute_force_strategy(n, d, u), n, u);
              ASSERT_EQ(global_combine::cost(t1, n, u), best)
                  << "counterexample to Theorem 1: d " << d << " n " << n << " alpha " << alpha
                  << " beta " << beta << " gamma " << gamma << " S " << global_combine::to_string(t1);
              ASSERT_EQ(global_combine::corollary4(n, d, u), best) << "d " << d << " n " << n;
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 10000);
}

TEST(HybridStrategy, FigureSevenParametersChooseAsThePaperSays) {
  // 000 Fig. 7: d = 6, alpha = 525 us, beta = 2 us, gamma = 0.35 us. Short vectors combine
  // whole (Version 2), long ones halve every step (Version 3).
  CostUnits u = units(525e-6, 2e-6, 0.35e-6);
  EXPECT_EQ(global_combine::to_string(global_combine::optimal_strategy(64, 6, u)), "000000");
  EXPECT_EQ(global_combine::to_string(global_combine::optimal_strategy(1 << 20, 6, u)), "111111");
  Strategy mid = global_combine::optimal_strategy(4096, 6, u);
  EXPECT_EQ(global_combine::cost(mid, 4096, u),
            global_combine::cost(global_combine::theorem1_strategy(4096, 6, u), 4096, u));
}

TEST(HybridStrategy, SectionSixHalvesDownToTheShortLength) {
  CostUnits u(Model{.alpha = 480e-6, .beta = 2e-6, .gamma = 0.35e-6, .short_alpha = 75e-6,
                    .short_max_items = 25});
  // 512 halves to 256, 128, 64, 32 and 16 (<= 25), then combines whole.
  EXPECT_EQ(global_combine::to_string(global_combine::section6_strategy(512, 6, u, 25)), "011111");
  EXPECT_EQ(global_combine::to_string(global_combine::section6_strategy(20, 6, u, 25)), "000000");
  EXPECT_EQ(global_combine::section6_strategy(100000, 6, u, 25),
            global_combine::optimal_strategy(100000, 6, u));
}

TEST(HybridStrategy, ParseAndPrint) {
  EXPECT_EQ(global_combine::parse_strategy("0,1,1"), (Strategy{0, 1, 1}));
  EXPECT_EQ(global_combine::to_string(Strategy{1, 0, 0, 1}), "1001");
  EXPECT_THROW(global_combine::parse_strategy("01x"), std::invalid_argument);
}

// Runs the hybrid allreduce (or reduce to `root`) on a machine; returns the virtual time and
// checks every node's result against the sum.
Picos run_hybrid(Machine& m, const Strategy& s, global_combine::Choice choice, std::size_t n,
                 bool to_root, int root = 0) {
  const int p = m.size();
  Options options{.strategy = s};
  Op sum = ops::sum<std::int64_t>();
  auto r = m.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<std::int64_t> x(n), out(n, -7);
    for (std::size_t i = 0; i < n; ++i) x[i] = std::int64_t(c.rank() + 1) * 1000 + std::int64_t(i);
    Call call{.comm = &c, .send = x.data(), .recv = out.data(), .n = n,
              .item_size = sizeof(std::int64_t), .op = &sum, .root = root, .tag = 1 << 21,
              .options = &options};
    if (to_root) global_combine::reduce(choice, call);
    else global_combine::allreduce(choice, call);
    if (!to_root || c.rank() == root) {
      for (std::size_t i = 0; i < n; ++i) {
        ASSERT_EQ(out[i], std::int64_t(p) * (p + 1) / 2 * 1000 + std::int64_t(p) * std::int64_t(i))
            << "node " << c.rank() << " item " << i;
      }
    }
  });
  return r.time_ps();
}

TEST(HybridCombine, EveryStrategyTakesTSnd) {
  const Model model{.alpha = 525e-6, .beta = 2e-6, .gamma = 0.35e-6, .port = Port::exchange,
                    .routing = Routing::wormhole};
  for (int d = 1; d <= 6; ++d) {
    const int p = 1 << d;
    Machine m({.topology = parse_topology("hypercube:" + std::to_string(p)), .model = model});
    for (std::size_t n : {std::size_t(p), std::size_t(8 * p)}) {
      for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << d); ++bits) {
        Strategy s = from_bits(bits, d);
        EXPECT_EQ(run_hybrid(m, s, global_combine::Choice::given, n, false),
                  global_combine::cost(s, n, CostUnits(model)))
            << "d " << d << " n " << n << " S " << global_combine::to_string(s);
      }
    }
  }
}

TEST(HybridCombine, CombineToRootTakesTSnd) {
  const Model model{.alpha = 525e-6, .beta = 2e-6, .gamma = 0.35e-6};
  for (int d : {1, 3, 5}) {
    const int p = 1 << d;
    Machine m({.topology = parse_topology("hypercube:" + std::to_string(p)), .model = model});
    const std::size_t n = 4 * p;
    for (int root : {0, p - 1, p / 2 + 1}) {
      for (global_combine::Choice choice : {global_combine::Choice::optimal}) {
        CostQuery q;
        q.p = p;
        q.n = n;
        q.units = CostUnits(model);
        EXPECT_EQ(run_hybrid(m, {}, choice, n, true, root % p),
                  global_combine::reduce_cost(choice, q));
      }
      for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << d); ++bits) {
        Strategy s = from_bits(bits, d);
        EXPECT_EQ(run_hybrid(m, s, global_combine::Choice::given, n, true, root % p),
                  global_combine::cost(s, n, CostUnits(model), true))
            << "S " << global_combine::to_string(s) << " root " << root;
      }
    }
  }
}

TEST(HybridCombine, AnyPFoldsTheExtraNodes) {
  const Model model{.alpha = 100e-6, .beta = 1e-6, .gamma = 0.5e-6, .routing = Routing::direct};
  for (int p : {1, 2, 3, 5, 6, 7, 9, 12, 17, 31, 33}) {
    Machine m({.nodes = p, .model = model});
    for (std::size_t n : {0, 1, 5, 64, 1000}) {
      CostQuery q;
      q.p = p;
      q.n = n;
      q.units = CostUnits(model);
      Picos t = run_hybrid(m, {}, global_combine::Choice::optimal, n, false);
      // Exact for powers of two; with extras folded in, a lower bound (see hybrid_combine.hpp).
      const bool pow2 = (p & (p - 1)) == 0;
      if (pow2 && n % p == 0) {
        EXPECT_EQ(t, global_combine::allreduce_cost(global_combine::Choice::optimal, q))
            << "p " << p << " n " << n;
      } else {
        EXPECT_GE(t, global_combine::allreduce_cost(global_combine::Choice::optimal, q))
            << "p " << p << " n " << n;
      }
      for (int root : {0, p - 1}) run_hybrid(m, {}, global_combine::Choice::optimal, n, true, root);
    }
  }
}

}  // namespace
}  // namespace vmc
