// What the MPI tests that sweep the registry share (mpi_differential.cpp, spread_sweep.cpp):
// the operations, the hybrid members a row runs with, and the tally of cases.
#pragma once

#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "collectives/collectives.hpp"

namespace vmc::mpi_tests {

inline const Operation kOperations[] = {
    Operation::broadcast,  Operation::reduce,    Operation::allreduce, Operation::allgather,
    Operation::reduce_scatter, Operation::scan,  Operation::exscan,    Operation::scatter,
    Operation::gather,     Operation::alltoall,  Operation::barrier,   Operation::scatterv,
    Operation::gatherv,    Operation::allgatherv, Operation::alltoallv,
};

// The hybrid member indices a row runs with: none (-1) for an ordinary row, every member of
// its family for a row that runs one given member (empty when the family does not apply).
inline std::vector<int> members_of(Operation op, const std::string& name, const CostQuery& q) {
  if (!is_member_row(op, name)) return {-1};
  for (const Algorithm& a : algorithms(op)) {
    if (a.member_row == name && a.members != nullptr) {
      CostQuery family = q;
      family.options.algorithm = a.name;
      family.options.hybrid = -1;
      if (a.applicable != nullptr && !a.applicable(family)) return {};
      std::vector<int> idx;
      const std::size_t k = a.members(family).size();
      for (std::size_t i = 0; i < k; ++i) idx.push_back(static_cast<int>(i));
      return idx;
    }
  }
  return {};
}

// Cases run and failed; process 0 names each failure.
struct Tally {
  int rank = 0;  // this process's
  int cases = 0;
  int failed = 0;
  // Runs one case: `run` returns what went wrong ("" when it passed) or throws it.
  void run(const std::string& name, const std::function<std::string()>& run) {
    std::string problem;
    try {
      problem = run();
    } catch (const std::exception& e) {
      problem = e.what();
    }
    ++cases;
    if (problem.empty()) return;
    ++failed;
    if (rank == 0) std::cerr << "FAILED " << name << ": " << problem << "\n";
  }
};

}  // namespace vmc::mpi_tests
