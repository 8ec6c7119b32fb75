// reduce binomial: a binomial tree on virtual ranks with the root as virtual rank 0; a node
// receives the partial results of its subtrees (smallest first), combines each after its
// own, and sends the result to its parent (003 §4.1 Alg. 4.3, the broadcast reversed).
// A non-power-of-two p first folds the top 2(p - p') virtual ranks pairwise (trees.hpp), so
// the p' = 2^floor(log p) survivors run a complete tree and no message ever waits for a busy
// receiver.
//
// Order: subtrees cover contiguous virtual ranks, so with virtual = comm ranks the result is
// x0 op x1 op ... op x(p-1). For a non-commutative op and root != 0 the tree is rooted at
// rank 0 and rank 0 forwards the result to the root (one more message).
//
// Requires: nothing.
// Cost: F + log2(p')(T + n gamma) [+ T when non-commutative and root != 0], where
// T = alpha + n beta and F = T + n gamma when p is not a power of two (else 0); that is
// ceil(log2 p)(T + n gamma), 003 (ts + tw m) log p plus the combines. Exact on every port
// model with direct routing and on a hypercube under wormhole for p = 2^d.
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/reduce/reduce_internal.hpp"

namespace vmc::internal {

namespace {
bool forward_to_root(const CostQuery& q) { return !q.commutative && q.root != 0; }
}  // namespace

// The binomial reduction of `acc` (n items, overwritten) to virtual rank 0 of `vr`.
// Shared with allreduce reduce_broadcast and barrier tree. Tags: tag, tag + 1.
void reduce_binomial_to(const Comm& c, void* acc, std::size_t n, std::size_t isz, const Op* op,
                        const trees::Rooted& vr, Tag tag) {
  const trees::Fold f(vr.p);
  Bytes tmp(n * isz);
  trees::fold_in(c, acc, tmp.data(), n, isz, op, vr, f, tag);
  if (f.extra(vr.to_virtual(c.rank()))) return;
  trees::reduce_pow2(c, acc, tmp.data(), n, isz, op, vr, f, tag + 1);
}

Picos reduce_binomial_to_cost(const CostQuery& q, int p, std::size_t n) {
  const trees::Fold f(p);
  const Picos step = trees::msg(q, n) + trees::comb(q, n);
  return (f.folded() ? step : 0) + f.log2() * step;
}

bool applicable_reduce_binomial(const CostQuery&) { return true; }

Picos cost_reduce_binomial(const CostQuery& q) {
  if (q.n == 0) return 0;
  return reduce_binomial_to_cost(q, q.p, q.n) + (forward_to_root(q) ? trees::msg(q, q.n) : 0);
}

void run_reduce_binomial(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const bool forward = !call.op->commutative() && call.root != 0;
  const int tree_root = forward ? 0 : call.root;
  auto acc = contribution(call, call.n);
  reduce_binomial_to(c, acc.data(), call.n, call.item_size, call.op,
                     trees::Rooted(c.size(), tree_root), call.tag);
  if (forward && c.rank() == 0) {
    send_message(c, acc.data(), call.n, call.item_size, call.root, call.tag + 2);
  } else if (forward && c.rank() == call.root) {
    recv_message(c, acc.data(), call.n, call.item_size, 0, call.tag + 2);
  }
  if (c.rank() == call.root) deliver(call, acc);
}

Algorithm reduce_binomial_row() {
  return {
      .name = "binomial",
      .description = "binomial tree on virtual ranks (003 Alg. 4.3), non-powers of two folded "
                     "pairwise: ceil(log p)(alpha + n beta + n gamma)",
      .requirements = "nothing",
      .applicable = applicable_reduce_binomial,
      .cost = cost_reduce_binomial,
      .run = run_reduce_binomial,
      .claim = binomial_tree_claim,
  };
}

}  // namespace vmc::internal
