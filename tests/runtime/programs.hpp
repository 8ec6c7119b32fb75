// Point-to-point programs shared by the runtime tests.
#pragma once

#include <vector>

#include "runtime/machine.hpp"

namespace vmc {

// Binomial broadcast from root (003 Alg. 4.1). On a complete hypercube the ranks are
// relabelled me XOR root, so every step uses links of one dimension only; otherwise the
// relative rank (me - root) mod p is used.
inline void broadcast(const Comm& c, std::vector<int>& data, int root) {
  const int p = c.size();
  const bool pow2 = (p & (p - 1)) == 0;
  auto to_virtual = [&](int r) { return pow2 ? (r ^ root) : (r - root + p) % p; };
  auto to_real = [&](int v) { return pow2 ? (v ^ root) : (v + root) % p; };
  const int v = to_virtual(c.rank());
  int top = 1;
  while (top < p) top <<= 1;
  if (v != 0) c.recv(std::span<int>(data), to_real(v & (v - 1)), 0);
  for (int k = (v == 0 ? top : (v & -v)) >> 1; k >= 1; k >>= 1) {
    if (v + k < p) c.send(std::span<const int>(data), to_real(v + k), 0);
  }
}

}  // namespace vmc
