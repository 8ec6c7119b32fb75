// reduce allport_binomial: the all-port broadcast allport_binomial reversed (000 §7). The
// vector is cut into t = min(d, n) equal windows and window j is reduced up the rotated
// binomial tree j (patterns/allport.hpp), steps d-1 .. 0: in step s the nodes tree j
// reached in its broadcast step s send their partial window across dimension (j + s) mod d
// and the partner combines it into its own. A node posts the step's isends and irecvs of all
// its trees at once, waits for them, then combines what it received. Virtual ranks are rank
// XOR root.
//
// Requires: p a power of two and a commutative op (a tree combines its subcubes in the
// order of its rotated dimensions, not in rank order).
// Cost: with c = ceil(n / t), T = alpha + c beta, G = c gamma, the replay of the steps by
// StepClocks (allport/allport.hpp): a node's step ends when its messages have arrived,
// then it combines the windows it received, G each; the root receives and combines t windows
// in every step. Without combine cost: d T = d alpha + d ceil(n/d) beta (about
// d alpha + n beta, against the binomial's d (alpha + n beta + n gamma)); with it at most
// d (T + t G). All-port: exact on a whole hypercube and wherever links are private;
// otherwise (a node's sends of a step also pass its out-port one after another) a lower
// bound.
#include "collectives/allport/allport.hpp"
#include "collectives/primitives/blocks.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/p2p.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

namespace pa = patterns::allport;

bool applicable_reduce_allport_binomial(const CostQuery& q) { return allport::applies_combining(q); }

Picos cost_reduce_allport_binomial(const CostQuery& q) {
  const int d = allport::dimension(q.p);
  const pa::Windows w = allport::combining_windows(q.n, d);
  if (w.count == 0) return 0;
  allport::StepClocks clocks(q, q.p);
  for (int s = d - 1; s >= 0; --s) {
    for (int v = 0; v < q.p; ++v) {
      for (int j = 0; j < static_cast<int>(w.count); ++j) {
        const int u = v ^ (1 << pa::rotated_dimension(j, s, d));
        if (!pa::rotated_holds(v, j, s, d) && pa::rotated_holds(v, j, s + 1, d)) {
          clocks.message(v, u, w.size);
          clocks.combine(u, w.size);
        }
      }
    }
    clocks.end_step();
  }
  return clocks.finish();
}

void run_reduce_allport_binomial(const Call& call) {
  const Comm& c = *call.comm;
  const int d = allport::dimension(c.size());
  const pa::Windows w = allport::combining_windows(call.n, d);
  if (w.count == 0) return;
  const std::size_t isz = call.item_size;
  const trees::Rooted vr(c.size(), call.root);
  const int v = vr.to_virtual(c.rank());

  // parts[j]: this node's partial of window j; incoming[j]: a child's, to combine.
  Bytes parts = allport::pack_windows(contribution(call, call.n).data(), w, isz);
  Bytes incoming(parts.size());
  auto part = [&](Bytes& b, std::size_t j) { return at(b.data(), j * w.size, isz); };
  for (int s = d - 1; s >= 0; --s) {
    Batch step(c);
    std::vector<std::size_t> combining;
    for (std::size_t j = 0; j < w.count; ++j) {
      const int tree = static_cast<int>(j);
      const int u = v ^ (1 << pa::rotated_dimension(tree, s, d));
      const Tag tag = call.tag + static_cast<Tag>(j);
      if (pa::rotated_holds(v, tree, s, d)) {
        step.recv(part(incoming, j), w.size, isz, vr.to_real(u), tag);
        combining.push_back(j);
      } else if (pa::rotated_holds(v, tree, s + 1, d)) {
        step.send(part(parts, j), w.size, isz, vr.to_real(u), tag);
      }
    }
    step.wait();
    for (std::size_t j : combining) {
      trees::combine(c, *call.op, part(parts, j), part(incoming, j), part(parts, j), w.size);
    }
  }
  if (v == 0) {
    allport::unpack_windows(parts.data(), w, isz, call.recv);
  }
}

Algorithm reduce_allport_binomial_row() {
  return {
      .name = "allport_binomial",
      .description = "d windows, each up a binomial tree of rotated dimensions, all links at once "
                     "(000 §7)",
      .requirements = "p a power of two and a commutative op",
      .applicable = applicable_reduce_allport_binomial,
      .cost = cost_reduce_allport_binomial,
      .run = run_reduce_allport_binomial,
      .claim = allport::claim,
  };
}

}  // namespace vmc::internal
