// Registry entry points of the exscan algorithms, one triple per file exscan_<algorithm>.cpp,
// collected by table.cpp.
#pragma once

#include "collectives/registry.hpp"

namespace vmc::internal {

bool applicable_exscan_linear(const CostQuery& q);
Picos cost_exscan_linear(const CostQuery& q);
void run_exscan_linear(const Call& call);
bool applicable_exscan_hypercube(const CostQuery& q);
Picos cost_exscan_hypercube(const CostQuery& q);
void run_exscan_hypercube(const Call& call);
bool applicable_exscan_recursive_doubling(const CostQuery& q);
Picos cost_exscan_recursive_doubling(const CostQuery& q);
void run_exscan_recursive_doubling(const Call& call);

}  // namespace vmc::internal
