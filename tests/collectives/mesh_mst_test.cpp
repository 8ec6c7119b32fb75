// The MST family of 004 on meshes (broadcast, reduce, allreduce, allgather, scatter, gather
// mesh_mst and the v-variants): on every mesh of 004's set and the tori where the trees are
// contention-free, every root for small p and lengths 0, 1, p-1, p+1, 3p+2 and 1000, in
// place and not, under 004's single-ported nodes (duplex) and exchange: the results are
// right, the virtual time equals the registry's formula to the picosecond, no message loses
// time to contention, and the row claims `exact`. Elsewhere (other tori) the formula is a
// lower bound. Non-commutative ops in rank order, sub-groups (mesh rows and columns),
// 004 §7's data-distribution partitioning, bad input, and RapidCheck over random meshes.
//
// VMC_FULL_SWEEP=1 adds the half and all-port models and every root up to p = 24.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "collectives/collectives.hpp"
#include "collectives/patterns/binomial.hpp"
#include "collectives/patterns/mesh_mst.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "tests/collectives/combine_cases.hpp"
#include "tests/collectives/mesh_set.hpp"

namespace vmc::testing {
namespace {

const std::string kAlg = "mesh_mst";

// 004's mesh set, and the tori (and other meshes) where the trees are contention-free.
// (mesh_set.hpp's sanitizer_skips leaves the large ones out under a sanitizer.)
const std::vector<std::string> kExact = [] {
  std::vector<std::string> v;
  for (const char* spec :
       {"mesh:2x2", "mesh:3x5", "mesh:4x4", "mesh:5x7", "mesh:7x11", "mesh:8x8", "mesh:13x1",
        "mesh:1x17", "mesh:3x4x5", "mesh:2x3x5x7", "torus:2x2", "torus:4x4", "torus:8x8",
        "ring:13", "ring:17", "hypercube:16", "mesh:4wx4wx2"}) {
    if (!sanitizer_skips(spec)) v.push_back(spec);
  }
  return v;
}();
// Tori whose trees may share links (patterns::mst_contention_free is false).
const std::vector<std::string> kOtherTori = {"torus:3x5", "torus:5x7", "torus:3x4x5",
                                             "torus:7x11"};

const Operation kCombine[] = {Operation::broadcast, Operation::reduce, Operation::allreduce};
const Operation kBlock[] = {Operation::scatter, Operation::gather, Operation::allgather};

bool rooted_op(Operation op) {
  return op == Operation::broadcast || op == Operation::reduce || op == Operation::scatter ||
         op == Operation::gather;
}

std::vector<int> roots_for(Operation op, int p) {
  if (!rooted_op(op)) return {0};
  return sweep_roots(p);
}

std::vector<std::size_t> lengths_for(int p) {
  std::vector<std::size_t> ns = sweep_lengths(p);
  ns.push_back(std::size_t(3 * p + 2));
  return ns;
}

// --- one call of a block operation, checked, with its run --------------------------------

// scatter (root's blocks to every rank), gather (every block to the root) or allgather of n
// items per rank; in place when asked. Returns "" or the first failure.
std::string run_block(Machine& m, Operation op, std::size_t n, int root, bool in_place,
                      RunResult* result, const SubGroup* group = nullptr) {
  Failures f;
  const RunResult run = m.run([&](Node& node) {
    Comm c = node.world();
    if (group != nullptr) {
      c = c.split(group->color(node.rank(), node.size()), group->key(node.rank(), node.size()));
      if (!c.valid()) return;
    }
    const int p = c.size(), me = c.rank();
    if (root >= p) return;
    const std::string where = to_string(op) + " p=" + std::to_string(p) + " n=" +
                              std::to_string(n) + " root=" + std::to_string(root) + " rank " +
                              std::to_string(me) + ": ";
    std::vector<std::int64_t> mine(n);
    for (std::size_t i = 0; i < n; ++i) mine[i] = stamp(me, i);
    auto want = reference_of<std::int64_t>(
        {.op = op, .members = p, .n = n, .root = root, .in_place = in_place}, nullptr, stamp);
    if (op == Operation::scatter) {
      std::vector<std::int64_t> all;
      if (me == root) {
        all.resize(n * p);
        for (std::size_t i = 0; i < all.size(); ++i) all[i] = stamp(root, i);
      }
      Guarded<std::int64_t> out(n);
      if (in_place && me == root) {
        scatter_in_place(c, std::span<std::int64_t>(all), root, with(kAlg));
        for (std::size_t i = 0; i < all.size(); ++i) {
          if (all[i] != stamp(root, i)) return f.add(where + "root's buffer changed");
        }
        return;
      }
      if (in_place) scatter_in_place(c, out.span(), root, with(kAlg));
      else scatter<std::int64_t>(c, all, out.span(), root, with(kAlg));
      const std::string wrong = result_error(want, me, out);
      if (!wrong.empty()) f.add(where + wrong);
      return;
    }
    Guarded<std::int64_t> out(op == Operation::gather && me != root ? 0 : n * p);
    if (op == Operation::gather) {
      if (me != root) {
        if (in_place) gather_in_place(c, std::span<std::int64_t>(mine), root, with(kAlg));
        else gather<std::int64_t>(c, mine, std::span<std::int64_t>(), root, with(kAlg));
        return;
      }
      if (in_place) {
        std::copy(mine.begin(), mine.end(), out.span().begin() + root * n);
        gather_in_place(c, out.span(), root, with(kAlg));
      } else {
        gather<std::int64_t>(c, mine, out.span(), root, with(kAlg));
      }
    } else if (in_place) {
      std::copy(mine.begin(), mine.end(), out.span().begin() + me * n);
      allgather<std::int64_t>(c, out.span(), with(kAlg));
    } else {
      allgather<std::int64_t>(c, mine, out.span(), with(kAlg));
    }
    const std::string wrong = result_error(want, me, out);
    if (!wrong.empty()) f.add(where + wrong);
  });
  if (result != nullptr) *result = run;
  return f.text();
}

// One call of op with mesh_mst on the whole machine: the failure ("" if none) and its run.
std::string run_op(Machine& m, Operation op, std::size_t n, int root, bool in_place,
                   bool commutative, RunResult* result) {
  for (Operation b : kBlock) {
    if (op == b) return run_block(m, op, n, root, in_place, result);
  }
  Case k{.operation = op, .algorithm = kAlg, .n = n, .root = root, .in_place = in_place,
         .seed = std::uint64_t(n * 7 + root)};
  if (commutative) return run_case<std::int64_t>(m, k, ops::sum<std::int64_t>(), nullptr, result);
  return run_case<Mat3>(m, k, matmul(), nullptr, result);
}

CostQuery query(const Machine& m, Operation op, std::size_t n, int root, bool commutative) {
  CostQuery q = query_for(m, n, root, commutative ? sizeof(std::int64_t) : sizeof(Mat3),
                          commutative);
  q.options.algorithm = kAlg;
  (void)op;
  return q;
}

std::vector<Port> ports() {
  if (full_sweep()) return {Port::duplex, Port::exchange, Port::half, Port::all};
  return {Port::duplex, Port::exchange};
}

// Every op, root and length on `spec`: right, and the time against the formula as claimed.
void sweep_machine(const std::string& spec, Port port, bool expect_exact) {
  Model mdl = model(port, Routing::wormhole);
  auto m = machine(spec, mdl);
  const int p = m->size();
  for (Operation op : {Operation::broadcast, Operation::reduce, Operation::allreduce,
                       Operation::scatter, Operation::gather, Operation::allgather}) {
    const Algorithm* a = find_algorithm(op, kAlg);
    ASSERT_NE(a, nullptr) << to_string(op);
    for (int root : roots_for(op, p)) {
      for (std::size_t n : lengths_for(p)) {
        const bool combines = op == Operation::reduce || op == Operation::allreduce;
        for (bool commutative : {true, false}) {
          if (!commutative && !combines) continue;
          const CostQuery q = query(*m, op, n, root, commutative);
          RunResult r;
          const std::string where = spec + " " + to_string(port) + " " + to_string(op) +
                                    " n=" + std::to_string(n) + " root=" + std::to_string(root) +
                                    (commutative ? "" : " non-commutative");
          ASSERT_EQ(run_op(*m, op, n, root, n % 2 == 1, commutative, &r), "") << where;
          const Picos formula = a->cost(q);
          const bool exact = expect_exact && !(combines && port == Port::all) &&
                             !(op == Operation::gather && port == Port::all) &&
                             !(op == Operation::allgather && port == Port::all);
          if (exact) {
            EXPECT_EQ(claim_of(*a, q), Claim::exact) << where;
            EXPECT_EQ(r.time_ps(), formula) << where;
            EXPECT_EQ(r.stats().contention_delay, 0) << where;
          } else {
            EXPECT_NE(claim_of(*a, q), Claim::exact) << where;
            EXPECT_GE(r.time_ps(), formula) << where;
          }
        }
      }
    }
  }
}

class MeshMstExact : public ::testing::TestWithParam<std::string> {};

TEST_P(MeshMstExact, TimeIsTheFormulaWithoutContention) {
  for (Port port : ports()) sweep_machine(GetParam(), port, true);
}

INSTANTIATE_TEST_SUITE_P(Meshes, MeshMstExact, ::testing::ValuesIn(kExact),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (char& ch : s) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return s;
                         });

// 004 §9 SC broadcast and §11 DG reduction (the MST scatter and gather through the
// dimensions with the DR rings): right on every machine of both sets, and as their rows
// claim: under duplex, SC exact on meshes whose lengths are powers of two and on
// one-dimensional groups rooted at an end, DG on every mesh and torus; a lower bound
// elsewhere.
TEST_P(MeshMstExact, ScatterCollectAndDistributedReductionGatherAsClaimed) {
  for (Port port : ports()) {
    auto m = machine(GetParam(), model(port, Routing::wormhole));
    const int p = m->size();
    for (const auto& [op, alg] : {std::pair{Operation::broadcast, std::string("mesh_sc")},
                                  std::pair{Operation::reduce, std::string("mesh_dg")}}) {
      const Algorithm* a = find_algorithm(op, alg);
      ASSERT_NE(a, nullptr) << alg;
      for (int root : sweep_roots(p)) {
        for (std::size_t n : lengths_for(p)) {
          Case k{.operation = op, .algorithm = alg, .n = n, .root = root, .in_place = n % 2 == 1,
                 .seed = std::uint64_t(n + 3 * root)};
          RunResult r;
          const std::string where = GetParam() + " " + to_string(port) + " " + alg + " n=" +
                                    std::to_string(n) + " root=" + std::to_string(root);
          ASSERT_EQ(run_case<std::int64_t>(*m, k, ops::sum<std::int64_t>(), nullptr, &r), "")
              << where;
          CostQuery q = query_for(*m, n, root, sizeof(std::int64_t));
          q.options.algorithm = alg;
          const Claim claim = claim_of(*a, q);
          if (claim == Claim::exact) { EXPECT_EQ(r.time_ps(), a->cost(q)) << where; }
          else { EXPECT_GE(r.time_ps(), a->cost(q)) << where; }
          if (port == Port::duplex && GetParam().rfind("mesh:", 0) == 0) {
            const bool pow2 = GetParam() == "mesh:2x2" || GetParam() == "mesh:4x4" ||
                              GetParam() == "mesh:8x8" || GetParam() == "mesh:4wx4wx2";
            const bool line = GetParam() == "mesh:13x1" || GetParam() == "mesh:1x17";
            const bool end = line && (root == 0 || root == p - 1);
            if (alg == "mesh_dg" || pow2 || end) { EXPECT_EQ(claim, Claim::exact) << where; }
            if (alg == "mesh_dg") { EXPECT_EQ(r.stats().contention_delay, 0) << where; }
          }
        }
      }
    }
  }
}

// 004 §6.2/§9 DOPL (k_alt = 1): right and exact without contention on every machine of
// the set, every port model.
TEST_P(MeshMstExact, DimensionOrderedPipelineIsExact) {
  for (Port port : {Port::duplex, Port::exchange, Port::half, Port::all}) {
    auto m = machine(GetParam(), model(port, Routing::wormhole));
    const Algorithm* a = find_algorithm(Operation::broadcast, "mesh_dopl");
    ASSERT_NE(a, nullptr);
    for (int root : sweep_roots(m->size())) {
      for (std::size_t n : lengths_for(m->size())) {
        Case k{.operation = Operation::broadcast, .algorithm = "mesh_dopl", .n = n, .root = root};
        RunResult r;
        const std::string where = GetParam() + " " + to_string(port) + " n=" +
                                  std::to_string(n) + " root=" + std::to_string(root);
        ASSERT_EQ(run_case<std::int64_t>(*m, k, ops::sum<std::int64_t>(), nullptr, &r), "")
            << where;
        CostQuery q = query_for(*m, n, root, sizeof(std::int64_t));
        q.options.algorithm = "mesh_dopl";
        EXPECT_EQ(claim_of(*a, q), Claim::exact) << where;
        EXPECT_EQ(r.time_ps(), a->cost(q)) << where;
        EXPECT_EQ(r.stats().contention_delay, 0) << where;
      }
    }
  }
}

// The k_alt chosen for q (from the row's `vmc explain` detail, "k_alt = K; k_i = ...").
int chosen_k_alt(const Algorithm& a, const CostQuery& q) {
  const std::string d = a.detail(q);
  EXPECT_EQ(d.rfind("k_alt = ", 0), 0u) << d;
  return std::stoi(d.substr(8));
}

// 004 §6.2/§9 DOPL with k_alt > 1 under 004's model (duplex, wormhole, shared links, 004's
// alpha and beta): right, and its virtual time is its cost to the picosecond, with no
// contention, on 004's meshes and a 3-D one.
TEST(MeshMst, DimensionOrderedPipelineWithAlternationsIsExact) {
  Model mdl = model(Port::duplex, Routing::wormhole, 525e-6, 2e-6, 0.35e-6);
  mdl.contention = Contention::shared;
  const Algorithm* a = find_algorithm(Operation::broadcast, "mesh_dopl");
  ASSERT_NE(a, nullptr);
  for (const std::string spec : {"mesh:4x4", "mesh:5x7", "mesh:8x8", "mesh:3x4x5"}) {
    auto m = machine(spec, mdl);
    const int p = m->size();
    for (std::size_t n : {std::size_t(4099), std::size_t(30011), std::size_t(65536)}) {
      for (int root : {0, p / 2 + 1, p - 1}) {
        const std::string where =
            spec + " n=" + std::to_string(n) + " root=" + std::to_string(root);
        CostQuery q = query_for(*m, n, root, sizeof(std::int64_t));
        q.options.algorithm = "mesh_dopl";
        EXPECT_GT(chosen_k_alt(*a, q), 1) << where;
        Case k{.operation = Operation::broadcast, .algorithm = "mesh_dopl", .n = n, .root = root};
        RunResult r;
        ASSERT_EQ(run_case<std::int64_t>(*m, k, ops::sum<std::int64_t>(), nullptr, &r), "")
            << where;
        EXPECT_EQ(claim_of(*a, q), Claim::exact) << where;
        EXPECT_EQ(r.time_ps(), a->cost(q)) << where << " " << a->detail(q);
        EXPECT_EQ(r.stats().contention_delay, 0) << where;
      }
    }
  }
}

// k_alt is 1 where alternating cannot help: one dimension, the one-partner port models,
// and the rendezvous protocol (a wraparound sent before its receive is posted would block).
TEST(MeshMst, DimensionOrderedPipelineAlternatesOnlyWhereItCan) {
  const Algorithm* a = find_algorithm(Operation::broadcast, "mesh_dopl");
  for (Port port : {Port::duplex, Port::all, Port::exchange, Port::half}) {
    for (const std::string spec : {"mesh:8x8", "ring:64", "full:64", "mesh:64x1"}) {
      auto m = machine(spec, model(port, Routing::wormhole, 525e-6, 2e-6, 0.35e-6));
      const CostQuery q = query_for(*m, 65536, 0, sizeof(std::int64_t));
      const bool alternates = spec == "mesh:8x8" && (port == Port::duplex || port == Port::all);
      EXPECT_EQ(chosen_k_alt(*a, q) > 1, alternates) << spec << " " << to_string(port);
    }
  }
  Model rendezvous = model(Port::duplex, Routing::wormhole, 525e-6, 2e-6, 0.35e-6);
  rendezvous.protocol = Protocol::rendezvous;
  auto r = machine("mesh:4x4", rendezvous);
  for (int root : {0, 5}) {
    EXPECT_EQ(chosen_k_alt(*a, query_for(*r, 4099, root, sizeof(std::int64_t))), 1);
    Case k{.operation = Operation::broadcast, .algorithm = "mesh_dopl", .n = 4099, .root = root};
    EXPECT_EQ(run_case<std::int64_t>(*r, k, ops::sum<std::int64_t>()), "");
  }
  // 004 §9's formula is minimised over k_alt = 1 .. min(15, n).
  auto m = machine("mesh:8x8", model(Port::duplex, Routing::wormhole, 1e-9, 1e-3, 0));
  EXPECT_EQ(chosen_k_alt(*a, query_for(*m, 3, 0, sizeof(std::int64_t))), 3);
  EXPECT_LE(chosen_k_alt(*a, query_for(*m, 1 << 20, 0, sizeof(std::int64_t))), 15);
}

// Tori of other lengths: right, never faster than the formula, and not claimed exact.
TEST(MeshMst, OtherToriAreLowerBounds) {
  for (const std::string& spec : kOtherTori) sweep_machine(spec, Port::duplex, false);
}

// DG's reduction needs a commutative op: its row says so.
TEST(MeshMst, DistributedReductionGatherNeedsACommutativeOp) {
  CostQuery q;
  q.p = 12;
  q.commutative = false;
  EXPECT_FALSE(find_algorithm(Operation::reduce, "mesh_dg")->applicable(q));
  q.commutative = true;
  EXPECT_TRUE(find_algorithm(Operation::reduce, "mesh_dg")->applicable(q));
}

// 004 §9, §11 formulas in closed form on mesh:8x8 (the cost functions evaluate the trees).
TEST(MeshMst, ClosedFormsOn8x8) {
  auto m = machine("mesh:8x8", model(Port::duplex, Routing::wormhole, 525e-6, 2e-6, 0.35e-6));
  const CostUnits u(m->config().model);
  const std::size_t n = 65536;
  const Picos t = u.alpha + Picos(n) * u.beta;
  const Picos g = Picos(n) * u.gamma;
  auto cost = [&](Operation op, std::size_t count) {
    return find_algorithm(op, kAlg)->cost(query(*m, op, count, 5, true));
  };
  EXPECT_EQ(cost(Operation::broadcast, n), 6 * t);
  EXPECT_EQ(cost(Operation::reduce, n), 6 * (t + g));
  EXPECT_EQ(cost(Operation::allreduce, n), 6 * (t + g) + 6 * t);
  const std::size_t m1 = 1024;  // per node
  EXPECT_EQ(cost(Operation::scatter, m1), 6 * u.alpha + Picos(63 * m1) * u.beta);
  EXPECT_EQ(cost(Operation::gather, m1), 6 * u.alpha + Picos(63 * m1) * u.beta);
  EXPECT_EQ(cost(Operation::allgather, m1),
            6 * u.alpha + Picos(63 * m1) * u.beta + 6 * (u.alpha + Picos(64 * m1) * u.beta));
  RunResult r;
  ASSERT_EQ(run_op(*m, Operation::broadcast, n, 5, false, true, &r), "");
  EXPECT_EQ(r.time_ps(), 6 * t);
}

// 004 §11's formula ceil(log2 p)(alpha + n (beta + gamma)) bounds the reduction from above;
// eager messages of small subtrees arriving while a node combines make it faster for p not
// a power of two, and it is reached for p = 2^k.
TEST(MeshMst, ReductionAtMost004sFormula) {
  for (const std::string spec : {"mesh:3x5", "mesh:5x7", "mesh:4x4", "mesh:8x8"}) {
    auto m = machine(spec, model(Port::duplex, Routing::wormhole, 5e-6, 7e-9, 40e-9));
    const int p = m->size();
    const CostUnits u(m->config().model);
    const std::size_t n = 1000;
    const Picos formula = patterns::ceil_log2(p) * (u.alpha + Picos(n) * (u.beta + u.gamma));
    const Picos cost = find_algorithm(Operation::reduce, kAlg)->cost(query(*m, Operation::reduce, n, 0, true));
    EXPECT_LE(cost, formula) << spec;
    if ((p & (p - 1)) == 0) { EXPECT_EQ(cost, formula) << spec; }
  }
}

// --- order, groups, v-variants, bad input ------------------------------------------------

TEST(MeshMst, NonCommutativeOpsInRankOrderForEveryRoot) {
  for (const std::string spec : {"mesh:3x5", "mesh:4x4", "mesh:3x4x5"}) {
    auto m = machine(spec, model(Port::duplex, Routing::wormhole));
    for (int root = 0; root < m->size(); ++root) {
      for (Operation op : {Operation::reduce, Operation::allreduce}) {
        if (op == Operation::allreduce && root > 0) continue;
        Case k{.operation = op, .algorithm = kAlg, .n = 3, .root = root};
        EXPECT_EQ(run_case<Span>(*m, k, order_recorder()), "") << spec << " root " << root;
      }
    }
  }
}

// Mesh rows and columns (groups that are not the whole mesh run on a linear array), and
// the harness's sub-groups of a mesh machine; SC, DG and DOPL too.
TEST(MeshMst, SubGroups) {
  auto m = machine("mesh:5x7", model(Port::duplex, Routing::wormhole));
  std::vector<SubGroup> groups = sub_groups();
  auto same = [](int r, int) { return r; };
  groups.push_back({"rows", [](int r, int) { return r / 5; }, same});
  groups.push_back({"columns", [](int r, int) { return r % 5; }, same});
  const Op sum = ops::sum<std::int64_t>();
  for (const SubGroup& g : groups) {
    for (int root : {0, 1}) {
      for (Operation op : kCombine) {
        Case k{.operation = op, .algorithm = kAlg, .n = 5, .root = root};
        if (op == Operation::broadcast) {
          EXPECT_EQ(run_case<std::int64_t>(*m, k, sum, &g), "") << g.name;
        } else {
          EXPECT_EQ(run_case<Span>(*m, k, order_recorder(), &g), "") << g.name;
        }
      }
      for (const auto& [op, alg] : {std::pair{Operation::broadcast, "mesh_sc"},
                                    std::pair{Operation::broadcast, "mesh_dopl"},
                                    std::pair{Operation::reduce, "mesh_dg"}}) {
        Case k{.operation = op, .algorithm = alg, .n = 13, .root = root, .in_place = true};
        EXPECT_EQ(run_case<std::int64_t>(*m, k, sum, &g), "") << g.name << " " << alg;
      }
      for (Operation op : kBlock) {
        EXPECT_EQ(run_block(*m, op, 3, root, root == 1, nullptr, &g), "") << g.name;
      }
    }
  }
}

// Counts from a seed (zeros included) with gapped displacements, and the skewed case of
// 004 §7 (one node gets everything).
struct Layout {
  std::vector<std::size_t> counts, displs;
  std::size_t extent = 0;
};
Layout layout(std::vector<std::size_t> counts) {
  Layout l;
  l.counts = std::move(counts);
  for (std::size_t c : l.counts) {
    l.displs.push_back(l.extent);
    l.extent += c + 2;
  }
  return l;
}

std::string run_v(Machine& m, Operation op, const Layout& l, int root, RunResult* result) {
  Failures f;
  const RunResult run = m.run([&](Node& node) {
    const Comm& c = node.world();
    const int me = c.rank(), p = c.size();
    std::vector<std::int64_t> mine(l.counts[me]);
    for (std::size_t i = 0; i < mine.size(); ++i) mine[i] = stamp(me, i);
    auto want = reference_of<std::int64_t>(
        {.op = op, .members = p, .root = root, .counts = l.counts, .displs = l.displs}, nullptr,
        stamp);
    if (op == Operation::scatterv) {
      std::vector<std::int64_t> all;
      if (me == root) {
        for (std::size_t i = 0; i < l.extent; ++i) all.push_back(stamp(root, i));
      }
      Guarded<std::int64_t> out(l.counts[me]);
      scatterv<std::int64_t>(c, all, l.counts, l.displs, out.span(), root, with(kAlg));
      const std::string wrong = result_error(want, me, out);
      if (!wrong.empty()) f.add("scatterv: " + wrong);
      return;
    }
    Guarded<std::int64_t> out(op == Operation::gatherv && me != root ? 0 : l.extent);
    if (op == Operation::gatherv) {
      gatherv<std::int64_t>(c, mine, out.span(), l.counts, l.displs, root, with(kAlg));
      if (me != root) return;
    } else {
      allgatherv<std::int64_t>(c, mine, out.span(), l.counts, l.displs, with(kAlg));
    }
    const std::string wrong = result_error(want, me, out);  // the gaps stay poisoned
    if (!wrong.empty()) f.add(to_string(op) + ": " + wrong);
  });
  if (result != nullptr) *result = run;
  return f.text();
}

TEST(MeshMst, VVariantsPartitionByData) {
  for (const std::string spec : {"mesh:5x7", "full:35", "mesh:3x4x5"}) {
    auto m = machine(spec, model(Port::duplex, Routing::wormhole));
    const int p = m->size();
    std::vector<std::vector<std::size_t>> cases;
    std::vector<std::size_t> skewed(p, 0), seeded(p), equal(p, 9);
    skewed[p - 3] = 5000;
    for (int r = 0; r < p; ++r) seeded[r] = (r * 2654435761u + 7) % 800;
    for (const auto& counts : {skewed, seeded, equal}) {
      const Layout l = layout(counts);
      for (Operation op : {Operation::scatterv, Operation::gatherv, Operation::allgatherv}) {
        for (int root : {0, p / 2, p - 1}) {
          if (op == Operation::allgatherv && root > 0) continue;
          RunResult r;
          ASSERT_EQ(run_v(*m, op, l, root, &r), "") << spec << " " << to_string(op);
          CostQuery q = query(*m, op, 0, root, true);
          q.counts = counts;
          const Algorithm* a = find_algorithm(op, kAlg);
          const std::string where = spec + " " + to_string(op) + " root " + std::to_string(root);
          if (claim_of(*a, q) == Claim::exact) { EXPECT_EQ(r.time_ps(), a->cost(q)) << where; }
          else { EXPECT_GE(r.time_ps(), a->cost(q)) << where; }
          if (spec == "full:35") { EXPECT_EQ(claim_of(*a, q), Claim::exact) << where; }
        }
      }
    }
    // 004 §7's pathological scatter: the data tree sends the one big block in one message.
    const CostUnits u(m->config().model);
    RunResult r;
    ASSERT_EQ(run_v(*m, Operation::scatterv, layout(skewed), 0, &r), "");
    EXPECT_EQ(r.time_ps(), u.alpha + Picos(5000) * u.beta) << spec;
  }
}

TEST(MeshMst, BadInputIsAnErrorNamingTheNodeAndTheCall) {
  auto m = machine("mesh:3x4", model(Port::duplex, Routing::wormhole));
  expect_error_naming_node(*m, [](Node& node) {
    std::vector<int> a(8), b(2);
    scatter<int>(node.world(), a, b, 12, with(kAlg));
  }, "root out of range", {"scatter", "root"});
  expect_error_naming_node(*m, [](Node& node) {
    std::vector<std::int64_t> a(4), b(4);
    reduce(node.world(), std::span<const std::int64_t>(a), std::span<std::int64_t>(b),
           ops::sum<std::int32_t>(), 0, with(kAlg));
  }, "op of the wrong item size", {"reduce"});
  expect_error_naming_node(*m, [](Node& node) {
    // rank 5 disagrees about the counts: a block of the wrong size reaches someone
    std::vector<std::size_t> counts(12, 3);
    if (node.rank() == 5) counts[7] = 4;
    std::vector<std::size_t> displs;
    for (int r = 0; r < 12; ++r) displs.push_back(r * 4);
    std::vector<int> all(48), out(4);
    scatterv<int>(node.world(), all, counts, displs, out, 0, with(kAlg));
  }, "counts that disagree", {"scatterv"});
  expect_error_naming_node(*m, [](Node& node) {
    std::vector<int> a(4);
    broadcast(node.world(), std::span<int>(a), node.rank() == 2 ? 1 : 0, with(kAlg));
  }, "roots disagree", {"broadcast"});
}

// --- RapidCheck ------------------------------------------------------------------------------

// A random mesh of 1 to 3 dimensions (some wrapped) under a random port model.
std::unique_ptr<Machine> random_mesh() {
  const int d = *rc::gen::inRange(1, 4);
  std::string spec = "mesh:";
  for (int i = 0; i < d; ++i) {
    spec += (i ? "x" : "") + std::to_string(*rc::gen::inRange(1, d == 3 ? 5 : 8));
    if (*rc::gen::inRange(0, 4) == 0) spec += "w";
  }
  const Port port = *rc::gen::element(Port::exchange, Port::duplex, Port::half, Port::all);
  auto m = machine(spec, model(port, Routing::wormhole));
  return m;
}

// SC, DG and DOPL on random meshes, roots and lengths: right, and as their rows claim.
RC_GTEST_PROP(MeshMstProperty, DimensionalAlgorithmsRightAndAsClaimed, ()) {
  auto m = random_mesh();
  const auto [op, alg] = *rc::gen::element(std::pair{Operation::broadcast, std::string("mesh_sc")},
                                           std::pair{Operation::broadcast, std::string("mesh_dopl")},
                                           std::pair{Operation::reduce, std::string("mesh_dg")});
  const int root = *rc::gen::inRange(0, m->size());
  const std::size_t n = *rc::gen::inRange<std::size_t>(0, 5 * std::size_t(m->size()) + 4);
  Case k{.operation = op, .algorithm = alg, .n = n, .root = root,
         .in_place = *rc::gen::arbitrary<bool>(), .seed = *rc::gen::inRange<std::uint64_t>(1, 99)};
  RunResult r;
  RC_ASSERT(run_case<std::int64_t>(*m, k, ops::sum<std::int64_t>(), nullptr, &r) == "");
  const Algorithm* a = find_algorithm(op, alg);
  CostQuery q = query_for(*m, n, root, sizeof(std::int64_t));
  q.options.algorithm = alg;
  if (claim_of(*a, q) == Claim::exact) RC_ASSERT(r.time_ps() == a->cost(q));
  else RC_ASSERT(r.time_ps() >= a->cost(q));
}

// DOPL with alternations (startups cheap against long vectors, so k_alt > 1) on random
// meshes, roots, lengths, port models and contention: right, and as its row claims.
RC_GTEST_PROP(MeshMstProperty, DimensionOrderedPipelineWithAlternationsAsClaimed, ()) {
  auto base = random_mesh();
  const std::string spec = base->topology().spec();
  Model mdl = model(*rc::gen::element(Port::duplex, Port::all), Routing::wormhole, 1e-6, 1e-7);
  mdl.contention = *rc::gen::element(Contention::shared, Contention::exclusive);
  auto m = machine(spec, mdl);
  const int root = *rc::gen::inRange(0, m->size());
  const std::size_t n = *rc::gen::inRange<std::size_t>(0, 3000);
  Case k{.operation = Operation::broadcast, .algorithm = "mesh_dopl", .n = n, .root = root,
         .in_place = *rc::gen::arbitrary<bool>(), .seed = *rc::gen::inRange<std::uint64_t>(1, 99)};
  RunResult r;
  RC_ASSERT(run_case<std::int64_t>(*m, k, ops::sum<std::int64_t>(), nullptr, &r) == "");
  const Algorithm* a = find_algorithm(Operation::broadcast, "mesh_dopl");
  CostQuery q = query_for(*m, n, root, sizeof(std::int64_t));
  q.options.algorithm = "mesh_dopl";
  RC_ASSERT(claim_of(*a, q) == Claim::exact);  // a whole mesh, wormhole, eager
  RC_ASSERT(r.time_ps() == a->cost(q));
  RC_ASSERT(r.stats().contention_delay == 0);
}

// The MST family on random meshes, roots, lengths and ops: right results; exactly the
// formula without contention where the row claims exact, never less elsewhere.
RC_GTEST_PROP(MeshMstProperty, RightAndAsClaimedOnRandomMeshes, ()) {
  auto m = random_mesh();
  const int p = m->size();
  const Operation op = *rc::gen::element(Operation::broadcast, Operation::reduce,
                                         Operation::allreduce, Operation::scatter,
                                         Operation::gather, Operation::allgather);
  const int root = rooted_op(op) ? *rc::gen::inRange(0, p) : 0;
  const std::size_t n = *rc::gen::inRange<std::size_t>(0, 3 * std::size_t(p) + 4);
  const bool commutative = *rc::gen::arbitrary<bool>();
  RunResult r;
  const std::string failure = run_op(*m, op, n, root, *rc::gen::arbitrary<bool>(), commutative, &r);
  RC_ASSERT(failure == "");
  const Algorithm* a = find_algorithm(op, kAlg);
  const CostQuery q = query(*m, op, n, root, commutative);
  if (claim_of(*a, q) == Claim::exact) {
    RC_ASSERT(r.time_ps() == a->cost(q));
    RC_ASSERT(r.stats().contention_delay == 0);
  } else {
    RC_ASSERT(r.time_ps() >= a->cost(q));
  }
}

}  // namespace
}  // namespace vmc::testing
