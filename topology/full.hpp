// The fully connected network full:P: every pair of nodes has its own link, so every route
// is the direct one-hop route. It is the ideal network of the alpha-beta model
// (docs/model.md, item 6, "direct"). Link ids are computed arithmetically, never stored: node a's
// links to the other nodes in increasing order are a*(P-1) .. a*(P-1)+P-2.
#pragma once

#include "topology/topology.hpp"

namespace vmc {

// P(P-1) directed link ids must fit a 32-bit LinkId.
inline constexpr int kMaxFullNodes = 1 << 15;

class FullyConnected final : public Topology {
 public:
  explicit FullyConnected(int p);  // 1 <= p <= kMaxFullNodes, else TopologyError

  std::string spec() const override;
  int nodes() const override { return p_; }
  int link_count() const override { return p_ * (p_ - 1); }
  DirectedLink link(LinkId id) const override;
  LinkId link_between(int a, int b) const override;
  std::vector<int> neighbours(int v) const override;
  void route(int a, int b, std::vector<LinkId>& out) const override;
  using Topology::route;
  std::vector<int> coordinates(int v) const override;
  TopologyProperties properties() const override;
  std::string routing() const override { return "direct: one hop to any node"; }

 private:
  int p_;
};

}  // namespace vmc
