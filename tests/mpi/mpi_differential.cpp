// The differential test of the MPI transport: every registered algorithm of every operation,
// and `auto`, run as a real MPI collective (one node per process) and compared bit for bit
// with the MPI library's own collective on the same inputs (tools/mpi_compare.hpp).
//
//   mpirun -np P mpi_differential COVERED    every row on every machine of P nodes it applies
//                                            to; rank 0 writes the rows it ran to COVERED
//   mpi_differential --coverage FILES...     (no mpirun) every row of the registry ran in
//                                            some run: the sweep over P = 1..9 left none out
//
// Machines of P nodes: full, ring, array, tree, hypercube (P a power of two), 2-D meshes and
// tori (every factorisation), and 3-D ones (P = 8). A row runs on the fully connected machine
// when it applies there, else on the first machine it applies to. Cases per row: lengths 0,
// 1, P + 1 and 37 (in int32, sum for the reductions), and at 37 also int64 with bxor (every
// bit) and double with sum; roots 0 and P - 1; the v-variants and reduce_scatter with
// irregular counts, some 0; `auto` also on the world split with its ranks reversed. Exit
// status 1 when any case differs or fails, naming it. VMC_DIFFERENTIAL_VERBOSE=1 names every
// case as it starts.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "collectives/collectives.hpp"
#include "tests/mpi/rows.hpp"
#include "tools/mpi_compare.hpp"

namespace {

using vmc::Operation;
using vmc::mpi_tests::kOperations;
using vmc::mpi_tests::members_of;


bool irregular_counts(Operation op) {
  return op == Operation::scatterv || op == Operation::gatherv || op == Operation::allgatherv ||
         op == Operation::alltoallv || op == Operation::reduce_scatter;
}

std::vector<std::string> topologies(int p) {
  std::vector<std::string> t = {"full:" + std::to_string(p), "ring:" + std::to_string(p),
                                "array:" + std::to_string(p), "tree:" + std::to_string(p)};
  if ((p & (p - 1)) == 0) t.push_back("hypercube:" + std::to_string(p));
  for (int a = 1; a <= p; ++a) {
    if (p % a != 0) continue;
    const std::string shape = std::to_string(a) + "x" + std::to_string(p / a);
    t.push_back("mesh:" + shape);
    t.push_back("torus:" + shape);
  }
  if (p == 8) {
    t.push_back("mesh:2x2x2");
    t.push_back("torus:2x2x2");
  }
  return t;
}

struct Case {
  std::size_t n;
  int root;
  std::string type, reduction;
  bool irregular;
};

std::vector<Case> cases(Operation op, int p) {
  std::vector<Case> c;
  const std::string red = vmc::traits(op).combines ? "sum" : "";
  const bool irr = irregular_counts(op);
  const int mid = p / 2;
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t(p + 1)}) {
    c.push_back({n, mid, "int32", red, irr && op != Operation::reduce_scatter});
  }
  std::vector<int> roots = {0};
  if (vmc::traits(op).rooted && p > 1) roots.push_back(p - 1);
  for (int root : roots) {
    c.push_back({37, root, "int32", red, false});
    if (irr) c.push_back({37, root, "int32", red, true});
    c.push_back({37, root, "int64", vmc::traits(op).combines ? "bxor" : "", false});
    c.push_back({37, root, "double", red, irr});
  }
  return c;
}

bool applies(Operation op, const std::string& name, const vmc::Topology& topology,
             const vmc::Model& model, const Case& c, int hybrid) {
  if (name == "auto") return true;
  const vmc::Algorithm* a = vmc::find_algorithm(op, name);
  if (a == nullptr) return false;
  vmc::cli::RunSpec spec;
  spec.op = op;
  spec.algorithm = name;
  spec.n = c.n;
  spec.root = c.root;
  spec.type = c.type;
  spec.hybrid = hybrid;
  vmc::CostQuery q = vmc::cli::run_query(topology, model, spec);
  if (c.irregular && irregular_counts(op)) {
    q.counts.clear();
    for (int k = 0; k < q.p; ++k) q.counts.push_back((c.n + 3 * std::size_t(k)) % (c.n + 2));
  }
  return a->applicable == nullptr || a->applicable(q);
}

// The long preset runs the check without running P = 1..4 again (the README's test command
// ran them just before, CMakePresets.json): a file older than this executable is from an
// earlier build, whose rows are not this build's, so it is refused rather than believed.
int coverage(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::file_time_type built = fs::last_write_time(fs::read_symlink("/proc/self/exe"), error);
  std::set<std::string> ran;
  for (int k = 2; k < argc; ++k) {
    std::ifstream in(argv[k]);
    if (!in) {
      std::cerr << "cannot read " << argv[k]
                << " (did the run for that P fail, or not run? ctest -R MpiDifferential runs "
                   "every P)\n";
      return 1;
    }
    if (!error && fs::last_write_time(argv[k], error) < built) {
      std::cerr << argv[k] << " is older than this build of mpi_differential: run its P again "
                              "(ctest -R MpiDifferential runs every P)\n";
      return 1;
    }
    for (std::string line; std::getline(in, line);) ran.insert(line);
  }
  int missing = 0;
  for (Operation op : kOperations) {
    for (const vmc::Algorithm& a : vmc::algorithms(op)) {
      const std::string key = vmc::to_string(op) + " " + a.name;
      if (ran.count(key) == 0) {
        std::cerr << "never run against MPI: " << key << "\n";
        ++missing;
      }
    }
  }
  std::cout << ran.size() << " rows ran against MPI; " << missing << " never did\n";
  return missing == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "--coverage") return coverage(argc, argv);
  if (argc != 2) {
    std::cerr << "usage: mpirun -np P mpi_differential COVERED | mpi_differential --coverage "
                 "FILES...\n";
    return 2;
  }
  const int p = vmc::mpi_world_size();
  const int me = vmc::mpi_world_rank();
  vmc::Model model;
  model.alpha = 5e-6;
  model.beta = 7e-9;
  model.gamma = 3e-9;
  const char* verbose_env = std::getenv("VMC_DIFFERENTIAL_VERBOSE");
  const bool verbose = verbose_env != nullptr && *verbose_env != '\0' && *verbose_env != '0';
  std::set<std::string> covered;
  vmc::mpi_tests::Tally tally{me};
  std::vector<std::unique_ptr<vmc::Machine>> machines;
  for (const std::string& t : topologies(p)) {
    vmc::MachineConfig config;
    config.transport = vmc::Transport::mpi;
    config.topology = vmc::parse_topology(t);
    config.model = model;
    config.watchdog_seconds = 20;
    machines.push_back(std::make_unique<vmc::Machine>(config));
  }
  for (Operation op : kOperations) {
    std::vector<std::string> rows = {"auto"};
    for (const vmc::Algorithm& a : vmc::algorithms(op)) rows.push_back(a.name);
    for (const std::string& row : rows) {
      for (const Case& c : cases(op, p)) {
        // The first machine, the fully connected one first, the row applies to.
        for (auto& m : machines) {
          vmc::cli::RunSpec probe;
          probe.op = op;
          probe.n = c.n;
          probe.root = c.root;
          probe.type = c.type;
          vmc::CostQuery q = vmc::cli::run_query(m->topology(), model, probe);
          const std::vector<int> hybrids = members_of(op, row, q);
          bool ran = false;
          for (int h : hybrids) {
            if (!applies(op, row, m->topology(), model, c, h)) continue;
            vmc::cli::RunSpec spec = probe;
            spec.algorithm = row;
            spec.hybrid = h;
            spec.reduction = c.reduction.empty() ? "sum" : c.reduction;
            std::ostringstream name;
            name << vmc::to_string(op) << " " << row << (h >= 0 ? " member " + std::to_string(h) : "")
                 << " on " << m->topology().spec() << ": n=" << c.n << " root=" << c.root
                 << " type=" << c.type << " op=" << spec.reduction
                 << (c.irregular ? " irregular counts" : "");
            if (verbose && me == 0) std::cerr << name.str() << std::endl;
            tally.run(name.str(), [&] {
              return vmc::cli::compare_with_mpi(*m, spec, 1, c.irregular).difference;
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
    // auto on the world with its ranks reversed (a split: MPI_Comm_split underneath).
    vmc::cli::RunSpec spec;
    spec.op = op;
    spec.n = 37;
    spec.root = p - 1;
    spec.type = "int32";
    tally.run(vmc::to_string(op) + " auto on the reversed world", [&] {
      return vmc::cli::compare_with_mpi(*machines.front(), spec, 1, irregular_counts(op), true)
          .difference;
    });
  }
  if (me == 0) {
    std::ofstream out(argv[1]);
    for (const std::string& row : covered) out << row << "\n";
    std::cout << "p = " << p << ": " << tally.cases << " cases against MPI, " << tally.failed
              << " failed; " << covered.size() << " rows ran\n";
  }
  return tally.failed == 0 ? 0 : 1;
}
