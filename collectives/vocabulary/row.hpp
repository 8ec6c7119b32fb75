// A registry row: one algorithm of one operation. The selector, the CLI, the docs and the
// tests all read the rows, so an algorithm is its file, which defines its row, and its line
// in its operation's table (collectives/<operation>/table.cpp).
//
// A row: name, description, requirements (text), applicable (bool, never throws), cost
// (predicted time of the code as written, integer picoseconds), the entry point, and the
// claim: what the cost promises about the virtual time of a query (exact, lower bound or
// estimate). tests/collectives/formula_claims_test.cpp holds every row to its claim.
#pragma once

#include <string>
#include <vector>

#include "collectives/vocabulary/call.hpp"
#include "collectives/vocabulary/query.hpp"
#include "runtime/model.hpp"

namespace vmc {

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
  // Optional, for a row that runs one member of a family of hybrids (004 §15.1, the
  // `_optimal` rows): the members for q, labelled, in index order; member i is what the row
  // `member_row` runs with Options::hybrid = i (`vmc explain` lists them). Selection
  // chooses the member of least time and hands it down to the row in Options::hybrid
  // (collectives/selection/members.hpp); given none, the row runs and prices the member of
  // least formula.
  std::vector<std::string> (*members)(const CostQuery&) = nullptr;
  std::string member_row;
  // Optional: the name of another row of the operation whose run for q is this row's,
  // message for message (the same messages, combines and rearrangements in the same order,
  // so the same time and statistics), or null where it is not. An `_alt` row where no
  // group of its rings alternates names its row without alternation: selection then
  // simulates that row once for both (collectives/selection/simulation.cpp).
  const char* (*same_run)(const CostQuery&) = nullptr;
};

// The applicability of a row that applies everywhere, and of one that needs a commutative op.
inline bool applies_always(const CostQuery&) { return true; }
inline bool applies_commutative(const CostQuery& q) { return q.commutative; }

// The member i in [0, members) of least cost(i); ties go to the lowest index.
template <class Cost>
int least_cost_member(int members, const Cost& cost) {
  int best = 0;
  Picos best_cost = cost(0);
  for (int i = 1; i < members; ++i) {
    const Picos c = cost(i);
    if (c < best_cost) best = i, best_cost = c;
  }
  return best;
}

}  // namespace vmc
