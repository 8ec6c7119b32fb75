// What a call asks for, as the rows' cost functions and applicability predicates see it:
// the options every collective takes and the query (machine, p, n, root, item size, ...)
// that formulas, claims and selection read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "collectives/op.hpp"
#include "collectives/vocabulary/operation.hpp"
#include "runtime/comm.hpp"
#include "runtime/model.hpp"
#include "topology/topology.hpp"

namespace vmc {

struct Algorithm;

// 004's DOPL (the mesh_dopl rows of broadcast, reduce and allreduce, collectives/mesh/
// dopl.hpp): `overlap` runs 004 §6.2's schedule with its steps unsynchronized, each node
// going on to its next step when it is done with its own part of the last (vmc's default);
// `synchronized` has every member of the group wait for all the others between consecutive
// steps, with a dissemination barrier of empty messages (004 §6.2: "This, coupled with
// explicit synchronization, prevents ..."). Other algorithms ignore it.
enum class DoplSteps { overlap, synchronized };

// Options every collective takes. `algorithm` is a registry name or "auto".
struct Options {
  std::string algorithm = "auto";
  // pipelined algorithms: items per segment (0: the algorithm picks)
  std::size_t segment_items = 0;
  // allreduce/reduce "hybrid" (000 §3.4): strategy S_0..S_{d-1}, 1 = halve (Version 3 step)
  std::vector<int> strategy;
  // 004's hybrids (the rows mesh_pfr_dr, mesh_pfr_pfr_dc, mesh_mst_sc, mesh_mst_dg): which
  // member of the family to run, 0 .. size-1 (`vmc explain` lists them); -1: none given.
  // Their `_optimal` rows run the member selection chose, which it hands down here.
  int hybrid = -1;
  // The DOPL's steps: unsynchronized (default) or synchronized (DoplSteps).
  DoplSteps dopl_steps = DoplSteps::overlap;
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

// Builds the query for p nodes of `topology` under `model` (units derived from the model).
CostQuery make_query(const Topology& topology, const Model& model, int p, std::size_t n,
                     int root, std::size_t item_size, bool commutative, const Options& options);
// The same for a call on this comm's machine and group.
CostQuery make_query(const Comm& comm, std::size_t n, int root, std::size_t item_size,
                     const Op* op, bool in_place, const Options& options);

// A text holding everything a cost or applicability function reads from q: the key under
// which selection and simulation results are remembered.
std::string query_key(Operation op, const CostQuery& q);

// Whether q's group is the whole machine, rank r on node r: formulas and claims may then
// read the network's own shape and routes.
bool whole_machine(const CostQuery& q);

}  // namespace vmc
