// The message loan (loan.hpp).
#include "runtime/loan.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <new>
#include <thread>

#include "runtime/executor.hpp"
#include "runtime/message.hpp"

namespace vmc::detail {

namespace {

// Waits while the other owner of a lent message copies its bytes: never longer than one
// memcpy, and the other owner is running (a fiber in a memcpy cannot be switched out), so
// it spins, and lets the OS run others now and then.
void await_loan(const Message& m, int state) noexcept {
  for (unsigned spins = 1; m.loan.state.load(std::memory_order_acquire) != state; ++spins) {
    if (spins % 64 == 0) std::this_thread::yield();
  }
}

}  // namespace

void lend(Message& m, const void* data) noexcept {
  m.loan.lent = static_cast<const std::byte*>(data);
  m.loan.state.store(Loan::kOpen, std::memory_order_relaxed);
  m.loan.owners.store(2, std::memory_order_relaxed);
}

void release(Message* m) noexcept {
  if (m->loan.owners.load(std::memory_order_acquire) == 1 ||
      m->loan.owners.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    delete m;
  }
}

void copy_out(Message& m, void* to) noexcept {
  if (m.loan.lent != nullptr) {
    int open = Loan::kOpen;
    if (m.loan.state.compare_exchange_strong(open, Loan::kReading, std::memory_order_acq_rel)) {
      std::memcpy(to, m.loan.lent, m.bytes);
      m.loan.state.store(Loan::kRead, std::memory_order_release);
      return;
    }
    await_loan(m, Loan::kTaken);  // the lender is copying its bytes into a payload
  }
  if (m.payload != nullptr) std::memcpy(to, m.payload.get(), m.bytes);
}

void take_back(Executor& executor, NodeState& sender, Message* m, bool unwinding,
               bool let_receiver_copy) noexcept {
  // A receiver woken by this message is likely about to copy it: let the others run for
  // a while rather than copy the bytes twice, but no longer than a copy of them would take
  // (at 2 GB/s), since the receiver may not want the message yet.
  if (!unwinding && let_receiver_copy &&
      m->loan.state.load(std::memory_order_acquire) == Loan::kOpen) {
    const auto until = std::chrono::steady_clock::now() +
                       std::chrono::nanoseconds(std::max<std::size_t>(m->bytes / 2, 20'000));
    do {
      executor.yield(sender);
    } while (m->loan.state.load(std::memory_order_acquire) == Loan::kOpen &&
             std::chrono::steady_clock::now() < until);
  }
  int open = Loan::kOpen;
  if (m->loan.state.compare_exchange_strong(open, Loan::kTaking, std::memory_order_acq_rel)) {
    try {
      m->payload = make_payload(m->bytes);
      std::memcpy(m->payload.get(), m->loan.lent, m->bytes);
    } catch (const std::bad_alloc&) {
      // Only while unwinding can this go unreported: the receiver then gets no bytes.
      if (!unwinding) std::terminate();
    }
    m->loan.state.store(Loan::kTaken, std::memory_order_release);
  } else {
    await_loan(*m, Loan::kRead);
  }
  release(m);
}

}  // namespace vmc::detail
