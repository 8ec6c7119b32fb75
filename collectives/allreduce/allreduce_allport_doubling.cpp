// allreduce allport_doubling: 000 §7's all-port generalisation of Version 2 (recursive
// doubling): "at each stage, the vectors to be combined and communicated are partitioned
// into d equal parts, where one part is exchanged in each direction". The vector is cut
// into t = min(d, n) equal windows (patterns/allport.hpp); in step s window j is exchanged
// with the neighbour across dimension (j + s) mod d and combined, so after d steps every
// window has met every dimension once. Each step a node posts its t isends and t irecvs at
// once (one per link), waits for them, and combines, the lower rank's operand on the left,
// so partners compute the same expression and every node ends with the same bits.
//
// Requires: p a power of two and a commutative op (window j combines its subcubes in the
// order of its rotated dimensions).
// Cost with c = ceil(n / t), T = alpha + c beta: d (X + t c gamma), where X, the time of a
// step's t exchanges, is T under all-port: d alpha + d c beta + d t c gamma (about
// d alpha + n beta + d n gamma, against Version 2's d (alpha + n beta + n gamma)); exact on
// a whole hypercube and wherever links are private. Under the other port models the
// exchanges pass the port one partner at a time, X = t T (2 t T under half): a lower bound.
#include "collectives/allport/allport.hpp"
#include "collectives/primitives/blocks.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/p2p.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

namespace pa = patterns::allport;

bool applicable_allreduce_allport_doubling(const CostQuery& q) { return allport::applies_combining(q); }

Picos cost_allreduce_allport_doubling(const CostQuery& q) {
  const int d = allport::dimension(q.p);
  const pa::Windows w = allport::combining_windows(q.n, d);
  if (w.count == 0) return 0;
  const int t = static_cast<int>(w.count);
  return d * (allport::fan(q, t, t, true, q.units.message(w.size)) +
              trees::comb(q, w.count * w.size));
}

void run_allreduce_allport_doubling(const Call& call) {
  const Comm& c = *call.comm;
  const int d = allport::dimension(c.size());
  const pa::Windows w = allport::combining_windows(call.n, d);
  if (w.count == 0) return;
  const std::size_t isz = call.item_size;
  const int v = c.rank();

  Bytes parts = allport::pack_windows(contribution(call, call.n).data(), w, isz);
  Bytes incoming(parts.size());
  auto part = [&](Bytes& b, std::size_t j) { return at(b.data(), j * w.size, isz); };
  for (int s = 0; s < d; ++s) {
    Batch step(c);
    for (std::size_t j = 0; j < w.count; ++j) {
      const int u = v ^ (1 << pa::rotated_dimension(static_cast<int>(j), s, d));
      const Tag tag = call.tag + static_cast<Tag>(j);
      step.send(part(parts, j), w.size, isz, u, tag);
      step.recv(part(incoming, j), w.size, isz, u, tag);
    }
    step.wait();
    for (std::size_t j = 0; j < w.count; ++j) {
      const int u = v ^ (1 << pa::rotated_dimension(static_cast<int>(j), s, d));
      char* mine_j = part(parts, j);
      char* theirs = part(incoming, j);
      if (u > v) trees::combine(c, *call.op, mine_j, theirs, mine_j, w.size);
      else trees::combine(c, *call.op, theirs, mine_j, mine_j, w.size);
    }
  }
  allport::unpack_windows(parts.data(), w, isz, call.recv);
}

Algorithm allreduce_allport_doubling_row() {
  return {
      .name = "allport_doubling",
      .description = "recursive doubling of d windows over rotated dimensions, one per link at "
                     "once (000 §7 Version 2): d (alpha + c beta + d c gamma), c = ceil(n/d), "
                     "under --port all",
      .requirements = "p a power of two and a commutative op",
      .applicable = applicable_allreduce_allport_doubling,
      .cost = cost_allreduce_allport_doubling,
      .run = run_allreduce_allport_doubling,
      .claim = allport::claim,
  };
}

}  // namespace vmc::internal
