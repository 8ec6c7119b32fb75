// allreduce recursive_halving_doubling: recursive halving reduce-scatter (each step
// exchanges and combines half of the current segment, distances 1, 2, 4, ...), then the
// mirror recursive doubling allgather (distances ..., 2, 1) (000 §3.3 Version 3; 001
// "improved all-reduce" for m >> p). The vector is padded to p' blocks of c = ceil(n/p')
// items; a non-power-of-two p folds its top 2(p - p') ranks pairwise first and sends them
// the result at the end.
//
// Order: distances grow from 1, so every partial covers contiguous ranks and the lower
// rank's partial is the left operand: non-commutative ops give x0 op ... op x(p-1). Each
// block is combined on one node only, so the result is bitwise identical everywhere.
//
// Requires: nothing.
// Cost, h_i = p' c / 2^i, d = log2 p', X(h) = T(h) (2 T(h) under `half`):
//   F + sum_{i=1..d} [2 X(h_i) + h_i gamma] + U
// F = T(n) + n gamma, U = T(n) when p is not a power of two. For p = 2^d and p | n:
// 2 d alpha + 2 (p-1)/p n beta + (p-1)/p n gamma (000 Version 3). Exact for p = 2^d on
// every port model (direct routing; hypercube wormhole). For other p a lower bound: the
// unfolded ranks run ahead through their short halving steps and an eager message of
// theirs can take the port of a rank still waiting for its folded partner.
#include "collectives/costs/claims.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

bool applicable_allreduce_recursive_halving_doubling(const CostQuery&) { return true; }

Picos cost_allreduce_recursive_halving_doubling(const CostQuery& q) {
  if (q.n == 0) return 0;
  const trees::Fold f(q.p);
  const std::size_t blk = ceil_div(q.n, f.p2);
  const Picos fold = f.folded() ? 2 * trees::msg(q, q.n) + trees::comb(q, q.n) : 0;
  return fold + trees::halving_cost(q, f.p2, blk) + trees::mirror_allgather_cost(q, f.p2, blk);
}

void run_allreduce_recursive_halving_doubling(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const std::size_t n = call.n, isz = call.item_size;
  const trees::Rooted vr(c.size(), 0);
  const trees::Fold f(c.size());
  const std::size_t blk = ceil_div(n, f.p2);
  if (!f.folded() && f.p2 > 1 && blk * f.p2 == n) {
    // The output holds the vector as the blocks divide it (p a power of two dividing n):
    // work there, reading the input in the first step, with no copy in or out.
    auto* out = static_cast<char*>(call.recv);
    auto tmp = scratch(call, n / 2);
    trees::reduce_scatter_halving(c, out, tmp.data(), blk, isz, *call.op, vr, f, call.tag + 1,
                                  call.send != nullptr ? call.send : out);
    trees::allgather_mirror(c, out, blk, isz, vr, f, call.tag + 2);
    return;
  }
  auto buf = contribution(call, blk * f.p2);
  auto tmp = scratch(call, std::max(n, blk * f.p2 / 2));
  trees::fold_in(c, buf.data(), tmp.data(), n, isz, call.op, vr, f, call.tag);
  if (!f.extra(c.rank())) {
    trees::reduce_scatter_halving(c, buf.data(), tmp.data(), blk, isz, *call.op, vr, f,
                                  call.tag + 1);
    trees::allgather_mirror(c, buf.data(), blk, isz, vr, f, call.tag + 2);
  }
  trees::fold_out(c, buf.data(), n, isz, vr, f, call.tag + 3);
  deliver(call, buf);
}

namespace {
Claim claim_recursive_halving_doubling(const CostQuery& q) {
  using namespace internal;
  if (is_power_of_two(q.p)) return on_machine(q, Claim::exact, true);
  return q.model.port == Port::half ? Claim::estimate : on_machine(q, Claim::lower_bound, true);
}
}  // namespace

Algorithm allreduce_recursive_halving_doubling_row() {
  return {
      .name = "recursive_halving_doubling",
      .description = "recursive halving reduce-scatter, then recursive doubling allgather (000 "
                     "Version 3)",
      .requirements = "nothing",
      .applicable = applicable_allreduce_recursive_halving_doubling,
      .cost = cost_allreduce_recursive_halving_doubling,
      .run = run_allreduce_recursive_halving_doubling,
      .claim = claim_recursive_halving_doubling,
  };
}

}  // namespace vmc::internal
