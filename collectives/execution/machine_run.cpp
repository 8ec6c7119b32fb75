// Every node of a machine runs a row (machine_run.hpp).
#include "collectives/execution/machine_run.hpp"

#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>

#include "collectives/execution/run_row.hpp"
#include "runtime/scratch.hpp"

namespace vmc {

std::vector<std::size_t> call_counts(Operation op, const CostQuery& q) {
  if (!traits(op).rank_counts && !(op == Operation::reduce_scatter && !q.counts.empty())) {
    return {};
  }
  std::vector<std::size_t> counts =
      q.counts.empty() ? std::vector<std::size_t>(static_cast<std::size_t>(q.p), q.n) : q.counts;
  if (static_cast<int>(counts.size()) != q.p) {
    throw std::invalid_argument("the counts vector has " + std::to_string(counts.size()) +
                                " entries for " + std::to_string(q.p) + " nodes");
  }
  return counts;
}

namespace {

// One node's call on buffers of the sizes buffer_items gives (a buffer of no items is
// null, as a front door passes a node's absent buffer): what op's front door makes of it.
Call node_call(Operation op, const Comm& c, Bytes& send, Bytes& recv,
               const std::vector<std::size_t>& counts, const std::vector<std::size_t>& displs,
               const CostQuery& q, const Op& combine) {
  const OperationTraits& t = traits(op);
  const std::size_t block = counts.empty() ? q.n : counts[c.rank()];
  Call call = make_call(c, send.data(), recv.data(), block, q.item_size, t.rooted ? q.root : 0,
                        q.options, t.combines ? &combine : nullptr);
  if (t.rank_counts && t.send_extent == Extent::all_blocks) {
    call.send_counts = counts;
    call.send_displs = displs;
  }
  if (t.rank_counts && t.recv_extent == Extent::all_blocks) {
    call.recv_counts = counts;
    call.recv_displs = displs;
  }
  if (op == Operation::reduce_scatter) call.recv_counts = counts;  // no displacements
  if (op == Operation::alltoallv) call.n = 0;  // each block has its own count
  if (op == Operation::barrier) {
    call.n = 0;
    call.item_size = 1;
  }
  return call;
}

// run_on_machine's run, given to `run` (the machine's run or run_within).
template <class Run>
auto run_row_on(Machine& m, Operation op, const Algorithm& row, const CostQuery& q,
                const Run& run) {
  const std::vector<std::size_t> counts = call_counts(op, q);
  std::vector<std::size_t> displs(counts.size());
  std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), std::size_t{0});
  const Op combine("simulated", q.commutative, q.item_size,
                   [](const void*, const void*, void*, std::size_t) {});
  // A group runs on its own nodes, in its own rank order (a query naming no members: the
  // first p nodes, see CostQuery::members); the other nodes only split.
  std::vector<int> index;  // comm rank of each node in the group; empty: the whole machine
  if (!q.members.empty() || q.p != m.size()) {
    if (q.p < 1 || q.p > m.size() ||
        (!q.members.empty() && static_cast<int>(q.members.size()) != q.p)) {
      throw std::invalid_argument("a group of " + std::to_string(q.p) + " nodes on a machine of " +
                                  std::to_string(m.size()));
    }
    index.assign(static_cast<std::size_t>(m.size()), -1);
    for (int r = 0; r < q.p; ++r) {
      const int w = q.members.empty() ? r : q.members[r];
      if (w < 0 || w >= m.size() || index[w] != -1) {
        throw std::invalid_argument("the group's members are not distinct nodes of the machine");
      }
      index[w] = r;
    }
  }
  const OperationTraits& t = traits(op);
  return run([&](Node& node) {
    Comm c = node.world();
    if (!index.empty()) {
      const int mine = index[node.rank()];
      c = c.split(mine >= 0 ? 0 : -1, mine);
      if (mine < 0) return;
    }
    const BufferItems items = buffer_items(op, q.p, c.rank(), q.root, q.n, counts);
    Bytes send(items.send * q.item_size);
    Bytes recv(items.recv * q.item_size);
    run_row(op, row, node_call(op, c, send, recv, counts, displs, q, combine),
            make_signature(t.name, t.combines ? &combine : nullptr, t.rooted ? q.root : -1, 0,
                           q.item_size, false));
  });
}

}  // namespace

RunResult run_on_machine(Machine& m, Operation op, const Algorithm& row, const CostQuery& q) {
  return run_row_on(m, op, row, q,
                    [&](const std::function<void(Node&)>& fn) { return m.run(fn); });
}

std::optional<RunResult> run_on_machine_within(Machine& m, Operation op, const Algorithm& row,
                                               const CostQuery& q, Picos limit) {
  return run_row_on(m, op, row, q, [&](const std::function<void(Node&)>& fn) {
    return m.run_within(limit, fn);
  });
}

}  // namespace vmc
