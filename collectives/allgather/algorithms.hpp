// Registry entry points of the allgather and allgatherv algorithms (one pair per file),
// used by table.cpp. `run_*` adapt a Call to the block functions of allgather_internal.hpp.
#pragma once

#include <vector>

#include "collectives/allgather/allgather_internal.hpp"
#include "collectives/patterns/mesh_rings.hpp"

namespace vmc::internal {

// The layout of an allgather call (equal blocks of call.n, or the v-variant's counts and
// displacements), after copying the caller's own block into place unless in place.
Blocks prepare_allgather(const Call& call);

void run_allgather_ring(const Call& call);
void run_allgather_recursive_doubling(const Call& call);
void run_allgather_bruck(const Call& call);
void run_allgather_gather_broadcast(const Call& call);
Picos cost_allgather_ring(const CostQuery& q);
Picos cost_allgather_recursive_doubling(const CostQuery& q);
Picos cost_allgather_bruck(const CostQuery& q);
Picos cost_allgather_gather_broadcast(const CostQuery& q);
// 004's mesh collects (allgather_mesh_*.cpp).
void run_allgather_mesh_dr(const Call& call);
Picos cost_allgather_mesh_dr(const CostQuery& q);
void run_allgather_mesh_pfr(const Call& call);
Picos cost_allgather_mesh_pfr(const CostQuery& q);
Claim claim_allgather_mesh_pfr(const CostQuery& q);
// The collect over any ring plan (allgather_mesh_pfr.cpp): mesh_pfr's code and cost for the
// PFR-DR hybrids' plans (allgather_mesh_pfr_dr.cpp).
void run_allgather_plan(const Call& call, const patterns::RingPlan& plan);
Picos cost_allgather_plan(const CostQuery& q, const patterns::RingPlan& plan);
// The family's rows for allgather or allgatherv (their choices of member are remembered
// apart).
std::vector<Algorithm> allgather_mesh_pfr_dr_rows(Operation op);
bool applicable_allgather_allport_doubling(const CostQuery& q);
void run_allgather_allport_doubling(const Call& call);
Picos cost_allgather_allport_doubling(const CostQuery& q);
void run_allgather_mesh_mst(const Call& call);
Picos cost_allgather_mesh_mst(const CostQuery& q);
Claim claim_allgather_mesh_mst(const CostQuery& q);

}  // namespace vmc::internal
