// broadcast mesh_dopl: 004 §6.2/§9 DOPL broadcast with one alternation (k_alt = 1). The
// vector is pipelined in pieces along the root's line of dimension 0, then from every node
// of it along its line of dimension 1, and so on (patterns/mesh_dopl.hpp): in each phase
// every line is a chain from the node with the root's coordinate, up the line and around,
// each node forwarding piece j to its successor while its predecessor sends piece j + 1.
//
// Pieces: 004 §9's k_i = sqrt((m_i - 2) n beta / (k_alt alpha)) per dimension (k_alt = 1),
// or Options::segment_items items each. 004's alternation of the dimension order between
// k_alt > 1 parts is not built (mesh_dopl.hpp says why).
//
// Requires: nothing (any p, root and n; a group that is not a whole mesh is one chain).
// Cost: 004 §9 at k_alt = 1, T_DOPL = sum_i (m_i - 1 + k_i - 1)(alpha + n/k_i beta); with
// pieces of s_i items (K_i = ceil(n/s_i) of them, the last T_l = T(n - (K_i - 1)s_i)) each
// line costs, as broadcast pipelined_chain, (m_i + K_i - 3) T(s_i) + T_l under duplex and
// all-port nodes, (2 K_i + m_i - 5) T(s_i) + 2 T_l under exchange and half (a node cannot
// take piece j+1 while it forwards piece j), and the phases add up: the members of a line
// other than its head are idle until its chain reaches them, and the last phase to end is
// the one headed by the previous phase's last node. Every line's messages stay on its own
// links (the wraparound runs against the chain), so: exact on private links and on the
// group's own mesh or torus under wormhole routing. 0 for n = 0.
#include <algorithm>

#include "collectives/broadcast/algorithms.hpp"
#include "collectives/internal/blocks.hpp"
#include "collectives/internal/claims.hpp"
#include "collectives/internal/combine_call.hpp"
#include "collectives/internal/mesh.hpp"
#include "collectives/internal/p2p.hpp"
#include "collectives/internal/trees.hpp"
#include "collectives/patterns/mesh_dopl.hpp"

namespace vmc::internal {

namespace {

std::size_t piece_items(const CostUnits& u, int m, std::size_t n, const Options& o) {
  if (o.segment_items > 0) return std::min(o.segment_items, n);
  return ceil_div(n, patterns::dopl_pieces(m, n, double(u.alpha), double(u.item_time()), 1));
}

// One line's pipelined chain of m nodes (see the header comment).
Picos chain_time(const CostQuery& q, int m, std::size_t n, std::size_t s) {
  if (m <= 1 || n == 0) return 0;
  const std::size_t k = ceil_div(n, s);
  const Picos t = trees::msg(q, s), last = trees::msg(q, n - (k - 1) * s);
  const Picos pieces = static_cast<Picos>(k);
  if (m == 2) return (pieces - 1) * t + last;
  if (one_partner_ports(q)) return (2 * pieces + m - 5) * t + 2 * last;
  return (m + pieces - 3) * t + last;
}

}  // namespace

bool applicable_broadcast_mesh_dopl(const CostQuery&) { return true; }

Picos cost_broadcast_mesh_dopl(const CostQuery& q) {
  if (q.n == 0) return 0;
  const patterns::MeshShape shape = mesh_shape_of(q);
  Picos t = 0;
  for (int m : shape.lengths) t += chain_time(q, m, q.n, piece_items(q.units, m, q.n, q.options));
  return t;
}

void run_broadcast_mesh_dopl(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const patterns::MeshShape shape = mesh_shape_of(c);
  const std::size_t isz = call.item_size;
  for (int dim = 0; dim < shape.dimensions(); ++dim) {
    const patterns::DoplChain chain = patterns::dopl_chain(shape, call.root, dim, c.rank());
    if (!chain.active) continue;
    const std::size_t s = piece_items(c.units(), shape.lengths[dim], call.n, *call.options);
    for (std::size_t first = 0; first < call.n; first += s) {
      char* piece = at(call.recv, first, isz);
      const std::size_t len = std::min(s, call.n - first);
      if (chain.prev >= 0) recv_message(c, piece, len, isz, chain.prev, call.tag);
      if (chain.next >= 0) send_message(c, piece, len, isz, chain.next, call.tag);
    }
  }
}

Claim claim_broadcast_mesh_dopl(const CostQuery& q) { return on_own_mesh(q, Claim::exact); }

}  // namespace vmc::internal
