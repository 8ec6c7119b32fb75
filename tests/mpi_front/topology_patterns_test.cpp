// The pure patterns of MPI's process topologies (mpi/topology.hpp), without threads: the
// balanced dimensions against a search of every factorisation, grid coordinates and shifts,
// the Cartesian neighbourhood's pairing of send and receive blocks, and the placement of a
// grid on the machine (every shift neighbour one link away on every machine it fits, a
// bijection of ranks and nodes, nothing placed where it does not fit).
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "mpi/topology.hpp"
#include "topology/topology.hpp"

namespace {

using vmc::mpi::balanced_dims;
using vmc::mpi::cart_coords;
using vmc::mpi::cart_rank;
using vmc::mpi::cart_shift;
using vmc::mpi::grid_size;
using vmc::mpi::machine_placement;
using vmc::mpi::neighbourhood;
using vmc::mpi::placed_rank;
using vmc::mpi::ProcessTopology;

std::vector<int> dims_of(int nnodes, std::vector<int> given) { return balanced_dims(nnodes, given); }

TEST(BalancedDims, TheStandardsExamplesAndHandValues) {
  EXPECT_EQ(dims_of(6, {0, 0}), (std::vector<int>{3, 2}));
  EXPECT_EQ(dims_of(7, {0, 0}), (std::vector<int>{7, 1}));
  EXPECT_EQ(dims_of(6, {0, 3, 0}), (std::vector<int>{2, 3, 1}));
  EXPECT_EQ(dims_of(16, {0, 0}), (std::vector<int>{4, 4}));
  EXPECT_EQ(dims_of(24, {0, 0, 0}), (std::vector<int>{4, 3, 2}));
  EXPECT_EQ(dims_of(72, {0, 0, 0}), (std::vector<int>{6, 4, 3}));
  EXPECT_EQ(dims_of(1000000000, {0, 0, 0}), (std::vector<int>{1000, 1000, 1000}));
  EXPECT_EQ(dims_of(1, {}), (std::vector<int>{}));
  EXPECT_EQ(dims_of(8, {2, 4}), (std::vector<int>{2, 4}));
}

// Every non-increasing factorisation of n into k factors, the lexicographically smallest
// first: what balanced_dims must give.
std::vector<int> smallest_by_search(int n, int k) {
  std::vector<std::vector<int>> all;
  std::vector<int> cur;
  std::function<void(int, int)> walk = [&](int left, int cap) {
    if (static_cast<int>(cur.size()) == k) {
      if (left == 1) all.push_back(cur);
      return;
    }
    for (int d = 1; d <= std::min(left, cap); ++d) {
      if (left % d != 0) continue;
      cur.push_back(d);
      walk(left / d, d);
      cur.pop_back();
    }
  };
  walk(n, n);
  return *std::min_element(all.begin(), all.end());
}

TEST(BalancedDims, IsTheSmallestNonIncreasingFactorisationForEveryNAndK) {
  for (int n = 1; n <= 130; ++n) {
    for (int k = 1; k <= 4; ++k) {
      EXPECT_EQ(dims_of(n, std::vector<int>(static_cast<std::size_t>(k), 0)),
                smallest_by_search(n, k))
          << n << " in " << k;
    }
  }
}

ProcessTopology grid(std::vector<int> dims, std::vector<int> periods) {
  ProcessTopology t;
  t.kind = MPI_CART;
  t.dims = std::move(dims);
  t.periods = std::move(periods);
  return t;
}

TEST(CartGrid, CoordinatesAreRowMajorAndShiftsStopAtOpenEdges) {
  const ProcessTopology t = grid({3, 4}, {0, 1});
  EXPECT_EQ(cart_coords(t.dims, 7), (std::vector<int>{1, 3}));
  EXPECT_EQ(cart_rank(t.dims, std::vector<int>{1, 3}), 7);
  EXPECT_EQ(cart_shift(t, 7, 0, 1).source, 3);
  EXPECT_EQ(cart_shift(t, 7, 0, 1).dest, 11);
  EXPECT_EQ(cart_shift(t, 7, 0, 2).dest, MPI_PROC_NULL);
  EXPECT_EQ(cart_shift(t, 7, 1, 1).dest, 4);  // periodic: wraps to column 0
  EXPECT_EQ(cart_shift(t, 7, 1, -5).dest, 6);
}

// On a grid, what a rank sends as block s with tag s is what its neighbour receives, from it,
// as the block whose tag is s: the send to the source goes down the dimension and lands in the
// neighbour's destination block, in every dimension, also when source and destination are one
// rank (a periodic dimension of 1 or 2).
TEST(CartNeighbourhood, EverySendMeetsTheReceiveOfItsTagAtItsNeighbour) {
  for (const ProcessTopology& t :
       {grid({1}, {1}), grid({2}, {1}), grid({3}, {1}), grid({2, 3}, {1, 0}), grid({1, 2, 2}, {1, 1, 0})}) {
    const int p = static_cast<int>(grid_size(t.dims));
    for (int r = 0; r < p; ++r) {
      const auto mine = neighbourhood(t, r);
      ASSERT_EQ(mine.destinations.size(), 2 * t.dims.size());
      for (std::size_t s = 0; s < mine.destinations.size(); ++s) {
        const auto& to = mine.destinations[s];
        if (to.rank == MPI_PROC_NULL) continue;
        const auto theirs = neighbourhood(t, to.rank);
        const auto& back = theirs.sources[s ^ 1];
        EXPECT_EQ(back.rank, r);
        EXPECT_EQ(back.tag, to.tag);
      }
    }
  }
}

// Every shift by 1 of a placed grid is one link of the machine (a periodic one where the
// machine wraps), and the placement is a bijection.
void expect_placed_one_link_apart(const std::string& spec, std::vector<int> dims, bool wraps) {
  SCOPED_TRACE(spec);
  const auto machine = vmc::parse_topology(spec);
  ASSERT_TRUE(machine_placement(*machine, dims).has_value());
  const int p = machine->nodes();
  std::vector<int> node_of(static_cast<std::size_t>(p), -1);
  for (int node = 0; node < p; ++node) {
    const int r = placed_rank(*machine, dims, node);
    ASSERT_GE(r, 0);
    ASSERT_LT(r, p);
    EXPECT_EQ(node_of[static_cast<std::size_t>(r)], -1) << "rank " << r << " placed twice";
    node_of[static_cast<std::size_t>(r)] = node;
  }
  const ProcessTopology t = grid(dims, std::vector<int>(dims.size(), wraps ? 1 : 0));
  for (int r = 0; r < p; ++r) {
    for (int d = 0; d < static_cast<int>(dims.size()); ++d) {
      const int next = cart_shift(t, r, d, 1).dest;
      if (next == MPI_PROC_NULL || next == r) continue;
      EXPECT_NE(machine->link_between(node_of[static_cast<std::size_t>(r)],
                                      node_of[static_cast<std::size_t>(next)]),
                -1)
          << "rank " << r << " and its neighbour " << next << " along " << d;
    }
  }
}

TEST(CartPlacement, ShiftNeighboursAreOneLinkApartWhereTheGridFits) {
  expect_placed_one_link_apart("mesh:4x4", {4, 4}, false);
  expect_placed_one_link_apart("mesh:2x8", {2, 8}, false);
  expect_placed_one_link_apart("mesh:2x8", {8, 2}, false);
  expect_placed_one_link_apart("mesh:3x5", {5, 3}, false);
  expect_placed_one_link_apart("mesh:2x3x4", {4, 3, 2}, false);
  expect_placed_one_link_apart("mesh:2x3x4", {2, 3, 4}, false);
  expect_placed_one_link_apart("mesh:1x6", {6}, false);
  expect_placed_one_link_apart("array:6", {1, 6, 1}, false);
  expect_placed_one_link_apart("torus:4x4", {4, 4}, true);
  expect_placed_one_link_apart("torus:3x5", {3, 5}, true);
  expect_placed_one_link_apart("torus:2x4x2", {2, 4, 2}, true);
  expect_placed_one_link_apart("ring:7", {7}, true);
  expect_placed_one_link_apart("hypercube:16", {4, 4}, true);
  expect_placed_one_link_apart("hypercube:16", {16}, true);
  expect_placed_one_link_apart("hypercube:16", {2, 8}, true);
  expect_placed_one_link_apart("hypercube:32", {2, 4, 4}, true);
  expect_placed_one_link_apart("hypercube:8", {2, 2, 2}, true);
}

TEST(CartPlacement, NothingIsPlacedWhereTheGridDoesNotFit) {
  for (const auto& [spec, dims] : std::vector<std::pair<std::string, std::vector<int>>>{
           {"mesh:4x4", {2, 8}},
           {"mesh:4x4", {4, 2}},    // smaller than the machine
           {"mesh:3x4", {2, 6}},
           {"hypercube:12", {3, 4}},  // an incomplete cube
           {"hypercube:16", {3, 5}},  // not a grid of 16
           {"full:16", {4, 4}},
           {"tree:16", {4, 4}}}) {
    EXPECT_FALSE(machine_placement(*vmc::parse_topology(spec), dims).has_value()) << spec;
  }
}

TEST(CartPlacement, TheWorldOnAMeshOfTheGridsShapeStaysWhereItIs) {
  // mesh:4x6 (dimension 0 of length 4 varies fastest) and dims {6, 4}: rank r is node r.
  const auto machine = vmc::parse_topology("mesh:4x6");
  const std::vector<int> dims{6, 4};
  for (int node = 0; node < 24; ++node) EXPECT_EQ(placed_rank(*machine, dims, node), node);
}

}  // namespace
