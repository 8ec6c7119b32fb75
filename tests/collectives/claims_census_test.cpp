// The census of the claims sweep: how many of its cases each setting checks against an exact
// formula and against a lower bound (tests/collectives/claims_sweep.hpp: the same cases,
// counted by claim, not run). Which formulas the sweep checks is decided by the rows' own
// claim functions, the code under test; these floors pin it from outside. A row whose claim
// quietly turns into `estimate` (or from exact into a lower bound) where it was checked
// before lowers its setting's count below the floor, and the census fails, naming the
// setting and printing every row's counts in it (compare them with a run before the change
// to see which row moved).
//
// The `_optimal` rows of 004's hybrid families are not counted: their claim is the family's
// claim of the member they choose (collectives/mesh/families.hpp), which
// takes simulating every member to know; the same claim function is counted through the
// family's row that runs a given member.
//
// The floors are the counts when they were last raised. A count above its floor is fine (a
// row claims more than before); a change that must weaken a claim lowers its floor, in the
// same commit, saying why. A failure prints the counts of every setting in the form of the
// table below.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <string>

#include "collectives/registry.hpp"
#include "tests/collectives/claims_sweep.hpp"

namespace vmc::testing {
namespace {

struct Count {
  int exact = 0, lower_bound = 0;
};

// Cases of the sweep per setting by claim, and per setting and row ("op algorithm").
struct Census {
  std::map<std::string, Count> settings;
  std::map<std::string, std::map<std::string, Count>> rows;
};

Census take(const std::vector<claims::Setting>& settings, bool full) {
  Census c;
  for (const claims::Setting& s : settings) {
    const Model mdl = claims::model_of(s);
    Count& total = c.settings[s.name];
    for (const std::string& spec : claims::specs_of(s)) {
      const auto topology = parse_topology(spec);
      claims::for_each_case(*topology, mdl, full,
                            [&](Operation op, const Algorithm& a, const CostQuery& q) {
                              if (a.members != nullptr || !a.applicable(q)) return;
                              const Claim claim = claim_of(a, q);
                              if (claim == Claim::estimate) return;
                              Count& row = c.rows[s.name][to_string(op) + " " + a.name];
                              ++(claim == Claim::exact ? total.exact : total.lower_bound);
                              ++(claim == Claim::exact ? row.exact : row.lower_bound);
                            });
    }
  }
  return c;
}

void expect_floors(const Census& c, const std::map<std::string, Count>& floors) {
  bool below = false;
  for (const auto& [name, floor] : floors) {
    const auto it = c.settings.find(name);
    ASSERT_NE(it, c.settings.end()) << "no setting " << name << " in the sweep";
    const Count& now = it->second;
    EXPECT_GE(now.exact, floor.exact) << name << ": exact checks below the floor";
    EXPECT_GE(now.lower_bound, floor.lower_bound) << name << ": lower-bound checks below the floor";
    below = below || now.exact < floor.exact || now.lower_bound < floor.lower_bound;
  }
  for (const auto& [name, count] : c.settings) {
    EXPECT_TRUE(floors.contains(name)) << "setting " << name << " has no floor";
  }
  if (!below && !::testing::Test::HasFailure()) return;
  std::printf("The census now (setting: exact, lower bound):\n");
  for (const auto& [name, count] : c.settings) {
    std::printf("      {\"%s\", {%d, %d}},\n", name.c_str(), count.exact, count.lower_bound);
  }
  std::printf("Rows per setting (exact, lower bound):\n");
  for (const auto& [name, rows] : c.rows) {
    for (const auto& [row, count] : rows) {
      std::printf("  %s: %s %d %d\n", name.c_str(), row.c_str(), count.exact, count.lower_bound);
    }
  }
}

// What `ctest` runs: the default sweep.
TEST(ClaimsCensus, DefaultSweepChecksAtLeastItsFloors) {
  std::vector<claims::Setting> settings = claims::family_settings(false);
  for (const claims::Setting& s : claims::mesh_settings(false)) settings.push_back(s);
  const std::map<std::string, Count> floors = {
      {"full_all", {21198, 856}},
      {"full_duplex", {20879, 1175}},
      {"full_exchange", {14506, 6834}},
      {"full_half", {13267, 6818}},
      {"full_nogamma_all", {21198, 856}},
      {"full_nogamma_duplex", {20879, 1175}},
      {"full_nogamma_exchange", {14506, 6834}},
      {"full_nogamma_half", {13267, 6818}},
      {"full_rendezvous_all", {0, 22054}},
      {"full_rendezvous_duplex", {0, 22054}},
      {"full_rendezvous_exchange", {0, 21340}},
      {"full_rendezvous_half", {0, 20085}},
      {"hypercube_all", {3382, 18672}},
      {"hypercube_duplex", {3407, 18647}},
      {"hypercube_exchange", {2463, 18877}},
      {"hypercube_half", {2208, 17877}},
      {"mesh_duplex_shared", {1232, 2299}},
  };
  expect_floors(take(settings, false), floors);
}

// What VMC_FULL_SWEEP=1 runs.
TEST(ClaimsCensus, FullSweepChecksAtLeastItsFloors) {
  std::vector<claims::Setting> settings = claims::family_settings(true);
  for (const claims::Setting& s : claims::mesh_settings(true)) settings.push_back(s);
  // Lowered: the prime factors rings' claim under shared contention is an estimate where a
  // node's send and receive take turns (exchange and half ports on rings longer than 2; the
  // full sweep found them faster than their formula on ring:28 and ring:30), in
  // mesh_shared_exchange, mesh_shared_half, ring_shared_exchange and ring_shared_half.
  const std::map<std::string, Count> floors = {
      {"full_all", {53606, 3646}},
      {"full_duplex", {52917, 4335}},
      {"full_exchange", {41086, 15066}},
      {"full_half", {38565, 13514}},
      {"full_nogamma_all", {53606, 3646}},
      {"full_nogamma_duplex", {52917, 4335}},
      {"full_nogamma_exchange", {41086, 15066}},
      {"full_nogamma_half", {38565, 13514}},
      {"full_rendezvous_all", {0, 57252}},
      {"full_rendezvous_duplex", {0, 57252}},
      {"full_rendezvous_exchange", {0, 56152}},
      {"full_rendezvous_half", {0, 52079}},
      {"hypercube_all", {6218, 51034}},
      {"hypercube_direct_all", {53606, 3646}},
      {"hypercube_direct_duplex", {52917, 4335}},
      {"hypercube_direct_exchange", {41689, 14463}},
      {"hypercube_direct_half", {39168, 12911}},
      {"hypercube_duplex", {6505, 50747}},
      {"hypercube_exchange", {4947, 51205}},
      {"hypercube_half", {4520, 47559}},
      {"hypercube_shared_all", {6218, 49621}},
      {"hypercube_shared_duplex", {6505, 49334}},
      {"hypercube_shared_exchange", {4947, 49792}},
      {"hypercube_shared_half", {4520, 46146}},
      {"mesh_duplex_exclusive", {4977, 13640}},
      {"mesh_duplex_shared", {5427, 13037}},
      {"mesh_shared_all", {3303, 14873}},
      {"mesh_shared_exchange", {3006, 14533}},
      {"mesh_shared_half", {3006, 13404}},
      {"ring_all", {10093, 47159}},
      {"ring_duplex", {17159, 40093}},
      {"ring_exchange", {11002, 45150}},
      {"ring_half", {10954, 41125}},
      {"ring_shared_all", {11875, 44837}},
      {"ring_shared_duplex", {18941, 37771}},
      {"ring_shared_exchange", {11263, 43368}},
      {"ring_shared_half", {11215, 39343}},
  };
  expect_floors(take(settings, true), floors);
}

}  // namespace
}  // namespace vmc::testing
