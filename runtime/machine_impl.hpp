// What every transport shares of a machine (Machine's state): its configuration, the
// topology and the model in picoseconds, the run count and group ids, and the transport the
// configuration chose (runtime/transport.hpp), which runs the nodes. Internal.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

#include "runtime/link_rates.hpp"
#include "runtime/machine.hpp"

namespace vmc::detail {

class Transport;

struct MachineImpl {
  MachineConfig config;
  std::shared_ptr<const Topology> topology;
  CostUnits units;
  // config.model without its stragglers (steady()): what every call's selection query
  // holds, made once here rather than copied and cleared per call.
  Model steady_model;
  int p = 0;
  // Whether messages hold links: not under direct routing, and not on a fully connected
  // network, where every pair has links of its own that no other message can want (the
  // times are the same; full:P just has P(P-1) links to keep no state for).
  bool uses_links = false;
  // Per-class link rates (Model::link_rates) resolved on the topology.
  LinkTimes links;
  // The run is being ended (a node threw, a deadlock): every call of a node throws
  // RunAborted. Set by the transport, cleared when it resets after the run.
  std::atomic<bool> abort{false};
  std::uint64_t runs = 0;  // runs started on this machine
  // The run in progress, started by Machine::run_within: the virtual time past which its
  // pass stops (finish_simulation), or none. Set and read on the caller's thread only.
  std::optional<Picos> time_limit;
  std::unique_ptr<Transport> transport;  // made last, destroyed first

  // Checks the configuration and makes the transport it chooses (runtime/transports.cpp).
  explicit MachineImpl(MachineConfig cfg);
  ~MachineImpl();
  RunResult run(const std::function<void(Node&)>& fn);
  // A new group's id (0 is the world's); ids start again at 1 with every run.
  std::uint32_t allocate_comm_id();
  // Whether nodes may fail in this machine's runs (MachineConfig::failures): the waits then
  // look whether the node they wait for has stopped.
  bool failing() const { return failing_; }
  // MachineConfig::failures and what random_failures drew (Machine::failures), and the draw's
  // line of the failure report ("" without one).
  const std::vector<NodeFailure>& failures() const { return failures_; }
  const std::string& drawn() const { return drawn_; }
  // Whether links fail in this machine's runs (MachineConfig::link_failures): only then does a
  // send look at its route.
  bool links_failing() const { return !failed_links_.empty(); }
  // The failed link (index into config.link_failures) that loses a message from node src to
  // node dst sent at or after its time: of the failed links on its route, the one down first
  // (the first on the route of those down at once); -1 when the route crosses none.
  int failed_link_on_route(int src, int dst) const;
  // The links down at time t, as an index (-1: none yet) that route_around_down takes: the
  // last of the failed links' distinct times at or before t.
  int down_index(Picos t) const;
  // A route from src to dst that the topology's routing allows and that avoids every link
  // down at index `down` (Topology::route_around), appended to `out`; false when none does.
  bool route_around_down(int src, int dst, int down, std::vector<LinkId>& out) const;

 private:
  void check_failures();  // UsageError on a failure of a node it does not have, and the like
  void check_link_failures();
  // Each failed link's two directions, with its index in config.link_failures.
  std::vector<std::pair<LinkId, int>> failed_links_;
  // The failed links' distinct times in increasing order, and for each the directed links
  // down from then on, sorted (what a detour avoids).
  std::vector<Picos> down_times_;
  std::vector<std::vector<LinkId>> down_links_;
  bool failing_ = false;
  std::vector<NodeFailure> failures_;
  std::string drawn_;
  std::mutex comm_mutex_;
  std::uint32_t next_comm_id_ = 1;  // guarded by comm_mutex_
};

}  // namespace vmc::detail
