// Automatic selection: which row a call runs (forced by name, given as a custom row, or the
// applicable row of least time) and, for a hybrid family's `_optimal` row, which member
// (members.hpp). Where links are shared or routes have several hops, a candidate's time is
// its run's, simulated on a private machine (simulation.hpp); the formulas otherwise. The
// choice is remembered per query (004 §15.1: made once per operation, p, n and machine).
#pragma once

#include <cstddef>

#include "collectives/selection/members.hpp"
#include "collectives/vocabulary/operation.hpp"
#include "collectives/vocabulary/row.hpp"
#include "runtime/model.hpp"

namespace vmc {

// The applicable algorithm with the least predicted time; or the named one, checked for
// applicability. Throws std::invalid_argument with the reason otherwise. Ties (on the
// default zero-cost model every algorithm takes 0 s) go to the algorithm whose emulation
// costs the host least: the least time under emulation_model, then table order.
const Algorithm& select_algorithm(Operation op, const CostQuery& q);

// What a call of q runs: the row select_algorithm picks and, for a row with members (a
// hybrid family's `_optimal` row), the member selection hands down to it in
// Options::hybrid (-1 for any other row). The command line asks this once and reports it.
struct Choice {
  const Algorithm* row = nullptr;
  int member = -1;
};
Choice choose(Operation op, const CostQuery& q);

// What running a collective costs the host that emulates it, as a machine model: a
// startup per message (the hand-off), and per item the bytes copied and combined.
Model emulation_model(std::size_t item_size);

}  // namespace vmc
