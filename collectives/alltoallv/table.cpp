// The alltoallv registry table: the all-to-all algorithms that take explicit layouts.
#include "collectives/alltoall/algorithms.hpp"
#include "collectives/internal/claims.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace {
bool always(const CostQuery&) { return true; }
// The alltoall claims hold for equal counts; otherwise the formulas take the largest of
// the caller's counts (an estimate).
Claim claim_ring(const CostQuery& q) {
  if (!internal::equal_counts(q)) return Claim::estimate;
  return claim_of(tables::alltoall()[1], q);
}
Claim claim_pairwise_xor(const CostQuery& q) {
  if (!internal::equal_counts(q)) return Claim::estimate;
  return claim_of(tables::alltoall()[0], q);
}
}  // namespace

const std::vector<Algorithm>& tables::alltoallv() {
  using namespace internal;
  static const std::vector<Algorithm> t = {
      {"ring", "shifted ring: step k sends to rank+k, receives from rank-k", "nothing", always,
       cost_alltoall_ring, run_alltoall_ring, nullptr, claim_ring},
      {"pairwise_xor", "exchange with rank XOR k in step k (001)", "p a power of two",
       power_of_two_p, cost_alltoall_pairwise_xor, run_alltoall_pairwise_xor, nullptr,
       claim_pairwise_xor},
      {"mesh_direct", "direct send: p-1 shifts of the mesh coordinates (004 §13)", "nothing",
       always, cost_alltoall_mesh_direct, run_alltoall_mesh_direct, nullptr,
       claim_alltoall_mesh_direct},
  };
  return t;
}

}  // namespace vmc
