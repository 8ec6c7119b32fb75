// The allgather and allgatherv registry tables. Every allgather algorithm works on an
// explicit block layout, so allgatherv runs the same four.
#include "collectives/allgather/algorithms.hpp"
#include "collectives/internal/allport.hpp"
#include "collectives/internal/claims.hpp"
#include "collectives/internal/mesh_rings.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace {
bool always(const CostQuery&) { return true; }

// Claims of the formulas (collectives/internal/claims.hpp; each algorithm's file explains).
Claim claim_ring(const CostQuery& q) {
  using namespace internal;
  if (two_sided_ports(q)) return on_machine(q, Claim::exact, false);  // any counts
  if (!equal_counts(q)) return Claim::estimate;
  // One-partner ports: exact for even p, a lower bound for odd p (allgather_ring.cpp).
  return on_machine(q, q.p % 2 == 0 ? Claim::exact : Claim::lower_bound, false);
}
Claim claim_recursive_doubling(const CostQuery& q) {
  using namespace internal;
  if (!equal_counts(q)) return Claim::estimate;
  return on_machine(q, q.model.port == Port::half ? Claim::lower_bound : Claim::exact, true);
}
Claim claim_gather_broadcast(const CostQuery& q) {
  return internal::on_machine(q, Claim::exact, true);  // any counts
}
Claim claim_bruck(const CostQuery& q) {
  using namespace internal;
  if (two_sided_ports(q)) return on_machine(q, Claim::exact, false);  // any counts
  if (!equal_counts(q)) return Claim::estimate;
  const bool exact = q.model.port == Port::exchange && is_power_of_two(q.p);
  return on_machine(q, exact || q.p == 1 ? Claim::exact : Claim::lower_bound, false);
}

std::vector<Algorithm> rows(Operation op) {
  using namespace internal;
  std::vector<Algorithm> rows = {
      {"ring", "ring: p-1 steps, each block travels once around the ring (001)", "nothing",
       always, cost_allgather_ring, run_allgather_ring, nullptr, claim_ring},
      {"recursive_doubling",
       "recursive doubling: log p exchanges of doubling ranges (001 hypercube); "
       "non-powers of two fold the extra ranks in and out",
       "nothing", always, cost_allgather_recursive_doubling, run_allgather_recursive_doubling,
       nullptr, claim_recursive_doubling},
      {"gather_broadcast", "binomial gather to rank 0, then binomial broadcast (004 MST collect)",
       "nothing", always, cost_allgather_gather_broadcast, run_allgather_gather_broadcast,
       nullptr, claim_gather_broadcast},
      {"bruck", "Bruck dissemination: ceil(log p) shifted steps for any p", "nothing", always,
       cost_allgather_bruck, run_allgather_bruck, nullptr, claim_bruck},
      {"mesh_dr",
       "dimensional rings: a ring in each dimension of the mesh, lowest first (004 §8 DR "
       "collect; 001 mesh rows then columns)",
       "nothing", always, cost_allgather_mesh_dr, run_allgather_mesh_dr, nullptr, dr_claim},
      {"mesh_pfr",
       "prime factors rings: rings of each prime factor of the mesh lengths, widest first "
       "(004 §8 PFR collect)",
       "nothing", always, cost_allgather_mesh_pfr, run_allgather_mesh_pfr, nullptr,
       claim_allgather_mesh_pfr},
      {"allport_doubling",
       "recursive doubling of d windows of every block over rotated dimensions, one per "
       "link at once (000 §7 on 001's hypercube algorithm): d alpha + (p-1) ceil(m/d) beta "
       "under --port all",
       "p a power of two", applicable_allgather_allport_doubling,
       cost_allgather_allport_doubling, run_allgather_allport_doubling, nullptr,
       allport::claim},
      {"mesh_mst",
       "MST gather to rank 0, then MST broadcast, on the group's mesh (004 §8 MST collect)",
       "nothing", always, cost_allgather_mesh_mst, run_allgather_mesh_mst, nullptr,
       claim_allgather_mesh_mst},
  };
  // 004 §8's PFR-DR hybrids (allgather_mesh_pfr_dr.cpp).
  for (Algorithm& row : allgather_mesh_pfr_dr_rows(op)) rows.push_back(row);
  return rows;
}
}  // namespace

const std::vector<Algorithm>& tables::allgather() {
  static const std::vector<Algorithm> t = rows(Operation::allgather);
  return t;
}
const std::vector<Algorithm>& tables::allgatherv() {
  static const std::vector<Algorithm> t = rows(Operation::allgatherv);
  return t;
}

}  // namespace vmc
