// Registry entry points of the gather and gatherv algorithms, used by table.cpp.
#pragma once

#include "collectives/gather/gather_internal.hpp"

namespace vmc::internal {

// Layout of a gather call: equal blocks of call.n, or the v-variant's counts/displs.
Blocks gather_layout(const Call& call);

void run_gather_linear(const Call& call);
void run_gather_binomial(const Call& call);
Picos cost_gather_linear(const CostQuery& q);
Picos cost_gather_binomial(const CostQuery& q);
void run_gather_mesh_mst(const Call& call);
Picos cost_gather_mesh_mst(const CostQuery& q);
Claim claim_gather_mesh_mst(const CostQuery& q);

}  // namespace vmc::internal
