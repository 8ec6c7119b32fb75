// The machine model: what a message, a combine and a port cost, and how links are shared.
// The exact semantics are those of DESIGN.md "The machine model"; the decisions vmc made
// where the sources leave room are written next to each parameter.
//
// Sources: 000 §2 (single-port hypercube, alpha/beta/gamma), 001 "Latency/bandwidth
// communication model" and "Contention", 004 §2 (wormhole, dimension-order routing).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace vmc {

// Times inside vmc are integer picoseconds, so that sums of alpha, beta and gamma terms
// are exact and virtual time is bit-identical from run to run.
using Picos = std::int64_t;
constexpr Picos kPicosPerSecond = 1'000'000'000'000;
Picos to_picos(double seconds);  // rounds to the nearest picosecond
double to_seconds(Picos t);

// Picosecond arithmetic that refuses to wrap: a sum or product past 2^63 ps (about 106 days)
// throws std::overflow_error naming `what` instead of giving a negative or zero time.
Picos checked_add(Picos a, Picos b, const char* what = "time");
Picos checked_mul(Picos a, std::uint64_t n, const char* what = "time");

// Which transfers a node may take part in at once (DESIGN.md, model item 5).
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

// Which clock a run is measured by.
enum class Clock {
  virtual_time,  // deterministic simulated time, no real waiting
  real_time,     // delays injected as real waits, scaled; the wall clock is measured
};

struct Model {
  double alpha = 0.0;  // seconds per message (startup)
  double beta = 0.0;   // seconds per item transferred
  double gamma = 0.0;  // seconds per item combined
  Port port = Port::exchange;
  Routing routing = Routing::wormhole;
  Contention contention = Contention::exclusive;
  Protocol protocol = Protocol::eager;
  // 000 §6: on the iPSC/860 a message of at most `short_max_items` items starts up in
  // `short_alpha` instead of alpha. Off when short_max_items is 0.
  double short_alpha = 0.0;
  std::size_t short_max_items = 0;
};

// The model in integer picoseconds, as the simulator and the cost formulas use it.
struct CostUnits {
  Picos alpha = 0;
  Picos beta = 0;
  Picos gamma = 0;
  Picos short_alpha = 0;
  std::size_t short_max_items = 0;

  explicit CostUnits(const Model& m);
  CostUnits() = default;
  Picos startup(std::size_t items) const {
    return (short_max_items > 0 && items <= short_max_items) ? short_alpha : alpha;
  }
  // One message of n items over one hop, uncontended: alpha + n beta. Throws
  // std::overflow_error when it does not fit in picoseconds (as do all three below).
  Picos message(std::size_t items) const {
    return checked_add(startup(items), transfer(items), "message time alpha + n beta");
  }
  Picos transfer(std::size_t items) const {
    return checked_mul(beta, items, "transfer time n beta");
  }
  Picos combine(std::size_t items) const {
    return checked_mul(gamma, items, "combine time n gamma");
  }
};

std::string to_string(Port p);
std::string to_string(Routing r);
std::string to_string(Contention c);
std::string to_string(Protocol p);
std::string to_string(Clock c);
// Parsers throw std::invalid_argument naming the accepted values.
Port parse_port(std::string_view s);
Routing parse_routing(std::string_view s);
Contention parse_contention(std::string_view s);
Protocol parse_protocol(std::string_view s);
Clock parse_clock(std::string_view s);
// "525us", "2ms", "0.35us", "1.5s", "800ns", "3ps" or a plain number of seconds.
double parse_duration(std::string_view s);
// A short human form: "525 us", "1.2 ms".
std::string format_duration(double seconds);

}  // namespace vmc
