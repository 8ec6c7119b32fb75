// Registry entry points of the barrier algorithms, one triple per file barrier_<algorithm>.cpp,
// collected by table.cpp.
#pragma once

#include "collectives/registry.hpp"

namespace vmc::internal {

bool applicable_barrier_dissemination(const CostQuery& q);
Picos cost_barrier_dissemination(const CostQuery& q);
void run_barrier_dissemination(const Call& call);
bool applicable_barrier_tree(const CostQuery& q);
Picos cost_barrier_tree(const CostQuery& q);
void run_barrier_tree(const Call& call);

}  // namespace vmc::internal
