// The per-operation registry tables, each defined in collectives/<operation>/table.cpp.
#pragma once

#include <vector>

#include "collectives/registry.hpp"

namespace vmc::tables {

const std::vector<Algorithm>& broadcast();
const std::vector<Algorithm>& reduce();
const std::vector<Algorithm>& allreduce();
const std::vector<Algorithm>& scan();
const std::vector<Algorithm>& exscan();
const std::vector<Algorithm>& allgather();
const std::vector<Algorithm>& reduce_scatter();
const std::vector<Algorithm>& scatter();
const std::vector<Algorithm>& gather();
const std::vector<Algorithm>& alltoall();
const std::vector<Algorithm>& barrier();
const std::vector<Algorithm>& scatterv();
const std::vector<Algorithm>& gatherv();
const std::vector<Algorithm>& allgatherv();
const std::vector<Algorithm>& alltoallv();

}  // namespace vmc::tables
