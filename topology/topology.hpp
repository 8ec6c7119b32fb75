// vmc topology library: the interconnects vmc emulates, as pure data (no threads, no time).
//
// A Topology answers who is adjacent, which directed links a message crosses under the
// family's standard deterministic routing, and the properties a teacher would put on the
// board. Sources: 001 "Static interconnection networks"; 003 §4.1; 004 §2.
//
// Vertices 0..nodes()-1 are processing nodes (the virtual nodes of a Machine). Some
// families (the tree) add switch vertices nodes()..vertices()-1 that only route.
// Directed links have dense ids 0..link_count()-1 so the runtime can keep one token per
// link direction in a flat array.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace vmc {

using LinkId = std::int32_t;

// The largest node count a spec may ask for (1 << 20).
inline constexpr int kMaxNodes = 1 << 20;

struct DirectedLink {
  int from = 0;  // vertex id
  int to = 0;    // vertex id
};

// The class of a directed link, for links of unequal bandwidth (002 §3.3.4: on the
// POWER-GC links 1-4, 5-6 and 7-8 have bandwidths a > b > c; Model::link_rates gives a
// class a per-item time of its own): the dimension it crosses on a mesh, torus, array, ring
// or hypercube; on a tree its level, the depth of its lower end (1: the links at the root,
// 2: the links below them, ...), and whether it leads up towards the root. A field is -1
// where the family has no such class (level and up on a grid; everything on full:P).
struct LinkClass {
  int dimension = -1;
  int level = -1;
  bool up = false;
};

// Properties of a network. A value that is not known exactly for this size is empty;
// vmc never prints a guess.
struct TopologyProperties {
  int nodes = 0;                           // processing nodes
  int switches = 0;                        // routing-only vertices (tree)
  int links = 0;                           // undirected links (each is two directed links)
  int degree_min = 0;                      // over processing nodes
  int degree_max = 0;
  std::optional<int> diameter;             // in hops, between processing nodes
  std::optional<int> connectivity;         // arc connectivity
  std::optional<int> bisection_width;
};

class Topology {
 public:
  virtual ~Topology() = default;

  // The textual form, e.g. "mesh:6x5"; parse_topology(spec()) gives an equal topology.
  virtual std::string spec() const = 0;
  // Processing nodes p.
  virtual int nodes() const = 0;
  // Processing nodes plus switches.
  virtual int vertices() const { return nodes(); }
  // Number of directed links (twice the undirected links).
  virtual int link_count() const = 0;
  virtual DirectedLink link(LinkId id) const = 0;
  // The class of link `id` (see LinkClass); throws std::out_of_range for a bad id.
  virtual LinkClass link_class(LinkId id) const;
  // The directed link from vertex a to adjacent vertex b, or -1 if they are not adjacent.
  virtual LinkId link_between(int a, int b) const = 0;
  // Vertices adjacent to vertex v, in increasing order.
  virtual std::vector<int> neighbours(int v) const = 0;
  // Appends to `out` the directed links a message from node a to node b crosses, in order,
  // by the family's deterministic routing. Empty when a == b.
  virtual void route(int a, int b, std::vector<LinkId>& out) const = 0;
  std::vector<LinkId> route(int a, int b) const {
    std::vector<LinkId> r;
    route(a, b, r);
    return r;
  }
  // The same route written into `out` when it has room for it: its hop count, or -1 when it
  // is longer than out (out's contents then unspecified). For a caller that keeps short
  // routes in place of a vector (the simulator routes every message). The default asks
  // route() for it through a vector the calling thread keeps.
  virtual int route_into(int a, int b, std::span<LinkId> out) const;
  // Appends to `out` a route from node a to node b that the family's routing allows and that
  // crosses none of the directed links `down` (sorted in increasing order), and returns true;
  // returns false, `out` unchanged, when the routing allows none (docs/model.md, "Failed
  // links"). Grids and hypercubes allow every dimension-ordered route: the dimensions in which
  // a and b differ corrected one after another in any order, each in one stretch along its
  // line, and on a ring either way round; the first that avoids `down` is taken, fewest hops
  // first, then the order of the ways round (the shorter way first, see Grid), then the
  // dimension orders in lexicographic order (dimension 0 first). Every other family has one
  // route per pair, route(a, b): it is taken if it avoids `down`.
  virtual bool route_around(int a, int b, std::span<const LinkId> down,
                            std::vector<LinkId>& out) const;
  // Coordinates of node v (mesh/torus: one per dimension, dimension 0 first;
  // hypercube: bits, bit 0 first; others: {v}).
  virtual std::vector<int> coordinates(int v) const = 0;
  // Exact properties: formulas where the family has them, exhaustive computation for
  // small networks, empty where neither applies.
  virtual TopologyProperties properties() const = 0;
  // One line naming the routing route() follows, e.g. "e-cube, dimension 0 first".
  virtual std::string routing() const { return "deterministic"; }
  // The family, the part of spec() before the colon: "mesh", "torus", "hypercube", ...
  std::string family() const;
  // A number no other topology object made in this process has (a copy has its original's,
  // being equal to it; topologies do not change once made): what a per-call cache compares
  // instead of building spec().
  std::uint64_t identity() const { return identity_; }

 private:
  static std::uint64_t next_identity();
  std::uint64_t identity_ = next_identity();
};

// Thrown for a malformed or impossible spec; the message says what was expected.
class TopologyError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Parses "full:P", "ring:P", "array:P", "mesh:AxBx..", "torus:AxB..", "hypercube:P", "tree:P".
// A mesh length may end in "w" to close that dimension into a ring: "mesh:4x5w" wraps
// dimension 1 only; "torus:4x5" is "mesh:4wx5w". Throws TopologyError saying what was
// expected. The families are described in full.hpp, grid.hpp, hypercube.hpp, tree.hpp.
std::shared_ptr<const Topology> parse_topology(std::string_view spec);

}  // namespace vmc
