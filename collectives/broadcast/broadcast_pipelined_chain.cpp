// broadcast pipelined_chain: the nodes form a chain in virtual-rank order (rank - root) mod p
// (on a ring topology every link of the chain is a ring link); the vector is cut into
// segments of s items and every node forwards segment j to its successor while its
// predecessor already sends segment j + 1 (004 §6 pipelined broadcast, the one-dimensional
// case of DOPL; 001 "improved broadcast" for m >> p).
//
// Segment size: Options::segment_items, or when 0 the sqrt rule that minimises the cost
// below: s = sqrt(n alpha / (k beta)) with k = p - 2 (duplex, all) or (p - 3) / 2
// (exchange, half), clamped to [1, n]; s = n when p <= 3 or beta = 0.
//
// Requires: nothing (any p, root, n).
// Cost, with m = ceil(n/s) segments, T = T(s), T_l = T(n - (m-1)s) the last segment:
//   duplex, all:     (p + m - 3) T + T_l                    (p >= 2)
//   exchange, half:  (2m + p - 5) T + 2 T_l                 (p >= 3; a node cannot receive
//                    segment j+1 while it forwards segment j, so segments leave every 2T)
//                    (m - 1) T + T_l                         (p = 2)
// exact on direct routing, and under wormhole on a ring or array topology.
#include <cmath>

#include "collectives/costs/claims.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

namespace {

bool one_port(Port port) { return port == Port::exchange || port == Port::half; }

std::size_t segment_items(const CostUnits& u, Port port, int p, std::size_t n,
                          const Options& o) {
  if (o.segment_items > 0) return std::min(o.segment_items, n);
  const double k = one_port(port) ? (p - 3) / 2.0 : p - 2.0;
  if (k <= 0 || u.beta == 0) return n;
  const double s = std::sqrt(static_cast<double>(n) * static_cast<double>(u.alpha) /
                             (k * static_cast<double>(u.beta)));
  const double clamped = std::min(static_cast<double>(n), std::max(1.0, std::round(s)));
  return static_cast<std::size_t>(clamped);
}

}  // namespace

bool applicable_broadcast_pipelined_chain(const CostQuery&) { return true; }

Picos cost_broadcast_pipelined_chain(const CostQuery& q) {
  if (q.n == 0 || q.p == 1) return 0;
  const std::size_t s = segment_items(q.units, q.model.port, q.p, q.n, q.options);
  const std::size_t m = ceil_div(q.n, s);
  const Picos t = trees::msg(q, s), tl = trees::msg(q, q.n - (m - 1) * s);
  const Picos segs = static_cast<Picos>(m);
  if (q.p == 2) return (segs - 1) * t + tl;
  if (one_port(q.model.port)) return (2 * segs + q.p - 5) * t + 2 * tl;
  return (q.p + segs - 3) * t + tl;
}

void run_broadcast_pipelined_chain(const Call& call) {
  const Comm& c = *call.comm;
  const int p = c.size();
  if (call.n == 0 || p == 1) return;
  const std::size_t s = segment_items(c.units(), c.model().port, p, call.n, *call.options);
  const int v = (c.rank() - call.root + p) % p;
  const int prev = (c.rank() - 1 + p) % p, next = (c.rank() + 1) % p;
  char* data = static_cast<char*>(call.recv);
  for (std::size_t first = 0; first < call.n; first += s) {
    const std::size_t len = std::min(s, call.n - first);
    char* seg = data + first * call.item_size;
    if (v > 0) recv_message(c, seg, len, call.item_size, prev, call.tag);
    if (v < p - 1) send_message(c, seg, len, call.item_size, next, call.tag);
  }
}

namespace {
Claim claim_broadcast_pipelined_chain(const CostQuery& q) {
  return internal::on_machine(q, Claim::exact, false);
}
}  // namespace

Algorithm broadcast_pipelined_chain_row() {
  return {
      .name = "pipelined_chain",
      .description = "segments pipelined down a chain of virtual ranks (004 §6); segment_items or "
                     "the sqrt rule",
      .requirements = "nothing",
      .applicable = applicable_broadcast_pipelined_chain,
      .cost = cost_broadcast_pipelined_chain,
      .run = run_broadcast_pipelined_chain,
      .claim = claim_broadcast_pipelined_chain,
  };
}

}  // namespace vmc::internal
