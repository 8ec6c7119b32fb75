// Running a row on every node of a machine for a query, with buffers of the sizes the
// operation's table gives (collectives/vocabulary/operation.hpp) and no data of interest:
// what selection's simulations and the tests' timings measure.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "collectives/vocabulary/operation.hpp"
#include "collectives/vocabulary/row.hpp"
#include "runtime/machine.hpp"

namespace vmc {

// The per-rank counts of a call of q: q.counts, or n for every rank where op's blocks have
// per-rank counts and q gives none; empty for the regular forms (and reduce_scatter without
// counts). Throws std::invalid_argument when q.counts does not have p entries.
std::vector<std::size_t> call_counts(Operation op, const CostQuery& q);

// Every node of q's group on m (q.members, or the first q.p nodes; the other nodes idle)
// calls `row` once with buffers sized by its own block, contiguous displacements, q's root,
// item size and options, and an op that combines nothing but is charged (q.commutative),
// each node's call as op's front door makes it. m's topology and model must be q's. Throws
// what the row throws.
RunResult run_on_machine(Machine& m, Operation op, const Algorithm& row, const CostQuery& q);
// The same run through Machine::run_within: empty when its time exceeds `limit`.
std::optional<RunResult> run_on_machine_within(Machine& m, Operation op, const Algorithm& row,
                                               const CostQuery& q, Picos limit);

}  // namespace vmc
