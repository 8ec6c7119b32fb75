// Whether the tests run under AddressSanitizer or ThreadSanitizer, where every run costs 3
// to 15 times as much: sweeps then visit fewer cases of every kind, so that CI's sanitizer
// runs fit its time (.ci/run); the release run visits them all.
#pragma once

namespace vmc::testing {

inline constexpr bool kSanitized =
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
    true;
#else
    false;
#endif

}  // namespace vmc::testing
