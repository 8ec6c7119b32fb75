#include "tools/model_options.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <cstdlib>

#include "collectives/global_combine/strategy.hpp"
#include "collectives/registry.hpp"
#include "runtime/link_rates.hpp"

namespace vmc::cli {
namespace {

std::string in_quotes(const std::string& text) { return "\"" + text + "\""; }

// The network families a command may size itself (family_network).
constexpr const char* kFamilies[] = {"hypercube", "ring", "array", "full", "tree", "mesh", "torus"};

}  // namespace

CLI::Validator count_check(std::size_t max) {
  return CLI::Validator(
      [max](std::string& text) -> std::string {
        const std::string range = "expected a count from 0 to " + std::to_string(max);
        if (text.empty()) return "empty value; " + range;
        std::size_t value = 0;
        const char* end = text.data() + text.size();
        auto [ptr, ec] = std::from_chars(text.data(), end, value);
        if (text[0] == '-') return in_quotes(text) + " is negative; " + range;
        if (ec == std::errc::result_out_of_range) return in_quotes(text) + " is too large; " + range;
        if (ec != std::errc() || ptr != end) return in_quotes(text) + " is not a count; " + range;
        if (value > max) return in_quotes(text) + " is too large; " + range;
        return {};
      },
      "COUNT");
}

CLI::Validator int_check(long long lo, long long hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        const std::string range =
            "expected an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
        long long value = 0;
        const char* end = text.data() + text.size();
        auto [ptr, ec] = std::from_chars(text.data(), end, value);
        if (text.empty()) return "empty value; " + range;
        if (ec != std::errc() || ptr != end) return in_quotes(text) + " is not an integer; " + range;
        if (value < lo || value > hi) return in_quotes(text) + " is out of range; " + range;
        return {};
      },
      "INT");
}

CLI::Validator positive_check(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) -> std::string {
        char buf[96];
        std::snprintf(buf, sizeof buf, "expected a number from %g to %g", lo, hi);
        if (text.empty()) return std::string("empty value; ") + buf;
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (end != text.c_str() + text.size()) return in_quotes(text) + " is not a number; " + buf;
        if (!std::isfinite(value) || value < lo || value > hi) {
          return in_quotes(text) + " is out of range; " + buf;
        }
        return {};
      },
      "NUMBER");
}

CLI::Validator network_check() {
  return parses([](const std::string& s) { parse_topology(s); }, "NETWORK");
}

CLI::Validator non_empty_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string { return text.empty() ? "empty value" : ""; },
      "TEXT");
}

std::vector<std::string> comma_items(const std::string& text) {
  std::vector<std::string> items;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    items.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return items;
}

CLI::Validator type_check() { return CLI::IsMember({"int32", "int64", "float", "double"}); }

CLI::Validator reduction_check() {
  return CLI::IsMember(
      {"sum", "prod", "min", "max", "land", "lor", "lxor", "band", "bor", "bxor", "matmul"});
}

double parse_duration_with_unit(const std::string& flag, const std::string& text) {
  double seconds = 0;
  try {
    seconds = parse_duration(text);
  } catch (const std::exception& e) {
    throw UsageError(flag + ": " + e.what());
  }
  // parse_duration reads a bare number as seconds; on the command line "--alpha 5" is far
  // more likely a forgotten "us" than five seconds, so a unit is required (0 needs none).
  const bool has_unit = !text.empty() && std::isalpha(static_cast<unsigned char>(text.back()));
  if (!has_unit && seconds != 0) {
    throw UsageError(flag + ": \"" + text + "\" has no unit; write it with one, e.g. " + text +
                     "us, " + text + "ms or " + text + "s");
  }
  return seconds;
}

CLI::Validator duration_check() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          parse_duration_with_unit("", text);
        } catch (const std::exception& e) {
          return std::string(e.what()).substr(2);  // without the empty flag's ": "
        }
        return {};
      },
      "TIME");
}

std::string requirements_for_cli(const std::string& text) {
  std::string out = text;
  for (const auto& [field, flag] : {std::pair{"Options::strategy", "--strategy"},
                                    std::pair{"Options::hybrid", "--hybrid"}}) {
    const std::string f = field;
    for (std::size_t at = out.find(f); at != std::string::npos; at = out.find(f, at)) {
      out.replace(at, f.size(), flag);
    }
  }
  return out;
}

void ModelOptions::add_to(CLI::App* cmd, bool families) {
  if (families) {
    cmd->add_option("--topology", topology,
                    "interconnect, e.g. hypercube:64, mesh:8x8, ring:12, or a family without "
                    "its size (hypercube, ring, array, full, tree, mesh, torus): a shape per p")
        ->check(parses(
            [](const std::string& s) {
              if (!is_family(s)) {
                parse_topology(s);
              } else if (std::find(std::begin(kFamilies), std::end(kFamilies), s) ==
                         std::end(kFamilies)) {
                throw std::invalid_argument("\"" + s + "\" is not a network (e.g. mesh:4x4) " +
                                            "or a family (hypercube, ring, array, full, tree, " +
                                            "mesh or torus)");
              }
            },
            "NETWORK"));
  } else {
    cmd->add_option("--topology", topology, "interconnect, e.g. hypercube:64, mesh:8x8, ring:12")
        ->capture_default_str()
        ->check(network_check());
  }
  cmd->add_option("--alpha", alpha, "startup per message, with a unit, e.g. 525us")
      ->capture_default_str()
      ->check(duration_check());
  cmd->add_option("--beta", beta, "time per item transferred, e.g. 2us")
      ->capture_default_str()
      ->check(duration_check());
  cmd->add_option("--beta-net", beta_net,
                  "time per item per link (004 §2 beta_net): a link carrying c messages under "
                  "--contention shared gives each max(beta, c beta_net) per item; default: "
                  "--beta")
      ->check(duration_check());
  // 002 §3.3.4: links of unequal bandwidth.
  const auto rate_check = [](LinkRate::Kind kind, LinkRate::Direction direction) {
    return parses([=](const std::string& s) { parse_link_rates(kind, direction, s); }, "RATES");
  };
  cmd->add_option("--beta-dim", beta_dim,
                  "per-dimension beta_net on meshes, tori, rings and hypercubes, e.g. "
                  "0=1us,5=8us: the links of dimension 5 move 8 us per item (002 §3.3.4)")
      ->check(rate_check(LinkRate::Kind::dimension, LinkRate::Direction::both));
  cmd->add_option("--beta-level", beta_level,
                  "per-level beta_net on trees, both directions, e.g. 1=8us: the links at "
                  "the root (level 1) move 8 us per item (002 §3.3.4)")
      ->check(rate_check(LinkRate::Kind::tree, LinkRate::Direction::both));
  cmd->add_option("--beta-up", beta_up,
                  "beta_net of a tree's links towards the root: TIME for every level, or "
                  "LEVEL=TIME items, e.g. 1=8us")
      ->check(rate_check(LinkRate::Kind::tree, LinkRate::Direction::up));
  cmd->add_option("--beta-down", beta_down,
                  "beta_net of a tree's links away from the root: TIME for every level, or "
                  "LEVEL=TIME items")
      ->check(rate_check(LinkRate::Kind::tree, LinkRate::Direction::down));
  cmd->add_option("--gamma", gamma, "time per item combined, e.g. 0.35us")
      ->capture_default_str()
      ->check(duration_check());
  cmd->add_option("--delta", delta,
                  "time per item of local rearrangement, packing and unpacking (004's delta)")
      ->capture_default_str()
      ->check(duration_check());
  cmd->add_option("--port", port, "port model: exchange, duplex, half or all")
      ->capture_default_str()
      ->check(parses([](const std::string& s) { parse_port(s); }, "PORT"));
  cmd->add_option("--routing", routing, "direct, wormhole or store_and_forward")
      ->capture_default_str()
      ->check(parses([](const std::string& s) { parse_routing(s); }, "ROUTING"));
  cmd->add_option("--contention", contention, "exclusive or shared")
      ->capture_default_str()
      ->check(parses([](const std::string& s) { parse_contention(s); }, "CONTENTION"));
  cmd->add_option("--protocol", protocol,
                  "eager (a send may start before its receive is posted) or rendezvous "
                  "(only after: no overlap with the receiver's work, 000 §2)")
      ->capture_default_str()
      ->check(parses([](const std::string& s) { parse_protocol(s); }, "PROTOCOL"));
  cmd->add_option("--worm", worm,
                  "atomic (a wormhole message takes its whole route at once or waits holding "
                  "nothing) or blocking (it holds the links it has while it waits, 004 §13)")
      ->capture_default_str()
      ->check(parses([](const std::string& s) { parse_worm(s); }, "WORM"));
  cmd->add_option("--short-alpha", short_alpha,
                  "startup of short messages (000 §6), with --short-items")
      ->check(duration_check());
  cmd->add_option("--short-items", short_items,
                  "messages of at most this many items start up in --short-alpha")
      ->check(count_check());
  // Stragglers (docs/model.md, "Skew, slow nodes and noise").
  cmd->add_option("--skew", skew,
                  "per-node start delays: uniform:TIME (each node a seeded draw in [0, TIME]) "
                  "and node:K=TIME items, e.g. uniform:100us or node:3=2ms,5=1ms; repeatable")
      ->check(parses([](const std::string& s) { Skew k; parse_skew(s, k); }, "SKEW"));
  cmd->add_option("--skew-seed", skew_seed, "seed of --skew's uniform draws")
      ->capture_default_str();
  cmd->add_option("--slow", slow,
                  "slow nodes: node:K=F items, e.g. node:3=4x (node 3's combines and local "
                  "work take 4 times as long; F at least 1); repeatable")
      ->check(parses([](const std::string& s) { parse_slow(s); }, "SLOW"));
  cmd->add_option("--noise", noise,
                  "system noise: every:TIME,for:TIME[,at:TIME][,seed:N], e.g. every:1ms,for:50us "
                  "(a detour of 50 us every 1 ms on each node, at a seeded phase, or at TIME "
                  "on every node): it stretches local work and holds sends back")
      ->check(parses([](const std::string& s) { parse_noise(s); }, "NOISE"));
}

Model ModelOptions::model() const {
  Model m;
  m.alpha = parse_duration_with_unit("--alpha", alpha);
  m.beta = parse_duration_with_unit("--beta", beta);
  if (!beta_net.empty()) m.beta_net = parse_duration_with_unit("--beta-net", beta_net);
  const std::pair<const std::string*, LinkRate> lists[] = {
      {&beta_dim, {.kind = LinkRate::Kind::dimension}},
      {&beta_level, {.kind = LinkRate::Kind::tree, .direction = LinkRate::Direction::both}},
      {&beta_up, {.kind = LinkRate::Kind::tree, .direction = LinkRate::Direction::up}},
      {&beta_down, {.kind = LinkRate::Kind::tree, .direction = LinkRate::Direction::down}}};
  for (const auto& [text, like] : lists) {
    if (text->empty()) continue;
    const std::string flag = link_rate_flag(like);
    std::vector<LinkRate> rates;
    try {
      rates = parse_link_rates(like.kind, like.direction, *text);
    } catch (const std::exception& e) {
      throw UsageError(flag + ": " + e.what());
    }
    // A bare number is seconds to parse_duration; on the command line it needs a unit.
    std::size_t at = 0;
    for (const LinkRate& r : rates) {
      const std::size_t comma = std::min(text->find(',', at), text->size());
      const std::string item = text->substr(at, comma - at);
      at = comma + 1;
      parse_duration_with_unit(flag, item.substr(item.find('=') + 1));
      m.link_rates.push_back(r);
    }
  }
  m.gamma = parse_duration_with_unit("--gamma", gamma);
  m.delta = parse_duration_with_unit("--delta", delta);
  m.worm = parse_worm(worm);
  m.port = parse_port(port);
  m.routing = parse_routing(routing);
  m.contention = parse_contention(contention);
  m.protocol = parse_protocol(protocol);
  m.short_alpha = parse_duration_with_unit("--short-alpha", short_alpha);
  m.short_max_items = short_items;
  // Each straggler flag parsed on its own, so that an error names the flag that holds it.
  auto as_flag = [](const std::string& flag, auto parse) {
    try {
      parse();
    } catch (const UsageError&) {
      throw;
    } catch (const std::invalid_argument& e) {
      throw UsageError(flag + ": " + e.what());
    }
  };
  // A bare number is seconds to parse_duration; on the command line it needs a unit.
  auto times_with_units = [](const std::string& flag, const std::string& text) {
    for (const std::string& item : comma_items(text)) {
      if (item.starts_with("seed:")) continue;
      parse_duration_with_unit(flag, item.substr(item.find_last_of(":=") + 1));
    }
  };
  as_flag("--skew", [&] {
    for (const std::string& text : skew) {
      times_with_units("--skew", text);
      parse_skew(text, m.skew);
    }
  });
  m.skew.seed = skew_seed;
  as_flag("--slow", [&] {
    for (const std::string& text : slow) {
      for (const NodeValue& v : parse_slow(text)) {
        for (const NodeValue& seen : m.slow) {
          if (seen.node == v.node) {
            throw UsageError("--slow: node " + std::to_string(v.node) + " is given twice");
          }
        }
        m.slow.push_back(v);
      }
    }
  });
  if (!noise.empty()) {
    as_flag("--noise", [&] {
      times_with_units("--noise", noise);
      m.noise = parse_noise(noise);
    });
  }
  return m;
}

void CallOptions::add_to(CLI::App* cmd, bool with_algorithm, bool count_flag) {
  cmd->add_option("--op", op, "operation (vmc list)")
      ->capture_default_str()
      ->check(parses([](const std::string& s) { parse_operation(s); }, "OPERATION"));
  if (with_algorithm) {
    cmd->add_option("--algorithm", algorithm, "registry name (vmc list) or auto")
        ->capture_default_str()
        ->check(non_empty_check());
  }
  if (count_flag) {
    cmd->add_option("--n", n,
                    "MPI count: vector length (broadcast, reduce, allreduce, scan, exscan), "
                    "items per node (gather, allgather), items per destination block "
                    "(scatter, reduce_scatter, alltoall)")
        ->capture_default_str()
        ->check(count_check());
  }
  cmd->add_option("--root", root, "root node of rooted operations")
      ->capture_default_str()
      ->check(int_check(0, 1 << 30));
  type_flag = cmd->add_option("--type", type,
                              "item type (where not given: int64 for --reduction matmul, int32 "
                              "for band, bor and bxor)")
                  ->capture_default_str()
                  ->check(type_check());
  cmd->add_option("--reduction", reduction,
                  "sum, prod, min, max, land, lor, lxor, band, bor, bxor (integers) or matmul "
                  "(a non-commutative 3x3 integer matrix product)")
      ->capture_default_str()
      ->check(reduction_check());
  cmd->add_option("--segment-items", segment_items,
                  "pipelined algorithms: items per segment (0: the algorithm picks)")
      ->check(count_check());
  cmd->add_option("--strategy", strategy, "hybrid: S_0..S_{d-1}, e.g. 000111")
      ->check(parses([](const std::string& s) { global_combine::parse_strategy(s); }, "S"));
  cmd->add_option("--hybrid", hybrid,
                  "004's hybrids (mesh_pfr_dr, mesh_pfr_pfr_dc, their _alt rows, mesh_mst_sc, "
                  "mesh_mst_dg): the "
                  "family member to run (vmc explain lists them)")
      ->check(int_check(0, 1 << 20));
  cmd->add_option("--dopl-steps", dopl_steps,
                  "004's DOPL (mesh_dopl of broadcast, reduce, allreduce): overlap (each node "
                  "goes on to its next step when done with its part of the last) or "
                  "synchronized (a barrier between steps, 004 §6.2)")
      ->capture_default_str()
      ->check(parses([](const std::string& s) { parse_dopl_steps(s); }, "STEPS"));
}

DoplSteps parse_dopl_steps(const std::string& text) {
  if (text == "overlap") return DoplSteps::overlap;
  if (text == "synchronized") return DoplSteps::synchronized;
  throw std::invalid_argument("\"" + text + "\" is not a way to run the DOPL's steps (expected "
                              "overlap or synchronized)");
}

void add_clock_options(CLI::App* cmd, std::string& clock, double& time_scale) {
  cmd->add_option("--clock", clock, "virtual or real")
      ->capture_default_str()
      ->check(parses([](const std::string& s) { parse_clock(s); }, "CLOCK"));
  cmd->add_option("--time-scale", time_scale, "real clock: wall seconds per modelled second")
      ->capture_default_str()
      ->check(positive_check(1e-3, 1e3));
}

void add_fail_option(CLI::App* cmd, std::string& fail, std::string& fail_routes) {
  cmd->add_option("--fail", fail,
                  "nodes that fail on purpose: node:K@TIME items, e.g. node:3@2ms,node:5@0 "
                  "(node 3 stops at its first call at or after 2 ms of virtual time; calls that "
                  "need it fail, and the run ends with a report), links that go down: "
                  "link:A-B@TIME between neighbours A and B (a message sent at or after TIME "
                  "whose route crosses it takes another route its routing allows, or is lost "
                  "and its receive fails), and nodes drawn at "
                  "random: random:count=K,before=TIME,seed=S or random:rate=R,seed=S[,before=TIME] "
                  "(R failures per node per second)")
      ->check(parses([](const std::string& s) { parse_failures(s); }, "FAILURES"));
  cmd->add_option("--fail-routes", fail_routes,
                  "a message whose route crosses a link down when it is sent: around (takes "
                  "another route its topology's routing allows, lost only when there is none) "
                  "or fixed (lost)")
      ->capture_default_str()
      ->check(parses([](const std::string& s) { parse_fail_routes(s); }, "ROUTES"));
}

void set_failures(const std::string& fail, const std::string& fail_routes,
                  MachineConfig& config) {
  config.fail_routes = parse_fail_routes(fail_routes);
  if (fail.empty()) return;
  FailureSpec spec = parse_failures(fail);
  config.failures = std::move(spec.nodes);
  config.link_failures = std::move(spec.links);
  config.random_failures = spec.random;
}

void EngineOptions::add_to(CLI::App* cmd) {
  cmd->add_option("--engine", engine, "auto (fibers on the virtual clock), threads or fibers")
      ->capture_default_str()
      ->check(parses([](const std::string& s) { parse_engine(s); }, "ENGINE"));
  cmd->add_option("--data", data, "full, or none: timing only, no data moved or checked")
      ->capture_default_str()
      ->check(parses([](const std::string& s) { parse_data(s); }, "DATA"));
  cmd->add_option("--workers", workers, "fibers: worker threads (0: one per core)")
      ->capture_default_str()
      ->check(int_check(0, 4096));
  cmd->add_option("--watchdog", watchdog,
                  "seconds without progress after which a run is ended with a report of what "
                  "each node was doing; nodes that then do not return within this time (from 2 s "
                  "to 30 s) end the process")
      ->capture_default_str()
      ->check(positive_check(0.01, 1e6));
}

void EngineOptions::apply(MachineConfig& config) const {
  config.engine = parse_engine(engine);
  config.data = parse_data(data);
  config.workers = workers;
  config.watchdog_seconds = watchdog;
  if (config.engine == Engine::fibers && config.clock == Clock::real_time) {
    throw UsageError("--engine fibers runs the virtual clock only (--clock real needs threads)");
  }
}

std::string item_type_for(const std::string& type, bool type_given,
                          const std::string& reduction) {
  if (type_given) return type;
  if (reduction == "matmul") return "int64";
  if (reduction == "band" || reduction == "bor" || reduction == "bxor") return "int32";
  return type;
}

std::string CallOptions::item_type() const {
  return item_type_for(type, type_flag != nullptr && type_flag->count() > 0, reduction);
}

RunSpec CallOptions::spec(const Topology& topology, const Model& model, bool data) const {
  RunSpec s;
  s.data = data;
  s.op = parse_operation(op);
  s.algorithm = algorithm;
  s.n = n;
  s.root = root;
  s.type = item_type();
  s.reduction = reduction;
  s.segment_items = segment_items;
  if (!strategy.empty()) s.strategy = global_combine::parse_strategy(strategy);
  s.hybrid = hybrid;
  s.dopl_steps = parse_dopl_steps(dopl_steps);
  check_spec(s, topology, model);
  return s;
}

bool is_family(const std::string& spec) { return spec.find(':') == std::string::npos; }

std::shared_ptr<const Topology> family_network(const std::string& flag, const std::string& family,
                                               std::size_t p) {
  if (p < 1 || p > 65536) {
    throw UsageError(flag + ": " + std::to_string(p) + " nodes (1 to 65536)");
  }
  std::string size = std::to_string(p);
  if (family == "mesh" || family == "torus") {
    int a = 1;
    const int q = static_cast<int>(p);
    for (int d = 1; d * d <= q; ++d) {
      if (q % d == 0) a = d;
    }
    size = std::to_string(a) + "x" + std::to_string(q / a);
  }
  try {
    return parse_topology(family + ":" + size);
  } catch (const std::exception& e) {
    throw UsageError("--topology " + family + " with " + flag + ": " + e.what());
  }
}

std::string link_rate_flag(const LinkRate& r) {
  if (r.kind == LinkRate::Kind::dimension) return "--beta-dim";
  switch (r.direction) {
    case LinkRate::Direction::both: return "--beta-level";
    case LinkRate::Direction::up: return "--beta-up";
    case LinkRate::Direction::down: return "--beta-down";
  }
  return "--beta-level";
}

void check_link_rates(const Topology& topology, const Model& model) {
  // The stragglers' nodes, checked with the machine's other per-part settings.
  try {
    check_stragglers(model, topology.nodes());
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--") + e.what());
  }
  for (const LinkRate& r : model.link_rates) {
    const std::string problem = link_rate_problem(model, r, topology);
    if (!problem.empty()) {
      throw UsageError(link_rate_flag(r) + ": " + to_string(r) + ": " + problem);
    }
  }
}

void check_type_and_reduction(const std::string& type, const std::string& reduction) {
  if (reduction == "matmul" && type != "int32" && type != "int64") {
    throw UsageError("--reduction matmul runs on its own 3x3 integer matrix type; leave --type "
                     "at int32 or int64");
  }
  if ((type == "float" || type == "double") &&
      (reduction == "band" || reduction == "bor" || reduction == "bxor")) {
    throw UsageError("--reduction " + reduction + " is defined for integers only; use --type "
                     "int32 or int64");
  }
}

void check_dopl_steps(Operation op, DoplSteps steps) {
  if (steps == DoplSteps::synchronized && find_algorithm(op, "mesh_dopl") == nullptr) {
    throw UsageError("--dopl-steps synchronized runs the steps of 004's DOPL, which vmc "
                     "registers for broadcast, reduce and allreduce only, not " +
                     to_string(op));
  }
}

void check_spec(const RunSpec& s, const Topology& topology, const Model& model) {
  check_link_rates(topology, model);
  const int p = topology.nodes();
  const std::string op = to_string(s.op);
  if (s.root < 0 || s.root >= p) {
    throw UsageError("--root " + std::to_string(s.root) + " is not a node of " + topology.spec() +
                     " (nodes 0.." + std::to_string(p - 1) + ")");
  }
  check_type_and_reduction(s.type, s.reduction);
  if (s.algorithm != "auto") {
    const Algorithm* a = find_algorithm(s.op, s.algorithm);
    if (a == nullptr) {
      std::string names;
      for (const Algorithm& row : algorithms(s.op)) names += (names.empty() ? "" : ", ") + row.name;
      throw UsageError("--algorithm \"" + s.algorithm + "\" is not an algorithm of " + op +
                       " (expected auto, " + names + ")");
    }
    // --hybrid names a member of a family: only the rows that run one take it.
    if (s.hybrid >= 0 && !is_member_row(s.op, s.algorithm)) {
      std::string rows;
      for (const Algorithm& row : algorithms(s.op)) {
        if (is_member_row(s.op, row.name)) rows += (rows.empty() ? "" : ", ") + row.name;
      }
      throw UsageError("--hybrid " + std::to_string(s.hybrid) + " names a member of one of " +
                       "004's hybrid families, but --algorithm " + s.algorithm +
                       " runs no member (" +
                       (rows.empty() ? op + " has no such row"
                                     : "the " + op + " rows that take --hybrid: " + rows) +
                       ")");
    }
    // --dopl-steps synchronized changes the DOPL rows only: refused for another row.
    if (s.dopl_steps == DoplSteps::synchronized && s.algorithm != "mesh_dopl") {
      throw UsageError("--dopl-steps synchronized runs the steps of 004's DOPL (the mesh_dopl "
                       "rows of broadcast, reduce and allreduce), but --algorithm " +
                       s.algorithm + " is not one (leave --dopl-steps at overlap, or use "
                       "--algorithm mesh_dopl or auto)");
    }
    // A hybrid family's member row: say which members exist (004 §15.1).
    for (const Algorithm& row : algorithms(s.op)) {
      if (row.member_row != s.algorithm || row.members == nullptr) continue;
      const CostQuery q = run_query(topology, model, s);
      const int members = static_cast<int>(row.members(q).size());
      if (s.hybrid < 0 || s.hybrid >= members) {
        throw UsageError(
            (s.hybrid < 0 ? "--algorithm " + s.algorithm + " needs --hybrid N"
                          : "--hybrid " + std::to_string(s.hybrid) + " is not a member of " +
                                s.algorithm + "'s family") +
            " on " + topology.spec() + ": its members are 0.." + std::to_string(members - 1) +
            " (vmc explain --op " + op + " --topology " + topology.spec() +
            " lists them; " + row.name + " picks the best)");
      }
    }
    if (!a->applicable(run_query(topology, model, s))) {
      std::string digits;  // how many --strategy digits p takes, where a row counts them and
                           // the count given is not it
      if (a->requirements.find("log2(largest power of two <= p) digits") != std::string::npos) {
        int d = 0;
        while ((2 << d) <= p) ++d;
        if (s.strategy.size() != static_cast<std::size_t>(d)) {
          digits = ": " + std::to_string(d) + " at p = " + std::to_string(p) + ", " +
                   std::to_string(s.strategy.size()) + " given";
        }
      }
      throw UsageError("--algorithm " + s.algorithm + " does not apply to " + op + " on " +
                       topology.spec() + ": it requires " +
                       requirements_for_cli(a->requirements) + digits);
    }
  }
  check_dopl_steps(s.op, s.dopl_steps);
  if (s.data && data_bytes(s, p) > kMaxDataBytes) {
    throw UsageError("--n " + std::to_string(s.n) + " is too large for " + op + " on " +
                     std::to_string(p) + " nodes: the generated data would exceed " +
                     std::to_string(kMaxDataBytes >> 30) +
                     " GiB (--data none times the run without data)");
  }
}

}  // namespace vmc::cli
