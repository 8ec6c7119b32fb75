// Running a chosen row: one node's part of a call, as dispatch runs every public call and
// a simulation runs every node of its private machine.
#pragma once

#include "collectives/vocabulary/call.hpp"
#include "collectives/vocabulary/operation.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc {

// Joins the call to the comm's sequence of collectives (the members compare `sig`, the
// row's name included, so members that chose differently get an error naming both rows,
// not a deadlock; call.tag is the call's tag space), then runs `row` inside the call. On a
// timing-only machine (Data::none) the row combines with an op that touches no data,
// charged as the real one would be; a row that cannot run there is refused
// (std::invalid_argument).
void run_row(Operation op, const Algorithm& row, Call call, CallSignature sig);

}  // namespace vmc
