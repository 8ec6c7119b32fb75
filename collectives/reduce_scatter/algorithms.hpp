// Registry entry points of the reduce_scatter algorithms, used by table.cpp.
#pragma once

#include <functional>
#include <vector>

#include "collectives/patterns/mesh_rings.hpp"
#include "collectives/reduce_scatter/reduce_scatter_internal.hpp"

namespace vmc::internal {

void run_reduce_scatter_ring(const Call& call);
void run_reduce_scatter_recursive_halving(const Call& call);
void run_reduce_scatter_pairwise(const Call& call);
Picos cost_reduce_scatter_ring(const CostQuery& q);
Picos cost_reduce_scatter_recursive_halving(const CostQuery& q);
Picos cost_reduce_scatter_pairwise(const CostQuery& q);
// 004's mesh distributed reductions (reduce_scatter_mesh_*.cpp).
void run_reduce_scatter_mesh_dr(const Call& call);
Picos cost_reduce_scatter_mesh_dr(const CostQuery& q);
void run_reduce_scatter_mesh_pfr(const Call& call);
Picos cost_reduce_scatter_mesh_pfr(const CostQuery& q);
Claim claim_reduce_scatter_mesh_pfr(const CostQuery& q);
// The distributed reduction over any ring plan (reduce_scatter_mesh_pfr.cpp): mesh_pfr's
// code and cost for the PFR-DR hybrids' plans (reduce_scatter_mesh_pfr_dr.cpp).
void reduce_scatter_plan(const Comm& comm, const patterns::RingPlan& plan, void* buf,
                         std::size_t item_size, const Blocks& blocks, const Op& op, Tag tag);
Picos cost_reduce_scatter_plan(const CostQuery& q, const patterns::RingPlan& plan);
std::vector<Algorithm> reduce_scatter_mesh_pfr_dr_rows();

// Runs `fn` on a scratch copy of the call's send buffer laid out in contiguous blocks
// (call.n each, or call.recv_counts), then copies the caller's block to call.recv.
using ReduceScatterFn =
    std::function<void(const Comm&, void*, std::size_t, const Blocks&, const Op&, Tag)>;
void run_reduce_scatter(const Call& call, const ReduceScatterFn& fn);

}  // namespace vmc::internal
