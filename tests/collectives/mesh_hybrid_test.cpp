// 004's hybrid families (collectives/mesh/families.hpp): broadcast mesh_mst_sc (§9),
// allgather and reduce_scatter mesh_pfr_dr (§8, §10) and mesh_pfr_dr_alt (with §5.2's
// dimension alternation within a stage), allreduce mesh_pfr_pfr_dc (§12) and
// mesh_pfr_pfr_dc_alt (with the alternation), and reduce mesh_mst_dg (§11), each a row that
// runs the member Options::hybrid names and an _optimal row that runs the member of least
// time (§15.1):
// - member 0 is the pure short-vector algorithm and the last the pure long-vector one, digit
//   for digit and in cost;
// - every member gives the right result, any root, lengths that are not multiples of p, on
//   meshes, tori and sub-mesh groups, and holds its claim;
// - docs/figures.md's check, on a smaller mesh than Figures 8-12's 16x32: under 004's model the
//   optimal hybrid takes no longer than the pure short- and long-vector algorithms at every n
//   from 1 to 2^20, and less than both at some n.
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "collectives/collectives.hpp"
#include "collectives/mesh/mst_sc.hpp"
#include "collectives/patterns/mesh_rings.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/selection/simulation.hpp"
#include "tests/collectives/harness.hpp"

namespace vmc::testing {
namespace {

struct Family {
  Operation op;
  std::string name;        // the member row; name + "_optimal" picks
  std::string short_row;   // the pure short-vector algorithm (member 0)
  std::string long_row;    // the pure long-vector algorithm (the last member)
};
const std::vector<Family>& families() {
  static const std::vector<Family> f = {
      {Operation::broadcast, "mesh_mst_sc", "mesh_mst", "mesh_sc"},
      {Operation::allgather, "mesh_pfr_dr", "mesh_pfr", "mesh_dr"},
      {Operation::reduce_scatter, "mesh_pfr_dr", "mesh_pfr", "mesh_dr"},
      {Operation::allgather, "mesh_pfr_dr_alt", "mesh_pfr_alt", "mesh_dr"},
      {Operation::reduce_scatter, "mesh_pfr_dr_alt", "mesh_pfr_alt", "mesh_dr"},
      {Operation::allreduce, "mesh_pfr_pfr_dc", "mesh_pfr", "mesh_dr"},
      {Operation::allreduce, "mesh_pfr_pfr_dc_alt", "mesh_pfr", "mesh_dr"},
      {Operation::reduce, "mesh_mst_dg", "mesh_mst", "mesh_dg"},
  };
  return f;
}

Model mesh_model(double alpha = 5e-6, double beta = 7e-9, double gamma = 3e-9) {
  Model m = model(Port::duplex, Routing::wormhole, alpha, beta, gamma);
  m.contention = Contention::shared;
  return m;
}

int member_count(const Family& f, const CostQuery& q) {
  return static_cast<int>(find_algorithm(f.op, f.name + "_optimal")->members(q).size());
}

CostQuery member_query(const CostQuery& base, const std::string& row, int member) {
  CostQuery q = base;
  q.options.algorithm = row;
  q.options.hybrid = member;
  return q;
}

bool rooted(Operation op) { return op == Operation::broadcast || op == Operation::reduce; }

TEST(MeshHybrid, ThePfrDrPlansRunFromPfrToDr) {
  for (const std::vector<int>& lengths :
       std::vector<std::vector<int>>{{8, 8}, {12, 6}, {16, 32}, {3, 4, 5}, {7, 11}, {2, 2, 2, 2},
                                     {60}, {13}}) {
    patterns::MeshShape shape{lengths, std::vector<bool>(lengths.size(), false)};
    const int last = patterns::pfr_dr_merges(shape);
    const auto same = [](const patterns::RingPlan& a, const patterns::RingPlan& b) {
      if (a.phases() != b.phases()) return false;
      for (int t = 0; t < a.phases(); ++t) {
        if (a.digits[t].dim != b.digits[t].dim || a.digits[t].radix != b.digits[t].radix ||
            a.digits[t].spacing != b.digits[t].spacing) {
          return false;
        }
      }
      return true;
    };
    EXPECT_TRUE(same(patterns::pfr_dr_rings(shape, 0),
                     patterns::prime_factor_rings(shape, patterns::RingOrder::widest_first)))
        << patterns::describe_plan(patterns::pfr_dr_rings(shape, 0));
    EXPECT_TRUE(same(patterns::pfr_dr_rings(shape, last), patterns::dimensional_rings(shape)))
        << patterns::describe_plan(patterns::pfr_dr_rings(shape, last));
    for (int h = 0; h <= last; ++h) {
      const patterns::RingPlan plan = patterns::pfr_dr_rings(shape, h);
      EXPECT_EQ(plan.blocks(), shape.size()) << patterns::describe_plan(plan);
      EXPECT_EQ(plan.phases(), patterns::pfr_dr_rings(shape, 0).phases() - h);
      // Every rank has its own layout index.
      std::vector<bool> seen(shape.size(), false);
      for (int r = 0; r < shape.size(); ++r) seen[plan.layout_index(r)] = true;
      EXPECT_TRUE(std::all_of(seen.begin(), seen.end(), [](bool b) { return b; }));
    }
    // The MST-SC splits: member 0 scatters nothing, the last everything; every member's
    // groups times its scattered blocks are the mesh, and group_member inverts group_index.
    const int splits = internal::sc_members(shape);
    EXPECT_EQ(internal::sc_split(shape, 0).scattered.phases(), 0);
    EXPECT_EQ(internal::sc_split(shape, splits - 1).group.size(), 1);
    for (int i = 0; i < splits; ++i) {
      const internal::ScSplit s = internal::sc_split(shape, i);
      EXPECT_EQ(s.group.size() * s.scattered.blocks(), shape.size()) << internal::describe(s);
      for (int r = 0; r < shape.size(); r += 7) {
        for (int g = 0; g < s.group.size(); ++g) {
          const int other = s.group_member(r, g);
          ASSERT_EQ(s.group_index(other), g) << internal::describe(s);
          ASSERT_EQ(s.scattered.layout_index(other), s.scattered.layout_index(r));
        }
      }
    }
  }
}

// Member 0 and the last member cost what the pure rows cost, on every machine of the set.
TEST(MeshHybrid, TheEndMembersCostWhatThePureAlgorithmsCost) {
  for (const std::string spec : {"mesh:8x8", "mesh:12x6", "torus:4x6", "mesh:3x4x5",
                                  "hypercube:16", "mesh:7x11", "full:12"}) {
    auto m = machine(spec, mesh_model(), Data::none);
    for (const Family& f : families()) {
      for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(65537)}) {
        const CostQuery base = query_for(*m, n, rooted(f.op) ? m->size() - 1 : 0, 8);
        const int members = member_count(f, base);
        const Algorithm& row = *find_algorithm(f.op, f.name);
        const auto cost = [&](const std::string& name) {
          return find_algorithm(f.op, name)->cost(member_query(base, name, -1));
        };
        EXPECT_EQ(row.cost(member_query(base, f.name, 0)), cost(f.short_row))
            << spec << " " << to_string(f.op) << " n " << n;
        EXPECT_EQ(row.cost(member_query(base, f.name, members - 1)), cost(f.long_row))
            << spec << " " << to_string(f.op) << " n " << n;
      }
    }
  }
}

// The optimal row runs the member of least time (§15.1): of least simulated time (each
// member run as the given row runs it), which is the least formula where every member's
// formula is exact; and selection's own simulation of the optimal row runs that member, so
// the time it predicts is the member's. On meshes, where some broadcast members' formulas
// are estimates (mesh:3x6's member 2 at n = 4096 rooted at node 13, scatter lines of 3 and
// 3x2 groups with the root in the middle of a line whose crossing runs downwards, has the
// least formula and runs slower than member 1; rooted in the lower line, and mesh:6x4's
// member 4, whose groups start apart, it is exact now, mesh/mst_sc.cpp), and off the
// group's own mesh (a tree, a hypercube), where most are.
TEST(MeshHybrid, OptimalRowRunsTheMemberOfLeastTime) {
  int by_run = 0;  // queries where the least formula is not the fastest member
  const std::vector<std::size_t> lengths = {64, 4096};
  const std::vector<std::pair<std::string, std::vector<std::size_t>>> machines = {
      {"mesh:8x8", lengths}, {"torus:4x6", lengths},    {"mesh:3x4x5", lengths},
      {"tree:16", lengths},  {"hypercube:16", lengths}, {"mesh:6x4", {32768}},
      {"mesh:3x6", {4096}}};
  for (const auto& [spec, ns] : machines) {
    if (kSanitized && spec == "mesh:8x8") continue;
    auto m = machine(spec, mesh_model(60e-6, 2e-8, 1e-8), Data::none);
    std::vector<Family> all = families();  // and allgatherv, whose choice is its own
    all.push_back({Operation::allgatherv, "mesh_pfr_dr", "mesh_pfr", "mesh_dr"});
    for (const Family& f : all) {
      for (std::size_t n : ns) {
        const int root = !rooted(f.op) ? 0 : spec == "mesh:3x6" ? 13 : 1;
        const CostQuery base = query_for(*m, n, root, 8);
        const int members = member_count(f, base);
        const Algorithm& row = *find_algorithm(f.op, f.name);
        const Algorithm& optimal = *find_algorithm(f.op, f.name + "_optimal");
        std::vector<Picos> simulated, formula;
        bool exact = true;
        for (int i = 0; i < members; ++i) {
          const CostQuery q = member_query(base, f.name, i);
          const std::optional<Picos> t = simulated_cost(f.op, row, q);
          ASSERT_TRUE(t.has_value()) << spec << " member " << i;
          simulated.push_back(*t);
          formula.push_back(row.cost(q));
          exact = exact && claim_of(row, q) == Claim::exact;
        }
        const std::string where = spec + " " + to_string(f.op) + " n " + std::to_string(n);
        const int chosen = chosen_member(f.op, optimal, base);
        ASSERT_TRUE(chosen >= 0 && chosen < members) << where;
        const Picos least = *std::min_element(simulated.begin(), simulated.end());
        EXPECT_EQ(simulated[chosen], least) << where << ": member " << chosen << " chosen";
        if (exact) {
          EXPECT_EQ(formula[chosen], *std::min_element(formula.begin(), formula.end())) << where;
        }
        const std::size_t least_formula = static_cast<std::size_t>(
            std::min_element(formula.begin(), formula.end()) - formula.begin());
        if (simulated[least_formula] > least) ++by_run;
        const std::optional<Picos> as_selection_sees_it =
            simulated_cost(f.op, optimal, member_query(base, optimal.name, -1));
        ASSERT_TRUE(as_selection_sees_it.has_value()) << where;
        EXPECT_EQ(*as_selection_sees_it, least) << where;
        EXPECT_EQ(optimal.cost(row_query(f.op, optimal, base)), formula[chosen]) << where;
      }
    }
  }
  // The case this choice is for happens on this set: the member of least formula is not
  // the fastest.
  if (!kSanitized) {
    EXPECT_GT(by_run, 0);
  }
}

// One call of `row` (with Options::hybrid = member) on comm, checked against the sum.
void call_checked(const Comm& c, Operation op, const Options& o, std::size_t n, int root,
                  Failures& f) {
  const int p = c.size(), me = c.rank();
  const Op sum = ops::sum<std::int64_t>();
  const std::string what = to_string(op) + " " + o.algorithm + " member " +
                           std::to_string(o.hybrid) + " p " + std::to_string(p) + " n " +
                           std::to_string(n) + " root " + std::to_string(root) + " node " +
                           std::to_string(me);
  // What this rank must hold (the sequential reference of collectives/reference/).
  auto want = reference_of<std::int64_t>({.op = op, .members = p, .n = n, .root = root}, &sum,
                                         [](int r, std::size_t i) { return value<std::int64_t>(r, i); });
  switch (op) {
    case Operation::broadcast: {
      std::vector<std::int64_t> x = me == root ? values<std::int64_t>(root, n)
                                               : std::vector<std::int64_t>(n, -1);
      broadcast(c, std::span(x), root, o);
      if (x != expected_items<std::int64_t>(want, me)) f.add(what + ": wrong vector");
      break;
    }
    case Operation::reduce: {
      const std::vector<std::int64_t> x = values<std::int64_t>(me, n);
      std::vector<std::int64_t> y(n, -1);
      reduce<std::int64_t>(c, x, y, sum, root, o);
      if (me == root && y != expected_items<std::int64_t>(want, me)) f.add(what + ": wrong sum");
      break;
    }
    case Operation::allreduce: {
      const std::vector<std::int64_t> x = values<std::int64_t>(me, n);
      std::vector<std::int64_t> y(n, -1);
      allreduce<std::int64_t>(c, x, y, sum, o);
      if (y != expected_items<std::int64_t>(want, me)) f.add(what + ": wrong sum");
      break;
    }
    case Operation::allgather: {
      const std::vector<std::int64_t> x = values<std::int64_t>(me, n);
      std::vector<std::int64_t> y(n * p, -1);
      allgather<std::int64_t>(c, x, y, o);
      if (y != expected_items<std::int64_t>(want, me)) f.add(what + ": wrong blocks");
      break;
    }
    default: {  // reduce_scatter
      const std::vector<std::int64_t> x = values<std::int64_t>(me, n * p);
      std::vector<std::int64_t> y(n, -1);
      reduce_scatter<std::int64_t>(c, x, y, sum, o);
      if (y != expected_items<std::int64_t>(want, me)) f.add(what + ": wrong sum");
      break;
    }
  }
}

std::vector<int> test_roots(Operation op, int p) {
  if (!rooted(op)) return {0};
  std::vector<int> v = {0, p - 1, p / 2};
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

TEST(MeshHybrid, EveryMemberGivesTheResultAndHoldsItsClaim) {
  std::vector<std::string> specs = {"mesh:4x6", "torus:3x4x2", "mesh:5x1", "hypercube:8"};
  if (!kSanitized) specs.insert(specs.end(), {"mesh:8x4", "torus:6x4", "mesh:2x3x4"});
  int exact = 0;
  for (const std::string& spec : specs) {
    Model mdl = mesh_model();
    mdl.beta_net = 3e-9;
    mdl.delta = 1e-9;
    auto m = machine(spec, mdl);
    const int p = m->size();
    for (const Family& f : families()) {
      for (std::size_t n : {std::size_t(1), std::size_t(p + 1), std::size_t(3 * p + 2)}) {
        for (int root : test_roots(f.op, p)) {
          const CostQuery base = query_for(*m, n, root, 8);
          const int members = member_count(f, base);
          for (int i = -1; i < members; ++i) {  // -1: the optimal row
            const std::string name = i < 0 ? f.name + "_optimal" : f.name;
            const Options o{.algorithm = name, .hybrid = i};
            Failures fails;
            const RunResult r = m->run(
                [&](Node& node) { call_checked(node.world(), f.op, o, n, root, fails); });
            ASSERT_TRUE(fails.empty()) << spec << "\n" << fails.text();
            const CostQuery q = member_query(base, name, i);
            const Algorithm& a = *find_algorithm(f.op, name);
            const Claim claim = claim_of(a, q);
            if (claim == Claim::exact) {
              ++exact;
              EXPECT_EQ(r.time_ps(), a.cost(q)) << spec << " " << to_string(f.op) << " " << name
                                                << " member " << i << " n " << n << " root "
                                                << root;
            }
            if (claim == Claim::lower_bound) {
              EXPECT_GE(r.time_ps(), a.cost(q)) << spec << " " << to_string(f.op) << " " << name;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(exact, 100);  // the claims are not all estimates
}

// Under 004's model with beta_net = beta (a link that p0 messages share gives each p0 beta
// per item), the members between the ends: the broadcast's and the reduction's MST groups,
// interleaved or not, hold their claim, and the interleaved ones the claims sweep's beta_net
// hides (two sharers at 3 ns against 7 ns) are exact: mesh:6x4's member 1 (6x2 groups, two
// apart) and mesh:8x8's member 2 (8x2 groups, four apart) at the lengths where a message
// across the virtual dimension takes twice or four times as long, mesh:4x4x4's member 1
// (4x4x2 groups), mesh:16x16's members 1-3 and 5-7. On mesh:2x3, 5x1 (no member between the
// ends), 7x11 and torus:6x4 only the claims are held. Every root up to 24 nodes (up to 64
// at one length), the first, a middle and the last above; lengths that are and are not
// multiples of the blocks. Timing only.
TEST(MeshHybrid, InterleavedMembersAreExactUnder004sModel) {
  std::vector<std::string> specs = {"mesh:2x3", "mesh:5x1", "mesh:6x4", "torus:6x4",
                                    "mesh:8x8", "mesh:4x4x4", "mesh:7x11"};
  if (!kSanitized) specs.push_back("mesh:16x16");
  int exact = 0;
  for (const std::string& spec : specs) {
    auto m = machine(spec, mesh_model(525e-6, 2e-6, 0.35e-6), Data::none);
    const int p = m->size();
    std::vector<std::size_t> lengths = {1, 1000, 4099, 65536};
    if (p > 64) lengths = {4099, 65539};  // 256 nodes: the slow part
    for (const Family& f : families()) {
      if (!rooted(f.op)) continue;
      for (std::size_t n : lengths) {
        // Every root up to 24 nodes, and up to 64 at n = 4099; the first, a middle and the
        // last elsewhere.
        std::vector<int> roots = {0, p / 2 + 1, p - 1};
        if (p <= 24 || (p <= 64 && n == 4099)) {
          roots.clear();
          for (int r = 0; r < p; ++r) roots.push_back(r);
        }
        for (int root : roots) {
          const CostQuery base = query_for(*m, n, root, 4);
          const int members = member_count(f, base);
          const Algorithm& row = *find_algorithm(f.op, f.name);
          for (int i = 1; i + 1 < members; ++i) {
            const CostQuery q = member_query(base, f.name, i);
            const internal::ScSplit s = internal::sc_split(internal::mesh_shape_of(q), i);
            const Claim claim = claim_of(row, q);
            const std::string where = spec + " " + to_string(f.op) + " member " +
                                      std::to_string(i) + " n " + std::to_string(n) +
                                      " root " + std::to_string(root);
            // Not on torus:6x4 (its groups' rows are rings of 6, patterns::mst_contention_free)
            // nor for mesh:6x4's broadcast member 4 with the root in the middle of a line whose
            // crossing runs downwards (x = 4: StaggeredLineOfThreeIsExact); at the other roots
            // it is exact too (its groups start one message apart, as its formula counts).
            const bool middle_down = f.op == Operation::broadcast && spec == "mesh:6x4" &&
                                     i == 4 && root % 6 == 4;
            if (s.interleaved() && spec != "torus:6x4" && !middle_down) {
              EXPECT_EQ(claim, Claim::exact) << where;
            }
            if (claim != Claim::exact) continue;
            ++exact;
            EXPECT_EQ(time_operation(*m, f.op, q), row.cost(q)) << where;
          }
        }
      }
    }
  }
  EXPECT_GT(exact, kSanitized ? 2600 : 2700);
}

// The broadcast's members on `specs` whose scatter line has 3 nodes and whose interleaved
// groups are pairs (`pairs`) or have lower dimensions (!pairs), at every root and length:
// those whose root coordinate along the line makes `estimate` true claim an estimate; every
// other claims exact and runs its formula's time. Under 004's model, timing only.
struct StaggeredCount {
  int exact = 0;
  int estimates = 0;
};
StaggeredCount check_staggered_lines(const std::vector<std::string>& specs,
                                     const std::vector<std::size_t>& lengths, bool pairs,
                                     bool (*estimate)(int x)) {
  const Algorithm& row = *find_algorithm(Operation::broadcast, "mesh_mst_sc");
  StaggeredCount count;
  for (const std::string& spec : specs) {
    auto m = machine(spec, mesh_model(525e-6, 2e-6, 0.35e-6), Data::none);
    const int p = m->size();
    for (std::size_t n : lengths) {
      for (int root = 0; root < p; ++root) {
        const CostQuery base = query_for(*m, n, root, 4);
        const patterns::MeshShape shape = internal::mesh_shape_of(base);
        const int members = internal::sc_members(shape);
        for (int i = 1; i + 1 < members; ++i) {
          const internal::ScSplit s = internal::sc_split(shape, i);
          if (s.p0 != 3 || s.p1() != 2 || (s.group.size() == 2) != pairs) continue;
          const CostQuery q = member_query(base, "mesh_mst_sc", i);
          const std::string where = spec + " member " + std::to_string(i) + " n " +
                                    std::to_string(n) + " root " + std::to_string(root);
          if (estimate(shape.coordinate(root, s.dim))) {
            EXPECT_EQ(claim_of(row, q), Claim::estimate) << where;
            ++count.estimates;
            continue;
          }
          EXPECT_EQ(claim_of(row, q), Claim::exact) << where;
          if (claim_of(row, q) != Claim::exact) continue;
          ++count.exact;
          EXPECT_EQ(time_operation(*m, Operation::broadcast, q), row.cost(q)) << where;
        }
      }
    }
  }
  return count;
}

// The broadcast's scattered line of 3 whose interleaved groups are pairs (mesh/mst_sc.cpp,
// crossing_sharers): the far node gets its block one message early and its crossing message
// ends, alone, as the other two start, which share two ways: exact at every root where the
// root's second scatter message keeps off the far node's route, and there the run is one
// block's beta below the p0 = 3 formula (004's); elsewhere (the root in the middle of its
// line, the crossing downwards) an estimate. Under 004's model, timing only.
TEST(MeshHybrid, StaggeredLineOfThreeIsExact) {
  std::vector<std::string> specs = {"mesh:6x4"};
  if (!kSanitized) specs.insert(specs.end(), {"mesh:6x8", "mesh:6x2x4"});
  // The root in the middle of its line, the crossing downwards.
  const StaggeredCount count = check_staggered_lines(
      specs, {1, 1000, 4099}, true, [](int x) { return x % 3 == 1 && x / 3 == 1; });
  EXPECT_GT(count.exact, 50);
  EXPECT_GT(count.estimates, 5);
}

// The staggered line of 3 whose groups have lower dimensions (mesh/mst_sc.cpp,
// staggered_delay; mesh:2x6, 3x6 and 4x6's member 2, groups m_0 x 2): the far node's group
// runs ahead, and its ring messages take in-ports the root's group's last MST step needs,
// one message less the lag, alpha under 004's model, after the two-sharer crossing. Exact
// at every root of the lower line (staggered_exact); with the root in the upper line, whose
// crossing runs downwards, an estimate. Under 004's model, timing only.
TEST(MeshHybrid, StaggeredLineWithLowerDimensionsIsExact) {
  std::vector<std::string> specs = {"mesh:2x6", "mesh:3x6"};
  if (!kSanitized) specs.insert(specs.end(), {"mesh:4x6", "mesh:2x6x2"});
  // The root in the upper line, whose crossing runs downwards.
  const StaggeredCount count =
      check_staggered_lines(specs, {1, 7, 1000, 4099}, false, [](int x) { return x / 3 == 1; });
  EXPECT_GT(count.exact, kSanitized ? 40 : 150);
  EXPECT_GT(count.estimates, 10);
}

// The reduction-to-all hybrids with §5.2's dimension alternation (mesh_pfr_pfr_dc_alt) under
// 004's model with 000's iPSC/860 costs, timing only: every member claims exact and takes its
// formula's time to the picosecond on mesh:6x4, 8x8, 4x4x4, 7x11, torus:6x4 and 16x16, at
// lengths that are and are not multiples of its blocks; no member is slower than the same
// member without alternation (the alternation puts no more messages on a link, and delta is
// 0), and on mesh:8x8, 4x4x4 and 16x16 some are faster, whose interleaved rings the
// alternation spreads over the dimensions. Members whose tail is empty have no class to
// rotate by and are the plain ones; on mesh:6x4 and 7x11 no group alternates at all.
TEST(MeshHybrid, AlternatingReductionToAllMembersAreExactUnder004sModel) {
  std::vector<std::string> specs = {"mesh:6x4", "mesh:8x8", "mesh:4x4x4", "mesh:7x11",
                                    "torus:6x4"};
  if (!kSanitized) specs.push_back("mesh:16x16");
  int exact = 0;
  for (const std::string& spec : specs) {
    auto m = machine(spec, mesh_model(525e-6, 2e-6, 0.35e-6), Data::none);
    const int p = m->size();
    const std::vector<std::size_t> lengths =
        p > 64 ? std::vector<std::size_t>{1003} : std::vector<std::size_t>{1, 1003, 65536};
    const Algorithm& alt = *find_algorithm(Operation::allreduce, "mesh_pfr_pfr_dc_alt");
    const Algorithm& plain = *find_algorithm(Operation::allreduce, "mesh_pfr_pfr_dc");
    int faster = 0;
    for (std::size_t n : lengths) {
      const CostQuery base = query_for(*m, n, 0, 4);
      const int members =
          static_cast<int>(find_algorithm(Operation::allreduce, "mesh_pfr_pfr_dc_alt_optimal")
                               ->members(base)
                               .size());
      for (int i = 0; i < members; ++i) {
        const CostQuery q = member_query(base, alt.name, i);
        const std::string where =
            spec + " member " + std::to_string(i) + " n " + std::to_string(n);
        ASSERT_EQ(claim_of(alt, q), Claim::exact) << where;
        const Picos run = time_operation(*m, Operation::allreduce, q);
        EXPECT_EQ(run, alt.cost(q)) << where;
        ++exact;
        const Picos before = time_operation(*m, Operation::allreduce,
                                            member_query(base, plain.name, i));
        EXPECT_LE(run, before) << where;
        if (run < before) ++faster;
      }
    }
    const bool spread = spec == "mesh:8x8" || spec == "mesh:4x4x4" || spec == "mesh:16x16";
    if (spread) {
      EXPECT_GT(faster, 0) << spec;
    } else {
      EXPECT_EQ(faster, 0) << spec;
    }
  }
  EXPECT_GT(exact, kSanitized ? 150 : 190);
}

// The alternating reduction-to-all members combine in rotated orders, and a float sum
// depends on the order: every node still ends with the same bits, because the nodes that
// hold one block share their head's order (patterns::stage_order's split). Every member on
// mesh:8x8 and 4x4x4, where heads rotate, with magnitudes that make the order show.
TEST(MeshHybrid, AlternatingMembersEndWithTheSameBitsOnEveryNode) {
  for (const std::string spec : {"mesh:8x8", "mesh:4x4x4"}) {
    auto m = machine(spec, mesh_model());
    const int p = m->size();
    const std::size_t n = 67;
    const CostQuery base = query_for(*m, n, 0, 4);
    const int members = static_cast<int>(
        find_algorithm(Operation::allreduce, "mesh_pfr_pfr_dc_alt_optimal")->members(base).size());
    for (int i = 0; i < members; ++i) {
      std::vector<std::vector<float>> out(p);
      m->run([&](Node& node) {
        const int r = node.rank();
        std::vector<float> y(n);
        for (std::size_t k = 0; k < n; ++k) {
          y[k] = (r + k) % 3 == 0 ? 1e8f + float(r) : 1.0f / float(1 + r + k);
        }
        allreduce(node.world(), std::span(y), ops::sum<float>(),
                  Options{.algorithm = "mesh_pfr_pfr_dc_alt", .hybrid = i});
        out[r] = y;
      });
      for (int r = 1; r < p; ++r) {
        ASSERT_TRUE(bitwise_equal(out[r], out[0])) << spec << " member " << i << " rank " << r;
      }
    }
  }
}

// 004 §9's T_MST-SC-BROADCAST and §11's T_MST-DG-REDUCTION-TO-ONE, derived again from the
// algorithms (the OCR text garbles both) and computed here in integer picoseconds, apart from
// the library's formulas: a 2-D mesh m_0 x m_1 whose dimension 1 is split (d' = 1, nothing
// above it), p0 of it scattered (a power of two, or 3 on mesh:2x3) and the MST groups
// m_0 x p1 interleaved (p1 = m_1 / p0, members p0 apart), b = ceil(n / p0) items a block:
//   broadcast (ceil(log2 p0) + p0 - 1) alpha + 2 (p0 - 1) b beta   MST scatter, ring collect
//             + ceil(log2 p1)(alpha + b max(beta, p0 beta_net))    across the shared links
//             + ceil(log2 m_0)(alpha + b beta)                     within a row
//   reduce    the same with gamma on every step but the gather's.
// The reduction's MST phase is that sum where m_0 is a power of two; where it is not, the
// tree's leaves send at once and its longest path holds fewer combines (mesh:6x4's rows of
// 6: the root's last message at 3 (alpha + b beta) + b gamma, 2 b gamma in all, not 3), so
// 004's form is an upper bound there and the row's formula, the tree's longest path, equals
// the run.
// Under 004's model (beta_net = beta), every root at n = 4099 (four on mesh:16x16), the first
// and the last at the other lengths, which are and are not multiples of p0: the simulated
// time and the row's formula both equal it to the picosecond. Among them
// mesh:6x4's member 1 (6x2 groups two apart): 6 alpha + 7 b beta, one message of its root
// across dimension 1 (the rank-order tree), where a tree that cut the group non-rectangularly
// (root 0 to node 13, diagonally) took a second. Timing only.
TEST(MeshHybrid, SplitInTheHighestDimensionIs004sClosedForm) {
  const Picos alpha = 525'000'000, beta = 2'000'000, gamma = 350'000;  // 004's iPSC/860
  const auto ceil_log2 = [](int x) {
    int k = 0;
    while ((1 << k) < x) ++k;
    return k;
  };
  struct Case {
    std::string spec;
    int m0, m1;
    std::vector<int> roots;  // empty: every root
  };
  std::vector<Case> cases = {{"mesh:2x3", 2, 3, {}}, {"mesh:6x4", 6, 4, {}}};
  if (!kSanitized) {
    cases.push_back({"mesh:8x8", 8, 8, {}});
    cases.push_back({"mesh:16x16", 16, 16, {0, 5, 120, 255}});
  }
  int checked = 0;
  for (const Case& c : cases) {
    auto m = machine(c.spec, mesh_model(525e-6, 2e-6, 0.35e-6), Data::none);
    const int p = m->size();
    std::vector<int> roots = c.roots;
    for (int r = 0; c.roots.empty() && r < p; ++r) roots.push_back(r);
    for (const Family& f : families()) {
      if (!rooted(f.op)) continue;
      const Algorithm& row = *find_algorithm(f.op, f.name);
      const Picos g = f.op == Operation::reduce ? gamma : 0;
      // Member i (1, 2, ...) scatters the i-th divisor p0 > 1 of m_1.
      int member = 0;
      for (int p0 = 2; p0 <= c.m1; ++p0) {
        if (c.m1 % p0 != 0) continue;
        ++member;
        const int p1 = c.m1 / p0;
        // Every root at one length, the first and last root at the others (the larger
        // meshes' runs are the slow part).
        for (std::size_t n : {std::size_t(1), std::size_t(7), std::size_t(4099),
                              std::size_t(65536), std::size_t(65539)}) {
          const Picos b = static_cast<Picos>((n + p0 - 1) / p0);
          const Picos expected =
              (ceil_log2(p0) + p0 - 1) * alpha + 2 * (p0 - 1) * b * beta + (p0 - 1) * b * g +
              ceil_log2(p1) * (alpha + b * (p0 * beta + g)) +
              ceil_log2(c.m0) * (alpha + b * (beta + g));
          for (std::size_t k = 0; k < roots.size(); ++k) {
            if (n != 4099 && k != 0 && k + 1 != roots.size()) continue;
            const int root = roots[k];
            const CostQuery q = member_query(query_for(*m, n, root, 4), f.name, member);
            const std::string where = c.spec + " " + to_string(f.op) + " member " +
                                      std::to_string(member) + " (p0 " + std::to_string(p0) +
                                      ") n " + std::to_string(n) + " root " +
                                      std::to_string(root);
            const Picos simulated = time_operation(*m, f.op, q);
            EXPECT_EQ(row.cost(q), simulated) << where;
            if (g > 0 && (c.m0 & (c.m0 - 1)) != 0) {
              EXPECT_LE(simulated, expected) << where;  // see above: fewer combines
            } else {
              EXPECT_EQ(simulated, expected) << where;
            }
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 100);
}

// Above 64 nodes (mesh:12x12): the optimal rows, and the middle member of each family, give
// the result with every root class (a corner, the middle, the last node) and hold their claim.
TEST(MeshHybrid, OptimalRowsOnAMachineAbove64Nodes) {
  auto m = machine(kSanitized ? "mesh:9x8" : "mesh:12x12", mesh_model());
  const int p = m->size();
  for (const Family& f : families()) {
    const CostQuery base = query_for(*m, 2 * p + 3, 0, 8);
    for (int i : {-1, member_count(f, base) / 2}) {
      for (int root : test_roots(f.op, p)) {
        const std::string name = i < 0 ? f.name + "_optimal" : f.name;
        const Options o{.algorithm = name, .hybrid = i};
        Failures fails;
        const RunResult r = m->run(
            [&](Node& node) { call_checked(node.world(), f.op, o, 2 * p + 3, root, fails); });
        ASSERT_TRUE(fails.empty()) << fails.text();
        const Algorithm& a = *find_algorithm(f.op, name);
        const CostQuery q =
            row_query(f.op, a, member_query(query_for(*m, 2 * p + 3, root, 8), name, i));
        if (claim_of(a, q) == Claim::exact) {
          EXPECT_EQ(r.time_ps(), a.cost(q)) << to_string(f.op) << " " << name << " " << i;
        }
      }
    }
  }
}

// On sub-mesh groups (a row, a column, a block of mesh:4x6, split by world rank) every
// member runs on the group's own mesh and gives the result.
TEST(MeshHybrid, EveryMemberRunsOnSubMeshGroups) {
  auto m = machine("mesh:4x6", mesh_model());
  const std::vector<std::vector<int>> groups = {
      {4, 5, 6, 7}, {1, 5, 9, 13, 17, 21}, {5, 6, 9, 10, 13, 14, 17, 18}};
  for (const std::vector<int>& group : groups) {
    std::vector<int> index(m->size(), -1);
    for (int r = 0; r < static_cast<int>(group.size()); ++r) index[group[r]] = r;
    const int p = static_cast<int>(group.size());
    for (const Family& f : families()) {
      CostQuery base = query_for(*m, 5, 0, 8);
      base.p = p;
      base.members = group;
      const int members = member_count(f, base);
      EXPECT_GT(members, 1) << to_string(f.op) << " on a group of " << p;
      for (int i = -1; i < members; ++i) {
        for (int root : test_roots(f.op, p)) {
          const Options o{.algorithm = i < 0 ? f.name + "_optimal" : f.name, .hybrid = i};
          Failures fails;
          m->run([&](Node& node) {
            const int mine = index[node.rank()];
            Comm g = node.world().split(mine >= 0 ? 0 : -1, mine);
            if (mine >= 0) call_checked(g, f.op, o, 2 * p + 1, root, fails);
          });
          ASSERT_TRUE(fails.empty()) << fails.text();
        }
      }
    }
  }
}

// 004 §16's claim: the optimal hybrid lies on or below both pure curves at every n from 1 to 2^20
// (timing only), under 004's model with 000's iPSC/860 costs, and below both somewhere (the
// families without alternation).
TEST(MeshHybrid, TheOptimalHybridIsNeverSlowerThanThePureAlgorithms) {
  const std::string spec = kSanitized ? "mesh:4x4" : "mesh:8x8";
  auto m = machine(spec, mesh_model(525e-6, 2e-6, 0.35e-6), Data::none);
  std::vector<std::size_t> lengths;
  for (std::size_t n = 1; n <= (std::size_t(1) << 20); n *= kSanitized ? 16 : 4) {
    lengths.push_back(n);
  }
  for (const Family& f : families()) {
    int below_both = 0;
    for (std::size_t n : lengths) {
      // Figures 8-12 plot the collect and the distributed reduction per node's block.
      const std::size_t count =
          f.op == Operation::allgather || f.op == Operation::reduce_scatter
              ? std::max<std::size_t>(1, n / m->size())
              : n;
      const auto time = [&](const std::string& name) {
        return time_operation(*m, f.op, member_query(query_for(*m, count, 0, 8), name, -1));
      };
      const Picos hybrid = time(f.name + "_optimal");
      const Picos shorter = time(f.short_row), longer = time(f.long_row);
      EXPECT_LE(hybrid, shorter) << to_string(f.op) << " n " << count;
      EXPECT_LE(hybrid, longer) << to_string(f.op) << " n " << count;
      if (hybrid < std::min(shorter, longer)) ++below_both;
    }
    // With the alternation within a stage, mesh_pfr_alt's widest rings share half as many
    // links, and on 8x8 the end members are the fastest at every length tried (equal there).
    if (f.name.ends_with("_alt")) continue;
    EXPECT_GT(below_both, 0) << to_string(f.op) << ": the hybrid never beats both on " << spec;
  }
}

}  // namespace
}  // namespace vmc::testing
