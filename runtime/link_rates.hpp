// Links of unequal bandwidth (002 §3.3.4): Model::link_rates resolved on a topology, one
// per-item time for each directed link, and the per-item time of a message over its links.
//
// 002 compares the cube all-reduce with a tree reduce on the POWER-GC, whose higher-numbered
// links are slower; which one wins depends on how many messages cross the slow links at
// once (bisection bandwidth), which is what the runtime's contention rules already count.
// A message moves at the rate of its slowest link: max(beta, max over its links l of
// c_l beta_net_l), c_l the messages on l (1 unless links are shared), beta_net_l the rate
// of l's class or, where no rate names l, the model's beta_net. With no per-class rate this
// is CostUnits::item_time of the most loaded link, computed the same way, so every time is
// what it was before per-class rates existed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "runtime/model.hpp"
#include "topology/topology.hpp"

namespace vmc {

// Why rate r cannot apply on topology t under model m (one line, naming the class and the
// topology: a dimension, level or direction the topology does not have, or routing direct,
// under which messages hold no links), or "" when it can.
std::string link_rate_problem(const Model& m, const LinkRate& r, const Topology& t);

class LinkTimes {
 public:
  LinkTimes() = default;
  // Throws std::invalid_argument "link rate <class>: <problem>" when a rate cannot apply.
  LinkTimes(const Model& m, const Topology& t);

  // Whether every link moves at the model's beta_net (no per-class rate).
  bool uniform() const { return beta_net_.empty(); }
  // The per-item time of directed link l alone on it: its class's beta_net (picoseconds).
  Picos beta_net(const CostUnits& u, LinkId l) const {
    return uniform() ? u.beta_net : beta_net_[l];
  }

  // Per item, for a message over `links` whose link l carries sharers(l) >= 1 messages:
  // max(beta, max_l sharers(l) beta_net_l). Throws std::overflow_error when a product
  // does not fit in picoseconds.
  template <class Sharers>
  Picos item_time(const CostUnits& u, std::span<const LinkId> links, Sharers sharers) const {
    if (uniform()) {
      std::uint64_t most = 1;
      for (LinkId l : links) most = std::max<std::uint64_t>(most, sharers(l));
      return u.item_time(most);
    }
    Picos t = u.beta;
    for (LinkId l : links) {
      t = std::max(t, checked_mul(beta_net_[l], sharers(l), "per-item time c beta_net"));
    }
    return t;
  }
  // The same for a message alone on its links.
  Picos item_time(const CostUnits& u, std::span<const LinkId> links) const {
    return item_time(u, links, [](LinkId) { return std::uint64_t{1}; });
  }
  // One message of n items over `links` alone: startup + n item_time (CostUnits::message
  // when the links are uniform).
  Picos message(const CostUnits& u, std::span<const LinkId> links, std::size_t items) const {
    if (uniform()) return u.message(items);
    return checked_add(u.startup(items),
                       checked_mul(item_time(u, links), items, "transfer time n beta"),
                       "message time alpha + n beta");
  }

 private:
  std::vector<Picos> beta_net_;  // per directed link; empty when uniform
};

}  // namespace vmc
