// The hypercube, complete or incomplete (see hypercube.hpp for routing and link ids).
// Sources: 001 "Static interconnection networks" (hypercube row: diameter log2 p,
// connectivity log2 p, bisection width p/2) and "E-cube routing".
//
// Properties of the hypercube H(P) on nodes 0..P-1, d = ceil(log2 P), P >= 2:
// - links: every edge joins u to u - 2^k for a bit k set in u, so there are h(P) edges,
//   h(n) = number of one bits in 0..n-1.
// - degree: node 0 reaches every 2^k < P, so the maximum is d. For P = 2^(d-1) + q
//   (0 < q < 2^(d-1)) H(P) is the complete (d-1)-cube, "low", plus a copy of H(q), "high"
//   (nodes 2^(d-1) + r), each high node matched to low node r. Low nodes have degree
//   d-1 or d, high nodes 1 + their degree in H(q), so
//   delta(P) = min(d-1, 1 + delta(q)), delta(2^d) = d, delta(1) = 0.
// - diameter: a route has Hamming-distance length, and no path is shorter (each hop
//   flips one bit); 2^(d-1) - 1 and 2^(d-1) are both nodes and differ in all d bits,
//   so the diameter is d.
// - arc connectivity = delta(P), by induction over the split above. A cut that splits
//   "low" has >= d-1 >= delta edges (the complete cube's connectivity). Otherwise one
//   side T lies in "high": every node of T has its matching edge, so the cut has >= |T|
//   edges, plus >= lambda(H(q)) = delta(q) more unless T is all of high. Either
//   |T| = q >= 1 + ceil(log2 q) >= 1 + delta(q) >= delta, or >= 1 + delta(q) >= delta.
// - bisection width = floor(P/2). Cutting dimension 0 separates the odd from the even
//   labels and cuts floor(P/2) links. No cut is smaller: by the edge-isoperimetric theorem
//   for the hypercube (Harper), n nodes of a cube induce at most h(n) edges, so the two
//   halves keep at most h(floor(P/2)) + h(ceil(P/2)) of the h(P) edges, and
//   h(2m) - 2h(m) = m, h(2m+1) - h(m) - h(m+1) = m (0..2m-1 is 2i and 2i+1 for i < m).
#include "topology/hypercube.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <string>

#include "topology/detail.hpp"
#include "topology/exhaustive.hpp"

namespace vmc {

namespace {

// Number of one bits in 0..n-1, bit by bit: each block of 2^(k+1) numbers has 2^k with
// bit k set, and a partial block r numbers long has max(0, r - 2^k).
long long ones_below(long long n) {
  long long total = 0;
  for (int k = 0; (1LL << k) < n; ++k) {
    const long long block = 1LL << (k + 1);
    total += (n / block) << k;
    total += std::max(0LL, n % block - (1LL << k));
  }
  return total;
}

}  // namespace

Hypercube::Hypercube(int p) : p_(p), d_(0) {
  if (p < 1 || p > kMaxNodes)
    throw TopologyError("hypercube:P needs 1 <= P <= " + std::to_string(kMaxNodes) +
                        " (got " + std::to_string(p) + ")");
  d_ = detail::ceil_log2(p);
  if (complete()) {
    link_count_ = p_ * d_;
    return;
  }
  offsets_.resize(p_ + 1);
  LinkId next = 0;
  for (int v = 0; v < p_; ++v) {
    offsets_[v] = next;
    next += std::popcount(dimensions_of(v));
  }
  offsets_[p_] = next;
  link_count_ = next;
}

std::string Hypercube::spec() const { return "hypercube:" + std::to_string(p_); }

std::string Hypercube::routing() const {
  if (complete()) return "e-cube: differing bits corrected in increasing dimension order";
  return "incomplete e-cube: bits going 1->0 cleared first, then bits going 0->1 set, "
         "each in increasing dimension order (stays within the nodes)";
}

// Set bits of v always have a neighbour (clearing lowers the label). A clear bit k has
// one when v + 2^k <= P-1, that is for every k below bit_width(P-1-v).
unsigned Hypercube::dimensions_of(int v) const {
  const unsigned room = static_cast<unsigned>(p_ - 1 - v);
  const unsigned low = room == 0 ? 0u : (1u << std::bit_width(room)) - 1u;
  return static_cast<unsigned>(v) | (~static_cast<unsigned>(v) & low);
}

LinkId Hypercube::link_across(int v, int k) const {
  // Every node of a complete cube has all d links: the one across dimension k is its k-th
  // (the simulator routes every message, so this skips the count below).
  if (complete()) return v * d_ + k;
  const unsigned below = dimensions_of(v) & ((1u << k) - 1u);
  return offset(v) + std::popcount(below);
}

DirectedLink Hypercube::link(LinkId id) const {
  detail::check_link(*this, id, link_count_);
  int v = 0;
  int rank = 0;
  if (complete()) {
    v = id / d_;
    rank = id % d_;
  } else {
    v = static_cast<int>(std::upper_bound(offsets_.begin(), offsets_.end(), id) -
                         offsets_.begin()) - 1;
    rank = id - offsets_[v];
  }
  unsigned dims = dimensions_of(v);
  for (int r = 0; r < rank; ++r) dims &= dims - 1;  // drop the lowest `rank` dimensions
  return {v, v ^ (1 << std::countr_zero(dims))};
}

LinkClass Hypercube::link_class(LinkId id) const {
  const DirectedLink l = link(id);
  return {.dimension = std::countr_zero(static_cast<unsigned>(l.from ^ l.to))};
}

LinkId Hypercube::link_between(int a, int b) const {
  detail::check_vertex(*this, a, p_);
  detail::check_vertex(*this, b, p_);
  const unsigned diff = static_cast<unsigned>(a ^ b);
  if (!std::has_single_bit(diff)) return -1;
  return link_across(a, std::countr_zero(diff));
}

std::vector<int> Hypercube::neighbours(int v) const {
  detail::check_vertex(*this, v, p_);
  std::vector<int> out;
  for (unsigned dims = dimensions_of(v); dims != 0; dims &= dims - 1)
    out.push_back(v ^ (1 << std::countr_zero(dims)));
  std::sort(out.begin(), out.end());
  return out;
}

void Hypercube::route(int a, int b, std::vector<LinkId>& out) const {
  std::array<LinkId, 32> links;  // one per differing bit: at most d < 32
  const int hops = route_into(a, b, links);
  out.insert(out.end(), links.begin(), links.begin() + hops);
}

int Hypercube::route_into(int a, int b, std::span<LinkId> out) const {
  detail::check_node(*this, a, p_);
  detail::check_node(*this, b, p_);
  if (!complete()) return route_into_incomplete(a, b, out);
  // e-cube: one hop per differing bit, counted as they are written (a popcount is a library
  // call on the baseline x86-64 this builds for); node v's link across dimension k is v d + k.
  std::size_t hops = 0;
  int at = a;
  for (unsigned bits = static_cast<unsigned>(a ^ b); bits != 0; bits &= bits - 1) {
    if (hops == out.size()) return -1;
    const int k = std::countr_zero(bits);
    out[hops++] = at * d_ + k;
    at ^= 1 << k;
  }
  return static_cast<int>(hops);
}

int Hypercube::route_into_incomplete(int a, int b, std::span<LinkId> out) const {
  std::size_t hops = 0;
  int at = a;
  auto correct = [&](unsigned bits) {
    for (; bits != 0; bits &= bits - 1) {
      if (hops == out.size()) return false;
      const int k = std::countr_zero(bits);
      out[hops++] = link_across(at, k);
      at ^= 1 << k;
    }
    return true;
  };
  const unsigned ua = static_cast<unsigned>(a);
  const unsigned ub = static_cast<unsigned>(b);
  const bool fits = correct(ua & ~ub) &&  // 1 -> 0 first: labels stay <= a
                    correct(ub & ~ua);    // then 0 -> 1: labels stay <= b
  return fits ? static_cast<int>(hops) : -1;
}

// Every order of the differing bits whose labels stay below P (on a complete cube, every
// order): the first in lexicographic order, lowest dimension first, whose links avoid `down`.
// On a complete cube the first of all is e-cube's.
bool Hypercube::route_around(int a, int b, std::span<const LinkId> down,
                             std::vector<LinkId>& out) const {
  detail::check_node(*this, a, p_);
  detail::check_node(*this, b, p_);
  std::vector<int> bits;
  for (unsigned diff = static_cast<unsigned>(a ^ b); diff != 0; diff &= diff - 1)
    bits.push_back(std::countr_zero(diff));
  auto node_after = [&](std::uint32_t done) {
    int at = a;
    for (std::size_t s = 0; s < bits.size(); ++s) {
      if ((done >> s & 1u) != 0) at ^= 1 << bits[s];
    }
    return at;
  };
  auto open = [&](std::uint32_t done, int s) {
    const int at = node_after(done);
    const int k = bits[static_cast<std::size_t>(s)];
    return (at ^ (1 << k)) < p_ && !detail::is_down(down, link_across(at, k));
  };
  std::vector<int> order;
  if (!detail::first_open_order(static_cast<int>(bits.size()), open, order)) return false;
  int at = a;
  for (int s : order) {
    const int k = bits[static_cast<std::size_t>(s)];
    out.push_back(link_across(at, k));
    at ^= 1 << k;
  }
  return true;
}

std::vector<int> Hypercube::coordinates(int v) const {
  detail::check_node(*this, v, p_);
  std::vector<int> bits(d_);
  for (int k = 0; k < d_; ++k) bits[k] = (v >> k) & 1;
  return bits;
}

int hypercube_min_degree(int p) {
  if (p <= 1) return 0;
  const int d = detail::ceil_log2(p);
  const int half = 1 << (d - 1);
  if (p == 2 * half) return d;
  return std::min(d - 1, 1 + hypercube_min_degree(p - half));
}

TopologyProperties Hypercube::properties() const {
  TopologyProperties props{.nodes = p_,
                           .switches = 0,
                           .links = static_cast<int>(ones_below(p_)),
                           .degree_min = hypercube_min_degree(p_),
                           .degree_max = d_,
                           .diameter = d_,
                           .connectivity = hypercube_min_degree(p_),
                           .bisection_width = p_ / 2};
  return exhaustive::complete_if_small(*this, props);
}

}  // namespace vmc
