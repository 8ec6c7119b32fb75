// Internal entry points of the all-to-all algorithms on byte buffers with explicit block
// layouts (alltoall, alltoallv, compositions).
//
// Semantics: block d of `send` (send_blocks) is this rank's message to rank d; on return
// block s of `recv` (recv_blocks) holds rank s's message to this rank. send and recv must
// not overlap. Rank s's send_blocks.counts[d] must equal rank d's recv_blocks.counts[s]
// (a mismatch is a UsageError naming the receiving node). Tags used: tag + 0 .. tag + 3.
#pragma once

#include <span>

#include "collectives/primitives/blocks.hpp"
#include "collectives/vocabulary/row.hpp"
#include "runtime/comm.hpp"

namespace vmc::internal {

// Shifted ring: step k = 1 .. p-1 sends to (r + k) mod p, receives from (r - k) mod p.
void alltoall_ring(const Comm& comm, const void* send, const Blocks& send_blocks, void* recv,
                   const Blocks& recv_blocks, std::size_t item_size, Tag tag);
Picos alltoall_ring_cost(const CostQuery& q);

// Pairwise exchange with partner r XOR k, k = 1 .. p-1 (001); p a power of two.
void alltoall_pairwise_xor(const Comm& comm, const void* send, const Blocks& send_blocks,
                           void* recv, const Blocks& recv_blocks, std::size_t item_size, Tag tag);
Picos alltoall_pairwise_xor_cost(const CostQuery& q);

// Store-and-forward across the dimensions of a hypercube (001 table); equal blocks of n
// items, p a power of two.
void alltoall_hypercube(const Comm& comm, const void* send, void* recv, std::size_t n,
                        std::size_t item_size, Tag tag);
Picos alltoall_hypercube_cost(const CostQuery& q);

// Send and receive layouts of a call: equal blocks of call.n, or the v-variant's.
Blocks alltoall_send_layout(const Call& call);
Blocks alltoall_recv_layout(const Call& call);
// What pairwise_xor and hypercube require.
bool power_of_two_p(const CostQuery& q);

}  // namespace vmc::internal
