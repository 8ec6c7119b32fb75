// The fully connected network full:P (see full.hpp). Its properties are those of the
// complete graph K_P: diameter 1, arc connectivity P-1 and, since every one of the
// floor(P/2) nodes of one half is linked to every one of the ceil(P/2) of the other,
// bisection width floor(P/2)*ceil(P/2).
#include "topology/full.hpp"

#include <string>

#include "topology/detail.hpp"

namespace vmc {

FullyConnected::FullyConnected(int p) : p_(p) {
  if (p < 1 || p > kMaxFullNodes)
    throw TopologyError("full:P needs 1 <= P <= " + std::to_string(kMaxFullNodes) + " (got " +
                        std::to_string(p) + ")");
}

std::string FullyConnected::spec() const { return "full:" + std::to_string(p_); }

DirectedLink FullyConnected::link(LinkId id) const {
  detail::check_link(*this, id, link_count());
  const int a = id / (p_ - 1);
  const int r = id % (p_ - 1);
  return {a, r < a ? r : r + 1};
}

LinkId FullyConnected::link_between(int a, int b) const {
  detail::check_vertex(*this, a, p_);
  detail::check_vertex(*this, b, p_);
  if (a == b) return -1;
  return a * (p_ - 1) + (b < a ? b : b - 1);
}

std::vector<int> FullyConnected::neighbours(int v) const {
  detail::check_vertex(*this, v, p_);
  std::vector<int> out;
  out.reserve(p_ - 1);
  for (int u = 0; u < p_; ++u)
    if (u != v) out.push_back(u);
  return out;
}

void FullyConnected::route(int a, int b, std::vector<LinkId>& out) const {
  detail::check_node(*this, a, p_);
  detail::check_node(*this, b, p_);
  if (a != b) out.push_back(link_between(a, b));
}

std::vector<int> FullyConnected::coordinates(int v) const {
  detail::check_node(*this, v, p_);
  return {v};
}

TopologyProperties FullyConnected::properties() const {
  const int p = p_;
  return {.nodes = p,
          .switches = 0,
          .links = p * (p - 1) / 2,
          .degree_min = p - 1,
          .degree_max = p - 1,
          .diameter = p > 1 ? 1 : 0,
          .connectivity = p - 1,
          .bisection_width = (p / 2) * ((p + 1) / 2)};
}

}  // namespace vmc
