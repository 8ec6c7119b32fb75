// Internal entry points of the scatter algorithms on byte buffers with an explicit block
// layout (scatter, scatterv, hybrids such as broadcast = scatter + allgather).
//
// Semantics:
// - `send` (significant at the root only) is an item array laid out by `blocks` (one block
//   per comm rank, indexed by comm rank, the same `blocks` on every rank; may be a
//   sub-range of a larger buffer).
// - On return rank r's `recv` holds block r (blocks.counts[r] items).
// - At the root `recv` may be null: in place, the root's own block is left where it is.
// - Rooted: works on virtual ranks v = (r - root) mod p (patterns/binomial.hpp).
// - Tags used: tag + 0 .. tag + 3.
// - Cost functions take the query (units, port, p, root) and the per-rank block counts.
#pragma once

#include <span>

#include "collectives/primitives/blocks.hpp"
#include "collectives/vocabulary/row.hpp"
#include "runtime/comm.hpp"

namespace vmc::internal {

// The root sends every other rank its block, in rank order from root+1.
void scatter_linear(const Comm& comm, const void* send, void* recv, std::size_t item_size,
                    const Blocks& blocks, int root, Tag tag);
Picos scatter_linear_cost(const CostQuery& q, std::span<const std::size_t> counts);

// Binomial tree (001 "Scatter": half, then a quarter, ...), any p.
void scatter_binomial(const Comm& comm, const void* send, void* recv, std::size_t item_size,
                      const Blocks& blocks, int root, Tag tag);
Picos scatter_binomial_cost(const CostQuery& q, std::span<const std::size_t> counts);

// The MST of the group's mesh with 004 §7's partitioning (scatter_mesh_mst.cpp).
void scatter_mesh_mst(const Comm& comm, const void* send, void* recv, std::size_t item_size,
                      const Blocks& blocks, int root, Tag tag);
Picos scatter_mesh_mst_cost(const CostQuery& q, std::span<const std::size_t> counts);

// Layout of a scatter call: equal blocks of call.n, or the v-variant's counts/displs.
Blocks scatter_layout(const Call& call);

}  // namespace vmc::internal
