// What a run did: per-message and per-combine records, and the statistics drawn from them.
// The Chrome Trace Event export opens in the Perfetto UI and chrome://tracing: one track per
// node, a slice per send, receive wait and combine, a flow arrow from each send to its receive.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/errors.hpp"
#include "runtime/model.hpp"
#include "topology/topology.hpp"

namespace vmc {

using Tag = std::int64_t;

struct MessageEvent {
  int src = 0;                 // world rank
  int dst = 0;                 // world rank
  Tag tag = 0;
  std::uint32_t comm = 0;      // comm id (0 is the world)
  std::uint64_t items = 0;
  std::uint64_t bytes = 0;
  Picos request = 0;           // the sender reached the send
  Picos start = 0;             // every port and link it needs was held
  Picos end = 0;               // the receiver has the data
  Picos waited = 0;            // time spent waiting for ports and links
  std::vector<LinkId> links;   // directed links held (the route; empty where links are
                               // not modelled: direct routing, full:P)
  Picos contention_delay = 0;  // time lost to contention: from the moment it could start
                               // (sender there, and under rendezvous the receive posted) to
                               // its end, minus its contention-free duration, minus its
                               // waits for ports (see Stats::contention_delay)
};

// Local work a node was charged for.
enum class Work : std::uint8_t {
  compute,    // charge_compute: seconds of computation
  combine,    // charge_combine: items * gamma
  rearrange,  // charge_rearrange: items * delta (packing, unpacking; 004's delta)
};
const char* to_string(Work w);

struct CombineEvent {
  int node = 0;
  std::uint64_t items = 0;     // items combined or rearranged (0 for a plain compute charge)
  Picos start = 0;
  Picos end = 0;
  Work kind = Work::combine;
};

struct Stats {
  Picos time = 0;                    // max over nodes
  std::vector<Picos> node_time;      // each node's finishing time
  std::uint64_t messages = 0;
  std::uint64_t items = 0;
  std::uint64_t bytes = 0;
  std::uint64_t combined_items = 0;
  std::uint64_t rearranged_items = 0;  // charged by charge_rearrange (delta each)
  int critical_startups = 0;         // message startups on the path to the last node to finish
                                     // (virtual clock; -1 under the real clock: not measured)
  std::vector<Picos> link_busy;      // per directed link: time it carried a message
                                     // (empty under direct routing and on full:P, where
                                     // no two messages can want one link)
  std::vector<int> link_peak;        // per directed link: most messages that held it at once
                                     // (1 under exclusive contention, k when k shared it)
  int max_link_waiters = 0;          // most messages waiting at once for one link
  Picos token_wait = 0;              // total time messages waited for ports and links,
                                     // summed over all messages

  // Time lost to contention (docs/model.md, item 7), under either contention model.
  // Per message: the time from the moment it could start to its end, minus its
  // contention-free duration (alpha + n beta per hop), minus the time it waited for the
  // endpoints' ports. What is left is the time it waited for links held by other messages
  // (exclusive) plus the time its transfer was stretched by sharing them (shared). Port
  // waits are not counted: they come from the algorithm's schedule under the port model,
  // which the cost formulas include, and they happen without any link at all.
  Picos contention_delay = 0;        // summed over all messages
  Picos max_message_delay = 0;       // the largest of one message
  // How much of the run's time is due to contention: time minus the time of the same
  // operation logs replayed with links that hold no one up (virtual clock; exact and
  // deterministic). It can be below 0: see the scheduling anomaly in simulator.cpp.
  // Real clock: not measured, 0 (only contention_delay is, from the token waits).
  Picos contention_critical_delay = 0;
  Picos free_time = 0;               // that contention-free replay's time (virtual clock)
  // The nodes that failed on purpose (MachineConfig::failures), when, and the calls that
  // needed them (RunResult::failures).
  FailureReport failures;
  // Virtual clock: the most nonblocking requests of one node the simulation held at once. It
  // lets go of those its node has completed, so this counts requests in flight (and those
  // posted after the oldest still open), not every request of the run.
  std::uint64_t requests_held_peak = 0;
};

class Trace {
 public:
  std::vector<MessageEvent> messages;  // ordered by (start, src, dst, tag)
  std::vector<CombineEvent> combines;  // ordered by (start, node)
  int nodes = 0;

  // Chrome Trace Event JSON (microseconds).
  // With the run's topology, links are named by their ends ("3->7"); without, by id.
  std::string chrome_json(const Topology* topology = nullptr) const;
  void write_chrome_json(const std::string& path, const Topology* topology = nullptr) const;
  // A 64-bit FNV-1a hash of every field of every record: equal traces, equal hashes.
  std::uint64_t hash() const;
};

}  // namespace vmc
