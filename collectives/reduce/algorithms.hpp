// Registry entry points of the reduce algorithms, one triple per file reduce_<algorithm>.cpp,
// collected by table.cpp.
#pragma once

#include "collectives/internal/trees.hpp"
#include "collectives/registry.hpp"

namespace vmc::internal {

bool applicable_reduce_linear(const CostQuery& q);
Picos cost_reduce_linear(const CostQuery& q);
void run_reduce_linear(const Call& call);
bool applicable_reduce_binomial(const CostQuery& q);
Picos cost_reduce_binomial(const CostQuery& q);
void run_reduce_binomial(const Call& call);
bool applicable_reduce_reduce_scatter_gather(const CostQuery& q);
Picos cost_reduce_reduce_scatter_gather(const CostQuery& q);
void run_reduce_reduce_scatter_gather(const Call& call);
bool applicable_reduce_mesh_mst(const CostQuery& q);
Picos cost_reduce_mesh_mst(const CostQuery& q);
void run_reduce_mesh_mst(const Call& call);
Claim claim_reduce_mesh_mst(const CostQuery& q);
bool applicable_reduce_mesh_dg(const CostQuery& q);
Picos cost_reduce_mesh_dg(const CostQuery& q);
void run_reduce_mesh_dg(const Call& call);
Claim claim_reduce_mesh_dg(const CostQuery& q);
std::vector<Algorithm> reduce_mesh_mst_dg_rows();
bool applicable_reduce_mesh_dopl(const CostQuery& q);
Picos cost_reduce_mesh_dopl(const CostQuery& q);
void run_reduce_mesh_dopl(const Call& call);
Claim claim_reduce_mesh_dopl(const CostQuery& q);
std::string detail_reduce_mesh_dopl(const CostQuery& q);
bool applicable_reduce_allport_binomial(const CostQuery& q);
Picos cost_reduce_allport_binomial(const CostQuery& q);
void run_reduce_allport_binomial(const Call& call);

// The binomial reduction of `acc` (n items, overwritten) to virtual rank 0 of `vr`, folded
// for non-powers of two (reduce_binomial.cpp); op null combines nothing (barrier). Shared
// with allreduce reduce_broadcast and barrier tree. Tags: tag, tag + 1.
void reduce_binomial_to(const Comm& c, void* acc, std::size_t n, std::size_t isz, const Op* op,
                        const trees::Rooted& vr, Tag tag);
Picos reduce_binomial_to_cost(const CostQuery& q, int p, std::size_t n);

}  // namespace vmc::internal
