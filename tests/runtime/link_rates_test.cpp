// Links of unequal bandwidth (002 §3.3.4, Model::link_rates): the classes the topologies give
// their links, the list syntax and its errors, and the virtual time of single messages over
// slow links, held exactly on hand-computed cases (wormhole, store-and-forward, shared).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/link_rates.hpp"
#include "runtime/machine.hpp"

namespace vmc {
namespace {

using ::testing::HasSubstr;

constexpr double kAlpha = 100e-6, kBeta = 2e-6;

LinkRate dim(int k, double seconds) {
  return {.kind = LinkRate::Kind::dimension, .index = k, .beta_net = seconds};
}
LinkRate level(int l, double seconds, LinkRate::Direction d = LinkRate::Direction::both) {
  return {.kind = LinkRate::Kind::tree, .index = l, .direction = d, .beta_net = seconds};
}

// Node `from` sends n ints to node `to`; nothing else moves. All ports: only links limit.
RunResult one_message(const std::string& topology, const Model& model, int from, int to,
                      std::size_t n) {
  Machine m({.topology = parse_topology(topology), .model = model});
  return m.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> data(n, c.rank());
    if (c.rank() == from) c.send(std::span<const int>(data), to, 0);
    if (c.rank() == to) c.recv(std::span<int>(data), from, 0);
  });
}

Model model(Routing routing, Contention contention = Contention::exclusive) {
  return {.alpha = kAlpha, .beta = kBeta, .port = Port::all, .routing = routing,
          .contention = contention};
}

TEST(LinkClasses, GridsAndHypercubesByDimensionTreesByLevelAndDirection) {
  for (const char* spec : {"hypercube:8", "hypercube:5", "mesh:3x4w", "torus:3x3x2", "ring:5"}) {
    auto t = parse_topology(spec);
    for (LinkId l = 0; l < t->link_count(); ++l) {
      const DirectedLink d = t->link(l);
      const LinkClass c = t->link_class(l);
      const auto a = t->coordinates(d.from), b = t->coordinates(d.to);
      int differing = -1;
      for (std::size_t k = 0; k < a.size(); ++k) {
        if (a[k] != b[k]) differing = static_cast<int>(k);
      }
      EXPECT_EQ(c.dimension, differing) << spec << " link " << l;
      EXPECT_EQ(c.level, -1) << spec;
    }
  }
  // tree:8: 2 links at level 1 (each direction), 4 at level 2, 8 at level 3.
  auto tree = parse_topology("tree:8");
  std::map<std::pair<int, bool>, int> count;
  for (LinkId l = 0; l < tree->link_count(); ++l) {
    const LinkClass c = tree->link_class(l);
    const DirectedLink d = tree->link(l);
    EXPECT_EQ(c.dimension, -1);
    // An up link leads from a vertex to its parent (the one nearer the root).
    const bool to_parent = d.to >= 8 && (d.from < 8 || d.to < d.from);
    EXPECT_EQ(c.up, to_parent) << l;
    ++count[{c.level, c.up}];
  }
  EXPECT_EQ(count, (std::map<std::pair<int, bool>, int>{
                       {{1, false}, 2}, {{1, true}, 2}, {{2, false}, 4}, {{2, true}, 4},
                       {{3, false}, 8}, {{3, true}, 8}}));
  auto full = parse_topology("full:4");
  EXPECT_EQ(full->link_class(0).dimension, -1);
  EXPECT_EQ(full->link_class(0).level, -1);
  EXPECT_THROW(full->link_class(12), std::out_of_range);
}

TEST(LinkRateLists, ParseAndRefuseWithTheReason) {
  using K = LinkRate::Kind;
  using D = LinkRate::Direction;
  EXPECT_EQ(parse_link_rates(K::dimension, D::both, "0=2us,5=8us"),
            (std::vector<LinkRate>{dim(0, 2e-6), dim(5, 8e-6)}));
  EXPECT_EQ(parse_link_rates(K::tree, D::up, "8us"),
            (std::vector<LinkRate>{level(-1, 8e-6, D::up)}));
  EXPECT_EQ(parse_link_rates(K::tree, D::both, "1=8us,2=4us"),
            (std::vector<LinkRate>{level(1, 8e-6), level(2, 4e-6)}));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "empty list"},           {"8us", "is not K=TIME"},
      {"x=1us", "is not a dimension"}, {"-1=1us", "is not a dimension"},
      {"0=-1us", "not negative"},   {"0=1xs", "unknown unit"},
      {"0=1us,0=2us", "given twice"}, {"0=1us,", "is not K=TIME"}};
  for (const auto& [text, why] : bad) {
    try {
      parse_link_rates(K::dimension, D::both, text);
      ADD_FAILURE() << "accepted \"" << text << "\"";
    } catch (const std::invalid_argument& e) {
      EXPECT_THAT(e.what(), HasSubstr(why)) << text;
    }
  }
  // Levels count from 1, the root's links.
  EXPECT_THROW(parse_link_rates(K::tree, D::both, "0=1us"), std::invalid_argument);
  EXPECT_EQ(to_string(dim(3, 1)), "dimension 3");
  EXPECT_EQ(to_string(level(1, 1, D::down)), "level 1 down links");
  EXPECT_EQ(to_string(level(-1, 1, D::up)), "up links");
  Model m = model(Routing::wormhole);
  m.link_rates = {level(1, 8e-6)};
  EXPECT_THAT(describe(m), HasSubstr("beta_net level 1 links 8 us"));
}

TEST(LinkRateLists, AMachineRefusesAClassItsTopologyDoesNotHave) {
  const std::vector<std::tuple<std::string, Routing, LinkRate, std::string>> cases = {
      {"hypercube:16", Routing::wormhole, dim(4, 1e-6), "dimensions 0 to 3"},
      {"mesh:4x1", Routing::wormhole, dim(1, 1e-6), "no link of mesh:4x1"},
      {"mesh:4x4", Routing::wormhole, level(-1, 1e-6, LinkRate::Direction::up),
       "dimensions 0 to 1"},
      {"tree:8", Routing::wormhole, level(4, 1e-6), "levels 1 (at the root) to 3"},
      {"tree:8", Routing::wormhole, dim(0, 1e-6), "up and down links"},
      {"full:4", Routing::wormhole, dim(0, 1e-6), "no dimensions or levels"},
      {"hypercube:8", Routing::direct, dim(0, 1e-6), "routing direct"},
  };
  for (const auto& [spec, routing, rate, why] : cases) {
    Model m = model(routing);
    m.link_rates = {rate};
    try {
      Machine machine({.topology = parse_topology(spec), .model = m});
      ADD_FAILURE() << spec << " accepted " << to_string(rate);
    } catch (const UsageError& e) {
      EXPECT_THAT(e.what(), HasSubstr(why)) << spec;
      EXPECT_THAT(e.what(), HasSubstr(to_string(rate))) << spec;
    }
  }
}

// A wormhole message holds its whole route and moves at the rate of its slowest link:
// alpha + n max(beta, max_l beta_net_l).
TEST(LinkRates, AWormholeMessageMovesAtItsSlowestLink) {
  const std::size_t n = 1000;
  Model m = model(Routing::wormhole);
  const CostUnits u(m);
  const Picos alpha = u.alpha, beta = u.beta;
  // hypercube:8, 0 -> 7 crosses dimensions 0, 1, 2.
  EXPECT_EQ(one_message("hypercube:8", m, 0, 7, n).time_ps(), alpha + n * beta);
  m.link_rates = {dim(2, 8e-6)};
  EXPECT_EQ(one_message("hypercube:8", m, 0, 7, n).time_ps(), alpha + n * to_picos(8e-6));
  EXPECT_EQ(one_message("hypercube:8", m, 0, 3, n).time_ps(), alpha + n * beta);  // no dim 2
  m.link_rates = {dim(2, 1e-6)};  // a link faster than the node: the node's rate
  EXPECT_EQ(one_message("hypercube:8", m, 0, 7, n).time_ps(), alpha + n * beta);
  // tree:8, 0 -> 7 climbs to the root and back down: 6 links, two of them at level 1.
  m.link_rates = {level(1, 5e-6)};
  EXPECT_EQ(one_message("tree:8", m, 0, 7, n).time_ps(), alpha + n * to_picos(5e-6));
  EXPECT_EQ(one_message("tree:8", m, 0, 3, n).time_ps(), alpha + n * beta);  // below the root
  // Several rates naming one link: the slowest.
  m.link_rates = {level(-1, 3e-6, LinkRate::Direction::up), level(1, 4e-6)};
  EXPECT_EQ(one_message("tree:8", m, 0, 7, n).time_ps(), alpha + n * to_picos(4e-6));
  EXPECT_EQ(one_message("tree:8", m, 0, 3, n).time_ps(), alpha + n * to_picos(3e-6));
}

// Store-and-forward: each hop is a message of its own at its own link's rate.
TEST(LinkRates, StoreAndForwardPricesEachHopByItsLink) {
  const std::size_t n = 1000;
  Model m = model(Routing::store_and_forward);
  const CostUnits u(m);
  const Picos alpha = u.alpha, beta = u.beta, slow = to_picos(8e-6);
  m.link_rates = {dim(2, 8e-6)};
  EXPECT_EQ(one_message("hypercube:8", m, 0, 7, n).time_ps(),
            2 * (alpha + n * beta) + (alpha + n * slow));
  // tree:8, 0 -> 7: levels 3, 2, 1 up, then 1, 2, 3 down.
  m.link_rates = {level(1, 8e-6)};
  EXPECT_EQ(one_message("tree:8", m, 0, 7, n).time_ps(),
            4 * (alpha + n * beta) + 2 * (alpha + n * slow));
  m.link_rates = {level(-1, 8e-6, LinkRate::Direction::up)};
  EXPECT_EQ(one_message("tree:8", m, 0, 7, n).time_ps(),
            3 * (alpha + n * beta) + 3 * (alpha + n * slow));
  // The contention-free replay prices the hops alike: no contention is reported.
  EXPECT_EQ(one_message("tree:8", m, 0, 7, n).stats().contention_delay, 0);
}

// Shared links: a message's per-item time is max(beta, max_l c_l beta_net_l).
// hypercube:4 under e-cube: 0 -> 3 crosses 0->1 (dimension 0) then 1->3 (dimension 1);
// 1 -> 3 crosses 1->3 alone: the two share 1->3 for their whole length.
TEST(LinkRates, SharedLinksStretchByTheirOwnRate) {
  const std::size_t n = 1000;
  Model m = model(Routing::wormhole, Contention::shared);
  const CostUnits u(m);
  auto both = [&](const Model& model) {
    Machine machine({.topology = parse_topology("hypercube:4"), .model = model});
    return machine.run([&](Node& node) {
      const Comm& c = node.world();
      std::vector<int> data(n, c.rank());
      if (c.rank() == 0 || c.rank() == 1) c.send(std::span<const int>(data), 3, 0);
      if (c.rank() == 3) {
        c.recv(std::span<int>(data), 0, 0);
        c.recv(std::span<int>(data), 1, 0);
      }
    });
  };
  EXPECT_EQ(both(m).time_ps(), u.alpha + n * 2 * u.beta);  // 2 beta_net, beta_net = beta
  m.link_rates = {dim(1, 3e-6)};
  EXPECT_EQ(both(m).time_ps(), u.alpha + n * 2 * to_picos(3e-6));
  m.link_rates = {dim(1, 0.5e-6)};  // 2 x 0.5 us: the node's 2 us still limits
  EXPECT_EQ(both(m).time_ps(), u.alpha + n * u.beta);
  // 0 -> 3's first link is slow, alone on it: 30 us per item, while 1 -> 3 shares only
  // 1->3 and ends after alpha + n 2 beta_net. 0 -> 3 is re-planned then, to within the
  // picosecond rounding of a re-evaluation (simulator.cpp: kWorkScale).
  m.link_rates = {dim(0, 30e-6)};
  const RunResult r = both(m);
  EXPECT_GE(r.time_ps(), u.alpha + n * to_picos(30e-6));
  EXPECT_LE(r.time_ps(), u.alpha + n * to_picos(30e-6) + 100);
  for (const MessageEvent& e : r.trace().messages) {
    if (e.src == 1) {
      EXPECT_EQ(e.end, u.alpha + n * 2 * u.beta);
    }
  }
}

// A rate equal to the model's beta_net changes no time, on either path of the code.
TEST(LinkRates, ARateEqualToBetaNetChangesNothing) {
  for (Routing routing : {Routing::wormhole, Routing::store_and_forward}) {
    for (Contention contention : {Contention::exclusive, Contention::shared}) {
      Model m = model(routing, contention);
      const Picos plain = one_message("tree:8", m, 0, 7, 777).time_ps();
      m.link_rates = {level(-1, kBeta, LinkRate::Direction::up),
                      level(-1, kBeta, LinkRate::Direction::down)};
      EXPECT_EQ(one_message("tree:8", m, 0, 7, 777).time_ps(), plain);
    }
  }
}

// The real clock runs the same rates (its times are the host's: only completion is held).
TEST(LinkRates, TheRealClockRunsWithClassRates) {
  Model m = model(Routing::store_and_forward, Contention::shared);
  m.alpha = 1e-6;
  m.beta = 1e-9;
  m.link_rates = {level(1, 4e-9)};
  Machine machine({.topology = parse_topology("tree:4"), .model = m, .clock = Clock::real_time});
  std::vector<int> got(4, -1);
  const RunResult r = machine.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> out(100, c.rank()), in(100, -1);
    const int partner = c.rank() ^ 2;  // across the root
    c.sendrecv(std::span<const int>(out), partner, std::span<int>(in), partner, 0);
    got[c.rank()] = in[0];
  });
  EXPECT_EQ(got, (std::vector<int>{2, 3, 0, 1}));
  EXPECT_EQ(r.stats().messages, 4u);
}

}  // namespace
}  // namespace vmc
