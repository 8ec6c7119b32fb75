// Registry entry points of the allreduce algorithms, one triple per file allreduce_<algorithm>.cpp,
// collected by table.cpp.
#pragma once

#include "collectives/registry.hpp"

namespace vmc::internal {

bool applicable_allreduce_reduce_broadcast(const CostQuery& q);
Picos cost_allreduce_reduce_broadcast(const CostQuery& q);
void run_allreduce_reduce_broadcast(const Call& call);
bool applicable_allreduce_mesh_mst(const CostQuery& q);
Picos cost_allreduce_mesh_mst(const CostQuery& q);
void run_allreduce_mesh_mst(const Call& call);
Claim claim_allreduce_mesh_mst(const CostQuery& q);
bool applicable_allreduce_recursive_doubling(const CostQuery& q);
Picos cost_allreduce_recursive_doubling(const CostQuery& q);
void run_allreduce_recursive_doubling(const Call& call);
bool applicable_allreduce_recursive_halving_doubling(const CostQuery& q);
Picos cost_allreduce_recursive_halving_doubling(const CostQuery& q);
void run_allreduce_recursive_halving_doubling(const Call& call);
bool applicable_allreduce_ring(const CostQuery& q);
Picos cost_allreduce_ring(const CostQuery& q);
void run_allreduce_ring(const Call& call);
// 004's mesh reductions-to-all (allreduce_mesh_*.cpp).
bool applicable_allreduce_mesh_dr(const CostQuery& q);
Picos cost_allreduce_mesh_dr(const CostQuery& q);
void run_allreduce_mesh_dr(const Call& call);
bool applicable_allreduce_mesh_pfr(const CostQuery& q);
Picos cost_allreduce_mesh_pfr(const CostQuery& q);
void run_allreduce_mesh_pfr(const Call& call);
Claim claim_allreduce_mesh_pfr(const CostQuery& q);
bool applicable_allreduce_mesh_pfr_dc(const CostQuery& q);
Picos cost_allreduce_mesh_pfr_dc(const CostQuery& q);
void run_allreduce_mesh_pfr_dc(const Call& call);
Claim claim_allreduce_mesh_pfr_dc(const CostQuery& q);
std::vector<Algorithm> allreduce_mesh_pfr_pfr_dc_rows();
bool applicable_allreduce_allport_doubling(const CostQuery& q);
Picos cost_allreduce_allport_doubling(const CostQuery& q);
void run_allreduce_allport_doubling(const Call& call);

}  // namespace vmc::internal
