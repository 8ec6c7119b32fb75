// reduce reduce_scatter_gather: recursive halving reduce-scatter (distances 1, 2, 4, ... so
// every partial result covers contiguous ranks), then a gather of the p' blocks to the root
// along the same dimensions in reverse (000 §5, the second combine-to-root approach; 001
// "improved reduction" for m >> p). The vector is padded to p' blocks of c = ceil(n/p')
// items. A non-power-of-two p first folds its top 2(p - p') ranks pairwise (trees.hpp).
//
// Order: with a commutative op the virtual ranks are relative to the root (XOR for p = 2^d,
// so every exchange is a hypercube link); with a non-commutative op they are the comm ranks
// and the result is x0 op ... op x(p-1). If the root is a folded-away rank its pair partner
// gathers and forwards the n items.
//
// Requires: nothing.
// Cost, h_i = p' c / 2^i, d = log2 p', X(h) = T(h) (2 T(h) under `half`):
//   F + sum_{i=1..d} [X(h_i) + h_i gamma] + sum_{i=1..d} T(h_i) [+ T(n) if the root folded]
// with F = T(n) + n gamma when p is not a power of two. Exact for p = 2^d on every port
// model with direct routing and on a hypercube under wormhole. For other p it is a lower
// bound: the unfolded ranks finish their short first halving steps before the fold ends
// and their next, eager message can take the port of a rank still waiting for a folded
// partner, which delays that exchange (vmc's eager-send rule, runtime/simulator.cpp).
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

namespace {
trees::Rooted ranks_for(int p, int root, bool commutative) {
  return trees::Rooted(p, commutative ? root : 0);
}
}  // namespace

bool applicable_reduce_reduce_scatter_gather(const CostQuery&) { return true; }

Picos cost_reduce_reduce_scatter_gather(const CostQuery& q) {
  if (q.n == 0) return 0;
  const trees::Fold f(q.p);
  const trees::Rooted vr = ranks_for(q.p, q.root, q.commutative);
  const std::size_t blk = ceil_div(q.n, f.p2);
  Picos t = f.folded() ? trees::msg(q, q.n) + trees::comb(q, q.n) : 0;
  t += trees::halving_cost(q, f.p2, blk) + trees::mirror_gather_cost(q, f.p2, blk);
  if (f.extra(vr.to_virtual(q.root))) t += trees::msg(q, q.n);
  return t;
}

void run_reduce_reduce_scatter_gather(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const std::size_t n = call.n, isz = call.item_size;
  const trees::Fold f(c.size());
  const trees::Rooted vr = ranks_for(c.size(), call.root, call.op->commutative());
  const std::size_t blk = ceil_div(n, f.p2);
  auto buf = contribution(call, blk * f.p2);
  auto tmp = scratch(call, std::max(n, blk * f.p2 / 2));
  trees::fold_in(c, buf.data(), tmp.data(), n, isz, call.op, vr, f, call.tag);
  const int vroot = vr.to_virtual(call.root);
  const bool root_folded = f.extra(vroot);
  const int gatherer = root_folded ? f.pair_partner(vroot) : vroot;
  const int me = vr.to_virtual(c.rank());
  if (!f.extra(me)) {
    trees::reduce_scatter_halving(c, buf.data(), tmp.data(), blk, isz, *call.op, vr, f,
                                  call.tag + 1);
    trees::gather_mirror(c, buf.data(), blk, isz, f.survivor_rank(gatherer), vr, f,
                         call.tag + 2);
  }
  if (root_folded && me == gatherer) {
    send_message(c, buf.data(), n, isz, call.root, call.tag + 3);
  } else if (root_folded && me == vroot) {
    recv_message(c, buf.data(), n, isz, vr.to_real(gatherer), call.tag + 3);
  }
  if (c.rank() == call.root) deliver(call, buf);
}

namespace {
Claim claim_reduce_scatter_gather(const CostQuery& q) {
  using namespace internal;
  if (is_power_of_two(q.p)) return on_machine(q, Claim::exact, q.root == 0);
  return q.model.port == Port::half ? Claim::estimate : on_machine(q, Claim::lower_bound, false);
}
}  // namespace

Algorithm reduce_reduce_scatter_gather_row() {
  return {
      .name = "reduce_scatter_gather",
      .description = "recursive halving reduce-scatter, then gather to the root (000 §5, 001 "
                     "improved reduction)",
      .requirements = "nothing",
      .applicable = applicable_reduce_reduce_scatter_gather,
      .cost = cost_reduce_reduce_scatter_gather,
      .run = run_reduce_reduce_scatter_gather,
      .claim = claim_reduce_scatter_gather,
  };
}

}  // namespace vmc::internal
