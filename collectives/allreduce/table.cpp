// The allreduce registry table.
#include "collectives/allreduce/algorithms.hpp"
#include "collectives/hybrid/hybrid.hpp"
#include "collectives/internal/allport.hpp"
#include "collectives/internal/claims.hpp"
#include "collectives/internal/mesh_rings.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace {
// Claims of the formulas (collectives/internal/claims.hpp; each algorithm's file explains).
Claim claim_reduce_broadcast(const CostQuery& q) {
  return internal::on_machine(q, Claim::exact, true);
}
// Non-powers of two fold pairwise; under `half` the folded steps interleave (an estimate).
Claim claim_recursive_doubling(const CostQuery& q) {
  using namespace internal;
  if (q.model.port == Port::half && !is_power_of_two(q.p)) return Claim::estimate;
  return on_machine(q, Claim::exact, true);
}
Claim claim_recursive_halving_doubling(const CostQuery& q) {
  using namespace internal;
  if (is_power_of_two(q.p)) return on_machine(q, Claim::exact, true);
  return q.model.port == Port::half ? Claim::estimate : on_machine(q, Claim::lower_bound, true);
}
// Odd rings under one-partner ports drift: the serialised steps are a lower bound.
Claim claim_ring(const CostQuery& q) {
  using namespace internal;
  const bool exact = two_sided_ports(q) || q.p % 2 == 0 || q.p == 1;
  return on_machine(q, exact ? Claim::exact : Claim::lower_bound, false);
}
}  // namespace

const std::vector<Algorithm>& tables::allreduce() {
  using namespace internal;
  static const std::vector<Algorithm> t = [] {
    std::vector<Algorithm> rows = {
      {"reduce_broadcast", "binomial reduce to rank 0, then binomial broadcast (000 Version 1)",
       "nothing", applicable_allreduce_reduce_broadcast, cost_allreduce_reduce_broadcast,
       run_allreduce_reduce_broadcast, nullptr, claim_reduce_broadcast},
      {"recursive_doubling",
       "log p exchanges of the whole vector (000 Version 2, 002 cube); non-powers of two "
       "fold pairwise into p' = 2^floor(log p) and get the result back",
       "nothing", applicable_allreduce_recursive_doubling, cost_allreduce_recursive_doubling,
       run_allreduce_recursive_doubling, nullptr, claim_recursive_doubling},
      {"recursive_halving_doubling",
       "recursive halving reduce-scatter, then recursive doubling allgather (000 Version 3)",
       "nothing", applicable_allreduce_recursive_halving_doubling,
       cost_allreduce_recursive_halving_doubling, run_allreduce_recursive_halving_doubling,
       nullptr, claim_recursive_halving_doubling},
      {"ring", "ring reduce-scatter, then ring allgather (004 bucket algorithms)",
       "a commutative op", applicable_allreduce_ring, cost_allreduce_ring, run_allreduce_ring,
       nullptr, claim_ring},
      {"allport_doubling",
       "recursive doubling of d windows over rotated dimensions, one per link at once "
       "(000 §7 Version 2): d (alpha + c beta + d c gamma), c = ceil(n/d), under --port all",
       "p a power of two and a commutative op", applicable_allreduce_allport_doubling,
       cost_allreduce_allport_doubling, run_allreduce_allport_doubling, nullptr,
       allport::claim},
      {"mesh_mst",
       "MST reduction to rank 0, then MST broadcast, on the group's mesh (004 §12 "
       "fan-in/fan-out)",
       "nothing", applicable_allreduce_mesh_mst, cost_allreduce_mesh_mst,
       run_allreduce_mesh_mst, nullptr, claim_allreduce_mesh_mst},
    };
    // van de Geijn's hybrid (000 §3.4-§6): collectives/hybrid.
    for (Algorithm& row : hybrid::allreduce_rows()) rows.push_back(row);
    // 004's mesh algorithms (allreduce_mesh_*.cpp).
    rows.push_back({"mesh_dr",
                    "dimensional rings: DR distributed reduction, then DR collect (004 §12 "
                    "buckets)",
                    "a commutative op", applicable_allreduce_mesh_dr, cost_allreduce_mesh_dr,
                    run_allreduce_mesh_dr, nullptr, dr_claim});
    rows.push_back({"mesh_pfr",
                    "prime factors rings: each ring circulates and combines whole vectors "
                    "(004 §12 PFR reduction-to-all)",
                    "nothing", applicable_allreduce_mesh_pfr, cost_allreduce_mesh_pfr,
                    run_allreduce_mesh_pfr, nullptr, claim_allreduce_mesh_pfr});
    rows.push_back({"mesh_pfr_dc",
                    "prime factors rings: PFR distributed reduction, then PFR collect (004 "
                    "§12 PFR-DC)",
                    "a commutative op", applicable_allreduce_mesh_pfr_dc,
                    cost_allreduce_mesh_pfr_dc, run_allreduce_mesh_pfr_dc, nullptr,
                    claim_allreduce_mesh_pfr_dc});
    // 004 §12's hybrids (allreduce_mesh_pfr_pfr_dc.cpp).
    for (Algorithm& row : allreduce_mesh_pfr_pfr_dc_rows()) rows.push_back(row);
    return rows;
  }();
  return t;
}

}  // namespace vmc
