// `vmc tune`: automatic selection over a grid of operations, node counts and lengths, and
// its winners written as tables that MPI libraries read (Open MPI's coll_tuned dynamic
// rules, MPICH's collective selection JSON) and as CSV. The library names come from
// mpi_tables.hpp.
#pragma once

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

#include "collectives/vocabulary/operation.hpp"
#include "runtime/model.hpp"
#include "tools/mpi_tables.hpp"

namespace vmc::cli {

struct TuneGrid {
  std::vector<Operation> ops;
  std::string family;          // a network family (is_family), sized to every p
  std::vector<std::size_t> ps;  // node counts, increasing, no repeats
  std::vector<std::size_t> ns;  // MPI counts, increasing, no repeats
  Model model;
  std::string type = "float";
  std::string reduction = "sum";
};

// What one library is given at a grid point: the vmc algorithm written (the winner, or the
// best-ranked algorithm that has an equivalent; empty: none has one), its equivalent and its
// predicted time.
struct Written {
  std::string algorithm;
  const LibraryEquivalent* as = nullptr;
  double predicted_s = 0;
};

struct TunePoint {
  Operation op;
  int p = 0;
  std::size_t n = 0;
  std::size_t item_bytes = 0;
  std::string topology;  // the network of p nodes
  std::string winner;    // select_algorithm's choice, as `vmc explain` marks it
  double predicted_s = 0;  // its time as `vmc explain` shows it (simulated, else formula)
  Written open_mpi, mpich;
  const Written& in(MpiLibrary library) const {
    return library == MpiLibrary::open_mpi ? open_mpi : mpich;
  }
};

// Selection at every point of the grid, in the order ops, then p, then n.
std::vector<TunePoint> tune(const TuneGrid& grid);

// Lines saying where a library gets another algorithm than the winner, or none (one per
// operation and vmc algorithm), for stderr and the files' comments.
std::vector<std::string> substitutions(const std::vector<TunePoint>& points, MpiLibrary library);

// One row per point: op,p,n,type,bytes_per_item,winner,predicted_s, then per library the
// algorithm's name (and Open MPI's number), the vmc algorithm written and its predicted time.
void write_tune_csv(std::ostream& out, const std::vector<TunePoint>& points,
                    const std::string& type);
// Open MPI coll_tuned's dynamic rules file in its classic format (Open MPI 4.1's; no version
// line), commented. `about` is a comment line saying what machine the rules are for.
void write_open_mpi_rules(std::ostream& out, const std::vector<TunePoint>& points,
                          const std::string& about);
// MPICH's collective selection JSON, as maint/tuning/coll/mpir/generic.json is laid out.
// Operations with a point where no vmc algorithm has an MPICH equivalent are left out (and
// listed in `left_out`).
void write_mpich_json(std::ostream& out, const std::vector<TunePoint>& points,
                      std::vector<std::string>& left_out);

}  // namespace vmc::cli
