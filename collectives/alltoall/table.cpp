// The alltoall registry table.
#include "collectives/alltoall/algorithms.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace {
bool always(const CostQuery&) { return true; }
}  // namespace

const std::vector<Algorithm>& tables::alltoall() {
  using namespace internal;
  static const std::vector<Algorithm> t = {
      {"pairwise_xor", "exchange with rank XOR k in step k (001, e-cube contention-free)",
       "p a power of two", power_of_two_p, cost_alltoall_pairwise_xor, run_alltoall_pairwise_xor},
      {"ring", "shifted ring: step k sends to rank+k, receives from rank-k", "nothing", always,
       cost_alltoall_ring, run_alltoall_ring},
      {"hypercube", "store-and-forward over the log p dimensions (001 hypercube)",
       "p a power of two", power_of_two_p, cost_alltoall_hypercube, run_alltoall_hypercube},
  };
  return t;
}

}  // namespace vmc
