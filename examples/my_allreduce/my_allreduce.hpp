// A user's own allreduce algorithms for vmc, written against vmc::Comm: a binomial one, a
// deliberately broken copy of it for the harness to catch, and a recursive doubling one whose
// registry row fills in every field (my_allreduce_test.cpp tests all three).
#pragma once

#include "collectives/registry.hpp"

// Binomial-tree reduce to rank 0, then binomial broadcast back, with isend/irecv: a node
// posts the receives from all its children at once and combines them in rank order (so
// non-commutative ops work), and sends to all its children at once.
void my_allreduce(const vmc::Call& call);
// Its cost with T = alpha + n beta, d = ceil(log2 p): 2 d T + d n gamma, exact for p a power
// of two under --port all where links are private (claim_my_allreduce).
vmc::Picos cost_my_allreduce(const vmc::CostQuery& q);
vmc::Claim claim_my_allreduce(const vmc::CostQuery& q);

// The same, with a bug that shows only on 6 nodes.
void my_allreduce_broken(const vmc::Call& call);

inline const vmc::Algorithm kMyAllreduce{.name = "my_allreduce",
                                         .description = "binomial reduce + broadcast",
                                         .cost = cost_my_allreduce,
                                         .run = my_allreduce,
                                         .claim = claim_my_allreduce};
inline const vmc::Algorithm kMyAllreduceBroken{.name = "my_allreduce_broken",
                                               .run = my_allreduce_broken};

// Recursive doubling for p a power of two, with sendrecv (my_recursive_doubling.cpp).
bool applicable_my_recursive_doubling(const vmc::CostQuery& q);
vmc::Picos cost_my_recursive_doubling(const vmc::CostQuery& q);
vmc::Claim claim_my_recursive_doubling(const vmc::CostQuery& q);
void my_recursive_doubling(const vmc::Call& call);

inline const vmc::Algorithm kMyRecursiveDoubling{
    .name = "my_recursive_doubling",
    .description = "log2 p exchanges of the whole vector with the partner of each bit",
    .requirements = "p a power of two",
    .applicable = applicable_my_recursive_doubling,
    .cost = cost_my_recursive_doubling,
    .run = my_recursive_doubling,
    .claim = claim_my_recursive_doubling};
