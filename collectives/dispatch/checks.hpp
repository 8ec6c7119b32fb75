// Input checks shared by the front doors of the collectives. Every failure is a
// UsageError that names the node (comm.who()) and the operation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "collectives/op.hpp"
#include "runtime/comm.hpp"
#include "runtime/errors.hpp"
#include "runtime/scratch.hpp"

namespace vmc::internal {

[[noreturn]] inline void usage_error(const Comm& comm, std::string_view operation,
                                     const std::string& problem) {
  throw UsageError(comm.who() + ": " + std::string(operation) + ": " + problem);
}

// `problem`: the text, or a function that makes it. These checks run on every call of a
// collective, so a text built of numbers is passed as a function: built only on failure
// (and the operation's name is a view, made a text only then).
template <class Problem>
inline void require(const Comm& comm, bool ok, std::string_view operation, Problem&& problem) {
  if (ok) return;
  if constexpr (std::is_invocable_v<Problem>) {
    usage_error(comm, operation, problem());
  } else {
    usage_error(comm, operation, problem);
  }
}

// The comm is one the node belongs to (not default-constructed, not the result of split
// with a negative colour): checked first, before anything asks the comm its size.
inline void require_valid(const Comm& comm, std::string_view operation) {
  require(comm, comm.valid(), operation,
          "called on an invalid Comm (default-constructed, or the result of split with a "
          "negative colour)");
}

// FNV-1a over a v-variant's counts: the layout every member must agree on.
inline std::uint64_t counts_hash(std::span<const std::size_t> counts) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t c : counts) h = (h ^ c) * 1099511628211ull;
  return h ^ counts.size();
}

// Whether two byte ranges share a byte (empty ranges never do).
inline bool overlaps(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  if (a_bytes == 0 || b_bytes == 0 || a == nullptr || b == nullptr) return false;
  auto x = reinterpret_cast<std::uintptr_t>(a), y = reinterpret_cast<std::uintptr_t>(b);
  return x < y + b_bytes && y < x + a_bytes;
}

inline void require_root(const Comm& comm, int root, std::string_view operation) {
  require(comm, root >= 0 && root < comm.size(), operation, [&] {
    return "root " + std::to_string(root) + " is out of range for a comm of " +
           std::to_string(comm.size()) + " ranks";
  });
}

// The op combines items of the buffers' size.
inline void require_op_items(const Comm& comm, const Op& op, std::size_t item_size,
                             std::string_view operation) {
  require(comm, op.item_size() == item_size, operation, [&] {
    return "op \"" + op.name() + "\" combines items of " + std::to_string(op.item_size()) +
           " bytes but the buffers hold items of " + std::to_string(item_size) + " bytes";
  });
}

// The receive buffer holds the n items of the send buffer.
inline void require_recv_holds(const Comm& comm, std::string_view operation,
                               std::size_t recv_items, std::size_t n) {
  require(comm, recv_items >= n, operation, [&] {
    return "the receive buffer holds " + std::to_string(recv_items) +
           " items but the send buffer has " + std::to_string(n);
  });
}

// Timing-only buffers (nowhere memory, runtime/scratch.hpp) hold nothing, so two of them
// cannot alias in a way that matters; a timing-only run whose buffers outgrow the 64 GiB
// reservation gets some address ranges twice.
inline void require_no_alias(const Comm& comm, const void* send, std::size_t send_bytes,
                             const void* recv, std::size_t recv_bytes,
                             std::string_view operation) {
  if (is_nowhere(send) && is_nowhere(recv)) return;
  require(comm, !overlaps(send, send_bytes, recv, recv_bytes), operation,
          "the send and receive buffers overlap; use the in-place form");
}

// Counts and displacements of a v-variant: p entries each, every block inside a buffer of
// `capacity` items. Returns the largest end (displacement + count).
inline std::size_t require_layout(const Comm& comm, std::span<const std::size_t> counts,
                                  std::span<const std::size_t> displs, std::size_t capacity,
                                  std::string_view operation, std::string_view which) {
  const std::size_t p = static_cast<std::size_t>(comm.size());
  require(comm, counts.size() == p && displs.size() == p, operation, [&] {
    return std::string(which) + " counts and displacements need " + std::to_string(p) + " entries each (got " +
           std::to_string(counts.size()) + " and " + std::to_string(displs.size()) + ")";
  });
  std::size_t end = 0;
  for (std::size_t i = 0; i < p; ++i) {
    require(comm, displs[i] + counts[i] <= capacity, operation, [&] {
      return std::string(which) + " block " + std::to_string(i) + " (displacement " + std::to_string(displs[i]) +
             ", count " + std::to_string(counts[i]) + ") does not fit the buffer of " +
             std::to_string(capacity) + " items";
    });
    end = std::max(end, displs[i] + counts[i]);
  }
  return end;
}

}  // namespace vmc::internal
