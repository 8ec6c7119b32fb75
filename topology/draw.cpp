// ASCII drawings of small networks (see draw.hpp). Sources for the layouts: 003 §4.1
// Figures 4.2 (ring), 4.5 (mesh, node 0 bottom left), 4.6 (3-cube), 4.7 (tree).
#include "topology/draw.hpp"

#include <string>
#include <vector>

#include "topology/grid.hpp"
#include "topology/hypercube.hpp"
#include "topology/tree.hpp"

namespace vmc {

namespace {

constexpr std::string_view kLink = " -- ";

std::string padded(int value, std::size_t width) {
  std::string s = std::to_string(value);
  return std::string(width > s.size() ? width - s.size() : 0, ' ') + s;
}

// Lines drawn column by column: cell i of a row ends at column end_column(i).
struct Layout {
  std::size_t width;   // characters per node label
  std::size_t margin;  // characters before the first cell
  std::size_t end_column(int i) const { return margin + i * (width + kLink.size()) + width - 1; }
};

std::string row_of_nodes(const Layout& layout, const std::vector<int>& ids, bool wrap) {
  std::string line = wrap ? "-- " : std::string(layout.margin, ' ');
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (i > 0) line += kLink;
    line += padded(ids[i], layout.width);
  }
  if (wrap) line += " --";
  return line + "\n";
}

std::string marks_under(const Layout& layout, int cells, char mark) {
  std::string line(layout.end_column(cells - 1) + 1, ' ');
  for (int i = 0; i < cells; ++i) line[layout.end_column(i)] = mark;
  return line + "\n";
}

// A ring as a row with the closing link drawn as an arc above it.
std::string draw_ring(int p) {
  const Layout layout{std::to_string(p - 1).size(), 0};
  const std::size_t first = layout.end_column(0);
  const std::size_t last = layout.end_column(p - 1);
  std::string arc(last + 1, ' ');
  std::fill(arc.begin() + first, arc.end(), '-');
  arc[first] = arc[last] = '+';
  std::string sides(last + 1, ' ');
  sides[first] = sides[last] = '|';
  std::vector<int> ids(p);
  for (int i = 0; i < p; ++i) ids[i] = i;
  return arc + "\n" + sides + "\n" + row_of_nodes(layout, ids, false);
}

// Rows of dimension 0, dimension 1 upwards; dangling links at the border wrap around.
std::optional<std::string> draw_grid(const Grid& g) {
  if (g.dimensions() > 2) return std::nullopt;
  const int columns = g.length(0);
  const int rows = g.dimensions() == 2 ? g.length(1) : 1;
  if (columns > kMaxDrawnSide || rows > kMaxDrawnSide) return std::nullopt;
  if (rows == 1 && g.cyclic(0)) return draw_ring(columns);
  const bool wrap_rows = g.cyclic(0);
  const bool wrap_columns = rows > 1 && g.cyclic(1);
  const Layout layout{std::to_string(g.nodes() - 1).size(), wrap_rows ? 3u : 0u};
  std::string out;
  if (wrap_columns) out += marks_under(layout, columns, '|');
  for (int y = rows - 1; y >= 0; --y) {
    std::vector<int> ids(columns);
    for (int x = 0; x < columns; ++x) ids[x] = x + columns * y;
    out += row_of_nodes(layout, ids, wrap_rows);
    if (y > 0 || wrap_columns) out += marks_under(layout, columns, '|');
  }
  if (wrap_rows || wrap_columns) out += "(a link leaving the border wraps around to the opposite side)\n";
  return out;
}

std::optional<std::string> draw_hypercube(const Hypercube& h) {
  const int p = h.nodes();
  if (p == 1) return "0\n";
  if (p == 2) return "0 -- 1\n";
  if (p == 4)
    return "2 -- 3\n"
           "|    |\n"
           "0 -- 1\n";
  if (p == 8)
    return "  6 ------- 7\n"
           " /|        /|\n"
           "2 ------- 3 |\n"
           "| |       | |\n"
           "| 4 ------|-5\n"
           "|/        |/\n"
           "0 ------- 1\n";
  if (p > kMaxDrawnSide) return std::nullopt;
  const int d = h.dimension();  // at most 4 here
  std::string out = "node  bits  neighbours\n";
  for (int v = 0; v < p; ++v) {
    out += padded(v, 4);
    out += "  ";
    for (int k = 3; k >= 0; --k) out += k >= d ? ' ' : (v >> k) & 1 ? '1' : '0';
    out += " ";
    for (int u : h.neighbours(v)) {
      out += ' ';
      out += std::to_string(u);
    }
    out += '\n';
  }
  return out;
}

void draw_subtree(const Tree& t, int v, const std::string& prefix, bool last, std::string& out) {
  std::string label = std::to_string(v);
  if (v >= t.nodes()) label.insert(0, 1, '[').push_back(']');
  if (v == t.root()) {
    out += label + "\n";
  } else {
    out += prefix + (last ? "`-- " : "+-- ") + label + "\n";
  }
  const std::vector<int> children = t.children(v);
  const std::string inner = v == t.root() ? "" : prefix + (last ? "    " : "|   ");
  for (std::size_t i = 0; i < children.size(); ++i)
    draw_subtree(t, children[i], inner, i + 1 == children.size(), out);
}

std::optional<std::string> draw_tree(const Tree& t) {
  if (t.nodes() > kMaxDrawnSide) return std::nullopt;
  std::string out;
  draw_subtree(t, t.root(), "", true, out);
  if (t.nodes() > 1) out += "([n] is a switch)\n";
  return out;
}

}  // namespace

std::optional<std::string> draw_ascii(const Topology& t) {
  if (const auto* g = dynamic_cast<const Grid*>(&t)) return draw_grid(*g);
  if (const auto* h = dynamic_cast<const Hypercube*>(&t)) return draw_hypercube(*h);
  if (const auto* tree = dynamic_cast<const Tree*>(&t)) return draw_tree(*tree);
  return std::nullopt;
}

std::string drawable_networks() {
  const std::string n = std::to_string(kMaxDrawnSide);
  return "rings and arrays up to " + n + " nodes, 2-D meshes and tori up to " + n + "x" + n +
         ", hypercubes up to " + n + " nodes and trees up to " + n + " leaves";
}

}  // namespace vmc
