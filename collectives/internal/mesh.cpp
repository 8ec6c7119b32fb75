// The mesh shape of a call's group (mesh.hpp).
#include "collectives/internal/mesh.hpp"

namespace vmc::internal {

patterns::MeshShape mesh_shape_of(const Comm& c) {
  const int p = c.size();
  bool identity = p == c.topology().nodes();
  for (int r = 0; identity && r < p; ++r) identity = c.world_rank(r) == r;
  return patterns::mesh_shape(&c.topology(), p, identity);
}

patterns::MeshShape mesh_shape_of(const CostQuery& q) {
  return patterns::mesh_shape(q.topology, q.p, true);
}

}  // namespace vmc::internal
