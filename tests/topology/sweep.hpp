// The networks the topology tests sweep: every family at many sizes, including 1 and 2
// nodes, primes, odd lengths, powers of two and their neighbours.
#pragma once

#include <string>
#include <vector>

namespace vmc::test {

inline std::vector<std::string> grid_specs_2d(const char* family, int max_side) {
  std::vector<std::string> specs;
  for (int a = 1; a <= max_side; ++a)
    for (int b = 1; b <= max_side; ++b)
      specs.push_back(std::string(family) + ":" + std::to_string(a) + "x" + std::to_string(b));
  return specs;
}

// Networks of up to a few hundred vertices: every route of each is checked.
inline std::vector<std::string> sweep_specs() {
  std::vector<std::string> specs;
  for (int p : {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 31, 32, 33})
    specs.push_back("full:" + std::to_string(p));
  for (int p : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 16, 17, 23, 31, 32, 64, 97}) {
    specs.push_back("ring:" + std::to_string(p));
    specs.push_back("array:" + std::to_string(p));
    specs.push_back("tree:" + std::to_string(p));
  }
  for (int p = 1; p <= 70; ++p) specs.push_back("hypercube:" + std::to_string(p));
  for (int p : {96, 100, 127, 128, 129, 200, 255, 256})
    specs.push_back("hypercube:" + std::to_string(p));
  for (const auto& s : grid_specs_2d("mesh", 7)) specs.push_back(s);
  for (const auto& s : grid_specs_2d("torus", 7)) specs.push_back(s);
  for (const char* s :
       {"mesh:16x16", "torus:16x16", "mesh:13x7", "torus:13x7", "torus:8x8",
        "mesh:1", "mesh:7", "torus:1", "torus:2", "torus:9", "mesh:4x3x5", "torus:4x3x5",
        "mesh:2x2x2", "mesh:2x3x4", "torus:3x3x3", "torus:2x3x4", "mesh:2x2x2x2",
        "torus:3x1x4", "mesh:1x1x5", "mesh:5x1x1x2", "mesh:4x5w", "mesh:4wx5", "mesh:3wx3",
        "mesh:2wx7", "mesh:7wx2", "mesh:5x4w", "mesh:3x4wx5", "mesh:6wx5x2w", "mesh:1wx9w",
        "mesh:3x3x3x3"})
    specs.push_back(s);
  return specs;
}

}  // namespace vmc::test
