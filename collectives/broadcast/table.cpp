// The broadcast registry table.
#include "collectives/broadcast/algorithms.hpp"
#include "collectives/internal/allport.hpp"
#include "collectives/internal/claims.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace {
// Claims of the formulas (collectives/internal/claims.hpp); binomial trees on virtual ranks
// are cube patterns when the root is 0.
Claim claim_broadcast_linear(const CostQuery& q) {
  return internal::on_machine(q, Claim::exact, false);
}
Claim claim_broadcast_binomial(const CostQuery& q) {
  return internal::on_machine(q, Claim::exact, q.root == 0);
}
// The ring allgather of non-powers of two waits under one-partner ports.
Claim claim_broadcast_scatter_allgather(const CostQuery& q) {
  const bool exact = internal::is_power_of_two(q.p) || internal::two_sided_ports(q);
  return internal::on_machine(q, exact ? Claim::exact : Claim::lower_bound, q.root == 0);
}
Claim claim_broadcast_pipelined_chain(const CostQuery& q) {
  return internal::on_machine(q, Claim::exact, false);
}
}  // namespace

const std::vector<Algorithm>& tables::broadcast() {
  using namespace internal;
  static const std::vector<Algorithm> t = [] {
    std::vector<Algorithm> rows = {
      {"linear", "the root sends the vector to every node in turn: (p-1)(alpha + n beta)",
       "nothing", applicable_broadcast_linear, cost_broadcast_linear, run_broadcast_linear, nullptr, claim_broadcast_linear},
      {"binomial",
       "binomial tree on virtual ranks (003 Alg. 4.1/4.2): ceil(log p)(alpha + n beta)",
       "nothing", applicable_broadcast_binomial, cost_broadcast_binomial,
       run_broadcast_binomial, nullptr, claim_broadcast_binomial},
      {"scatter_allgather",
       "binomial scatter of p blocks, then allgather (recursive doubling for p = 2^d, ring "
       "otherwise) (001 improved broadcast, 004 SC)",
       "nothing", applicable_broadcast_scatter_allgather, cost_broadcast_scatter_allgather,
       run_broadcast_scatter_allgather, nullptr,
       claim_broadcast_scatter_allgather},
      {"pipelined_chain",
       "segments pipelined down a chain of virtual ranks (004 §6); segment_items or the "
       "sqrt rule",
       "nothing", applicable_broadcast_pipelined_chain, cost_broadcast_pipelined_chain,
       run_broadcast_pipelined_chain, nullptr,
       claim_broadcast_pipelined_chain},
      {"mesh_mst",
       "the vector down 004 §5.1's recursive-splitting MST of the group's mesh (004 §9): "
       "ceil(log2 p)(alpha + n beta)",
       "nothing", applicable_broadcast_mesh_mst, cost_broadcast_mesh_mst,
       run_broadcast_mesh_mst, nullptr, claim_broadcast_mesh_mst},
      {"mesh_sc",
       "MST scatter through each dimension from the highest, then DR collect from the lowest "
       "(004 §9 SC): sum_i (ceil(log2 m_i) + m_i - 1) alpha + 2 (p-1)/p n beta",
       "nothing", applicable_broadcast_mesh_sc, cost_broadcast_mesh_sc, run_broadcast_mesh_sc,
       nullptr, claim_broadcast_mesh_sc},
      {"mesh_dopl",
       "k_alt parts pipelined in pieces along every line of one dimension, then the next, in "
       "rotated dimension orders (004 §6.2/§9 DOPL), k_alt minimising 004's (k_alt - 1)"
       "(alpha + n/k_alt beta) + sum_i (ceil((k_alt + d - 1 - i)/d)(m_i - 1) + k_i - 1)"
       "(alpha + n/(k_alt k_i) beta); cost: the schedule replayed (k_alt = 1: sum_i (m_i + "
       "k_i - 2)(alpha + n/k_i beta))",
       "nothing", applicable_broadcast_mesh_dopl, cost_broadcast_mesh_dopl,
       run_broadcast_mesh_dopl, detail_broadcast_mesh_dopl, claim_broadcast_mesh_dopl},
      {"allport_binomial",
       "d windows, each down a binomial tree of rotated dimensions, all links at once "
       "(000 §7): d (alpha + ceil(n/d) beta) under --port all",
       "p a power of two", applicable_broadcast_allport_binomial,
       cost_broadcast_allport_binomial, run_broadcast_allport_binomial, nullptr,
       allport::claim},
      {"allport_edst",
       "packets pipelined down d edge-disjoint spanning binomial trees (000 §7, Johnsson-Ho "
       "nESBT): (M + d)(alpha + b beta) under --port all",
       "p a power of two", applicable_broadcast_allport_edst, cost_broadcast_allport_edst,
       run_broadcast_allport_edst, nullptr, allport::claim},
    };
    // 004 §9's MST-SC hybrids (broadcast_mesh_mst_sc.cpp).
    for (Algorithm& row : broadcast_mesh_mst_sc_rows()) rows.push_back(row);
    return rows;
  }();
  return t;
}

}  // namespace vmc
