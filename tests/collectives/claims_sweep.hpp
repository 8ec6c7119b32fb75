// The cases of the claims sweep (formula_claims_test.cpp), written once: its settings (a
// topology family and a machine model each), and for each setting every operation x every
// algorithm x p x length x root x commutativity (x irregular counts for the v-variants) as
// a cost query. The sweep runs the cases; the census (claims_census_test.cpp) counts their
// claims without running them, so that a row whose claim quietly weakens is seen in seconds.
//
// Default cases: p = 1..33 (mesh settings: their shapes), lengths 0, 1, p-1, p+1, 3p+2 and
// 1000, roots 0 and p-1, non-commutative ops at n = p+1; settings full:p and hypercube:p under
// wormhole routing on every port model, with gamma = 0, and under rendezvous; 004's meshes
// under its own model. Full cases (VMC_FULL_SWEEP=1) add lengths 2p-1, 777 and 4099, roots 1
// and p/2, non-commutative ops at every length, hypercubes under direct routing, rings, shared
// contention, more mesh shapes and models.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "collectives/registry.hpp"
#include "tests/collectives/harness.hpp"

namespace vmc::testing::claims {

inline bool is_v(Operation op) {
  return op == Operation::scatterv || op == Operation::gatherv ||
         op == Operation::allgatherv || op == Operation::alltoallv;
}

inline bool is_rooted(Operation op) {
  return op == Operation::broadcast || op == Operation::reduce || op == Operation::scatter ||
         op == Operation::gather || op == Operation::scatterv || op == Operation::gatherv;
}

inline bool combines(Operation op) {
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
inline void PrintTo(const Setting& s, std::ostream* os) { *os << s.name; }

inline Model model_of(const Setting& s) {
  Model mdl = model(s.port, s.routing, 5e-6, 7e-9, s.gamma);
  mdl.contention = s.contention;
  mdl.protocol = s.protocol;
  if (s.beta_net > 0) mdl.beta_net = s.beta_net;
  mdl.delta = s.delta;
  return mdl;
}

// The machines of a setting: its shapes, or its family at p = 1..33.
inline std::vector<std::string> specs_of(const Setting& s) {
  if (!s.shapes.empty()) return s.shapes;
  std::vector<std::string> specs;
  for (int p = 1; p <= 33; ++p) specs.push_back(s.topology + std::to_string(p));
  return specs;
}

inline std::vector<std::size_t> lengths(int p, bool full) {
  std::vector<std::size_t> ns = {0, 1, std::size_t(p > 1 ? p - 1 : 2), std::size_t(p + 1),
                                 std::size_t(3 * p + 2), 1000};
  if (full) {
    for (std::size_t n : {std::size_t(2 * p - 1), std::size_t{777}, std::size_t{4099}}) {
      ns.push_back(n);
    }
  }
  std::sort(ns.begin(), ns.end());
  ns.erase(std::unique(ns.begin(), ns.end()), ns.end());
  return ns;
}

inline std::vector<int> roots(Operation op, int p, bool full) {
  if (!is_rooted(op) || p == 1) return {0};
  if (full) {
    std::vector<int> r = {0, 1, p / 2, p - 1};
    std::sort(r.begin(), r.end());
    r.erase(std::unique(r.begin(), r.end()), r.end());
    return r;
  }
  return {0, p - 1};
}

// Calls visit(op, algorithm, query) for every case of one machine of a setting, whether the
// algorithm applies or not (the visitor asks). The query's topology is `topology`.
template <class Visit>
void for_each_case(const Topology& topology, const Model& mdl, bool full, Visit&& visit) {
  const int p = topology.nodes();
  for (Operation op : all_operations()) {
    for (const Algorithm& a : algorithms(op)) {
      for (std::size_t n : op == Operation::barrier ? std::vector<std::size_t>{0}
                                                     : lengths(p, full)) {
        for (int root : roots(op, p, full)) {
          for (bool commutative : {true, false}) {
            if (!commutative && (!combines(op) || !(full || n == std::size_t(p + 1)))) {
              continue;
            }
            CostQuery q = make_query(topology, mdl, p, n, root, sizeof(std::int64_t),
                                     commutative, Options{});
            q.options.algorithm = a.name;
            q.options.strategy = test_strategy(a.name, p);
            q.options.hybrid = test_hybrid(op, a.name, q);
            visit(op, a, q);
            if (is_v(op) && n > 0 && commutative) {
              // Irregular counts: every third rank none, the others n + r.
              q.counts.resize(p);
              for (int r = 0; r < p; ++r) q.counts[r] = r % 3 == 0 ? 0 : n + r;
              visit(op, a, q);
            }
          }
        }
      }
    }
  }
}

// The settings of the sweep over p = 1..33; `full` adds those of VMC_FULL_SWEEP=1.
inline std::vector<Setting> family_settings(bool full) {
  std::vector<Setting> v;
  for (Port port : {Port::exchange, Port::duplex, Port::half, Port::all}) {
    v.push_back({"full_" + to_string(port), "full:", Routing::wormhole, port});
    v.push_back({"hypercube_" + to_string(port), "hypercube:", Routing::wormhole, port});
    v.push_back({"full_nogamma_" + to_string(port), "full:", Routing::wormhole, port, 0.0});
    v.push_back({"full_rendezvous_" + to_string(port), "full:", Routing::wormhole, port, 3e-9,
                 Contention::exclusive, Protocol::rendezvous});
    if (full) {
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
inline std::vector<Setting> mesh_settings(bool full) {
  std::vector<std::string> shapes = {"mesh:2x2", "mesh:3x5", "torus:4x4", "mesh:2x3x2",
                                     "mesh:4x6"};
  if (full) {
    for (std::string s : {"mesh:8x8", "mesh:5x7", "torus:3x4x5", "mesh:13x1", "torus:6x6"}) {
      shapes.push_back(s);
    }
  }
  std::vector<Setting> v = {{"mesh_duplex_shared", "", Routing::wormhole, Port::duplex, 3e-9,
                             Contention::shared, Protocol::eager, shapes, 3e-9, 1e-9}};
  if (full) {
    for (Port port : {Port::exchange, Port::half, Port::all}) {
      v.push_back({"mesh_shared_" + to_string(port), "", Routing::wormhole, port, 3e-9,
                   Contention::shared, Protocol::eager, shapes, 0.0, 1e-9});
    }
    v.push_back({"mesh_duplex_exclusive", "", Routing::wormhole, Port::duplex, 3e-9,
                 Contention::exclusive, Protocol::eager, shapes});
  }
  return v;
}

}  // namespace vmc::testing::claims
