#include "runtime/link_rates.hpp"

#include <stdexcept>

namespace vmc {
namespace {

bool names(const LinkRate& r, const LinkClass& c) {
  if (r.kind == LinkRate::Kind::dimension) return c.dimension >= 0 && c.dimension == r.index;
  if (c.level < 0) return false;
  if (r.index >= 0 && c.level != r.index) return false;
  return r.direction == LinkRate::Direction::both ||
         (r.direction == LinkRate::Direction::up) == c.up;
}

// What classes t has, for an error message: "dimensions 0 to 3", "levels 1 to 4".
std::string classes_of(const Topology& t) {
  int dims = -1, levels = 0;
  for (LinkId l = 0; l < t.link_count(); ++l) {
    const LinkClass c = t.link_class(l);
    dims = std::max(dims, c.dimension);
    levels = std::max(levels, c.level);
  }
  if (dims >= 0) return "its links are in dimensions 0 to " + std::to_string(dims);
  if (levels > 0) {
    return "its links are up and down links of levels 1 (at the root) to " +
           std::to_string(levels);
  }
  return "its links have no dimensions or levels";
}

}  // namespace

std::string link_rate_problem(const Model& m, const LinkRate& r, const Topology& t) {
  if (r.beta_net < 0 || !(r.beta_net <= 9.0e6)) {
    return "its time must be from 0 to 9e6 seconds";
  }
  if (m.routing == Routing::direct) {
    return "routing direct gives every pair of nodes a link of its own outside the topology, "
           "so no link of " + t.spec() + " is used; use --routing wormhole or "
           "store_and_forward";
  }
  for (LinkId l = 0; l < t.link_count(); ++l) {
    if (names(r, t.link_class(l))) return {};
  }
  return "no link of " + t.spec() + " is in this class (" + classes_of(t) + ")";
}

LinkTimes::LinkTimes(const Model& m, const Topology& t) {
  if (m.link_rates.empty()) return;
  const CostUnits u(m);
  for (const LinkRate& r : m.link_rates) {
    const std::string problem = link_rate_problem(m, r, t);
    if (!problem.empty()) {
      throw std::invalid_argument("link rate for " + to_string(r) + ": " + problem);
    }
  }
  beta_net_.resize(static_cast<std::size_t>(t.link_count()));
  for (LinkId l = 0; l < t.link_count(); ++l) {
    const LinkClass c = t.link_class(l);
    bool named = false;
    Picos slowest = 0;
    for (const LinkRate& r : m.link_rates) {
      if (!names(r, c)) continue;
      slowest = std::max(slowest, to_picos(r.beta_net));
      named = true;
    }
    beta_net_[l] = named ? slowest : u.beta_net;
  }
}

}  // namespace vmc
