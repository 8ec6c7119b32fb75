// Errors a run can end with. Every message names the node and the call.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace vmc {

// Bad input to a runtime or collective call: a rank out of range, a buffer too small, a
// size that makes no sense. Thrown on the node that made the call; ends the run.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A receive whose message does not fit its buffer: the message was taken (and dropped), and
// this says what it was, so that a caller can report it in its own terms (MPI_ERR_TRUNCATE).
class TruncationError : public UsageError {
 public:
  TruncationError(const std::string& what, int source, long long tag, std::size_t bytes)
      : UsageError(what), source_(source), tag_(tag), bytes_(bytes) {}
  int source() const { return source_; }  // comm rank of the sender
  long long tag() const { return tag_; }
  std::size_t bytes() const { return bytes_; }  // the message's

 private:
  int source_;
  long long tag_;
  std::size_t bytes_;
};

// The members' calls of one collective differ (Comm::begin_collective). The report is the
// same on every run: it blames node(), the lowest rank outside the call most members made,
// whose call was `operation()`. Thrown to that node when it waits in the call; when it went on
// past it (its call agreed with the first member's), to the member that came last, on its
// behalf. Either way the run reports it as node()'s failure (LocalNodes::run_node).
class CallsDifferError : public UsageError {
 public:
  CallsDifferError(int node, std::string operation, const std::string& what)
      : UsageError(what), node_(node), operation_(std::move(operation)) {}
  int node() const { return node_; }  // world rank of the blamed member
  const std::string& operation() const { return operation_; }

 private:
  int node_;
  std::string operation_;
};

// A call that failed because of a failure on purpose (MachineConfig::failures and
// link_failures): a NodeFailedError or a LinkFailedError. Thrown on the node that made the
// call; the node may catch it and go on. A node whose function ends on it stops too (the
// calls that need it fail in turn, with NodeFailedError).
class FailureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A call that needed a node that has failed (MachineConfig::failures; docs/model.md, "Failed
// nodes"): a receive from it that no message it sent before it stopped can satisfy. Thrown on
// the node that made the call, naming the call and the failed node.
class NodeFailedError : public FailureError {
 public:
  NodeFailedError(const std::string& what, int failed_node, int failed_rank)
      : FailureError(what), failed_node_(failed_node), failed_rank_(failed_rank) {}
  int failed_node() const { return failed_node_; }  // world rank
  int failed_rank() const { return failed_rank_; }  // its rank in the call's comm

 private:
  int failed_node_;
  int failed_rank_;
};

// A receive that took a message lost on a failed link (MachineConfig::link_failures;
// docs/model.md, "Failed links"), or a synchronous send whose message was lost, once its
// receive matched: "node 7: recv from rank 3 tag 0 of collective call 0: the message was lost
// on link 3-7, down since 1 ms". The sender is alive; the message is gone.
class LinkFailedError : public FailureError {
 public:
  LinkFailedError(const std::string& what, int link_a, int link_b, int peer_node, int peer_rank)
      : FailureError(what), a_(link_a), b_(link_b), peer_node_(peer_node), peer_rank_(peer_rank) {}
  int link_a() const { return a_; }  // the failed link's ends (world ranks, as --fail gave them)
  int link_b() const { return b_; }
  int peer_node() const { return peer_node_; }  // the other end of the message (world rank)
  int peer_rank() const { return peer_rank_; }  // its rank in the call's comm

 private:
  int a_, b_;
  int peer_node_, peer_rank_;
};

// What a run's failures did (MachineConfig::failures and link_failures): the failed links and
// the messages they lost, the nodes that stopped, when, and the calls that failed because
// they needed a failed node or took a lost message. In the order of the links as given, of the
// senders (each one's messages in the order it sent them), of the nodes (each node's calls in
// the order it made them); times are virtual, so the report is the same on every run.
struct FailureReport {
  struct Link {
    int a = 0, b = 0;
    long long at_ps = 0;  // down from then on
    int lost = 0;         // messages it lost in the run
    int rerouted = 0;     // messages whose route crossed it that took another route
  };
  struct Lost {
    int sender = 0, receiver = 0;  // world ranks
    long long tag = 0;
    unsigned comm = 0;
    long long sent_ps = 0;  // the sender reached the send
    int link = 0;           // the failed link that lost it (index into links)
  };
  struct Stopped {
    int node = 0;
    long long at_ps = 0;  // its time when it stopped
    int cause = -1;       // -1: a failure it was given; else the failed node whose error it ended on
    int cause_link = -1;  // or the failed link (index into links) whose lost message it ended on
  };
  struct Affected {
    int node = 0;
    int failed = -1;      // the failed node the call needed (world rank), or -1
    int link = -1;        // or the failed link that lost its message (index into links)
    long long at_ps = 0;  // the node's time when the call returned the error
    std::string call;     // "recv from rank 2 (tag 5)", and the front door's call if any
  };
  std::vector<Link> links;
  std::vector<Lost> lost;
  std::vector<Stopped> stopped;
  std::vector<Affected> affected;
  // With MachineConfig::random_failures: the draw and what it gave, as --fail replays it
  // ("random:count=1,before=5ms,seed=7 drew node:3@3.217456ms"); else empty.
  std::string drawn;
  // Whether messages route around failed links (MachineConfig::fail_routes is around).
  bool reroutes = false;
  // "link 0-4": links[k] as every message names it.
  std::string link_name(int k) const;
  // What links[k] did: "rerouted 3 messages, lost none" when messages route around failed
  // links, else "lost 1 message" ("lost no message" for none).
  std::string link_outcome(int k) const;
  // Nothing stopped and no message was lost.
  bool empty() const { return stopped.empty() && lost.empty(); }
  // Some node ended on an error of a failed node or a lost message, rather than handling it.
  bool unhandled() const;
  // The report's first line, without the colon: what failed (nodes given a failure, links
  // that lost messages, or both) and that calls which needed them ended their nodes.
  std::string headline() const;
  // The draw's line if any, one line per failed link, one per lost message, one per stopped
  // node, then one per affected call.
  std::string text() const;
};

// What a node was blocked in when a deadlock was detected.
struct BlockedWait {
  int node = 0;               // world rank
  std::string operation;      // "recv", "sendrecv", "split", ...
  int peer = -1;              // comm rank of the awaited source, -1 if none
  int peer_world = -1;        // world rank of the awaited source
  long long tag = 0;
  unsigned comm = 0;
  std::string context;        // the call a front door said it is in (CallContext), or ""
  // A receive: a message that waits in the node's mailbox from the awaited source (or, for a
  // receive from any source, from any) on the same comm under another tag, if one does.
  bool other = false;
  int other_world = -1;       // its sender's world rank
  long long other_tag = 0;
  std::size_t other_bytes = 0;
  // A wait inside a collective call (a tag of its space, tags.hpp): the members of the comm
  // (world ranks) that have not begun that call, when every member is in this process and
  // is blocked or has returned (else, and when all have begun it, empty). The same list on
  // every wait inside the call.
  std::vector<int> not_begun;
  std::string describe() const;
  // "a message from node 0 waits under tag 4, 8 bytes" when `other`, else "".
  std::string other_message() const;
};

// A tag as every message prints it: "tag 7" (a user tag), "any tag", or "tag 2 of
// collective call 3" (a collective call's tag space: its call number on the comm, then the
// tag within it).
std::string tag_text(long long tag);
// "1 item", "3 items": a count and its noun, plural unless the count is 1.
std::string counted(unsigned long long count, const std::string& noun);
// "300 s", "0.5 s".
std::string seconds_text(double seconds);
// "node 2", "nodes 0, 1, 3" (the first 16, then how many more).
std::string nodes_text(const std::vector<int>& nodes);
// "0-2, 4, 6-9": ascending numbers with every run of three or more as A-B; with max_pieces,
// the first that many pieces, then " and N more".
std::string number_ranges(const std::vector<int>& numbers, int max_pieces = 0);

// A run that did not complete: a node threw, or the nodes deadlocked, or it made no
// progress within the watchdog time. The machine is usable for the next run.
class RunResult;  // runtime/machine.hpp

class RunError : public std::runtime_error {
 public:
  // unreceived: every node returned, but messages were left in mailboxes (no receive took
  // them; MPI calls such a program erroneous). node_failed: nodes or links failed
  // (MachineConfig::failures, link_failures) and some node ended on the error of a call that
  // needed a failed node or took a lost message; failures() says what failed, when, and which
  // calls.
  // stuck: the run was ended (any of the other kinds, or the watchdog), but nodes did not
  // return: they are in the program's own code, which cannot be interrupted; the process
  // must end (stuck_handler below). interrupted: request_interrupt (below) ended the run, as
  // the watchdog would, with what every unfinished node was doing.
  enum class Kind { node_threw, deadlock, watchdog, unreceived, node_failed, stuck, interrupted };
  RunError(Kind kind, std::string message, int node, std::vector<BlockedWait> waits,
           FailureReport failures = {})
      : std::runtime_error(std::move(message)), kind_(kind), node_(node), waits_(std::move(waits)),
        failures_(std::move(failures)) {}
  Kind kind() const { return kind_; }
  int node() const { return node_; }  // the node that threw first, or -1
  const std::vector<BlockedWait>& blocked() const { return waits_; }
  // The nodes that had failed when the run ended (empty when none had).
  const FailureReport& failures() const { return failures_; }
  // node_failed: what the run did, as a run that returns gives it (its statistics, trace and
  // failures; every node ended, normally or stopped), for a caller that draws or reports it
  // (vmc show); null for the other kinds.
  const std::shared_ptr<const RunResult>& result() const { return result_; }
  void set_result(std::shared_ptr<const RunResult> result) { result_ = std::move(result); }
  // stuck: what the message says, for a caller that words it its own way (vmc mpirun speaks
  // of ranks): the failure that ended the run (null when none did), the nodes still in the
  // program's own code, the nodes that did not return from a wait of vmc (behind those on
  // their fiber workers, or, when no node is in its own code, not woken), and the grace time
  // they were given.
  struct Stuck {
    std::shared_ptr<const RunError> cause;
    std::vector<int> own_code, behind;
    double grace_seconds = 0;
  };
  const Stuck& stuck() const { return stuck_; }
  void set_stuck(Stuck stuck) { stuck_ = std::move(stuck); }

 private:
  Kind kind_;
  int node_;
  std::vector<BlockedWait> waits_;
  FailureReport failures_;
  std::shared_ptr<const RunResult> result_;
  Stuck stuck_;
};

// What ends the process when nodes do not return after their run was ended (RunError kind
// stuck: the run's failure, and the nodes that did not return). The handler reports the error
// its way and ends the process; vmc ends it with status 1 if the handler returns. The
// default writes "vmc: " and the report on stderr. Not a moment to throw or to free: the
// nodes still run, on the machine's stacks, in the program's code.
using StuckHandler = void (*)(const RunError& error);
void set_stuck_handler(StuckHandler handler);  // nullptr: the default
StuckHandler stuck_handler();

// Ends the runs in progress as the watchdog would, at once (RunError kind interrupted, with
// every unfinished node's wait), and every run started after it, until clear_interrupt:
// what a front end does on SIGINT or SIGTERM (`signal` is that number, for its report). Safe
// in a signal handler. runs_watched: how many runs of this process are being watched now
// (a handler with none to end lets the signal end the process).
void request_interrupt(int signal) noexcept;
int interrupt_requested() noexcept;  // the signal asked for, or 0
void clear_interrupt() noexcept;
int runs_watched() noexcept;

}  // namespace vmc
