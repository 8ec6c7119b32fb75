// Internal entry points of the gather algorithms on byte buffers with an explicit block
// layout (gather, gatherv, hybrids such as reduce = reduce-scatter + gather).
//
// Semantics:
// - Rank r's `send` holds blocks.counts[r] items. At the root `send` may be null: in
//   place, the root's own block is already at its place in `recv`.
// - `recv` (significant at the root only) is an item array laid out by `blocks` (one block
//   per comm rank; the same `blocks` on every rank; may be a sub-range of a larger buffer).
// - On return the root's `recv` holds every rank's block at its place.
// - Rooted: works on virtual ranks v = (r - root) mod p (patterns/binomial.hpp).
// - Tags used: tag + 0 .. tag + 3.
// - Cost functions take the query (units, port, p, root) and the per-rank block counts.
#pragma once

#include <span>

#include "collectives/primitives/blocks.hpp"
#include "collectives/vocabulary/row.hpp"
#include "runtime/comm.hpp"

namespace vmc::internal {

// Every rank sends its block straight to the root.
void gather_linear(const Comm& comm, const void* send, void* recv, std::size_t item_size,
                   const Blocks& blocks, int root, Tag tag);
Picos gather_linear_cost(const CostQuery& q, std::span<const std::size_t> counts);

// Binomial tree (001 "Gather": the scatter reversed), any p.
void gather_binomial(const Comm& comm, const void* send, void* recv, std::size_t item_size,
                     const Blocks& blocks, int root, Tag tag);
Picos gather_binomial_cost(const CostQuery& q, std::span<const std::size_t> counts);

// The MST of the group's mesh with 004 §7's partitioning (gather_mesh_mst.cpp).
void gather_mesh_mst(const Comm& comm, const void* send, void* recv, std::size_t item_size,
                     const Blocks& blocks, int root, Tag tag);
Picos gather_mesh_mst_cost(const CostQuery& q, std::span<const std::size_t> counts);

// Layout of a gather call: equal blocks of call.n, or the v-variant's counts/displs.
Blocks gather_layout(const Call& call);

}  // namespace vmc::internal
