// The meshes issue 11 holds 004's algorithms to: 2x2, 3x5, 4x4, 5x7, 7x11, 8x8, 13x1, 1x17,
// 3x4x5, 2x3x5x7, each as a mesh and as a torus.
#pragma once

#include <string>
#include <vector>

namespace vmc::testing {

inline std::vector<std::string> mesh_set() {
  std::vector<std::string> v;
  for (std::string s : {"2x2", "3x5", "4x4", "5x7", "7x11", "8x8", "13x1", "1x17", "3x4x5",
                        "2x3x5x7"}) {
    v.push_back("mesh:" + s);
    v.push_back("torus:" + s);
  }
  return v;
}

}  // namespace vmc::testing
