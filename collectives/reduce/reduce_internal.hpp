// Internal entry points of the reduce algorithms for composition: the binomial reduction
// (allreduce reduce_broadcast, barrier tree) and the claims of the pure mesh reductions,
// which are the ends of the MST-DG family (reduce_mesh_mst_dg.cpp).
#pragma once

#include <cstddef>

#include "collectives/op.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"
#include "runtime/comm.hpp"

namespace vmc::internal {

// The binomial reduction of `acc` (n items, overwritten) to virtual rank 0 of `vr`, folded
// for non-powers of two (reduce_binomial.cpp); op null combines nothing (barrier). Tags:
// tag, tag + 1.
void reduce_binomial_to(const Comm& c, void* acc, std::size_t n, std::size_t isz, const Op* op,
                        const trees::Rooted& vr, Tag tag);
Picos reduce_binomial_to_cost(const CostQuery& q, int p, std::size_t n);

Claim claim_reduce_mesh_mst(const CostQuery& q);
Claim claim_reduce_mesh_dg(const CostQuery& q);

}  // namespace vmc::internal
