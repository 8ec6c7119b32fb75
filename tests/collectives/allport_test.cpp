// The all-port hypercube algorithms (000 §7): their patterns alone (rotated binomial trees
// that never put two messages on one link in one step, edge-disjoint spanning binomial
// trees, equal windows), and their virtual times on hypercube:64 under --port all against
// the formulas their files state, written out again here, and against the single-port
// binomial broadcast's log p (alpha + n beta).
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "collectives/allport/allport.hpp"
#include "collectives/collectives.hpp"
#include "collectives/patterns/allport.hpp"
#include "collectives/selection/simulation.hpp"
#include "tests/collectives/harness.hpp"

namespace vmc::testing {
namespace {

namespace pa = patterns::allport;

TEST(AllportPatterns, WindowsAreEqualInsideTheVectorAndCoverIt) {
  for (std::size_t n = 0; n <= 40; ++n) {
    for (std::size_t k = 1; k <= 7; ++k) {
      const pa::Windows w = pa::windows(n, k);
      EXPECT_EQ(w.count, std::min(n, k));
      std::vector<int> covered(n, 0);
      for (std::size_t i = 0; i < w.count; ++i) {
        ASSERT_LE(w.start(i) + w.size, n) << n << " " << k << " " << i;
        for (std::size_t x = w.start(i); x < w.start(i) + w.size; ++x) covered[x] = 1;
      }
      EXPECT_EQ(std::count(covered.begin(), covered.end(), 1), static_cast<long>(n));
      if (n > 0) {
        EXPECT_EQ(w.size, (n + w.count - 1) / w.count);
      }
    }
  }
}

// The receivers of the all-port broadcasts keep their windows where WindowPlaces says: the
// windows apart in the vector itself, at their own place and never on each other, the others
// aside; once every window has been received and the node has finished, the vector is whole.
TEST(AllportPatterns, WindowPlacesPutTheWindowsApartInTheVectorAndFinishIt) {
  for (std::size_t n = 1; n <= 40; ++n) {
    for (std::size_t k = 1; k <= 12; ++k) {
      const pa::Windows w = pa::windows(n, k);
      std::vector<int> source(n), vector(n, -1);
      for (std::size_t x = 0; x < n; ++x) source[x] = static_cast<int>(x);
      internal::allport::WindowPlaces places(w, sizeof(int), vector.data());
      std::vector<int> taken(n, 0);
      std::size_t in_vector = 0;
      for (std::size_t i = 0; i < w.count; ++i) {
        auto* at = reinterpret_cast<int*>(places(i));
        if (at >= vector.data() && at < vector.data() + n) {
          ++in_vector;
          ASSERT_EQ(at, vector.data() + w.start(i)) << n << " " << k << " " << i;
          for (std::size_t x = w.start(i); x < w.start(i) + w.size; ++x) {
            EXPECT_EQ(++taken[x], 1) << "two windows on item " << x << " (" << n << " " << k << ")";
          }
        }
        std::copy_n(source.begin() + static_cast<long>(w.start(i)), w.size, at);
      }
      EXPECT_EQ(in_vector, n / w.size < w.count ? n / w.size : w.count) << n << " " << k;
      places.finish();
      EXPECT_EQ(vector, source) << n << " " << k;
    }
  }
}

TEST(AllportPatterns, RotatedTreesSpanTheCubeAndShareNoLinkInAStep) {
  for (int d = 1; d <= 7; ++d) {
    const int p = 1 << d;
    for (int s = 0; s < d; ++s) {
      std::set<std::pair<int, int>> used;  // directed links of step s over all trees
      for (int j = 0; j < d; ++j) {
        for (int v = 0; v < p; ++v) {
          if (!pa::rotated_holds(v, j, s, d)) continue;
          const int u = v ^ (1 << pa::rotated_dimension(j, s, d));
          EXPECT_FALSE(pa::rotated_holds(u, j, s, d)) << "a holder sends to a holder";
          EXPECT_TRUE(used.insert({v, u}).second) << "d=" << d << " step " << s;
        }
      }
    }
    for (int j = 0; j < d; ++j) {
      for (int v = 0; v < p; ++v) EXPECT_TRUE(pa::rotated_holds(v, j, d, d));  // spanning
      // Before step s tree j's nodes are aligned blocks of 2^s rotated labels.
      for (int s = 0; s <= d; ++s) {
        for (int v = 0; v < p; ++v) {
          EXPECT_EQ(pa::rotated_holds(v, j, s, d), (pa::rotate_right(v, j, d) >> s) == 0);
        }
      }
    }
  }
}

TEST(AllportPatterns, EdgeDisjointSpanningBinomialTrees) {
  for (int d = 1; d <= 8; ++d) {
    const int p = 1 << d;
    std::set<std::pair<int, int>> edges;  // directed, over every tree
    int height = 0;
    for (int j = 0; j < d; ++j) {
      EXPECT_EQ(pa::edst_parent(0, j, d), -1);
      EXPECT_EQ(pa::edst_children(0, j, d), std::vector<int>{1 << j});
      for (int v = 1; v < p; ++v) {
        const int parent = pa::edst_parent(v, j, d);
        ASSERT_GE(parent, 0);
        EXPECT_EQ(__builtin_popcount(parent ^ v), 1) << "a tree edge is a hypercube link";
        EXPECT_EQ(pa::edst_depth(v, j, d), pa::edst_depth(parent, j, d) + 1);
        const auto siblings = pa::edst_children(parent, j, d);
        EXPECT_EQ(std::count(siblings.begin(), siblings.end(), v), 1);
        EXPECT_TRUE(edges.insert({parent, v}).second)
            << "d=" << d << ": link " << parent << "->" << v << " in two trees";
        height = std::max(height, pa::edst_depth(v, j, d));
      }
      int children = 0;  // every node but the root has exactly one parent: p - 1 edges
      for (int v = 0; v < p; ++v) children += static_cast<int>(pa::edst_children(v, j, d).size());
      EXPECT_EQ(children, p - 1);
    }
    EXPECT_EQ(height, pa::edst_height(d));
  }
}

// --- virtual times on hypercube:64 under --port all ------------------------------------------

constexpr double kAlpha = 525e-6, kBeta = 2e-6, kGamma = 0.35e-6;  // 000 Fig. 7

Model all_port() {
  return model(Port::all, Routing::wormhole, kAlpha, kBeta, kGamma);
}

Picos broadcast_time(Machine& m, const std::string& algorithm, std::size_t n, int root,
                     std::size_t segment_items = 0) {
  Failures failures;
  const RunResult r = m.run([&](Node& node) {
    std::vector<std::int32_t> x(n, node.rank() == root ? 7 : 0);
    for (std::size_t i = 0; i < n && node.rank() == root; ++i) x[i] = static_cast<int>(i * 3 + 1);
    broadcast(node.world(), std::span(x), root,
              {.algorithm = algorithm, .segment_items = segment_items});
    for (std::size_t i = 0; i < n; ++i) {
      if (x[i] != static_cast<int>(i * 3 + 1)) {
        failures.add("node " + std::to_string(node.rank()) + " item " + std::to_string(i));
        break;
      }
    }
  });
  EXPECT_TRUE(failures.empty()) << algorithm << " n=" << n << "\n" << failures.text();
  return r.time_ps();
}

// The formulas of broadcast_allport_binomial.cpp and broadcast_allport_edst.cpp, written out
// again from the model: d T with T = alpha + ceil(n/d) beta, and (M + d)(alpha + b beta).
Picos rotated_formula(const CostUnits& u, int d, std::size_t n) {
  const std::size_t t = std::min<std::size_t>(d, n);
  return n == 0 ? 0 : d * (u.alpha + static_cast<Picos>((n + t - 1) / t) * u.beta);
}
Picos edst_formula(const CostUnits& u, int d, std::size_t n, int packets) {
  const std::size_t pieces = std::min<std::size_t>(d, n) * packets;
  return (packets + d) * (u.alpha + static_cast<Picos>((n + pieces - 1) / pieces) * u.beta);
}

TEST(AllportBroadcast, TimeOnHypercube64IsItsFormulaAndBeatsTheBinomial) {
  auto m = machine("hypercube:64", all_port());
  const CostUnits u(all_port());
  const int d = 6;
  std::printf("broadcast on hypercube:64, --port all, alpha 525 us, beta 2 us:\n"
              "%8s %14s %14s %14s %14s\n", "n", "binomial", "d(a+nb)", "allport_bin", "allport_edst");
  for (std::size_t n : {std::size_t{1}, std::size_t{6}, std::size_t{100}, std::size_t{1000},
                        std::size_t{4099}, std::size_t{65536}}) {
    for (int root : {0, 37}) {
      const Picos binomial = broadcast_time(*m, "binomial", n, root);
      const Picos single_port = d * u.message(n);  // log p (alpha + n beta)
      EXPECT_EQ(binomial, single_port);
      const Picos rotated = broadcast_time(*m, "allport_binomial", n, root);
      EXPECT_EQ(rotated, rotated_formula(u, d, n)) << "n=" << n << " root=" << root;
      const Picos edst = broadcast_time(*m, "allport_edst", n, root);
      const CostQuery q = query_for(*m, n, root, sizeof(std::int32_t));
      EXPECT_EQ(edst, find_algorithm(Operation::broadcast, "allport_edst")->cost(q));
      // The edst formula with the packet count the plan chose, found back from the time.
      bool matches_some_packet_count = false;
      for (int packets = 1; packets <= 64 && packets * std::min<std::size_t>(d, n) <= n; ++packets) {
        matches_some_packet_count = matches_some_packet_count ||
                                    edst == edst_formula(u, d, n, packets);
      }
      EXPECT_TRUE(matches_some_packet_count) << "n=" << n;
      if (n >= 100) {  // long vectors: below the single-port binomial
        EXPECT_LT(rotated, single_port) << "n=" << n;
        EXPECT_LT(edst, single_port) << "n=" << n;
      }
      if (root == 0) {
        std::printf("%8zu %14.3f %14.3f %14.3f %14.3f ms\n", n, to_seconds(binomial) * 1e3,
                    to_seconds(single_port) * 1e3, to_seconds(rotated) * 1e3,
                    to_seconds(edst) * 1e3);
      }
    }
  }
}

TEST(AllportBroadcast, EdstTakesTheGivenPacketSize) {
  auto m = machine("hypercube:64", all_port());
  const CostUnits u(all_port());
  // 6000 items, 100 per packet: 10 packets in each of 6 trees, (10 + 6)(alpha + 100 beta).
  EXPECT_EQ(broadcast_time(*m, "allport_edst", 6000, 5, 100), edst_formula(u, 6, 6000, 10));
  EXPECT_EQ(broadcast_time(*m, "allport_edst", 6000, 5, 100), 16 * u.message(100));
}

TEST(AllportBroadcast, SinglePortModelsQueueTheSameMessages) {
  // Under one port the d messages of a step follow each other: slower than under all ports,
  // and never faster than the all-port formula.
  for (Port port : {Port::exchange, Port::duplex, Port::half}) {
    auto m = machine("hypercube:16", model(port, Routing::wormhole, kAlpha, kBeta, kGamma));
    auto all = machine("hypercube:16", all_port());
    for (const std::string alg : {"allport_binomial", "allport_edst"}) {
      EXPECT_GT(broadcast_time(*m, alg, 1000, 3), broadcast_time(*all, alg, 1000, 3))
          << alg << " " << to_string(port);
    }
  }
}

// Every all-port row on hypercube:64 under --port all, with combine cost: the virtual time
// is the row's formula to the picosecond.
TEST(AllportRows, TimesOnHypercube64AreTheirFormulas) {
  auto m = machine("hypercube:64", all_port());
  const std::vector<std::pair<Operation, std::string>> rows = {
      {Operation::broadcast, "allport_binomial"}, {Operation::broadcast, "allport_edst"},
      {Operation::reduce, "allport_binomial"},    {Operation::allreduce, "allport_doubling"},
      {Operation::allgather, "allport_doubling"},
  };
  for (const auto& [op, name] : rows) {
    const Algorithm* a = find_algorithm(op, name);
    ASSERT_NE(a, nullptr) << name;
    for (std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{67},
                          std::size_t{1000}}) {
      for (int root : {0, 63, 22}) {
        CostQuery q = query_for(*m, n, root, sizeof(std::int64_t));
        q.options.algorithm = name;
        ASSERT_TRUE(a->applicable(q));
        EXPECT_EQ(claim_of(*a, q), Claim::exact);
        EXPECT_EQ(time_operation(*m, op, q), a->cost(q))
            << to_string(op) << " " << name << " n=" << n << " root=" << root;
      }
    }
  }
}

// The reduce's replay against the bounds its file states: between d T + t G (the root's
// last combine after d steps) and d (T + t G).
TEST(AllportRows, ReduceCostLiesBetweenItsBounds) {
  const Algorithm* a = find_algorithm(Operation::reduce, "allport_binomial");
  for (int d = 1; d <= 8; ++d) {
    for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{100}, std::size_t{5000}}) {
      for (double gamma : {0.0, 0.35e-6, 5e-6}) {
        auto topology = parse_topology("hypercube:" + std::to_string(1 << d));
        const CostQuery q = make_query(*topology, model(Port::all, Routing::wormhole, kAlpha,
                                                       kBeta, gamma),
                                       1 << d, n, 0, 8, true, Options{});
        const std::size_t t = std::min<std::size_t>(d, n), c = (n + t - 1) / t;
        const Picos T = q.units.message(c), G = q.units.combine(c);
        EXPECT_GE(a->cost(q), d * T + static_cast<Picos>(t) * G) << d << " " << n;
        EXPECT_LE(a->cost(q), d * (T + static_cast<Picos>(t) * G)) << d << " " << n;
      }
    }
  }
}

TEST(AllportRows, ApplyToPowersOfTwoAndClaimLowerBoundsUnderOnePort) {
  for (const auto& [op, name] :
       std::vector<std::pair<Operation, std::string>>{{Operation::broadcast, "allport_edst"},
                                                      {Operation::reduce, "allport_binomial"},
                                                      {Operation::allgather, "allport_doubling"}}) {
    const Algorithm* a = find_algorithm(op, name);
    CostQuery q;
    for (int p : {1, 2, 4, 64}) {
      q.p = p;
      EXPECT_TRUE(a->applicable(q)) << name << " p=" << p;
    }
    for (int p : {3, 6, 63}) {
      q.p = p;
      EXPECT_FALSE(a->applicable(q)) << name << " p=" << p;
    }
    q.p = 8;
    q.model.port = Port::exchange;
    EXPECT_EQ(claim_of(*a, q), Claim::lower_bound);
  }
  CostQuery q;
  q.p = 8;
  q.commutative = false;
  EXPECT_FALSE(find_algorithm(Operation::allreduce, "allport_doubling")->applicable(q));
  EXPECT_FALSE(find_algorithm(Operation::reduce, "allport_binomial")->applicable(q));
}

}  // namespace
}  // namespace vmc::testing
