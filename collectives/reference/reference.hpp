// What every collective must return: each member's result computed sequentially from every
// member's input, for the fifteen operations (every root, in place or not, any op; a
// non-commutative op is folded in rank order, x0 op x1 op ... op x(q-1)). `vmc run --check`
// (tools/runner.cpp), the public harness (collectives/testing.cpp) and the tests compare
// what the algorithms produced with it; check_values.hpp makes inputs that show a
// misplaced block, guarded.hpp the buffers that show a write outside the result.
//
//   reference::Reference want({.op = Operation::allreduce, .members = p, .n = n,
//                              .item_size = 8}, &op, inputs);
//   Bytes expected = want.expected(r, before);   // rank r's buffer after the call
//
// Work: rank r's result costs O(q n) combines or copies at most (reduce_scatter, alltoall,
// gather), O(n) for the rest once the whole reduction is made (reduce, allreduce: O(q n),
// once) and for scan and exscan when ranks are asked in increasing order (the prefix is
// carried from one rank to the next), so checking a machine of q nodes costs O(q n) per
// rank at most.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "collectives/op.hpp"
#include "collectives/vocabulary/operation.hpp"

namespace vmc::reference {

using Bytes = std::vector<unsigned char>;

// Writes items [first, first + count) of rank `rank`'s input into `out`: its send buffer as
// the regular (not in-place) form of the call takes it (an in-place call starts from the
// same items where that form puts them).
using Inputs =
    std::function<void(int rank, std::size_t first, std::size_t count, unsigned char* out)>;

// One call as every member makes it.
struct Shape {
  Operation op = Operation::allreduce;
  int members = 1;             // q: the comm's size
  std::size_t n = 0;           // MPI's count, as vmc's calls take it (collectives/<op>/<op>.hpp)
  int root = 0;                // rooted operations
  std::size_t item_size = 1;   // bytes
  bool in_place = false;       // only scatter's root keeps its buffer as it was
  // Irregular blocks; empty: n items for every rank, packed in rank order.
  //   scatterv, gatherv, allgatherv: rank r's block is counts[r] items at displs[r] (of the
  //     root's send buffer; of the receive buffer);
  //   reduce_scatter: rank r's result is counts[r] items at their prefix sum of the inputs.
  std::vector<std::size_t> counts, displs;
  //   alltoallv: rank s sends send_counts[s][d] items from send_displs[s][d] of its send
  //     buffer to rank d, which puts them at recv_displs[d][s] of its receive buffer.
  std::vector<std::vector<std::size_t>> send_counts, send_displs, recv_displs;
};

class Reference {
 public:
  // op: the call's op (combining operations only; null for the others), which must outlive
  // the reference. The sizes below need neither op nor inputs.
  Reference(Shape shape, const Op* op = nullptr, Inputs inputs = nullptr);

  const Shape& shape() const { return shape_; }

  // The items of rank r's input (its send buffer; what an in-place call starts from).
  std::size_t input_items(int r) const;
  // The extent of rank r's result buffer (its receive buffer, or the in-place buffer) that
  // the call writes: 0 when it leaves the buffer as it was (reduce off the root, exscan at
  // rank 0, the root of an in-place scatter, barrier).
  std::size_t result_items(int r) const;
  // What rank r's result buffer holds after the call, given what it held before: `before`
  // with the items the call writes replaced (the gaps between irregular blocks, and items
  // past result_items(r), keep what they had), grown to result_items(r) items if shorter.
  Bytes expected(int r, Bytes before);

 private:
  void input(int r, std::size_t first, std::size_t count, unsigned char* out) const;
  // Items [first, first + count) of the fold of ranks 0..last in rank order, into out.
  void fold(int last, std::size_t first, std::size_t count, unsigned char* out);
  // The fold of ranks 0..last of items [0, n), carried across calls (scan, exscan).
  const Bytes& prefix(int last);
  std::size_t count(int r) const;        // the regular or irregular block of rank r
  std::size_t displ(int r) const;
  std::size_t sent(int s, int d) const;  // alltoall[v]: block (s, d)
  std::size_t sent_at(int s, int d) const;
  std::size_t received_at(int d, int s) const;

  Shape shape_;
  const Op* op_;
  Inputs inputs_;
  std::vector<std::size_t> rs_displs_;  // reduce_scatter: prefix sums of counts
  Bytes whole_;                         // reduce, allreduce: the whole fold, once
  bool have_whole_ = false;
  Bytes prefix_, scratch_;
  int prefix_rank_ = -1;
};

}  // namespace vmc::reference
