// Process topologies (MPI-4.1 chapter 8): what a Cartesian, graph or distributed-graph
// communicator knows of its shape (CommEntry::topology, kept through MPI_Comm_dup), and the
// patterns the calls of mpi/topology.cpp and the neighbourhood collectives (mpi/neighbor.cpp)
// are made of. Pure data and functions: no MPI state, no error handling (the calls check
// their arguments first), tested through the conformance programs topo.c and neighbor.c.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mpi/include/mpi.h"

namespace vmc {
class Topology;
}

namespace vmc::mpi {

struct ProcessTopology {
  int kind = MPI_UNDEFINED;  // MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH
  // MPI_CART: the grid, row-major (the last dimension varies fastest, MPI-4.1 8.5.1).
  std::vector<int> dims;
  std::vector<int> periods;  // 0 or 1 per dimension
  // MPI_GRAPH: the whole graph as MPI_Graph_create took it (index[i] is the end of node i's
  // edges in `edges`).
  std::vector<int> index;
  std::vector<int> edges;
  // MPI_DIST_GRAPH: this rank's edges in and out, in the order MPI_Dist_graph_neighbors
  // gives them, with their weights (all 1 when none were given).
  std::vector<int> sources, source_weights;
  std::vector<int> destinations, destination_weights;
  bool weighted = false;
};

// --- Cartesian grids ---------------------------------------------------------------------

// MPI_Dims_create's answer: `dims` with its zero entries filled so that the product of all is
// nnodes, the filled ones in non-increasing order and as close to each other as possible (the
// sequence of filled entries is the lexicographically smallest non-increasing one: the
// largest as small as it can be, then the next, ...). The positive entries are kept. Requires
// nnodes > 0, no negative entry, and the product of the positive ones dividing nnodes.
std::vector<int> balanced_dims(int nnodes, std::span<const int> dims);

// The coordinates of `rank` in a grid (rank < product of dims).
std::vector<int> cart_coords(std::span<const int> dims, int rank);
// The rank at `coords`, each within its dimension.
int cart_rank(std::span<const int> dims, std::span<const int> coords);
// The product of dims (1 for none).
long long grid_size(std::span<const int> dims);

// MPI_Cart_shift: the ranks `disp` steps before and after `rank` along `direction`, or
// MPI_PROC_NULL off a non-periodic edge.
struct Shift {
  int source = MPI_PROC_NULL;
  int dest = MPI_PROC_NULL;
};
Shift cart_shift(const ProcessTopology& t, int rank, int direction, int disp);

// --- neighbourhoods ----------------------------------------------------------------------

// One neighbour of a neighbourhood collective: its rank (MPI_PROC_NULL: an empty transfer)
// and the tag offset of the message to or from it within the call's tag space.
struct Neighbour {
  int rank = MPI_PROC_NULL;
  int tag = 0;
};

// The neighbours a rank receives from (its blocks' order in the receive buffer) and sends to
// (in the send buffer), MPI-4.1 8.6:
// - Cartesian: for each dimension d, the source then the destination of MPI_Cart_shift(d, 1),
//   on both sides. Block s of a sender lands in block s ^ 1 of its receiver, which is how
//   the standard defines a periodic dimension of 1 or 2 ranks, where the source and the
//   destination are one rank (the message sent to the source goes down the dimension, the
//   one sent to the destination up): the tag of send block s is s, of receive block s is s^1.
// - graph: the node's neighbours, in the order MPI_Graph_create listed them, on both sides;
// - distributed graph: its sources and its destinations.
//   Both one tag (0): the k-th message to a rank matches its k-th receive from this one.
struct Neighbourhood {
  std::vector<Neighbour> sources;
  std::vector<Neighbour> destinations;
};
Neighbourhood neighbourhood(const ProcessTopology& t, int rank);

// --- placement on the machine --------------------------------------------------------------

// Where MPI_Cart_create with reorder puts a grid of `dims` on machine `machine` when the grid
// covers all of its nodes and fits its shape. Fits:
// - a mesh or torus (or array, ring) whose lengths other than 1 are the grid's other than 1,
//   in reverse order (grid dimension 0 along the machine's last) or in the same order: the
//   rank at grid coordinates c sits at the node of machine coordinates c, so a Cart_shift by
//   1 is one link (across a periodic edge too where the machine wraps);
// - a complete hypercube with every dimension a power of two: each grid coordinate, Gray
//   coded, is a field of the node's bits (the last dimension in the lowest bits), so
//   neighbours along a dimension differ in one bit, periodic edges included.
// A line that says how, or nullopt for anything else (the ranks stay as they are).
std::optional<std::string> machine_placement(const vmc::Topology& machine,
                                             std::span<const int> dims);
// The grid rank the placement puts at `node` (machine_placement said it fits), from the
// node's coordinates alone.
int placed_rank(const vmc::Topology& machine, std::span<const int> dims, int node);

}  // namespace vmc::mpi
