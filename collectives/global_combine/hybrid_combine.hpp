// The hybrid global combine (000 Fig. 4 hybridCOMB, Fig. 6 hybridCOMB2R) on any p, as
// entry points for the allreduce and reduce tables, with their costs.
//
// For p = 2^d it runs 000's routine on virtual ranks (me XOR root for a reduce, so a root
// other than 0 keeps every exchange on one cube link). For other p the nodes beyond the
// largest power of two p' fold in first: node p' + i sends its vector to node i, which
// combines it; the p' nodes run the hybrid; node i sends the result back (allreduce only).
// That adds 2(alpha + n beta) + n gamma for allreduce and alpha + n beta + n gamma for reduce.
// The cost is exact for p = 2^d when 2^d divides n (000 §3.4; tests/collectives/
// hybrid_test.cpp). With extras the nodes without an extra start the cube steps early, and
// the fold can overlap the first steps (under the all-port model, full:5, n = 1 takes two
// message times where the cost charges three): the reduce's cost is then an estimate, the
// optimal and §6 allreduce's a lower bound when 2^d divides n. The registry rows state these
// claims (hybrid_combine.cpp) and tests/collectives/formula_claims_test.cpp holds them.
//
// Requires a commutative op: the exchanges pair ranks that differ in the highest bit first,
// so partial results do not cover contiguous rank ranges.
#pragma once

#include "collectives/global_combine/strategy.hpp"
#include "collectives/vocabulary/row.hpp"

#include <vector>

namespace vmc::global_combine {

// The cube dimension the hybrid runs on: log2 of the largest power of two <= p.
int cube_dimension(int p);

// The strategy each entry point uses for a query: `hybrid` takes q.options.strategy,
// `hybrid_optimal` the least-cost one, `hybrid_section6` 000 §6's modification.
enum class Choice { given, optimal, section6 };
Strategy strategy_for(Choice choice, const CostQuery& q, bool to_root);

bool applicable(Choice choice, const CostQuery& q);
Picos allreduce_cost(Choice choice, const CostQuery& q);
Picos reduce_cost(Choice choice, const CostQuery& q);
void allreduce(Choice choice, const Call& call);
void reduce(Choice choice, const Call& call);

}  // namespace vmc::global_combine
