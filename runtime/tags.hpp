// Where collective calls' tags live (Comm::begin_collective), for the runtime and its error
// texts. Internal.
#pragma once

#include <cstdint>

#include "runtime/trace.hpp"

namespace vmc::detail {

// A collective call's tag space: 2^20 tags above this base per call.
constexpr Tag kCollectiveTagBase = Tag{1} << 40;
constexpr int kCollectiveTagBits = 20;

// The first tag of the space of a comm's collective call number `call`.
constexpr Tag collective_tag(std::uint64_t call) {
  return kCollectiveTagBase + static_cast<Tag>(call << kCollectiveTagBits);
}
// Of a tag in a collective call's space (at least kCollectiveTagBase): the tag within the
// call's space, and the call's number.
constexpr Tag tag_in_call(Tag tag) {
  return (tag - kCollectiveTagBase) & ((Tag{1} << kCollectiveTagBits) - 1);
}
constexpr std::uint64_t call_of(Tag tag) {
  return static_cast<std::uint64_t>(tag - kCollectiveTagBase) >> kCollectiveTagBits;
}

}  // namespace vmc::detail
