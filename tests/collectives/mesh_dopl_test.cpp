// 004's DOPL reduction-to-one and reduction-to-all (reduce and allreduce mesh_dopl): right
// at every root and length of the sweep on every mesh and torus of 004's set, under every
// port model, their virtual time their cost to the picosecond where they claim exact (and
// never below it where they claim a lower bound); with alternations (k_alt > 1) under 004's
// model (duplex, wormhole, shared links, alpha 525 us, beta 2 us, gamma 0.35 us) on 004's
// meshes; and the run against 004's formula itself (§9, §11 with beta + gamma): equal to the
// picosecond where the formula is the schedule's time (k_alt = 1: at every n with its pieces
// rounded up to whole items, the run's padded pieces; as written where every k_i divides n),
// below it where alternations overlap what the formula adds up.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "collectives/collectives.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/selection/simulation.hpp"
#include "tests/collectives/combine_cases.hpp"
#include "tests/collectives/mesh_set.hpp"

namespace vmc::testing {
namespace {

const Operation kOps[] = {Operation::reduce, Operation::allreduce};

std::vector<int> roots_of(Operation op, int p) {
  return op == Operation::reduce ? sweep_roots(p) : std::vector<int>{0};
}

// Runs case k (the sum on int64 items) into r and holds what a run the row claims exact
// holds under 004's model: the claim exact, the run's time its cost, no contention.
void run_as_claimed_exact(Machine& m, const Algorithm& a, const CostQuery& q, const Case& k,
                          const std::string& where, RunResult& r) {
  ASSERT_EQ(run_case<std::int64_t>(m, k, ops::sum<std::int64_t>(), nullptr, &r), "") << where;
  EXPECT_EQ(claim_of(a, q), Claim::exact) << where;
  EXPECT_EQ(r.time_ps(), a.cost(q)) << where << " " << a.detail(q);
  EXPECT_EQ(r.stats().contention_delay, 0) << where;
}

// Right on every mesh and torus of 004's set, every port model, every root and length of
// the sweep: exact (and without contention) where the row claims exact.
TEST(MeshDopl, RightAndAsClaimedOnTheMeshSet) {
  for (const std::string& spec : mesh_set()) {
    for (Port port : {Port::duplex, Port::exchange, Port::half, Port::all}) {
      auto m = machine(spec, model(port, Routing::wormhole));
      const int p = m->size();
      for (Operation op : kOps) {
        const Algorithm* a = find_algorithm(op, "mesh_dopl");
        ASSERT_NE(a, nullptr);
        for (int root : roots_of(op, p)) {
          for (std::size_t n : sweep_lengths(p)) {
            const std::string where = spec + " " + to_string(op) + " " + to_string(port) +
                                      " n=" + std::to_string(n) + " root=" + std::to_string(root);
            Case k{.operation = op, .algorithm = "mesh_dopl", .n = n, .root = root,
                   .in_place = n % 2 == 1};
            RunResult r;
            ASSERT_EQ(run_case<std::int64_t>(*m, k, ops::sum<std::int64_t>(), nullptr, &r), "")
                << where;
            CostQuery q = query_for(*m, n, root, sizeof(std::int64_t));
            q.options.algorithm = "mesh_dopl";
            const Claim claim = claim_of(*a, q);
            const bool two_sided = port == Port::duplex || port == Port::all;
            EXPECT_EQ(claim, two_sided || n == 0 ? Claim::exact : Claim::lower_bound) << where;
            if (claim == Claim::exact) {
              EXPECT_EQ(r.time_ps(), a->cost(q)) << where;
              EXPECT_EQ(r.stats().contention_delay, 0) << where;
            } else {
              EXPECT_GE(r.time_ps(), a->cost(q)) << where;
            }
          }
        }
      }
    }
  }
}

Model model_004() {
  Model mdl = model(Port::duplex, Routing::wormhole, 525e-6, 2e-6, 0.35e-6);
  mdl.contention = Contention::shared;
  return mdl;
}

// The k_alt and k_i of a row's detail: "k_alt = K; k_i = A B ..." (the allreduce's
// reduction half first).
struct Chosen {
  int k_alt = 0;
  std::vector<long long> k;
};
Chosen chosen(const Algorithm& a, const CostQuery& q) {
  const std::string d = a.detail(q);
  const std::size_t at = d.find("k_alt = ");
  EXPECT_NE(at, std::string::npos) << d;
  Chosen c;
  c.k_alt = std::stoi(d.substr(at + 8));
  std::size_t i = d.find("k_i =", at) + 5;
  const auto digit = [&](std::size_t j) {
    return j < d.size() && std::isdigit(static_cast<unsigned char>(d[j]));
  };
  while (d[i] == ' ' && digit(i + 1)) {
    std::size_t end = i + 1;
    while (digit(end)) ++end;
    c.k.push_back(std::stoll(d.substr(i + 1, end - i - 1)));
    i = end;
  }
  return c;
}

// With alternations under 004's model: right at three roots, and exact to the picosecond
// without contention, on 004's meshes (as in the broadcast's test, mesh_mst_test.cpp).
TEST(MeshDopl, AlternationsAreRightAndExact) {
  for (const std::string spec : {"mesh:2x3", "mesh:6x4", "mesh:8x8", "mesh:4x4x4", "mesh:3x4x5",
                                 "torus:4x5"}) {
    if (sanitizer_skips(spec) || (kSanitized && spec == "mesh:4x4x4")) continue;
    auto m = machine(spec, model_004());
    const int p = m->size();
    for (Operation op : kOps) {
      const Algorithm* a = find_algorithm(op, "mesh_dopl");
      for (std::size_t n : {std::size_t(8191), std::size_t(30011), std::size_t(65536)}) {
        for (int root : op == Operation::reduce ? std::vector<int>{0, p / 2 + 1, p - 1}
                                                : std::vector<int>{0}) {
          const std::string where = spec + " " + to_string(op) + " n=" + std::to_string(n) +
                                    " root=" + std::to_string(root);
          CostQuery q = query_for(*m, n, root, sizeof(std::int64_t));
          q.options.algorithm = "mesh_dopl";
          EXPECT_GT(chosen(*a, q).k_alt, 1) << where << " " << a->detail(q);
          Case k{.operation = op, .algorithm = "mesh_dopl", .n = n, .root = root};
          RunResult r;
          run_as_claimed_exact(*m, *a, q, k, where, r);
          if (::testing::Test::HasFatalFailure()) return;
        }
      }
    }
  }
}

// 004's formula in picoseconds (exact where every piece count divides what it cuts):
//   (k_alt - 1)(alpha + n/k_alt b) + sum_i (ceil((k_alt + d - 1 - i)/d)(m_i - 1) + k_i - 1)
//   (alpha + n/(k_alt k_i) b), b = beta + gamma (§11) or beta (§9); `whole`: every part and
//   piece rounded up to whole items, ceil(n/k_alt) and ceil(ceil(n/k_alt)/k_i), as the run
//   pads them (mesh/dopl.hpp).
double formula_004(const std::vector<int>& m, std::size_t n, const Chosen& c, double alpha,
                   double b, bool whole = false) {
  const int d = static_cast<int>(m.size()), k = c.k_alt;
  const double part = whole ? std::ceil(double(n) / k) : double(n) / k;
  double t = (k - 1) * (alpha + part * b);
  for (int i = 0; i < d; ++i) {
    const double ki = double(c.k[i]), piece = whole ? std::ceil(part / ki) : part / ki;
    t += ((k + d - 1 - i + d - 1) / d * (m[i] - 1) + ki - 1) * (alpha + piece * b);
  }
  return t;
}

// 004's k_i (§9, §11) for k_alt = k: sqrt((m_i - 2) n b / (k alpha)) rounded, within
// [1, n]; 1 for m_i <= 2.
Chosen k_004(const std::vector<int>& m, std::size_t n, int k, double alpha, double b) {
  Chosen c{k, {}};
  for (int mi : m) {
    const double x = std::sqrt((mi - 2) * double(n) * b / (k * alpha));
    c.k.push_back(mi <= 2 || n <= 1 ? 1
                                    : static_cast<long long>(std::clamp(std::round(x), 1.0,
                                                                        double(n))));
  }
  return c;
}

// Whether the formula's pieces are whole items: k_alt = 1, and k_i divides n wherever the
// line pipelines (004's k_i is 1 on lines of one and two nodes).
bool whole_pieces(const std::vector<int>& m, std::size_t n, const Chosen& c) {
  if (c.k_alt != 1) return false;
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (n % static_cast<std::size_t>(c.k[i]) != 0) return false;
  }
  return true;
}

// The run against 004's formula on 004's meshes, n = 1 .. 65536 (powers of two, the
// multiples of 24 and 60 near them, and 1003 and 30011, which few piece counts divide): the
// reduction's time equals §11's formula to the picosecond wherever k_alt = 1, its pieces
// rounded up to whole items (as written where k_i divides n); with alternations it is below
// it (mesh/dopl.hpp, reduce_mesh_dopl.cpp: the formula adds the wraparounds and every
// step's fill, which overlap in the run); and the k_alt chosen minimises the formula. The
// reduction-to-all is the reduction and the broadcast added.
TEST(MeshDopl, AgainstTheFormulaOf004) {
  const Model mdl = model_004();
  const double alpha = 525e6, beta = 2e6, gamma = 0.35e6;  // picoseconds
  const Algorithm& reduce = *find_algorithm(Operation::reduce, "mesh_dopl");
  const Algorithm& allreduce = *find_algorithm(Operation::allreduce, "mesh_dopl");
  const Algorithm& broadcast = *find_algorithm(Operation::broadcast, "mesh_dopl");
  int exact_points = 0, alternating_points = 0;
  for (const std::string spec : {"mesh:2x3", "mesh:5x1", "mesh:6x4", "mesh:8x8", "mesh:7x11",
                                 "mesh:16x16", "mesh:4x4x4"}) {
    if (sanitizer_skips(spec) || (kSanitized && spec != "mesh:2x3" && spec != "mesh:6x4")) {
      continue;
    }
    auto m = machine(spec, mdl, Data::none);
    std::vector<std::size_t> ns;
    for (std::size_t n = 1; n <= 65536; n *= 2) ns.push_back(n);
    for (std::size_t n : {std::size_t(96), std::size_t(1200), std::size_t(5760),
                          std::size_t(23040), std::size_t(65520), std::size_t(1003),
                          std::size_t(30011)}) {
      ns.push_back(n);
    }
    for (std::size_t n : ns) {
      CostQuery q = query_for(*m, n, 0, sizeof(std::int64_t));
      q.options.algorithm = "mesh_dopl";
      const std::vector<int> shape = internal::mesh_shape_of(q).lengths;
      const std::string where = spec + " n=" + std::to_string(n);
      const Chosen c = k_004(shape, n, chosen(reduce, q).k_alt, alpha, beta + gamma);
      const std::optional<Picos> run = simulated_cost(Operation::reduce, reduce, q);
      ASSERT_TRUE(run.has_value()) << where;
      EXPECT_EQ(*run, reduce.cost(q)) << where;
      const double f = formula_004(shape, n, c, alpha, beta + gamma);
      if (c.k_alt == 1) {
        // The run's pieces (the detail's k_i, each ceil(n/k_i) items, the last padded).
        const double whole = formula_004(shape, n, chosen(reduce, q), alpha, beta + gamma, true);
        EXPECT_EQ(double(*run), whole) << where << " " << reduce.detail(q);
        ++exact_points;
      }
      if (whole_pieces(shape, n, c)) {
        EXPECT_EQ(chosen(reduce, q).k, c.k) << where << " " << reduce.detail(q);
        EXPECT_EQ(double(*run), f) << where << " " << reduce.detail(q);
      }
      if (c.k_alt > 1) {
        EXPECT_LT(double(*run), f) << where << " " << reduce.detail(q);
        ++alternating_points;
      }
      // The k_alt chosen minimises 004's formula (ties: the least k_alt).
      for (int k = 1; k <= 15 && shape.size() > 1 && n >= 2 && std::size_t(k) <= n; ++k) {
        const double other = formula_004(shape, n, k_004(shape, n, k, alpha, beta + gamma),
                                         alpha, beta + gamma);
        if (k < c.k_alt) {
          EXPECT_GT(other, f) << where << " k_alt " << k;
        } else if (k > c.k_alt) {
          EXPECT_GE(other, f) << where << " k_alt " << k;
        }
      }
      // The reduction-to-all: its two halves, from rank 0, added.
      const std::optional<Picos> all = simulated_cost(Operation::allreduce, allreduce, q);
      ASSERT_TRUE(all.has_value()) << where;
      EXPECT_EQ(*all, allreduce.cost(q)) << where;
      EXPECT_EQ(*all, reduce.cost(q) + broadcast.cost(q)) << where;
    }
  }
  if (!kSanitized) {
    EXPECT_GT(exact_points, 20);
    EXPECT_GT(alternating_points, 10);
  }
}

// The DOPL with its steps synchronized (--dopl-steps synchronized, 004 §6.2's "explicit
// synchronization"): every step of m_i nodes and k_i pieces drains on its own, the
// wraparounds beside it, and a dissemination barrier of ceil(log2 p) startups between
// consecutive steps, so the run is a closed form (tools/formulas_004.cpp, derived):
//   sum_i ceil((k_alt + d - 1 - i)/d)(m_i + k_i - 2)(alpha + ceil(ceil(n/k_alt)/k_i) b)
//   + (k_alt + d - 2) ceil(log2 p) alpha,
// b = beta (§9) or beta + gamma (§11); 004's own at whole pieces where k_alt = 1 (no
// barrier: one part has nothing to keep apart).
double synchronized_formula(const std::vector<int>& m, std::size_t n, const Chosen& c,
                            double alpha, double b) {
  if (c.k_alt == 1) return formula_004(m, n, c, alpha, b, true);
  const int d = static_cast<int>(m.size()), k = c.k_alt;
  int p = 1;
  for (int mi : m) p *= mi;
  int rounds = 0;
  while ((1 << rounds) < p) ++rounds;
  const double part = std::ceil(double(n) / k);
  double t = double(k + d - 2) * rounds * alpha;
  for (int i = 0; i < d; ++i) {
    const double ki = double(c.k[i]);
    t += ((k + d - 1 - i + d - 1) / d) * (m[i] + ki - 2) * (alpha + std::ceil(part / ki) * b);
  }
  return t;
}

const Operation kAllDoplOps[] = {Operation::broadcast, Operation::reduce, Operation::allreduce};

// Synchronized: right (odd n, in place and not, every root of mesh:2x3 and three of the
// others), claimed exact, the run its cost and the derived formula to the picosecond, under
// 004's model; the overlapping default of the same case is another time.
TEST(MeshDopl, SynchronizedStepsAreRightAndTheDerivedFormula) {
  const double alpha = 525e6, beta = 2e6, gamma = 0.35e6;  // picoseconds
  int checked = 0;
  for (const std::string spec : {"mesh:2x3", "mesh:6x4", "mesh:4x4x4", "torus:4x5"}) {
    if (sanitizer_skips(spec) || (kSanitized && spec == "mesh:4x4x4")) continue;
    auto m = machine(spec, model_004());
    const int p = m->size();
    std::vector<int> roots = {0, p / 2 + 1, p - 1};
    if (p <= 6) {
      roots.clear();
      for (int r = 0; r < p; ++r) roots.push_back(r);
    }
    for (Operation op : kAllDoplOps) {
      const Algorithm* a = find_algorithm(op, "mesh_dopl");
      for (std::size_t n : {std::size_t(8191), std::size_t(30011)}) {
        for (int root : op == Operation::allreduce ? std::vector<int>{0} : roots) {
          const std::string where = spec + " " + to_string(op) + " n=" + std::to_string(n) +
                                    " root=" + std::to_string(root);
          CostQuery q = query_for(*m, n, root, sizeof(std::int64_t));
          q.options.algorithm = "mesh_dopl";
          q.options.dopl_steps = DoplSteps::synchronized;
          Case k{.operation = op, .algorithm = "mesh_dopl", .n = n, .root = root,
                 .in_place = root % 2 == 1, .dopl_steps = DoplSteps::synchronized};
          RunResult r;
          run_as_claimed_exact(*m, *a, q, k, where, r);
          if (::testing::Test::HasFatalFailure()) return;
          // The derived formula, from rank 0 (a root elsewhere runs the same steps).
          if (root != 0) continue;
          const std::vector<int> shape = internal::mesh_shape_of(q).lengths;
          double f = 0;
          if (op == Operation::allreduce) {
            const std::string d = a->detail(q);  // "reduction: ... / broadcast: ..."
            const Algorithm& red = *find_algorithm(Operation::reduce, "mesh_dopl");
            const Algorithm& bc = *find_algorithm(Operation::broadcast, "mesh_dopl");
            f = synchronized_formula(shape, n, chosen(red, q), alpha, beta + gamma) +
                synchronized_formula(shape, n, chosen(bc, q), alpha, beta);
            EXPECT_GT(chosen(red, q).k_alt, 1) << where << " " << d;
          } else {
            const Chosen c = chosen(*a, q);
            EXPECT_GT(c.k_alt, 1) << where << " " << a->detail(q);
            f = synchronized_formula(shape, n, c, alpha,
                                     op == Operation::broadcast ? beta : beta + gamma);
          }
          EXPECT_EQ(double(r.time_ps()), f) << where << " " << a->detail(q);
          CostQuery overlap = q;
          overlap.options.dopl_steps = DoplSteps::overlap;
          EXPECT_NE(a->cost(overlap), a->cost(q)) << where;
          ++checked;
        }
      }
    }
  }
  if (!kSanitized) {
    EXPECT_EQ(checked, 24);
  }
}

// Synchronized under both engines, with data: the barrier's synchronous sends and the steps
// give the same results and times on threads as on fibers.
TEST(MeshDopl, SynchronizedStepsUnderBothEngines) {
  for (Engine engine : {Engine::fibers, Engine::threads}) {
    MachineConfig config;
    config.topology = parse_topology("mesh:6x4");
    config.model = model_004();
    config.engine = engine;
    config.trace = false;
    config.watchdog_seconds = 60;
    Machine m(config);
    for (Operation op : kAllDoplOps) {
      const Algorithm* a = find_algorithm(op, "mesh_dopl");
      const std::size_t n = 20001;
      const int root = op == Operation::allreduce ? 0 : 7;
      const std::string where = to_string(engine) + " " + to_string(op);
      Case k{.operation = op, .algorithm = "mesh_dopl", .n = n, .root = root,
             .dopl_steps = DoplSteps::synchronized};
      RunResult r;
      ASSERT_EQ(run_case<std::int64_t>(m, k, ops::sum<std::int64_t>(), nullptr, &r), "")
          << where;
      CostQuery q = query_for(m, n, root, sizeof(std::int64_t));
      q.options.algorithm = "mesh_dopl";
      q.options.dopl_steps = DoplSteps::synchronized;
      EXPECT_EQ(r.time_ps(), a->cost(q)) << where;
    }
  }
}

// One part (k_alt = 1: a short vector, or the rendezvous protocol) has nothing to keep
// apart: synchronized runs the same program, at the same time.
TEST(MeshDopl, SynchronizedChangesNothingWithOnePart) {
  Model rendezvous = model_004();
  rendezvous.protocol = Protocol::rendezvous;
  for (const auto& [mdl, n] : {std::pair{model_004(), std::size_t(7)},
                               std::pair{rendezvous, std::size_t(30011)}}) {
    auto m = machine("mesh:6x4", mdl, Data::none);
    for (Operation op : kAllDoplOps) {
      const Algorithm* a = find_algorithm(op, "mesh_dopl");
      CostQuery q = query_for(*m, n, 0, sizeof(std::int64_t));
      q.options.algorithm = "mesh_dopl";
      EXPECT_EQ(chosen(*a, q).k_alt, 1) << to_string(op) << " n=" << n;
      CostQuery s = q;
      s.options.dopl_steps = DoplSteps::synchronized;
      EXPECT_EQ(a->cost(s), a->cost(q)) << to_string(op) << " n=" << n;
    }
  }
}

}  // namespace
}  // namespace vmc::testing
