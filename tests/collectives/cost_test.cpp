// Virtual time equals each algorithm's cost formula exactly where its file says it is
// exact (contention-free: direct routing, or a hypercube under wormhole for the hypercube
// algorithms), for many p (powers of two and not), n (0, 1, < p, not divisible by p,
// large), roots and port models; and 001's hypercube cost table for p = 64.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "tests/collectives/combine_cases.hpp"

namespace vmc::testing {
namespace {

bool power_of_two(int p) { return (p & (p - 1)) == 0; }

// Where each row applies, as its file states (the test's own statement, not the registry's
// predicate): the all-port rows need p a power of two, and those that combine a commutative
// op; the hypercube scans need p a power of two; the ring allreduce, 004's rows that reduce
// along dimensions or fold in pipelines (and their families, each forced to a member by
// test_hybrid) and 000's hybrids need a commutative op (the hybrid with a given strategy an
// S of one entry per dimension, which test_strategy gives). Every other row of
// these operations applies to every p. A row that stops applying where this says it does
// fails the sweep instead of dropping out of it.
bool expected_to_apply(Operation op, const std::string& alg, int p, bool commutative) {
  const bool combining = op != Operation::broadcast && op != Operation::barrier;
  if (alg.starts_with("allport")) return power_of_two(p) && (commutative || !combining);
  if (alg == "hypercube") return power_of_two(p);
  if (alg.starts_with("hybrid")) return commutative;
  if (op == Operation::allreduce &&
      (alg == "ring" || alg == "mesh_dr" || alg.starts_with("mesh_pfr_dc") ||
       alg == "mesh_dopl" || alg.starts_with("mesh_pfr_pfr_dc"))) {
    return commutative;
  }
  if (op == Operation::reduce &&
      (alg == "mesh_dg" || alg == "mesh_dopl" || alg.starts_with("mesh_mst_dg"))) {
    return commutative;
  }
  return true;
}

// Where each algorithm's cost is exact, as its file states. The mesh rows' conditions
// depend on the group's shape and the root (004's rows on full:p run on its linear array);
// their claim functions state them, so those rows are held to their claims here.
bool exact(Operation op, const std::string& alg, Port port, int p, std::size_t n,
           const CostQuery& q) {
  const bool two_sided = port == Port::duplex || port == Port::all;
  const bool not_half = port != Port::half;
  if (alg.starts_with("allport")) return port == Port::all;  // their files: exact all-port
  if (alg.starts_with("mesh_")) {
    const Algorithm& a = *find_algorithm(op, alg);
    return claim_of(a, row_query(op, a, q)) == Claim::exact;  // a family's: its member's
  }
  switch (op) {
    case Operation::broadcast:
      if (alg == "scatter_allgather") return power_of_two(p) || two_sided;
      return true;
    case Operation::reduce:
      if (alg == "reduce_scatter_gather") return power_of_two(p);
      // collectives/hybrid: combine-to-root with uneven halves is a lower bound (eager
      // send-backs from the smaller halves can take a busy node's port).
      if (alg.starts_with("hybrid")) return power_of_two(p) && not_half && n % p == 0;
      return true;
    case Operation::allreduce:
      if (alg.starts_with("hybrid")) return power_of_two(p) && not_half;
      if (alg == "ring") return two_sided || p <= 2;
      if (alg == "reduce_broadcast") return true;
      if (alg == "recursive_halving_doubling") return power_of_two(p);
      return not_half || power_of_two(p);
    case Operation::scan:
    case Operation::exscan:
      if (alg == "recursive_doubling") return not_half || power_of_two(p);
      return true;
    case Operation::barrier:
      if (alg == "dissemination") return two_sided || p <= 2;
      return true;
    default: return false;
  }
}

CostQuery query(const Machine& m, Operation op, const std::string& alg, std::size_t n, int root,
                std::size_t item_size, bool commutative) {
  CostQuery q = query_for(m, op == Operation::barrier ? 0 : n, root, item_size, commutative);
  q.options.algorithm = alg;
  q.options.strategy = test_strategy(alg, q.p);
  q.options.hybrid = test_hybrid(op, alg, q);
  return q;
}

// Runs one call and returns {measured, predicted}. The caller expects the row to apply: one
// that does not is a failure, and {-1, -2} (never equal) is returned.
std::pair<Picos, Picos> measure(Machine& m, Operation op, const std::string& alg, std::size_t n,
                                int root, bool commutative) {
  const Algorithm* a = find_algorithm(op, alg);
  if (a == nullptr) {
    ADD_FAILURE() << to_string(op) << " " << alg << " is not in the registry";
    return {-1, -2};
  }
  const CostQuery q = query(m, op, alg, n, root, sizeof(std::int64_t), commutative);
  if (!a->applicable(q)) {
    ADD_FAILURE() << to_string(op) << " " << alg << " does not apply at p=" << q.p
                  << " n=" << n << " root=" << root << (commutative ? "" : " non-commutative");
    return {-1, -2};
  }
  const Op sum = ops::sum<std::int64_t>();
  const Op nc = ops::custom<std::int64_t>("first", false, [](std::int64_t x, std::int64_t) {
    return x;
  });
  RunResult r = m.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<std::int64_t> x(n, node.rank()), y(n);
    const Op& o = commutative ? sum : nc;
    Options opt;
    opt.algorithm = alg;
    opt.strategy = q.options.strategy;
    opt.hybrid = q.options.hybrid;
    switch (op) {
      case Operation::broadcast: broadcast(c, std::span(x), root, opt); break;
      case Operation::reduce: reduce(c, std::span<const std::int64_t>(x), std::span(y), o, root, opt); break;
      case Operation::allreduce: allreduce(c, std::span<const std::int64_t>(x), std::span(y), o, opt); break;
      case Operation::scan: scan(c, std::span<const std::int64_t>(x), std::span(y), o, opt); break;
      case Operation::exscan: exscan(c, std::span<const std::int64_t>(x), std::span(y), o, opt); break;
      case Operation::barrier: barrier(c, opt); break;
      default: break;
    }
  });
  return {r.time_ps(), a->cost(row_query(op, *a, q))};  // a family's row: its member's cost
}

const std::vector<Operation> kMine = {Operation::broadcast, Operation::reduce,
                                      Operation::allreduce, Operation::scan,
                                      Operation::exscan,    Operation::barrier};

// Sweeps full:p for p in ps, checks that the expected rows were held to their formula, and
// returns those it held ("op algorithm").
std::set<std::string> sweep_costs(const Model& mdl, const std::vector<int>& ps) {
  std::set<std::string> checked;
  for (int p : ps) {
    auto m = machine("full:" + std::to_string(p), mdl);
    for (Operation op : kMine) {
      for (const std::string& alg : algorithm_names(op)) {
        for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t(p > 1 ? p - 1 : 2),
                              std::size_t(2 * p + 1), std::size_t{1000}}) {
          for (int root : {0, p / 2, p - 1}) {
            for (bool commutative : {true, false}) {
              if (op == Operation::barrier && (n > 0 || root > 0 || !commutative)) continue;
              if (op != Operation::reduce && op != Operation::broadcast && root > 0) continue;
              const CostQuery q = query(*m, op, alg, n, root, sizeof(std::int64_t), commutative);
              const bool applies = find_algorithm(op, alg)->applicable(q);
              EXPECT_EQ(applies, expected_to_apply(op, alg, p, commutative))
                  << to_string(op) << " " << alg << " p=" << p
                  << (commutative ? "" : " non-commutative")
                  << (is_member_row(op, alg) ? " member " + std::to_string(q.options.hybrid) : "");
              if (!applies || !exact(op, alg, mdl.port, p, n, q)) continue;
              checked.insert(to_string(op) + " " + alg);
              auto [t, c] = measure(*m, op, alg, n, root, commutative);
              EXPECT_EQ(t, c) << to_string(op) << " " << alg << " port " << to_string(mdl.port)
                              << " p=" << p << " n=" << n << " root=" << root
                              << (commutative ? "" : " non-commutative");
            }
          }
        }
      }
    }
  }
  // Which rows the sweep holds to their formula is decided above and by the mesh rows' claim
  // functions; it is pinned here: every row of these operations, but the all-port rows off
  // all-port nodes, 000's hybrids under half ports, and 004's reduce and allreduce mesh_dopl
  // where a node cannot send and receive with two partners at once (exchange, half).
  const bool two_sided = mdl.port == Port::duplex || mdl.port == Port::all;
  for (Operation op : kMine) {
    for (const std::string& alg : algorithm_names(op)) {
      if ((alg.starts_with("allport") && mdl.port != Port::all) ||
          (alg.starts_with("hybrid") && mdl.port == Port::half) ||
          ((op == Operation::reduce || op == Operation::allreduce) && alg == "mesh_dopl" &&
           !two_sided)) {
        continue;
      }
      EXPECT_TRUE(checked.contains(to_string(op) + " " + alg))
          << to_string(op) << " " << alg << " is never held to its formula under "
          << to_string(mdl.port) << " ports";
    }
  }
  return checked;
}

const std::vector<int> kSizes = {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 16, 17, 20, 24, 31, 32, 33};

TEST(Cost, ExactUnderExchange) { sweep_costs(model(Port::exchange), kSizes); }
TEST(Cost, ExactUnderDuplex) { sweep_costs(model(Port::duplex), kSizes); }
TEST(Cost, ExactUnderAll) { sweep_costs(model(Port::all), kSizes); }
TEST(Cost, ExactUnderHalf) { sweep_costs(model(Port::half), kSizes); }
TEST(Cost, ExactWhenCombiningDominates) {
  sweep_costs(model(Port::exchange, Routing::direct, 1e-6, 2e-9, 40e-9), kSizes);
  sweep_costs(model(Port::duplex, Routing::direct, 1e-6, 2e-9, 40e-9), kSizes);
}
TEST(Cost, ExactWithoutCombineCost) {
  sweep_costs(model(Port::exchange, Routing::direct, 1e-6, 2e-9, 0), kSizes);
  sweep_costs(model(Port::duplex, Routing::direct, 1e-6, 2e-9, 0), kSizes);
}

// Hypercube algorithms on a hypercube under wormhole routing: every exchange is one link.
TEST(Cost, ExactOnHypercubeWormhole) {
  for (int p : {2, 4, 8, 16, 32, 64}) {
    auto m = machine("hypercube:" + std::to_string(p), model(Port::exchange, Routing::wormhole));
    const std::vector<std::pair<Operation, std::string>> cube = {
        {Operation::broadcast, "binomial"},         {Operation::broadcast, "scatter_allgather"},
        {Operation::reduce, "binomial"},            {Operation::reduce, "reduce_scatter_gather"},
        {Operation::allreduce, "reduce_broadcast"}, {Operation::allreduce, "recursive_doubling"},
        {Operation::allreduce, "recursive_halving_doubling"},
        {Operation::scan, "hypercube"},             {Operation::exscan, "hypercube"},
        {Operation::scan, "recursive_doubling"},    {Operation::barrier, "tree"}};
    for (const auto& [op, alg] : cube) {
      for (std::size_t n : {std::size_t{1}, std::size_t{1000}}) {
        for (int root : {0, p - 1}) {
          if (op != Operation::reduce && op != Operation::broadcast && root > 0) continue;
          auto [t, c] = measure(*m, op, alg, n, root, true);
          EXPECT_EQ(t, c) << to_string(op) << " " << alg << " p=" << p << " n=" << n
                          << " root=" << root;
        }
      }
    }
  }
}

// 001's hypercube table: broadcast, reduction, all-reduce and prefix sum each take
// (ts + tw m) log p with ts = alpha, tw = beta (combining free).
TEST(Cost, Seed001HypercubeTableForP64) {
  Model mdl = model(Port::exchange, Routing::wormhole, 525e-6, 2e-6, 0);
  auto m = machine("hypercube:64", mdl);
  const std::size_t msg = 100;
  const Picos expected = 6 * (to_picos(525e-6) + Picos(msg) * to_picos(2e-6));
  const std::vector<std::pair<Operation, std::string>> rows = {
      {Operation::broadcast, "binomial"},
      {Operation::reduce, "binomial"},
      {Operation::allreduce, "recursive_doubling"},
      {Operation::scan, "hypercube"}};
  for (const auto& [op, alg] : rows) {
    auto [t, c] = measure(*m, op, alg, msg, 0, true);
    EXPECT_EQ(t, expected) << to_string(op);
    EXPECT_EQ(c, expected) << to_string(op);
  }
}

}  // namespace
}  // namespace vmc::testing
