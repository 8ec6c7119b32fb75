// The registry of rows: every operation's table (its built-in rows, from collectives/
// <operation>/table.cpp, then those a user registered), looked up by name.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "collectives/vocabulary/operation.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc {

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
// How many algorithms have been registered so far: a choice made before the count changed
// may no longer be the best one.
std::uint64_t registrations();
const Algorithm* find_algorithm(Operation op, std::string_view name);
// Whether `name` is the row that runs one given member of a hybrid family (some row's
// member_row): it applies only with Options::hybrid.
bool is_member_row(Operation op, std::string_view name);

// Whether a's run works on a timing-only machine: a built-in row, or one registered with
// timing_only set.
bool runs_timing_only(Operation op, const Algorithm& a);

// The claim of a's cost for q (estimate when the row states none), on q's link rates.
Claim claim_of(const Algorithm& a, const CostQuery& q);

}  // namespace vmc
