// allgather allport_doubling: 001's hypercube all-to-all broadcast with all ports in use
// (000 §7's partitioning applied to it). Every block is cut into t equal windows
// (patterns/allport.hpp, t = min(d, largest block)); window j of every block travels by
// recursive doubling over the rotated dimensions: in step s each node exchanges, with its
// neighbour across dimension (j + s) mod d, the windows j of the 2^s blocks it holds, for
// all t windows at once (one exchange per link), then waits for the step. Window j's
// buffer keeps the blocks in the order of their labels rotated right by j bits, so what a
// node holds and what it receives are contiguous ranges and nothing is packed.
//
// Requires: p a power of two (any counts; empty ranges are not sent).
// Cost with equal blocks of m items, c = ceil(m / t), T_s = alpha + 2^s c beta:
//   all-port:  sum_s T_s = d alpha + (p-1) c beta (about d alpha + (p-1) m beta / d, against
//              001's d alpha + (p-1) m beta), exact on a whole hypercube and wherever links
//              are private; uneven blocks: the replay of the steps (StepClocks), exact too.
//   otherwise: the same replay with a node's t sends of a step passing its out-port one
//              after another, a lower bound.
#include <algorithm>

#include "collectives/allgather/allgather_internal.hpp"
#include "collectives/allport/allport.hpp"
#include "collectives/primitives/p2p.hpp"

namespace vmc::internal {

namespace pa = patterns::allport;

namespace {
// Window j of every block in the order of rotated labels: block rotate_left(r, j) at
// offset[r], c[b] = ceil(counts[b] / trees) items each.
struct RotatedLayout {
  int d = 0, trees = 0;
  std::vector<std::size_t> window;  // per block: its window size
  std::vector<std::vector<std::size_t>> offset;  // per tree j, per rotated label r (p + 1)

  RotatedLayout(int p, std::span<const std::size_t> counts) : d(allport::dimension(p)) {
    const std::size_t most = counts.empty() ? 0 : *std::max_element(counts.begin(), counts.end());
    trees = static_cast<int>(std::min<std::size_t>(d, most));
    for (std::size_t m : counts) window.push_back(pa::windows(m, trees).size);
    offset.assign(trees, std::vector<std::size_t>(p + 1, 0));
    for (int j = 0; j < trees; ++j) {
      for (int r = 0; r < p; ++r) offset[j][r + 1] = offset[j][r] + window[block(j, r)];
    }
  }
  int block(int j, int r) const { return pa::rotate_right(r, (d - j % d) % d, d); }
  // Items of tree j's ranges of 2^s rotated labels starting at `first`.
  std::size_t items(int j, int first, int s) const {
    return offset[j][first + (1 << s)] - offset[j][first];
  }
  std::size_t total() const { return offset.empty() ? 0 : offset[0].back(); }
};
}  // namespace

void allgather_allport_doubling(const Comm& comm, void* buf, std::size_t item_size,
                                const Blocks& blocks, Tag tag) {
  const int p = comm.size(), r = comm.rank();
  const RotatedLayout layout(p, blocks.counts);
  if (layout.trees == 0) return;
  const int d = layout.d;
  std::vector<Bytes> trees(layout.trees,
                                       Bytes(layout.total() * item_size));
  auto windows_of = [&](int b) { return pa::windows(blocks.counts[b], layout.trees); };
  auto in_tree = [&](int j, int label) { return at(trees[j].data(), layout.offset[j][label], item_size); };
  auto in_buf = [&](int b, std::size_t k) {
    return at(buf, blocks.displs[b] + windows_of(b).start(k), item_size);
  };
  for (int j = 0; j < layout.trees; ++j) {
    if (blocks.counts[r] > 0) {
      copy_items(in_tree(j, pa::rotate_right(r, j, d)), in_buf(r, j), layout.window[r], item_size);
    }
  }
  for (int s = 0; s < d; ++s) {
    Batch step(comm);
    for (int j = 0; j < layout.trees; ++j) {
      const int u = r ^ (1 << pa::rotated_dimension(j, s, d));
      const int mine = pa::rotate_right(r, j, d) & ~((1 << s) - 1), theirs = mine ^ (1 << s);
      const std::size_t out = layout.items(j, mine, s), in = layout.items(j, theirs, s);
      if (out > 0) step.send(in_tree(j, mine), out, item_size, u, tag + j);
      if (in > 0) step.recv(in_tree(j, theirs), in, item_size, u, tag + j);
    }
    step.wait();
  }
  for (int j = 0; j < layout.trees; ++j) {
    for (int label = 0; label < p; ++label) {
      const int b = layout.block(j, label);
      if (b == r || blocks.counts[b] == 0) continue;
      copy_items(in_buf(b, j), in_tree(j, label), layout.window[b], item_size);
    }
  }
}

Picos allgather_allport_doubling_cost(const CostQuery& q, std::span<const std::size_t> counts) {
  const RotatedLayout layout(q.p, counts);
  allport::StepClocks clocks(q, q.p);
  for (int s = 0; s < layout.d && layout.trees > 0; ++s) {
    for (int r = 0; r < q.p; ++r) {
      for (int j = 0; j < layout.trees; ++j) {
        const int u = r ^ (1 << pa::rotated_dimension(j, s, layout.d));
        const std::size_t out = layout.items(j, pa::rotate_right(r, j, layout.d) & ~((1 << s) - 1), s);
        if (out > 0) clocks.message(r, u, out);
      }
    }
    clocks.end_step();
  }
  return clocks.finish();
}

bool applicable_allgather_allport_doubling(const CostQuery& q) { return allport::applies(q); }

void run_allgather_allport_doubling(const Call& call) {
  allgather_allport_doubling(*call.comm, call.recv, call.item_size, prepare_allgather(call),
                             call.tag);
}
Picos cost_allgather_allport_doubling(const CostQuery& q) {
  return allgather_allport_doubling_cost(q, counts_of(q));
}

Algorithm allgather_allport_doubling_row() {
  return {
      .name = "allport_doubling",
      .description = "recursive doubling of d windows of every block over rotated dimensions, one "
                     "per link at once (000 §7 on 001's hypercube algorithm): d alpha + (p-1) "
                     "ceil(m/d) beta under --port all",
      .requirements = "p a power of two",
      .applicable = applicable_allgather_allport_doubling,
      .cost = cost_allgather_allport_doubling,
      .run = run_allgather_allport_doubling,
      .claim = allport::claim,
  };
}

}  // namespace vmc::internal
