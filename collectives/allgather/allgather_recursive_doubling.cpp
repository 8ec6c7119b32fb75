// allgather recursive_doubling: 001 "All-to-all broadcast", hypercube algorithm: in step
// k = 0 .. log2(p')-1 each node exchanges everything it holds with the partner across
// dimension k, so the data held doubles each step (001: t_s log p + t_w (p-1) m).
//
// Any p (folding, as 001 "non-power-of-two" suggests for the hypercube algorithms): with
// p' = 2^floor(log2 p) and e = p - p', rank 2i (i < e) first sends its block to rank 2i+1
// and gets the whole result back at the end; ranks 2i+1 (i < e) and ranks >= 2e act as
// the p' virtual ranks. A group of consecutive virtual ranks holds a consecutive range of
// real blocks, so every message is one range.
//
// Requires: nothing. Cost with equal blocks of m items and d = log2 p':
//   p = p':  d alpha + (p-1) m beta                                      (001 table)
//   else:    (alpha + m beta) + sum_k (alpha + S_k beta) + (alpha + (p-1) m beta)
//            where S_k is the largest range exchanged in step k (fold and unfold steps).
// The cost function replays the steps with PortClocks (costs/port_clocks.hpp): exact
// on exchange and duplex for equal blocks; for uneven blocks an estimate.
#include "collectives/allgather/allgather_internal.hpp"
#include "collectives/costs/claims.hpp"
#include "collectives/costs/port_clocks.hpp"
#include "collectives/patterns/binomial.hpp"
#include "collectives/primitives/p2p.hpp"

namespace vmc::internal {

namespace {
struct Fold {
  int p, pp, extra;
  explicit Fold(int p_) : p(p_), pp(patterns::floor_pow2(p_)), extra(p_ - pp) {}
  int first_block(int v) const { return v < extra ? 2 * v : v + extra; }  // of virtual v
  int real(int v) const { return v < extra ? 2 * v + 1 : v + extra; }
  int virt(int r) const { return r < 2 * extra ? (r % 2 ? r / 2 : -1) : r - extra; }
  // Real blocks [first, first + len) held by the virtual group of `mask` ranks around v.
  std::pair<int, int> range(int v, int mask) const {
    const int g = v & ~(mask - 1);
    const int a = first_block(g);
    const int b = g + mask < pp ? first_block(g + mask) : p;
    return {a, b - a};
  }
};
}  // namespace

void allgather_recursive_doubling(const Comm& comm, void* buf, std::size_t item_size,
                                  const Blocks& blocks, Tag tag) {
  const int p = comm.size(), r = comm.rank();
  if (p == 1) return;
  const Fold f(p);
  const int v = f.virt(r);
  if (r < 2 * f.extra) {  // fold: the even rank hands its block to its odd neighbour
    if (v < 0) send_items(comm, at(buf, blocks.displs[r], item_size), blocks.counts[r],
                          item_size, r + 1, tag);
    else recv_items(comm, at(buf, blocks.displs[r - 1], item_size), blocks.counts[r - 1],
                    item_size, r - 1, tag);
  }
  if (v >= 0) {
    Bytes out(blocks.total() * item_size), in(out.size());
    for (int mask = 1; mask < f.pp; mask <<= 1) {
      const int u = v ^ mask;
      auto [ma, ml] = f.range(v, mask);
      auto [ua, ul] = f.range(u, mask);
      const std::size_t nout = pack_blocks(buf, item_size, blocks, ma, ml, out.data());
      const std::size_t nin = blocks.range_total(ua, ul);
      sendrecv_items(comm, out.data(), nout, f.real(u), in.data(), nin, f.real(u), item_size,
                     tag + 1);
      unpack_blocks(in.data(), item_size, blocks, ua, ul, buf);
    }
  }
  if (r < 2 * f.extra) {  // unfold: everything but its own block back to the even rank
    const int even = r - r % 2;
    Bytes tmp(blocks.total() * item_size);
    if (v >= 0) {
      std::size_t n = pack_blocks(buf, item_size, blocks, 0, even, tmp.data());
      n += pack_blocks(buf, item_size, blocks, even + 1, p - even - 1,
                       at(tmp.data(), n, item_size));
      send_items(comm, tmp.data(), n, item_size, even, tag + 2);
    } else {
      const std::size_t n = blocks.total() - blocks.counts[r];
      recv_items(comm, tmp.data(), n, item_size, r + 1, tag + 2);
      const std::size_t k = unpack_blocks(tmp.data(), item_size, blocks, 0, r, buf);
      unpack_blocks(at(tmp.data(), k, item_size), item_size, blocks, r + 1, p - r - 1, buf);
    }
  }
}

Picos allgather_recursive_doubling_cost(const CostQuery& q, std::span<const std::size_t> counts) {
  const int p = q.p;
  if (p == 1) return 0;
  const Fold f(p);
  const Blocks blocks = Blocks::contiguous(counts);
  PortClocks clocks(q, p);
  for (int i = 0; i < f.extra; ++i) clocks.transfer(2 * i, 2 * i + 1, counts[2 * i]);
  for (int mask = 1; mask < f.pp; mask <<= 1) {
    for (int v = 0; v < f.pp; ++v) {
      const int u = v ^ mask;
      if (u < v) continue;
      auto [va, vl] = f.range(v, mask);
      auto [ua, ul] = f.range(u, mask);
      clocks.exchange(f.real(v), f.real(u), blocks.range_total(va, vl),
                      blocks.range_total(ua, ul));
    }
  }
  const std::size_t total = blocks.total();
  for (int i = 0; i < f.extra; ++i) clocks.transfer(2 * i + 1, 2 * i, total - counts[2 * i]);
  return clocks.finish();
}

void run_allgather_recursive_doubling(const Call& call) {
  allgather_recursive_doubling(*call.comm, call.recv, call.item_size, prepare_allgather(call),
                               call.tag);
}
Picos cost_allgather_recursive_doubling(const CostQuery& q) {
  return allgather_recursive_doubling_cost(q, counts_of(q));
}

namespace {
Claim claim_recursive_doubling(const CostQuery& q) {
  using namespace internal;
  if (!equal_counts(q)) return Claim::estimate;
  return on_machine(q, q.model.port == Port::half ? Claim::lower_bound : Claim::exact, true);
}
}  // namespace

Algorithm allgather_recursive_doubling_row() {
  return {
      .name = "recursive_doubling",
      .description = "recursive doubling: log p exchanges of doubling ranges (001 hypercube); "
                     "non-powers of two fold the extra ranks in and out",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_allgather_recursive_doubling,
      .run = run_allgather_recursive_doubling,
      .claim = claim_recursive_doubling,
  };
}

}  // namespace vmc::internal
