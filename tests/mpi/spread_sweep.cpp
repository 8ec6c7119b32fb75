// The registry sweep on a machine spread over MPI processes (Transport::spread), against the
// same machine on one process: every registered algorithm of every operation, and `auto`,
// checked against the sequential reference on the spread machine, with statistics (the
// virtual time, every node's time, messages, link busy times, contention, the contention-free
// replay) equal to the one-process run's bit for bit.
//
//   mpirun -np K spread_sweep P...   the sweep at each P; exit status 1 when a case fails,
//                                    or when a row ran at none of the P
//
// Machines of P nodes, in the order a row is tried on them: hypercube (P a power of two),
// the most nearly square 2-D mesh and torus, the 3-D torus (P a cube), ring, array, tree,
// full. A row runs on the first it applies to; a hybrid's member row with its first and last
// member; 000's hybrid with the strategy that alternates halving and whole-vector steps. One case per row and P: n = 3 items (per block for the blocked operations), int32,
// sum, root P / 3. The model: wormhole routing with exclusive links at P <= 64, direct routing
// (no links to hold) above; `auto` runs at P <= 64. VMC_FULL_SWEEP=1 runs every P with links
// and `auto`: at P = 1000 the rows that send P^2 messages take 10 to 30 s each to simulate
// with links, and auto's selection (the same code on every process, simulating its
// candidates) minutes per operation, on 2 cores. VMC_SPREAD_VERBOSE=1 names every case as it
// starts.
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "collectives/collectives.hpp"
#include "tests/mpi/rows.hpp"
#include "tools/runner.hpp"

namespace {

using vmc::Operation;
using vmc::mpi_tests::kOperations;

// A row's hybrid members to run: the first and the last of its family.
std::vector<int> ends_of(std::vector<int> members) {
  if (members.size() > 2) members = {members.front(), members.back()};
  return members;
}


std::vector<std::string> topologies(int p) {
  std::vector<std::string> t;
  const std::string ps = std::to_string(p);
  if ((p & (p - 1)) == 0) t.push_back("hypercube:" + ps);
  int a = static_cast<int>(std::sqrt(static_cast<double>(p)));
  while (p % a != 0) --a;
  if (a > 1) {
    const std::string shape = std::to_string(a) + "x" + std::to_string(p / a);
    t.push_back("mesh:" + shape);
    t.push_back("torus:" + shape);
  }
  const int c = static_cast<int>(std::lround(std::cbrt(static_cast<double>(p))));
  if (c > 1 && c * c * c == p) {
    const std::string side = std::to_string(c);
    t.push_back("torus:" + side + "x" + side + "x" + side);
  }
  for (const char* f : {"ring:", "array:", "tree:", "full:"}) t.push_back(f + ps);
  return t;
}

bool applies(const vmc::cli::RunSpec& spec, const vmc::Topology& topology,
             const vmc::Model& model) {
  if (spec.algorithm == "auto") return true;
  const vmc::Algorithm* a = vmc::find_algorithm(spec.op, spec.algorithm);
  if (a == nullptr) return false;
  return a->applicable == nullptr || a->applicable(vmc::cli::run_query(topology, model, spec));
}

// The first field in which two runs' statistics differ, or "".
std::string difference(const vmc::Stats& a, const vmc::Stats& b) {
  std::ostringstream d;
  auto field = [&](const char* name, const auto& x, const auto& y) {
    if (d.tellp() == 0 && !(x == y)) d << name << " differs";
  };
  field("time", a.time, b.time);
  field("node_time", a.node_time, b.node_time);
  field("messages", a.messages, b.messages);
  field("items", a.items, b.items);
  field("bytes", a.bytes, b.bytes);
  field("combined_items", a.combined_items, b.combined_items);
  field("rearranged_items", a.rearranged_items, b.rearranged_items);
  field("critical_startups", a.critical_startups, b.critical_startups);
  field("link_busy", a.link_busy, b.link_busy);
  field("link_peak", a.link_peak, b.link_peak);
  field("max_link_waiters", a.max_link_waiters, b.max_link_waiters);
  field("token_wait", a.token_wait, b.token_wait);
  field("contention_delay", a.contention_delay, b.contention_delay);
  field("max_message_delay", a.max_message_delay, b.max_message_delay);
  field("contention_critical_delay", a.contention_critical_delay, b.contention_critical_delay);
  field("free_time", a.free_time, b.free_time);
  if (d.tellp() != 0 && a.time != b.time) {
    d << " (time " << a.time << " ps spread, " << b.time << " ps on one process)";
  }
  return d.str();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: mpirun -np K spread_sweep P...\n";
    return 2;
  }
  const int me = vmc::mpi_world_rank();
  const int processes = vmc::mpi_world_size();
  const char* verbose_env = std::getenv("VMC_SPREAD_VERBOSE");
  const bool verbose = verbose_env != nullptr && *verbose_env != '\0' && *verbose_env != '0';
  const char* full_env = std::getenv("VMC_FULL_SWEEP");
  const bool full = full_env != nullptr && *full_env != '\0' && *full_env != '0';
  vmc::Model model;
  model.alpha = 5e-6;
  model.beta = 7e-9;
  model.gamma = 3e-9;
  std::set<std::string> covered;
  vmc::mpi_tests::Tally tally{me};
  for (int k = 1; k < argc; ++k) {
    const int p = std::atoi(argv[k]);
    if (p < processes) {
      std::cerr << "P = " << argv[k] << " is below the " << processes << " processes\n";
      return 2;
    }
    std::vector<std::unique_ptr<vmc::Machine>> spread, local;
    vmc::Model model_p = model;
    if (p > 64 && !full) model_p.routing = vmc::Routing::direct;
    for (const std::string& t : topologies(p)) {
      vmc::MachineConfig config;
      config.topology = vmc::parse_topology(t);
      config.model = model_p;
      config.watchdog_seconds = 60;
      config.trace = false;
      if (me == 0) local.push_back(std::make_unique<vmc::Machine>(config));
      config.transport = vmc::Transport::spread;
      spread.push_back(std::make_unique<vmc::Machine>(config));
    }
    const int cases_before = tally.cases, failed_before = tally.failed;
    for (Operation op : kOperations) {
      std::vector<std::string> rows;
      if (p <= 64 || full) rows.push_back("auto");
      for (const vmc::Algorithm& a : vmc::algorithms(op)) rows.push_back(a.name);
      for (const std::string& row : rows) {
        for (std::size_t t = 0; t < spread.size(); ++t) {
          vmc::cli::RunSpec spec;
          spec.op = op;
          spec.algorithm = row;
          spec.n = 3;
          spec.root = p / 3;
          spec.type = "int32";
          spec.reduction = "sum";
          spec.check = true;
          if (row == "hybrid") {
            // 000 Fig. 4 with a given strategy, one step per cube direction: halve, whole, ...
            for (int d = 2; d <= p; d *= 2) spec.strategy.push_back(spec.strategy.size() % 2 == 0);
          }
          vmc::Machine& m = *spread[t];
          const vmc::CostQuery q = vmc::cli::run_query(m.topology(), model_p, spec);
          bool ran = false;
          for (int h : ends_of(vmc::mpi_tests::members_of(op, row, q))) {
            spec.hybrid = h;
            if (!applies(spec, m.topology(), model_p)) continue;
            std::ostringstream name;
            name << vmc::to_string(op) << " " << row
                 << (h >= 0 ? " member " + std::to_string(h) : "") << " on "
                 << m.topology().spec();
            if (verbose && me == 0) std::cerr << name.str() << std::endl;
            tally.run(name.str(), [&]() -> std::string {
              const vmc::cli::RunOutcome out = vmc::cli::run_collective(m, spec);
              if (!out.correct || !*out.correct) return "wrong result on the spread machine";
              if (me != 0) return "";
              const vmc::cli::RunOutcome one = vmc::cli::run_collective(*local[t], spec);
              if (!one.correct || !*one.correct) return "wrong result on one process";
              if (one.algorithm != out.algorithm) {
                return "auto chose " + out.algorithm + " spread, " + one.algorithm +
                       " on one process";
              }
              return difference(out.result.stats(), one.result.stats());
            });
            ran = true;
          }
          if (ran) {
            covered.insert(vmc::to_string(op) + " " + row);
            break;
          }
        }
      }
    }
    if (me == 0) {
      std::cout << "p = " << p << " over " << processes << " processes: "
                << tally.cases - cases_before << " cases, " << tally.failed - failed_before
                << " failed\n";
    }
  }
  int missing = 0;
  for (Operation op : kOperations) {
    for (const vmc::Algorithm& a : vmc::algorithms(op)) {
      if (covered.count(vmc::to_string(op) + " " + a.name) == 0) {
        if (me == 0) std::cerr << "never run spread: " << vmc::to_string(op) << " " << a.name << "\n";
        ++missing;
      }
    }
  }
  if (me == 0) {
    std::cout << covered.size() << " rows ran; " << missing << " never did\n";
  }
  return tally.failed == 0 && missing == 0 ? 0 : 1;
}
