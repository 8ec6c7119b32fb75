// allgather mesh_dr: 004 §8 DR collect on the dimensional rings of §6.1. The nodes of each
// dimension of the group's mesh (primitives/group_mesh.hpp: the machine's own mesh, torus or
// hypercube as 2 x ... x 2 when the group is the whole machine, else a linear array of p)
// form a ring, closed by a logical wraparound where the mesh has no wraparound link, and
// circulate their pieces, lowest dimension first: in the phase of dimension i a node passes
// its right neighbour the blocks of the m_0 ... m_{i-1} ranks whose dimensions >= i agree
// with one ring member (one contiguous range of ranks), m_i - 1 times (004 Fig. 5(a)).
// 001's "All-to-all broadcast" mesh algorithm (the ring on every row, then on every column)
// is this schedule on a 2-D mesh, so it has no row of its own.
//
// Requires: nothing (any p, any counts; a group of one node does nothing).
// Cost, b = the largest block (equal blocks of b: 004's sum (m_i - 1) alpha + (p-1)/p n beta
// with n = p b), phase i moving chunks of c_i = b m_0 ... m_{i-1} items:
//   duplex, all:     sum_i (m_i - 1) T(c_i) = sum_i (m_i - 1) alpha + (p - 1) b beta.
//   exchange, half:  a ring of two is one exchange, T(c_i) (2 T(c_i) under half); a longer
//                    ring 2 T(c_i) per step (a node's send and receive take turns).
// Exact for equal blocks under duplex and all ports (every port model when every m_i = 2) on
// the group's own mesh under wormhole routing, where no two messages of a step share a
// directed link (tests/collectives/mesh_rings_test.cpp), and on private links; a lower bound
// for longer rings under exchange and half; an estimate for unequal blocks (allgatherv),
// costed at each phase's largest chunk.
#include "collectives/allgather/allgather_internal.hpp"
#include "collectives/mesh/rings.hpp"
#include "collectives/primitives/group_mesh.hpp"

namespace vmc::internal {

void run_allgather_mesh_dr(const Call& call) {
  const patterns::MeshShape shape = mesh_shape_of(*call.comm);
  dr_collect(*call.comm, shape, 0, shape.dimensions(), call.recv, call.item_size,
             prepare_allgather(call), call.tag);
}

Picos cost_allgather_mesh_dr(const CostQuery& q) {
  const patterns::MeshShape shape = mesh_shape_of(q);
  return dr_collect_cost(q, shape, 0, shape.dimensions(), counts_of(q));
}

Algorithm allgather_mesh_dr_row() {
  return {
      .name = "mesh_dr",
      .description = "dimensional rings: a ring in each dimension of the mesh, lowest first (004 "
                     "§8 DR collect; 001 mesh rows then columns)",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_allgather_mesh_dr,
      .run = run_allgather_mesh_dr,
      .claim = dr_claim,
  };
}

}  // namespace vmc::internal
