// scatter and gather: every registered algorithm over the sweep (p, every root for small
// p, length, in place, port model), sub-communicators, bad input, virtual time against
// cost, 001's hypercube rows and RapidCheck properties.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "collectives/gather/gather.hpp"
#include "collectives/registry/tables.hpp"
#include "collectives/scatter/scatter.hpp"
#include "tests/collectives/harness.hpp"

namespace vmc {
namespace {

using namespace vmc::testing;

Picos run_scatter(Machine& m, const std::string& alg, std::size_t n, int root, bool in_place,
                  Failures& f, const SubGroup* group = nullptr) {
  auto res = m.run([&](Node& node) {
    Comm comm = group ? split(node, *group) : node.world();
    const int p = comm.size(), me = comm.rank();
    std::vector<std::int64_t> send;
    if (me == root) {
      send.resize(n * p);
      for (std::size_t i = 0; i < send.size(); ++i) send[i] = stamp(root, i);
    }
    Guarded<std::int64_t> recv(n);
    if (in_place && me == root) {
      scatter_in_place(comm, std::span<std::int64_t>(send), root, with(alg));
      for (std::size_t i = 0; i < n * p; ++i)
        if (send[i] != stamp(root, i)) return f.add(alg + ": in-place root buffer changed");
      return;
    }
    if (in_place) scatter_in_place(comm, recv.span(), root, with(alg));
    else scatter<std::int64_t>(comm, send, recv.span(), root, with(alg));
    auto want = reference_of<std::int64_t>(
        {.op = Operation::scatter, .members = p, .n = n, .root = root, .in_place = in_place},
        nullptr, stamp);
    const std::string wrong = result_error(want, me, recv);
    if (!wrong.empty()) {
      f.add(alg + " scatter p " + std::to_string(p) + " root " + std::to_string(root) + ": " +
            wrong);
    }
  });
  return res.time_ps();
}

Picos run_gather(Machine& m, const std::string& alg, std::size_t n, int root, bool in_place,
                 Failures& f, const SubGroup* group = nullptr) {
  auto res = m.run([&](Node& node) {
    Comm comm = group ? split(node, *group) : node.world();
    const int p = comm.size(), me = comm.rank();
    std::vector<std::int64_t> send(n);
    for (std::size_t i = 0; i < n; ++i) send[i] = stamp(me, i);
    if (me != root) {
      if (in_place) gather_in_place(comm, std::span<std::int64_t>(send), root, with(alg));
      else gather<std::int64_t>(comm, send, std::span<std::int64_t>(), root, with(alg));
      return;
    }
    Guarded<std::int64_t> recv(n * p);
    if (in_place) {
      for (std::size_t i = 0; i < n; ++i) recv.span()[root * n + i] = send[i];
      gather_in_place(comm, recv.span(), root, with(alg));
    } else {
      gather<std::int64_t>(comm, send, recv.span(), root, with(alg));
    }
    auto want = reference_of<std::int64_t>(
        {.op = Operation::gather, .members = p, .n = n, .root = root, .in_place = in_place},
        nullptr, stamp);
    const std::string wrong = result_error(want, me, recv);
    if (!wrong.empty()) {
      f.add(alg + " gather p " + std::to_string(p) + " root " + std::to_string(root) + ": " +
            wrong);
    }
  });
  return res.time_ps();
}

TEST(ScatterGather, SweepEveryAlgorithmPRootLengthAndPort) {
  for (int p : sweep_sizes()) {
    for (Port port : {Port::exchange, Port::duplex, Port::all}) {
      if (port != Port::exchange && p > 17 && p != 64) continue;
      auto m = machine(p, model(port));
      for (Operation op : {Operation::scatter, Operation::gather}) {
        for (const Algorithm& a : algorithms(op)) {
          for (int root : sweep_roots(p)) {
            for (std::size_t n : sweep_lengths(p)) {
              for (bool in_place : {false, true}) {
                if (in_place && n != 1) continue;
                Failures f;
                Picos t = op == Operation::scatter ? run_scatter(*m, a.name, n, root, in_place, f)
                                                   : run_gather(*m, a.name, n, root, in_place, f);
                ASSERT_TRUE(f.empty()) << f.text();
                ASSERT_EQ(t, a.cost(query_for(*m, n, root, 8)))
                    << to_string(op) << " " << a.name << " p " << p << " root " << root << " n "
                    << n << " " << to_string(port);
              }
            }
          }
        }
      }
    }
  }
}

TEST(ScatterGather, SubCommunicators) {
  auto m = machine(11);
  for (const SubGroup& g : covering_sub_groups()) {
    for (const char* alg : {"linear", "binomial"}) {
      Failures f;
      run_scatter(*m, alg, 4, 1, false, f, &g);
      run_gather(*m, alg, 4, 2, false, f, &g);
      ASSERT_TRUE(f.empty()) << f.text();
    }
  }
}

TEST(ScatterGather, BadInputIsAnErrorNamingTheNode) {
  auto m = machine(4);
  expect_error_naming_node(*m, [](Node& node) {
    std::vector<int> a(8), b(2);
    scatter<int>(node.world(), a, b, 4);
  }, "root out of range");
  expect_error_naming_node(*m, [](Node& node) {
    std::vector<int> a(7), b(2);
    scatter<int>(node.world(), a, b, 0);
  }, "root's send too small");
  expect_error_naming_node(*m, [](Node& node) {
    std::vector<int> a(2), b(7);
    gather<int>(node.world(), a, b, 0);
  }, "root's recv too small");
  expect_error_naming_node(*m, [](Node& node) {
    std::vector<int> b(8);
    gather<int>(node.world(), std::span<const int>(b.data(), 2), std::span<int>(b), 0);
  }, "aliased gather");
  expect_error_naming_node(*m, [](Node& node) {
    std::vector<int> a(8), b(2);
    gather<int>(node.world(), b, a, node.rank() == 3 ? 1 : 0);
  }, "roots disagree");
}

// 001 hypercube rows: scatter and gather t_s log p + t_w (p-1) m on hypercube:64 (root 0:
// every binomial edge joins neighbours).
TEST(ScatterGather, HypercubeTableRows) {
  auto m = machine("hypercube:64", model(Port::exchange, Routing::wormhole));
  const CostUnits u(m->config().model);
  for (std::size_t n : {1, 50}) {
    Failures f;
    EXPECT_EQ(run_scatter(*m, "binomial", n, 0, false, f), 6 * u.alpha + Picos(63 * n) * u.beta);
    EXPECT_EQ(run_gather(*m, "binomial", n, 0, false, f), 6 * u.alpha + Picos(63 * n) * u.beta);
    ASSERT_TRUE(f.empty()) << f.text();
  }
}

RC_GTEST_PROP(ScatterGatherProperty, MatchesTheReferenceOnAnyMachine, ()) {
  const int p = *rc::gen::inRange(1, 81);
  const int root = *rc::gen::inRange(0, p);
  const std::size_t n = *rc::gen::inRange<std::size_t>(0, 100000 / p + 2);
  const bool is_scatter = *rc::gen::arbitrary<bool>();
  const std::string alg = *rc::gen::element(std::string("linear"), std::string("binomial"));
  const Port port = *rc::gen::element(Port::exchange, Port::duplex, Port::half, Port::all);
  const Routing routing = *rc::gen::element(Routing::direct, Routing::wormhole,
                                            Routing::store_and_forward);
  const std::string topo = *rc::gen::element(std::string("full:"), std::string("ring:"),
                                             std::string("hypercube:")) + std::to_string(p);
  auto m = machine(topo, model(port, routing));
  Failures f;
  if (is_scatter) run_scatter(*m, alg, n, root, false, f);
  else run_gather(*m, alg, n, root, false, f);
  RC_ASSERT(f.empty());
}

}  // namespace
}  // namespace vmc
