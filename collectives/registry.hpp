// The algorithm registry: one table per operation. The selector, the CLI, the docs and the
// tests all read these tables, so adding an algorithm is adding one file and one row.
//
// A row: name, description, requirements (text), applicable (bool, never throws), cost
// (predicted time of the code as written, integer picoseconds) and the entry point.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/op.hpp"
#include "runtime/comm.hpp"
#include "runtime/model.hpp"
#include "topology/topology.hpp"

namespace vmc {

enum class Operation {
  broadcast, reduce, allreduce, allgather, reduce_scatter, scan, exscan, scatter, gather,
  alltoall, barrier, scatterv, gatherv, allgatherv, alltoallv,
};
std::string to_string(Operation op);
Operation parse_operation(std::string_view s);  // throws std::invalid_argument
const std::vector<Operation>& all_operations();

// Options every collective takes. `algorithm` is a registry name or "auto".
struct Options {
  std::string algorithm = "auto";
  // pipelined algorithms: items per segment (0: the algorithm picks)
  std::size_t segment_items = 0;
  // allreduce/reduce "hybrid" (000 §3.4): strategy S_0..S_{d-1}, 1 = halve (Version 3 step)
  std::vector<int> strategy;
};

// What a cost function and an applicability predicate see.
struct CostQuery {
  const Topology* topology = nullptr;
  Model model;
  CostUnits units;
  int p = 1;
  std::size_t n = 0;           // MPI count (see each operation)
  int root = 0;
  std::size_t item_size = 1;
  bool commutative = true;
  bool in_place = false;
  // v-variants: per-rank counts (empty for the regular forms)
  std::vector<std::size_t> counts;
  Options options;
};

// The data of one call, type-erased. Buffers are item arrays of item_size bytes.
struct Call {
  const Comm* comm = nullptr;
  const void* send = nullptr;  // null for in-place
  void* recv = nullptr;
  std::size_t n = 0;
  std::size_t item_size = 1;
  const Op* op = nullptr;
  int root = 0;
  Tag tag = 0;                 // first tag of this call's tag space
  const Options* options = nullptr;
  // v-variants
  std::span<const std::size_t> send_counts, send_displs, recv_counts, recv_displs;
};

struct Algorithm {
  std::string name;
  std::string description;
  std::string requirements;
  bool (*applicable)(const CostQuery&) = nullptr;
  Picos (*cost)(const CostQuery&) = nullptr;
  void (*run)(const Call&) = nullptr;
  // Optional: what the algorithm would choose for this query, for `vmc explain`
  // (e.g. the hybrid's strategy S). Empty when there is nothing to add.
  std::string (*detail)(const CostQuery&) = nullptr;
};

// Builds the query for p nodes of `topology` under `model` (units derived from the model).
CostQuery make_query(const Topology& topology, const Model& model, int p, std::size_t n,
                     int root, std::size_t item_size, bool commutative, const Options& options);

// A text holding everything a cost or applicability function reads from q: the key under
// which selection and simulation results are remembered.
std::string query_key(Operation op, const CostQuery& q);

// The table of one operation.
const std::vector<Algorithm>& algorithms(Operation op);
const Algorithm* find_algorithm(Operation op, std::string_view name);
// The applicable algorithm with the least predicted time (ties: table order); or the named
// one, checked for applicability. Throws std::invalid_argument with the reason otherwise.
const Algorithm& select_algorithm(Operation op, const CostQuery& q);

}  // namespace vmc
