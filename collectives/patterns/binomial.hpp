// Binomial (minimum spanning) tree on virtual ranks, for any p (001 "One-to-all broadcast",
// 003 Alg. 4.1/4.2). Virtual rank v = (rank - root) mod p, so the root is 0.
//
// For p = 2^d this is the tree of the mask/XOR formulation: in step k = d-1 .. 0 every node
// whose low k+1 bits are zero sends to v + 2^k. For other p the edges to v + 2^k >= p are
// dropped (001: "don't communicate if partner >= p"). Pure functions, no I/O.
#pragma once

#include <vector>

namespace vmc::patterns {

inline int to_virtual(int rank, int root, int p) { return (rank - root + p) % p; }
inline int to_real(int vrank, int root, int p) { return (vrank + root) % p; }

// Virtual ranks relative to `root` for the trees and cubes of rooted algorithms: v = r XOR
// root when p is a power of two (003 Alg. 4.2, so a hypercube's binomial partners stay
// neighbours), else v = (r - root) mod p as above.
struct Rooted {
  int p = 1;
  int root = 0;
  Rooted(int p_, int root_) : p(p_), root(root_) {}
  bool xor_map() const { return (p & (p - 1)) == 0; }
  int to_virtual(int r) const { return xor_map() ? (r ^ root) : patterns::to_virtual(r, root, p); }
  int to_real(int v) const { return xor_map() ? (v ^ root) : patterns::to_real(v, root, p); }
};

// Smallest power of two >= p (1 for p = 1), and its exponent.
inline int ceil_pow2(int p) {
  int c = 1;
  while (c < p) c <<= 1;
  return c;
}
inline int ceil_log2(int p) {
  int d = 0;
  while ((1 << d) < p) ++d;
  return d;
}
// Largest power of two <= p.
inline int floor_pow2(int p) {
  int f = 1;
  while (f * 2 <= p) f <<= 1;
  return f;
}

inline int lowbit(int v) { return v & -v; }

// Parent of v (v with its lowest set bit cleared); -1 for the root.
inline int binomial_parent(int v) { return v == 0 ? -1 : v & (v - 1); }

// Children of v, largest subtree first (the order a broadcast sends in).
inline std::vector<int> binomial_children(int v, int p) {
  std::vector<int> children;
  int limit = v == 0 ? ceil_pow2(p) : lowbit(v);
  for (int k = limit >> 1; k >= 1; k >>= 1) {
    if (v + k < p) children.push_back(v + k);
  }
  return children;
}

// Virtual ranks in v's subtree: the contiguous range [v, v + size).
inline int binomial_subtree_size(int v, int p) {
  if (v == 0) return p;
  int s = lowbit(v);
  return s < p - v ? s : p - v;
}

}  // namespace vmc::patterns
