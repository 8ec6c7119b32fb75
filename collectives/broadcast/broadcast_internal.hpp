// Internal entry points of the broadcast algorithms for composition: the claims of the pure
// mesh broadcasts, which are the ends of the MST-SC family (broadcast_mesh_mst_sc.cpp).
#pragma once

#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

Claim claim_broadcast_mesh_mst(const CostQuery& q);
Claim claim_broadcast_mesh_sc(const CostQuery& q);

}  // namespace vmc::internal
