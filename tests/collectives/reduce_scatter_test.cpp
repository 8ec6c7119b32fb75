// reduce_scatter: every registered algorithm over the sweep with a commutative op (sum) and
// a non-commutative one (3x3 matrix product, reduced in rank order), explicit counts,
// sub-communicators, bad input, virtual time against cost, 001's hypercube row and a
// RapidCheck property against the sequential reference.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "collectives/reduce_scatter/reduce_scatter.hpp"
#include "collectives/tables.hpp"
#include "tests/collectives/block_util.hpp"

namespace vmc {
namespace {

using namespace vmc::testing;

// Where each algorithm's cost is claimed exact (see the algorithm files).
bool exact(const std::string& alg, int p, Port port, bool equal_blocks) {
  const bool pow2 = (p & (p - 1)) == 0;
  if (!equal_blocks) return alg == "ring" && port != Port::exchange;
  if (alg == "recursive_halving") return pow2;
  if (port != Port::exchange) return true;
  if (alg == "ring") return p % 2 == 0 || p <= 2;
  if (alg == "pairwise") return p <= 2;
  return true;
}

// Reference of block b (items [first, first+len)) reduced in rank order.
template <class T, class Mk, class F>
T reference(int p, std::size_t index, Mk make, F combine) {
  T acc = make(0, index);
  for (int r = 1; r < p; ++r) acc = combine(acc, make(r, index));
  return acc;
}

// One call; counts empty means equal blocks of n. Returns the time.
Picos run_rs(Machine& m, const std::string& alg, std::size_t n,
             const std::vector<std::size_t>& counts, bool commutative, Failures& f) {
  const int p = m.size();
  std::vector<std::size_t> c = counts.empty() ? std::vector<std::size_t>(p, n) : counts;
  std::vector<std::size_t> d(p, 0);
  for (int i = 1; i < p; ++i) d[i] = d[i - 1] + c[i - 1];
  const std::size_t total = d[p - 1] + c[p - 1];
  auto res = m.run([&](Node& node) {
    const int me = node.rank();
    const std::string where = alg + " p " + std::to_string(p) + " node " + std::to_string(me);
    if (commutative) {
      std::vector<std::int64_t> send(total);
      for (std::size_t i = 0; i < total; ++i) send[i] = value(me, i);
      Guarded<std::int64_t> recv(c[me]);
      if (counts.empty())
        reduce_scatter<std::int64_t>(node.world(), send, recv.span(), ops::sum<std::int64_t>(),
                                     with(alg));
      else
        reduce_scatter<std::int64_t>(node.world(), send, recv.span(), counts,
                                     ops::sum<std::int64_t>(), with(alg));
      for (std::size_t i = 0; i < c[me]; ++i) {
        std::int64_t want = 0;
        for (int r = 0; r < p; ++r) want += value(r, d[me] + i);
        if (recv.get(i) != want) return f.add(where + " wrong sum at " + std::to_string(i));
      }
      if (!recv.canaries_intact()) f.add(where + " canary");
    } else {
      std::vector<Mat> send(total);
      for (std::size_t i = 0; i < total; ++i) send[i] = mat_value(me, i);
      Guarded<Mat> recv(c[me]);
      if (counts.empty())
        reduce_scatter<Mat>(node.world(), send, recv.span(), mat_product(), with(alg));
      else
        reduce_scatter<Mat>(node.world(), send, recv.span(), counts, mat_product(), with(alg));
      for (std::size_t i = 0; i < c[me]; ++i) {
        Mat want = reference<Mat>(p, d[me] + i, mat_value, mat_mul);
        if (!(recv.get(i) == want)) return f.add(where + " wrong product at " + std::to_string(i));
      }
      if (!recv.canaries_intact()) f.add(where + " canary");
    }
  });
  return res.time_ps();
}

TEST(ReduceScatter, SweepEveryAlgorithmPLengthAndPort) {
  for (int p : sweep_ps()) {
    for (Port port : {Port::exchange, Port::duplex}) {
      if (port == Port::duplex && p > 17 && p != 64) continue;
      auto m = make_machine(p, test_model(port));
      for (const Algorithm& a : algorithms(Operation::reduce_scatter)) {
        for (std::size_t n : sweep_lengths(p)) {
          if (n == 1000 && p > 33) n = 100;
          for (bool commutative : {true, false}) {
            auto q = query_for(*m, n, 0, commutative ? 8 : sizeof(Mat), commutative);
            if (!a.applicable(q)) continue;
            Failures f;
            Picos t = run_rs(*m, a.name, n, {}, commutative, f);
            ASSERT_TRUE(f.empty()) << f.text();
            if (exact(a.name, p, port, true)) {
              ASSERT_EQ(t, a.cost(q)) << a.name << " p " << p << " n " << n << " port "
                                      << to_string(port) << " comm " << commutative;
            }
          }
        }
      }
    }
  }
}

TEST(ReduceScatter, UnevenCounts) {
  for (int p : {1, 2, 3, 5, 8, 12, 17}) {
    for (Port port : {Port::exchange, Port::duplex}) {
      auto m = make_machine(p, test_model(port));
      std::vector<std::size_t> counts(p);
      for (int r = 0; r < p; ++r) counts[r] = (r * 7 + 3) % 5;  // includes zeros
      for (const Algorithm& a : algorithms(Operation::reduce_scatter)) {
        for (bool commutative : {true, false}) {
          auto q = query_for(*m, counts[0], 0, commutative ? 8 : sizeof(Mat), commutative);
          q.counts = counts;
          if (!a.applicable(q)) continue;
          Failures f;
          Picos t = run_rs(*m, a.name, 0, counts, commutative, f);
          ASSERT_TRUE(f.empty()) << f.text();
          if (exact(a.name, p, port, false)) {
            EXPECT_EQ(t, a.cost(q)) << a.name << " p " << p << " " << to_string(port);
          }
        }
      }
    }
  }
}

TEST(ReduceScatter, SubCommunicators) {
  const int p = 11;
  auto m = make_machine(p, test_model());
  for (const Algorithm& a : algorithms(Operation::reduce_scatter)) {
    for (int kind = 0; kind < 3; ++kind) {
      Failures f;
      m->run([&](Node& node) {
        const int me = node.rank();
        const int color = kind == 0 ? 0 : kind == 1 ? me % 2 : (me < p / 2 ? 0 : 1);
        Comm sub = node.world().split(color, kind == 0 ? -me : me);
        const int q = sub.size();
        const std::size_t n = 3;
        std::vector<Mat> send(n * q), recv(n);
        for (std::size_t i = 0; i < send.size(); ++i) send[i] = mat_value(sub.rank(), i);
        const bool comm_op = a.name == "ring";
        if (comm_op) {
          std::vector<std::int64_t> s(n * q), r(n);
          for (std::size_t i = 0; i < s.size(); ++i) s[i] = value(sub.rank(), i);
          reduce_scatter<std::int64_t>(sub, s, r, ops::sum<std::int64_t>(), with(a.name));
          for (std::size_t i = 0; i < n; ++i) {
            std::int64_t want = 0;
            for (int x = 0; x < q; ++x) want += value(x, sub.rank() * n + i);
            if (r[i] != want) f.add(a.name + " split sum");
          }
          return;
        }
        reduce_scatter<Mat>(sub, send, recv, mat_product(), with(a.name));
        for (std::size_t i = 0; i < n; ++i)
          if (!(recv[i] == reference<Mat>(q, sub.rank() * n + i, mat_value, mat_mul)))
            f.add(a.name + " split product kind " + std::to_string(kind));
      });
      ASSERT_TRUE(f.empty()) << f.text();
    }
  }
}

TEST(ReduceScatter, BadInputIsAnErrorNamingTheNode) {
  auto m = make_machine(4, test_model());
  auto expect_error = [&](auto fn, const std::string& what) {
    try {
      m->run(fn);
      FAIL() << "no error for " << what;
    } catch (const RunError& e) {
      EXPECT_NE(std::string(e.what()).find("node"), std::string::npos) << e.what();
    }
  };
  expect_error([](Node& node) {
    std::vector<int> a(7), b(2);
    reduce_scatter<int>(node.world(), a, b, ops::sum<int>());
  }, "send too small");
  expect_error([](Node& node) {
    std::vector<int> a(8), b(2);
    reduce_scatter<int>(node.world(), a, b, ops::sum<std::int64_t>());
  }, "op item size");
  expect_error([](Node& node) {
    std::vector<int> a(8);
    reduce_scatter<int>(node.world(), a, std::span<int>(a.data(), 2), ops::sum<int>());
  }, "aliased");
  expect_error([](Node& node) {
    std::vector<std::size_t> counts{1, 1, 1, std::size_t(node.rank() == 2 ? 2 : 1)};
    std::vector<int> a(5), b(2);
    reduce_scatter<int>(node.world(), a, b, counts, ops::sum<int>());
  }, "counts disagree");
  expect_error([](Node& node) {
    std::vector<Mat> a(8), b(2);
    reduce_scatter<Mat>(node.world(), a, b, mat_product(), with("ring"));
  }, "ring with a non-commutative op");
}

// 001 "All-to-all reduction" on a hypercube: t_s log p + t_w (p-1) m (+ gamma (p-1) m).
TEST(ReduceScatter, HypercubeTableRow) {
  auto m = make_machine(64, test_model(Port::exchange, Routing::wormhole), "hypercube:64");
  for (std::size_t n : {1, 10}) {
    Failures f;
    Picos t = run_rs(*m, "recursive_halving", n, {}, true, f);
    ASSERT_TRUE(f.empty()) << f.text();
    const CostUnits u(m->config().model);
    EXPECT_EQ(t, 6 * u.alpha + Picos(63 * n) * (u.beta + u.gamma));
  }
}

RC_GTEST_PROP(ReduceScatterProperty, MatchesTheReferenceOnAnyMachine, ()) {
  const int p = *rc::gen::inRange(1, 81);
  const std::size_t n = *rc::gen::inRange<std::size_t>(0, 100000 / (p * p) + 2);
  const bool commutative = *rc::gen::arbitrary<bool>();
  const bool uneven = *rc::gen::arbitrary<bool>();
  std::vector<std::size_t> counts;
  if (uneven) counts = *rc::gen::container<std::vector<std::size_t>>(p, rc::gen::inRange<std::size_t>(0, n + 2));
  const auto& table = algorithms(Operation::reduce_scatter);
  const Algorithm& a = table[*rc::gen::inRange<std::size_t>(commutative ? 0 : 1, table.size())];
  const Port port = *rc::gen::element(Port::exchange, Port::duplex, Port::half, Port::all);
  const Routing routing = *rc::gen::element(Routing::direct, Routing::wormhole);
  const std::string topo = *rc::gen::element(std::string("full:"), std::string("ring:"),
                                             std::string("hypercube:")) + std::to_string(p);
  auto m = make_machine(p, test_model(port, routing), topo);
  Failures f;
  run_rs(*m, a.name, n, counts, commutative, f);
  RC_ASSERT(f.empty());
}

}  // namespace
}  // namespace vmc
