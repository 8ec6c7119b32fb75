// broadcast allport_binomial: 000 §7's all-port generalisation. The vector is cut into
// t = min(d, n) equal windows (patterns/allport.hpp) and window j goes down the rotated
// binomial tree j, whose step s crosses dimension (j + s) mod d. In step s every node that
// holds window j sends it across that dimension, with isend, for all its trees at once; at
// one step the trees cross different dimensions, so each node uses each of its d links at
// most once per direction. Virtual ranks are rank XOR root (003 Alg. 4.2), so every message
// goes between hypercube neighbours.
//
// Requires: p a power of two (any root, any n).
// Cost with c = ceil(n / t), T = alpha + c beta (0 for n = 0 or p = 1):
//   all-port:  d T = d alpha + d ceil(n/d) beta  (about d alpha + n beta for n >= d, against
//              the single-port binomial's d (alpha + n beta)); exact on a whole hypercube
//              and wherever links are private.
//   otherwise: the root's t messages of a step pass its port one at a time: d t T, a lower
//              bound.
#include "collectives/allport/allport.hpp"
#include "collectives/primitives/blocks.hpp"
#include "collectives/primitives/p2p.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

namespace pa = patterns::allport;

bool applicable_broadcast_allport_binomial(const CostQuery& q) { return allport::applies(q); }

Picos cost_broadcast_allport_binomial(const CostQuery& q) {
  const int d = allport::dimension(q.p);
  const pa::Windows w = pa::windows(q.n, d);
  if (w.count == 0) return 0;
  return d * allport::fan(q, static_cast<int>(w.count), 0, false, q.units.message(w.size));
}

void run_broadcast_allport_binomial(const Call& call) {
  const Comm& c = *call.comm;
  const int d = allport::dimension(c.size());
  const pa::Windows w = pa::windows(call.n, d);
  if (w.count == 0) return;
  const std::size_t isz = call.item_size;
  const trees::Rooted vr(c.size(), call.root);
  const int v = vr.to_virtual(c.rank());
  // Window j is sent from its place in the root's vector, and received into the others'
  // (allport::WindowPlaces: the last windows, which overlap, through scratch).
  allport::WindowPlaces places(v == 0 ? pa::Windows{} : w, isz, call.recv);
  auto part = [&](std::size_t j) { return v == 0 ? at(call.recv, w.start(j), isz) : places(j); };
  for (int s = 0; s < d; ++s) {
    Batch step(c);
    for (std::size_t j = 0; j < w.count; ++j) {
      const int tree = static_cast<int>(j);
      const int u = v ^ (1 << pa::rotated_dimension(tree, s, d));
      const Tag tag = call.tag + static_cast<Tag>(j);
      if (pa::rotated_holds(v, tree, s, d)) {
        step.send(part(j), w.size, isz, vr.to_real(u), tag);
      } else if (pa::rotated_holds(u, tree, s, d)) {
        step.recv(part(j), w.size, isz, vr.to_real(u), tag);
      }
    }
    step.wait();
  }
  if (v != 0) places.finish();
}

Algorithm broadcast_allport_binomial_row() {
  return {
      .name = "allport_binomial",
      .description = "d windows, each down a binomial tree of rotated dimensions, all links at "
                     "once (000 §7): d (alpha + ceil(n/d) beta) under --port all",
      .requirements = "p a power of two",
      .applicable = applicable_broadcast_allport_binomial,
      .cost = cost_broadcast_allport_binomial,
      .run = run_broadcast_allport_binomial,
      .claim = allport::claim,
  };
}

}  // namespace vmc::internal
