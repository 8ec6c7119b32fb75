// Internal entry points of the allreduce algorithms for composition: reduce_broadcast's
// (a user's row in tests/collectives/timing_only_test.cpp builds on it).
#pragma once

#include "collectives/vocabulary/call.hpp"

namespace vmc::internal {

void run_allreduce_reduce_broadcast(const Call& call);

}  // namespace vmc::internal
