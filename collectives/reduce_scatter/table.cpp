// The reduce_scatter registry table.
#include "collectives/reduce_scatter/algorithms.hpp"
#include "collectives/tables.hpp"

namespace vmc {

namespace {
bool always(const CostQuery&) { return true; }
bool commutative(const CostQuery& q) { return q.commutative; }
}  // namespace

const std::vector<Algorithm>& tables::reduce_scatter() {
  using namespace internal;
  static const std::vector<Algorithm> t = {
      {"ring", "ring: the ring allgather reversed, combining on the way (001)",
       "a commutative op", commutative, cost_reduce_scatter_ring, run_reduce_scatter_ring},
      {"recursive_halving",
       "recursive halving at distances 1, 2, 4, ... in rank order (000 §3, 004); non-powers "
       "of two fold the extra ranks in and out",
       "nothing", always, cost_reduce_scatter_recursive_halving,
       run_reduce_scatter_recursive_halving},
      {"pairwise", "direct exchange of contributions, combined in rank order", "nothing", always,
       cost_reduce_scatter_pairwise, run_reduce_scatter_pairwise},
  };
  return t;
}

}  // namespace vmc
