// Block layouts and small byte-buffer helpers shared by the block-structured collectives
// (allgather, reduce-scatter, scatter, gather, all-to-all and their v-variants).
//
// A Blocks value describes p blocks of an item array: block b holds counts[b] items
// starting at item displs[b] (items of `item_size` bytes). Block b belongs to comm rank b.
#pragma once

#include <cstddef>
#include <cstring>
#include <span>
#include <vector>

#include "collectives/vocabulary/row.hpp"
#include "runtime/scratch.hpp"

namespace vmc::internal {

struct Blocks {
  std::vector<std::size_t> counts;
  std::vector<std::size_t> displs;
  // prefix[b]: the sum of counts[0 .. b-1] (p + 1 entries), which the factories below fill
  // so that range_total costs O(1), not O(len) (cost formulas sum p ranges a step).
  std::vector<std::size_t> prefix;

  int size() const { return static_cast<int>(counts.size()); }
  std::size_t total() const;  // sum of counts
  std::size_t max() const;    // largest count (0 for no blocks)
  // Sum of counts[b] for b in [first, first + len), indices taken mod size().
  std::size_t range_total(int first, int len) const;

  // n items in p contiguous blocks: block b has n/p items, plus one for b < n % p.
  static Blocks even(std::size_t n, int p);
  // Contiguous blocks of the given counts (displs are the prefix sums).
  static Blocks contiguous(std::span<const std::size_t> counts);
  // Explicit layout (v-variants).
  static Blocks explicit_layout(std::span<const std::size_t> counts,
                                std::span<const std::size_t> displs);
  // p blocks of n items each, block b at b*n (the regular MPI layouts).
  static Blocks equal(std::size_t n, int p);
};

// Per-rank block counts a cost function should assume: q.counts when set (v-variants),
// else q.n items for every rank.
std::vector<std::size_t> counts_of(const CostQuery& q);

inline char* at(void* base, std::size_t item, std::size_t item_size) {
  return static_cast<char*>(base) + item * item_size;
}
inline const char* at(const void* base, std::size_t item, std::size_t item_size) {
  return static_cast<const char*>(base) + item * item_size;
}
// memmove of `items` items (no-op for 0 items, identical pointers, or a timing-only run:
// runtime/scratch.hpp).
inline void copy_items(void* dst, const void* src, std::size_t items, std::size_t item_size) {
  copy_data(dst, src, items * item_size);
}

// Copies blocks first .. first+len-1 (indices mod p) of `buf` into contiguous `out`, in that
// order; returns the number of items copied. unpack_blocks is the inverse.
std::size_t pack_blocks(const void* buf, std::size_t item_size, const Blocks& blocks, int first,
                        int len, void* out);
std::size_t unpack_blocks(const void* in, std::size_t item_size, const Blocks& blocks,
                          int first, int len, void* buf);

// Time of one message of `items` items, 0 when the message is skipped (items == 0).
inline Picos message_time(const CostQuery& q, std::size_t items) {
  return items == 0 ? 0 : q.units.message(items);
}
// Port models under which a node talks to one partner at a time.
inline bool one_partner_ports(const CostQuery& q) {
  return q.model.port == Port::exchange || q.model.port == Port::half;
}

}  // namespace vmc::internal
