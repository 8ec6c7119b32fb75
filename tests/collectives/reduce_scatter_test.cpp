// reduce_scatter: every registered algorithm over the sweep with a commutative op (sum) and
// a non-commutative one (3x3 matrix product, reduced in rank order), explicit counts,
// sub-communicators, bad input, virtual time against cost, 001's hypercube row and a
// RapidCheck property against the sequential reference.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "collectives/reduce_scatter/reduce_scatter.hpp"
#include "collectives/registry/tables.hpp"
#include "tests/collectives/harness.hpp"

namespace vmc {
namespace {

using namespace vmc::testing;

// Where each algorithm's cost is claimed exact (see the algorithm files).
bool exact(const std::string& alg, int p, Port port, bool equal_blocks) {
  const bool pow2 = (p & (p - 1)) == 0;
  if (!equal_blocks) return alg == "ring" && port != Port::exchange;
  if (alg == "recursive_halving") return pow2;
  if (port != Port::exchange) return true;
  if (alg == "ring" || alg == "mesh_dr") return p % 2 == 0 || p <= 2;  // mesh_dr: full:p's ring
  // exchanges; rings of odd primes drift (the PFR-DR hybrids' members too)
  if (alg.starts_with("mesh_pfr")) return pow2;  // mesh_pfr, _alt, the families
  if (alg == "pairwise") return p <= 2;
  return true;
}

// The reference of reduce_scatter among p ranks with `counts` (empty: blocks of n), the
// inputs stamp(r, i) (sum) or value<Mat3>(r, i) (matrix product, in rank order). The
// reference keeps `op`'s address: op outlives it.
template <class T>
reference::Reference rs_reference(int p, std::size_t n, const std::vector<std::size_t>& counts,
                                  const Op& op) {
  return reference_of<T>({.op = Operation::reduce_scatter, .members = p, .n = n, .counts = counts},
                         &op, [](int r, std::size_t i) {
                           if constexpr (std::is_same_v<T, Mat3>) return value<Mat3>(r, i);
                           else return stamp(r, i);
                         });
}

// One call; counts empty means equal blocks of n. Returns the time.
Picos run_rs(Machine& m, const std::string& alg, std::size_t n,
             const std::vector<std::size_t>& counts, bool commutative, Failures& f) {
  const int p = m.size();
  std::vector<std::size_t> c = counts.empty() ? std::vector<std::size_t>(p, n) : counts;
  std::vector<std::size_t> d(p, 0);
  for (int i = 1; i < p; ++i) d[i] = d[i - 1] + c[i - 1];
  const std::size_t total = d[p - 1] + c[p - 1];
  const Op sum = ops::sum<std::int64_t>(), product = matmul();
  auto res = m.run([&](Node& node) {
    const int me = node.rank();
    const std::string where = alg + " p " + std::to_string(p) + " node " + std::to_string(me);
    if (commutative) {
      std::vector<std::int64_t> send(total);
      for (std::size_t i = 0; i < total; ++i) send[i] = stamp(me, i);
      Guarded<std::int64_t> recv(c[me]);
      if (counts.empty())
        reduce_scatter<std::int64_t>(node.world(), send, recv.span(), ops::sum<std::int64_t>(),
                                     with(alg));
      else
        reduce_scatter<std::int64_t>(node.world(), send, recv.span(), counts,
                                     ops::sum<std::int64_t>(), with(alg));
      auto want = rs_reference<std::int64_t>(p, n, counts, sum);
      const std::string wrong = result_error(want, me, recv);
      if (!wrong.empty()) f.add(where + " sum: " + wrong);
    } else {
      std::vector<Mat3> send(total);
      for (std::size_t i = 0; i < total; ++i) send[i] = value<Mat3>(me, i);
      Guarded<Mat3> recv(c[me]);
      if (counts.empty())
        reduce_scatter<Mat3>(node.world(), send, recv.span(), matmul(), with(alg));
      else
        reduce_scatter<Mat3>(node.world(), send, recv.span(), counts, matmul(), with(alg));
      auto want = rs_reference<Mat3>(p, n, counts, product);
      const std::string wrong = result_error(want, me, recv);
      if (!wrong.empty()) f.add(where + " product: " + wrong);
    }
  });
  return res.time_ps();
}

TEST(ReduceScatter, SweepEveryAlgorithmPLengthAndPort) {
  for (int p : sweep_sizes()) {
    for (Port port : {Port::exchange, Port::duplex}) {
      if (port == Port::duplex && p > 17 && p != 64) continue;
      auto m = machine(p, model(port));
      for (const Algorithm& a : algorithms(Operation::reduce_scatter)) {
        for (std::size_t n : sweep_lengths(p)) {
          if (n == 1000 && p > 33) n = 100;
          for (bool commutative : {true, false}) {
            auto q = query_for(*m, n, 0, commutative ? 8 : sizeof(Mat3), commutative);
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
      auto m = machine(p, model(port));
      std::vector<std::size_t> counts(p);
      for (int r = 0; r < p; ++r) counts[r] = (r * 7 + 3) % 5;  // includes zeros
      for (const Algorithm& a : algorithms(Operation::reduce_scatter)) {
        for (bool commutative : {true, false}) {
          auto q = query_for(*m, counts[0], 0, commutative ? 8 : sizeof(Mat3), commutative);
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
  auto m = machine(p);
  const Op sum = ops::sum<std::int64_t>(), product = matmul();
  for (const Algorithm& a : algorithms(Operation::reduce_scatter)) {
    // A hybrid family's member row needs Options::hybrid: mesh_hybrid_test runs every member
    // on sub-mesh groups.
    if (is_member_row(Operation::reduce_scatter, a.name)) continue;
    for (const SubGroup& g : covering_sub_groups()) {
      Failures f;
      m->run([&](Node& node) {
        Comm sub = split(node, g);
        const int q = sub.size();
        const std::size_t n = 3;
        std::vector<Mat3> send(n * q), recv(n);
        for (std::size_t i = 0; i < send.size(); ++i) send[i] = value<Mat3>(sub.rank(), i);
        CostQuery nc;  // algorithms that need a commutative op get the sum
        nc.p = q;
        nc.commutative = false;
        const bool comm_op = !a.applicable(nc);
        if (comm_op) {
          std::vector<std::int64_t> s(n * q), r(n);
          for (std::size_t i = 0; i < s.size(); ++i) s[i] = stamp(sub.rank(), i);
          reduce_scatter<std::int64_t>(sub, s, r, ops::sum<std::int64_t>(), with(a.name));
          auto want = rs_reference<std::int64_t>(q, n, {}, sum);
          if (r != expected_items<std::int64_t>(want, sub.rank())) f.add(a.name + " split sum");
          return;
        }
        reduce_scatter<Mat3>(sub, send, recv, matmul(), with(a.name));
        auto want = rs_reference<Mat3>(q, n, {}, product);
        if (recv != expected_items<Mat3>(want, sub.rank())) {
          f.add(a.name + " split product " + g.name);
        }
      });
      ASSERT_TRUE(f.empty()) << f.text();
    }
  }
}

TEST(ReduceScatter, BadInputIsAnErrorNamingTheNode) {
  auto m = machine(4);
  expect_error_naming_node(*m, [](Node& node) {
    std::vector<int> a(7), b(2);
    reduce_scatter<int>(node.world(), a, b, ops::sum<int>());
  }, "send too small");
  expect_error_naming_node(*m, [](Node& node) {
    std::vector<int> a(8), b(2);
    reduce_scatter<int>(node.world(), a, b, ops::sum<std::int64_t>());
  }, "op item size");
  expect_error_naming_node(*m, [](Node& node) {
    std::vector<int> a(8);
    reduce_scatter<int>(node.world(), a, std::span<int>(a.data(), 2), ops::sum<int>());
  }, "aliased");
  expect_error_naming_node(*m, [](Node& node) {
    std::vector<std::size_t> counts{1, 1, 1, std::size_t(node.rank() == 2 ? 2 : 1)};
    std::vector<int> a(5), b(2);
    reduce_scatter<int>(node.world(), a, b, counts, ops::sum<int>());
  }, "counts disagree");
  expect_error_naming_node(*m, [](Node& node) {
    std::vector<Mat3> a(8), b(2);
    reduce_scatter<Mat3>(node.world(), a, b, matmul(), with("ring"));
  }, "ring with a non-commutative op");
}

// 001 "All-to-all reduction" on a hypercube: t_s log p + t_w (p-1) m (+ gamma (p-1) m).
TEST(ReduceScatter, HypercubeTableRow) {
  auto m = machine("hypercube:64", model(Port::exchange, Routing::wormhole));
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
  std::vector<std::string> names;  // the algorithms that take this op
  for (const Algorithm& x : algorithms(Operation::reduce_scatter)) {
    CostQuery q;
    q.p = p;
    q.commutative = commutative;
    if (x.applicable(q)) names.push_back(x.name);
  }
  const Algorithm& a = *find_algorithm(Operation::reduce_scatter, *rc::gen::elementOf(names));
  const Port port = *rc::gen::element(Port::exchange, Port::duplex, Port::half, Port::all);
  const Routing routing = *rc::gen::element(Routing::direct, Routing::wormhole);
  const std::string topo = *rc::gen::element(std::string("full:"), std::string("ring:"),
                                             std::string("hypercube:")) + std::to_string(p);
  auto m = machine(topo, model(port, routing));
  Failures f;
  run_rs(*m, a.name, n, counts, commutative, f);
  RC_ASSERT(f.empty());
}

}  // namespace
}  // namespace vmc
