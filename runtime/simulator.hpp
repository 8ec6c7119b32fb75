// Virtual time: the discrete-event pass over the nodes' logs (simulator.cpp says how). It may
// be advanced during the run (by nodes waiting for a query's answer, holding
// LocalNodes::sim_mutex) and is completed after it. Internal.
#pragma once

#include <memory>
#include <stdexcept>

#include "runtime/trace.hpp"

namespace vmc::detail {

struct LocalNodes;

// Thrown by the simulator when the logs cannot be scheduled: rendezvous sends whose
// receives are never posted, receives no send matches, blocking worms in a cycle.
struct ScheduleDeadlock : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Thrown by the pass after a run of Machine::run_within when it reaches an instant after the
// run's limit (MachineImpl::time_limit): the run's time exceeds the limit.
struct TimeLimitPassed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Simulation;
struct SimulationDeleter {
  void operator()(Simulation* s) const;
};
using SimulationPtr = std::unique_ptr<Simulation, SimulationDeleter>;

// A pass over the logs of `nodes` (and, on a spread machine's process 0 after the run, of the
// other processes' nodes: LocalNodes::log_of). streaming: the pass runs while the nodes do
// (every node of the machine in this process) and the logs drop what it has used; the
// contention-free replay then runs beside it where links are used (from the start, or forked
// from the pass the first time the two would part: simulator.cpp, fork_replay).
SimulationPtr start_simulation(LocalNodes& nodes, bool streaming);
// Advances as far as the logs allow; returns the node whose next operation it waits for,
// or -1 when the pass is complete. Throws ScheduleDeadlock when nodes wait for what can
// never happen, std::overflow_error when a time does not fit.
int advance_simulation(Simulation& s);
// advance_simulation called in passing (by a node whose log grew, or an idle worker): what the
// pass throws is kept, and thrown by the next advance (the end of the run reports it).
// Whether the pass took any operation.
bool stream_simulation(Simulation& s);
// Whether the pass has thrown (kept by stream_simulation for the next advance).
bool simulation_failed(const Simulation& s);
// After the run: completes the pass (and the contention-free replay when links mattered)
// and hands over its statistics and trace.
void finish_simulation(LocalNodes& nodes, Simulation& s, Stats& stats, Trace& trace);

}  // namespace vmc::detail
