// The alltoallv registry table: the all-to-all algorithms that take explicit layouts.
#include "collectives/alltoall/algorithms.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace {
bool always(const CostQuery&) { return true; }
}  // namespace

const std::vector<Algorithm>& tables::alltoallv() {
  using namespace internal;
  static const std::vector<Algorithm> t = {
      {"ring", "shifted ring: step k sends to rank+k, receives from rank-k", "nothing", always,
       cost_alltoall_ring, run_alltoall_ring},
      {"pairwise_xor", "exchange with rank XOR k in step k (001)", "p a power of two",
       power_of_two_p, cost_alltoall_pairwise_xor, run_alltoall_pairwise_xor},
  };
  return t;
}

}  // namespace vmc
