// The meshes the tests hold 004's algorithms to: 2x2, 3x5, 4x4, 5x7, 7x11, 8x8, 13x1, 1x17,
// 3x4x5, 2x3x5x7, each as a mesh and as a torus (the smaller ones only under a sanitizer).
#pragma once

#include <string>
#include <vector>

#include "tests/sanitized.hpp"

namespace vmc::testing {

// Whether a shape is one of the set's large ones (35 nodes and more), which builds under
// AddressSanitizer or ThreadSanitizer leave out so that CI's sanitizer runs fit its time
// (the release run visits them all).
inline bool sanitizer_skips(const std::string& spec) {
  if (!kSanitized) return false;
  for (const char* large : {"5x7", "7x11", "8x8", "2x3x5x7"}) {
    if (spec.ends_with(std::string(":") + large)) return true;
  }
  return false;
}

inline std::vector<std::string> mesh_set() {
  std::vector<std::string> v;
  for (std::string s : {"2x2", "3x5", "4x4", "5x7", "7x11", "8x8", "13x1", "1x17", "3x4x5",
                        "2x3x5x7"}) {
    for (const std::string& spec : {"mesh:" + s, "torus:" + s}) {
      if (!sanitizer_skips(spec)) v.push_back(spec);
    }
  }
  return v;
}

}  // namespace vmc::testing
