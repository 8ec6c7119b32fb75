// Internal entry points of the allgather algorithms, on byte buffers with an explicit block
// layout, for composition (allreduce = reduce-scatter + allgather, allgatherv, hybrids).
//
// Semantics shared by every function here:
// - `buf` is an item array of `item_size`-byte items laid out by `blocks` (one block per
//   comm rank; blocks.size() == comm.size(); the same layout on every rank). It may be a
//   sub-range of a larger buffer: displacements are relative to `buf`.
// - On entry, block r of rank r's `buf` holds rank r's data; the other blocks are ignored.
// - On return, every rank's `buf` holds all p blocks, bitwise identical on every rank.
// - Blocks may be empty (count 0); empty blocks are never sent on their own.
// - Tags used: tag + 0 .. tag + 7 of the caller's tag space (call.tag + k).
// - Cost functions take the query (units, port model, p) and the per-rank block counts
//   (counts.size() == q.p) and return the predicted time in picoseconds of the code as
//   written; see each algorithm's file for the formula and where it is exact.
#pragma once

#include <span>

#include "collectives/patterns/mesh_rings.hpp"
#include "collectives/primitives/blocks.hpp"
#include "collectives/vocabulary/row.hpp"
#include "runtime/comm.hpp"

namespace vmc::internal {

// Ring (001 "All-to-all broadcast", ring algorithm): p-1 steps, block (r-k) mod p to r+1.
void allgather_ring(const Comm& comm, void* buf, std::size_t item_size, const Blocks& blocks,
                    Tag tag);
Picos allgather_ring_cost(const CostQuery& q, std::span<const std::size_t> counts);

// Recursive doubling (001 hypercube algorithm), any p: the r = p - 2^floor(log p) extra
// ranks first hand their block to a partner and get the whole result back at the end.
void allgather_recursive_doubling(const Comm& comm, void* buf, std::size_t item_size,
                                  const Blocks& blocks, Tag tag);
Picos allgather_recursive_doubling_cost(const CostQuery& q, std::span<const std::size_t> counts);

// Bruck: ceil(log2 p) steps for any p.
void allgather_bruck(const Comm& comm, void* buf, std::size_t item_size, const Blocks& blocks,
                     Tag tag);
Picos allgather_bruck_cost(const CostQuery& q, std::span<const std::size_t> counts);

// Gather to rank 0 (binomial) then binomial broadcast of the whole buffer (004 MST collect).
void allgather_gather_broadcast(const Comm& comm, void* buf, std::size_t item_size,
                                const Blocks& blocks, Tag tag);
Picos allgather_gather_broadcast_cost(const CostQuery& q, std::span<const std::size_t> counts);

// MST gather to rank 0 then MST broadcast on the trees of the group's mesh (004 §8 MST
// collect; allgather_mesh_mst.cpp).
void allgather_mesh_mst(const Comm& comm, void* buf, std::size_t item_size, const Blocks& blocks,
                        Tag tag);
Picos allgather_mesh_mst_cost(const CostQuery& q, std::span<const std::size_t> counts);

// All-port recursive doubling (000 §7 applied to 001's hypercube algorithm), p a power of
// two: window j of every block doubles over the dimensions j, j+1, ... (mod d).
void allgather_allport_doubling(const Comm& comm, void* buf, std::size_t item_size,
                                const Blocks& blocks, Tag tag);
Picos allgather_allport_doubling_cost(const CostQuery& q, std::span<const std::size_t> counts);

// The layout of an allgather call (equal blocks of call.n, or the v-variant's counts and
// displacements), after copying the caller's own block into place unless in place.
Blocks prepare_allgather(const Call& call);

// The collect over any ring plan (allgather_mesh_pfr.cpp), with 004 §5.2's dimension
// alternation `a` (allgather_mesh_pfr_alt.cpp): mesh_pfr's code and cost for the PFR-DR
// hybrids' plans (allgather_mesh_pfr_dr.cpp).
void run_allgather_plan(const Call& call, const patterns::RingPlan& plan,
                        patterns::Alternation a);
Picos cost_allgather_plan(const CostQuery& q, const patterns::RingPlan& plan,
                          patterns::Alternation a);

}  // namespace vmc::internal
