// The mesh shape of a call's group (patterns/mesh_shape.hpp) from a Comm or a CostQuery, so
// that an algorithm's schedule and its cost formula see the same mesh.
#pragma once

#include "collectives/patterns/mesh_shape.hpp"
#include "collectives/registry.hpp"
#include "runtime/comm.hpp"

namespace vmc::internal {

// The group is the whole machine with rank r on node r: the topology's own shape; any other
// group a linear array of its size. Every member computes the same shape.
patterns::MeshShape mesh_shape_of(const Comm& c);
// What a cost function assumes: a query for all of the topology's nodes is the whole machine.
patterns::MeshShape mesh_shape_of(const CostQuery& q);

}  // namespace vmc::internal
