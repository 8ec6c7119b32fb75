// Registry entry points of the scatter and scatterv algorithms, used by table.cpp.
#pragma once

#include "collectives/scatter/scatter_internal.hpp"

namespace vmc::internal {

// Layout of a scatter call: equal blocks of call.n, or the v-variant's counts/displs.
Blocks scatter_layout(const Call& call);

void run_scatter_linear(const Call& call);
void run_scatter_binomial(const Call& call);
Picos cost_scatter_linear(const CostQuery& q);
Picos cost_scatter_binomial(const CostQuery& q);
void run_scatter_mesh_mst(const Call& call);
Picos cost_scatter_mesh_mst(const CostQuery& q);
Claim claim_scatter_mesh_mst(const CostQuery& q);

}  // namespace vmc::internal
