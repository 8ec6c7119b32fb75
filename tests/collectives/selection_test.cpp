// Automatic selection: the chosen algorithm is never beaten, by formula where the formulas are
// exact (direct routing) and by measured virtual time where links are shared (wormhole on a
// mesh, store-and-forward), and 000's optimal hybrid is never beaten in predicted time.
#include <gtest/gtest.h>

#include "collectives/collectives.hpp"
#include "collectives/dispatch/dispatch.hpp"
#include "collectives/global_combine/hybrid_combine.hpp"
#include "collectives/selection/simulation.hpp"
#include "tests/collectives/harness.hpp"
#include "tools/runner.hpp"

namespace vmc::testing {
namespace {

// Runs op with every applicable algorithm, and every member of 004's hybrid families (the
// rows that run the member --hybrid names), and with auto; auto must take the least time.
void expect_auto_never_beaten(const std::string& topology, const Model& model, Operation op,
                              std::size_t n) {
  Machine m({.topology = parse_topology(topology), .model = model, .trace = false});
  const CostQuery whole = make_query(m.topology(), model, m.size(), n, 0, sizeof(float), true, {});
  Picos best = -1;
  std::string best_name;
  for (const Algorithm& a : algorithms(op)) {
    int members = 0;  // the rows that take a member: how many the family has here
    for (const Algorithm& o : algorithms(op)) {
      if (o.members != nullptr && o.member_row == a.name) {
        members = static_cast<int>(o.members(whole).size());
      }
    }
    for (int member = members > 0 ? 0 : -1; member < members; ++member) {
      cli::RunSpec spec{.op = op, .algorithm = a.name, .n = n, .type = "float", .hybrid = member,
                        .check = true};
      CostQuery q = whole;  // what auto sees: no strategy, so the given-S hybrid is not a candidate
      q.options.hybrid = member;
      if (!a.applicable(q)) continue;
      cli::RunOutcome out = cli::run_collective(m, spec);
      ASSERT_TRUE(*out.correct) << a.name << " member " << member;
      if (best < 0 || out.result.time_ps() < best) {
        best = out.result.time_ps();
        best_name = a.name + (member >= 0 ? " --hybrid " + std::to_string(member) : "");
      }
    }
  }
  cli::RunOutcome chosen =
      cli::run_collective(m, cli::RunSpec{.op = op, .n = n, .type = "float", .check = true});
  EXPECT_TRUE(*chosen.correct);
  EXPECT_EQ(chosen.result.time_ps(), best)
      << to_string(op) << " on " << topology << " n=" << n << ": auto chose " << chosen.algorithm
      << ", " << best_name << " is faster";
}

TEST(Selection, AutoIsNeverBeatenOnSharedLinks) {
  const Model wormhole{.alpha = 525e-6, .beta = 2e-6, .gamma = 0.35e-6};
  const Model saf{.alpha = 50e-6, .beta = 1e-6, .gamma = 0.1e-6, .port = Port::duplex,
                  .routing = Routing::store_and_forward};
  for (const std::string& topology : {std::string("mesh:8x8"), std::string("ring:12"),
                                      std::string("torus:4x5"), std::string("tree:16")}) {
    for (Operation op : {Operation::allreduce, Operation::broadcast, Operation::allgather,
                         Operation::alltoall}) {
      for (std::size_t n : {16, 4096}) {
        // Under a sanitizer (harness.hpp) the short vectors and the smaller networks only.
        if (kSanitized && (n > 16 || topology == "mesh:8x8")) continue;
        expect_auto_never_beaten(topology, wormhole, op, n);
        expect_auto_never_beaten(topology, saf, op, n);
      }
    }
  }
}

// Under 004's model (duplex ports, links shared at max(beta, c beta_net)) on meshes, where
// 004's hybrid families (mesh_pfr_dr, mesh_pfr_pfr_dc, mesh_mst_sc, mesh_mst_dg: every
// member, and their _optimal rows) compete with everything else, for the five operations of
// 004's figures.
TEST(Selection, AutoIsNeverBeatenOnMeshesUnder004sModel) {
  Model model{.alpha = 525e-6, .beta = 2e-6, .gamma = 0.35e-6, .port = Port::duplex};
  model.contention = Contention::shared;
  for (const std::string& topology : {std::string("mesh:4x8"), std::string("torus:4x6")}) {
    for (Operation op : {Operation::broadcast, Operation::reduce, Operation::allreduce,
                         Operation::allgather, Operation::reduce_scatter}) {
      for (std::size_t n : {16, 4096}) {
        if (kSanitized && n > 16) continue;
        expect_auto_never_beaten(topology, model, op, n);
      }
    }
  }
}

TEST(Selection, AutoIsNeverBeatenUnderDirectRouting) {
  const Model direct{.alpha = 100e-6, .beta = 1e-6, .gamma = 0.5e-6, .routing = Routing::direct};
  for (int p : {5, 8, 13}) {
    for (Operation op : all_operations()) {
      for (std::size_t n : {1, 1000}) {
        expect_auto_never_beaten("full:" + std::to_string(p), direct, op, n);
      }
    }
  }
}

// A row that names another whose run is its own (Algorithm::same_run: an `_alt` row or
// member where no group of its rings alternates) runs as that row does, message for
// message: selection takes one simulation for both. On a ring and a hypercube nothing
// alternates; on mesh:8x8 the rings 4 and 2 apart do, and those rows name none.
TEST(Selection, ARowOfTheSameRunRunsAlike) {
  const Model model{.alpha = 525e-6, .beta = 2e-6, .gamma = 0.35e-6};
  int same = 0, own = 0;
  for (const std::string topology : {"ring:16", "hypercube:16", "mesh:4x4", "mesh:8x8",
                                     "torus:3x4"}) {
    Machine m({.topology = parse_topology(topology), .model = model, .trace = false,
               .data = Data::none});
    const CostQuery whole =
        make_query(m.topology(), model, m.size(), 100, 0, sizeof(float), true, {});
    for (Operation op : {Operation::allreduce, Operation::allgather, Operation::reduce_scatter}) {
      for (const Algorithm& a : algorithms(op)) {
        if (a.same_run == nullptr) continue;
        int members = 0;  // a family's given row: each member
        for (const Algorithm& o : algorithms(op)) {
          if (o.members != nullptr && o.member_row == a.name) {
            members = static_cast<int>(o.members(whole).size());
          }
        }
        for (int member = members > 0 ? 0 : -1; member < members; ++member) {
          CostQuery q = whole;
          q.options.algorithm = a.name;
          q.options.hybrid = member;
          if (!a.applicable(q)) continue;
          const char* other = a.same_run(q);
          if (other == nullptr) {
            ++own;
            continue;
          }
          ++same;
          const std::string what = to_string(op) + " " + a.name + " member " +
                                   std::to_string(member) + " as " + other + " on " + topology;
          ASSERT_NE(find_algorithm(op, other), nullptr) << what;
          const RunResult mine = run_operation(m, op, q);
          q.options.algorithm = other;
          const RunResult theirs = run_operation(m, op, q);
          EXPECT_EQ(mine.time_ps(), theirs.time_ps()) << what;
          EXPECT_EQ(mine.stats().messages, theirs.stats().messages) << what;
          EXPECT_EQ(mine.stats().bytes, theirs.stats().bytes) << what;
          EXPECT_EQ(mine.stats().combined_items, theirs.stats().combined_items) << what;
          EXPECT_EQ(mine.stats().rearranged_items, theirs.stats().rearranged_items) << what;
          EXPECT_EQ(mine.stats().link_busy, theirs.stats().link_busy) << what;
        }
      }
    }
  }
  EXPECT_GT(same, 20);
  EXPECT_GT(own, 0);  // mesh:8x8's alternating rows run their own
}

TEST(Selection, SimulatedCostIsTheMeasuredTime) {
  auto mesh = parse_topology("mesh:4x4");
  const Model model{.alpha = 10e-6, .beta = 1e-6, .gamma = 0.1e-6};
  Machine m({.topology = mesh, .model = model, .trace = false});
  for (const Algorithm& a : algorithms(Operation::allreduce)) {
    CostQuery q;
    q.topology = mesh.get();
    q.model = model;
    q.units = CostUnits(model);
    q.p = 16;
    q.n = 100;
    q.item_size = sizeof(float);
    if (!a.applicable(q)) continue;
    std::optional<Picos> simulated = simulated_cost(Operation::allreduce, a, q);
    ASSERT_TRUE(simulated.has_value()) << a.name;
    cli::RunOutcome out = cli::run_collective(
        m, cli::RunSpec{.op = Operation::allreduce, .algorithm = a.name, .n = 100, .type = "float"});
    EXPECT_EQ(*simulated, out.result.time_ps()) << a.name;
    EXPECT_GE(*simulated, a.cost(q)) << a.name << ": the formula is a lower bound on a mesh";
  }
  CostQuery none;
  EXPECT_FALSE(selection_simulates(none));  // no topology: formulas only
}

// A simulation given a limit (a time another candidate is known to take) stops once its
// run passes it, and says so (`over`, its time the limit plus a picosecond); a later caller
// without a limit, or with one the run does not pass, gets the whole run, the time of a run
// on a machine of its own.
TEST(Selection, ASimulationPastItsLimitStopsAndIsMadeWholeWhenAsked) {
  auto mesh = parse_topology("mesh:4x4");
  const Model model{.alpha = 10e-6, .beta = 1e-6, .gamma = 0.1e-6};
  Machine m({.topology = mesh, .model = model, .trace = false});
  std::size_t n = 300;
  int rows = 0, stopped_rows = 0;
  for (const Algorithm& a : algorithms(Operation::allreduce)) {
    const CostQuery q = make_query(*mesh, model, 16, ++n, 0, sizeof(float), true, {});
    if (!a.applicable(q)) continue;
    ++rows;
    // A family's `_optimal` row runs its chosen member, whose run choosing it made whole.
    if (a.members == nullptr) {
      ++stopped_rows;
      const std::optional<SimulatedRun> stopped = simulated_run(Operation::allreduce, a, q, 1);
      ASSERT_TRUE(stopped.has_value()) << a.name;
      EXPECT_TRUE(stopped->over) << a.name;
      EXPECT_EQ(stopped->time, 2) << a.name;
    }
    const std::optional<SimulatedRun> whole = simulated_run(Operation::allreduce, a, q);
    ASSERT_TRUE(whole.has_value()) << a.name;
    EXPECT_FALSE(whole->over) << a.name;
    cli::RunOutcome out = cli::run_collective(
        m, cli::RunSpec{.op = Operation::allreduce, .algorithm = a.name, .n = n, .type = "float"});
    EXPECT_EQ(whole->time, out.result.time_ps()) << a.name;
    // Within a limit it does not pass: the whole run (here, remembered).
    const std::optional<SimulatedRun> within =
        simulated_run(Operation::allreduce, a, q, whole->time);
    ASSERT_TRUE(within.has_value()) << a.name;
    EXPECT_FALSE(within->over) << a.name;
    EXPECT_EQ(within->time, whole->time) << a.name;
    EXPECT_EQ(within->work_bytes, whole->work_bytes) << a.name;
    // A new shape, first asked within a limit its run reaches exactly: whole, not over.
    const std::size_t n2 = n + 1000;
    const Picos t2 = cli::run_collective(m, cli::RunSpec{.op = Operation::allreduce,
                                                          .algorithm = a.name, .n = n2,
                                                          .type = "float"})
                         .result.time_ps();
    const CostQuery q2 = make_query(*mesh, model, 16, n2, 0, sizeof(float), true, {});
    const std::optional<SimulatedRun> at = simulated_run(Operation::allreduce, a, q2, t2);
    ASSERT_TRUE(at.has_value()) << a.name;
    EXPECT_FALSE(at->over) << a.name;
    EXPECT_EQ(at->time, t2) << a.name;
  }
  EXPECT_GT(stopped_rows, 10);
  EXPECT_GT(rows, stopped_rows);
}

// Selection keeps its private machines for the next simulation on the same topology and
// model: a simulation after others on other models, and after others of the same model, is
// still the time of a run on a fresh machine of its own model.
TEST(Selection, SimulationsOnKeptMachinesAreRunsOnTheirOwnModel) {
  auto mesh = parse_topology("mesh:4x4");
  const Algorithm* row = find_algorithm(Operation::allreduce, "recursive_doubling");
  ASSERT_NE(row, nullptr);
  const Algorithm& a = *row;
  std::size_t n = 100;
  for (int round = 0; round < 2; ++round) {
    for (const double alpha : {10e-6, 20e-6, 40e-6}) {
      const Model model{.alpha = alpha, .beta = 1e-6, .gamma = 0.1e-6};
      CostQuery q = make_query(*mesh, model, 16, ++n, 0, sizeof(float), true, {});
      std::optional<Picos> simulated = simulated_cost(Operation::allreduce, a, q);
      ASSERT_TRUE(simulated.has_value());
      Machine fresh({.topology = parse_topology("mesh:4x4"), .model = model, .trace = false});
      cli::RunOutcome out = cli::run_collective(
          fresh, cli::RunSpec{.op = Operation::allreduce, .algorithm = a.name, .n = n,
                              .type = "float"});
      EXPECT_EQ(*simulated, out.result.time_ps()) << "alpha " << alpha << ", n " << n;
    }
  }
}

// A group: the members of `group` (world ranks, in comm rank order) run op with one
// algorithm (or auto) through the public calls, the other nodes idle. Returns the run's
// virtual time and, through `chosen`, what each member's make_query would select.
Picos run_on_group(Machine& m, const std::vector<int>& group, Operation op, std::size_t n,
                   const std::string& algorithm, std::string* chosen = nullptr) {
  std::vector<int> index(m.size(), -1);
  for (int r = 0; r < static_cast<int>(group.size()); ++r) index[group[r]] = r;
  RunResult r = m.run([&](Node& node) {
    const int mine = index[node.rank()];
    Comm g = node.world().split(mine >= 0 ? 0 : -1, mine);
    if (mine < 0) return;
    const Options options{.algorithm = algorithm};
    const std::size_t p = group.size();
    std::vector<float> x(op == Operation::alltoall ? n * p : n, 1.0f), y(n * p);
    switch (op) {
      case Operation::allreduce: allreduce(g, std::span(x), ops::sum<float>(), options); break;
      case Operation::broadcast: broadcast(g, std::span(x), 0, options); break;
      case Operation::allgather:
        allgather(g, std::span<const float>(x), std::span(y), options);
        break;
      default: alltoall(g, std::span<const float>(x), std::span(y), options); break;
    }
    if (chosen != nullptr && mine == 0) {
      const Op sum = ops::sum<float>();
      const CostQuery q = make_query(g, n, 0, sizeof(float), &sum, false, {});
      *chosen = select_algorithm(op, q).name;
    }
  });
  return r.time_ps();
}

// Selection on a sub-communicator simulates the group on its own nodes and routes (its
// rows, columns, blocks or scattered members), not the whole machine: auto is never beaten
// by any algorithm run on the same group, and the simulated time of each is its measured
// time.
TEST(Selection, AutoIsNeverBeatenOnAGroup) {
  const Model model{.alpha = 525e-6, .beta = 2e-6, .gamma = 0.35e-6};
  Machine m({.topology = parse_topology("mesh:4x4"), .model = model, .trace = false});
  const std::vector<std::vector<int>> groups = {
      {4, 5, 6, 7},              // a row
      {1, 5, 9, 13},             // a column
      {5, 6, 9, 10},             // a block
      {0, 15, 6, 3, 12, 9}};     // scattered, in no order of the mesh
  for (const std::vector<int>& group : groups) {
    for (Operation op : {Operation::allreduce, Operation::broadcast, Operation::allgather,
                         Operation::alltoall}) {
      for (std::size_t n : {16, 4096}) {
        if (kSanitized && n > 16) continue;
        Picos best = -1;
        std::string best_name;
        for (const Algorithm& a : algorithms(op)) {
          CostQuery q = make_query(m.topology(), model, static_cast<int>(group.size()), n, 0,
                                   sizeof(float), true, {});
          q.members = group;
          if (!a.applicable(q)) continue;
          const Picos t = run_on_group(m, group, op, n, a.name);
          const std::optional<Picos> simulated = simulated_cost(op, a, q);
          ASSERT_TRUE(simulated.has_value()) << to_string(op) << " " << a.name;
          EXPECT_EQ(*simulated, t) << to_string(op) << " " << a.name << " n=" << n;
          if (best < 0 || t < best) {
            best = t;
            best_name = a.name;
          }
        }
        std::string chosen;
        const Picos t = run_on_group(m, group, op, n, "auto", &chosen);
        EXPECT_EQ(t, best) << to_string(op) << " n=" << n << " on group of " << group.size()
                           << " starting at node " << group[0] << ": auto chose " << chosen
                           << ", " << best_name << " is faster";
      }
    }
  }
}

// choose() remembers the shapes of calls per thread (selection.cpp): what it answers for a
// repeated shape, for the same shape on another topology object of the same spec, and for
// shapes that differ only in the model or the length, is what selection itself picks.
TEST(Selection, RememberedChoicesAreSelectionsPicks) {
  const std::vector<Model> models = {{.alpha = 525e-6, .beta = 2e-6, .gamma = 0.35e-6},
                                     {.alpha = 1e-3, .beta = 1e-9},
                                     {.alpha = 1e-9, .beta = 1e-3, .port = Port::duplex}};
  for (const char* spec : {"mesh:4x4", "hypercube:16", "full:16"}) {
    const auto topology = parse_topology(spec);
    const auto same_spec = parse_topology(spec);
    EXPECT_NE(topology->identity(), same_spec->identity()) << spec;
    for (int round = 0; round < 2; ++round) {
      for (const Model& model : models) {
        for (Operation op : {Operation::broadcast, Operation::allreduce}) {
          for (std::size_t n : {std::size_t{1}, std::size_t{4096}}) {
            const CostQuery q = make_query(*topology, model, 16, n, 0, sizeof(float), true, {});
            const Algorithm& row = select_algorithm(op, q);
            const Choice choice = choose(op, q);
            EXPECT_EQ(choice.row, &row) << spec << " " << to_string(op) << " n=" << n;
            EXPECT_EQ(choice.member, chosen_member(op, row, q)) << spec << " " << row.name;
            const Choice other = choose(
                op, make_query(*same_spec, model, 16, n, 0, sizeof(float), true, {}));
            EXPECT_EQ(other.row, choice.row) << spec << " " << to_string(op) << " n=" << n;
            EXPECT_EQ(other.member, choice.member) << spec << " " << row.name;
          }
        }
      }
    }
  }
}

// A query of p nodes that names no members stands for the topology's first p nodes, in the
// simulation as in the formulas.
TEST(Selection, AQueryWithoutMembersIsTheFirstPNodes) {
  const Model model{.alpha = 525e-6, .beta = 2e-6, .gamma = 0.35e-6};
  Machine m({.topology = parse_topology("mesh:4x4"), .model = model, .trace = false});
  const std::vector<int> first = {0, 1, 2, 3, 4, 5};
  for (Operation op : {Operation::broadcast, Operation::allgather}) {
    const Algorithm& a = *find_algorithm(op, op == Operation::broadcast ? "binomial" : "ring");
    CostQuery q = make_query(m.topology(), model, 6, 100, 0, sizeof(float), true, {});
    const std::optional<Picos> unnamed = simulated_cost(op, a, q);
    q.members = first;
    const std::optional<Picos> named = simulated_cost(op, a, q);
    ASSERT_TRUE(unnamed.has_value() && named.has_value()) << a.name;
    EXPECT_EQ(*unnamed, *named) << a.name;
    EXPECT_EQ(*named, run_on_group(m, first, op, 100, a.name)) << a.name;
  }
}

// Where links are shared the formulas are lower bounds: the contention-free time of the same
// messages. Every algorithm of every operation, on a mesh and a tree with wormhole routing.
TEST(Selection, FormulasAreLowerBoundsOnSharedLinks) {
  int checked = 0;
  for (Port port : {Port::duplex, Port::exchange}) {
    const Model model{.alpha = 20e-6, .beta = 0.5e-6, .gamma = 0.1e-6, .port = port};
    for (const std::string& topology : {std::string("mesh:4x4"), std::string("tree:8")}) {
      Machine m({.topology = parse_topology(topology), .model = model, .trace = false});
      for (Operation op : all_operations()) {
        for (const Algorithm& a : algorithms(op)) {
          for (std::size_t n : {1, 64}) {
            cli::RunSpec spec{.op = op, .algorithm = a.name, .n = n, .root = 1, .type = "float",
                              .strategy = test_strategy(a.name, m.size()), .check = true};
            CostQuery q;
            q.p = m.size();
            q.n = n;
            q.root = 1;
            q.options.strategy = spec.strategy;
            if (!a.applicable(q)) continue;
            cli::RunOutcome out = cli::run_collective(m, spec);
            EXPECT_TRUE(*out.correct) << to_string(op) << " " << a.name;
            // A formula whose claim is an estimate promises nothing (an _optimal row that
            // runs an interleaved MST member can run faster than its formula).
            CostQuery full = make_query(m.topology(), model, m.size(), n, 1, sizeof(float),
                                        true, Options{.algorithm = a.name,
                                                      .strategy = spec.strategy});
            if (claim_of(a, row_query(op, a, full)) == Claim::estimate) continue;
            ++checked;
            EXPECT_GE(out.result.time_ps(), out.predicted)
                << to_string(op) << " " << a.name << " on " << topology << " n=" << n << " port "
                << to_string(port);
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 600);
}

// 000 §4: the optimal hybrid is never beaten by any other registered allreduce in predicted
// time, on a grid of cube sizes, lengths and machines.
TEST(Selection, OptimalHybridIsNeverBeatenInPredictedTime) {
  int checked = 0;
  for (int d = 1; d <= 8; ++d) {
    const int p = 1 << d;
    for (double alpha : {1e-6, 75e-6, 525e-6, 5e-3}) {
      for (double beta : {0.1e-6, 2e-6, 10e-6}) {
        for (double gamma : {0.0, 0.35e-6, 2e-6}) {
          for (Port port : {Port::exchange, Port::duplex}) {
            for (std::size_t n : {std::size_t(p), std::size_t(16 * p), std::size_t(1024 * p)}) {
              CostQuery q;
              q.p = p;
              q.n = n;
              q.model = Model{.alpha = alpha, .beta = beta, .gamma = gamma, .port = port};
              q.units = CostUnits(q.model);
              const Picos hybrid = find_algorithm(Operation::allreduce, "hybrid_optimal")->cost(q);
              for (const Algorithm& a : algorithms(Operation::allreduce)) {
                if (!a.applicable(q)) continue;
                EXPECT_LE(hybrid, a.cost(q))
                    << a.name << " beats hybrid_optimal: p " << p << " n " << n << " alpha "
                    << alpha << " beta " << beta << " gamma " << gamma << " port "
                    << to_string(port);
              }
              ++checked;
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 8 * 4 * 3 * 3 * 2 * 3);
}

// A call that repeats a node's last call on a comm runs the row chosen then (dispatch's
// memo); any change to the call, its options or its comm chooses again. Counted by
// messages: a loop alternating auto, a forced row, another length, another comm and a
// weighted comm sends what the same calls send in runs of their own.
TEST(Selection, ARepeatedCallRunsItsRowAndAChangedOneChoosesAgain) {
  Machine m({.nodes = 4, .trace = false});
  const Options automatic{}, ring{.algorithm = "ring"};
  struct Step {
    const Options* options;
    std::size_t n;
    bool half;      // on the comm of ranks 0 and 1 (a split) instead of the world
    bool weighted;  // on the world weighted by 2
  };
  const std::vector<Step> steps = {{&automatic, 1, false, false}, {&ring, 1, false, false},
                                   {&automatic, 1, false, false}, {&automatic, 64, false, false},
                                   {&automatic, 64, true, false},  {&automatic, 64, false, true},
                                   {&ring, 64, false, false},      {&ring, 64, false, false}};
  auto run = [&](std::span<const Step> these) {
    return m.run([&](Node& node) {
      const Comm half = node.world().split(node.rank() < 2 ? 0 : -1, 0);
      const Comm twice = node.world().weighted(2);
      std::vector<float> x(128, 1.0f);
      for (const Step& s : these) {
        const Comm& c = s.half ? half : s.weighted ? twice : node.world();
        if (!c.valid()) continue;
        allreduce(c, std::span(x.data(), s.n), ops::sum<float>(), *s.options);
      }
    });
  };
  std::uint64_t alone = 0;
  for (const Step& s : steps) alone += run(std::span(&s, 1)).stats().messages;
  EXPECT_EQ(run(steps).stats().messages, alone);
  // The forced ring is not what auto picks here, so the count tells them apart.
  EXPECT_NE(run(std::span(&steps[0], 1)).stats().messages,
            run(std::span(&steps[1], 1)).stats().messages);
}

}  // namespace
}  // namespace vmc::testing
