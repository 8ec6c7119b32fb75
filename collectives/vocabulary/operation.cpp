// The table of operations (operation.hpp).
#include "collectives/vocabulary/operation.hpp"

#include <iterator>
#include <numeric>
#include <stdexcept>

namespace vmc {

namespace {
constexpr Holders kNone = Holders::none, kRoot = Holders::root, kEvery = Holders::every_node;
constexpr Extent kBlock = Extent::block, kAll = Extent::all_blocks;
constexpr OperationTraits kTraits[] = {
    // operation, name, rooted, combines, rank counts, send holders and extent, recv ones
    {Operation::broadcast, "broadcast", true, false, false, kNone, kBlock, kEvery, kBlock},
    {Operation::reduce, "reduce", true, true, false, kEvery, kBlock, kRoot, kBlock},
    {Operation::allreduce, "allreduce", false, true, false, kEvery, kBlock, kEvery, kBlock},
    {Operation::allgather, "allgather", false, false, false, kEvery, kBlock, kEvery, kAll},
    {Operation::reduce_scatter, "reduce_scatter", false, true, false, kEvery, kAll, kEvery, kBlock},
    {Operation::scan, "scan", false, true, false, kEvery, kBlock, kEvery, kBlock},
    {Operation::exscan, "exscan", false, true, false, kEvery, kBlock, kEvery, kBlock},
    {Operation::scatter, "scatter", true, false, false, kRoot, kAll, kEvery, kBlock},
    {Operation::gather, "gather", true, false, false, kEvery, kBlock, kRoot, kAll},
    {Operation::alltoall, "alltoall", false, false, false, kEvery, kAll, kEvery, kAll},
    {Operation::barrier, "barrier", false, false, false, kNone, kBlock, kNone, kBlock},
    {Operation::scatterv, "scatterv", true, false, true, kRoot, kAll, kEvery, kBlock},
    {Operation::gatherv, "gatherv", true, false, true, kEvery, kBlock, kRoot, kAll},
    {Operation::allgatherv, "allgatherv", false, false, true, kEvery, kBlock, kEvery, kAll},
    {Operation::alltoallv, "alltoallv", false, false, true, kEvery, kAll, kEvery, kAll},
};
}  // namespace

const OperationTraits& traits(Operation op) {
  for (const OperationTraits& t : kTraits) {
    if (t.op == op) return t;
  }
  throw std::logic_error("unknown operation");
}

std::string to_string(Operation op) {
  for (const OperationTraits& t : kTraits) {
    if (t.op == op) return t.name;
  }
  return "?";
}

Operation parse_operation(std::string_view s) {
  for (const OperationTraits& t : kTraits) {
    if (s == t.name) return t.op;
  }
  std::string all;
  for (const OperationTraits& t : kTraits) all += std::string(all.empty() ? "" : ", ") + t.name;
  throw std::invalid_argument("unknown operation \"" + std::string(s) + "\": expected one of " +
                              all);
}

const std::vector<Operation>& all_operations() {
  static const std::vector<Operation> ops = [] {
    std::vector<Operation> v;
    for (const OperationTraits& t : kTraits) v.push_back(t.op);
    return v;
  }();
  return ops;
}

BufferItems buffer_items(Operation op, int p, int rank, int root, std::size_t n,
                         std::span<const std::size_t> counts) {
  const OperationTraits& t = traits(op);
  const std::size_t block = counts.empty() ? n : counts[rank];
  const std::size_t all = counts.empty() ? n * static_cast<std::size_t>(p)
                                         : std::accumulate(counts.begin(), counts.end(),
                                                           std::size_t{0});
  auto items = [&](Holders holders, Extent extent) -> std::size_t {
    if (holders == Holders::none || (holders == Holders::root && rank != root)) return 0;
    return extent == Extent::block ? block : all;
  };
  return {items(t.send_holders, t.send_extent), items(t.recv_holders, t.recv_extent)};
}

}  // namespace vmc
