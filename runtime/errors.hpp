// Errors a run can end with. Every message names the node and the call.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
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

// A run that did not complete: a node threw, or the nodes deadlocked, or it made no
// progress within the watchdog time. The machine is usable for the next run.
class RunError : public std::runtime_error {
 public:
  // unreceived: every node returned, but messages were left in mailboxes (no receive took
  // them; MPI calls such a program erroneous).
  enum class Kind { node_threw, deadlock, watchdog, unreceived };
  RunError(Kind kind, std::string message, int node, std::vector<BlockedWait> waits)
      : std::runtime_error(std::move(message)), kind_(kind), node_(node), waits_(std::move(waits)) {}
  Kind kind() const { return kind_; }
  int node() const { return node_; }  // the node that threw first, or -1
  const std::vector<BlockedWait>& blocked() const { return waits_; }

 private:
  Kind kind_;
  int node_;
  std::vector<BlockedWait> waits_;
};

}  // namespace vmc
