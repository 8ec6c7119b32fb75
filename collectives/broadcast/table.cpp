// The broadcast registry table.
#include "collectives/broadcast/algorithms.hpp"
#include "collectives/tables.hpp"

namespace vmc {

const std::vector<Algorithm>& tables::broadcast() {
  using namespace internal;
  static const std::vector<Algorithm> t = {
      {"linear", "the root sends the vector to every node in turn: (p-1)(alpha + n beta)",
       "nothing", applicable_broadcast_linear, cost_broadcast_linear, run_broadcast_linear},
      {"binomial",
       "binomial tree on virtual ranks (003 Alg. 4.1/4.2): ceil(log p)(alpha + n beta)",
       "nothing", applicable_broadcast_binomial, cost_broadcast_binomial,
       run_broadcast_binomial},
      {"scatter_allgather",
       "binomial scatter of p blocks, then allgather (recursive doubling for p = 2^d, ring "
       "otherwise) (001 improved broadcast, 004 SC)",
       "nothing", applicable_broadcast_scatter_allgather, cost_broadcast_scatter_allgather,
       run_broadcast_scatter_allgather},
      {"pipelined_chain",
       "segments pipelined down a chain of virtual ranks (004 §6); segment_items or the "
       "sqrt rule",
       "nothing", applicable_broadcast_pipelined_chain, cost_broadcast_pipelined_chain,
       run_broadcast_pipelined_chain},
  };
  return t;
}

}  // namespace vmc
