// Internal helpers shared by the topology families; not part of the public interface.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "topology/topology.hpp"

namespace vmc::detail {

// Throws std::out_of_range "<what> <index> out of range 0..<count-1> on <spec>".
[[noreturn]] void throw_out_of_range(const Topology& t, const char* what, long long index,
                                     long long count);

// Cheap range checks for the hot paths; the message is built only on failure.
inline void check_node(const Topology& t, int v, int nodes) {
  if (v < 0 || v >= nodes) [[unlikely]] throw_out_of_range(t, "node", v, nodes);
}
inline void check_vertex(const Topology& t, int v, int vertices) {
  if (v < 0 || v >= vertices) [[unlikely]] throw_out_of_range(t, "vertex", v, vertices);
}
inline void check_link(const Topology& t, LinkId id, LinkId links) {
  if (id < 0 || id >= links) [[unlikely]] throw_out_of_range(t, "link", id, links);
}

// ceil(log2 n) for n >= 1: the levels of a halving tree over n leaves, the dimension of
// the smallest hypercube holding n nodes.
int ceil_log2(long long n);

// Whether directed link l is among `down` (sorted in increasing order).
bool is_down(std::span<const LinkId> down, LinkId l);

// The lexicographically first order in which stretches 0..k-1 (k <= 30) can all be taken,
// each once, when open(done, s) says whether stretch s can be taken after the stretches of
// the bit mask `done` (from where they lead): appended to `order`, or false (order unchanged)
// when there is none. A depth-first search in that order that remembers the masks from which
// no order completes, so it looks at each mask at most once: what route_around tries per way
// round on a grid and on a hypercube.
bool first_open_order(int k, const std::function<bool(std::uint32_t, int)>& open,
                      std::vector<int>& order);

}  // namespace vmc::detail
