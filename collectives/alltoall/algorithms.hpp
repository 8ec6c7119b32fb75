// Registry entry points of the alltoall and alltoallv algorithms, used by the tables.
#pragma once

#include "collectives/alltoall/alltoall_internal.hpp"

namespace vmc::internal {

// Send and receive layouts of a call: equal blocks of call.n, or the v-variant's.
Blocks alltoall_send_layout(const Call& call);
Blocks alltoall_recv_layout(const Call& call);

void run_alltoall_ring(const Call& call);
void run_alltoall_pairwise_xor(const Call& call);
void run_alltoall_hypercube(const Call& call);
Picos cost_alltoall_ring(const CostQuery& q);
Picos cost_alltoall_pairwise_xor(const CostQuery& q);
Picos cost_alltoall_hypercube(const CostQuery& q);
bool power_of_two_p(const CostQuery& q);
// 004's mesh all-to-all scatters (alltoall_mesh_*.cpp).
void run_alltoall_mesh_dr(const Call& call);
Picos cost_alltoall_mesh_dr(const CostQuery& q);
void run_alltoall_mesh_pfr(const Call& call);
Picos cost_alltoall_mesh_pfr(const CostQuery& q);
Claim claim_alltoall_mesh_pfr(const CostQuery& q);
void run_alltoall_mesh_direct(const Call& call);
Picos cost_alltoall_mesh_direct(const CostQuery& q);
Claim claim_alltoall_mesh_direct(const CostQuery& q);

}  // namespace vmc::internal
