// Every registered algorithm's cost formula is what its registry row claims (collectives/
// registry.hpp, Claim): `exact` means the virtual time equals the formula to the picosecond,
// `lower_bound` that it is never less; `estimate` promises nothing and is not checked.
//
// The sweep runs every operation x every algorithm that applies x p = 1..33 x the four port
// models x lengths 0, 1, p-1, p+1 and larger ones (not multiples of p) x roots 0 and p-1, on
// full:p (no shared links) and hypercube:p (wormhole, exclusive: e-cube routes may share
// links), with nonzero alpha, beta and gamma, and again with gamma = 0. Each case runs on a
// virtual-time Machine and is compared with the formula; a failure prints every mismatch
// (algorithm, p, n, root, port, formula, simulated) and a count per algorithm.
//
// The v-variants run with equal counts and with irregular ones (zeros and n + r).
//
// VMC_CLAIM_ONLY=hybrid (any part of "operation algorithm") checks only what matches.
// VMC_FULL_SWEEP=1 widens it: more lengths and roots, non-commutative ops at every length,
// hypercubes under direct routing, rings, and rings and hypercubes under shared contention.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "collectives/collectives.hpp"
#include "collectives/selection/simulation.hpp"
#include "tests/collectives/harness.hpp"

namespace vmc::testing {
namespace {

bool is_v(Operation op) {
  return op == Operation::scatterv || op == Operation::gatherv ||
         op == Operation::allgatherv || op == Operation::alltoallv;
}

bool is_rooted(Operation op) {
  return op == Operation::broadcast || op == Operation::reduce || op == Operation::scatter ||
         op == Operation::gather || op == Operation::scatterv || op == Operation::gatherv;
}

bool combines(Operation op) {
  return op == Operation::reduce || op == Operation::allreduce || op == Operation::scan ||
         op == Operation::exscan || op == Operation::reduce_scatter;
}

// One topology family and model of the sweep.
struct Setting {
  std::string name;      // test name suffix
  std::string topology;  // "full:", "hypercube:", ...
  Routing routing = Routing::wormhole;
  Port port = Port::exchange;
  double gamma = 3e-9;
  Contention contention = Contention::exclusive;
  Protocol protocol = Protocol::eager;
  // Mesh settings: these machines instead of topology + p (004's beta_net and delta too).
  std::vector<std::string> shapes = {};
  double beta_net = 0.0, delta = 0.0;
};
void PrintTo(const Setting& s, std::ostream* os) { *os << s.name; }

std::vector<std::size_t> lengths(int p) {
  std::vector<std::size_t> ns = {0, 1, std::size_t(p > 1 ? p - 1 : 2), std::size_t(p + 1),
                                 std::size_t(3 * p + 2), 1000};
  if (full_sweep()) {
    for (std::size_t n : {std::size_t(2 * p - 1), std::size_t{777}, std::size_t{4099}}) {
      ns.push_back(n);
    }
  }
  std::sort(ns.begin(), ns.end());
  ns.erase(std::unique(ns.begin(), ns.end()), ns.end());
  return ns;
}

std::vector<int> roots(Operation op, int p) {
  if (!is_rooted(op) || p == 1) return {0};
  if (full_sweep()) {
    std::vector<int> r = {0, 1, p / 2, p - 1};
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    return r;
  }
  return {0, p - 1};
}

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

void check(Machine& m, Operation op, const Algorithm& a, CostQuery q, const Setting& s,
           Tally& tally) {
  if (!selected(op, a) || !a.applicable(q)) return;
  q = row_query(op, a, q);  // a family's _optimal row: the member selection hands it
  const Claim claim = claim_of(a, q);
  ++(claim == Claim::exact ? tally.exact
                           : claim == Claim::lower_bound ? tally.lower_bound : tally.estimate);
  if (claim == Claim::estimate && !audit()) return;
  const Picos formula = a.cost(q);
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
    if (claim == Claim::estimate) return;
  }
  const bool holds = failure.empty() && (claim == Claim::exact ? simulated == formula
                                                              : simulated >= formula);
  if (holds) return;
  const std::string key = to_string(op) + " " + a.name;
  ++tally.per_algorithm[key];
  if (tally.examples.size() < 60) {
    std::ostringstream e;
    e << s.name << ": " << key << " (" << to_string(claim) << "): " << q.topology->spec()
      << " port "
      << to_string(q.model.port) << " routing " << to_string(q.model.routing) << " gamma "
      << q.model.gamma << " n=" << q.n << " root=" << q.root
      << (q.commutative ? "" : " non-commutative") << (q.counts.empty() ? "" : " irregular counts")
      << ": formula " << seconds(formula)
      << ", simulated " << (failure.empty() ? seconds(simulated) : "failed: " + failure);
    tally.examples.push_back(e.str());
  }
}

void sweep(const Setting& s, const std::vector<int>& ps, const std::vector<Operation>& ops) {
  Tally tally;
  Model mdl = model(s.port, s.routing, 5e-6, 7e-9, s.gamma);
  mdl.contention = s.contention;
  mdl.protocol = s.protocol;
  if (s.beta_net > 0) mdl.beta_net = s.beta_net;
  mdl.delta = s.delta;
  std::vector<std::string> specs = s.shapes;
  if (specs.empty()) {
    for (int p : ps) specs.push_back(s.topology + std::to_string(p));
  }
  for (const std::string& spec : specs) {
    auto m = machine(spec, mdl, Data::none);  // times only
    const int p = m->size();
    for (Operation op : ops) {
      for (const Algorithm& a : algorithms(op)) {
        for (std::size_t n : op == Operation::barrier ? std::vector<std::size_t>{0}
                                                       : lengths(p)) {
          for (int root : roots(op, p)) {
            for (bool commutative : {true, false}) {
              if (!commutative && (!combines(op) || !(full_sweep() || n == std::size_t(p + 1)))) {
                continue;
              }
              CostQuery q = query_for(*m, n, root, sizeof(std::int64_t), commutative);
              q.options.algorithm = a.name;
              q.options.strategy = test_strategy(a.name, p);
              q.options.hybrid = test_hybrid(op, a.name, q);
              check(*m, op, a, q, s, tally);
              if (is_v(op) && n > 0 && commutative) {
                // Irregular counts: every third rank none, the others n + r.
                q.counts.resize(p);
                for (int r = 0; r < p; ++r) q.counts[r] = r % 3 == 0 ? 0 : n + r;
                check(*m, op, a, q, s, tally);
              }
            }
          }
        }
      }
    }
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
      << " algorithms break their claim; mismatches per algorithm:\n"
      << summary.str() << "first mismatches:\n"
      << examples.str();
  if (std::getenv("VMC_CLAIM_ONLY") == nullptr) {
    EXPECT_GT(tally.checked, 0);
  }
  std::printf("%s: %d cases checked (%d exact, %d lower bound); %d estimates not checked\n",
              s.name.c_str(), tally.checked, tally.exact, tally.lower_bound, tally.estimate);
}

std::vector<int> one_to(int last) {
  std::vector<int> ps(last);
  std::iota(ps.begin(), ps.end(), 1);
  return ps;
}

class FormulaClaims : public ::testing::TestWithParam<Setting> {};

TEST_P(FormulaClaims, HoldForEveryAlgorithm) {
  sweep(GetParam(), one_to(33), all_operations());
}

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

std::vector<Setting> settings() {
  std::vector<Setting> v;
  for (Port port : {Port::exchange, Port::duplex, Port::half, Port::all}) {
    v.push_back({"full_" + to_string(port), "full:", Routing::wormhole, port});
    v.push_back({"hypercube_" + to_string(port), "hypercube:", Routing::wormhole, port});
    v.push_back({"full_nogamma_" + to_string(port), "full:", Routing::wormhole, port, 0.0});
    v.push_back({"full_rendezvous_" + to_string(port), "full:", Routing::wormhole, port, 3e-9,
                 Contention::exclusive, Protocol::rendezvous});
    if (full_sweep()) {
      v.push_back({"hypercube_direct_" + to_string(port), "hypercube:", Routing::direct, port});
      v.push_back({"ring_" + to_string(port), "ring:", Routing::wormhole, port});
      v.push_back({"ring_shared_" + to_string(port), "ring:", Routing::wormhole, port, 3e-9,
                   Contention::shared});
      v.push_back({"hypercube_shared_" + to_string(port), "hypercube:", Routing::wormhole, port,
                   3e-9, Contention::shared});
    }
  }
  return v;
}

// 004's meshes: its own model (duplex ports, wormhole, shared links, beta_net below beta,
// delta), where the mesh algorithms' contention-free or c_{i,j} formulas are exact.
std::vector<Setting> mesh_settings() {
  std::vector<std::string> shapes = {"mesh:2x2", "mesh:3x5", "torus:4x4", "mesh:2x3x2",
                                     "mesh:4x6"};
  if (full_sweep()) {
    for (std::string s : {"mesh:8x8", "mesh:5x7", "torus:3x4x5", "mesh:13x1", "torus:6x6"}) {
      shapes.push_back(s);
    }
  }
  std::vector<Setting> v = {{"mesh_duplex_shared", "", Routing::wormhole, Port::duplex, 3e-9,
                             Contention::shared, Protocol::eager, shapes, 3e-9, 1e-9}};
  if (full_sweep()) {
    for (Port port : {Port::exchange, Port::half, Port::all}) {
      v.push_back({"mesh_shared_" + to_string(port), "", Routing::wormhole, port, 3e-9,
                   Contention::shared, Protocol::eager, shapes, 0.0, 1e-9});
    }
    v.push_back({"mesh_duplex_exclusive", "", Routing::wormhole, Port::duplex, 3e-9,
                 Contention::exclusive, Protocol::eager, shapes});
  }
  return v;
}

INSTANTIATE_TEST_SUITE_P(Mesh, FormulaClaims, ::testing::ValuesIn(mesh_settings()),
                         [](const auto& info) { return info.param.name; });

INSTANTIATE_TEST_SUITE_P(Sweep, FormulaClaims, ::testing::ValuesIn(settings()),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace vmc::testing
