// 004 §2's additions to the machine model, held exactly on hand-computed cases: node versus
// link bandwidth (beta_node = Model::beta, beta_net), local rearrangement (delta), and
// worms that hold the links they have while they wait (Worm::blocking, 004 §13).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/machine.hpp"

namespace vmc {
namespace {

constexpr double kAlpha = 525e-6, kBeta = 2e-6;

const MessageEvent& message_from(const RunResult& r, int src) {
  for (const MessageEvent& e : r.trace().messages) {
    if (e.src == src) return e;
  }
  throw std::logic_error("no message from node " + std::to_string(src));
}

// Nodes 0..k-1 of array:(k+1) each send items[i] items to node k at time 0; every message
// crosses the link k-1 -> k, so they share it under `shared`. All ports: only links limit.
RunResult converge(const Model& model, const std::vector<std::size_t>& items) {
  const int k = static_cast<int>(items.size());
  Machine m({.topology = parse_topology("array:" + std::to_string(k + 1)), .model = model});
  return m.run([&](Node& node) {
    const Comm& c = node.world();
    if (c.rank() < k) {
      std::vector<int> data(items[c.rank()], c.rank());
      c.send(std::span<const int>(data), k, 0);
    } else {
      for (int src = 0; src < k; ++src) {
        std::vector<int> data(items[src]);
        c.recv(std::span<int>(data), src, 0);
      }
    }
  });
}

Model shared_model() {
  return {.alpha = kAlpha, .beta = kBeta, .port = Port::all, .routing = Routing::wormhole,
          .contention = Contention::shared};
}

TEST(LinkBandwidth, AMessageAloneMovesAtTheNodeRate) {
  Model model = shared_model();
  model.beta_net = kBeta / 4;
  auto r = converge(model, {1000});
  EXPECT_EQ(r.time_ps(), CostUnits(model).alpha + 1000 * CostUnits(model).beta);
  EXPECT_EQ(r.stats().contention_delay, 0);
}

TEST(LinkBandwidth, SharersGetTheNodeRateUntilTheLinkIsTheBottleneck) {
  const CostUnits u(shared_model());
  const Picos nb = 1000 * u.beta;
  {
    // beta_net = beta/2: two sharers each get max(beta, 2 beta/2) = beta: no slowdown.
    Model model = shared_model();
    model.beta_net = kBeta / 2;
    auto r = converge(model, {1000, 1000});
    EXPECT_EQ(r.stats().node_time[0], u.alpha + nb);
    EXPECT_EQ(r.stats().node_time[1], u.alpha + nb);
    EXPECT_EQ(r.stats().contention_delay, 0);
    EXPECT_EQ(r.stats().link_peak.at(parse_topology("array:3")->link_between(1, 2)), 2);
  }
  {
    // Three sharers: max(beta, 3 beta/2) = 1.5 beta each.
    Model model = shared_model();
    model.beta_net = kBeta / 2;
    auto r = converge(model, {1000, 1000, 1000});
    for (int i = 0; i < 3; ++i) EXPECT_EQ(r.stats().node_time[i], u.alpha + nb * 3 / 2);
    EXPECT_EQ(r.stats().contention_delay, 3 * (nb / 2));
  }
  {
    // beta_net unset (equal to beta): k sharers get 1/k of the link each (001).
    auto r = converge(shared_model(), {1000, 1000, 1000});
    for (int i = 0; i < 3; ++i) EXPECT_EQ(r.stats().node_time[i], u.alpha + 3 * nb);
  }
}

TEST(LinkBandwidth, TheRateFollowsTheSharersAsMessagesLeave) {
  // n, 2n, 3n items on one link, beta_net = beta/2: at 1.5 beta per item until the first
  // has moved n items (1.5 n beta), then at beta (two sharers) until the second has moved
  // its other n (2.5 n beta), then the last alone moves its last n (3.5 n beta).
  Model model = shared_model();
  model.beta_net = kBeta / 2;
  const CostUnits u(model);
  const std::size_t n = 1000;
  const Picos nb = static_cast<Picos>(n) * u.beta;
  auto r = converge(model, {n, 2 * n, 3 * n});
  EXPECT_EQ(r.stats().node_time[0], u.alpha + nb * 3 / 2);
  EXPECT_EQ(r.stats().node_time[1], u.alpha + nb * 5 / 2);
  EXPECT_EQ(r.stats().node_time[2], u.alpha + nb * 7 / 2);
  // Each lost what it waited beyond alpha + its own n beta.
  EXPECT_EQ(r.stats().contention_delay, nb / 2 + nb / 2 + nb / 2);
}

TEST(LinkBandwidth, SlowLinksSlowAMessageAlone) {
  // Links slower than the node (beta_net > beta): even alone a message moves at beta_net,
  // and that is not contention.
  Model model = shared_model();
  model.beta_net = 2 * kBeta;
  auto r = converge(model, {1000});
  const CostUnits u(model);
  EXPECT_EQ(u.transfer(1000), 1000 * 2 * u.beta);
  EXPECT_EQ(r.time_ps(), u.alpha + 1000 * 2 * u.beta);
  EXPECT_EQ(r.stats().contention_delay, 0);
}

TEST(Rearrange, DeltaIsChargedAndShownLikeGamma) {
  Model model{.alpha = kAlpha, .beta = kBeta, .gamma = 0.35e-6, .delta = 0.1e-6};
  Machine m({.nodes = 3, .model = model});
  auto r = m.run([&](Node& node) {
    if (node.rank() == 1) node.charge_rearrange(1000);
    if (node.rank() == 2) {
      node.charge_rearrange(10);
      node.charge_combine(20);
    }
  });
  const CostUnits u(model);
  EXPECT_EQ(r.stats().node_time[0], 0);
  EXPECT_EQ(r.stats().node_time[1], 1000 * u.delta);
  EXPECT_EQ(r.stats().node_time[2], 10 * u.delta + 20 * u.gamma);
  EXPECT_EQ(r.stats().rearranged_items, 1010u);
  EXPECT_EQ(r.stats().combined_items, 20u);
  ASSERT_EQ(r.trace().combines.size(), 3u);
  int rearranges = 0;
  for (const CombineEvent& e : r.trace().combines) rearranges += e.kind == Work::rearrange;
  EXPECT_EQ(rearranges, 2);
  EXPECT_NE(r.trace().chrome_json().find("\"rearrange\""), std::string::npos);
}

TEST(Rearrange, OnTheRealClockToo) {
  Model model{.delta = 1e-6};
  Machine m({.nodes = 2, .model = model, .clock = Clock::real_time});
  auto r = m.run([&](Node& node) {
    if (node.rank() == 1) node.charge_rearrange(2000);
  });
  EXPECT_EQ(r.stats().rearranged_items, 2000u);
  EXPECT_GE(r.stats().node_time[1], 2000 * CostUnits(model).delta);  // never faster
  ASSERT_EQ(r.trace().combines.size(), 1u);
  EXPECT_EQ(r.trace().combines[0].kind, Work::rearrange);
}

// array:5, duplex ports. B = 2 -> 4 starts at 0 and holds 2->3 for M = alpha + n beta.
// At T < M, A = 0 -> 3 (links 0->1, 1->2, 2->3) and C = 1 -> 2 (link 1->2) are requested,
// A first (lower sender). Atomic worms: A waits holding nothing, C goes at once, and A
// goes when B and C are done (T + M). Blocking worms: A takes 0->1 and 1->2 and waits for
// 2->3 (M), so C waits for A (2M).
RunResult held_prefix(Worm worm, Clock clock, std::size_t n, double t_a, double t_c) {
  Model model{.alpha = kAlpha, .beta = kBeta, .port = Port::duplex,
              .routing = Routing::wormhole, .contention = Contention::exclusive, .worm = worm};
  Machine m({.topology = parse_topology("array:5"), .model = model, .clock = clock});
  return m.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> data(n, c.rank());
    switch (c.rank()) {
      case 0:
        c.charge_compute(t_a);
        c.send(std::span<const int>(data), 3, 0);
        break;
      case 1:
        c.charge_compute(t_c);
        c.send(std::span<const int>(data), 2, 0);
        break;
      case 2:
        c.send(std::span<const int>(data), 4, 0);
        c.recv(std::span<int>(data), 1, 0);
        break;
      case 3: c.recv(std::span<int>(data), 0, 0); break;
      case 4: c.recv(std::span<int>(data), 2, 0); break;
    }
  });
}

TEST(BlockingWorms, ABlockedWormHoldsTheLinksItHas) {
  const std::size_t n = 1000;
  const Picos m_time = CostUnits(Model{.alpha = kAlpha, .beta = kBeta}).message(n);
  const double t = to_seconds(m_time) / 4;
  const Picos tp = to_picos(t);
  {
    auto r = held_prefix(Worm::atomic, Clock::virtual_time, n, t, t);
    EXPECT_EQ(message_from(r, 1).start, tp);           // C goes at once
    EXPECT_EQ(message_from(r, 0).start, tp + m_time);  // A waits for B and C
    EXPECT_EQ(message_from(r, 1).contention_delay, 0);
    EXPECT_EQ(r.time_ps(), tp + 2 * m_time);
  }
  {
    auto r = held_prefix(Worm::blocking, Clock::virtual_time, n, t, t);
    EXPECT_EQ(message_from(r, 0).start, m_time);       // A waits for B, holding 0->1, 1->2
    EXPECT_EQ(message_from(r, 1).start, 2 * m_time);   // C waits for A
    EXPECT_EQ(message_from(r, 0).contention_delay, m_time - tp);
    EXPECT_EQ(message_from(r, 1).contention_delay, 2 * m_time - tp);
    EXPECT_EQ(r.time_ps(), 3 * m_time);
    // Link 0->1 was held from T while A waited, not only while it moved.
    const auto topo = parse_topology("array:5");
    EXPECT_EQ(r.stats().link_busy.at(topo->link_between(0, 1)), 2 * m_time - tp);
    // Without contention all three overlap: the whole 3M - M is due to the held links.
    EXPECT_EQ(r.stats().free_time, tp + m_time);
  }
}

TEST(BlockingWorms, OnTheRealClockMessagesSharingALinkNeverOverlap) {
  // On the real clock the order in which A and C reach the network depends on the host, so
  // only what holds under any load is asserted: the messages that share link 1->2 (A and
  // C) and 2->3 (A and B) never overlap.
  const std::size_t n = 50;
  const double t = 1e-4;
  auto real = held_prefix(Worm::blocking, Clock::real_time, n, t, 2 * t);
  const MessageEvent &a = message_from(real, 0), &b = message_from(real, 2),
                     &c = message_from(real, 1);
  EXPECT_TRUE(a.end <= c.start || c.end <= a.start);
  EXPECT_TRUE(a.end <= b.start || b.end <= a.start);
  EXPECT_EQ(real.stats().messages, 3u);
}

TEST(BlockingWorms, ACycleOverWraparoundLinksIsReportedAsANetworkDeadlock) {
  // ring:6, routes the shorter way around (increasing on a tie), all ports. At 0 node 3
  // sends 3 items to 4 (link 3->4 held until 3 us). At 1 us B = 2 -> 5 (2->3, 3->4, 4->5)
  // goes first (its receiver already waits) and holds 2->3, waiting for 3->4; A = 0 -> 3
  // (0->1, 1->2, 2->3) holds 0->1 and 1->2, waiting for 2->3. At 2 us C = 4 -> 1 (4->5,
  // 5->0, 0->1) holds 4->5 and 5->0, waiting for 0->1. At 3 us B takes 3->4 and waits for
  // 4->5: A waits for B, B for C, C for A. Atomic worms complete the same program.
  struct Send {
    int src;
    double delay;
    int dst;
    std::size_t items;
  };
  const std::vector<Send> plan = {{0, 1e-6, 3, 1}, {2, 1e-6, 5, 1}, {3, 0, 4, 3}, {4, 2e-6, 1, 1}};
  auto run = [&](Worm worm) {
    Model model{.alpha = 0, .beta = 1e-6, .port = Port::all, .routing = Routing::wormhole,
                .contention = Contention::exclusive, .worm = worm};
    Machine m({.topology = parse_topology("ring:6"), .model = model});
    return m.run([&](Node& node) {
      const Comm& c = node.world();
      for (const Send& s : plan) {
        if (s.src != c.rank()) continue;
        if (s.delay > 0) c.charge_compute(s.delay);
        std::vector<int> x(s.items);
        c.send(std::span<const int>(x), s.dst, 0);
      }
      for (const Send& s : plan) {
        if (s.dst != c.rank()) continue;
        std::vector<int> x(s.items);
        c.recv(std::span<int>(x), s.src, 0);
      }
    });
  };
  EXPECT_EQ(run(Worm::atomic).stats().messages, 4u);
  try {
    run(Worm::blocking);
    FAIL() << "expected a network deadlock";
  } catch (const RunError& e) {
    EXPECT_EQ(e.kind(), RunError::Kind::deadlock);
    const std::string what = e.what();
    EXPECT_NE(what.find("network deadlock"), std::string::npos) << what;
    EXPECT_NE(what.find("node 0 -> node 3 holds 2 of its 3 links and waits for link 2->3, "
                        "held by the worm node 2 -> node 5"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("node 4 -> node 1 holds 2 of its 3 links and waits for link 0->1"),
              std::string::npos)
        << what;
  }
}

TEST(BlockingWorms, DimensionOrderRoutesOnAMeshNeverDeadlock) {
  // Every node sends to every other, even ranks in increasing and odd ranks in decreasing
  // order of distance, all at once: on meshes and hypercubes (no wraparound) blocking worms
  // always complete (dimension order makes the link dependencies acyclic).
  for (const char* spec : {"mesh:4x3", "mesh:3x3x2", "hypercube:16"}) {
    Model model{.alpha = 1e-6, .beta = 1e-6, .port = Port::all, .routing = Routing::wormhole,
                .contention = Contention::exclusive, .worm = Worm::blocking};
    Machine m({.topology = parse_topology(spec), .model = model});
    auto r = m.run([&](Node& node) {
      const Comm& c = node.world();
      const int p = c.size(), me = c.rank();
      std::vector<int> x(1 + me % 3, me);
      for (int k = 1; k < p; ++k) {
        const int to = (me + (me % 2 == 0 ? k : p - k)) % p;
        c.send(std::span<const int>(x), to, 0);
      }
      for (int src = 0; src < p; ++src) {
        if (src == me) continue;
        std::vector<int> y(1 + src % 3);
        c.recv(std::span<int>(y), src, 0);
        EXPECT_EQ(y[0], src);
      }
    });
    EXPECT_EQ(r.stats().messages, std::uint64_t(m.size()) * (m.size() - 1)) << spec;
  }
}

}  // namespace
}  // namespace vmc
