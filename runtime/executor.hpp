// How a machine executes its node functions (internal). Two executors share one interface:
//
// - threads: every node is an OS thread, created once and parked between runs. Required by
//   the real clock (nodes must wait in parallel); a hand-off between nodes on different
//   cores costs a kernel wake-up (25-35 us on the 2-core machines vmc is tested on), and a
//   process gets about 32,000 threads.
// - fibers: every node is a user-level thread (a Boost.Context fiber with a small stack of
//   its own) pinned to one of a few worker threads; a worker runs its runnable fibers one
//   after another, and a node that waits switches back to its worker. A hand-off between
//   nodes of one worker is a context switch (tens of nanoseconds), and a machine can have
//   as many nodes as memory holds. Virtual clock only.
//
// Virtual times, statistics and traces do not depend on the executor: the simulator
// computes them from the nodes' logs (simulator.cpp), whatever order the nodes ran in.
//
// Waiting: a node waits only in LocalNodes::block_until, which parks it until wake(); a wake
// that comes before the park is kept (a binary semaphore per node), so none is lost.
#pragma once

#include <cstddef>
#include <memory>

namespace vmc::detail {

struct LocalNodes;
struct NodeState;

class Executor {
 public:
  virtual ~Executor() = default;
  // Releases every node to run the current run's body (LocalNodes::run_node).
  virtual void start_run() = 0;
  // The calling node waits until woken (threads: at most `timeout_us`, fibers: until woken;
  // an abort wakes every node).
  virtual void park(NodeState& n, long timeout_us) = 0;
  // Ends n's park, or makes its next park return at once.
  virtual void unpark(NodeState& n) = 0;
  // Lets other nodes run before the caller goes on.
  virtual void yield(NodeState& n) = 0;
  // Schedule perturbation: the calling node pauses for about `seconds` (threads: a sleep,
  // or a yield for 0; fibers: a yield, as a fiber's sleep would stall its whole worker).
  virtual void pause(NodeState& n, double seconds) = 0;
  // Between runs: forgets wakes that were never consumed.
  virtual void reset() = 0;
  // The threads the executor holds for the machine's nodes.
  virtual int os_threads() const = 0;
  // Whether n runs now, or (the fibers engine) waits for its worker, which runs another node:
  // for the reports of a run that a node in its own code holds up.
  virtual bool running_now(const NodeState&) const { return true; }
};

// Throws UsageError (naming how many threads could be made) when the system refuses one.
// `tight_timers`: ask the kernel for the tightest sleeps it offers (the real clock, whose
// sleeps are the model's delays).
std::unique_ptr<Executor> make_thread_executor(LocalNodes& nodes, bool tight_timers);
// `workers` OS threads (>= 1), every fiber with a stack of `stack_bytes`.
std::unique_ptr<Executor> make_fiber_executor(LocalNodes& nodes, int workers,
                                              std::size_t stack_bytes);

}  // namespace vmc::detail
