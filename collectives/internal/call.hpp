// Building the type-erased Call of a block collective (no designated initialisers, so
// -Wmissing-field-initializers stays quiet when the v-variant spans are left empty).
#pragma once

#include "collectives/registry.hpp"

namespace vmc::internal {

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

inline CallSignature make_signature(const std::string& operation, const Op* op, int root,
                                    std::uint64_t count, std::size_t item_size,
                                    bool check_count = true) {
  CallSignature sig;
  sig.operation = operation;
  sig.op = op != nullptr ? op->name() : "";
  sig.root = root;
  sig.count = count;
  sig.item_size = item_size;
  sig.check_count = check_count;
  return sig;
}

}  // namespace vmc::internal
