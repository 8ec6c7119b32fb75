// allgather bruck: a dissemination allgather that needs ceil(log2 p) steps for every p.
// Rank r keeps the blocks it holds rotated so that its own block comes first; in step k
// (distance 2^k) it sends its first min(2^k, p - 2^k) blocks to rank r - 2^k and appends
// those of rank r + 2^k; a final local rotation puts the blocks in place. The pattern is
// the dissemination of 001 "All-to-all broadcast" (hypercube algorithm) generalised to
// any p by shifting instead of exchanging.
//
// Requires: nothing. Cost with equal blocks of m items: under duplex and all
//   ceil(log2 p) alpha + (p-1) m beta                                       (exact)
// (uneven blocks: the cost function replays the steps, exact under duplex and all).
// Under exchange and half each step that is not a pairwise exchange is charged two rounds
// (an estimate: ranks r - 2^k and r + 2^k are different partners).
#include "collectives/allgather/allgather_internal.hpp"
#include "collectives/costs/claims.hpp"
#include "collectives/costs/port_clocks.hpp"
#include "collectives/primitives/p2p.hpp"

namespace vmc::internal {

void allgather_bruck(const Comm& comm, void* buf, std::size_t item_size, const Blocks& blocks,
                     Tag tag) {
  const int p = comm.size(), r = comm.rank();
  if (p == 1) return;
  Bytes tmp(blocks.total() * item_size);
  copy_items(tmp.data(), at(buf, blocks.displs[r], item_size), blocks.counts[r], item_size);
  std::size_t held = blocks.counts[r];  // items of blocks r .. r+dist-1
  for (int dist = 1; dist < p; dist <<= 1) {
    const int cnt = std::min(dist, p - dist);
    const std::size_t nout = blocks.range_total(r, cnt);
    const std::size_t nin = blocks.range_total((r + dist) % p, cnt);
    sendrecv_items(comm, tmp.data(), nout, (r - dist + p) % p, at(tmp.data(), held, item_size),
                   nin, (r + dist) % p, item_size, tag);
    held += nin;
  }
  unpack_blocks(tmp.data(), item_size, blocks, r, p, buf);
}

Picos allgather_bruck_cost(const CostQuery& q, std::span<const std::size_t> counts) {
  const int p = q.p;
  const Blocks blocks = Blocks::contiguous(counts);
  PortClocks clocks(q, p);
  std::vector<int> dest(p);
  std::vector<std::size_t> items(p);
  for (int dist = 1; dist < p; dist <<= 1) {
    const int cnt = std::min(dist, p - dist);
    for (int r = 0; r < p; ++r) {
      dest[r] = (r - dist + p) % p;
      items[r] = blocks.range_total(r, cnt);
    }
    clocks.permutation_step(dest, items);
  }
  return clocks.finish();
}

void run_allgather_bruck(const Call& call) {
  allgather_bruck(*call.comm, call.recv, call.item_size, prepare_allgather(call), call.tag);
}
Picos cost_allgather_bruck(const CostQuery& q) { return allgather_bruck_cost(q, counts_of(q)); }

namespace {
Claim claim_bruck(const CostQuery& q) {
  using namespace internal;
  if (two_sided_ports(q)) return on_machine(q, Claim::exact, false);  // any counts
  if (!equal_counts(q)) return Claim::estimate;
  const bool exact = q.model.port == Port::exchange && is_power_of_two(q.p);
  return on_machine(q, exact || q.p == 1 ? Claim::exact : Claim::lower_bound, false);
}
}  // namespace

Algorithm allgather_bruck_row() {
  return {
      .name = "bruck",
      .description = "Bruck dissemination: ceil(log p) shifted steps for any p",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_allgather_bruck,
      .run = run_allgather_bruck,
      .claim = claim_bruck,
  };
}

}  // namespace vmc::internal
