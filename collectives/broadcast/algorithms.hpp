// Registry entry points of the broadcast algorithms, one triple per file broadcast_<algorithm>.cpp,
// collected by table.cpp.
#pragma once

#include "collectives/registry.hpp"

namespace vmc::internal {

bool applicable_broadcast_linear(const CostQuery& q);
Picos cost_broadcast_linear(const CostQuery& q);
void run_broadcast_linear(const Call& call);
bool applicable_broadcast_binomial(const CostQuery& q);
Picos cost_broadcast_binomial(const CostQuery& q);
void run_broadcast_binomial(const Call& call);
bool applicable_broadcast_scatter_allgather(const CostQuery& q);
Picos cost_broadcast_scatter_allgather(const CostQuery& q);
void run_broadcast_scatter_allgather(const Call& call);
bool applicable_broadcast_pipelined_chain(const CostQuery& q);
Picos cost_broadcast_pipelined_chain(const CostQuery& q);
void run_broadcast_pipelined_chain(const Call& call);
bool applicable_broadcast_mesh_mst(const CostQuery& q);
Picos cost_broadcast_mesh_mst(const CostQuery& q);
void run_broadcast_mesh_mst(const Call& call);
Claim claim_broadcast_mesh_mst(const CostQuery& q);
bool applicable_broadcast_mesh_sc(const CostQuery& q);
Picos cost_broadcast_mesh_sc(const CostQuery& q);
void run_broadcast_mesh_sc(const Call& call);
Claim claim_broadcast_mesh_sc(const CostQuery& q);
std::vector<Algorithm> broadcast_mesh_mst_sc_rows();
bool applicable_broadcast_mesh_dopl(const CostQuery& q);
Picos cost_broadcast_mesh_dopl(const CostQuery& q);
void run_broadcast_mesh_dopl(const Call& call);
Claim claim_broadcast_mesh_dopl(const CostQuery& q);
std::string detail_broadcast_mesh_dopl(const CostQuery& q);
bool applicable_broadcast_allport_binomial(const CostQuery& q);
Picos cost_broadcast_allport_binomial(const CostQuery& q);
void run_broadcast_allport_binomial(const Call& call);
bool applicable_broadcast_allport_edst(const CostQuery& q);
Picos cost_broadcast_allport_edst(const CostQuery& q);
void run_broadcast_allport_edst(const Call& call);

}  // namespace vmc::internal
