// alltoall mesh_direct: 004 §13's direct send: every node sends each other node its block
// directly, p - 1 steps. Step k moves every node by the shift whose mesh coordinates are
// those of rank k (each mod m_i; patterns::shift_destination): it sends to x + k and
// receives from x - k in one sendrecv, so every node sends and receives once per step and
// the messages of a step cross each dimension by one shift. On a whole hypercube (a 2 x ...
// x 2 mesh) step k is the exchange with rank XOR k. alltoallv too: every node sends and
// receives only its own blocks.
//
// Requires: nothing.
// Cost, blocks of n items (alltoallv: the largest of the caller's counts, an estimate), step
// k with c_k = max_i min(k_i, m_i - k_i) messages on the busiest link of the group's own mesh
// under shared contention (a shift by k_i on a line of m_i: patterns::shift_sharers), else 1:
//   duplex, all:     sum_k (alpha + n max(beta, c_k beta_net))
//   exchange, half:  a step whose shift is its own inverse (2 k_i = 0 mod m_i) is one
//                    exchange (two messages under half), any other two rounds: an estimate.
// 004 writes (p-1) alpha + sum_i N/(2p) max(beta_node, ceil(m_i/2) beta_net) "approximately"
// (N = p^2 n in vmc's count); this is the schedule's own sum (docs/004-formulas.md judges
// the runs by it, 004's approximation beside), exact under duplex and all
// ports where no step shares a link (private links; the group's own mesh when every m_i <= 3,
// a whole hypercube) and under shared contention on the group's own mesh (004's model), a
// lower bound under exclusive contention there. Shared: the shift by k_i on a line of m_i
// sends m_i - k_i messages k_i hops one way and k_i messages m_i - k_i hops the other, and
// every one of them crosses a link that min(k_i, m_i - k_i) of them cross (the link before
// the first one's end, or after the last one's start, whichever way it runs), so every
// message of step k runs at max(beta, c_k beta_net) from start to end, all start together
// and all end together: the steps stay in lockstep, and the sum is the run (run against
// predicted_s on 27 meshes and tori, n = 1, 7, 1000, beta_net from beta/4 to 1.5 beta,
// duplex and all ports, eager and rendezvous; docs/004-formulas.md's 45 cases).
#include "collectives/alltoall/alltoall_internal.hpp"
#include "collectives/mesh/rings.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/primitives/p2p.hpp"

namespace vmc::internal {

namespace {
bool self_inverse(const patterns::MeshShape& shape, int k) {
  return patterns::shift_destination(shape, patterns::shift_destination(shape, 0, k), k) == 0;
}
// The busiest link of step k on q's machine, as far as the cost counts it.
int sharers(const CostQuery& q, const patterns::MeshShape& shape, int k) {
  const bool counted = q.model.contention == Contention::shared && own_mesh(q);
  return counted ? patterns::shift_sharers(shape, k) : 1;
}
}  // namespace

void run_alltoall_mesh_direct(const Call& call) {
  const Comm& comm = *call.comm;
  const Blocks sb = alltoall_send_layout(call), rb = alltoall_recv_layout(call);
  const std::size_t isz = call.item_size;
  const patterns::MeshShape shape = mesh_shape_of(comm);
  const int p = comm.size(), r = comm.rank();
  copy_items(at(call.recv, rb.displs[r], isz), at(call.send, sb.displs[r], isz),
             std::min(sb.counts[r], rb.counts[r]), isz);
  for (int k = 1; k < p; ++k) {
    const int dst = patterns::shift_destination(shape, r, k);
    const int src = patterns::shift_source(shape, r, k);
    sendrecv_items(comm, at(call.send, sb.displs[dst], isz), sb.counts[dst], dst,
                   at(call.recv, rb.displs[src], isz), rb.counts[src], src, isz, call.tag);
  }
}

Picos cost_alltoall_mesh_direct(const CostQuery& q) {
  const patterns::MeshShape shape = mesh_shape_of(q);
  std::size_t n = q.n;
  for (std::size_t c : q.counts) n = std::max(n, c);
  Picos cost = 0;
  for (int k = 1; k < q.p; ++k) {
    const int radix = self_inverse(shape, k) ? 2 : 3;  // one partner, or two
    cost = checked_add(cost, ring_step_time(q, radix, n, n, sharers(q, shape, k)),
                       "alltoall time");
  }
  return cost;
}

Claim claim_alltoall_mesh_direct(const CostQuery& q) {
  if (!equal_counts(q)) return Claim::estimate;
  const Claim ideal = two_sided_ports(q) ? Claim::exact : Claim::estimate;
  if (links_private(q) || !own_mesh(q)) return on_machine(q, ideal, false);
  const patterns::MeshShape shape = mesh_shape_of(q);
  bool contention_free = true;
  for (int k = 1; k < q.p && contention_free; ++k) {
    contention_free = patterns::shift_sharers(shape, k) == 1;
  }
  // Shared: every message of a step meets its step's c_k (the header), so the steps stay in
  // lockstep as on links no one shares.
  if (contention_free || q.model.contention == Contention::shared) {
    return on_own_mesh(q, ideal);
  }
  return on_machine(q, ideal, false);
}

Algorithm alltoall_mesh_direct_row() {
  return {
      .name = "mesh_direct",
      .description = "direct send: p-1 shifts of the mesh coordinates (004 §13)",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_alltoall_mesh_direct,
      .run = run_alltoall_mesh_direct,
      .claim = claim_alltoall_mesh_direct,
  };
}

}  // namespace vmc::internal
