// The grid family: arrays, rings, meshes and tori of any dimension (see grid.hpp for the
// conventions). Sources: 001 "Static interconnection networks" (the ring, 2-D mesh and
// 2-D torus rows of its table); 004 §2 assumption 4 (dimension-order routing).
//
// Properties. Let the grid have lengths L_d, and call a dimension "cyclic" when it wraps
// and L_d >= 3 (a wrapped length-2 dimension has a single link pair, so it is open).
// - links: sum over d of (P / L_d) lines times (L_d edges if cyclic, else L_d - 1).
// - degree: a node has 2 neighbours in a cyclic dimension, 1 or 2 in an open one of length
//   >= 2 (1 at an end), none in a length-1 dimension; min and max follow per dimension.
// - diameter: distances add over the dimensions of a product graph, so it is the sum of
//   floor(L_d / 2) (cyclic) or L_d - 1 (open). 001: ring floor(p/2), square mesh
//   2(sqrt p - 1), square torus 2 floor(sqrt p / 2).
// - arc connectivity: the minimum degree (for P >= 2). The edge connectivity of a
//   Cartesian product G x H is min(lambda(G)|H|, lambda(H)|G|, delta(G) + delta(H)), a
//   known theorem; for paths and cycles lambda = delta, and by induction the minimum is
//   delta(G) + delta(H). 001: ring 2, mesh 2, torus 4. The tests check it exhaustively.
// - bisection width: one nontrivial dimension: 1 (path) or 2 (ring). Two: see
//   grid_2d_bisection_width below. Three or more: P/2 when every nontrivial length is 2
//   (the grid is then a binary hypercube, see hypercube.cpp); otherwise unknown here,
//   computed exhaustively for small grids and empty beyond.
#include "topology/grid.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "topology/detail.hpp"
#include "topology/exhaustive.hpp"

namespace vmc {

namespace {

std::string join_lengths(const std::vector<int>& lengths, const std::vector<bool>& marks) {
  std::string s;
  for (std::size_t d = 0; d < lengths.size(); ++d) {
    if (d > 0) s += 'x';
    s += std::to_string(lengths[d]);
    if (marks[d]) s += 'w';
  }
  return s;
}

// Fewest edges cut in a line of length L (>= 2) whose nodes are not all on one side.
int line_weight(bool cyclic) { return cyclic ? 2 : 1; }

}  // namespace

Grid::Grid(std::vector<int> lengths, std::vector<bool> wraps, Style style) : style_(style) {
  if (lengths.empty() || lengths.size() != wraps.size())
    throw TopologyError("a grid needs one length and one wrap flag per dimension");
  if (lengths.size() > static_cast<std::size_t>(kMaxGridDimensions))
    throw TopologyError("a grid has at most " + std::to_string(kMaxGridDimensions) +
                        " dimensions");
  if (style != Style::mesh && (lengths.size() != 1 || wraps[0] != (style == Style::ring)))
    throw TopologyError("array:P and ring:P are one-dimensional; a ring wraps, an array not");
  long long p = 1;
  for (int length : lengths) {
    if (length < 1) throw TopologyError("grid lengths must be positive");
    p *= length;
    if (p > kMaxNodes)
      throw TopologyError("a grid has at most " + std::to_string(kMaxNodes) + " nodes");
  }
  nodes_ = static_cast<int>(p);
  LinkId base = 0;
  int stride = 1;
  for (std::size_t d = 0; d < lengths.size(); ++d) {
    Dim dim;
    dim.length = lengths[d];
    dim.stride = stride;
    dim.wrap = wraps[d];
    dim.cyclic = wraps[d] && lengths[d] >= 3;
    dim.edges = dim.cyclic ? dim.length : dim.length - 1;
    dim.base = base;
    base += 2 * (nodes_ / dim.length) * dim.edges;
    stride *= dim.length;
    dims_.push_back(dim);
  }
  link_count_ = base;
}

std::string Grid::spec() const {
  std::vector<int> lengths;
  std::vector<bool> wraps;
  for (const Dim& dim : dims_) {
    lengths.push_back(dim.length);
    wraps.push_back(dim.wrap);
  }
  switch (style_) {
    case Style::array: return "array:" + std::to_string(nodes_);
    case Style::ring: return "ring:" + std::to_string(nodes_);
    case Style::mesh: break;
  }
  if (std::all_of(wraps.begin(), wraps.end(), [](bool w) { return w; }))
    return "torus:" + join_lengths(lengths, std::vector<bool>(lengths.size(), false));
  return "mesh:" + join_lengths(lengths, wraps);
}

std::string Grid::routing() const {
  const bool rings = std::any_of(dims_.begin(), dims_.end(), [](const Dim& d) { return d.cyclic; });
  if (dims_.size() == 1)
    return rings ? "the shorter way around the ring, increasing on a tie" : "the only path";
  return rings ? "dimension order, dimension 0 first; the shorter way around each ring, "
                 "increasing on a tie"
               : "dimension order, dimension 0 first";
}

DirectedLink Grid::link(LinkId id) const {
  detail::check_link(*this, id, link_count_);
  std::size_t d = dims_.size() - 1;
  while (dims_[d].base > id) --d;
  const Dim& dim = dims_[d];
  const int r = id - dim.base;
  const int edge = r / 2;
  const int line = edge / dim.edges;
  const int x = edge % dim.edges;
  const int lo = line % dim.stride;
  const int hi = line / dim.stride;
  const int v = lo + dim.stride * (x + dim.length * hi);
  const int w = x + 1 < dim.length ? v + dim.stride : v - (dim.length - 1) * dim.stride;
  return r % 2 == 0 ? DirectedLink{v, w} : DirectedLink{w, v};
}

LinkClass Grid::link_class(LinkId id) const {
  detail::check_link(*this, id, link_count_);
  int d = static_cast<int>(dims_.size()) - 1;
  while (dims_[d].base > id) --d;
  return {.dimension = d};
}

LinkId Grid::link_between(int a, int b) const {
  detail::check_vertex(*this, a, nodes_);
  detail::check_vertex(*this, b, nodes_);
  const Dim* differing = nullptr;
  for (const Dim& dim : dims_) {
    if (coordinate(a, dim) == coordinate(b, dim)) continue;
    if (differing != nullptr) return -1;
    differing = &dim;
  }
  if (differing == nullptr) return -1;
  const Dim& dim = *differing;
  const int xa = coordinate(a, dim);
  const int xb = coordinate(b, dim);
  const int last = dim.length - 1;
  const LinkId line_base = dim.base + 2 * line_of(a, dim) * dim.edges;
  if (xb == xa + 1) return line_base + 2 * xa;
  if (dim.cyclic && xa == last && xb == 0) return line_base + 2 * last;
  if (xb == xa - 1) return line_base + 2 * xb + 1;
  if (dim.cyclic && xa == 0 && xb == last) return line_base + 2 * last + 1;
  return -1;
}

std::vector<int> Grid::neighbours(int v) const {
  detail::check_vertex(*this, v, nodes_);
  std::vector<int> out;
  for (const Dim& dim : dims_) {
    const int x = coordinate(v, dim);
    const int wrap_step = (dim.length - 1) * dim.stride;
    if (x > 0) out.push_back(v - dim.stride);
    else if (dim.cyclic) out.push_back(v + wrap_step);
    if (x + 1 < dim.length) out.push_back(v + dim.stride);
    else if (dim.cyclic) out.push_back(v - wrap_step);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The shorter way from coordinate xa to xb of a dimension: increasing unless decreasing is
// shorter (on a ring, increasing on a tie; on an open line the only way).
bool Grid::shorter_way_up(const Dim& dim, int xa, int xb) {
  if (!dim.cyclic) return xb > xa;
  const int forward = (xb - xa + dim.length) % dim.length;
  return forward <= dim.length - forward;
}

// Hops from xa to xb going up (increasing coordinates, round the ring past L-1) or down.
int Grid::hops(const Dim& dim, int xa, int xb, bool up) {
  if (!dim.cyclic) return up ? xb - xa : xa - xb;
  return up ? (xb - xa + dim.length) % dim.length : (xa - xb + dim.length) % dim.length;
}

// In dimension d the message stays on one line, so consecutive links of a stretch are
// consecutive edges of the line: no table, O(1) per hop.
void Grid::stretch(int at, const Dim& dim, int xb, bool up, std::vector<LinkId>& out) const {
  const int xa = coordinate(at, dim);
  const int length = dim.length;
  const int n = hops(dim, xa, xb, up);
  const LinkId line_base = dim.base + 2 * line_of(at, dim) * dim.edges;
  if (up) {
    for (int k = 0, e = xa; k < n; ++k, e = e + 1 == length ? 0 : e + 1)
      out.push_back(line_base + 2 * e);
  } else {
    for (int k = 0, e = xa == 0 ? length - 1 : xa - 1; k < n; ++k, e = e == 0 ? length - 1 : e - 1)
      out.push_back(line_base + 2 * e + 1);
  }
}

// Dimension order (004 §2 assumption 4): correct coordinate 0 first, then 1, and so on.
void Grid::route(int a, int b, std::vector<LinkId>& out) const {
  detail::check_node(*this, a, nodes_);
  detail::check_node(*this, b, nodes_);
  int at = a;
  for (const Dim& dim : dims_) {
    const int xa = coordinate(at, dim);
    const int xb = coordinate(b, dim);
    if (xa == xb) continue;
    stretch(at, dim, xb, shorter_way_up(dim, xa, xb), out);
    at += (xb - xa) * dim.stride;
  }
}

// Every dimension-ordered route (topology.hpp): for each choice of ways round the rings in
// which a and b differ (bit i of `longer` sends the i-th of them the other way), in order of
// hops and then of `longer`, the first dimension order whose stretches avoid `down`.
bool Grid::route_around(int a, int b, std::span<const LinkId> down,
                        std::vector<LinkId>& out) const {
  detail::check_node(*this, a, nodes_);
  detail::check_node(*this, b, nodes_);
  std::vector<const Dim*> differ;  // the dimensions to correct, in increasing order
  std::vector<int> ring;           // their places in `differ` that are rings
  for (const Dim& dim : dims_) {
    if (coordinate(a, dim) == coordinate(b, dim)) continue;
    if (dim.cyclic) ring.push_back(static_cast<int>(differ.size()));
    differ.push_back(&dim);
  }
  // The other way round ring i costs this many hops more than the shorter one (0 on a tie).
  std::vector<long long> extra;
  for (int i : ring) {
    const Dim& dim = *differ[static_cast<std::size_t>(i)];
    const int xa = coordinate(a, dim), xb = coordinate(b, dim);
    const bool up = shorter_way_up(dim, xa, xb);
    extra.push_back(hops(dim, xa, xb, !up) - hops(dim, xa, xb, up));
  }
  std::vector<std::pair<long long, std::uint32_t>> ways;  // (extra hops, longer)
  for (std::uint32_t longer = 0; longer < (std::uint32_t{1} << ring.size()); ++longer) {
    long long more = 0;
    for (std::size_t i = 0; i < ring.size(); ++i) {
      if ((longer >> i & 1u) != 0) more += extra[i];
    }
    ways.emplace_back(more, longer);
  }
  std::sort(ways.begin(), ways.end());
  std::vector<bool> up(differ.size());
  std::vector<LinkId> links;
  std::vector<int> order;
  for (const auto& [more, longer] : ways) {
    for (std::size_t s = 0; s < differ.size(); ++s) {
      up[s] = shorter_way_up(*differ[s], coordinate(a, *differ[s]), coordinate(b, *differ[s]));
    }
    for (std::size_t i = 0; i < ring.size(); ++i) {
      if ((longer >> i & 1u) != 0) up[static_cast<std::size_t>(ring[i])].flip();
    }
    // Where the stretches of `done` lead: b's coordinates there, a's elsewhere.
    auto node_after = [&](std::uint32_t done) {
      int at = a;
      for (std::size_t s = 0; s < differ.size(); ++s) {
        if ((done >> s & 1u) != 0) {
          at += (coordinate(b, *differ[s]) - coordinate(a, *differ[s])) * differ[s]->stride;
        }
      }
      return at;
    };
    auto open = [&](std::uint32_t done, int s) {
      const Dim& dim = *differ[static_cast<std::size_t>(s)];
      links.clear();
      stretch(node_after(done), dim, coordinate(b, dim), up[static_cast<std::size_t>(s)], links);
      return std::none_of(links.begin(), links.end(),
                          [&](LinkId l) { return detail::is_down(down, l); });
    };
    order.clear();
    if (!detail::first_open_order(static_cast<int>(differ.size()), open, order)) continue;
    std::uint32_t done = 0;
    for (int s : order) {
      const Dim& dim = *differ[static_cast<std::size_t>(s)];
      stretch(node_after(done), dim, coordinate(b, dim), up[static_cast<std::size_t>(s)], out);
      done |= std::uint32_t{1} << s;
    }
    return true;
  }
  return false;
}

std::vector<int> Grid::coordinates(int v) const {
  detail::check_node(*this, v, nodes_);
  std::vector<int> out;
  out.reserve(dims_.size());
  for (const Dim& dim : dims_) out.push_back(coordinate(v, dim));
  return out;
}

int Grid::node_at(std::span<const int> coords) const {
  if (coords.size() != dims_.size())
    throw std::out_of_range(spec() + " has " + std::to_string(dims_.size()) +
                            " dimensions, got " + std::to_string(coords.size()) +
                            " coordinates");
  int v = 0;
  for (std::size_t d = 0; d < dims_.size(); ++d) {
    if (coords[d] < 0 || coords[d] >= dims_[d].length)
      throw std::out_of_range("coordinate " + std::to_string(coords[d]) + " of dimension " +
                              std::to_string(d) + " out of range 0.." +
                              std::to_string(dims_[d].length - 1) + " on " + spec());
    v += coords[d] * dims_[d].stride;
  }
  return v;
}

std::optional<int> Grid::bisection_width() const {
  std::vector<const Dim*> nontrivial;
  for (const Dim& dim : dims_)
    if (dim.length >= 2) nontrivial.push_back(&dim);
  if (nontrivial.empty()) return 0;
  if (nontrivial.size() == 1) return line_weight(nontrivial[0]->cyclic);
  if (nontrivial.size() == 2)
    return grid_2d_bisection_width(nontrivial[0]->length, nontrivial[0]->cyclic,
                                   nontrivial[1]->length, nontrivial[1]->cyclic);
  if (std::all_of(nontrivial.begin(), nontrivial.end(),
                  [](const Dim* dim) { return dim->length == 2; }))
    return nodes_ / 2;
  return std::nullopt;
}

TopologyProperties Grid::properties() const {
  TopologyProperties props;
  props.nodes = nodes_;
  props.links = link_count_ / 2;
  int diameter = 0;
  for (const Dim& dim : dims_) {
    if (dim.length >= 2) props.degree_min += dim.cyclic ? 2 : 1;
    props.degree_max += dim.cyclic || dim.length >= 3 ? 2 : dim.length - 1;
    diameter += dim.cyclic ? dim.length / 2 : dim.length - 1;
  }
  props.diameter = diameter;
  props.connectivity = props.degree_min;
  props.bisection_width = bisection_width();
  return exhaustive::complete_if_small(*this, props);
}

// Bisection width of a 2-D grid, a nodes along dimension 0 and b along dimension 1, each
// a path or a ring; "rows" are the b lines along dimension 0 and "columns" the a lines
// along dimension 1. A row with nodes on both sides of a cut loses at least w0 edges
// (1 for a path, 2 for a ring), a column at least w1. Let S be a half (floor(ab/2) or
// ceil(ab/2) nodes). Three cases cover every S:
// 1. Every row is mixed: the cut has >= w0*b edges. If exactly that, no column is cut,
//    so S is a set of whole columns and |S| a multiple of b: possible when a is even,
//    impossible when a is odd (then b does not divide floor(ab/2) for b >= 2), so some
//    column is cut too: >= w0*b + w1. Both are reached: cut the rows in the middle, and
//    when a is odd give the half column a "jog" (S = the first k columns plus r nodes
//    of column k). So this case costs A = w0*b + (a odd ? w1 : 0).
// 2. Every column is mixed: symmetrically B = w1*a + (b odd ? w0 : 0).
// 3. Some row and some column are not mixed: they cross, so they lie on one side, say
//    S', and every row or column that is not mixed lies in S' too. The other side lies
//    in the x mixed rows and c mixed columns, so x*c >= floor(ab/2), x <= b-1, c <= a-1,
//    and the cut has >= w0*x + w1*c edges; C is the least such value.
// The width is min(A, B) whenever C >= min(A, B), which this function checks rather than
// assumes (it holds for every mesh and torus: C >= b+1 resp. 2(b+1) for a >= b); when it
// fails the answer is left unknown. 001's square mesh (sqrt p) and torus (2 sqrt p) are
// the even-side values; an odd side n gives n+1 and 2n+2.
std::optional<int> grid_2d_bisection_width(int a, bool a_cyclic, int b, bool b_cyclic) {
  if (a < 2 || b < 2) return std::nullopt;
  const long long w0 = line_weight(a_cyclic && a >= 3);
  const long long w1 = line_weight(b_cyclic && b >= 3);
  const long long half = static_cast<long long>(a) * b / 2;
  const long long cut_rows = w0 * b + (a % 2 == 1 ? w1 : 0);
  const long long cut_columns = w1 * a + (b % 2 == 1 ? w0 : 0);
  const long long best = std::min(cut_rows, cut_columns);
  for (long long x = 1; x <= b - 1; ++x) {
    const long long c = std::max(1LL, (half + x - 1) / x);
    if (c <= a - 1 && w0 * x + w1 * c < best) return std::nullopt;
  }
  return static_cast<int>(best);
}

}  // namespace vmc
