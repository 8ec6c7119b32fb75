// The MPI layer's time identity: an MPI program's collective (layer/timing.c, one call, as
// `vmc run` shapes it) takes the virtual time of the same call through vmc's C++ API on the
// same machine, to the picosecond, with the same messages, for every algorithm of the
// operation's registry table that applies (named to the program as `vmc mpirun --coll` names
// it, through mpi::JobOptions::algorithms) and for `auto`. And a timing-only run of the program
// (`vmc mpirun --data none`: no payload copied, no reduction computed) takes the time of its run
// with data, for every row of every operation (gatherv's and scatterv's named rows too, whose
// counts the MPI layer broadcasts).
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "collectives/collectives.hpp"
#include "mpi/job.hpp"
#include "mpi/program.hpp"
#include "runtime/machine.hpp"
#include "topology/topology.hpp"

namespace {

using namespace vmc;

struct Shape {
  std::string topology;
  Model model;
  Operation op;
  std::size_t n;
  int root;
};

// vmc run's default model (its flags' defaults), with the port, routing and contention given.
Model model_of(Port port, Routing routing, Contention contention) {
  Model m;
  m.alpha = 525e-6;
  m.beta = 2e-6;
  m.gamma = 0.35e-6;
  m.port = port;
  m.routing = routing;
  m.contention = contention;
  return m;
}

MachineConfig config_of(const Shape& s, Data data = Data::full) {
  MachineConfig c;
  c.topology = parse_topology(s.topology);
  c.model = s.model;
  c.trace = false;
  c.data = data;
  return c;
}

// The program's run: every rank's main(timing OP N ROOT) under a job that names `algorithm`.
RunResult mpi_run(const Shape& s, const std::string& algorithm,
                  const mpi::RankPrograms& programs, Data data = Data::full) {
  Machine m(config_of(s, data));
  const int p = m.size();
  mpi::JobOptions job{.ranks = p};
  if (algorithm != "auto") job.algorithms[to_string(s.op)] = algorithm;
  mpi::begin_job(job);
  std::vector<std::string> args = {"timing", to_string(s.op), std::to_string(s.n),
                                   std::to_string(s.root), "quiet"};
  std::vector<int> status(p, -1);
  const RunResult r = m.run([&](Node& node) {
    std::vector<std::string> mine = args;
    std::vector<char*> argv;
    for (std::string& a : mine) argv.push_back(a.data());
    argv.push_back(nullptr);
    status[node.rank()] = programs.run(node.rank(), 5, argv.data());
  });
  const mpi::JobOutcome outcome = mpi::end_job();
  for (int q = 0; q < p; ++q) EXPECT_EQ(status[q], 0) << "rank " << q;
  EXPECT_TRUE(outcome.unfinalized.empty());
  return r;
}

// The same call through the C++ API, shaped as mpi/collectives.cpp shapes it (and vmc run).
RunResult api_run(const Shape& s, const std::string& algorithm) {
  Machine m(config_of(s));
  const int p = m.size();
  const std::size_t n = s.n, np = s.n * static_cast<std::size_t>(p);
  const Options o{.algorithm = algorithm};
  const Op sum = ops::sum<double>();
  std::vector<std::size_t> counts(p, n), displs(p);
  for (int q = 0; q < p; ++q) displs[q] = q * n;
  return m.run([&](Node& node) {
    const Comm& c = node.world();
    const bool root = c.rank() == s.root;
    std::vector<double> a(np + 1, 1.0), b(np + 1, 0.0);
    const std::span<const double> in(a.data(), n), all_in(a.data(), np);
    const std::span<double> out(b.data(), n), all_out(b.data(), np), none;
    switch (s.op) {
      case Operation::allreduce: allreduce(c, in, out, sum, o); break;
      case Operation::broadcast: broadcast(c, std::span<double>(a.data(), n), s.root, o); break;
      case Operation::reduce: reduce(c, in, root ? out : none, sum, s.root, o); break;
      case Operation::allgather: allgather(c, in, all_out, o); break;
      case Operation::alltoall: alltoall(c, all_in, all_out, o); break;
      case Operation::gather: gather(c, in, root ? all_out : none, s.root, o); break;
      case Operation::scatter:
        scatter(c, root ? all_in : std::span<const double>(), out, s.root, o);
        break;
      case Operation::reduce_scatter: reduce_scatter(c, all_in, out, sum, o); break;
      case Operation::scan: scan(c, in, out, sum, o); break;
      case Operation::exscan: exscan(c, in, out, sum, o); break;
      case Operation::barrier: barrier(c, o); break;
      case Operation::allgatherv: allgatherv(c, in, all_out, counts, displs, o); break;
      case Operation::alltoallv:
        alltoallv(c, all_in, counts, displs, all_out, counts, displs, o);
        break;
      case Operation::gatherv:
        gatherv(c, in, root ? all_out : none, counts, displs, s.root, o);
        break;
      case Operation::scatterv:
        scatterv(c, root ? all_in : std::span<const double>(), counts, displs, out, s.root, o);
        break;
    }
  });
}

// The rows of op's table that apply to the shape (a family's member rows aside: they need a
// member named), and auto. Gatherv and scatterv: linear, which the MPI layer runs when no
// algorithm is named (only the root knows the counts), so no other row gives vmc's time
// (unless `every_row`: every row that applies).
std::vector<std::string> algorithms_for(const Shape& s, bool every_row = false) {
  if (!every_row && (s.op == Operation::gatherv || s.op == Operation::scatterv)) {
    return {"auto", "linear"};
  }
  Machine m(config_of(s));
  std::vector<std::string> names = {"auto"};
  const CostQuery q = make_query(m.topology(), m.config().model, m.size(),
                                 s.op == Operation::barrier ? 0 : s.n,
                                 traits(s.op).rooted ? s.root : 0, sizeof(double), true, {});
  for (const Algorithm& a : algorithms(s.op)) {
    if (is_member_row(s.op, a.name)) continue;
    if (a.applicable != nullptr && !a.applicable(q)) continue;
    names.push_back(a.name);
  }
  return names;
}

TEST(MpiLayerTime, EveryAlgorithmOfEveryCollectiveTakesTheCppApisTime) {
  struct Machine {
    std::string topology;
    Model model;
  };
  const std::vector<Machine> machines = {
      {"hypercube:8", model_of(Port::exchange, Routing::wormhole, Contention::exclusive)},
      {"mesh:3x4", model_of(Port::duplex, Routing::store_and_forward, Contention::shared)},
      {"ring:5", model_of(Port::all, Routing::wormhole, Contention::shared)},
  };
  int compared = 0;
  for (const auto& [topology, model] : machines) {
    const int p = parse_topology(topology)->nodes();
    const mpi::RankPrograms programs(LAYER_TIMING_PROGRAM, p);
    for (Operation op : all_operations()) {
      const Shape s{topology, model, op, 100, 1};
      std::set<Picos> times;  // the algorithms named reach the run: their times differ
      for (const std::string& algorithm : algorithms_for(s)) {
        SCOPED_TRACE(topology + " " + to_string(op) + " " + algorithm);
        const RunResult mpi = mpi_run(s, algorithm, programs);
        const RunResult api = api_run(s, algorithm == "auto" && (op == Operation::gatherv ||
                                                                 op == Operation::scatterv)
                                             ? "linear"
                                             : algorithm);
        EXPECT_GT(mpi.time_ps(), op == Operation::barrier && p == 1 ? -1 : 0);
        EXPECT_EQ(mpi.time_ps(), api.time_ps());
        EXPECT_EQ(mpi.stats().messages, api.stats().messages);
        EXPECT_EQ(mpi.stats().bytes, api.stats().bytes);
        times.insert(mpi.time_ps());
        ++compared;
      }
      if (op == Operation::allreduce || op == Operation::broadcast) {
        EXPECT_GT(times.size(), 2u) << topology << " " << to_string(op);
      }
    }
  }
  EXPECT_GT(compared, 100);
  std::printf("%d calls compared\n", compared);
}

// Timing only: the same program on the same machine with Data::none takes the time of its run
// with data to the picosecond, with the same messages and bytes, for every row that applies.
// Gatherv's and scatterv's named rows broadcast the root's counts first: a timing-only
// broadcast carries nothing, so the MPI layer hands the counts over beside it
// (mpi::share_values); without that, the ranks would run the row on counts they do not have.
TEST(MpiLayerTime, TimingOnlyTakesTheTimeOfTheRunWithData) {
  const std::vector<std::pair<std::string, Model>> machines = {
      {"hypercube:8", model_of(Port::exchange, Routing::wormhole, Contention::exclusive)},
      {"mesh:3x4", model_of(Port::duplex, Routing::store_and_forward, Contention::shared)},
  };
  int compared = 0;
  for (const auto& [topology, model] : machines) {
    const int p = parse_topology(topology)->nodes();
    const mpi::RankPrograms programs(LAYER_TIMING_PROGRAM, p);
    for (Operation op : all_operations()) {
      const Shape s{topology, model, op, 100, 1};
      for (const std::string& algorithm : algorithms_for(s, /*every_row=*/true)) {
        SCOPED_TRACE(topology + " " + to_string(op) + " " + algorithm);
        const RunResult full = mpi_run(s, algorithm, programs, Data::full);
        const RunResult none = mpi_run(s, algorithm, programs, Data::none);
        EXPECT_EQ(none.time_ps(), full.time_ps());
        EXPECT_EQ(none.stats().messages, full.stats().messages);
        EXPECT_EQ(none.stats().bytes, full.stats().bytes);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 60);
  std::printf("%d calls compared\n", compared);
}

}  // namespace
