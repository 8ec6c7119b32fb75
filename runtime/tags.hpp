// Where collective calls' tags live (Comm::begin_collective), for the runtime and its error
// texts. Internal.
#pragma once

#include "runtime/trace.hpp"

namespace vmc::detail {

// A collective call's tag space: 2^20 tags above this base per call.
constexpr Tag kCollectiveTagBase = Tag{1} << 40;
constexpr int kCollectiveTagBits = 20;

}  // namespace vmc::detail
