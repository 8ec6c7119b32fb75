// Internal entry points of the reduce-scatter algorithms, on byte buffers with an explicit
// block layout, for composition (allreduce = reduce-scatter + allgather, reduce =
// reduce-scatter + gather, reduce_scatter with counts).
//
// Semantics shared by every function here:
// - `buf` is an item array of `item_size`-byte items laid out by `blocks` (one block per
//   comm rank, the same layout on every rank, blocks must not overlap). It may be a
//   sub-range of a larger buffer: displacements are relative to `buf`.
// - On entry, every rank's `buf` holds its contribution to all p blocks.
// - On return, block r of rank r's `buf` holds op over all ranks' block r. The other blocks
//   of `buf` are used as scratch and hold unspecified values.
// - Order: recursive_halving and pairwise combine in rank order x0 op x1 op ... op x(p-1)
//   (valid for non-commutative ops); ring requires a commutative op.
// - Every combine of k items is charged with comm.charge_combine(k) where it happens.
// - Tags used: tag + 0 .. tag + 7 of the caller's tag space.
// - Cost functions take the query (units, port, p, commutativity) and the per-rank block
//   counts (counts.size() == q.p); see each algorithm's file for formula and exactness.
#pragma once

#include <functional>
#include <span>

#include "collectives/op.hpp"
#include "collectives/patterns/mesh_rings.hpp"
#include "collectives/primitives/blocks.hpp"
#include "collectives/vocabulary/row.hpp"
#include "runtime/comm.hpp"

namespace vmc::internal {

// Ring (001 "All-to-all reduction": the ring allgather reversed): p-1 steps.
void reduce_scatter_ring(const Comm& comm, void* buf, std::size_t item_size,
                         const Blocks& blocks, const Op& op, Tag tag);
Picos reduce_scatter_ring_cost(const CostQuery& q, std::span<const std::size_t> counts);

// Recursive halving (000 §3 Version 3 first half, 004 distributed reduction), any p: the
// extra ranks of a non-power-of-two p fold their whole buffer into a partner first and get
// their block back at the end. Distances 1, 2, 4, ... so groups are rank-contiguous.
void reduce_scatter_recursive_halving(const Comm& comm, void* buf, std::size_t item_size,
                                      const Blocks& blocks, const Op& op, Tag tag);
Picos reduce_scatter_recursive_halving_cost(const CostQuery& q,
                                            std::span<const std::size_t> counts);

// Pairwise: in step k = 1..p-1 rank r sends block (r+k) mod p to its owner and receives
// its own block's contribution from rank (r-k) mod p; combined in rank order at the end.
void reduce_scatter_pairwise(const Comm& comm, void* buf, std::size_t item_size,
                             const Blocks& blocks, const Op& op, Tag tag);
Picos reduce_scatter_pairwise_cost(const CostQuery& q, std::span<const std::size_t> counts);

// The distributed reduction over any ring plan (reduce_scatter_mesh_pfr.cpp), with 004
// §5.2's dimension alternation `a` (reduce_scatter_mesh_pfr_alt.cpp): mesh_pfr's code and
// cost for the PFR-DR hybrids' plans (reduce_scatter_mesh_pfr_dr.cpp).
void reduce_scatter_plan(const Comm& comm, const patterns::RingPlan& plan,
                         patterns::Alternation a, void* buf, std::size_t item_size,
                         const Blocks& blocks, const Op& op, Tag tag);
Picos cost_reduce_scatter_plan(const CostQuery& q, const patterns::RingPlan& plan,
                               patterns::Alternation a);
// The whole call over the plan (run_reduce_scatter around reduce_scatter_plan).
void run_reduce_scatter_on_plan(const Call& call, const patterns::RingPlan& plan,
                                patterns::Alternation a);

// Runs `fn` on a scratch copy of the call's send buffer laid out in contiguous blocks
// (call.n each, or call.recv_counts), then copies the caller's block to call.recv.
using ReduceScatterFn =
    std::function<void(const Comm&, void*, std::size_t, const Blocks&, const Op&, Tag)>;
void run_reduce_scatter(const Call& call, const ReduceScatterFn& fn);

}  // namespace vmc::internal
