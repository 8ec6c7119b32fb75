// Process topologies (MPI-4.1 chapter 8): Cartesian, graph and distributed-graph
// communicators, their queries, and MPI_Dims_create. The patterns (balanced dimensions,
// coordinates, shifts, the placement on the machine) are mpi/topology.hpp's; the
// neighbourhood collectives are mpi/neighbor.cpp's.
//
// A communicator with a topology is a new communicator (Comm::split over its parent, free in
// modelled time, as MPI_Comm_split) whose CommEntry carries the topology; MPI_Comm_dup keeps
// it, MPI_Comm_split and the other constructors make communicators without one. Reorder:
// MPI_Cart_create places the ranks on the machine when its grid covers the whole machine and
// fits its mesh, torus or hypercube (machine_placement: rank r at the node of r's grid
// coordinates), so that a Cart_shift neighbour is one link away; otherwise, and for graphs,
// the ranks stay as they are. MPI_Cart_map and MPI_Graph_map answer what the constructors do.
// MPI_Dist_graph_create (every rank may give any rank's edges) exchanges the edges through
// the job (share_values), free in modelled time like every communicator constructor.
//
// Errors name the call and the problem (the report names the rank): negative or zero
// dimensions (MPI_ERR_DIMS), a grid or graph larger than the communicator, an edge to a node
// out of range, coordinates off a non-periodic edge (MPI_ERR_ARG), a rank out of range
// (MPI_ERR_RANK), a Cartesian call on a communicator without a Cartesian topology, a graph
// call without a graph one (MPI_ERR_TOPOLOGY).
#include "mpi/topology.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "mpi/state.hpp"
#include "topology/topology.hpp"

using namespace vmc;
using namespace vmc::mpi;

namespace {

const char* kind_name(int kind) {
  switch (kind) {
    case MPI_CART: return "a Cartesian topology";
    case MPI_GRAPH: return "a graph topology";
    case MPI_DIST_GRAPH: return "a distributed graph topology";
    default: return "no topology";
  }
}

// The topology of kind `kind` of `c`, or MPI_ERR_TOPOLOGY.
const ProcessTopology& topology_or_fail(const char* fn, const RankState& s, MPI_Comm comm,
                                        const CommEntry& c, int kind) {
  const int has = c.topology != nullptr ? c.topology->kind : MPI_UNDEFINED;
  if (has != kind) {
    fail(fn, MPI_ERR_TOPOLOGY,
         comm_label(s, comm) + " has " + kind_name(has) + ", not " + kind_name(kind));
  }
  return *c.topology;
}

// "4 x 5"
std::string shape_text(std::span<const int> dims) {
  std::string t;
  for (std::size_t d = 0; d < dims.size(); ++d) t += (d > 0 ? " x " : "") + std::to_string(dims[d]);
  return dims.empty() ? "no dimensions" : t;
}

// The dimensions of a grid, checked: ndims >= 0, each positive.
std::vector<int> dims_or_fail(const char* fn, int ndims, const int dims[]) {
  if (ndims < 0) fail(fn, MPI_ERR_DIMS, "negative number of dimensions " + std::to_string(ndims));
  if (ndims > 0) check_arg(fn, dims, "dims");
  std::vector<int> out(dims, dims + ndims);
  for (int d = 0; d < ndims; ++d) {
    if (out[static_cast<std::size_t>(d)] <= 0) {
      fail(fn, MPI_ERR_DIMS,
           "dims[" + std::to_string(d) + "] = " + std::to_string(out[static_cast<std::size_t>(d)]) +
               " is not a positive length");
    }
  }
  return out;
}

// A grid that must fit in a communicator of `size` ranks.
void check_fits(const char* fn, std::span<const int> dims, int size) {
  const long long n = grid_size(dims);
  if (n > size) {
    fail(fn, MPI_ERR_ARG,
         "the grid of " + shape_text(dims) + " = " + std::to_string(n) +
             " ranks is larger than the communicator's " + std::to_string(size));
  }
}

// The rank MPI_Cart_create gives the calling rank of `c` in a grid of dims (-1: none); with
// reorder, a grid placed on the machine is the job's note (vmc mpirun --stats) when `say`
// names the call.
int cart_new_rank(const Comm& c, std::span<const int> dims, bool reorder, const char* say) {
  const int size = c.size();
  if (reorder && grid_size(dims) == size && c.topology().nodes() == size) {
    if (const std::optional<std::string> how = machine_placement(c.topology(), dims)) {
      if (say != nullptr) {
        note_once(std::string(say) + " placed a grid of " + shape_text(dims) +
                  " on the machine: " + *how);
      }
      return placed_rank(c.topology(), dims, c.world_rank(c.rank()));
    }
  }
  return c.rank() < grid_size(dims) ? c.rank() : -1;
}

// A new communicator of `comm`'s ranks of colour 0, ranked by key (Comm::split, free in
// modelled time), with `topology`; MPI_COMM_NULL for a rank of colour -1.
MPI_Comm topology_comm(const char* fn, RankState& s, MPI_Comm comm, int color, int key,
                       std::shared_ptr<const ProcessTopology> topology) {
  const CommEntry& c = comm_or_fail(fn, s, comm);
  const MPI_Errhandler errhandler = c.errhandler;
  const CallContext context(std::string(fn) + "(" + comm_label(s, comm) + ")");
  Comm made = constructed(fn, [&] { return c.comm.split(color, key); });
  if (!made.valid()) return MPI_COMM_NULL;
  s.comms.push_back(
      CommEntry{.comm = std::move(made), .errhandler = errhandler, .topology = std::move(topology)});
  return static_cast<MPI_Comm>(s.comms.size() - 1);
}

// Copies up to `max` of `from` to `to` (a null `to` when max is 0 is fine).
void copy_out(const char* fn, const std::vector<int>& from, int max, int to[], const char* what) {
  if (max < 0) fail(fn, MPI_ERR_ARG, std::string("negative ") + what + " " + std::to_string(max));
  const std::size_t n = std::min(from.size(), static_cast<std::size_t>(max));
  if (n > 0) check_arg(fn, to, what);
  std::copy_n(from.begin(), n, to);
}

// The graph MPI_Graph_create and MPI_Graph_map take, checked.
void check_graph(const char* fn, int nnodes, const int index[], const int edges[], int size) {
  if (nnodes < 0) fail(fn, MPI_ERR_ARG, "negative number of nodes " + std::to_string(nnodes));
  if (nnodes > size) {
    fail(fn, MPI_ERR_ARG,
         "the graph of " + std::to_string(nnodes) + " nodes is larger than the communicator's " +
             std::to_string(size) + " ranks");
  }
  if (nnodes == 0) return;
  check_arg(fn, index, "index");
  for (int i = 0; i < nnodes; ++i) {
    const int before = i == 0 ? 0 : index[i - 1];
    if (index[i] < before) {
      fail(fn, MPI_ERR_ARG,
           "index[" + std::to_string(i) + "] = " + std::to_string(index[i]) +
               " is less than the index before it (" + std::to_string(before) + ")");
    }
  }
  if (index[nnodes - 1] > 0) check_arg(fn, edges, "edges");
  for (int i = 0; i < nnodes; ++i) {
    for (int e = i == 0 ? 0 : index[i - 1]; e < index[i]; ++e) {
      if (edges[e] < 0 || edges[e] >= nnodes) {
        fail(fn, MPI_ERR_ARG,
             "edges[" + std::to_string(e) + "] (an edge of node " + std::to_string(i) + ") is " +
                 std::to_string(edges[e]) + ", not a node of the graph's " +
                 std::to_string(nnodes));
      }
    }
  }
}

// Ranks of a communicator of `size` given as edges (MPI_ERR_RANK when out of range).
void check_ranks(const char* fn, int n, const int ranks[], int size, const char* what) {
  if (n > 0) check_arg(fn, ranks, what);
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= size) {
      fail(fn, MPI_ERR_RANK,
           std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(ranks[i]) +
               " is not a rank of a communicator of " + std::to_string(size));
    }
  }
}

// n weights (all 1 when none are given), checked to be non-negative.
std::vector<int> weights_or_ones(const char* fn, int n, const int weights[], const char* what) {
  std::vector<int> out(static_cast<std::size_t>(n), 1);
  if (n == 0 || weights == MPI_UNWEIGHTED) return out;
  if (weights == MPI_WEIGHTS_EMPTY) {
    fail(fn, MPI_ERR_ARG, std::string(what) + " is MPI_WEIGHTS_EMPTY for " + std::to_string(n) +
                              " edges");
  }
  check_arg(fn, weights, what);
  for (int i = 0; i < n; ++i) {
    if (weights[i] < 0) {
      fail(fn, MPI_ERR_ARG,
           std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(weights[i]) +
               " is negative");
    }
    out[static_cast<std::size_t>(i)] = weights[i];
  }
  return out;
}

}  // namespace

extern "C" {

// --- Cartesian topologies ------------------------------------------------------------------

int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
  const char* fn = "MPI_Dims_create";
  return mpi_call(MPI_COMM_NULL, [&] {
    session_state(fn);
    if (nnodes <= 0) fail(fn, MPI_ERR_ARG, "nnodes = " + std::to_string(nnodes) + " is not positive");
    if (ndims < 0) fail(fn, MPI_ERR_DIMS, "negative number of dimensions " + std::to_string(ndims));
    if (ndims > 0) check_arg(fn, dims, "dims");
    long long fixed = 1;
    for (int d = 0; d < ndims; ++d) {
      if (dims[d] < 0) {
        fail(fn, MPI_ERR_DIMS,
             "dims[" + std::to_string(d) + "] = " + std::to_string(dims[d]) + " is negative");
      }
      if (dims[d] > 0) fixed = std::min(fixed * dims[d], static_cast<long long>(nnodes) + 1);
    }
    if (nnodes % fixed != 0) {
      fail(fn, MPI_ERR_DIMS,
           "the dimensions given multiply to " +
               (fixed > nnodes ? "more than " + std::to_string(nnodes)
                               : std::to_string(fixed) + ", which does not divide " +
                                     std::to_string(nnodes)));
    }
    const bool free = std::find(dims, dims + ndims, 0) != dims + ndims;
    if (!free && fixed != nnodes) {
      fail(fn, MPI_ERR_DIMS,
           "every dimension is given and they multiply to " + std::to_string(fixed) + ", not " +
               std::to_string(nnodes));
    }
    const std::vector<int> out = balanced_dims(nnodes, std::span<const int>(dims, static_cast<std::size_t>(ndims)));
    std::copy(out.begin(), out.end(), dims);
    return MPI_SUCCESS;
  });
}

int MPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[],
                    int reorder, MPI_Comm* comm_cart) {
  const char* fn = "MPI_Cart_create";
  return mpi_call(comm_old, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm_old);
    check_arg(fn, comm_cart, "comm_cart");
    auto t = std::make_shared<ProcessTopology>();
    t->kind = MPI_CART;
    t->dims = dims_or_fail(fn, ndims, dims);
    check_fits(fn, t->dims, c.comm.size());
    if (ndims > 0) check_arg(fn, periods, "periods");
    for (int d = 0; d < ndims; ++d) t->periods.push_back(periods[d] != 0 ? 1 : 0);
    const int rank = cart_new_rank(c.comm, t->dims, reorder != 0, fn);
    *comm_cart = topology_comm(fn, s, comm_old, rank >= 0 ? 0 : -1, rank, std::move(t));
    return MPI_SUCCESS;
  });
}

int MPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  const char* fn = "MPI_Cart_map";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    check_arg(fn, newrank, "newrank");
    const std::vector<int> d = dims_or_fail(fn, ndims, dims);
    check_fits(fn, d, c.comm.size());
    if (ndims > 0) check_arg(fn, periods, "periods");
    const int rank = cart_new_rank(c.comm, d, true, nullptr);
    *newrank = rank >= 0 ? rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
  });
}

int MPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  const char* fn = "MPI_Cartdim_get";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const ProcessTopology& t = topology_or_fail(fn, s, comm, comm_or_fail(fn, s, comm), MPI_CART);
    check_arg(fn, ndims, "ndims");
    *ndims = static_cast<int>(t.dims.size());
    return MPI_SUCCESS;
  });
}

int MPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  const char* fn = "MPI_Cart_get";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    const ProcessTopology& t = topology_or_fail(fn, s, comm, c, MPI_CART);
    copy_out(fn, t.dims, maxdims, dims, "dims");
    copy_out(fn, t.periods, maxdims, periods, "periods");
    copy_out(fn, cart_coords(t.dims, c.comm.rank()), maxdims, coords, "coords");
    return MPI_SUCCESS;
  });
}

int MPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  const char* fn = "MPI_Cart_coords";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    const ProcessTopology& t = topology_or_fail(fn, s, comm, c, MPI_CART);
    check_rank(fn, MPI_ERR_RANK, "rank", rank, c.comm);
    if (maxdims < static_cast<int>(t.dims.size())) {
      fail(fn, MPI_ERR_ARG,
           "maxdims = " + std::to_string(maxdims) + " is less than the grid's " +
               std::to_string(t.dims.size()) + " dimensions");
    }
    copy_out(fn, cart_coords(t.dims, rank), maxdims, coords, "coords");
    return MPI_SUCCESS;
  });
}

// Periodic dimensions wrap; a coordinate off a non-periodic one is an error.
int MPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  const char* fn = "MPI_Cart_rank";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const ProcessTopology& t = topology_or_fail(fn, s, comm, comm_or_fail(fn, s, comm), MPI_CART);
    check_arg(fn, rank, "rank");
    if (!t.dims.empty()) check_arg(fn, coords, "coords");
    std::vector<int> c(t.dims.size());
    for (std::size_t d = 0; d < t.dims.size(); ++d) {
      const int length = t.dims[d];
      int x = coords[d];
      if (t.periods[d] != 0) {
        x %= length;
        if (x < 0) x += length;
      } else if (x < 0 || x >= length) {
        fail(fn, MPI_ERR_ARG,
             "coords[" + std::to_string(d) + "] = " + std::to_string(x) +
                 " is off the non-periodic dimension " + std::to_string(d) + " of length " +
                 std::to_string(length));
      }
      c[d] = x;
    }
    *rank = cart_rank(t.dims, c);
    return MPI_SUCCESS;
  });
}

int MPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  const char* fn = "MPI_Cart_shift";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    const ProcessTopology& t = topology_or_fail(fn, s, comm, c, MPI_CART);
    check_arg(fn, rank_source, "rank_source");
    check_arg(fn, rank_dest, "rank_dest");
    if (direction < 0 || direction >= static_cast<int>(t.dims.size())) {
      fail(fn, MPI_ERR_ARG,
           "direction " + std::to_string(direction) + " is not a dimension of the grid's " +
               std::to_string(t.dims.size()));
    }
    const Shift shift = cart_shift(t, c.comm.rank(), direction, disp);
    *rank_source = shift.source;
    *rank_dest = shift.dest;
    return MPI_SUCCESS;
  });
}

// The ranks that share the coordinates of the dimensions dropped form one sub-grid, ranked by
// the coordinates kept (their order in the parent).
int MPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  const char* fn = "MPI_Cart_sub";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    const ProcessTopology& t = topology_or_fail(fn, s, comm, c, MPI_CART);
    check_arg(fn, newcomm, "newcomm");
    if (!t.dims.empty()) check_arg(fn, remain_dims, "remain_dims");
    auto sub = std::make_shared<ProcessTopology>();
    sub->kind = MPI_CART;
    const std::vector<int> coords = cart_coords(t.dims, c.comm.rank());
    int color = 0;
    for (std::size_t d = 0; d < t.dims.size(); ++d) {
      if (remain_dims[d] != 0) {
        sub->dims.push_back(t.dims[d]);
        sub->periods.push_back(t.periods[d]);
      } else {
        color = color * t.dims[d] + coords[d];
      }
    }
    const int rank = c.comm.rank();
    *newcomm = topology_comm(fn, s, comm, color, rank, std::move(sub));
    return MPI_SUCCESS;
  });
}

int MPI_Topo_test(MPI_Comm comm, int* status) {
  const char* fn = "MPI_Topo_test";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    check_arg(fn, status, "status");
    *status = c.topology != nullptr ? c.topology->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
  });
}

// --- graph topologies ------------------------------------------------------------------------

// The ranks stay as they are (reorder is not acted on): node i is rank i.
int MPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                     int /*reorder*/, MPI_Comm* comm_graph) {
  const char* fn = "MPI_Graph_create";
  return mpi_call(comm_old, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm_old);
    check_arg(fn, comm_graph, "comm_graph");
    check_graph(fn, nnodes, index, edges, c.comm.size());
    auto t = std::make_shared<ProcessTopology>();
    t->kind = MPI_GRAPH;
    t->index.assign(index, index + nnodes);
    if (nnodes > 0) t->edges.assign(edges, edges + index[nnodes - 1]);
    const int rank = c.comm.rank();
    *comm_graph = topology_comm(fn, s, comm_old, rank < nnodes ? 0 : -1, rank, std::move(t));
    return MPI_SUCCESS;
  });
}

int MPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
  const char* fn = "MPI_Graph_map";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    check_arg(fn, newrank, "newrank");
    check_graph(fn, nnodes, index, edges, c.comm.size());
    *newrank = c.comm.rank() < nnodes ? c.comm.rank() : MPI_UNDEFINED;
    return MPI_SUCCESS;
  });
}

int MPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  const char* fn = "MPI_Graphdims_get";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const ProcessTopology& t = topology_or_fail(fn, s, comm, comm_or_fail(fn, s, comm), MPI_GRAPH);
    check_arg(fn, nnodes, "nnodes");
    check_arg(fn, nedges, "nedges");
    *nnodes = static_cast<int>(t.index.size());
    *nedges = static_cast<int>(t.edges.size());
    return MPI_SUCCESS;
  });
}

int MPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  const char* fn = "MPI_Graph_get";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const ProcessTopology& t = topology_or_fail(fn, s, comm, comm_or_fail(fn, s, comm), MPI_GRAPH);
    copy_out(fn, t.index, maxindex, index, "index");
    copy_out(fn, t.edges, maxedges, edges, "edges");
    return MPI_SUCCESS;
  });
}

int MPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  const char* fn = "MPI_Graph_neighbors_count";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    const ProcessTopology& t = topology_or_fail(fn, s, comm, c, MPI_GRAPH);
    check_rank(fn, MPI_ERR_RANK, "rank", rank, c.comm);
    check_arg(fn, nneighbors, "nneighbors");
    *nneighbors = static_cast<int>(neighbourhood(t, rank).sources.size());
    return MPI_SUCCESS;
  });
}

int MPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  const char* fn = "MPI_Graph_neighbors";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm);
    const ProcessTopology& t = topology_or_fail(fn, s, comm, c, MPI_GRAPH);
    check_rank(fn, MPI_ERR_RANK, "rank", rank, c.comm);
    std::vector<int> ranks;
    for (const Neighbour& n : neighbourhood(t, rank).sources) ranks.push_back(n.rank);
    copy_out(fn, ranks, maxneighbors, neighbors, "maxneighbors");
    return MPI_SUCCESS;
  });
}

// --- distributed graph topologies ------------------------------------------------------------

// The info's hints are not read; the ranks stay as they are.
int MPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                   const int sourceweights[], int outdegree,
                                   const int destinations[], const int destweights[], MPI_Info,
                                   int /*reorder*/, MPI_Comm* comm_dist_graph) {
  const char* fn = "MPI_Dist_graph_create_adjacent";
  return mpi_call(comm_old, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm_old);
    check_arg(fn, comm_dist_graph, "comm_dist_graph");
    if (indegree < 0 || outdegree < 0) {
      fail(fn, MPI_ERR_ARG,
           "negative degree (indegree " + std::to_string(indegree) + ", outdegree " +
               std::to_string(outdegree) + ")");
    }
    check_ranks(fn, indegree, sources, c.comm.size(), "sources");
    check_ranks(fn, outdegree, destinations, c.comm.size(), "destinations");
    auto t = std::make_shared<ProcessTopology>();
    t->kind = MPI_DIST_GRAPH;
    t->sources.assign(sources, sources + indegree);
    t->destinations.assign(destinations, destinations + outdegree);
    t->source_weights = weights_or_ones(fn, indegree, sourceweights, "sourceweights");
    t->destination_weights = weights_or_ones(fn, outdegree, destweights, "destweights");
    t->weighted = sourceweights != MPI_UNWEIGHTED;  // MPI_WEIGHTS_EMPTY and null are weights
    *comm_dist_graph = topology_comm(fn, s, comm_old, 0, c.comm.rank(), std::move(t));
    return MPI_SUCCESS;
  });
}

// Each rank gives edges of any ranks (sources[i] to its degrees[i] destinations); the ranks
// exchange them through the job (each rank's list shared under the call's key, read by every
// rank once Comm::split, which returns only when every member has called it, has made the new
// communicator). A rank's edges in and out are in the order of the ranks that gave them, and
// each rank's in the order it gave them. Weighted unless every rank passed MPI_UNWEIGHTED.
int MPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                          const int destinations[], const int weights[], MPI_Info,
                          int /*reorder*/, MPI_Comm* comm_dist_graph) {
  const char* fn = "MPI_Dist_graph_create";
  return mpi_call(comm_old, [&] {
    RankState& s = session_state(fn);
    const CommEntry& c = comm_or_fail(fn, s, comm_old);
    const Comm comm = c.comm;
    const MPI_Errhandler errhandler = c.errhandler;
    check_arg(fn, comm_dist_graph, "comm_dist_graph");
    if (n < 0) fail(fn, MPI_ERR_ARG, "negative number of sources " + std::to_string(n));
    check_ranks(fn, n, sources, comm.size(), "sources");
    if (n > 0) check_arg(fn, degrees, "degrees");
    int edges = 0;
    for (int i = 0; i < n; ++i) {
      if (degrees[i] < 0) {
        fail(fn, MPI_ERR_ARG,
             "degrees[" + std::to_string(i) + "] = " + std::to_string(degrees[i]) + " is negative");
      }
      edges += degrees[i];
    }
    check_ranks(fn, edges, destinations, comm.size(), "destinations");
    const std::vector<int> w = weights_or_ones(fn, edges, weights, "weights");
    // This rank's edges: whether it gave weights (anything but MPI_UNWEIGHTED, the standard's
    // rule: MPI_WEIGHTS_EMPTY and a null array with no edges are weights), then (source,
    // destination, weight) each.
    std::vector<std::size_t> mine{weights != MPI_UNWEIGHTED ? 1u : 0u};
    for (int i = 0, e = 0; i < n; ++i) {
      for (int k = 0; k < degrees[i]; ++k, ++e) {
        mine.push_back(static_cast<std::size_t>(sources[i]));
        mine.push_back(static_cast<std::size_t>(destinations[e]));
        mine.push_back(static_cast<std::size_t>(w[static_cast<std::size_t>(e)]));
      }
    }
    CallSignature sig;
    sig.operation = fn;
    sig.check_count = false;
    const Tag base = comm.begin_collective(sig);
    share_values(SharedKey{comm.id(), base + comm.rank()}, std::move(mine), comm.size());
    const CallContext context(std::string(fn) + "(" + comm_label(s, comm_old) + ")");
    // Every rank has shared its edges once it returns.
    Comm made = constructed(fn, [&] { return comm.split(0, comm.rank()); });
    auto t = std::make_shared<ProcessTopology>();
    t->kind = MPI_DIST_GRAPH;
    for (int r = 0; r < comm.size(); ++r) {
      const std::vector<std::size_t> given = take_shared_values(SharedKey{comm.id(), base + r});
      t->weighted = t->weighted || given[0] != 0;
      for (std::size_t k = 1; k + 2 < given.size(); k += 3) {
        const int from = static_cast<int>(given[k]), to = static_cast<int>(given[k + 1]);
        const int weight = static_cast<int>(given[k + 2]);
        if (to == comm.rank()) {
          t->sources.push_back(from);
          t->source_weights.push_back(weight);
        }
        if (from == comm.rank()) {
          t->destinations.push_back(to);
          t->destination_weights.push_back(weight);
        }
      }
    }
    s.comms.push_back(CommEntry{.comm = std::move(made), .errhandler = errhandler, .topology = std::move(t)});
    *comm_dist_graph = static_cast<MPI_Comm>(s.comms.size() - 1);
    return MPI_SUCCESS;
  });
}

int MPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  const char* fn = "MPI_Dist_graph_neighbors_count";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const ProcessTopology& t =
        topology_or_fail(fn, s, comm, comm_or_fail(fn, s, comm), MPI_DIST_GRAPH);
    check_arg(fn, indegree, "indegree");
    check_arg(fn, outdegree, "outdegree");
    check_arg(fn, weighted, "weighted");
    *indegree = static_cast<int>(t.sources.size());
    *outdegree = static_cast<int>(t.destinations.size());
    *weighted = t.weighted ? 1 : 0;
    return MPI_SUCCESS;
  });
}

int MPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                             int maxoutdegree, int destinations[], int destweights[]) {
  const char* fn = "MPI_Dist_graph_neighbors";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const ProcessTopology& t =
        topology_or_fail(fn, s, comm, comm_or_fail(fn, s, comm), MPI_DIST_GRAPH);
    copy_out(fn, t.sources, maxindegree, sources, "sources");
    copy_out(fn, t.destinations, maxoutdegree, destinations, "destinations");
    if (sourceweights != MPI_UNWEIGHTED && sourceweights != MPI_WEIGHTS_EMPTY) {
      copy_out(fn, t.source_weights, maxindegree, sourceweights, "sourceweights");
    }
    if (destweights != MPI_UNWEIGHTED && destweights != MPI_WEIGHTS_EMPTY) {
      copy_out(fn, t.destination_weights, maxoutdegree, destweights, "destweights");
    }
    return MPI_SUCCESS;
  });
}

}  // extern "C"
