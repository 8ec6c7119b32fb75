// A plain binomial broadcast of a byte buffer, for the compositions of this folder
// (allgather gather_broadcast). 001 "One-to-all broadcast", 003 Alg. 4.1/4.2 on virtual
// ranks relative to the root. Cost: ceil(log2 p) (alpha + n beta) on every port model.
#pragma once

#include "collectives/internal/blocks.hpp"
#include "runtime/comm.hpp"

namespace vmc::internal {

// Root's `buf` (items items) ends up on every rank. Tag used: tag.
void bcast_binomial_bytes(const Comm& comm, void* buf, std::size_t items, std::size_t item_size,
                          int root, Tag tag);
Picos bcast_binomial_bytes_cost(const CostQuery& q, int p, std::size_t items);

}  // namespace vmc::internal
