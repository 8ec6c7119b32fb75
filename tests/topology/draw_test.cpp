// ASCII drawings of small networks, and which networks are drawn at all.
#include <gtest/gtest.h>

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
  EXPECT_EQ(drawing("ring:5"),
            "+-------------------+\n"
            "|                   |\n"
            "0 -- 1 -- 2 -- 3 -- 4\n");
  EXPECT_EQ(drawing("array:4"), "0 -- 1 -- 2 -- 3\n");
  EXPECT_EQ(drawing("ring:2"), "0 -- 1\n");
  EXPECT_EQ(drawing("ring:1"), "0\n");
}

TEST(Draw, Hypercubes) {
  EXPECT_EQ(drawing("hypercube:8"),
            "  6 ------- 7\n"
            " /|        /|\n"
            "2 ------- 3 |\n"
            "| |       | |\n"
            "| 4 ------|-5\n"
            "|/        |/\n"
            "0 ------- 1\n");
  EXPECT_EQ(drawing("hypercube:5"),
            "node  bits  neighbours\n"
            "   0   000  1 2 4\n"
            "   1   001  0 3\n"
            "   2   010  0 3\n"
            "   3   011  1 2\n"
            "   4   100  0\n");
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

TEST(Draw, OnlySmallOneAndTwoDimensionalNetworks) {
  for (const char* spec : {"full:4", "mesh:17x2", "mesh:2x17", "mesh:2x2x2", "ring:17",
                           "hypercube:17", "tree:17"})
    EXPECT_EQ(drawing(spec), "(none)") << spec;
  for (const char* spec : {"mesh:16x16", "torus:16x16", "ring:16", "hypercube:16", "tree:16"})
    EXPECT_NE(drawing(spec), "(none)") << spec;
}

}  // namespace
}  // namespace vmc
