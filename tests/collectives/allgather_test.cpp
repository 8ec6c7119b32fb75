// allgather: every registered algorithm over the sweep (p, length, in place, port model),
// on sub-communicators, bad input, virtual time against each algorithm's cost, 001's
// hypercube row, and a RapidCheck property against the sequential reference.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "collectives/allgather/allgather.hpp"
#include "collectives/registry/tables.hpp"
#include "tests/collectives/harness.hpp"

namespace vmc {
namespace {

using namespace vmc::testing;

// Whether the algorithm's cost is claimed exact for this p and port (see each file).
bool exact(const std::string& alg, int p, Port port) {
  if (alg.starts_with("allport")) return port == Port::all;
  if (port != Port::exchange) return true;
  if (alg == "ring" || alg == "mesh_dr") return p % 2 == 0 || p <= 2;  // mesh_dr: full:p's ring
  // exchanges; rings of odd primes drift (the PFR-DR hybrids' members too)
  if (alg.starts_with("mesh_pfr")) return (p & (p - 1)) == 0;  // mesh_pfr, _alt, the families
  if (alg == "bruck") return p <= 2;
  return true;
}

// Runs one allgather on comm-world of m; returns the time; checks every node's result.
Picos run_allgather(Machine& m, const std::string& alg, std::size_t n, bool in_place,
                    Failures& f) {
  const int p = m.size();
  auto r = m.run([&](Node& node) {
    const int me = node.rank();
    Guarded<std::int64_t> recv(n * p);
    std::vector<std::int64_t> mine(n);
    for (std::size_t i = 0; i < n; ++i) mine[i] = stamp(me, i);
    Options o = with(alg);
    if (in_place) {
      for (std::size_t i = 0; i < n; ++i) recv.span()[me * n + i] = mine[i];
      allgather(node.world(), recv.span(), o);
    } else {
      allgather<std::int64_t>(node.world(), mine, recv.span(), o);
    }
    auto want = reference_of<std::int64_t>({.op = Operation::allgather, .members = p, .n = n},
                                           nullptr, stamp);
    const std::string wrong = result_error(want, me, recv);
    if (!wrong.empty()) {
      f.add(alg + " p " + std::to_string(p) + " n " + std::to_string(n) + ": " + wrong);
    }
  });
  return r.time_ps();
}

TEST(Allgather, SweepEveryAlgorithmPLengthAndPort) {
  for (int p : sweep_sizes()) {
    for (Port port : {Port::exchange, Port::duplex}) {
      if (port == Port::duplex && p > 17 && p != 64) continue;
      auto m = machine(p, model(port));
      for (const Algorithm& a : algorithms(Operation::allgather)) {
        if (!applies(Operation::allgather, a.name, p, true)) continue;  // p a power of two
        for (std::size_t n : sweep_lengths(p)) {
          for (bool in_place : {false, true}) {
            if (in_place && n != 1) continue;
            Failures f;
            Picos t = run_allgather(*m, a.name, n, in_place, f);
            ASSERT_TRUE(f.empty()) << f.text();
            if (exact(a.name, p, port)) {
              ASSERT_EQ(t, a.cost(query_for(*m, n, 0, 8)))
                  << a.name << " p " << p << " n " << n << " port " << to_string(port);
            }
          }
        }
      }
    }
  }
}

TEST(Allgather, SubCommunicators) {
  const int p = 13;
  auto m = machine(p);
  for (const Algorithm& a : algorithms(Operation::allgather)) {
    // The all-port row (powers of two) runs on sub-groups in testing_harness_test.
    if (!applies_to_every_size(Operation::allgather, a.name, p, true)) continue;
    for (const SubGroup& g : covering_sub_groups()) {
      Failures f;
      m->run([&](Node& node) {
        Comm sub = split(node, g);
        const std::size_t n = 5;
        std::vector<std::int64_t> mine(n), all(n * sub.size());
        for (std::size_t i = 0; i < n; ++i) mine[i] = stamp(sub.rank(), i);
        allgather<std::int64_t>(sub, mine, all, with(a.name));
        auto want = reference_of<std::int64_t>(
            {.op = Operation::allgather, .members = sub.size(), .n = n}, nullptr, stamp);
        if (all != expected_items<std::int64_t>(want, sub.rank())) {
          f.add(a.name + " split " + g.name);
        }
      });
      ASSERT_TRUE(f.empty()) << f.text();
    }
  }
}

TEST(Allgather, BadInputIsAnErrorNamingTheNode) {
  auto m = machine(4);
  auto expect_error = [&](const std::function<void(Node&)>& fn, const std::string& what) {
    expect_error_naming_node(*m, fn, what, {"allgather"});
  };
  expect_error(
      [](Node& node) {
        std::vector<int> a(3), b(11);
        allgather<int>(node.world(), a, b);
      },
      "receive buffer too small");
  expect_error(
      [](Node& node) {
        std::vector<int> b(12);
        allgather<int>(node.world(), std::span<const int>(b.data() + 3, 3), std::span<int>(b));
      },
      "aliased buffers");
  expect_error(
      [](Node& node) {
        std::vector<int> b(10);
        allgather(node.world(), std::span<int>(b));
      },
      "in-place buffer not a multiple of p");
  expect_error(
      [](Node& node) {
        std::vector<int> a(3), b(12);
        allgather<int>(node.world(), a, b, with("no_such"));
      },
      "unknown algorithm");
}

// 001 "All-to-all broadcast" on a hypercube: t_s log p + t_w (p-1) m, on hypercube:64 with
// wormhole (recursive doubling talks to neighbours only).
TEST(Allgather, HypercubeTableRow) {
  for (Port port : {Port::exchange, Port::duplex}) {
    auto m = machine("hypercube:64", model(port, Routing::wormhole));
    for (std::size_t n : {1, 100}) {
      Failures f;
      Picos t = run_allgather(*m, "recursive_doubling", n, false, f);
      ASSERT_TRUE(f.empty()) << f.text();
      const CostUnits u(m->config().model);
      EXPECT_EQ(t, 6 * u.alpha + Picos(63 * n) * u.beta);
    }
  }
}

RC_GTEST_PROP(AllgatherProperty, MatchesTheReferenceOnAnyMachine, ()) {
  const int p = *rc::gen::inRange(1, 81);
  const std::size_t n = *rc::gen::inRange<std::size_t>(0, 200000 / (p * p) + 2);
  const auto& table = algorithms(Operation::allgather);
  const Algorithm& a = table[*rc::gen::inRange<std::size_t>(0, table.size())];
  CostQuery q;
  q.p = p;
  RC_PRE(a.applicable(q));  // allport_doubling: p a power of two
  const Port port = *rc::gen::element(Port::exchange, Port::duplex, Port::half, Port::all);
  const Routing routing = *rc::gen::element(Routing::direct, Routing::wormhole,
                                            Routing::store_and_forward);
  const std::string topo = *rc::gen::element(std::string("full:"), std::string("ring:"),
                                             std::string("hypercube:")) + std::to_string(p);
  const bool use_struct = *rc::gen::arbitrary<bool>();
  auto m = machine(topo, model(port, routing));
  Failures f;
  m->run([&](Node& node) {
    const int me = node.rank();
    if (use_struct) {
      std::vector<Mat3> mine(n), all(n * p);
      for (std::size_t i = 0; i < n; ++i) mine[i] = value<Mat3>(me, i);
      allgather<Mat3>(node.world(), mine, all, with(a.name));
      auto want = reference_of<Mat3>({.op = Operation::allgather, .members = p, .n = n}, nullptr,
                                     [](int r, std::size_t i) { return value<Mat3>(r, i); });
      if (all != expected_items<Mat3>(want, me)) return f.add("struct mismatch");
    } else {
      std::vector<std::int64_t> mine(n), all(n * p);
      for (std::size_t i = 0; i < n; ++i) mine[i] = stamp(me, i);
      allgather<std::int64_t>(node.world(), mine, all, with(a.name));
      auto want = reference_of<std::int64_t>({.op = Operation::allgather, .members = p, .n = n},
                                             nullptr, stamp);
      if (all != expected_items<std::int64_t>(want, me)) return f.add("mismatch");
    }
  });
  RC_ASSERT(f.empty());
}

}  // namespace
}  // namespace vmc
