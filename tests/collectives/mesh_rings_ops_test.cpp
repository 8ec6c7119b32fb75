// 004's ring algorithms on meshes (collectives/<op>/<op>_mesh_{dr,pfr,pfr_dc,direct}.cpp):
// - the DR rows are exact and contention-free (zero contention delay) on every mesh and
//   torus of mesh_set.hpp, for lengths 0, 1, p-1, p+1 and others not multiples of p,
//   duplex ports, wormhole routing, shared contention;
// - the PFR rows hold 004's formula with c_{i,j} under shared contention, with beta_net
//   and delta, wherever their row claims exact (and it does on the meshes listed here);
// - the rows with 004 §5.2's dimension alternation within a stage (mesh_pfr_alt,
//   mesh_pfr_dc_alt) give the result on the meshes of §5.2's sweep under every port model,
//   hold their formula to the picosecond under 004's model where they claim it, and are
//   never slower than the rows without it there;
// - every row gives the right result on meshes, in place and not, on sub-groups of a mesh
//   machine and on random mesh shapes (RapidCheck), non-commutative ops in rank order where
//   the row takes them; a reduction that needs a commutative op refuses the others;
// - a target: on mesh:8x8 and mesh:7x11 (n = 65536, alpha 525 us, beta 2 us,
//   duplex, shared) automatic selection picks a mesh algorithm that beats every other one,
//   within 2% of 004's DR-DC formula on 7x11.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "collectives/collectives.hpp"
#include "collectives/selection/simulation.hpp"
#include "tests/collectives/harness.hpp"
#include "tests/collectives/mesh_set.hpp"

namespace vmc::testing {
namespace {

Model mesh_model(Port port = Port::duplex, double beta_net = 0, double delta = 0) {
  Model m = model(port, Routing::wormhole);
  m.contention = Contention::shared;
  if (beta_net > 0) m.beta_net = beta_net;
  m.delta = delta;
  return m;
}

// The rows of this file: operation and algorithm.
struct Row {
  Operation op;
  std::string name;
};
std::vector<Row> rows(const std::string& family) {
  std::vector<Row> v = {{Operation::allgather, "mesh_" + family},
                        {Operation::reduce_scatter, "mesh_" + family},
                        {Operation::allreduce, "mesh_" + family},
                        {Operation::alltoall, "mesh_" + family}};
  if (family == "pfr") v.push_back({Operation::allreduce, "mesh_pfr_dc"});
  return v;
}

// Item i of rank s's contribution (for destination d where the operation has one).
std::int64_t item(int s, int d, std::size_t i) { return stamp(s, i) * 131 + d; }

// One call of `row` on comm with blocks of n items (the allreduce vector: n items), checked
// against the sequential result; failures go to f.
template <class T>
void call_checked(const Comm& c, const Row& row, std::size_t n, bool in_place, const Op& op,
                  Failures& f) {
  const int p = c.size(), me = c.rank();
  const Options o = with(row.name);
  const std::string what = to_string(row.op) + " " + row.name + " p " + std::to_string(p) +
                           " n " + std::to_string(n) + " node " + std::to_string(me);
  auto bad = [&](const std::string& why) { f.add(what + ": " + why); };
  if (row.op == Operation::allgather) {
    Guarded<std::int64_t> all(n * p);
    std::vector<std::int64_t> mine(n);
    for (std::size_t i = 0; i < n; ++i) mine[i] = item(me, 0, i);
    if (in_place) {
      std::copy(mine.begin(), mine.end(), all.span().begin() + me * n);
      allgather(c, all.span(), o);
    } else {
      allgather<std::int64_t>(c, mine, all.span(), o);
    }
    for (int s = 0; s < p; ++s)
      for (std::size_t i = 0; i < n; ++i)
        if (all.get(s * n + i) != item(s, 0, i)) return bad("block " + std::to_string(s));
    if (!all.canaries_intact()) bad("canary");
  } else if (row.op == Operation::alltoall) {
    std::vector<std::int64_t> send(n * p);
    for (int d = 0; d < p; ++d)
      for (std::size_t i = 0; i < n; ++i) send[d * n + i] = item(me, d, i);
    Guarded<std::int64_t> recv(n * p);
    alltoall<std::int64_t>(c, send, recv.span(), o);
    for (int s = 0; s < p; ++s)
      for (std::size_t i = 0; i < n; ++i)
        if (recv.get(s * n + i) != item(s, me, i)) return bad("block " + std::to_string(s));
    if (!recv.canaries_intact()) bad("canary");
  } else {
    const std::size_t len = row.op == Operation::reduce_scatter ? n * p : n;
    const std::size_t first = row.op == Operation::reduce_scatter ? me * n : 0;
    std::vector<T> want(n);  // this rank's part of the result, folded in rank order
    for (std::size_t i = 0; i < n; ++i) {
      want[i] = value<T>(0, first + i);
      for (int s = 1; s < p; ++s) {
        const T x = value<T>(s, first + i);
        op.apply(&want[i], &x, &want[i], 1);
      }
    }
    const std::vector<T> mine = values<T>(me, len);
    Guarded<T> out(n);
    if (row.op == Operation::reduce_scatter) {
      reduce_scatter<T>(c, mine, out.span(), op, o);
    } else if (in_place) {
      std::copy(mine.begin(), mine.end(), out.span().begin());
      allreduce(c, out.span(), op, o);
    } else {
      allreduce<T>(c, mine, out.span(), op, o);
    }
    for (std::size_t i = 0; i < n; ++i)
      if (!(out.get(i) == want[i])) return bad("item " + std::to_string(i));
    if (!out.canaries_intact()) bad("canary");
  }
}

RunResult run_checked(Machine& m, const Row& row, std::size_t n, bool in_place, Failures& f) {
  const Op sum = ops::sum<std::int64_t>();
  return m.run([&](Node& node) {
    call_checked<std::int64_t>(node.world(), row, n, in_place, sum, f);
  });
}

CostQuery query(const Machine& m, const Row& row, std::size_t n) {
  CostQuery q = query_for(m, n, 0, sizeof(std::int64_t));
  q.options.algorithm = row.name;
  return q;
}

std::vector<std::size_t> lengths(int p) {
  std::vector<std::size_t> v = {0, 1, std::size_t(p - 1), std::size_t(p + 1),
                                std::size_t(2 * p + 3)};
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// 004 §6.1: dimensional rings are contention-free under dimension-order wormhole routing
// with duplex ports, so the DR formulas hold to the picosecond with no contention delay.
TEST(MeshRingsOps, DimensionalRingsAreExactAndContentionFreeOnTheMeshSet) {
  for (const std::string& spec : mesh_set()) {
    auto m = machine(spec, mesh_model());
    for (const Row& row : rows("dr")) {
      const Algorithm& a = *find_algorithm(row.op, row.name);
      for (std::size_t n : lengths(m->size())) {
        Failures f;
        const RunResult r = run_checked(*m, row, n, n % 2 == 1, f);
        ASSERT_TRUE(f.empty()) << spec << "\n" << f.text();
        const CostQuery q = query(*m, row, n);
        EXPECT_EQ(claim_of(a, q), Claim::exact) << spec << " " << row.name;
        EXPECT_EQ(r.time_ps(), a.cost(q)) << spec << " " << to_string(row.op) << " n " << n;
        EXPECT_EQ(r.stats().contention_delay, 0) << spec << " " << to_string(row.op);
        EXPECT_EQ(r.stats().contention_critical_delay, 0) << spec << " " << to_string(row.op);
      }
    }
  }
}

// Every row of this file on the meshes and tori of the set (up to 64 nodes by default; all
// of them and lengths p-1 and 0 too with VMC_FULL_SWEEP=1), lengths 1, p+1 and 1000, in
// place on odd lengths: the right result, and the virtual time as the row's claim says.
TEST(MeshRingsOps, EveryRowOnTheMeshSet) {
  std::vector<Row> all = rows("dr");
  for (const Row& r : rows("pfr")) all.push_back(r);
  all.push_back({Operation::alltoall, "mesh_direct"});
  for (const std::string& spec : mesh_set()) {
    auto m = machine(spec, mesh_model(Port::duplex, 3e-9, 1e-9));
    const int p = m->size();
    if (p > 64 && !full_sweep()) continue;
    std::vector<std::size_t> ns = {1, std::size_t(p + 1), 1000};
    if (full_sweep()) ns.insert(ns.end(), {0, std::size_t(p - 1)});
    for (const Row& row : all) {
      const Algorithm& a = *find_algorithm(row.op, row.name);
      for (std::size_t n : ns) {
        if (row.op == Operation::alltoall && n == 1000 && p > 17) n = 50;
        Failures f;
        const RunResult r = run_checked(*m, row, n, n % 2 == 1, f);
        ASSERT_TRUE(f.empty()) << spec << "\n" << f.text();
        const CostQuery q = query(*m, row, n);
        const Claim claim = claim_of(a, q);
        if (claim == Claim::exact) { EXPECT_EQ(r.time_ps(), a.cost(q)) << spec << " " << row.name; }
        if (claim == Claim::lower_bound) { EXPECT_GE(r.time_ps(), a.cost(q)) << spec; }
      }
    }
  }
}

// Where the prime factors rings share links, 004's formula prices each phase at
// max(beta, c beta_net) per item; it holds exactly where the row claims it (every message of
// a phase shares alike), for beta_net equal to beta and below it, with delta.
TEST(MeshRingsOps, PrimeFactorsRingsHold004sFormulaUnderSharedContention) {
  for (std::string spec : {"mesh:8x8", "mesh:4x4", "mesh:12x6", "torus:4x6", "mesh:3x4x5",
                           "mesh:2x2x2x2", "torus:8x8", "mesh:6x10"}) {
    for (double beta_net : {0.0, 7e-9 / 3}) {
      auto m = machine(spec, mesh_model(Port::duplex, beta_net, 1e-9));
      int exact = 0;
      for (const Row& row : rows("pfr")) {
        const Algorithm& a = *find_algorithm(row.op, row.name);
        for (std::size_t n : {std::size_t(1), std::size_t(m->size() + 1)}) {
          Failures f;
          const RunResult r = run_checked(*m, row, n, false, f);
          ASSERT_TRUE(f.empty()) << spec << "\n" << f.text();
          const CostQuery q = query(*m, row, n);
          if (claim_of(a, q) != Claim::exact) continue;
          ++exact;
          EXPECT_EQ(r.time_ps(), a.cost(q)) << spec << " " << to_string(row.op) << " "
                                            << row.name << " n " << n;
        }
      }
      // On mesh:12x6 the alternating classes of the all-to-all's rings of spacing 3 share
      // links unevenly (some pairs overlap, some do not): an estimate there.
      EXPECT_EQ(exact, spec == "mesh:12x6" ? 8 : 10) << spec << ": PFR rows claiming exact";
    }
  }
  // The formula's sharing is real: on mesh:8x8 with beta_net = beta the widest rings are slow.
  auto m = machine("mesh:8x8", mesh_model());
  Failures f;
  const RunResult r = run_checked(*m, {Operation::allgather, "mesh_pfr"}, 100, false, f);
  EXPECT_GT(r.stats().contention_delay, 0);
  EXPECT_GT(r.time_ps(), find_algorithm(Operation::allgather, "mesh_dr")
                             ->cost(query(*m, {Operation::allgather, "mesh_dr"}, 100)) / 2);
}

// 004 §13's direct all-to-all under shared contention on the machine's own mesh: every
// message of a shift meets its step's busiest link (collectives/alltoall/
// alltoall_mesh_direct.cpp), so the steps stay in lockstep and the sum of the shifts is the
// run: exact under duplex and all ports, beta_net at, below and above beta.
TEST(MeshRingsOps, DirectAllToAllIsItsSumUnderSharedContention) {
  const Row row{Operation::alltoall, "mesh_direct"};
  const Algorithm& a = *find_algorithm(row.op, row.name);
  for (std::string spec : {"mesh:6x4", "mesh:7x11", "torus:8x8", "mesh:4x4x4", "mesh:3x4x5",
                           "torus:5x3", "mesh:9x9", "torus:6x6"}) {
    for (Port port : {Port::duplex, Port::all}) {
      for (double beta_net : {0.0, 7e-9 / 3, 7e-9 * 1.5}) {
        auto m = machine(spec, mesh_model(port, beta_net));
        for (std::size_t n : {std::size_t(1), std::size_t(7)}) {
          Failures f;
          const RunResult r = run_checked(*m, row, n, false, f);
          ASSERT_TRUE(f.empty()) << spec << "\n" << f.text();
          const CostQuery q = query(*m, row, n);
          const std::string where = spec + " " + to_string(port) + " beta_net " +
                                    std::to_string(beta_net) + " n " + std::to_string(n);
          EXPECT_EQ(claim_of(a, q), Claim::exact) << where;
          EXPECT_EQ(r.time_ps(), a.cost(q)) << where;
        }
      }
    }
  }
}

// 004 §5.2's dimension alternation within a stage: the rows with it and the rows without.
std::vector<std::pair<Row, Row>> alternating_rows() {
  return {{{Operation::allgather, "mesh_pfr_alt"}, {Operation::allgather, "mesh_pfr"}},
          {{Operation::reduce_scatter, "mesh_pfr_alt"}, {Operation::reduce_scatter, "mesh_pfr"}},
          {{Operation::allreduce, "mesh_pfr_dc_alt"}, {Operation::allreduce, "mesh_pfr_dc"}}};
}

// The alternating rows on the meshes of 004 §5.2's sweep: the right result at every p, for
// lengths 0, 1, p-1 (below p: the allreduce's blocks padded), p+1 and 2p+3 (not multiples of
// the pieces), in place on odd lengths, under every port model, and the virtual time as the
// row's claim says; allgatherv with uneven counts too.
TEST(MeshRingsOps, AlternationWithinAStageGivesTheResultEverywhere) {
  for (std::string spec : {"mesh:2x3", "mesh:5x1", "mesh:6x4", "mesh:8x8", "mesh:7x11",
                           "mesh:4x4x4", "torus:6x4"}) {
    for (Port port : {Port::duplex, Port::all, Port::exchange, Port::half}) {
      auto m = machine(spec, mesh_model(port, 3e-9, 1e-9));
      const int p = m->size();
      for (const auto& [alt, plain] : alternating_rows()) {
        const Algorithm& a = *find_algorithm(alt.op, alt.name);
        for (std::size_t n : lengths(p)) {
          Failures f;
          const RunResult r = run_checked(*m, alt, n, n % 2 == 1, f);
          ASSERT_TRUE(f.empty()) << spec << "\n" << f.text();
          const CostQuery q = query(*m, alt, n);
          const Claim claim = claim_of(a, q);
          if (claim == Claim::exact) {
            EXPECT_EQ(r.time_ps(), a.cost(q)) << spec << " " << alt.name << " n " << n;
          }
          if (claim == Claim::lower_bound) { EXPECT_GE(r.time_ps(), a.cost(q)) << spec; }
        }
      }
      // allgatherv: uneven counts, some empty.
      std::vector<std::size_t> counts(p), displs(p);
      for (int s = 0; s < p; ++s) counts[s] = (s * 7 + 3) % 5;
      for (int s = 1; s < p; ++s) displs[s] = displs[s - 1] + counts[s - 1];
      Failures f;
      m->run([&](Node& node) {
        const Comm& c = node.world();
        const int me = c.rank();
        std::vector<std::int64_t> mine(counts[me]);
        for (std::size_t i = 0; i < counts[me]; ++i) mine[i] = item(me, 0, i);
        Guarded<std::int64_t> all(displs[p - 1] + counts[p - 1]);
        allgatherv<std::int64_t>(c, mine, all.span(), counts, displs, with("mesh_pfr_alt"));
        for (int s = 0; s < p; ++s)
          for (std::size_t i = 0; i < counts[s]; ++i)
            if (all.get(displs[s] + i) != item(s, 0, i)) {
              return f.add(spec + " allgatherv node " + std::to_string(me) + " block " +
                           std::to_string(s));
            }
      });
      EXPECT_TRUE(f.empty()) << f.text();
    }
  }
}

// Under 004's model (duplex ports, wormhole routing, shared contention, beta_net, delta),
// timing only, the alternating rows take their formula's time to the picosecond where
// they claim it (on these meshes they do, with beta_net = beta and below it), and where
// 004's layout spreads interleaved rings over the dimensions they put fewer messages on the
// busiest link than the plain rows and take less time (mesh:8x8, 16x16, 4x4x4; on 6x4 the
// rings of spacing 2 lie in x and y alike; on prime lengths nothing alternates and the rows
// are the plain ones).
TEST(MeshRingsOps, AlternationWithinAStageHoldsItsFormulaAndSharesLess) {
  for (std::string spec : {"mesh:6x4", "mesh:8x8", "mesh:16x16", "mesh:4x4x4", "torus:6x4",
                           "mesh:7x11", "mesh:12x6"}) {
    for (double beta_net : {0.0, 1e-9}) {
      auto m = machine(spec, mesh_model(Port::duplex, beta_net, 1e-9), Data::none);
      for (const auto& [alt, plain] : alternating_rows()) {
        const Algorithm& a = *find_algorithm(alt.op, alt.name);
        for (std::size_t n : {std::size_t(1000), std::size_t(65536)}) {
          CostQuery q = query(*m, alt, n);
          q.item_size = 4;
          CostQuery qb = q;
          qb.options.algorithm = plain.name;
          const Picos run = time_operation(*m, alt.op, q);
          const std::string what = spec + " " + to_string(alt.op) + " " + alt.name + " n " +
                                   std::to_string(n) + " beta_net " + std::to_string(beta_net);
          if (spec == "mesh:12x6") {  // classes of spacing 3 overlap unevenly
            EXPECT_NE(claim_of(a, q), Claim::exact) << what;
            continue;
          }
          ASSERT_EQ(claim_of(a, q), Claim::exact) << what;
          EXPECT_EQ(run, a.cost(q)) << what;
          const Picos before = time_operation(*m, plain.op, qb);
          if (spec == "mesh:7x11") {
            EXPECT_EQ(run, before) << what;
          }
          // With beta_net = beta every shared link slows a message; with beta_net = beta / 7
          // only 8 messages on one (16x16's widest rings) do.
          if (alt.op != Operation::allreduce) {
            EXPECT_LE(run, before) << what;
          }
          const bool spread = spec == "mesh:16x16" ||
                              (beta_net == 0 && (spec == "mesh:8x8" || spec == "mesh:4x4x4"));
          if (spread && alt.op != Operation::allreduce) {
            EXPECT_LT(run, before) << what;
          }
        }
      }
    }
  }
  // The links: mesh_pfr's widest stage on mesh:8x8 puts 4 messages on a link, the
  // alternating one 2 (the contention-free share of each run: a run's messages wait less).
  auto m = machine("mesh:8x8", mesh_model(Port::duplex, 0, 0));
  Failures f;
  const RunResult plain = run_checked(*m, {Operation::allgather, "mesh_pfr"}, 100, false, f);
  const RunResult alt = run_checked(*m, {Operation::allgather, "mesh_pfr_alt"}, 100, false, f);
  ASSERT_TRUE(f.empty()) << f.text();
  EXPECT_LT(alt.time_ps(), plain.time_ps());
  EXPECT_LT(alt.stats().contention_delay, plain.stats().contention_delay);
}

// Each row on sub-groups of a mesh machine (a sub-group is a linear array), with the
// non-commutative matrix product where the row takes it.
TEST(MeshRingsOps, SubGroupsOfAMeshMachine) {
  auto m = machine("mesh:4x6", mesh_model());
  const Op mat = matmul();
  for (const char* family : {"dr", "pfr", "direct"}) {
    std::vector<Row> all = rows(family);
    if (std::string(family) == "direct") all = {{Operation::alltoall, "mesh_direct"}};
    for (const Row& row : all) {
      for (const SubGroup& g : sub_groups()) {
        Failures f;
        m->run([&](Node& node) {
          Comm sub = split(node, g);
          if (!sub.valid()) return;
          call_checked<std::int64_t>(sub, row, 7, false, ops::sum<std::int64_t>(), f);
          CostQuery q;
          q.p = sub.size();
          q.commutative = false;
          if (find_algorithm(row.op, row.name)->applicable(q)) {
            call_checked<Mat3>(sub, row, 3, false, mat, f);
          }
        });
        EXPECT_TRUE(f.empty()) << g.name << "\n" << f.text();
      }
    }
  }
}

TEST(MeshRingsOps, ReductionsOverRingsRefuseANonCommutativeOp) {
  for (const Row& row : {Row{Operation::reduce_scatter, "mesh_dr"},
                         Row{Operation::reduce_scatter, "mesh_pfr"},
                         Row{Operation::allreduce, "mesh_dr"},
                         Row{Operation::allreduce, "mesh_pfr_dc"}}) {
    auto m = machine("mesh:3x4", mesh_model());
    Failures f;
    expect_error_naming_node(
        *m, [&](Node& node) { call_checked<Mat3>(node.world(), row, 2, false, matmul(), f); },
        row.name + " with a non-commutative op", {row.name, "commutative"});
  }
  // The whole-vector PFR reduction-to-all combines in rank order: any op.
  auto m = machine("mesh:4x6", mesh_model());
  Failures f;
  m->run([&](Node& node) {
    call_checked<Mat3>(node.world(), {Operation::allreduce, "mesh_pfr"}, 5, true, matmul(), f);
  });
  EXPECT_TRUE(f.empty()) << f.text();
}

// Random mesh and torus shapes, rows, lengths and port models: the right result, and the
// virtual time as the row's claim says.
RC_GTEST_PROP(MeshRingsOpsProperty, RandomMeshesGiveTheResultAndHoldTheClaim, ()) {
  const int d = *rc::gen::inRange(1, 4);
  std::string spec;
  int p = 1;
  for (int i = 0; i < d; ++i) {
    const int len = *rc::gen::inRange(1, d == 1 ? 30 : 8);
    spec += (i ? "x" : "") + std::to_string(len);
    p *= len;
  }
  spec = *rc::gen::element(std::string("mesh:"), std::string("torus:")) + spec;
  const Port port = *rc::gen::element(Port::duplex, Port::all, Port::exchange, Port::half);
  auto m = machine(spec, mesh_model(port));
  std::vector<Row> all = rows("dr");
  for (const Row& r : rows("pfr")) all.push_back(r);
  all.push_back({Operation::alltoall, "mesh_direct"});
  const Row row = *rc::gen::elementOf(all);
  const std::size_t n = *rc::gen::inRange<std::size_t>(0, 3 * p + 4);
  const bool in_place = *rc::gen::arbitrary<bool>();
  Failures f;
  const RunResult r = run_checked(*m, row, n, in_place, f);
  RC_ASSERT(f.empty());
  const CostQuery q = query(*m, row, n);
  const Algorithm& a = *find_algorithm(row.op, row.name);
  if (claim_of(a, q) == Claim::exact) RC_ASSERT(r.time_ps() == a.cost(q));
  if (claim_of(a, q) == Claim::lower_bound) RC_ASSERT(r.time_ps() >= a.cost(q));
}

// The target: allreduce of 65536 floats with alpha 525 us, beta 2 us (gamma 0.35
// us), duplex ports, wormhole routing, shared contention.
TEST(MeshRingsOps, AutomaticSelectionPicksAMeshAlgorithmOnMeshes) {
  for (std::string spec : {"mesh:8x8", "mesh:7x11"}) {
    Model mdl = model(Port::duplex, Routing::wormhole, 525e-6, 2e-6, 0.35e-6);
    mdl.contention = Contention::shared;
    auto topo = parse_topology(spec);
    const CostQuery q = make_query(*topo, mdl, topo->nodes(), 65536, 0, sizeof(float), true,
                                   Options{});
    const Algorithm& chosen = select_algorithm(Operation::allreduce, q);
    EXPECT_EQ(chosen.name.rfind("mesh_", 0), 0u) << spec << ": auto chose " << chosen.name;
    const Picos best = *simulated_cost(Operation::allreduce, chosen, q);
    for (const Algorithm& a : algorithms(Operation::allreduce)) {
      if (&a == &chosen || !a.applicable(q) || a.name.rfind("mesh_", 0) == 0) continue;
      EXPECT_LT(best, *simulated_cost(Operation::allreduce, a, q)) << spec << " " << a.name;
    }
    if (spec == "mesh:7x11") {
      // 004's DR-DC: 2 (6 + 10) alpha + (76/77) n (2 beta + gamma) = 298.1 ms.
      const double dr_dc = 32 * 525e-6 + 76.0 / 77 * 65536 * (4e-6 + 0.35e-6);
      EXPECT_LT(to_seconds(best), dr_dc * 1.02);
    }
  }
}

}  // namespace
}  // namespace vmc::testing
