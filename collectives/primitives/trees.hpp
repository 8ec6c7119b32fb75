// Building blocks of the tree- and hypercube-structured combine algorithms (broadcast,
// reduce, allreduce, scan, barrier) on byte buffers of `isz`-byte items.
//
// Conventions shared by every function here:
// - Ranks are virtual ranks v relative to a root (Rooted), mapped back to comm ranks only
//   at the send/receive calls.
// - A non-power-of-two p is folded onto p2 = floor_pow2(p) ranks (Fold): the top 2(p-p2)
//   virtual ranks pair up, the upper of each pair hands its data to the lower one, which
//   survives. Survivors keep rank order, so combining in the folded ranks still gives
//   x0 op x1 op ... op x(p-1) (001 "non-power-of-two" fix, done order-preserving). Putting
//   the pairs at the top keeps the later-finishing subtrees on the high side of every
//   binomial step, so no eager message ever queues for a busy receiver: the times below
//   are exact on contention-free networks.
// - Every message is sent, even an empty one (it still costs a startup), so the cost
//   functions count messages without looking at the data.
// - Every combine of k items calls comm.charge_combine(k) where it happens.
#pragma once

#include <cstddef>
#include <vector>

#include "collectives/op.hpp"
#include "collectives/patterns/binomial.hpp"
#include "collectives/primitives/p2p.hpp"
#include "collectives/vocabulary/row.hpp"
#include "runtime/comm.hpp"

namespace vmc::internal::trees {

// Virtual ranks relative to a root (patterns/binomial.hpp).
using patterns::Rooted;

// Fold of p virtual ranks onto p2 = floor_pow2(p) survivors (see the header comment).
struct Fold {
  int p = 1, p2 = 1, base = 1;  // pairs are (base + 2i, base + 2i + 1)
  explicit Fold(int p_);
  bool folded() const { return p2 != p; }
  bool in_pair(int v) const { return v >= base; }
  bool extra(int v) const { return v >= base && ((v - base) & 1) != 0; }  // hands off
  int pair_partner(int v) const { return base + ((v - base) ^ 1); }
  int survivor_rank(int v) const { return v < base ? v : base + (v - base) / 2; }
  int virtual_of(int j) const { return j < base ? j : base + 2 * (j - base); }
  int log2() const;  // log2(p2)
};

// --- costs -------------------------------------------------------------------------------
inline Picos msg(const CostQuery& q, std::size_t items) { return q.units.message(items); }
inline Picos comb(const CostQuery& q, std::size_t items) { return q.units.combine(items); }
// One exchange with one partner (sendrecv): both directions at once, except under the
// `half` port model where the two messages follow each other.
Picos exchange(const CostQuery& q, std::size_t out, std::size_t in);
// One ring step: send to one neighbour while receiving from the other. Exact under duplex
// and all; under exchange and half the two transfers cannot overlap and this returns the
// serialised estimate T(out) + T(in) (a lower bound of the real, desynchronising schedule).
Picos ring_step(const CostQuery& q, std::size_t out, std::size_t in);
bool ring_exact(const CostQuery& q);  // duplex or all

// --- point to point: send_message and friends of p2p.hpp (always sends, even 0 items) -------
// out = a op b over n items, charged.
void combine(const Comm& c, const Op& op, const void* a, const void* b, void* out,
             std::size_t n);

// --- pieces ---------------------------------------------------------------------------------
// Binomial broadcast of n items from virtual rank 0 (003 Alg. 4.1): ceil(log2 p) T(n).
void bcast_binomial(const Comm& c, void* buf, std::size_t n, std::size_t isz, const Rooted& vr,
                    Tag tag);
Picos bcast_binomial_cost(const CostQuery& q, int p, std::size_t n);

// Fold step: extras send their n-item `acc` to their pair partner, which combines
// acc = acc op received (`tmp` is scratch of n items). No-op for p a power of two.
// Cost T(n) + n gamma when folded.
void fold_in(const Comm& c, void* acc, void* tmp, std::size_t n, std::size_t isz, const Op* op,
             const Rooted& vr, const Fold& f, Tag tag);
// Unfold: survivors of a pair send `buf` (n items) back to their extra. Cost T(n).
void fold_out(const Comm& c, void* buf, std::size_t n, std::size_t isz, const Rooted& vr,
              const Fold& f, Tag tag);

// Binomial reduction over the p2 survivors to survivor 0, combining in rank order
// (003 Alg. 4.3). Call on survivors only. op may be null (barrier: no combine).
// Cost log2(p2) (T(n) + n gamma).
void reduce_pow2(const Comm& c, void* acc, void* tmp, std::size_t n, std::size_t isz,
                 const Op* op, const Rooted& vr, const Fold& f, Tag tag);

// Recursive doubling allreduce over the p2 survivors (000 Version 2, 002 cube):
// log2(p2) (exchange(n, n) + n gamma). Lower rank's operand on the left.
void allreduce_doubling_pow2(const Comm& c, void* acc, void* tmp, std::size_t n,
                             std::size_t isz, const Op& op, const Rooted& vr, const Fold& f,
                             Tag tag);

// Recursive halving reduce-scatter over the survivors of `buf` (p2 * blk items), distances
// 1, 2, 4, ... so every combined group is rank-contiguous (000 Version 3, first half).
// On return the survivor's segment (segments(j).back()) holds op over all survivors.
// Cost sum_{i=1..d} (exchange(h_i, h_i) + h_i gamma), h_i = p2 blk / 2^i.
// `source`, when given, holds the node's contribution instead of buf: the first step sends
// from it and combines it into buf, which needs no copy of the contribution beforehand.
void reduce_scatter_halving(const Comm& c, void* buf, void* tmp, std::size_t blk,
                            std::size_t isz, const Op& op, const Rooted& vr, const Fold& f,
                            Tag tag, const void* source = nullptr);
// The segment (first block, block count) survivor j owns before step 0 (whole) and after
// each halving step.
std::vector<std::pair<int, int>> halving_segments(int j, int p2);
// The mirror: recursive doubling allgather undoing the halving (distances 2^(d-1) .. 1).
// Cost sum_{i=1..d} exchange(h_i, h_i).
void allgather_mirror(const Comm& c, void* buf, std::size_t blk, std::size_t isz,
                      const Rooted& vr, const Fold& f, Tag tag);
// Gather the halving's segments to survivor `jr` along the mirror steps (000 §5 second
// approach): sum_{i=0..d-1} T(blk 2^i).
void gather_mirror(const Comm& c, void* buf, std::size_t blk, std::size_t isz, int jr,
                   const Rooted& vr, const Fold& f, Tag tag);
Picos halving_cost(const CostQuery& q, int p2, std::size_t blk);      // reduce-scatter part
Picos mirror_allgather_cost(const CostQuery& q, int p2, std::size_t blk);
Picos mirror_gather_cost(const CostQuery& q, int p2, std::size_t blk);

// Binomial scatter of p blocks of blk items from virtual rank 0: `buf` (p * blk items, in
// virtual-rank block order) is full at the root; on return virtual rank v holds blocks
// [v, v + subtree) at their places. Children served largest subtree first (001 "Scatter").
void scatter_binomial(const Comm& c, void* buf, std::size_t blk, std::size_t isz,
                      const Rooted& vr, Tag tag);
// Per virtual rank: the time it finishes the scatter (its last send, or its receive).
std::vector<Picos> scatter_binomial_finish(const CostQuery& q, int p, std::size_t blk);

// Recursive doubling allgather of blk-item blocks (p a power of two), distances 1, 2, ...:
// sum_{k} exchange(blk 2^k, blk 2^k).
void allgather_doubling(const Comm& c, void* buf, std::size_t blk, std::size_t isz,
                        const Rooted& vr, Tag tag);

// Prefix over the p2 survivors (001 "Prefix sums" on the hypercube): in step k a survivor
// exchanges `msg` (the op of its current subcube, starting as y) with the survivor whose
// rank differs in bit k; from a lower partner it folds the incoming into `excl` (a copy the
// first time) and into msg on the left, from a higher one into msg on the right. On return
// `excl` holds the op of the y of all lower survivors when the function returns true (false
// for survivor 0). Scratch: msg and tmp of n items. Cost: log2(p2) X(n) + (2 log2(p2) - 1)
// n gamma on the survivor with the most lower partners.
bool prefix_pow2(const Comm& c, const void* y, void* excl, void* msg, void* tmp, std::size_t n,
                 std::size_t isz, const Op& op, const Rooted& vr, const Fold& f, Tag tag);

}  // namespace vmc::internal::trees
