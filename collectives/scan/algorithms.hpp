// Registry entry points of the scan algorithms, one triple per file scan_<algorithm>.cpp,
// collected by table.cpp.
#pragma once

#include "collectives/registry.hpp"

namespace vmc::internal {

bool applicable_scan_linear(const CostQuery& q);
Picos cost_scan_linear(const CostQuery& q);
void run_scan_linear(const Call& call);
bool applicable_scan_hypercube(const CostQuery& q);
Picos cost_scan_hypercube(const CostQuery& q);
void run_scan_hypercube(const Call& call);
bool applicable_scan_recursive_doubling(const CostQuery& q);
Picos cost_scan_recursive_doubling(const CostQuery& q);
void run_scan_recursive_doubling(const Call& call);

}  // namespace vmc::internal
