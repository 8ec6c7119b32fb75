// ASCII drawings of networks (see draw.hpp). Sources for the layouts: 003 §4.1 Figures 4.2
// (ring), 4.5 (mesh, node 0 bottom left), 4.6 (3-cube), 4.7 (tree).
//
// Every picture is drawn on a Canvas: labels, and strokes that each draw one undirected link
// (both of its directed links own the character; a later stroke over the same character
// takes it over, as a front edge of a cube hides a back one).
#include "topology/draw.hpp"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "topology/grid.hpp"
#include "topology/hypercube.hpp"
#include "topology/tree.hpp"

namespace vmc {

namespace {

class Canvas {
 public:
  explicit Canvas(const Topology& t) : t_(t) {}

  void text(int line, int column, const std::string& s) {
    for (std::size_t i = 0; i < s.size(); ++i) put(line, column + static_cast<int>(i), s[i]);
  }
  // Node v's label, right-aligned in `width` characters starting at column.
  void label(int line, int column, int v, int width) {
    std::string s = std::to_string(v);
    text(line, column + width - static_cast<int>(s.size()), s);
  }
  // One character of the link a - b: `towards_b` and `towards_a` are what it shows while
  // a -> b and b -> a carry messages.
  void stroke(int line, int column, char c, int a, int b, char towards_b, char towards_a) {
    put(line, column, c);
    owners_[{line, column}] = {{t_.link_between(a, b), towards_b}, {t_.link_between(b, a), towards_a}};
  }
  // A bundle: one character drawing many links.
  void bundle(int line, int column, char c, const std::vector<LinkId>& links) {
    put(line, column, c);
    auto& owners = owners_[{line, column}];
    owners.clear();
    for (LinkId l : links) owners.push_back({l, '#'});
  }
  // From a (left) to b (right) on one line, columns from..to.
  void horizontal(int line, int from, int to, int a, int b) {
    for (int c = from; c <= to; ++c) stroke(line, c, '-', a, b, '>', '<');
  }
  // From a (lower, line `below`) up to b (line `above`), in one column.
  void vertical(int column, int below, int above, int a, int b) {
    for (int l = above + 1; l < below; ++l) stroke(l, column, '|', a, b, '^', 'v');
  }

  AsciiDrawing finish(std::string note) {
    AsciiDrawing d;
    d.lines = lines_;
    for (std::string& line : d.lines) {
      while (!line.empty() && line.back() == ' ') line.pop_back();
    }
    // Lines left empty at the top (an incomplete hypercube's missing back corners) go.
    int blank = 0;
    while (blank + 1 < static_cast<int>(d.lines.size()) && d.lines[blank].empty()) ++blank;
    d.lines.erase(d.lines.begin(), d.lines.begin() + blank);
    d.note = std::move(note);
    d.link_cells.resize(t_.link_count());
    for (const auto& [at, owners] : owners_) {
      for (const auto& [link, busy] : owners) {
        if (link >= 0) d.link_cells[link].push_back({at.first - blank, at.second, busy});
      }
    }
    return d;
  }

 private:
  void put(int line, int column, char c) {
    if (line >= static_cast<int>(lines_.size())) lines_.resize(line + 1);
    std::string& s = lines_[line];
    if (column >= static_cast<int>(s.size())) s.resize(column + 1, ' ');
    s[column] = c;
    owners_.erase({line, column});
  }

  const Topology& t_;
  std::vector<std::string> lines_;
  std::map<std::pair<int, int>, std::vector<std::pair<LinkId, char>>> owners_;
};

int digits(int v) { return static_cast<int>(std::to_string(v).size()); }

constexpr const char* kWrapNote = "(a link leaving the border wraps around to the opposite side)";

// A 2-D grid of nodes id(x, y) with columns x, rows y, row 0 at the bottom, its top line at
// `top`, its first label at column `left` (plus 3 when rows wrap, for the dangling link).
// Cells are `width` characters apart by " -- ".
template <class Id>
void draw_grid_layer(Canvas& c, int top, int left, int columns, int rows, bool wrap_rows,
                     bool wrap_columns, int width, Id id) {
  const int margin = left + (wrap_rows ? 3 : 0);
  auto column_of = [&](int x) { return margin + x * (width + 4); };
  const int first = top + (wrap_columns ? 1 : 0);
  auto line_of = [&](int y) { return first + 2 * (rows - 1 - y); };
  for (int y = 0; y < rows; ++y) {
    for (int x = 0; x < columns; ++x) {
      const int v = id(x, y), at = column_of(x), line = line_of(y);
      c.label(line, at, v, width);
      if (x + 1 < columns) c.horizontal(line, at + width + 1, at + width + 2, v, id(x + 1, y));
      if (y + 1 < rows) c.vertical(at + width - 1, line, line_of(y + 1), v, id(x, y + 1));
    }
    if (wrap_rows) {  // the link from the last column to the first, leaving on the right
      const int last = id(columns - 1, y), line = line_of(y);
      c.horizontal(line, left, left + 1, last, id(0, y));
      const int end = column_of(columns - 1) + width;
      c.horizontal(line, end + 1, end + 2, last, id(0, y));
    }
  }
  if (wrap_columns) {  // the link from the top row to the bottom one, leaving at the top
    for (int x = 0; x < columns; ++x) {
      const int at = column_of(x) + width - 1;
      c.stroke(top, at, '|', id(x, rows - 1), id(x, 0), '^', 'v');
      c.stroke(line_of(0) + 1, at, '|', id(x, rows - 1), id(x, 0), '^', 'v');
    }
  }
}

// A ring of p >= 3 as two rows: 0 .. a-1 left to right on top, a .. p-1 right to left below.
AsciiDrawing draw_ring(const Topology& t, int p) {
  Canvas c(t);
  const int w = digits(p - 1), a = (p + 1) / 2, b = p - a;
  auto column_of = [&](int i) { return i * (w + 4); };
  for (int i = 0; i < a; ++i) {
    c.label(0, column_of(i), i, w);
    if (i + 1 < a) c.horizontal(0, column_of(i) + w + 1, column_of(i) + w + 2, i, i + 1);
  }
  // Below: node a + j under column b - 1 - j.
  for (int j = 0; j < b; ++j) {
    const int v = a + j, at = column_of(b - 1 - j);
    c.label(2, at, v, w);
    if (j + 1 < b) c.horizontal(2, column_of(b - 2 - j) + w + 1, column_of(b - 2 - j) + w + 2, v + 1, v);
  }
  if (a == b) {
    c.vertical(column_of(a - 1) + w - 1, 2, 0, a, a - 1);
  } else {  // the odd one out on top closes the ring diagonally
    c.stroke(1, column_of(a - 1) - 1, '/', a, a - 1, '*', '*');
  }
  c.vertical(w - 1, 2, 0, p - 1, 0);
  return c.finish("");
}

// A line of p nodes as rows of 16, left to right, then right to left, top row first.
AsciiDrawing draw_line(const Topology& t, int p) {
  Canvas c(t);
  const int w = digits(p - 1), per_row = std::min(p, kMaxDrawnSide);
  auto column_of = [&](int v) {
    const int row = v / per_row, i = v % per_row;
    return (row % 2 == 0 ? i : per_row - 1 - i) * (w + 4);
  };
  for (int v = 0; v < p; ++v) {
    const int line = 2 * (v / per_row), at = column_of(v);
    c.label(line, at, v, w);
    if (v + 1 == p) break;
    if ((v + 1) % per_row == 0) {
      c.vertical(at + w - 1, line + 2, line, v + 1, v);
    } else {
      const int left = std::min(at, column_of(v + 1));
      const bool rightwards = column_of(v + 1) > at;
      c.horizontal(line, left + w + 1, left + w + 2, rightwards ? v : v + 1, rightwards ? v + 1 : v);
    }
  }
  return c.finish("");
}

std::optional<AsciiDrawing> draw_grid(const Grid& g) {
  const int p = g.nodes();
  if (g.dimensions() == 1 || p == g.length(0)) {
    if (g.cyclic(0)) return p <= 64 ? std::optional(draw_ring(g, p)) : std::nullopt;
    if (p > 256) return std::nullopt;
    return draw_line(g, p);
  }
  const int columns = g.length(0), rows = g.length(1);
  if (columns > kMaxDrawnSide || rows > kMaxDrawnSide) return std::nullopt;
  const int layers = p / (columns * rows);
  if (layers > 64) return std::nullopt;
  const bool wrap_rows = g.cyclic(0), wrap_columns = rows > 1 && g.cyclic(1);
  const int width = digits(p - 1);
  Canvas c(g);
  if (layers == 1) {
    draw_grid_layer(c, 0, 0, columns, rows, wrap_rows, wrap_columns, width,
                    [&](int x, int y) { return x + columns * y; });
    return c.finish(wrap_rows || wrap_columns ? kWrapNote : "");
  }
  // Layers side by side in bands of at most ~150 columns, each under its coordinates.
  const int layer_width = (wrap_rows ? 6 : 0) + columns * (width + 4) - 4 + width;
  const int gap = 6, per_band = std::max(1, 150 / (layer_width + gap));
  const int layer_lines = 2 * rows - 1 + (wrap_columns ? 2 : 0);
  for (int k = 0; k < layers; ++k) {
    const int top = (k / per_band) * (layer_lines + 2), left = (k % per_band) * (layer_width + gap);
    const std::vector<int> coords = g.coordinates(k * columns * rows);
    std::string caption;
    for (int d = 2; d < g.dimensions(); ++d) caption += (d > 2 ? "," : "") + std::to_string(coords[d]);
    c.text(top, left, g.dimensions() == 3 ? "x2 = " + caption : "(x2..) = (" + caption + ")");
    draw_grid_layer(c, top + 1, left, columns, rows, wrap_rows, wrap_columns, width,
                    [&](int x, int y) { return x + columns * (y + rows * k); });
  }
  std::string note = "(each layer holds dimensions 0 and 1; a node is also linked to the node "
                     "at its place in the next layer of each higher dimension";
  note += (wrap_rows || wrap_columns) ? "; a link leaving a layer's border wraps around)" : ")";
  return c.finish(note);
}

// The 3-cube of v's low three bits at (top, left), as 003 Fig. 4.6 draws it: bit 0 to the
// right, bit 1 up, bit 2 back. Labels `w` wide; only nodes below p and their links.
void draw_cube(Canvas& c, int top, int left, int base, int p, int w, int d) {
  const int across = w + 9, depth = w + 1;
  auto line_of = [&](int v) {
    return top + (d >= 3 ? 6 : d == 2 ? 2 : 0) - (d >= 3 ? 4 : 2) * ((v >> 1) & 1) -
           2 * ((v >> 2) & 1);
  };
  auto column_of = [&](int v) {
    return left + (d >= 3 ? across : w + 4) * (v & 1) + depth * ((v >> 2) & 1);
  };
  auto edge = [&](int u, int bit) {
    const int v = u | bit;
    if (base + v >= p || (bit > 1 && d < 2) || (bit > 2 && d < 3)) return;
    const int a = base + u, b = base + v;
    if (bit == 1) {
      c.horizontal(line_of(u), column_of(u) + w + 1, column_of(v) - 2, a, b);
    } else if (bit == 2) {
      c.vertical(column_of(u) + w - 1, line_of(u), line_of(v), a, b);
    } else {
      c.stroke(line_of(u) - 1, column_of(v) - 1, '/', a, b, '*', '*');
    }
  };
  // Back face first, then the depth edges, then the front face over them.
  for (int u : {4, 6}) edge(u, 1);
  for (int u : {4, 5}) edge(u, 2);
  for (int u : {0, 1, 2, 3}) edge(u, 4);
  for (int u : {0, 2}) edge(u, 1);
  for (int u : {0, 1}) edge(u, 2);
  for (int v = 0; v < (1 << std::min(d, 3)) && base + v < p; ++v) {
    c.label(line_of(v), column_of(v), base + v, w);
  }
}

std::optional<AsciiDrawing> draw_hypercube(const Hypercube& h) {
  const int p = h.nodes(), d = h.dimension();
  if (d > 6) return std::nullopt;
  Canvas c(h);
  if (p == 1) {
    c.label(0, 0, 0, 1);
    return c.finish("");
  }
  const int w = digits(p - 1);
  if (d <= 3) {
    draw_cube(c, 0, 0, 0, p, w, d);
    return c.finish(h.complete() ? "" : "(an incomplete hypercube: the corners from " +
                                            std::to_string(p) + " up are missing)");
  }
  // d = 4..6, as the page draws them (tools/show_layout.hpp) but compact: squares of
  // dimensions 0 and 1, the squares of bits 2 and 4 side by side, those of bits 3 and 5 one
  // above the other; the links between two squares are a bundle in the gap between them.
  const int square = 2 * w + 4;
  const int columns = 1 << ((d + 1) / 2 - 1), rows = 1 << (d / 2 - 1);  // of squares
  std::vector<int> left(columns), top(rows);
  for (int sc = 1; sc < columns; ++sc) left[sc] = left[sc - 1] + square + (sc == 2 ? 8 : 6);
  for (int sr = rows - 2; sr >= 0; --sr) top[sr] = top[sr + 1] + 3 + (sr == 1 ? 3 : 2);
  // Square s holds nodes 4s..4s+3; bits 0 and 2 of s (node bits 2 and 4) pick its column.
  auto column_of = [](int s) { return (s & 1) + 2 * ((s >> 2) & 1); };
  auto row_of = [](int s) { return ((s >> 1) & 1) + 2 * ((s >> 3) & 1); };
  auto bundle_between = [&](int s, int t) {
    std::vector<LinkId> links;
    for (int v = 0; v < 4; ++v) {
      const int a = 4 * s + v, b = 4 * t + v;
      if (a < p && b < p) {
        links.push_back(h.link_between(a, b));
        links.push_back(h.link_between(b, a));
      }
    }
    return links;
  };
  // A bundle along line `line` over columns [from, to), or down `column` over lines
  // [from, to); none when no link of it joins two nodes below p.
  auto across_bundle = [&](int line, int from, int to, char ch, const std::vector<LinkId>& links) {
    for (int k = from; !links.empty() && k < to; ++k) c.bundle(line, k, ch, links);
  };
  auto down_bundle = [&](int column, int from, int to, char ch, const std::vector<LinkId>& links) {
    for (int l = from; !links.empty() && l < to; ++l) c.bundle(l, column, ch, links);
  };
  for (int s = 0; 4 * s < p; ++s) {
    const int x = left[column_of(s)], y = top[row_of(s)], base = 4 * s;
    for (int v = 0; v < 4 && base + v < p; ++v) {
      c.label(y + 2 - 2 * (v >> 1), x + (v & 1) * (w + 4), base + v, w);
    }
    for (int v : {0, 2}) {
      if (base + v + 1 < p) c.horizontal(y + 2 - v, x + w + 1, x + w + 2, base + v, base + v + 1);
    }
    for (int v : {0, 1}) {
      if (base + v + 2 < p) c.vertical(x + v * (w + 4) + w - 1, y + 2, y, base + v, base + v + 2);
    }
  }
  // The bundles: ~ to the square beside (bit 2), : above (bit 3), = two along (bit 4, both
  // pairs of a row of squares through the gap between the halves), :: two up (bit 5).
  for (int s = 0; 4 * s < p; ++s) {
    const int sc = column_of(s), sr = row_of(s), x = left[sc], y = top[sr];
    if (sc % 2 == 0 && sc + 1 < columns) {
      across_bundle(y + 1, x + square + 1, left[sc + 1] - 1, '~', bundle_between(s, s ^ 1));
    }
    if (sr % 2 == 0 && sr + 1 < rows) {
      down_bundle(x + square / 2 - 1, top[sr + 1] + 3, y, ':', bundle_between(s, s ^ 2));
    }
    if (sc == 0 && columns == 4) {  // the row's two pairs, s - s^4 and s^1 - s^5
      std::vector<LinkId> links = bundle_between(s, s ^ 4);
      for (LinkId l : bundle_between(s ^ 1, s ^ 5)) links.push_back(l);
      across_bundle(y + 1, left[1] + square + 1, left[2] - 1, '=', links);
    }
    if (sr == 0 && rows == 4) {  // the column's two pairs, s - s^8 and s^2 - s^10
      std::vector<LinkId> links = bundle_between(s, s ^ 8);
      for (LinkId l : bundle_between(s ^ 2, s ^ 10)) links.push_back(l);
      for (int k : {0, 1}) down_bundle(x + square / 2 - 1 + k, top[2] + 3, top[1], ':', links);
    }
  }
  std::string note = "(squares of 4 (v xor 1 across, v xor 2 up) joined corner to corner by "
                     "bundles: ~ the square beside (v xor 4), : the one above (v xor 8)";
  if (d >= 5) note += ", = the one two along (v xor 16)";
  if (d >= 6) note += ", :: the one two up (v xor 32)";
  if (!h.complete()) note += "; corners from " + std::to_string(p) + " up are missing";
  return c.finish(note + ")");
}

void draw_subtree(Canvas& c, const Tree& t, int v, const std::string& prefix, bool last,
                  int& line) {
  std::string label = std::to_string(v);
  if (v >= t.nodes()) label.insert(0, 1, '[').push_back(']');
  if (v == t.root()) {
    c.text(line, 0, label);
  } else {
    c.text(line, 0, prefix + (last ? "`" : "+"));
    const int at = static_cast<int>(prefix.size()) + 1;
    c.horizontal(line, at, at + 1, t.parent(v), v);
    c.text(line, at + 3, label);
  }
  ++line;
  const std::vector<int> children = t.children(v);
  const std::string inner = v == t.root() ? "" : prefix + (last ? "    " : "|   ");
  for (std::size_t i = 0; i < children.size(); ++i)
    draw_subtree(c, t, children[i], inner, i + 1 == children.size(), line);
}

std::optional<AsciiDrawing> draw_tree(const Tree& t) {
  if (t.nodes() > 64) return std::nullopt;
  Canvas c(t);
  int line = 0;
  draw_subtree(c, t, t.root(), "", true, line);
  return c.finish(t.nodes() > 1 ? "([n] is a switch)" : "");
}

std::optional<AsciiDrawing> draw_full(const Topology& t) {
  const int p = t.nodes();
  if (p > 64) return std::nullopt;
  Canvas c(t);
  const int w = digits(p - 1);
  for (int v = 0; v < p; ++v) c.label(2 * (v / 16), (v % 16) * (w + 2), v, w);
  return c.finish(p > 1 ? "(every two nodes have a link of their own; none is drawn)" : "");
}

}  // namespace

std::string AsciiDrawing::text() const {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  if (!note.empty()) out += note + "\n";
  return out;
}

std::string AsciiDrawing::marked(std::span<const LinkId> in_use) const {
  std::vector<std::string> out = lines;
  std::map<std::pair<int, int>, char> set;
  for (LinkId l : in_use) {
    if (l < 0 || l >= static_cast<LinkId>(link_cells.size())) continue;
    for (const Cell& cell : link_cells[l]) {
      auto [it, added] = set.emplace(std::pair{cell.line, cell.column}, cell.busy);
      if (!added && it->second != cell.busy) it->second = '#';
    }
  }
  for (const auto& [at, c] : set) out[at.first][at.second] = c;
  std::string text;
  for (const std::string& line : out) text += line + "\n";
  return text;
}

std::optional<AsciiDrawing> ascii_drawing(const Topology& t) {
  if (const auto* g = dynamic_cast<const Grid*>(&t)) return draw_grid(*g);
  if (const auto* h = dynamic_cast<const Hypercube*>(&t)) return draw_hypercube(*h);
  if (const auto* tree = dynamic_cast<const Tree*>(&t)) return draw_tree(*tree);
  if (t.family() == "full") return draw_full(t);
  return std::nullopt;
}

std::optional<std::string> draw_ascii(const Topology& t) {
  std::optional<AsciiDrawing> d = ascii_drawing(t);
  if (!d) return std::nullopt;
  return d->text();
}

std::string drawable_networks() {
  return "arrays up to 256 nodes, rings up to 64, meshes and tori up to 16x16 per layer and 64 "
         "layers, hypercubes up to 64 nodes, trees up to 64 leaves and full:P up to 64 nodes";
}

}  // namespace vmc
