// Predicting an algorithm's time by running it: the code as written, on a private machine
// with the caller's topology and model, in virtual time, on data of the right sizes.
//
// The closed-form costs in the registry are exact where an algorithm's messages never share
// a link or a port beyond what the formula counts, and estimates or lower bounds elsewhere
// (each algorithm's file says which): on a mesh, under store-and-forward, with rings laid
// over a hypercube, with folded non-power-of-two steps under the exchange port. The
// simulation is exact by construction, so automatic selection uses it whenever the run is
// small enough to make cheaply, and the formulas otherwise; the choice is cached per
// operation, p, n and machine (004 §15.1).
#pragma once

#include <cstdint>
#include <optional>

#include "collectives/vocabulary/operation.hpp"
#include "collectives/vocabulary/row.hpp"
#include "runtime/machine.hpp"

namespace vmc {

// Whether selection simulates (a topology is known, p <= 4096, not inside a simulation).
bool selection_simulates(const CostQuery& q);

// How many private runs one choice for q may make (a hybrid family's choice of member, or
// one round of the choice of a row): (kBudgetScale / nodes)^2, so it shrinks with p: 64 runs
// at 64 nodes, 27 at 97, 4 at 256, 1 at 512, none above 512 nodes (nor where
// selection_simulates says no). A private run of p nodes costs the host about what the
// caller's own run does (running p nodes; the private machines are kept for the next
// simulation on the same topology and model, up to 2,048 nodes), so the runs' share of the
// caller's run, about the budget itself, falls as 1/p^2, and is none where a single run
// would already double the caller's wall time.
constexpr int kBudgetScale = 512;
int simulation_budget(const CostQuery& q);

// What a run on a private machine measured: the virtual time, and the work the emulation
// itself did (bytes moved by messages plus bytes combined and rearranged; then messages),
// which breaks ties between algorithms of equal time (on the default zero-cost model every
// algorithm takes 0 s, and the one that moves least data is the cheapest to emulate).
// A run asked for within a limit (below) whose time passed it stops there: `over`, its time
// the limit plus a picosecond (a lower bound of its run's), its work and messages unknown (0).
struct SimulatedRun {
  Picos time = 0;
  std::uint64_t work_bytes = 0;
  std::uint64_t messages = 0;
  bool over = false;
};

// The algorithm's run for q on a private machine (a hybrid family's `_optimal` row with the
// member selection chooses, collectives/selection/members.hpp); empty when the run would be
// too large (over 2^28 bytes of buffers or 4096 nodes), when it is requested from inside
// such a run, or when the run fails. A row whose run is another's (Algorithm::same_run)
// takes that row's. Results are cached; callers on several threads may ask at once (one
// runs the simulation, the others wait for it). Given `limit` (a time some candidate is known
// to take), a run whose time passes it is stopped there (Machine::run_within) and answered
// `over`: it could neither win nor tie, and the part of its run after the limit, often most
// of it, is not simulated. A run remembered as over is made again for a caller whose limit
// is higher, or who gives none.
std::optional<SimulatedRun> simulated_run(Operation op, const Algorithm& a, const CostQuery& q,
                                          std::optional<Picos> limit = std::nullopt);
// Its virtual time.
std::optional<Picos> simulated_cost(Operation op, const Algorithm& a, const CostQuery& q);

// The virtual time of one call of q's operation with q.options.algorithm (or q.options.custom)
// on machine m (whose topology and model must be q's), every node's buffers sized by its own
// block (q.counts for the v-variants and reduce_scatter with counts), the op a no-op whose
// combining the model charges. Like a simulation, it chooses by formula only, and a family's
// `_optimal` row runs the member q hands down (Options::hybrid; none: its least formula), as
// its cost prices it. What the tests hold the formulas to, on a machine the caller keeps
// (the tests reuse one machine for many calls). Throws what the algorithm throws.
Picos time_operation(Machine& m, Operation op, const CostQuery& q);
// The same run, whole (time, statistics).
RunResult run_operation(Machine& m, Operation op, const CostQuery& q);

}  // namespace vmc
