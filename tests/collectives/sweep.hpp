// The registry-driven sweep and the RapidCheck property shared by the combine-family tests.
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "tests/collectives/combine_cases.hpp"

namespace vmc::testing {

inline bool rooted(Operation op) { return op == Operation::broadcast || op == Operation::reduce; }

// Every registered algorithm of `op` x p in sweep_sizes() x lengths x roots, int64 sum and
// the non-commutative matrix product (where the algorithm accepts it), in place on odd n.
inline void sweep(Operation op) {
  const Op sum = ops::sum<std::int64_t>();
  const Op mat = matmul();
  for (int p : sweep_sizes()) {
    auto m = machine("full:" + std::to_string(p), model(p % 2 ? Port::exchange : Port::duplex));
    for (const Algorithm& a : algorithms(op)) {
      for (std::size_t n : sweep_lengths(p)) {
        for (int root : rooted(op) ? sweep_roots(p) : std::vector<int>{0}) {
          Case k{.operation = op, .algorithm = a.name, .n = n, .root = root,
                 .in_place = (n % 2) == 1, .seed = std::uint64_t(p * 31 + root)};
          CostQuery q;
          q.p = p;
          q.root = root;
          q.commutative = true;
          if (!a.applicable(q)) continue;
          EXPECT_EQ(run_case<std::int64_t>(*m, k, sum), "");
          q.commutative = false;
          if (op != Operation::broadcast && a.applicable(q)) {
            EXPECT_EQ(run_case<Mat3>(*m, k, mat), "");
          }
        }
      }
    }
  }
}

// Every algorithm on the sub-groups of harness.hpp (comm.split), with the order recorder.
inline void sweep_sub_groups(Operation op) {
  const Op order = order_recorder();
  const Op sum = ops::sum<std::int64_t>();
  for (int p : {6, 9, 16}) {
    auto m = machine("full:" + std::to_string(p), model(Port::duplex));
    for (const SubGroup& g : sub_groups()) {
      for (const Algorithm& a : algorithms(op)) {
        for (int root : rooted(op) ? std::vector<int>{0, 1} : std::vector<int>{0}) {
          Case k{.operation = op, .algorithm = a.name, .n = 5, .root = root};
          CostQuery q;  // sub-group sizes vary: only algorithms for any p run here
          q.commutative = op == Operation::broadcast;
          bool any_p = true;
          for (int s = 1; s <= p; ++s) {
            q.p = s;
            any_p = any_p && a.applicable(q);
          }
          if (any_p && op != Operation::broadcast) {
            EXPECT_EQ(run_case<Span>(*m, k, order, &g), "");
          } else if (any_p && op == Operation::broadcast) {
            EXPECT_EQ(run_case<std::int64_t>(*m, k, sum, &g), "");
          }
        }
      }
    }
  }
}

// One random case of `op`: p in 1..80, root, length, algorithm, topology, port model.
template <class T>
void property(Operation op, const Op& o) {
  const int p = *rc::gen::inRange(1, 81);
  const std::size_t n = *rc::gen::oneOf(
      rc::gen::just<std::size_t>(0), rc::gen::just<std::size_t>(1),
      rc::gen::inRange<std::size_t>(0, std::size_t(p) + 3), rc::gen::inRange<std::size_t>(0, 3000),
      rc::gen::inRange<std::size_t>(0, 100001));
  const int root = rooted(op) ? *rc::gen::inRange(0, p) : 0;
  std::vector<std::string> names;
  for (const Algorithm& a : algorithms(op)) {
    CostQuery q;
    q.p = p;
    q.root = root;
    q.commutative = o.commutative();
    if (a.applicable(q)) names.push_back(a.name);
  }
  const std::string alg = *rc::gen::elementOf(names);
  const Port port = *rc::gen::element(Port::exchange, Port::duplex, Port::half, Port::all);
  const std::string topo = *rc::gen::element(std::string("full:"), std::string("ring:"),
                                             std::string("hypercube:"));
  auto m = machine(topo + std::to_string(p), model(port, Routing::wormhole));
  Case k{.operation = op, .algorithm = alg, .n = n, .root = root,
         .in_place = *rc::gen::arbitrary<bool>(),
         .seed = *rc::gen::inRange<std::uint64_t>(1, 1000)};
  const std::string failure = run_case<T>(*m, k, o);
  RC_ASSERT(failure == "");
}

}  // namespace vmc::testing
