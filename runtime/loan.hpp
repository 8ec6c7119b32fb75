// The message loan: a message between two nodes of one process that carries its bytes by
// reference. On the virtual clock a sendrecv lends its send buffer, and so does a send to a
// receiver already blocked waiting for it, and an isend of SendMode::lent; the receiver
// copies straight from the lender's buffer, one copy instead of two (the sender into a
// payload, the receiver out of it). The sender takes the loan back before its call returns
// (take_back), an isend when its request completes or is withdrawn; if the receiver has not
// begun to copy by then, the sender copies the bytes into a payload of the message's own. The
// sender and the receiver each own a lent message; whoever lets go last frees it (release).
//
// A loan's states, each set by one side with an atomic exchange:
//   open     lent, nobody copying              -> reading (the receiver), taking (the sender)
//   reading  the receiver copies from the buffer -> read
//   taking   the sender copies into a payload    -> taken
// so that the sender's buffer is never read after its call returns, and a message is copied
// once. Internal.
#pragma once

#include <atomic>
#include <cstddef>
#include <utility>

namespace vmc::detail {

struct Message;
struct NodeState;
class Executor;

// From this size on, a sendrecv lends its send buffer instead of copying it, and so does a
// send to a receiver already waiting for it: below it, a copy costs less than the loan's
// hand-back.
constexpr std::size_t kLendBytes = 32 * 1024;
// From this size on, an isend of SendMode::lent lends its buffer: it is taken back when the
// request completes, where the sender waits for no one, so the loan costs two atomic
// exchanges against a copy of the bytes and an allocation.
constexpr std::size_t kLendIsendBytes = 4 * 1024;

// A message's loan (Message::loan).
struct Loan {
  enum State : int { kNotLent, kOpen, kReading, kRead, kTaking, kTaken };
  const std::byte* lent = nullptr;  // the lender's buffer while the loan is open
  std::atomic<int> state{kNotLent};
  std::atomic<int> owners{1};  // 2 while lent: the sender and the receiver
};

// Lends `data` (the message's bytes) through m: the receiver may copy from it until the
// sender takes it back.
void lend(Message& m, const void* data) noexcept;
// Lets go of a message: frees it when no one else owns it.
void release(Message* m) noexcept;
// The receiver's side: copies the message's bytes to `to` (from the lender's buffer while
// the loan is open, else from the payload).
void copy_out(Message& m, void* to) noexcept;
// The sender's side of a lent message: waits for a receiver that is copying, or copies the
// bytes into a payload, then lets go of the message. `unwinding`: called while an exception
// leaves the sender's call. `executor`: lets the other nodes run while the receiver may copy
// (unless `let_receiver_copy` is false: the bytes are copied at once if no one is reading).
void take_back(Executor& executor, NodeState& sender, Message* m, bool unwinding,
               bool let_receiver_copy = true) noexcept;

// A loan in flight: taken back when the call returns (take_back), or on the way out of an
// error.
struct LoanGuard {
  Executor& executor;
  NodeState& node;
  Message* message = nullptr;  // the lent message, null when nothing was lent
  LoanGuard(Executor& e, NodeState& n) : executor(e), node(n) {}
  LoanGuard(const LoanGuard&) = delete;
  LoanGuard& operator=(const LoanGuard&) = delete;
  ~LoanGuard() {
    if (message != nullptr) detail::take_back(executor, node, message, true);
  }
  void take_back() {
    if (message != nullptr) {
      detail::take_back(executor, node, std::exchange(message, nullptr), false);
    }
  }
};

}  // namespace vmc::detail
