// 004 §15.1's choice among a hybrid family's members: the member a family's `_optimal` row
// runs ("find the minimum running time for all hybrids as well as the pure short and long
// vector approaches", "cache recent hybrid strategies"). Selection makes it and hands it
// down to the row in Options::hybrid; the row itself never chooses by running anything.
#pragma once

#include <optional>

#include "collectives/vocabulary/operation.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc {

// The member `row` runs for q when it has members (Algorithm::members; -1 when it has none),
// remembered per (family, q). Where every member's formula is exact, or selection cannot
// simulate q, the member of least formula; otherwise the member of least simulated time
// (the formulas of interleaved MST groups, of rings over a network that is not the group's
// mesh, are estimates, and the least of them is not always the fastest run), each member
// run as the row `row.member_row` with Options::hybrid = i.
int chosen_member(Operation op, const Algorithm& row, const CostQuery& q);
// The same, for selection's first choice among rows, given `bound`: a time another row is
// known to take (its exact formula). Where the members are simulated, a member whose exact
// or lower-bound formula exceeds `bound` is not run, and when no member takes `bound` or
// less the answer is empty and nothing is remembered: the row cannot win against that one.
// Otherwise the member is chosen_member's (a member dropped could not have won anyway).
std::optional<int> chosen_member_within(Operation op, const Algorithm& row, const CostQuery& q,
                                        std::optional<Picos> bound);

// q as `row` runs it: with the member chosen_member hands down in Options::hybrid for a row
// with members, q itself for any other row. What the row's cost, claim and detail read.
CostQuery row_query(Operation op, const Algorithm& row, const CostQuery& q);

}  // namespace vmc
