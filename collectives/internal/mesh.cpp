// The mesh shape of a call's group (mesh.hpp).
#include "collectives/internal/mesh.hpp"

namespace vmc::internal {

patterns::MeshShape mesh_shape_of(const Comm& c) {
  if (c.whole_machine()) return patterns::mesh_shape(&c.topology(), c.size(), true);
  return patterns::mesh_shape(&c.topology(), c.size(), c.members());
}

patterns::MeshShape mesh_shape_of(const CostQuery& q) {
  return patterns::mesh_shape(q.topology, q.p, q.members);
}

}  // namespace vmc::internal
