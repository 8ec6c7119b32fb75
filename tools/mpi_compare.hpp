// vmc's algorithms as real MPI collectives, beside MPI's own (built with MPI only): runs one
// collective on a machine of the MPI transport (MachineConfig::transport, one node per
// process) with a vmc algorithm, and the MPI library's collective (MPI_Allreduce, MPI_Bcast,
// ...) on the same inputs, compares every process's result bit for bit, and times both with
// MPI_Wtime. The engine behind `vmc run --transport mpi` and the differential test
// (tests/mpi/mpi_differential.cpp).
//
// Inputs are chosen so that every result is exact in every order of combining: sums, products
// and logical ops of small integers (also as float and double), min, max and the bitwise ops
// of full-range integers. So the results of vmc and MPI must be equal bit for bit, floats
// included, whichever order either combines in.
#pragma once

#include <string>
#include <vector>

#include "runtime/machine.hpp"
#include "tools/runner.hpp"

namespace vmc::cli {

struct MpiComparison {
  std::string algorithm;  // the one run (auto's choice)
  std::string mpi_call;   // "MPI_Allreduce"
  Picos predicted = 0;    // the algorithm's cost formula under the machine's model
  // Over the repetitions, each the slowest process's time: the fastest and the median.
  double vmc_fastest = 0, vmc_median = 0;
  double mpi_fastest = 0, mpi_median = 0;
  // Empty when every process's result equals MPI's; else the first difference found, naming
  // the rank and the item.
  std::string difference;
};

// Runs spec on m (which must use the MPI transport) `repeats` times with vmc's algorithm and
// as many with MPI's collective; every process returns the same comparison. `irregular`:
// the v-variants (and reduce_scatter) run with counts that differ by rank, some of them 0,
// instead of spec.n for every rank. `comm_reversed`: both run on a split of the world with
// the ranks reversed. Throws std::invalid_argument for a spec MPI has no counterpart of
// (the matmul reduction), RunError when the run fails.
MpiComparison compare_with_mpi(Machine& m, const RunSpec& spec, int repeats = 1,
                               bool irregular = false, bool comm_reversed = false);

}  // namespace vmc::cli
