// The reduce_scatter registry table.
#include "collectives/reduce_scatter/algorithms.hpp"
#include "collectives/internal/claims.hpp"
#include "collectives/internal/mesh_rings.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace {
bool always(const CostQuery&) { return true; }
bool commutative(const CostQuery& q) { return q.commutative; }
// Claims of the formulas (collectives/internal/claims.hpp; each algorithm's file explains).
Claim claim_ring(const CostQuery& q) {
  using namespace internal;
  if (two_sided_ports(q)) return on_machine(q, Claim::exact, false);  // any counts
  if (!equal_counts(q)) return Claim::estimate;
  // One-partner ports: exact for even p, a lower bound for odd p (reduce_scatter_ring.cpp).
  return on_machine(q, q.p % 2 == 0 ? Claim::exact : Claim::lower_bound, false);
}
Claim claim_recursive_halving(const CostQuery& q) {
  using namespace internal;
  if (!equal_counts(q)) return Claim::estimate;
  const bool exact = q.p == 1 || (is_power_of_two(q.p) && q.model.port != Port::half);
  return on_machine(q, exact ? Claim::exact : Claim::lower_bound, true);
}
Claim claim_pairwise(const CostQuery& q) {
  using namespace internal;
  if (!equal_counts(q)) return Claim::estimate;
  const bool exact = two_sided_ports(q) || q.p == 1 ||
                     (q.model.port == Port::exchange && (q.p == 2 || q.p == 4));
  return on_machine(q, exact ? Claim::exact : Claim::lower_bound, false);
}

}  // namespace

const std::vector<Algorithm>& tables::reduce_scatter() {
  using namespace internal;
  static const std::vector<Algorithm> t = [] {
    std::vector<Algorithm> rows = {
      {"ring", "ring: the ring allgather reversed, combining on the way (001)",
       "a commutative op", commutative, cost_reduce_scatter_ring, run_reduce_scatter_ring,
       nullptr, claim_ring},
      {"recursive_halving",
       "recursive halving at distances 1, 2, 4, ... in rank order (000 §3, 004); non-powers "
       "of two fold the extra ranks in and out",
       "nothing", always, cost_reduce_scatter_recursive_halving,
       run_reduce_scatter_recursive_halving, nullptr, claim_recursive_halving},
      {"pairwise", "direct exchange of contributions, combined in rank order", "nothing", always,
       cost_reduce_scatter_pairwise, run_reduce_scatter_pairwise, nullptr,
       claim_pairwise},
      {"mesh_dr",
       "dimensional rings: a ring in each dimension of the mesh, highest first (004 §10 DR "
       "distributed reduction; 001 mesh all-to-all reduction)",
       "a commutative op", commutative, cost_reduce_scatter_mesh_dr, run_reduce_scatter_mesh_dr,
       nullptr, dr_claim},
      {"mesh_pfr",
       "prime factors rings: rings of each prime factor of the mesh lengths, closest first "
       "(004 §10 PFR distributed reduction)",
       "a commutative op", commutative, cost_reduce_scatter_mesh_pfr,
       run_reduce_scatter_mesh_pfr, nullptr, claim_reduce_scatter_mesh_pfr},
    };
    // 004 §10's PFR-DR hybrids (reduce_scatter_mesh_pfr_dr.cpp).
    for (Algorithm& row : reduce_scatter_mesh_pfr_dr_rows()) rows.push_back(row);
    return rows;
  }();
  return t;
}

}  // namespace vmc
