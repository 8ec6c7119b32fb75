// barrier: every algorithm for every p in the sweep; no node leaves before the last one
// arrived (checked in virtual time: a node that enters late delays everybody); bad input to
// the combine-family collectives ends the run with an error naming the node, never a hang.
#include "tests/collectives/sweep.hpp"

namespace vmc::testing {
namespace {

TEST(Barrier, NobodyLeavesBeforeTheLastArrives) {
  for (int p : sweep_sizes()) {
    auto m = machine("full:" + std::to_string(p), model(Port::duplex));
    for (const std::string& alg : algorithm_names(Operation::barrier)) {
      const int late = p / 2;
      std::vector<double> leave(p);
      m->run([&](Node& node) {
        if (node.rank() == late) node.charge_compute(1.0);  // enters one second late
        barrier(node.world(), {.algorithm = alg});
        leave[node.rank()] = 0;
      });
      RunResult r = m->run([&](Node& node) {
        if (node.rank() == late) node.charge_compute(1.0);
        barrier(node.world(), {.algorithm = alg});
      });
      for (int i = 0; i < p; ++i) {
        EXPECT_GE(r.node_time(i), 1.0) << alg << " p=" << p << " node " << i;
      }
    }
  }
}

TEST(Barrier, SubGroups) {
  auto m = machine("full:12");
  for (const SubGroup& g : sub_groups()) {
    for (const std::string& alg : algorithm_names(Operation::barrier)) {
      EXPECT_EQ(run_error(*m, [&](Node& node) {
                  Comm c = node.world().split(g.color(node.rank(), 12), g.key(node.rank(), 12));
                  if (c.valid()) barrier(c, {.algorithm = alg});
                }),
                "");
    }
  }
}

// --- bad input ------------------------------------------------------------------------------

TEST(BadInput, EndsTheRunWithAnErrorNamingTheNode) {
  auto m = machine("full:6");
  const Op sum = ops::sum<int>();
  std::vector<int> x(10, 1), y(10);
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(4);
    broadcast(n.world(), std::span(a), 6);
  }, "root out of range");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(4);
    broadcast(n.world(), std::span(a), n.rank() == 3 ? 1 : 0);
  }, "roots differ");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(n.rank() == 2 ? 5 : 4), b(a.size());
    allreduce(n.world(), std::span<const int>(a), std::span(b), sum);
  }, "counts differ");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(8, 1), b(n.rank() == 4 ? 7 : 8);
    allreduce(n.world(), std::span<const int>(a), std::span(b), sum);
  }, "receive buffer too small");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(8, 1), b(n.rank() == 0 ? 3 : 8);
    reduce(n.world(), std::span<const int>(a), std::span(b), sum, 0);
  }, "reduce receive buffer too small at the root");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(8, 1);
    scan(n.world(), std::span<const int>(a.data(), 6), std::span(a.data() + 2, 6), sum);
  }, "aliased buffers");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(8, 1);
    if (n.rank() == 1) scan(n.world(), std::span(a), sum);
    else exscan(n.world(), std::span(a), sum);
  }, "different collectives");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(8, 1);
    allreduce(n.world(), std::span(a), n.rank() == 5 ? ops::max<int>() : sum);
  }, "different ops");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<double> a(8, 1);
    allreduce(n.world(), std::span(a), sum);  // a 4-byte op on 8-byte items
  }, "op item size");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<Mat3> a(3);
    allreduce(n.world(), std::span(a), matmul(), {.algorithm = "ring"});
  }, "ring with a non-commutative op");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(3);
    scan(n.world(), std::span(a), sum, {.algorithm = "hypercube"});  // p = 6
  }, "hypercube scan on 6 nodes");
  expect_error_naming_node(*m, [&](Node& n) {
    std::vector<int> a(3);
    reduce(n.world(), std::span(a), sum, 0, {.algorithm = "no_such_algorithm"});
  }, "unknown algorithm");
  expect_error_naming_node(*m, [&](Node& n) {
    if (n.rank() != 2) barrier(n.world());
  }, "a node skips the barrier");
  // The machine is usable after all of this.
  EXPECT_EQ(run_error(*m, [&](Node& n) { barrier(n.world()); }), "");
}

}  // namespace
}  // namespace vmc::testing
