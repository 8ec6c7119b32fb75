// Every registered algorithm's cost formula is what its registry row claims (collectives/
// registry.hpp, Claim): `exact` means the virtual time equals the formula to the picosecond,
// `lower_bound` that it is never less; `estimate` promises nothing about the formula. Every
// case, whatever its claim, is also held to the time no algorithm can beat on its machine
// (tests/collectives/lower_bounds.hpp): an estimate row cannot run faster than the machine
// allows either.
//
// The cases are those of tests/collectives/claims_sweep.hpp: every operation x every
// algorithm that applies x p = 1..33 x the four port models x lengths 0, 1, p-1, p+1 and
// larger ones (not multiples of p) x roots 0 and p-1, on full:p (no shared links) and
// hypercube:p (wormhole, exclusive: e-cube routes may share links), with nonzero alpha, beta
// and gamma, again with gamma = 0 and under rendezvous, and 004's meshes. Each case runs on a
// virtual-time Machine and is compared with the formula and the bound; a failure prints every
// mismatch (algorithm, p, n, root, port, formula or bound, simulated) and a count per
// algorithm. The v-variants run with equal counts and with irregular ones (zeros and n + r).
// How many cases each setting checks exactly and as lower bounds is pinned by
// claims_census_test.cpp.
//
// VMC_CLAIM_ONLY=hybrid (any part of "operation algorithm") checks only what matches; each
// setting then still fails unless it checked a case that matches.
// VMC_FULL_SWEEP=1 widens it: more lengths and roots, non-commutative ops at every length,
// hypercubes under direct routing, rings, and rings and hypercubes under shared contention.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "collectives/collectives.hpp"
#include "collectives/selection/simulation.hpp"
#include "tests/collectives/claims_sweep.hpp"
#include "tests/collectives/harness.hpp"
#include "tests/collectives/lower_bounds.hpp"

namespace vmc::testing {
namespace {

using claims::Setting;

// VMC_CLAIM_AUDIT=1: compare every case whatever its claim and print, per algorithm, how
// many cases were exact, under the formula and over it, and at which p the formula missed.
bool audit() {
  const char* env = std::getenv("VMC_CLAIM_AUDIT");
  return env != nullptr && env[0] == '1';
}

struct Audit {
  int exact = 0, under = 0, over = 0;
  std::set<int> missed_p;
};

struct Tally {
  int checked = 0;
  int exact = 0, lower_bound = 0, estimate = 0;  // cases by claim
  int untimed = 0;                                // see timeable
  std::map<std::string, Audit> audit;
  std::map<std::string, int> per_algorithm;  // "op algorithm" -> mismatches
  std::vector<std::string> examples;
};

std::string seconds(Picos t) {
  std::ostringstream s;
  s << to_seconds(t) * 1e6 << " us";
  return s.str();
}

// VMC_CLAIM_ONLY=text: check only the algorithms whose "operation algorithm" contains it.
bool selected(Operation op, const Algorithm& a) {
  const char* env = std::getenv("VMC_CLAIM_ONLY");
  return env == nullptr || (to_string(op) + " " + a.name).find(env) != std::string::npos;
}

void record(Tally& tally, const Setting& s, const std::string& what, Operation op,
            const Algorithm& a, const CostQuery& q, const std::string& expected,
            const std::string& simulated) {
  const std::string key = to_string(op) + " " + a.name;
  ++tally.per_algorithm[key];
  if (tally.examples.size() >= 60) return;
  std::ostringstream e;
  e << s.name << ": " << key << " (" << what << "): " << q.topology->spec() << " port "
    << to_string(q.model.port) << " routing " << to_string(q.model.routing) << " gamma "
    << q.model.gamma << " n=" << q.n << " root=" << q.root
    << (q.commutative ? "" : " non-commutative") << (q.counts.empty() ? "" : " irregular counts")
    << ": " << expected << ", simulated " << simulated;
  tally.examples.push_back(e.str());
}

// Whether time_operation can time q: its alltoallv (collectives/selection/simulation.cpp) has
// every rank send counts[d] items to rank d and expect counts[s] from rank s, which agree
// only when the counts are equal; irregular alltoallv counts end its run with a size
// mismatch. Their claims are estimates, and no case of them is timed.
bool timeable(Operation op, const CostQuery& q) {
  if (op != Operation::alltoallv) return true;
  return std::all_of(q.counts.begin(), q.counts.end(),
                     [&](std::size_t c) { return c == q.counts.front(); });
}

void check(Machine& m, Operation op, const Algorithm& a, CostQuery q, const Setting& s,
           Tally& tally) {
  if (!selected(op, a) || !a.applicable(q)) return;
  q = row_query(op, a, q);  // a family's _optimal row: the member selection hands it
  const Claim claim = claim_of(a, q);
  if (!timeable(op, q)) {
    EXPECT_EQ(claim, Claim::estimate) << s.name << ": " << a.name << " on irregular counts";
    ++tally.untimed;
    return;
  }
  ++(claim == Claim::exact ? tally.exact
                           : claim == Claim::lower_bound ? tally.lower_bound : tally.estimate);
  const Picos formula = a.cost(q);
  const Picos bound = no_algorithm_beats(op, q);
  Picos simulated = -1;
  std::string failure;
  try {
    simulated = time_operation(m, op, q);  // what selection and vmc explain measure
  } catch (const std::exception& e) {
    failure = e.what();
  }
  ++tally.checked;
  if (audit()) {
    Audit& x = tally.audit[to_string(op) + " " + a.name];
    if (simulated == formula) {
      ++x.exact;
    } else {
      ++(simulated < formula ? x.under : x.over);
      x.missed_p.insert(q.p);
    }
  }
  if (!failure.empty()) {
    record(tally, s, to_string(claim), op, a, q, "formula " + seconds(formula),
           "failed: " + failure);
    return;
  }
  if (simulated < bound) {
    record(tally, s, "faster than any algorithm can be", op, a, q, "bound " + seconds(bound),
           seconds(simulated));
  }
  const bool holds = claim == Claim::exact         ? simulated == formula
                     : claim == Claim::lower_bound ? simulated >= formula
                                                   : true;
  if (!holds) {
    record(tally, s, to_string(claim), op, a, q, "formula " + seconds(formula),
           seconds(simulated));
  }
}

void sweep(const Setting& s, bool full) {
  Tally tally;
  const Model mdl = claims::model_of(s);
  for (const std::string& spec : claims::specs_of(s)) {
    auto m = machine(spec, mdl, Data::none);  // times only
    claims::for_each_case(m->topology(), mdl, full,
                          [&](Operation op, const Algorithm& a, const CostQuery& q) {
                            check(*m, op, a, q, s, tally);
                          });
  }
  for (const auto& [key, x] : tally.audit) {
    std::printf("audit %s %s: exact %d, simulated under formula %d, over %d; missed at p =",
                s.name.c_str(), key.c_str(), x.exact, x.under, x.over);
    for (int p : x.missed_p) std::printf(" %d", p);
    std::printf("\n");
  }
  std::ostringstream summary;
  for (const auto& [key, count] : tally.per_algorithm) summary << "  " << key << ": " << count
                                                               << "\n";
  std::ostringstream examples;
  for (const std::string& e : tally.examples) examples << "  " << e << "\n";
  EXPECT_TRUE(tally.per_algorithm.empty())
      << s.name << ": " << tally.per_algorithm.size()
      << " algorithms break their claim or the machine's bound; mismatches per algorithm:\n"
      << summary.str() << "first mismatches:\n"
      << examples.str();
  // Something was checked, with VMC_CLAIM_ONLY too: a filter that matches nothing here is a
  // mistake, not a pass.
  const char* only = std::getenv("VMC_CLAIM_ONLY");
  EXPECT_GT(tally.checked, 0) << s.name << ": no case checked"
                              << (only != nullptr ? std::string(" matches VMC_CLAIM_ONLY=") + only
                                                  : std::string());
  std::printf("%s: %d cases checked (%d exact, %d lower bound, %d estimates held to the bound); "
              "%d irregular alltoallv cases not timed\n",
              s.name.c_str(), tally.checked, tally.exact, tally.lower_bound,
              tally.estimate - tally.untimed, tally.untimed);
}

class FormulaClaims : public ::testing::TestWithParam<Setting> {};

TEST_P(FormulaClaims, HoldForEveryAlgorithm) { sweep(GetParam(), full_sweep()); }

// Every row states its claim; a row without one would silently read as an estimate.
TEST(FormulaClaimsTable, EveryAlgorithmStatesItsClaim) {
  for (Operation op : all_operations()) {
    for (const Algorithm& a : algorithms(op)) {
      EXPECT_NE(a.claim, nullptr) << to_string(op) << " " << a.name;
    }
  }
  // The claim follows the machine: exact on private links, a lower bound where the same
  // messages may wait for shared ones.
  const Algorithm* binomial = find_algorithm(Operation::broadcast, "binomial");
  auto full = parse_topology("full:12");
  auto mesh = parse_topology("mesh:3x4");
  CostQuery q = make_query(*full, model(Port::exchange, Routing::wormhole), 12, 100, 0, 8, true,
                           Options{});
  EXPECT_EQ(claim_of(*binomial, q), Claim::exact);
  q.topology = mesh.get();
  EXPECT_EQ(claim_of(*binomial, q), Claim::lower_bound);
  q.model.routing = Routing::direct;
  EXPECT_EQ(claim_of(*binomial, q), Claim::exact);
}

INSTANTIATE_TEST_SUITE_P(Mesh, FormulaClaims,
                         ::testing::ValuesIn(claims::mesh_settings(full_sweep())),
                         [](const auto& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(Sweep, FormulaClaims,
                         ::testing::ValuesIn(claims::family_settings(full_sweep())),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace vmc::testing
