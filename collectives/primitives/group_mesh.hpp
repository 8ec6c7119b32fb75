// The mesh shape of a call's group (patterns/mesh_shape.hpp) from a Comm or a CostQuery, so
// that an algorithm's schedule and its cost formula see the same mesh.
#pragma once

#include "collectives/patterns/mesh_shape.hpp"
#include "collectives/vocabulary/row.hpp"
#include "runtime/comm.hpp"

namespace vmc::internal {

// The group is the whole machine with rank r on node r: the topology's own shape; a group
// that forms a sub-mesh in its rank order: the sub-mesh (patterns/mesh_shape.hpp); any
// other group a linear array of its size. Every member computes the same shape.
patterns::MeshShape mesh_shape_of(const Comm& c);
// The same for a query: its members (CostQuery::members), or, when it names none, the
// topology's first p nodes.
patterns::MeshShape mesh_shape_of(const CostQuery& q);

}  // namespace vmc::internal
