// The mesh shape of a call's group (mesh.hpp).
#include "collectives/primitives/group_mesh.hpp"

#include <map>
#include <mutex>
#include <string>
#include <tuple>

namespace vmc::internal {

patterns::MeshShape mesh_shape_of(const Comm& c) {
  if (c.whole_machine()) return patterns::mesh_shape(&c.topology(), c.size(), true);
  // Recognising a sub-mesh sorts the members' coordinates: done once per group and machine,
  // not on every call of every member.
  using Key = std::tuple<std::string, int, std::uint64_t>;
  static std::mutex mu;
  static std::map<Key, patterns::MeshShape> known;
  Key key{c.topology().spec(), c.size(), c.members_hash()};
  {
    std::lock_guard lock(mu);
    auto it = known.find(key);
    if (it != known.end()) return it->second;
  }
  patterns::MeshShape s = patterns::mesh_shape(&c.topology(), c.size(), c.members());
  std::lock_guard lock(mu);
  if (known.size() > 4096) known.clear();  // bounded
  known.emplace(std::move(key), s);
  return s;
}

patterns::MeshShape mesh_shape_of(const CostQuery& q) {
  return patterns::mesh_shape(q.topology, q.p, q.members);
}

}  // namespace vmc::internal
