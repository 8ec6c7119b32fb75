// The network model (docs/model.md), held exactly in virtual time. Programs here are
// written with point-to-point calls; the collectives have their own cost tests.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include <cmath>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/machine.hpp"
#include "runtime/ports.hpp"
#include "tests/runtime/programs.hpp"

namespace vmc {
namespace {

constexpr double kAlpha = 525e-6, kBeta = 2e-6, kGamma = 0.35e-6;

Model hypercube_model() {
  return {.alpha = kAlpha, .beta = kBeta, .gamma = kGamma, .port = Port::exchange,
          .routing = Routing::wormhole};
}

Picos units(double seconds) { return to_picos(seconds); }

TEST(Model, ThePortRuleSaysWhichPortsATransferHolds) {
  // exchange: one port per node; a port held for a partner takes the message back, not
  // a third node's.
  PortOccupancy exchange(Port::exchange, 3);
  exchange.take(0, 1);
  EXPECT_TRUE(exchange.free(1, 0));
  EXPECT_FALSE(exchange.free(0, 2));
  EXPECT_FALSE(exchange.free(2, 1));
  exchange.give_back(0, 1);
  EXPECT_TRUE(exchange.free(0, 2));
  // half: one transfer at a time, whichever the direction.
  PortOccupancy half(Port::half, 3);
  half.take(0, 1);
  EXPECT_FALSE(half.free(1, 0));
  EXPECT_FALSE(half.free(2, 0));
  // duplex: the sender's out-port and the receiver's in-port.
  PortOccupancy duplex(Port::duplex, 3);
  duplex.take(0, 1);
  EXPECT_TRUE(duplex.free(1, 0));
  EXPECT_TRUE(duplex.free(2, 0));
  EXPECT_FALSE(duplex.free(0, 2));
  EXPECT_FALSE(duplex.free(2, 1));
  // all: nothing at the nodes.
  PortOccupancy all(Port::all, 2);
  all.take(0, 1);
  EXPECT_TRUE(all.free(0, 1));
  EXPECT_EQ(port_hold(Port::exchange), PortHold::nodes);
  EXPECT_EQ(port_hold(Port::half), PortHold::nodes);
  EXPECT_EQ(port_hold(Port::duplex), PortHold::directions);
  EXPECT_EQ(port_hold(Port::all), PortHold::nothing);
  // Links: counted, with the most users each had at once.
  LinkOccupancy links(3);
  const std::vector<LinkId> route{0, 2};
  links.take(route);
  EXPECT_FALSE(links.free(route));
  EXPECT_TRUE(links.free(LinkId{1}));
  links.take(LinkId{2});
  EXPECT_EQ(links.users(2), 2);
  links.give_back(route);
  links.give_back(LinkId{2});
  EXPECT_TRUE(links.free(route));
  EXPECT_EQ(links.peaks(), (std::vector<int>{1, 0, 2}));
}

TEST(Model, EnumNamesPrintAndParseByOneTable) {
  EXPECT_EQ(to_string(Routing::store_and_forward), "store_and_forward");
  EXPECT_EQ(parse_routing("saf"), Routing::store_and_forward);  // an alias, never listed
  EXPECT_EQ(parse_clock(to_string(Clock::real_time)), Clock::real_time);
  EXPECT_EQ(parse_engine("auto"), Engine::automatic);
  const auto refusal = [](auto parse, const char* text) {
    try {
      parse(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  EXPECT_EQ(refusal(parse_routing, "x"),
            "unknown routing \"x\": expected direct, wormhole or store_and_forward");
  EXPECT_EQ(refusal(parse_port, "x"),
            "unknown port model \"x\": expected exchange, duplex, half or all");
  EXPECT_EQ(refusal(parse_worm, ""), "unknown worm behaviour \"\": expected atomic or blocking");
  EXPECT_EQ(refusal(parse_transport, "tcp"),
            "unknown transport \"tcp\": expected local, mpi or spread");
}

TEST(Model, BinomialBroadcastOnHypercube64FromEveryRoot) {
  Machine m({.topology = parse_topology("hypercube:64"), .model = hypercube_model()});
  CostUnits u(m.config().model);
  for (std::size_t n : {0, 1, 100, 4096}) {
    for (int root = 0; root < 64; root += (n == 100 ? 1 : 9)) {
      auto r = m.run([&](Node& node) {
        std::vector<int> data(n, node.rank() == root ? 7 : 0);
        broadcast(node.world(), data, root);
        for (int x : data) ASSERT_EQ(x, 7);
      });
      EXPECT_EQ(r.time_ps(), 6 * u.message(n)) << "n " << n << " root " << root;
      EXPECT_EQ(r.stats().messages, 63u);
      EXPECT_EQ(r.stats().critical_startups, 6);
      EXPECT_EQ(r.stats().token_wait, 0);
    }
  }
}

TEST(Model, BinomialBroadcastOnIncompleteHypercubes) {
  for (int p : {3, 5, 6, 7, 12, 33, 63, 100}) {
    Machine m({.topology = parse_topology("hypercube:" + std::to_string(p)),
               .model = hypercube_model()});
    CostUnits u(m.config().model);
    int d = 0;
    while ((1 << d) < p) ++d;
    auto r = m.run([&](Node& node) {
      std::vector<int> data(50, node.rank() == 0 ? 1 : 0);
      broadcast(node.world(), data, 0);
    });
    EXPECT_EQ(r.time_ps(), d * u.message(50)) << "p " << p;
  }
}

// Every node sends n items to its right neighbour and receives from its left, p-1 times.
RunResult ring_shift(Machine& m, std::size_t n) {
  const int p = m.size();
  return m.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> out(n, c.rank()), in(n);
    for (int step = 0; step + 1 < p; ++step) {
      c.sendrecv(std::span<const int>(out), (c.rank() + 1) % p, std::span<int>(in),
                 (c.rank() + p - 1) % p, 0);
      out.swap(in);
    }
    if (n > 0) {
      ASSERT_EQ(out[0], (c.rank() + 1) % p);  // after p-1 shifts: the right neighbour's item
    }
  });
}

TEST(Model, RingShiftUnderDuplexPorts) {
  for (int p : {2, 3, 8, 17, 64}) {
    Model model{.alpha = kAlpha, .beta = kBeta, .port = Port::duplex, .routing = Routing::wormhole};
    Machine m({.topology = parse_topology("ring:" + std::to_string(p)), .model = model});
    CostUnits u(model);
    for (std::size_t n : {0, 1, 1000}) {
      auto r = ring_shift(m, n);
      EXPECT_EQ(r.time_ps(), (p - 1) * u.message(n)) << "p " << p << " n " << n;
      EXPECT_EQ(r.stats().token_wait, 0);
    }
  }
}

TEST(Model, RingShiftUnderExchangePortsCostsWhatTheModelSays) {
  // Under exchange a node talks to one neighbour at a time. Sending right while receiving
  // from the left means two partners, so the two transfers of a step cannot overlap: in
  // each step the even nodes send first (the lower rank wins a tie), then the odd ones.
  // Each step costs two message times for even p > 2; p = 2 is a true exchange (one time).
  for (int p : {2, 4, 8, 16, 64}) {
    Model model{.alpha = kAlpha, .beta = kBeta, .port = Port::exchange,
                .routing = Routing::wormhole};
    Machine m({.topology = parse_topology("ring:" + std::to_string(p)), .model = model});
    CostUnits u(model);
    auto r = ring_shift(m, 100);
    Picos expected = (p == 2 ? 1 : 2) * (p - 1) * u.message(100);
    EXPECT_EQ(r.time_ps(), expected) << "p " << p;
    model.port = Port::duplex;
    Machine d({.topology = parse_topology("ring:" + std::to_string(p)), .model = model});
    EXPECT_EQ(r.time_ps() - ring_shift(d, 100).time_ps(),
              (p == 2 ? 0 : 1) * (p - 1) * u.message(100));
  }
  // p = 3 by hand: three transfers per step, one at a time.
  Model model{.alpha = kAlpha, .beta = kBeta, .port = Port::exchange};
  Machine m({.topology = parse_topology("ring:3"), .model = model});
  EXPECT_EQ(ring_shift(m, 10).time_ps(), 6 * CostUnits(model).message(10));
}

TEST(Model, HalfPortsMakeAnExchangeTwoMessages) {
  for (Port port : {Port::exchange, Port::duplex, Port::all, Port::half}) {
    Model model{.alpha = kAlpha, .beta = kBeta, .port = port, .routing = Routing::direct};
    Machine m({.nodes = 2, .model = model});
    auto r = m.run([&](Node& node) {
      const Comm& c = node.world();
      std::vector<int> out(30, 1), in(30);
      c.sendrecv(std::span<const int>(out), 1 - c.rank(), std::span<int>(in), 1 - c.rank(), 0);
    });
    CostUnits u(model);
    EXPECT_EQ(r.time_ps(), (port == Port::half ? 2 : 1) * u.message(30)) << to_string(port);
  }
}

TEST(Model, SendRecvWithUnequalLengthsTakesTheLonger) {
  Model model{.alpha = kAlpha, .beta = kBeta, .port = Port::exchange, .routing = Routing::direct};
  Machine m({.nodes = 2, .model = model});
  auto r = m.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> out(c.rank() == 0 ? 10 : 500, 1), in(500);
    c.sendrecv(std::span<const int>(out), 1 - c.rank(), std::span<int>(in), 1 - c.rank(), 0);
  });
  EXPECT_EQ(r.time_ps(), CostUnits(model).message(500));
}

// 004 Fig. 1(b): on a 2-D mesh two messages between separate partitions whose x-first routes
// share a link. mesh:4x3, node = x + 4y. A: (0,0) -> (2,1) goes (0,0)(1,0)(2,0)(2,1);
// B: (1,0) -> (3,0) goes (1,0)(2,0)(3,0). Both cross the link (1,0) -> (2,0).
RunResult figure_1b(Routing routing, Contention contention, std::size_t n) {
  Model model{.alpha = kAlpha, .beta = kBeta, .port = Port::duplex, .routing = routing,
              .contention = contention};
  Machine m({.topology = parse_topology("mesh:4x3"), .model = model});
  return m.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> data(n, 1);
    if (c.rank() == 0) c.send(std::span<const int>(data), 2 + 4 * 1, 0);
    if (c.rank() == 1) c.send(std::span<const int>(data), 3, 0);
    if (c.rank() == 6) c.recv(std::span<int>(data), 0, 0);
    if (c.rank() == 3) c.recv(std::span<int>(data), 1, 0);
  });
}

TEST(Model, Figure1bContention) {
  const std::size_t n = 1000;
  CostUnits u(Model{.alpha = kAlpha, .beta = kBeta});
  const Picos one = u.message(n);
  {
    auto r = figure_1b(Routing::wormhole, Contention::exclusive, n);
    EXPECT_EQ(r.node_time(6), to_seconds(one));        // A goes first (lower sender rank)
    EXPECT_EQ(r.stats().node_time[3], 2 * one);        // B waits for the shared link
    EXPECT_EQ(r.stats().token_wait, one);
    EXPECT_EQ(r.stats().max_link_waiters, 1);
    ASSERT_EQ(r.trace().messages.size(), 2u);
    EXPECT_EQ(r.trace().messages[1].waited, one);
  }
  {
    auto r = figure_1b(Routing::wormhole, Contention::shared, n);
    Picos both = u.alpha + 2 * static_cast<Picos>(n) * u.beta;
    EXPECT_EQ(r.stats().node_time[6], both);
    EXPECT_EQ(r.stats().node_time[3], both);
    EXPECT_EQ(r.stats().token_wait, 0);
  }
  {
    auto r = figure_1b(Routing::direct, Contention::exclusive, n);
    EXPECT_EQ(r.stats().node_time[6], one);
    EXPECT_EQ(r.stats().node_time[3], one);
  }
}

TEST(Model, SharedLinksSpeedUpWhenAMessageLeaves) {
  // Two messages share a link; the short one leaves early and the long one speeds up.
  Model model{.alpha = 0, .beta = 1e-6, .port = Port::all, .routing = Routing::wormhole,
              .contention = Contention::shared};
  Machine m({.topology = parse_topology("array:3"), .model = model});
  auto r = m.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> a(100), b(300);
    if (c.rank() == 0) c.send(std::span<const int>(a), 2, 0);  // links 0->1, 1->2
    if (c.rank() == 1) c.send(std::span<const int>(b), 2, 0);  // link 1->2
    if (c.rank() == 2) {
      c.recv(std::span<int>(a), 0, 0);
      c.recv(std::span<int>(b), 1, 0);
    }
  });
  // Both at half speed until the first has moved 100 items (200 us), then the second alone
  // moves its remaining 200 items in 200 us.
  EXPECT_EQ(r.stats().node_time[0], units(200e-6));
  EXPECT_EQ(r.stats().node_time[1], units(400e-6));
}

TEST(Model, StoreAndForwardPaysEveryHop) {
  Model model{.alpha = kAlpha, .beta = kBeta, .port = Port::duplex,
              .routing = Routing::store_and_forward};
  Machine m({.topology = parse_topology("array:6"), .model = model});
  auto r = m.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> data(64, 1);
    if (c.rank() == 0) c.send(std::span<const int>(data), 5, 0);
    if (c.rank() == 5) c.recv(std::span<int>(data), 0, 0);
  });
  EXPECT_EQ(r.time_ps(), 5 * CostUnits(model).message(64));
  model.routing = Routing::wormhole;
  Machine w({.topology = parse_topology("array:6"), .model = model});
  auto rw = w.run([&](Node& node) {
    const Comm& c = node.world();
    std::vector<int> data(64, 1);
    if (c.rank() == 0) c.send(std::span<const int>(data), 5, 0);
    if (c.rank() == 5) c.recv(std::span<int>(data), 0, 0);
  });
  EXPECT_EQ(rw.time_ps(), CostUnits(model).message(64));
  EXPECT_EQ(rw.trace().messages.at(0).links.size(), 5u);
}

TEST(Model, GammaChargedByACombineAppearsInTheNodeTime) {
  Machine m({.nodes = 3, .model = hypercube_model()});
  auto r = m.run([&](Node& node) {
    if (node.rank() == 1) node.charge_combine(1000);
    if (node.rank() == 2) node.charge_compute(1e-3);
  });
  EXPECT_EQ(r.stats().node_time[0], 0);
  EXPECT_EQ(r.stats().node_time[1], 1000 * units(kGamma));
  EXPECT_EQ(r.stats().node_time[2], units(1e-3));
  EXPECT_EQ(r.stats().combined_items, 1000u);
  ASSERT_EQ(r.trace().combines.size(), 2u);
}

TEST(Model, ShortMessageStartup) {
  Model model = hypercube_model();
  model.short_alpha = 75e-6;
  model.short_max_items = 25;
  Machine m({.nodes = 2, .model = model});
  for (std::size_t n : {25, 26}) {
    auto r = m.run([&](Node& node) {
      std::vector<float> x(n);
      if (node.rank() == 0) node.world().send(std::span<const float>(x), 1, 0);
      else node.world().recv(std::span<float>(x), 0, 0);
    });
    EXPECT_EQ(r.time_ps(), (n <= 25 ? units(75e-6) : units(kAlpha)) + Picos(n) * units(kBeta));
  }
}

// Comm::weighted: records of 4 floats sent, combined and rearranged on a comm weighted by 4
// cost what 4 times as many floats cost on the plain comm (the short-message limit counted
// in floats too), a comm split from it keeps the weight, and its model and units are the
// machine's per record.
TEST(Model, AWeightedCommChargesEachItemAsWeightItems) {
  Model model = hypercube_model();
  model.short_alpha = 75e-6;
  model.short_max_items = 25;
  model.delta = 0.1e-6;
  Machine m({.nodes = 2, .model = model});
  struct Record {
    float x[4];
  };
  for (std::size_t records : {6, 7}) {  // 24 floats start up short, 28 do not
    auto plain = m.run([&](Node& node) {
      std::vector<float> x(4 * records);
      const Comm& c = node.world();
      if (c.rank() == 0) c.send(std::span<const float>(x), 1, 0);
      else c.recv(std::span<float>(x), 0, 0);
      c.charge_combine(x.size());
      c.charge_rearrange(x.size());
    });
    auto weighted = m.run([&](Node& node) {
      std::vector<Record> x(records);
      const Comm c = node.world().weighted(4).split(0, node.rank());
      EXPECT_EQ(c.weight(), 4u);
      EXPECT_EQ(c.units().beta, 4 * node.world().units().beta);
      EXPECT_EQ(c.units().short_max_items, 6u);
      EXPECT_EQ(c.model().gamma, 4 * node.world().model().gamma);
      if (c.rank() == 0) c.send(std::span<const Record>(x), 1, 0);
      else c.recv(std::span<Record>(x), 0, 0);
      c.charge_combine(x.size());
      c.charge_rearrange(x.size());
    });
    EXPECT_EQ(weighted.time_ps(), plain.time_ps()) << records << " records";
    EXPECT_EQ(weighted.stats().combined_items, plain.stats().combined_items);
    EXPECT_EQ(weighted.stats().items, plain.stats().items);
  }
  m.run([&](Node& node) {
    EXPECT_EQ(node.world().weight(), 1u);
    EXPECT_THROW(node.world().weighted(0), UsageError);
  });
}

// A program with plenty of contention: all-to-all on a mesh, uneven lengths.
RunResult contended(Machine& m) {
  const int p = m.size();
  return m.run([&](Node& node) {
    const Comm& c = node.world();
    for (int k = 1; k < p; ++k) {
      int to = (c.rank() + k) % p, from = (c.rank() - k + p) % p;
      std::vector<int> out(10 + (c.rank() * 7 + k) % 13), in(64);
      c.sendrecv(std::span<const int>(out), to, std::span<int>(in), from, 0);
      node.charge_combine(c.rank() % 5);
    }
  });
}

TEST(Model, DeterministicTraceUnderContention) {
  for (Contention contention : {Contention::exclusive, Contention::shared}) {
    Model model = hypercube_model();
    model.contention = contention;
    Machine m({.topology = parse_topology("mesh:4x4"), .model = model});
    RunResult first = contended(m);
    const std::string json = first.trace().chrome_json();
    EXPECT_GT(first.stats().token_wait, contention == Contention::exclusive ? 0 : -1);
    std::set<std::uint64_t> hashes;
    for (int i = 0; i < 200; ++i) {
      RunResult r = contended(m);
      hashes.insert(r.trace().hash());
      EXPECT_EQ(r.stats().node_time, first.stats().node_time);
    }
    EXPECT_EQ(hashes.size(), 1u);
    EXPECT_EQ(*hashes.begin(), first.trace().hash());
    EXPECT_EQ(contended(m).trace().chrome_json(), json);  // the same bytes
  }
}

TEST(Model, ChromeTraceHasTracksAndFlows) {
  Machine m({.topology = parse_topology("hypercube:8"), .model = hypercube_model()});
  auto r = m.run([&](Node& node) {
    std::vector<int> data(10, 1);
    broadcast(node.world(), data, 0);
    node.charge_combine(10);
  });
  std::string json = r.trace().chrome_json();
  EXPECT_NE(json.find("\"thread_name\""), std::string::npos);
  EXPECT_NE(json.find("\"name\":\"node 7\""), std::string::npos);
  EXPECT_NE(json.find("\"ph\":\"s\""), std::string::npos);
  EXPECT_NE(json.find("\"ph\":\"f\""), std::string::npos);
  EXPECT_NE(json.find("\"send to 4\""), std::string::npos);
  EXPECT_NE(json.find("\"combine\""), std::string::npos);
  EXPECT_EQ(json.substr(json.size() - 4), "\n]}\n");
}

// Given the topology, the export names links by their ends, shows a message's wait for
// links as a slice of its own, and leaves a collective's internal tags out.
TEST(Model, ChromeTraceNamesLinksShowsWaitsAndHidesInternalTags) {
  Machine m({.topology = parse_topology("mesh:3x3"), .model = hypercube_model()});
  auto r = contended(m);
  const std::string json = r.trace().chrome_json(&m.topology());
  Picos waited = 0;
  for (const MessageEvent& e : r.trace().messages) waited += e.waited;
  ASSERT_GT(waited, 0);  // the run has waits to show
  EXPECT_NE(json.find("\"wait to send to "), std::string::npos);
  const MessageEvent& first = r.trace().messages.front();
  ASSERT_FALSE(first.links.empty());
  const DirectedLink l = m.topology().link(first.links.front());
  EXPECT_NE(json.find("\"" + std::to_string(l.from) + "->" + std::to_string(l.to) + "\""),
            std::string::npos);
  // A message of a collective call (tags from 2^40 up) beside one of the program's.
  Trace t;
  t.nodes = 2;
  t.messages.push_back({.src = 0, .dst = 1, .tag = (Tag{1} << 40) + 3, .items = 1, .bytes = 4,
                        .start = 0, .end = 10});
  t.messages.push_back({.src = 1, .dst = 0, .tag = 77, .items = 1, .bytes = 4, .start = 10,
                        .end = 20});
  const std::string two = t.chrome_json();
  EXPECT_NE(two.find("\"collective\":true"), std::string::npos);
  EXPECT_NE(two.find("\"tag\":77,"), std::string::npos);
  EXPECT_EQ(two.find(std::to_string((Tag{1} << 40) + 3)), std::string::npos);
}

// The export is well-formed Trace Event JSON: complete slices with pid/tid/ts/dur, one
// track name per node, and every flow arrow's start and finish inside a slice on the
// sender's and the receiver's track.
TEST(Model, ChromeTraceIsWellFormedTraceEventJson) {
  Machine m({.topology = parse_topology("mesh:3x3"), .model = hypercube_model()});
  auto r = contended(m);
  nlohmann::json doc = nlohmann::json::parse(r.trace().chrome_json());
  ASSERT_TRUE(doc["traceEvents"].is_array());
  std::map<int, std::vector<std::pair<double, double>>> slices;  // tid -> [ts, ts + dur]
  std::map<long, std::pair<nlohmann::json, nlohmann::json>> flows;
  int names = 0;
  for (const auto& e : doc["traceEvents"]) {
    const std::string ph = e.at("ph");
    if (ph == "M") {
      names += e.at("name") == "thread_name";
    } else if (ph == "X") {
      ASSERT_TRUE(e.at("ts").is_number() && e.at("dur").is_number());
      ASSERT_GE(e.at("dur").get<double>(), 0.0);
      double ts = e.at("ts");
      slices[e.at("tid").get<int>()].push_back({ts, ts + e.at("dur").get<double>()});
    } else if (ph == "s") {
      flows[e.at("id").get<long>()].first = e;
    } else if (ph == "f") {
      ASSERT_EQ(e.at("bp"), "e");
      flows[e.at("id").get<long>()].second = e;
    } else {
      FAIL() << "unexpected phase " << ph;
    }
  }
  EXPECT_EQ(names, 9);
  EXPECT_EQ(flows.size(), r.trace().messages.size());
  auto inside = [&](const nlohmann::json& e) {
    for (auto [a, b] : slices[e.at("tid").get<int>()]) {
      double ts = e.at("ts");
      if (a <= ts && ts <= b) return true;
    }
    return false;
  };
  for (const auto& [id, f] : flows) {
    ASSERT_FALSE(f.first.is_null()) << id;
    ASSERT_FALSE(f.second.is_null()) << id;
    EXPECT_TRUE(inside(f.first)) << "flow " << id << " starts outside a slice";
    EXPECT_TRUE(inside(f.second)) << "flow " << id << " ends outside a slice";
  }
}

}  // namespace
}  // namespace vmc
