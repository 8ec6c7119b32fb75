// A small replay of point-to-point steps under the port models, for cost functions of
// algorithms whose nodes drift apart (uneven blocks, folded non-power-of-two steps).
//
// It follows the simulator's rules (runtime/simulator.cpp header) for the patterns the
// block collectives use, on contention-free routing: a message starts when its sender
// reaches it and the receiver's port is free (which port, by the runtime's port rule,
// runtime/ports.hpp: exchange and half the receiver's single port, duplex its in-port,
// all none), sends are eager, and a combine runs after the
// transfer with the port already free. It does not model a message that overtakes an
// older one waiting for the same port (the patterns here never produce one when blocks
// are equal); where that can happen the owning cost function says its result is an
// estimate.
#pragma once

#include <algorithm>
#include <vector>

#include "collectives/primitives/blocks.hpp"
#include "runtime/ports.hpp"

namespace vmc::internal {

class PortClocks {
 public:
  PortClocks(const CostQuery& q, int p)
      : q_(q), ready_(p, 0), port_(p, 0), in_(p, 0) {}

  Picos ready(int v) const { return ready_[v]; }
  Picos finish() const { return *std::max_element(ready_.begin(), ready_.end()); }

  // One message a -> b of `items` items (skipped when 0); b waits for it.
  void transfer(int a, int b, std::size_t items) {
    if (items == 0) return;
    const Picos end = start(a, b) + q_.units.message(items);
    ready_[a] = end;
    ready_[b] = std::max(ready_[b], end);
    port_[a] = std::max(port_[a], end);
    port_[b] = std::max(port_[b], end);
    in_[b] = end;
  }
  // a and b exchange at once (sendrecv with one partner); each then combines what it got.
  void exchange(int a, int b, std::size_t ab, std::size_t ba, std::size_t combine_a = 0,
                std::size_t combine_b = 0) {
    if (ab == 0 && ba == 0) return;
    const Picos end_ab = ab ? start(a, b) + q_.units.message(ab) : 0;
    const Picos end_ba = ba ? start(b, a) + q_.units.message(ba) : 0;
    const Picos last = std::max(end_ab, end_ba);
    ready_[a] = std::max(ready_[a], last) + q_.units.combine(combine_a);
    ready_[b] = std::max(ready_[b], last) + q_.units.combine(combine_b);
    port_[a] = std::max(port_[a], last);
    port_[b] = std::max(port_[b], last);
    if (ab) in_[b] = end_ab;
    if (ba) in_[a] = end_ba;
  }
  void combine(int v, std::size_t items) { ready_[v] += q_.units.combine(items); }

  // Every node r sends items[r] to dest[r] and receives from the node that sends to it, in
  // one sendrecv; then combines combine[r] items (empty: none). dest must be a permutation
  // (dest[r] == r: nothing sent). Exact under duplex and all. Under exchange and half a
  // node cannot send to one partner while it receives from another: unless dest is an
  // involution the step is charged as two rounds (an estimate; exact for even cycles of
  // equal messages, which the simulator runs as two rounds of a matching).
  void permutation_step(const std::vector<int>& dest, const std::vector<std::size_t>& items,
                        const std::vector<std::size_t>& combine = {}) {
    const int p = static_cast<int>(ready_.size());
    bool involution = true;
    for (int r = 0; r < p; ++r) involution = involution && dest[dest[r]] == r;
    if (involution && one_partner()) {
      for (int r = 0; r < p; ++r) {
        if (dest[r] > r) exchange(r, dest[r], items[r], items[dest[r]]);
      }
      if (!combine.empty()) {
        for (int r = 0; r < p; ++r) ready_[r] += q_.units.combine(combine[r]);
      }
      return;
    }
    std::vector<Picos> end_out(p, 0), end_in(p, -1);
    for (int r = 0; r < p; ++r) {
      if (dest[r] == r || items[r] == 0) continue;
      Picos t = q_.units.message(items[r]);
      if (one_partner()) t *= 2;
      const Picos s = port_hold(q_.model.port) == PortHold::nothing
                          ? ready_[r]
                          : std::max(ready_[r], in_[dest[r]]);
      end_out[r] = s + t;
      end_in[dest[r]] = s + t;
    }
    for (int r = 0; r < p; ++r) {
      Picos done = std::max(ready_[r], end_out[r]);
      if (end_in[r] >= 0) {
        done = std::max(done, end_in[r]);
        in_[r] = end_in[r];
      }
      port_[r] = std::max(port_[r], std::max(end_out[r], end_in[r]));
      ready_[r] = done + (combine.empty() ? 0 : q_.units.combine(combine[r]));
    }
  }

 private:
  // A node talks to one partner at a time (exchange, half).
  bool one_partner() const { return port_hold(q_.model.port) == PortHold::nodes; }
  // When a -> b may start: once a is ready and b's port that the message holds is free.
  Picos start(int a, int b) const {
    switch (port_hold(q_.model.port)) {
      case PortHold::nothing: return ready_[a];
      case PortHold::directions: return std::max(ready_[a], in_[b]);
      case PortHold::nodes: break;
    }
    return std::max(ready_[a], port_[b]);
  }
  const CostQuery& q_;
  std::vector<Picos> ready_, port_, in_;
};

}  // namespace vmc::internal
