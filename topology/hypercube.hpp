// The hypercube hypercube:P: nodes 0..P-1, a link between every two nodes whose labels
// differ in exactly one bit. P a power of two gives the complete d-cube (d = log2 P);
// any other P an incomplete hypercube, the first P nodes of the smallest cube holding
// them (docs/model.md, item 8). Sources: 001 "Static interconnection networks" and
// "E-cube routing"; 003 §4.1.3; 004 §2 assumption 4.
//
// Routing: e-cube on the complete cube, correcting differing bits in increasing dimension
// order (001, "E-cube routing"). On an incomplete cube plain e-cube can leave the node set
// (from 4 to 3 in hypercube:5 it would pass 5), so vmc first clears, in increasing order,
// the bits that go 1 -> 0 and then sets, in increasing order, the bits that go 0 -> 1.
// While clearing, the current label is a subset of a's bits, so it is <= a < P; while
// setting, it is a subset of b's bits, so it is <= b < P: the route never leaves 0..P-1
// and has Hamming-distance length. Around failed links (route_around) the bits may be
// corrected in any order that stays within the nodes: every minimal route.
//
// Link ids: node v's links are numbered consecutively from offset(v), in increasing
// dimension order (offset(v) = v*d on a complete cube).
#pragma once

#include "topology/topology.hpp"

namespace vmc {

class Hypercube final : public Topology {
 public:
  explicit Hypercube(int p);  // 1 <= p <= kMaxNodes, else TopologyError

  std::string spec() const override;
  int nodes() const override { return p_; }
  int link_count() const override { return link_count_; }
  DirectedLink link(LinkId id) const override;
  LinkClass link_class(LinkId id) const override;  // the dimension it crosses
  LinkId link_between(int a, int b) const override;
  std::vector<int> neighbours(int v) const override;
  void route(int a, int b, std::vector<LinkId>& out) const override;
  using Topology::route;
  int route_into(int a, int b, std::span<LinkId> out) const override;
  // Any order of the differing bits that stays within the nodes (topology.hpp).
  bool route_around(int a, int b, std::span<const LinkId> down,
                    std::vector<LinkId>& out) const override;
  // The d bits of v, bit 0 first.
  std::vector<int> coordinates(int v) const override;
  TopologyProperties properties() const override;
  std::string routing() const override;

  // d = ceil(log2 P), the dimension of the smallest cube holding the nodes.
  int dimension() const { return d_; }
  bool complete() const { return p_ == 1 << d_; }
  // Bit k is set when v has a neighbour across dimension k (v ^ 2^k < P).
  unsigned dimensions_of(int v) const;

 private:
  LinkId offset(int v) const { return complete() ? v * d_ : offsets_[v]; }
  LinkId link_across(int v, int k) const;
  int route_into_incomplete(int a, int b, std::span<LinkId> out) const;

  int p_;
  int d_;
  LinkId link_count_ = 0;
  std::vector<LinkId> offsets_;  // incomplete cube only: first link id of each node, and the total
};

// Minimum degree of the hypercube on nodes 0..p-1 (p >= 1); exposed for the tests.
int hypercube_min_degree(int p);

}  // namespace vmc
