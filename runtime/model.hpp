// The machine model: what a message, a combine and a port cost, and how links are shared.
// The exact semantics are those of docs/model.md (the machine model); the decisions vmc made
// where the sources leave room are written next to each parameter.
//
// Sources: 000 §2 (single-port hypercube, alpha/beta/gamma), 001 "Latency/bandwidth
// communication model" and "Contention", 004 §2 (wormhole, dimension-order routing).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace vmc {

// Times inside vmc are integer picoseconds, so that sums of alpha, beta and gamma terms
// are exact and virtual time is bit-identical from run to run.
using Picos = std::int64_t;
// For products of picosecond counts that may pass 2^63 before a division brings them back.
__extension__ using Wide = __int128;
constexpr Picos kPicosPerSecond = 1'000'000'000'000;
Picos to_picos(double seconds);  // rounds to the nearest picosecond
double to_seconds(Picos t);

// Picosecond arithmetic that refuses to wrap: a sum or product past 2^63 ps (about 106 days)
// throws std::overflow_error naming `what` instead of giving a negative or zero time.
// Inline: the discrete-event pass and the charges call them several times per message; the
// text is made only when one throws.
[[noreturn]] void throw_add_overflow(Picos a, Picos b, const char* what);
[[noreturn]] void throw_mul_overflow(Picos a, std::uint64_t n, const char* what);
inline Picos checked_add(Picos a, Picos b, const char* what = "time") {
  Picos r = 0;
  if (__builtin_add_overflow(a, b, &r)) [[unlikely]] throw_add_overflow(a, b, what);
  return r;
}
inline Picos checked_mul(Picos a, std::uint64_t n, const char* what = "time") {
  Picos r = 0;
  if (n > static_cast<std::uint64_t>(INT64_MAX) ||
      __builtin_mul_overflow(a, static_cast<Picos>(n), &r)) [[unlikely]] {
    throw_mul_overflow(a, n, what);
  }
  return r;
}

// Which transfers a node may take part in at once (docs/model.md, item 5).
enum class Port {
  exchange,  // 000 §2 item 3: one neighbour at a time, sending to and receiving from it at once
  duplex,    // 004 assumption 5, 001: one send and one receive at a time, any partners
  half,      // one transfer at a time; an exchange costs two messages
  all,       // any number at once; only links limit (one message per link direction)
};

// How a message crosses the network (model item 6).
enum class Routing {
  direct,             // every pair adjacent, no shared links: the ideal alpha-beta model
  wormhole,           // distance-independent; holds its whole route for its whole duration
  store_and_forward,  // each hop is a message of its own, alpha + n beta per hop
};

// What happens when two messages want one link direction (model item 7).
enum class Contention {
  exclusive,  // the link is a token: the second message waits
  shared,     // k messages on one link direction each get 1/k of its bandwidth (001)
};

// When a transfer may start relative to its receiver (model item 2).
enum class Protocol {
  eager,       // as soon as the sender and the network are ready; it may overlap the
               // receiver's computation (001: "the send is assumed to be non-blocking";
               // vmc's default)
  rendezvous,  // only once the receiver has posted the matching receive: no overlap of
               // communication and computation (000 §2 assumption 4)
};

// What a wormhole message that finds a link of its route held does (model item 6; only
// under wormhole routing and exclusive contention: shared links never block).
enum class Worm {
  atomic,    // it takes its whole route at once or waits holding nothing (vmc's default:
             // acquiring a route can never deadlock)
  blocking,  // it takes the links of its route in order as they come free and holds the
             // ones it has while it waits for the next (004 §13: "a blocked worm holds the
             // channels it already has"). Dimension-order routes on meshes and hypercubes
             // cannot deadlock this way; wraparound links (tori, rings) can, as on real
             // wormhole networks without virtual channels: vmc reports such a deadlock.
};

// Which clock a run is measured by.
enum class Clock {
  virtual_time,  // deterministic simulated time, no real waiting
  real_time,     // delays injected as real waits, scaled; the wall clock is measured
};

// A per-item link time for one class of links (002 §3.3.4: links of unequal bandwidth; the
// classes are topology.hpp's LinkClass). It stands in for beta_net on the links it names.
struct LinkRate {
  enum class Kind {
    dimension,  // mesh, torus, array, ring, hypercube: the links of dimension `index`
    tree,       // tree: the links of level `index` (1: at the root; -1: every level),
                // in direction `direction`
  };
  enum class Direction { both, up, down };
  Kind kind = Kind::dimension;
  int index = 0;
  Direction direction = Direction::both;
  double beta_net = 0.0;  // seconds per item per link of this class
  bool operator==(const LinkRate&) const = default;
};

// Stragglers and system noise (docs/model.md, "Skew, slow nodes and noise"): what holds
// some nodes of a run back, not what anything costs. The cost formulas and automatic
// selection leave them out (they choose on the steady machine: steady()); the virtual and the
// real clock apply them. Every random draw is a function of (seed, node) only, so a seed
// gives the same run every time.
struct NodeValue {
  int node = 0;
  double value = 0.0;
  bool operator==(const NodeValue&) const = default;
};
struct Skew {
  double uniform = 0.0;          // seconds: each node starts at a seeded draw in [0, uniform]
  std::vector<NodeValue> nodes;  // these nodes start at these delays (seconds) instead
  std::uint64_t seed = 0;        // of the uniform draws
  bool operator==(const Skew&) const = default;
};
// LogGOPSim's noise model (Hoefler, Schneider and Lumsdaine, "Characterizing the influence of
// system noise on large-scale applications by simulation", SC10): each node is away on
// detours of `length` seconds, one every `every` seconds. A detour stretches the node's local
// work that it overlaps (combines, rearrangements, computation) and holds back a send the node
// reaches during it until its end; messages in flight and waits are not delayed.
struct Noise {
  double every = 0.0;   // seconds from one detour of a node to its next (0: no noise)
  double length = 0.0;  // seconds of each detour (less than every)
  // The first detour's time on every node (coscheduled noise); unset: each node's first
  // detour at a seeded uniform draw in [0, every) (uncoordinated noise).
  std::optional<double> at;
  std::uint64_t seed = 0;
  bool operator==(const Noise&) const = default;
};

struct Model {
  double alpha = 0.0;  // seconds per message (startup)
  double beta = 0.0;   // seconds per item transferred: a node's injection rate (004's
                       // beta_node); a message alone on its route moves at this rate
  double gamma = 0.0;  // seconds per item combined
  // 004 §2 assumption 2 (excess network bandwidth): seconds per item per link (beta_net).
  // A message whose most loaded link carries c messages moves at max(beta, c beta_net) per
  // item, under shared contention (c = 1 under exclusive). Unset: equal to beta, so k
  // messages on one link each get 1/k of it (001 "Contention").
  std::optional<double> beta_net;
  // 002 §3.3.4: per-class link times. A link a rate names moves max(beta, c r) per item for
  // the c messages on it, r the rate's beta_net instead of the model's (the slowest r when
  // several rates name it); a message moves at the rate of its slowest link. Each rate must
  // name at least one link of the machine's topology, and links must be in use (wormhole or
  // store_and_forward routing). Empty: every link at beta_net.
  std::vector<LinkRate> link_rates;
  // Seconds per item of local rearrangement (004's delta): packing or unpacking
  // non-contiguous pieces, charged by Comm::charge_rearrange.
  double delta = 0.0;
  Port port = Port::exchange;
  Routing routing = Routing::wormhole;
  Contention contention = Contention::exclusive;
  Protocol protocol = Protocol::eager;
  Worm worm = Worm::atomic;
  // 000 §6: on the iPSC/860 a message of at most `short_max_items` items starts up in
  // `short_alpha` instead of alpha. Off when short_max_items is 0.
  double short_alpha = 0.0;
  std::size_t short_max_items = 0;
  // Per-node start delays, slow nodes and noise (above): a run's stragglers.
  Skew skew;
  std::vector<NodeValue> slow;  // these nodes' local work takes `value` (>= 1) times as long
  Noise noise;
  bool operator==(const Model&) const = default;
};

// Whether m has stragglers (skew, slow nodes or noise), and m without them.
bool perturbed(const Model& m);
Model steady(Model m);
// Node `node`'s start delay, speed factor for local work (1: none) and the first of its
// noise detours, in picoseconds (deterministic per seed).
Picos start_delay(const Model& m, int node);
double slow_factor(const Model& m, int node);
// `work` ps of node `node`'s local work as m's slow nodes take it: slow_factor times as long,
// rounded to a picosecond (std::overflow_error past vmc's clock).
Picos slowed(const Model& m, int node, Picos work);
Picos noise_phase(const Noise& n, int node);
// Under m's noise: the time node `node` may act from time t (t, or the end of the detour t
// falls in), and the time local work of `work` ps it starts at t ends, stretched past every
// detour it meets. Without noise: t and t + work.
Picos noise_clear(const Model& m, int node, Picos t);
Picos noisy_end(const Model& m, int node, Picos t, Picos work);
// Throws std::invalid_argument when m's stragglers name a node outside a machine of p nodes,
// or hold a negative delay, a factor below 1, or a detour not shorter than its period.
void check_stragglers(const Model& m, int p);
// The command line's syntax (docs/cli.md), each throwing std::invalid_argument that says
// what is wrong with which item. Skew: comma-separated "uniform:TIME", "node:K=TIME" or "K=TIME"
// items, added to `into`. Slow: "node:K=F" or "K=F" items (F a factor, "4" or "4x"). Noise:
// "every:TIME,for:TIME[,at:TIME][,seed:N]".
void parse_skew(std::string_view text, Skew& into);
std::vector<NodeValue> parse_slow(std::string_view text);
Noise parse_noise(std::string_view text);
// "skew uniform 100 us (seed 0), node 3 2 ms; slow node 3 4x; noise 50 us every 1 ms": the
// stragglers in one line, empty when there are none.
std::string describe_stragglers(const Model& m);
// 64 bits from (seed, index, stream) alone: splitmix64's finaliser over the three, so that a
// seed gives the same draws on every platform (std::uniform_*_distribution is not specified
// bit for bit). The stragglers' delays and the random failures (failures.hpp) draw from it,
// each on streams of its own.
std::uint64_t seeded_bits(std::uint64_t seed, std::uint64_t index, std::uint64_t stream);

// The model in integer picoseconds, as the simulator and the cost formulas use it.
// The model per item of `weight` items (Comm::weighted): every per-item time (beta, beta_net
// and the link rates', gamma, delta) weight times, and the short-message limit in items of
// weight items.
Model weighted_model(Model m, std::size_t weight);

struct CostUnits {
  Picos alpha = 0;
  Picos beta = 0;      // per item out of a node (beta_node)
  Picos beta_net = 0;  // per item per link (equal to beta unless the model sets it)
  Picos gamma = 0;
  Picos delta = 0;
  Picos short_alpha = 0;
  std::size_t short_max_items = 0;

  explicit CostUnits(const Model& m);
  CostUnits() = default;
  Picos startup(std::size_t items) const {
    return (short_max_items > 0 && items <= short_max_items) ? short_alpha : alpha;
  }
  // Per item, for a message whose most loaded link carries `sharers` messages:
  // max(beta, sharers beta_net) (004 §2). sharers = 1: the uncontended rate.
  Picos item_time(std::uint64_t sharers = 1) const {
    return std::max(beta, checked_mul(beta_net, sharers, "per-item time c beta_net"));
  }
  // One message of n items over one hop, uncontended: alpha + n beta (n max(beta,
  // beta_net) when links are slower than nodes). Throws std::overflow_error when it does
  // not fit in picoseconds (as do all below).
  Picos message(std::size_t items) const {
    return checked_add(startup(items), transfer(items), "message time alpha + n beta");
  }
  Picos transfer(std::size_t items) const {
    return checked_mul(item_time(), items, "transfer time n beta");
  }
  Picos combine(std::size_t items) const {
    return checked_mul(gamma, items, "combine time n gamma");
  }
  Picos rearrange(std::size_t items) const {
    return checked_mul(delta, items, "rearrangement time n delta");
  }
};

std::string to_string(Port p);
std::string to_string(Routing r);
std::string to_string(Contention c);
std::string to_string(Protocol p);
std::string to_string(Worm w);
std::string to_string(Clock c);
// Parsers throw std::invalid_argument naming the accepted values.
Port parse_port(std::string_view s);
Routing parse_routing(std::string_view s);
Contention parse_contention(std::string_view s);
Protocol parse_protocol(std::string_view s);
Worm parse_worm(std::string_view s);
Clock parse_clock(std::string_view s);
// "525us", "2ms", "0.35us", "1.5s", "800ns", "3ps" or a plain number of seconds.
double parse_duration(std::string_view s);
// A short human form: "525 us", "1.2 ms".
std::string format_duration(double seconds);
// "dimension 5", "level 2", "up links", "level 1 down links": the class a rate names.
std::string to_string(const LinkRate& r);
// A list of "K=TIME" items, comma separated ("0=2us,5=8us"): dimension K (kind dimension) or
// tree level K (kind tree, in `direction`); for kind tree a bare "TIME" names every level.
// Throws std::invalid_argument saying what is wrong with which item.
std::vector<LinkRate> parse_link_rates(LinkRate::Kind kind, LinkRate::Direction direction,
                                       std::string_view text);
// The model in one line: "alpha 525 us, beta 2 us, gamma 350 ns, port exchange, routing
// wormhole, contention exclusive, protocol eager", with beta_net, delta and the worm
// behaviour when they are not the defaults, the per-class link rates ("beta_net
// dimension 5 8 us") and the stragglers, if any ("; skew node 3 2 ms").
std::string describe(const Model& m);

}  // namespace vmc
