// The port and link rule (docs/model.md, items 5 to 7): which ports and links a message
// holds while it moves, whether they are free, taking them and giving them back. The one
// rule that the simulator (virtual clock), the real clock's tokens and the collectives' cost
// replay (collectives' PortClocks) ask.
//
// Ports, by the port model:
//   exchange  each node has one port; a message holds its sender's and its receiver's. A port
//             held for a partner takes another message between the same two nodes (either
//             direction): sending to and receiving from one neighbour at once is allowed;
//   half      the same, without the sharing: one transfer at a time;
//   duplex    each node has an out-port and an in-port; a message holds its sender's out-port
//             and its receiver's in-port;
//   all       nothing at the nodes: only links limit.
// Links: a message holds every directed link of its route (the hop in progress under
// store_and_forward); under exclusive contention a held link is a token no other message may
// take, under shared contention it is counted and its bandwidth shared (the callers apply it).
#pragma once

#include <algorithm>
#include <span>
#include <utility>
#include <vector>

#include "runtime/model.hpp"
#include "topology/topology.hpp"

namespace vmc {

// What a message holds at its two nodes.
enum class PortHold {
  nothing,     // all
  directions,  // duplex: the sender's out-port, the receiver's in-port
  nodes,       // exchange, half: the one port of each node (a node talks to one partner at once)
};

constexpr PortHold port_hold(Port p) {
  switch (p) {
    case Port::all: return PortHold::nothing;
    case Port::duplex: return PortHold::directions;
    case Port::exchange:
    case Port::half: return PortHold::nodes;
  }
  return PortHold::nothing;
}

// Whether a port held for one partner takes another message with the same partner (exchange).
constexpr bool partner_shares_port(Port p) { return p == Port::exchange; }

// The rule counted in messages: one after another, how many message times a node needs to
// send `out` messages and receive `in` of equal length when nothing else holds its ports (its
// partners ready): all at once (nothing held), its sends beside its receives (directions), or
// one at a time (nodes), a send and a receive with the same partner together where the
// partner shares the port (`paired`: each send goes to a node it also receives from).
constexpr int port_rounds(Port p, int out, int in, bool paired) {
  if (out + in == 0) return 0;
  switch (port_hold(p)) {
    case PortHold::nothing: return 1;
    case PortHold::directions: return std::max(out, in);
    case PortHold::nodes: return partner_shares_port(p) && paired ? std::max(out, in) : out + in;
  }
  return out + in;
}

// Which ports the messages in flight hold, under one port model.
class PortOccupancy {
 public:
  PortOccupancy() = default;
  PortOccupancy(Port model, int nodes)
      : hold_(port_hold(model)), shares_(partner_shares_port(model)), partner_(nodes, -1),
        count_(nodes, 0), out_busy_(nodes, 0), in_busy_(nodes, 0) {}

  // Whether a message src -> dst may take its ports now.
  bool free(int src, int dst) const {
    switch (hold_) {
      case PortHold::nothing: return true;
      case PortHold::directions: return !out_busy_[src] && !in_busy_[dst];
      case PortHold::nodes:
        return (count_[src] == 0 || (shares_ && partner_[src] == dst)) &&
               (count_[dst] == 0 || (shares_ && partner_[dst] == src));
    }
    return true;
  }
  void take(int src, int dst) { change(src, dst, +1); }
  void give_back(int src, int dst) { change(src, dst, -1); }
  // No port held (between runs).
  void clear() {
    std::fill(partner_.begin(), partner_.end(), -1);
    std::fill(count_.begin(), count_.end(), 0);
    std::fill(out_busy_.begin(), out_busy_.end(), 0);
    std::fill(in_busy_.begin(), in_busy_.end(), 0);
  }

 private:
  void change(int src, int dst, int delta) {
    switch (hold_) {
      case PortHold::nothing: break;
      case PortHold::directions:
        out_busy_[src] = delta > 0;
        in_busy_[dst] = delta > 0;
        break;
      case PortHold::nodes:
        for (auto [a, b] : {std::pair{src, dst}, std::pair{dst, src}}) {
          count_[a] += delta;
          partner_[a] = count_[a] > 0 ? b : -1;
        }
        break;
    }
  }

  PortHold hold_ = PortHold::nothing;
  bool shares_ = false;
  std::vector<int> partner_, count_;      // nodes: messages holding the port, and with whom
  std::vector<char> out_busy_, in_busy_;  // directions
};

// How many messages hold each directed link, and the most that held it at once.
class LinkOccupancy {
 public:
  LinkOccupancy() = default;
  explicit LinkOccupancy(int links) : users_(links, 0), peak_(links, 0) {}

  int users(LinkId l) const { return users_[l]; }
  bool free(LinkId l) const { return users_[l] == 0; }
  bool free(std::span<const LinkId> links) const {
    for (LinkId l : links) {
      if (users_[l] > 0) return false;
    }
    return true;
  }
  void take(LinkId l) { peak_[l] = std::max(peak_[l], ++users_[l]); }
  void take(std::span<const LinkId> links) {
    for (LinkId l : links) take(l);
  }
  void give_back(LinkId l) { --users_[l]; }
  void give_back(std::span<const LinkId> links) {
    for (LinkId l : links) give_back(l);
  }
  // Per link: the most messages that held it at once since the last clear.
  const std::vector<int>& peaks() const { return peak_; }
  void clear() {
    std::fill(users_.begin(), users_.end(), 0);
    std::fill(peak_.begin(), peak_.end(), 0);
  }

 private:
  std::vector<int> users_, peak_;
};

}  // namespace vmc
