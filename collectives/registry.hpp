// The algorithm registry: one table per operation. The selector, the CLI, the docs and the
// tests all read these tables, so adding an algorithm is adding one file and one row.
//
// A row: name, description, requirements (text), applicable (bool, never throws), cost
// (predicted time of the code as written, integer picoseconds), the entry point, and the
// claim: what the cost promises about the virtual time of a query (exact, lower bound or
// estimate). tests/collectives/formula_claims_test.cpp holds every row to its claim.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/op.hpp"
#include "runtime/comm.hpp"
#include "runtime/model.hpp"
#include "runtime/scratch.hpp"
#include "topology/topology.hpp"

namespace vmc {

enum class Operation {
  broadcast, reduce, allreduce, allgather, reduce_scatter, scan, exscan, scatter, gather,
  alltoall, barrier, scatterv, gatherv, allgatherv, alltoallv,
};
std::string to_string(Operation op);
Operation parse_operation(std::string_view s);  // throws std::invalid_argument
const std::vector<Operation>& all_operations();

struct Algorithm;

// Options every collective takes. `algorithm` is a registry name or "auto".
struct Options {
  std::string algorithm = "auto";
  // pipelined algorithms: items per segment (0: the algorithm picks)
  std::size_t segment_items = 0;
  // allreduce/reduce "hybrid" (000 §3.4): strategy S_0..S_{d-1}, 1 = halve (Version 3 step)
  std::vector<int> strategy;
  // 004's hybrids (the rows mesh_pfr_dr, mesh_pfr_pfr_dc, mesh_mst_sc, mesh_mst_dg): which
  // member of the family to run, 0 .. size-1 (`vmc explain` lists them); -1: none given.
  int hybrid = -1;
  // When set, this row runs instead of `algorithm`: an algorithm that is not in the registry
  // (collectives/testing.hpp runs a user's algorithm through the public calls this way). Its
  // applicability is checked as for a named one; its name is what the members compare.
  const Algorithm* custom = nullptr;
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
  // The group's nodes (world ranks) by comm rank, when the comm is not the whole machine
  // with rank r on node r; empty for the whole machine (and for a query of p nodes with no
  // comm behind it, taken as the first p nodes of the topology). Not owned: the comm's own
  // list (Comm::members), or the caller's. members_hash: hash_members(members), or 0 to
  // have query_key compute it.
  std::span<const int> members;
  std::uint64_t members_hash = 0;
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

// What a cost formula promises about the virtual time of the run it predicts:
//   exact        equal to the picosecond;
//   lower_bound  the run never takes less time (it may take more: contention, ports);
//   estimate     neither is promised (the formula is a guide for selection only).
enum class Claim { exact, lower_bound, estimate };
std::string to_string(Claim c);

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
  // What `cost` promises for this query (see Claim); null: estimate.
  Claim (*claim)(const CostQuery&) = nullptr;
  // Whether `run` works on a timing-only machine (MachineConfig::data = Data::none), where
  // buffers are nowhere memory: it touches data only through Bytes, copy_data and the
  // call's op (runtime/scratch.hpp), as every built-in row does. A registered row that
  // does not say so is refused by timing-only runs and simulated with data by selection.
  bool timing_only = false;
  // Optional, for a row that runs the least-cost member of a family of hybrids (004
  // §15.1): the members for q, labelled, in index order; member i is what the row
  // `member_row` runs with Options::hybrid = i (`vmc explain` lists them).
  std::vector<std::string> (*members)(const CostQuery&) = nullptr;
  std::string member_row;
  // With `members`: the index of the member the row runs for q. Calling it makes and
  // remembers the choice, which may simulate the members; simulated_run calls it before it
  // runs the row, so the run inside (which cannot simulate) takes the same member.
  int (*chosen)(const CostQuery&) = nullptr;
};

// Whether a's run works on a timing-only machine: a built-in row, or one registered with
// timing_only set.
bool runs_timing_only(Operation op, const Algorithm& a);

// The claim of a's cost for q (estimate when the row states none).
Claim claim_of(const Algorithm& a, const CostQuery& q);

// Whether q's group is the whole machine, rank r on node r: formulas and claims may then
// read the network's own shape and routes.
bool whole_machine(const CostQuery& q);

// Builds the query for p nodes of `topology` under `model` (units derived from the model).
CostQuery make_query(const Topology& topology, const Model& model, int p, std::size_t n,
                     int root, std::size_t item_size, bool commutative, const Options& options);

// A text holding everything a cost or applicability function reads from q: the key under
// which selection and simulation results are remembered.
std::string query_key(Operation op, const CostQuery& q);

// The table of one operation: the built-in rows, then those added by register_algorithm.
// The reference stays valid (a registration publishes a new table and keeps the old one).
const std::vector<Algorithm>& algorithms(Operation op);
// Adds a user's algorithm to op's table at run time, after the built-in rows: from then on
// automatic selection (which forgets its earlier choices), find_algorithm, forcing it by
// name, and every listing of the table include it. Thread-safe. `applicable` may be null
// (it applies everywhere) and `claim` too (its cost is an estimate); `run` and `cost` are
// required. Throws std::invalid_argument when a required entry is missing or the name is
// empty, "auto" or already in the table.
void register_algorithm(Operation op, Algorithm algorithm);
const Algorithm* find_algorithm(Operation op, std::string_view name);
// Whether `name` is the row that runs one given member of a hybrid family (some row's
// member_row): it applies only with Options::hybrid.
bool is_member_row(Operation op, std::string_view name);
// The applicable algorithm with the least predicted time; or the named one, checked for
// applicability. Throws std::invalid_argument with the reason otherwise. Ties (on the
// default zero-cost model every algorithm takes 0 s) go to the algorithm whose emulation
// costs the host least: the least time under emulation_model, then table order.
const Algorithm& select_algorithm(Operation op, const CostQuery& q);
// What running a collective costs the host that emulates it, as a machine model: a
// startup per message (the hand-off), and per item the bytes copied and combined.
Model emulation_model(std::size_t item_size);

}  // namespace vmc
