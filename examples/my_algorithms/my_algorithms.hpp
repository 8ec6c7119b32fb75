// Two algorithms of a user's own: an allgather and an allreduce made from it.
#pragma once

#include "collectives/registry.hpp"

// allgather "my_ring": in step k = 0 .. p-2 rank r passes block (r - k) mod p to r + 1 and
// takes block (r - k - 1) mod p from r - 1 (one sendrecv), so every block goes once around.
// Cost, T = alpha + n beta: (p - 1) T with duplex or all-port nodes (and for p = 2 with one
// exchange), 2 (p - 1) T where a node sends and receives one at a time.
void my_ring(const vmc::Call& call);
vmc::Picos cost_my_ring(const vmc::CostQuery& q);

// allreduce "my_ring_combine": my_ring's allgather of every rank's whole vector, then each
// rank combines the p vectors in rank order (any op, commutative or not).
// Cost: my_ring's for the vector, plus (p - 1) n gamma.
void my_ring_combine(const vmc::Call& call);
vmc::Picos cost_my_ring_combine(const vmc::CostQuery& q);
