// reduce_scatter mesh_dr: 004 §10 DR distributed reduction on the dimensional rings of §6.1
// (004 Fig. 5(b)). The nodes of each dimension of the group's mesh (primitives/group_mesh.hpp) form
// a ring, closed by a logical wraparound where the mesh has none, and reduce highest
// dimension first: in the phase of dimension i the ring reduce-scatters, in m_i - 1 steps,
// the chunks of the ranks that agree with one ring member in dimensions >= i (each one
// contiguous range of m_0 ... m_{i-1} blocks), passing a partial chunk to the right and
// combining the one from the left into its own. 001's "All-to-all reduction" on a mesh (the
// all-to-all broadcast's rows-then-columns reversed) is this schedule on a 2-D mesh.
//
// Requires: a commutative op (a ring combines each chunk starting after its owner).
// Cost, b = the largest block (equal blocks: 004's sum (m_i - 1) alpha + (p-1)/p n (beta +
// gamma), n = p b), phase i moving chunks of c_i = b m_0 ... m_{i-1} items:
//   duplex, all:     sum_i (m_i - 1) (T(c_i) + c_i gamma)
//                    = sum_i (m_i - 1) alpha + (p - 1) b (beta + gamma).
//   exchange, half:  as allgather_mesh_dr: T(c_i) (2 T under half) for rings of two, 2 T(c_i)
//                    per step for longer rings, plus c_i gamma.
// Claims as allgather_mesh_dr: exact for equal blocks under duplex and all ports on the
// group's own mesh (no shared link) and on private links.
#include "collectives/mesh/rings.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/reduce_scatter/reduce_scatter_internal.hpp"

namespace vmc::internal {

namespace {
void reduce_scatter_mesh_dr(const Comm& comm, void* buf, std::size_t item_size,
                            const Blocks& blocks, const Op& op, Tag tag) {
  const patterns::MeshShape shape = mesh_shape_of(comm);
  dr_reduce_scatter(comm, shape, 0, shape.dimensions(), buf, item_size, blocks, op, tag);
}
}  // namespace

void run_reduce_scatter_mesh_dr(const Call& call) {
  run_reduce_scatter(call, reduce_scatter_mesh_dr);
}

Picos cost_reduce_scatter_mesh_dr(const CostQuery& q) {
  const patterns::MeshShape shape = mesh_shape_of(q);
  return dr_reduce_scatter_cost(q, shape, 0, shape.dimensions(), counts_of(q));
}

Algorithm reduce_scatter_mesh_dr_row() {
  return {
      .name = "mesh_dr",
      .description = "dimensional rings: a ring in each dimension of the mesh, highest first (004 "
                     "§10 DR distributed reduction; 001 mesh all-to-all reduction)",
      .requirements = "a commutative op",
      .applicable = applies_commutative,
      .cost = cost_reduce_scatter_mesh_dr,
      .run = run_reduce_scatter_mesh_dr,
      .claim = dr_claim,
  };
}

}  // namespace vmc::internal
