// The texts of a failed run's RunError, shared by every transport (errors.cpp). Internal.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/errors.hpp"

namespace vmc::detail {

// "node 3 threw: <what>", and how many other nodes threw.
std::string threw_report(int node, const std::string& what, std::size_t throwers);
// Every unfinished node blocked, with what each waits for.
RunError deadlock_error(std::vector<BlockedWait> waits);
// A line per collective call that nodes wait inside while members of its comm have not
// begun it (BlockedWait::not_begun): "\n  nodes 0, 1, 2 wait inside collective call 1 on
// comm 0, which node 3 has not begun"; "" when there is none.
std::string absent_members_text(const std::vector<BlockedWait>& waits);
// The waits of `waits` inside one collective call with members absent: each call's waits
// (the first names the call and the absent members) and the world ranks waiting inside it.
struct CallWithAbsentMembers {
  const BlockedWait* first = nullptr;
  std::vector<const BlockedWait*> waits;
  std::vector<int> waiting;
};
std::vector<CallWithAbsentMembers> calls_with_absent_members(const std::vector<BlockedWait>& waits);
// A message no receive took by the end of a run: at node `node`, from node `src`.
struct Unreceived {
  int node = 0, src = 0;
  long long tag = 0;
  unsigned comm = 0;
  std::size_t bytes = 0;
  // False for a collective call's message whose call is not known (the MPI transport's
  // channels carry the tag within the call only): "tag 2 of a collective call".
  bool call_known = true;
};
// The run's nodes returned with these messages still in their mailboxes (in any order: the
// report lists them by node, then sender, comm and tag).
RunError unreceived_error(std::vector<Unreceived> left);
// The run ended by request_interrupt(signal), with what every unfinished node was doing
// (blocked_waits with running_too): "interrupted (SIGINT): the run was ended; its unfinished
// nodes:" and a line each.
RunError interrupted_error(int signal, std::vector<BlockedWait> nodes);
std::string signal_text(int signal);  // "SIGINT", "SIGTERM", "signal 1"
// Runs being watched now (LocalNodes::watch), for runs_watched().
extern std::atomic<int> watched_runs;
// A node the watchdog found outside any wait (BlockedWait::operation).
inline constexpr char kRunningNode[] = "running";
// ... outside any wait, but not running: its fibers worker runs another node (one in its own
// code holds up the nodes behind it).
inline constexpr char kQueuedNode[] = "waiting for its worker";
// A node that has stopped on a failure, waiting for the simulation to take its stop in.
inline constexpr char kStoppingNode[] = "its stop (it has failed)";
// Whether a blocked wait's tag means anything: not in a communicator constructor, a
// collective's meeting, a read of the clock, a failure's check or a stop.
bool wait_names_a_tag(std::string_view operation);
// No progress for `seconds`, with what every unfinished node was doing (blocked_waits with
// the running nodes too), on `where` ("" on one process).
RunError watchdog_error(double seconds, std::vector<BlockedWait> nodes,
                        const std::string& where = "");

}  // namespace vmc::detail
