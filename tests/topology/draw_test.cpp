// ASCII drawings of small networks, and which networks are drawn at all.
#include <gtest/gtest.h>

#include <cctype>
#include <set>

#include "topology/draw.hpp"

namespace vmc {
namespace {

std::string drawing(const char* spec) { return draw_ascii(*parse_topology(spec)).value_or("(none)"); }

TEST(Draw, MeshWithNodeZeroBottomLeft) {
  EXPECT_EQ(drawing("mesh:4x3"),
            " 8 --  9 -- 10 -- 11\n"
            " |     |     |     |\n"
            " 4 --  5 --  6 --  7\n"
            " |     |     |     |\n"
            " 0 --  1 --  2 --  3\n");
  EXPECT_EQ(drawing("mesh:1x3"), "2\n|\n1\n|\n0\n");
}

TEST(Draw, TorusWithDanglingWraparoundLinks) {
  EXPECT_EQ(drawing("torus:3x3"),
            "   |    |    |\n"
            "-- 6 -- 7 -- 8 --\n"
            "   |    |    |\n"
            "-- 3 -- 4 -- 5 --\n"
            "   |    |    |\n"
            "-- 0 -- 1 -- 2 --\n"
            "   |    |    |\n"
            "(a link leaving the border wraps around to the opposite side)\n");
  EXPECT_EQ(drawing("mesh:3wx2"),
            "-- 3 -- 4 -- 5 --\n"
            "   |    |    |\n"
            "-- 0 -- 1 -- 2 --\n"
            "(a link leaving the border wraps around to the opposite side)\n");
  // A wrapped dimension of length 2 is a single link pair: nothing dangles.
  EXPECT_EQ(drawing("torus:2x2"), "2 -- 3\n|    |\n0 -- 1\n");
}

TEST(Draw, RingsAndArrays) {
  // 003 Fig. 4.2: the ring closed at both ends.
  EXPECT_EQ(drawing("ring:8"),
            "0 -- 1 -- 2 -- 3\n"
            "|              |\n"
            "7 -- 6 -- 5 -- 4\n");
  EXPECT_EQ(drawing("ring:5"),
            "0 -- 1 -- 2\n"
            "|        /\n"
            "4 -- 3\n");
  EXPECT_EQ(drawing("array:4"), "0 -- 1 -- 2 -- 3\n");
  EXPECT_EQ(drawing("ring:2"), "0 -- 1\n");
  EXPECT_EQ(drawing("ring:1"), "0\n");
  // Long arrays snake in rows of 16.
  const std::string array = drawing("array:18");
  EXPECT_NE(array.find("14 -- 15\n"), std::string::npos) << array;
  EXPECT_NE(array.find("17 -- 16\n"), std::string::npos) << array;
}

TEST(Draw, Hypercubes) {
  EXPECT_EQ(drawing("hypercube:8"),
            "  6 ------- 7\n"
            " /|        /|\n"
            "2 ------- 3 |\n"
            "| |       | |\n"
            "| 4 ------| 5\n"
            "|/        |/\n"
            "0 ------- 1\n");
  EXPECT_EQ(drawing("hypercube:5"),
            "2 ------- 3\n"
            "|         |\n"
            "| 4       |\n"
            "|/        |\n"
            "0 ------- 1\n"
            "(an incomplete hypercube: the corners from 5 up are missing)\n");
  // d = 4..6: squares side by side and one above the other, joined by bundles.
  EXPECT_EQ(drawing("hypercube:16"),
            "10 -- 11      14 -- 15\n"
            " |     | ~~~~  |     |\n"
            " 8 --  9      12 -- 13\n"
            "   :             :\n"
            "   :             :\n"
            " 2 --  3       6 --  7\n"
            " |     | ~~~~  |     |\n"
            " 0 --  1       4 --  5\n"
            "(squares of 4 (v xor 1 across, v xor 2 up) joined corner to corner by bundles: ~ "
            "the square beside (v xor 4), : the one above (v xor 8))\n");
  // Every node drawn.
  for (const char* spec : {"hypercube:16", "hypercube:40", "hypercube:64"}) {
    // The numbers of the picture (the note's "8", "16", "32" aside).
    const std::string d = drawing(spec);
    std::set<int> labels;
    for (std::size_t i = 0; i < d.size() && d[i] != '(';) {
      if (!std::isdigit(static_cast<unsigned char>(d[i]))) {
        ++i;
        continue;
      }
      std::size_t used = 0;
      labels.insert(std::stoi(d.substr(i), &used));
      i += used;
    }
    const int p = parse_topology(spec)->nodes();
    EXPECT_EQ(labels.size(), static_cast<std::size_t>(p)) << d;
    EXPECT_EQ(*labels.rbegin(), p - 1) << d;
  }
}

TEST(Draw, LayersOfThreeDimensionalMeshes) {
  EXPECT_EQ(drawing("mesh:2x2x2"),
            "x2 = 0       x2 = 1\n"
            "2 -- 3       6 -- 7\n"
            "|    |       |    |\n"
            "0 -- 1       4 -- 5\n"
            "(each layer holds dimensions 0 and 1; a node is also linked to the node at its "
            "place in the next layer of each higher dimension)\n");
}

// Marking a link changes exactly its characters, with the way it goes.
TEST(Draw, LinksInUseAreMarked) {
  const auto t = parse_topology("mesh:3x2");
  const AsciiDrawing d = *ascii_drawing(*t);
  const LinkId right = t->link_between(0, 1), up = t->link_between(1, 4);
  const LinkId left = t->link_between(1, 0);
  EXPECT_EQ(d.marked(std::vector<LinkId>{right, up}),
            "3 -- 4 -- 5\n"
            "|    ^    |\n"
            "0 >> 1 -- 2\n");
  EXPECT_EQ(d.marked(std::vector<LinkId>{right, left}),
            "3 -- 4 -- 5\n"
            "|    |    |\n"
            "0 ## 1 -- 2\n");
  // Every link of every drawn network has characters of its own, except where the picture
  // says it does not draw them (full:P, links between layers).
  for (const char* spec : {"mesh:4x3", "torus:3x3", "ring:7", "array:20", "hypercube:8",
                           "hypercube:16", "hypercube:40", "hypercube:64", "tree:6"}) {
    const auto net = parse_topology(spec);
    const AsciiDrawing drawn = *ascii_drawing(*net);
    for (LinkId l = 0; l < net->link_count(); ++l) {
      EXPECT_FALSE(drawn.link_cells[l].empty()) << spec << " link " << l;
      EXPECT_NE(drawn.marked(std::vector<LinkId>{l}), drawn.marked({})) << spec << " link " << l;
    }
  }
}

TEST(Draw, TreeSideways) {
  EXPECT_EQ(drawing("tree:5"),
            "[5]\n"
            "+-- [6]\n"
            "|   +-- [8]\n"
            "|   |   +-- 0\n"
            "|   |   `-- 1\n"
            "|   `-- 2\n"
            "`-- [7]\n"
            "    +-- 3\n"
            "    `-- 4\n"
            "([n] is a switch)\n");
  EXPECT_EQ(drawing("tree:1"), "0\n");
}

TEST(Draw, EveryFamilyUpToItsSize) {
  for (const char* spec : {"full:4", "mesh:2x2x2", "mesh:3x3x2x2", "ring:64", "array:256",
                           "hypercube:64", "tree:64", "mesh:16x16", "torus:16x16"})
    EXPECT_NE(drawing(spec), "(none)") << spec;
  for (const char* spec : {"full:65", "mesh:17x2", "mesh:2x17", "ring:65", "array:257",
                           "hypercube:65", "tree:65"})
    EXPECT_EQ(drawing(spec), "(none)") << spec;
}

}  // namespace
}  // namespace vmc
