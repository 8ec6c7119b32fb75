// Exhaustive property computation (see exhaustive.hpp): breadth-first search for the
// diameter, unit-capacity max-flow for the arc connectivity, and a Gray-code walk over
// all vertex subsets for the bisection width. Source: the definitions of 001 "Static
// interconnection networks".
#include "topology/exhaustive.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <deque>
#include <stdexcept>
#include <string>

namespace vmc::exhaustive {

namespace {

struct Arc {
  int to;
  LinkId id;
  LinkId reverse;
};

// Adjacency lists with the directed link of each arc and of its reverse.
std::vector<std::vector<Arc>> arcs_of(const Topology& t) {
  std::vector<std::vector<Arc>> arcs(t.vertices());
  for (int v = 0; v < t.vertices(); ++v)
    for (int u : t.neighbours(v)) arcs[v].push_back({u, t.link_between(v, u), t.link_between(u, v)});
  return arcs;
}

// Unit-capacity max-flow from s to t by shortest augmenting paths, stopping once it
// reaches `limit`. The flow on each directed link is kept skew-symmetric (flow[reverse] =
// -flow[id]), so the residual capacity of a link is 1 - flow[id].
class MaxFlow {
 public:
  MaxFlow(const std::vector<std::vector<Arc>>& arcs, LinkId links)
      : arcs_(arcs), flow_(links), from_(arcs.size()), via_(arcs.size()) {}

  int operator()(int s, int t, int limit) {
    std::fill(flow_.begin(), flow_.end(), 0);
    int value = 0;
    while (value < limit && augment(s, t)) ++value;
    return value;
  }

 private:
  bool augment(int s, int t) {
    std::fill(from_.begin(), from_.end(), -1);
    queue_.clear();
    queue_.push_back(s);
    from_[s] = s;
    for (std::size_t head = 0; head < queue_.size() && from_[t] < 0; ++head) {
      const int v = queue_[head];
      for (std::size_t i = 0; i < arcs_[v].size(); ++i) {
        const Arc& arc = arcs_[v][i];
        if (from_[arc.to] >= 0 || flow_[arc.id] >= 1) continue;
        from_[arc.to] = v;
        via_[arc.to] = static_cast<int>(i);
        queue_.push_back(arc.to);
      }
    }
    if (from_[t] < 0) return false;
    for (int v = t; v != s; v = from_[v]) {
      const Arc& arc = arcs_[from_[v]][via_[v]];
      ++flow_[arc.id];
      --flow_[arc.reverse];
    }
    return true;
  }

  const std::vector<std::vector<Arc>>& arcs_;
  std::vector<int> flow_;
  std::vector<int> from_;  // BFS tree: predecessor of each vertex, -1 if unreached
  std::vector<int> via_;   // index of the arc from the predecessor
  std::vector<int> queue_;
};

}  // namespace

std::vector<int> distances_from(const Topology& t, int source) {
  std::vector<int> dist(t.vertices(), -1);
  std::deque<int> queue{source};
  dist.at(source) = 0;
  while (!queue.empty()) {
    const int v = queue.front();
    queue.pop_front();
    for (int u : t.neighbours(v)) {
      if (dist[u] >= 0) continue;
      dist[u] = dist[v] + 1;
      queue.push_back(u);
    }
  }
  return dist;
}

int diameter(const Topology& t) {
  int longest = 0;
  for (int a = 0; a < t.nodes(); ++a) {
    const std::vector<int> dist = distances_from(t, a);
    for (int b = 0; b < t.nodes(); ++b) {
      if (dist[b] < 0) throw std::invalid_argument(t.spec() + " is not connected");
      longest = std::max(longest, dist[b]);
    }
  }
  return longest;
}

// Any cut separating two processing nodes separates node 0 from one of them, so the
// minimum over b of the min-cut between 0 and b is the arc connectivity. Cutting the links
// of the processing node with the fewest isolates it, so no flow needs to go beyond that.
int arc_connectivity(const Topology& t) {
  if (t.nodes() < 2) return 0;
  const auto arcs = arcs_of(t);
  int least = t.link_count();
  for (int v = 0; v < t.nodes(); ++v) least = std::min(least, static_cast<int>(arcs[v].size()));
  MaxFlow max_flow(arcs, t.link_count());
  for (int b = 1; b < t.nodes(); ++b) least = std::min(least, max_flow(0, b, least));
  return least;
}

// Vertex 0 stays outside the set S (S and its complement give the same cut). Walking the
// other V-1 vertices in Gray-code order moves one vertex per step, which changes the cut
// by (its neighbours on its old side) - (its neighbours on its new side).
int bisection_width(const Topology& t) {
  const int vertices = t.vertices();
  if (vertices > kMaxBisectionVertices)
    throw std::invalid_argument("exhaustive bisection width of " + t.spec() + ": at most " +
                                std::to_string(kMaxBisectionVertices) + " vertices, it has " +
                                std::to_string(vertices));
  const int p = t.nodes();
  if (p < 2) return 0;
  std::vector<std::uint64_t> adjacent(vertices, 0);
  for (int v = 0; v < vertices; ++v)
    for (int u : t.neighbours(v)) adjacent[v] |= std::uint64_t{1} << u;
  const std::uint64_t nodes_mask = (std::uint64_t{1} << p) - 1;
  std::uint64_t set = 0;
  int cut = 0;
  int best = t.link_count();
  const std::uint64_t steps = std::uint64_t{1} << (vertices - 1);
  for (std::uint64_t i = 1; i < steps; ++i) {
    const int v = std::countr_zero(i) + 1;
    const std::uint64_t bit = std::uint64_t{1} << v;
    const int inside = std::popcount(adjacent[v] & set);
    const int outside = std::popcount(adjacent[v]) - inside;
    cut += (set & bit) != 0 ? inside - outside : outside - inside;
    set ^= bit;
    const int in_set = std::popcount(set & nodes_mask);
    if (in_set == p / 2 || in_set == (p + 1) / 2) best = std::min(best, cut);
  }
  return best;
}

TopologyProperties properties(const Topology& t) {
  TopologyProperties props;
  props.nodes = t.nodes();
  props.switches = t.vertices() - t.nodes();
  props.links = t.link_count() / 2;
  props.degree_min = t.vertices();
  for (int v = 0; v < t.nodes(); ++v) {
    const int degree = static_cast<int>(t.neighbours(v).size());
    props.degree_min = std::min(props.degree_min, degree);
    props.degree_max = std::max(props.degree_max, degree);
  }
  props.diameter = diameter(t);
  props.connectivity = arc_connectivity(t);
  if (t.vertices() <= kMaxBisectionVertices) props.bisection_width = bisection_width(t);
  return props;
}

TopologyProperties complete_if_small(const Topology& t, TopologyProperties known) {
  if (t.vertices() > kSmallVertices) return known;
  if (!known.diameter) known.diameter = diameter(t);
  if (!known.connectivity) known.connectivity = arc_connectivity(t);
  if (!known.bisection_width) known.bisection_width = bisection_width(t);
  return known;
}

}  // namespace vmc::exhaustive
