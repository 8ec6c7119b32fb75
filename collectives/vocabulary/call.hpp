// The data of one call of a collective, type-erased, as a row's entry point receives it,
// and the signature its group's members compare.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "collectives/op.hpp"
#include "collectives/vocabulary/query.hpp"
#include "runtime/comm.hpp"

namespace vmc {

// The data of one call, type-erased. Buffers are item arrays of item_size bytes.
struct Call {
  const Comm* comm = nullptr;
  const void* send = nullptr;  // null for in-place
  void* recv = nullptr;
  std::size_t n = 0;
  std::size_t item_size = 1;
  const Op* op = nullptr;
  int root = 0;
  Tag tag = 0;                 // first tag of this call's tag space
  const Options* options = nullptr;
  // v-variants
  std::span<const std::size_t> send_counts, send_displs, recv_counts, recv_displs;
};

// A call of a block collective (no designated initialisers, so -Wmissing-field-initializers
// stays quiet when the v-variant spans are left empty).
inline Call make_call(const Comm& comm, const void* send, void* recv, std::size_t n,
                      std::size_t item_size, int root, const Options& options,
                      const Op* op = nullptr) {
  Call call;
  call.comm = &comm;
  call.send = send;
  call.recv = recv;
  call.n = n;
  call.item_size = item_size;
  call.root = root;
  call.options = &options;
  call.op = op;
  return call;
}

// What the members of a call's group compare before it runs (runtime/comm.hpp).
inline CallSignature make_signature(std::string_view operation, const Op* op, int root,
                                    std::uint64_t count, std::size_t item_size,
                                    bool check_count = true) {
  CallSignature sig;
  sig.operation = operation;
  if (op != nullptr) sig.op = op->name();
  sig.root = root;
  sig.count = count;
  sig.item_size = item_size;
  sig.check_count = check_count;
  return sig;
}

// The query of a running call as every member of its group builds it alike: the v-variants'
// whole counts vector, not this rank's count; not in place.
CostQuery call_query(const Call& call);

}  // namespace vmc
