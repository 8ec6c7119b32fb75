// The collective operations and what each one is, in one table that every caller reads (the
// front doors, selection's simulations, the command line, the harness): its name, whether
// it has a root, whether it combines items with an Op, whether its blocks have per-rank
// counts (the v-variants), and which nodes pass a send and a receive buffer of how many
// items.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vmc {

enum class Operation {
  broadcast, reduce, allreduce, allgather, reduce_scatter, scan, exscan, scatter, gather,
  alltoall, barrier, scatterv, gatherv, allgatherv, alltoallv,
};

// Which nodes pass a buffer to a call.
enum class Holders { none, root, every_node };
// How many items a buffer holds: one block (n items; counts[rank] where the blocks have
// per-rank counts) or every rank's block (n p; the sum of the counts).
enum class Extent { block, all_blocks };

struct OperationTraits {
  Operation op;
  const char* name;
  bool rooted;       // the call names a root
  bool combines;     // the call takes an Op and combines items with it
  bool rank_counts;  // a v-variant: every rank's block has a count of its own
  Holders send_holders;
  Extent send_extent;
  Holders recv_holders;
  Extent recv_extent;
};

const OperationTraits& traits(Operation op);
std::string to_string(Operation op);
Operation parse_operation(std::string_view s);  // throws std::invalid_argument
const std::vector<Operation>& all_operations();

// The items node `rank` of p holds in its send and its receive buffer in a call of op with
// blocks of n items, or of `counts` items each (one per rank; empty: n for every rank).
struct BufferItems {
  std::size_t send = 0, recv = 0;
};
BufferItems buffer_items(Operation op, int p, int rank, int root, std::size_t n,
                         std::span<const std::size_t> counts);

}  // namespace vmc
