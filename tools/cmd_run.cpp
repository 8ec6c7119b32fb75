// `vmc run`: one collective on generated data on an emulated machine, with the time the
// registry's cost formula predicts beside the time measured.
//
//   vmc run --topology hypercube:64 --op allreduce --algorithm recursive_doubling --n 4096
//           --alpha 525us --beta 2us --gamma 0.35us --check [--json]
//
// --n is MPI's count (see tools/runner.hpp). --check compares every node's result with a
// sequential reference; matmul is a built-in non-commutative 3x3 integer matrix product,
// checked in rank order.
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "tools/bandwidth.hpp"
#include "tools/commands.hpp"
#include "tools/model_options.hpp"
#include "tools/runner.hpp"
#if VMC_HAVE_MPI
#include "tools/mpi_compare.hpp"
#endif

namespace vmc::cli {
namespace {

struct RunOptions {
  ModelOptions machine;
  CallOptions call;
  std::string clock = "virtual";
  double time_scale = 1.0;
  EngineOptions engine;
  std::string trace;
  bool json = false;
  bool check = false;
  bool stats = false;
  std::string transport = "local";
  int repeat = 20;
  std::string fail;  // --fail: nodes that fail on purpose
  std::string fail_routes = "around";  // --fail-routes
  const CLI::Option* topology_flag = nullptr;  // given or not
};

// --transport mpi: the algorithm as a real MPI collective, one node per process, beside the MPI
// library's own collective on the same data (tools/mpi_compare.hpp). Rank 0 prints.
void run_mpi_command(const RunOptions& o) {
  if (o.clock != "virtual") {
    throw UsageError("--transport mpi runs on the real network and its own clock (MPI_Wtime): "
                     "--clock real belongs to the emulated network of --transport local");
  }
  if (o.engine.data != "full") {
    throw UsageError("--transport mpi moves the data: --data none is for the local transport");
  }
  if (!o.trace.empty()) throw UsageError("--transport mpi records no trace: leave out --trace");
#if VMC_HAVE_MPI
  MachineConfig config;
  config.transport = Transport::mpi;
  config.model = o.machine.model();
  // Without --topology, the processes are fully connected (what mpirun gives them).
  config.topology = o.topology_flag->count() > 0
                        ? o.machine.parsed_topology()
                        : parse_topology("full:" + std::to_string(mpi_world_size()));
  // Every process runs the same command: the calls agree, and the timed calls need no
  // broadcast to compare them.
  config.check_calls = false;
  Machine m(config);
  RunSpec spec = o.call.spec(*config.topology, config.model);
  const MpiComparison c = compare_with_mpi(m, spec, o.repeat);
  if (mpi_world_rank() == 0) {
    const std::string topology = m.topology().spec();
    if (o.json) {
      nlohmann::json j = {{"op", o.call.op},
                          {"algorithm", c.algorithm},
                          {"transport", "mpi"},
                          {"topology", topology},
                          {"p", m.size()},
                          {"n", spec.op == Operation::barrier ? 0 : spec.n},
                          {"type", spec.type},
                          {"repeat", o.repeat},
                          {"model", describe(config.model)},
                          {"time_s", c.vmc_fastest},
                          {"median_s", c.vmc_median},
                          {"mpi_call", c.mpi_call},
                          {"mpi_time_s", c.mpi_fastest},
                          {"mpi_median_s", c.mpi_median},
                          {"predicted_s", to_seconds(c.predicted)},
                          {"equal_to_mpi", c.difference.empty()}};
      std::cout << j.dump() << "\n";
    } else {
      const std::string length =
          spec.op == Operation::barrier ? "" : ", n = " + std::to_string(spec.n);
      std::printf("%s %s over MPI on %s (p = %d processes)%s, %s\n", o.call.op.c_str(),
                  c.algorithm.c_str(), topology.c_str(), m.size(), length.c_str(),
                  spec.type.c_str());
      std::printf("time       %s (the slowest process; fastest of %d repetitions, median %s)\n",
                  format_duration(c.vmc_fastest).c_str(), o.repeat,
                  format_duration(c.vmc_median).c_str());
      std::printf("%-10s %s (median %s)\n", c.mpi_call.c_str(),
                  format_duration(c.mpi_fastest).c_str(), format_duration(c.mpi_median).c_str());
      std::printf("predicted  %s (the cost formula under %s)\n",
                  format_duration(to_seconds(c.predicted)).c_str(),
                  describe(config.model).c_str());
      std::printf("check      %s\n", c.difference.empty()
                                          ? ("equal to " + c.mpi_call + " on every process").c_str()
                                          : ("DIFFERENT: " + c.difference).c_str());
    }
  }
  if (!c.difference.empty()) {
    throw std::runtime_error("the result differs from " + c.mpi_call + "'s: " + c.difference);
  }
#else
  throw UsageError("--transport mpi needs vmc built with MPI (the set-up script installs "
                   "libopenmpi-dev; CMake finds it unless VMC_WITH_MPI is OFF)");
#endif
}

void run_command(const RunOptions& o) {
  if (parse_transport(o.transport) == Transport::mpi) return run_mpi_command(o);
  MachineConfig config;
  config.topology = o.machine.parsed_topology();
  config.model = o.machine.model();
  config.transport = parse_transport(o.transport);
  config.clock = parse_clock(o.clock);
  if (config.transport == Transport::spread && config.clock == Clock::real_time) {
    // Before MPI starts, in any build.
    throw UsageError("--transport spread runs the virtual clock only: --clock real holds link "
                     "tokens for real, which nodes in different processes cannot share");
  }
  config.time_scale = o.time_scale;
  config.trace = !o.trace.empty();
  o.engine.apply(config);
  set_failures(o.fail, o.fail_routes, config);
  RunSpec spec = o.call.spec(*config.topology, config.model, config.data != Data::none);
  spec.check = o.check;
  if (config.data == Data::none && o.check) {
    throw UsageError("--check needs the data: it cannot be used with --data none");
  }
  Machine m(config);
  HostCost cost;
  cost.start();
  // Spread over MPI processes: process 0 (the one running node 0) has the trace and prints.
  const bool spread = config.transport == Transport::spread;
  const bool prints = !spread || m.hosts(0);
  // The trace of what the run did: a run that failed carries it when its nodes failed on
  // purpose; any other failed run has none, and says so, as vmc mpirun does.
  auto write_trace = [&](const RunResult* ran) {
    if (o.trace.empty() || !prints) return;
    if (ran != nullptr) {
      ran->trace().write_chrome_json(o.trace, &m.topology());
    } else {
      std::fprintf(stderr, "vmc run: %s not written: the run did not complete\n",
                   o.trace.c_str());
    }
  };
  std::string chosen = o.call.algorithm;
  RunOutcome out = [&] {
    try {
      return run_collective(m, spec, &chosen);
    } catch (const RunError& e) {
      write_trace(e.result().get());
      // --json still prints one object for a run its failures ended: what failed, and what
      // the run did until then; the error goes to standard error and vmc exits 1 as without.
      if (o.json && prints && e.kind() == RunError::Kind::node_failed) {
        nlohmann::json j = e.result() ? stats_json(e.result()->stats(), m.topology())
                                      : nlohmann::json::object();
        j.update({{"op", o.call.op},
                  {"algorithm", chosen},
                  {"topology", m.topology().spec()},
                  {"p", m.size()},
                  {"n", spec.op == Operation::barrier ? 0 : spec.n},
                  {"clock", o.clock},
                  {"model", describe(config.model)},
                  {"time_s", e.result() ? nlohmann::json(to_seconds(e.result()->stats().time))
                                        : nlohmann::json()},
                  {"error", e.failures().headline()},
                  {"failures", failures_json(m.failures(), e.failures())}});
        std::cout << j.dump() << std::endl;
      }
      throw;
    }
  }();
  cost.stop();
  if (!prints) {
    if (out.correct && !*out.correct) {
      throw std::runtime_error("the result does not match the sequential reference");
    }
    return;
  }
  write_trace(&out.result);
  const Stats& s = out.result.stats();
  const double time = to_seconds(s.time), predicted = to_seconds(out.predicted);
  const std::string topology = m.topology().spec();
  const std::optional<Bandwidth> bw =
      bandwidth(spec.op, spec.n, item_bytes(spec), m.size(), time);
  if (o.json) {
    nlohmann::json j = stats_json(s, m.topology());
    j.update({{"op", o.call.op},
              {"algorithm", out.algorithm},
              {"topology", topology},
              {"p", m.size()},
              {"n", spec.op == Operation::barrier ? 0 : spec.n},
              {"type", spec.type},
              {"reduction", spec.reduction},
              {"clock", o.clock},
              {"transport", o.transport},
              {"processes", spread ? mpi_world_size() : 1},
              {"model", describe(config.model)},
              {"time_s", time},
              {"predicted_s", predicted},
              {"algbw_Bps", bw ? nlohmann::json(bw->algbw) : nlohmann::json()},
              {"busbw_Bps", bw ? nlohmann::json(bw->busbw) : nlohmann::json()},
              {"correct", out.correct ? nlohmann::json(*out.correct) : nlohmann::json()}});
    if (!out.detail.empty()) j["detail"] = out.detail;
    if (!o.fail.empty()) j["failures"] = failures_json(m.failures(), out.result.failures());
    if (o.stats) {
      j["host_wall_s"] = cost.wall_s;
      j["host_peak_growth_bytes"] = cost.peak_growth_bytes;
    }
    std::cout << j.dump() << "\n";
  } else {
    const std::string length =
        spec.op == Operation::barrier ? "" : ", n = " + std::to_string(spec.n);
    std::printf("%s %s on %s (p = %d)%s, %s clock\n", o.call.op.c_str(), out.algorithm.c_str(),
                topology.c_str(), m.size(), length.c_str(), o.clock.c_str());
    if (spread) {
      const int k = mpi_world_size();
      std::printf("spread     over %d MPI process%s\n", k, k == 1 ? "" : "es");
    }
    if (!out.detail.empty()) std::printf("chose      %s\n", out.detail.c_str());
    std::printf("time       %s\npredicted  %s\n", format_duration(time).c_str(),
                format_duration(predicted).c_str());
    if (bw) {
      std::printf("bandwidth  algbw %.6g GB/s, busbw %.6g GB/s (as nccl-tests defines them)\n",
                  bw->algbw / 1e9, bw->busbw / 1e9);
    }
    print_stats(stdout, s, m.topology());
    if (o.stats) print_host_cost(stdout, cost, s.messages);
    if (!o.fail.empty()) print_failures(stdout, m.failures(), out.result.failures());
    if (out.correct) {
      const std::size_t stopped = out.result.failures().stopped.size();
      std::printf("check      %s%s\n", *out.correct ? "correct" : "WRONG",
                  stopped == 0 ? ""
                               : (" (the " + std::to_string(m.size() - int(stopped)) +
                                  " nodes that did not stop)").c_str());
    }
  }
  if (out.correct && !*out.correct) {
    throw std::runtime_error("the result does not match the sequential reference");
  }
}

}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "run one collective on generated data");
  o->machine.add_to(cmd);
  o->call.add_to(cmd);
  add_clock_options(cmd, o->clock, o->time_scale);
  o->engine.add_to(cmd);
  cmd->add_flag("--check", o->check, "compare with a sequential reference");
  cmd->add_option("--trace", o->trace, "write a Chrome trace JSON file")->check(non_empty_check());
  cmd->add_flag("--json", o->json, "print one JSON object");
  cmd->add_flag("--stats", o->stats,
                "also print what the run cost the host: simulated messages per second of wall "
                "time, and bytes of host memory per message (peak resident growth)");
  cmd->add_option("--transport", o->transport,
                  "local (the emulated machine); mpi: under mpirun, one node per process, the "
                  "algorithm timed beside MPI's own collective on the same data; spread: under "
                  "mpirun -np K, the emulated machine's nodes spread over K processes (virtual "
                  "clock)")
      ->check(CLI::IsMember({"local", "mpi", "spread"}));
  cmd->add_option("--repeat", o->repeat, "--transport mpi: timed repetitions of each")
      ->check(CLI::Range(1, 100000));
  add_fail_option(cmd, o->fail, o->fail_routes);
  o->topology_flag = cmd->get_option("--topology");
  cmd->callback([o] { run_command(*o); });
}

}  // namespace vmc::cli
