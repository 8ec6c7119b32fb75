// The reduce registry table.
#include "collectives/reduce/algorithms.hpp"
#include "collectives/hybrid/hybrid.hpp"
#include "collectives/internal/allport.hpp"
#include "collectives/internal/claims.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace {
// Claims of the formulas (collectives/internal/claims.hpp; each algorithm's file explains).
Claim claim_linear(const CostQuery& q) { return internal::on_machine(q, Claim::exact, false); }
Claim claim_binomial(const CostQuery& q) {
  return internal::on_machine(q, Claim::exact, q.root == 0);
}
Claim claim_reduce_scatter_gather(const CostQuery& q) {
  using namespace internal;
  if (is_power_of_two(q.p)) return on_machine(q, Claim::exact, q.root == 0);
  return q.model.port == Port::half ? Claim::estimate : on_machine(q, Claim::lower_bound, false);
}
}  // namespace

const std::vector<Algorithm>& tables::reduce() {
  using namespace internal;
  static const std::vector<Algorithm> t = [] {
    std::vector<Algorithm> rows = {
      {"linear", "every node sends to the root, which combines in rank order", "nothing",
       applicable_reduce_linear, cost_reduce_linear, run_reduce_linear, nullptr, claim_linear},
      {"binomial",
       "binomial tree on virtual ranks (003 Alg. 4.3), non-powers of two folded pairwise: "
       "ceil(log p)(alpha + n beta + n gamma)",
       "nothing", applicable_reduce_binomial, cost_reduce_binomial, run_reduce_binomial, nullptr,
       claim_binomial},
      {"reduce_scatter_gather",
       "recursive halving reduce-scatter, then gather to the root (000 §5, 001 improved "
       "reduction)",
       "nothing", applicable_reduce_reduce_scatter_gather, cost_reduce_reduce_scatter_gather,
       run_reduce_reduce_scatter_gather, nullptr, claim_reduce_scatter_gather},
      {"mesh_mst",
       "up 004 §5.1's recursive-splitting MST of the group's mesh, combining in rank order "
       "(004 §11): at most ceil(log2 p)(alpha + n (beta + gamma))",
       "nothing", applicable_reduce_mesh_mst, cost_reduce_mesh_mst, run_reduce_mesh_mst,
       nullptr, claim_reduce_mesh_mst},
      {"mesh_dg",
       "DR distributed reduction from the highest dimension, then MST gather from the lowest "
       "(004 §11 DG): sum_i (ceil(log2 m_i) + m_i - 1) alpha + (p-1)/p n (2 beta + gamma)",
       "a commutative op", applicable_reduce_mesh_dg, cost_reduce_mesh_dg, run_reduce_mesh_dg,
       nullptr, claim_reduce_mesh_dg},
      {"mesh_dopl",
       "the DOPL broadcast's pipeline reversed, one part: pieces flow up every line of one "
       "dimension, then the next, combined on the way (004 §6.2/§11 DOPL reduction-to-one), "
       "k_i = sqrt((m_i - 2) n (beta + gamma) / alpha) pieces",
       "a commutative op", applicable_reduce_mesh_dopl, cost_reduce_mesh_dopl,
       run_reduce_mesh_dopl, detail_reduce_mesh_dopl, claim_reduce_mesh_dopl},
      {"allport_binomial",
       "d windows, each up a binomial tree of rotated dimensions, all links at once "
       "(000 §7)",
       "p a power of two and a commutative op", applicable_reduce_allport_binomial,
       cost_reduce_allport_binomial, run_reduce_allport_binomial, nullptr, allport::claim},
    };
    // van de Geijn's hybrid (000 §3.4-§6): collectives/hybrid.
    for (Algorithm& row : hybrid::reduce_rows()) rows.push_back(row);
    // 004 §11's MST-DG hybrids (reduce_mesh_mst_dg.cpp).
    for (Algorithm& row : reduce_mesh_mst_dg_rows()) rows.push_back(row);
    return rows;
  }();
  return t;
}

}  // namespace vmc
