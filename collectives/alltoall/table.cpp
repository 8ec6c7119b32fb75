// The alltoall registry table.
#include "collectives/alltoall/algorithms.hpp"
#include "collectives/internal/claims.hpp"
#include "collectives/internal/mesh_rings.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace {
bool always(const CostQuery&) { return true; }
}  // namespace

namespace {
// Claims of the formulas (collectives/internal/claims.hpp; each algorithm's file explains).
Claim claim_pairwise_xor(const CostQuery& q) {
  return internal::on_machine(q, Claim::exact, true);
}
// Shifts of odd cycles interleave under one-partner ports: a lower bound there.
Claim claim_ring(const CostQuery& q) {
  using namespace internal;
  const bool exact = two_sided_ports(q) || q.p == 1 ||
                     (q.model.port == Port::exchange && (q.p == 2 || q.p == 4));
  return on_machine(q, exact ? Claim::exact : Claim::lower_bound, false);
}
Claim claim_hypercube(const CostQuery& q) { return internal::on_machine(q, Claim::exact, true); }
}  // namespace

const std::vector<Algorithm>& tables::alltoall() {
  using namespace internal;
  static const std::vector<Algorithm> t = {
      {"pairwise_xor", "exchange with rank XOR k in step k (001, e-cube contention-free)",
       "p a power of two", power_of_two_p, cost_alltoall_pairwise_xor, run_alltoall_pairwise_xor,
       nullptr, claim_pairwise_xor},
      {"ring", "shifted ring: step k sends to rank+k, receives from rank-k", "nothing", always,
       cost_alltoall_ring, run_alltoall_ring, nullptr, claim_ring},
      {"hypercube", "store-and-forward over the log p dimensions (001 hypercube)",
       "p a power of two", power_of_two_p, cost_alltoall_hypercube, run_alltoall_hypercube,
       nullptr, claim_hypercube},
      {"mesh_dr",
       "dimensional rings: a ring all-to-all in each dimension of the mesh (004 §13 DR; 001 "
       "mesh rows then columns)",
       "nothing", always, cost_alltoall_mesh_dr, run_alltoall_mesh_dr, nullptr, dr_claim},
      {"mesh_pfr",
       "prime factors rings with dimension alternation: 004 §13 interleaved exchange",
       "nothing", always, cost_alltoall_mesh_pfr, run_alltoall_mesh_pfr, nullptr,
       claim_alltoall_mesh_pfr},
      {"mesh_direct", "direct send: p-1 shifts of the mesh coordinates (004 §13)", "nothing",
       always, cost_alltoall_mesh_direct, run_alltoall_mesh_direct, nullptr,
       claim_alltoall_mesh_direct},
  };
  return t;
}

}  // namespace vmc
