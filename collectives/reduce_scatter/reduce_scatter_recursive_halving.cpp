// reduce_scatter recursive_halving: 000 §3 (Version 3, its first half: recursive halving of
// the vector, each node keeping the half it will own) and 004 "distributed reduction".
// In step k (distance 2^k = 1, 2, 4, ...) each node sends its partner the partial sums of
// the blocks the partner's half owns and combines what it receives into the blocks of its
// own half; after log2(p) steps it holds its own block, complete. Distances grow, so every
// group is a range of consecutive ranks and the lower one's partial is always the left
// operand: x0 op x1 op ... op x(p-1), valid for non-commutative ops.
//
// Any p: with p' = 2^floor(log2 p) and e = p - p', rank 2i (i < e) first sends its whole
// buffer to rank 2i+1, which combines it (x_2i op x_2i+1) and stands for both, and gets its
// own block back at the end (001 "non-power-of-two" fix).
//
// Requires: nothing. Cost with N = total items, p = 2^d, equal blocks:
//   d alpha + (p-1)/p N (beta + gamma)
// non-powers of two add alpha + N (beta + gamma) before and alpha + N/p beta after. The
// cost function replays the steps (PortClocks): exact on exchange and duplex for p a power
// of two and equal blocks. Otherwise an estimate (a lower bound in the cases measured):
// the folded ranks start late, and an eager message of a later step from a rank that is
// ahead can take the port of a rank still waiting for its late partner (e.g. p = 5, n = 1
// under exchange: measured 5.0145 us against 4.014 us predicted with alpha = 1 us).
#include "collectives/costs/claims.hpp"
#include "collectives/costs/port_clocks.hpp"
#include "collectives/patterns/binomial.hpp"
#include "collectives/primitives/p2p.hpp"
#include "collectives/reduce_scatter/reduce_scatter_internal.hpp"

namespace vmc::internal {

namespace {
struct Halving {
  int p, pp, extra;
  explicit Halving(int p_) : p(p_), pp(patterns::floor_pow2(p_)), extra(p_ - pp) {}
  int first_block(int w) const { return w >= pp ? p : (w < extra ? 2 * w : w + extra); }
  int real(int v) const { return v < extra ? 2 * v + 1 : v + extra; }
  int virt(int r) const { return r < 2 * extra ? (r % 2 ? r / 2 : -1) : r - extra; }
  // Real blocks of the virtual blocks w with w = t (mod modulus).
  std::vector<int> blocks_of(int t, int modulus) const {
    std::vector<int> list;
    for (int w = t % modulus; w < pp; w += modulus) {
      for (int b = first_block(w); b < first_block(w + 1); ++b) list.push_back(b);
    }
    return list;
  }
};

std::size_t total_of(const Blocks& blocks, const std::vector<int>& list) {
  std::size_t n = 0;
  for (int b : list) n += blocks.counts[b];
  return n;
}
}  // namespace

void reduce_scatter_recursive_halving(const Comm& comm, void* buf, std::size_t item_size,
                                      const Blocks& blocks, const Op& op, Tag tag) {
  const int p = comm.size(), r = comm.rank();
  if (p == 1) return;
  const Halving h(p);
  const int v = h.virt(r);
  Bytes tmp(blocks.total() * item_size);
  // Combines packed `in` into the listed blocks of buf; lower_first: in is the left operand.
  auto combine = [&](const std::vector<int>& list, bool in_is_left) {
    std::size_t pos = 0;
    for (int b : list) {
      char* mine = at(buf, blocks.displs[b], item_size);
      const char* theirs = at(tmp.data(), pos, item_size);
      if (in_is_left) op.apply(theirs, mine, mine, blocks.counts[b]);
      else op.apply(mine, theirs, mine, blocks.counts[b]);
      pos += blocks.counts[b];
    }
    if (pos > 0) comm.charge_combine(pos);
  };
  if (r < 2 * h.extra) {  // fold
    if (v < 0) {
      const std::size_t n = pack_blocks(buf, item_size, blocks, 0, p, tmp.data());
      send_items(comm, tmp.data(), n, item_size, r + 1, tag);
    } else {
      std::vector<int> all(p);
      for (int b = 0; b < p; ++b) all[b] = b;
      recv_items(comm, tmp.data(), blocks.total(), item_size, r - 1, tag);
      combine(all, true);
    }
  }
  if (v >= 0) {
    Bytes out(tmp.size());
    for (int mask = 1; mask < h.pp; mask <<= 1) {
      const int u = v ^ mask;
      const auto give = h.blocks_of(u, 2 * mask), keep = h.blocks_of(v, 2 * mask);
      std::size_t nout = 0;
      for (int b : give) {
        copy_items(at(out.data(), nout, item_size), at(buf, blocks.displs[b], item_size),
                   blocks.counts[b], item_size);
        nout += blocks.counts[b];
      }
      sendrecv_items(comm, out.data(), nout, h.real(u), tmp.data(), total_of(blocks, keep),
                     h.real(u), item_size, tag + 1);
      combine(keep, u < v);
    }
  }
  if (r < 2 * h.extra) {  // unfold: the even rank's block back to it
    if (v >= 0) {
      send_items(comm, at(buf, blocks.displs[r - 1], item_size), blocks.counts[r - 1], item_size,
                 r - 1, tag + 2);
    } else {
      recv_items(comm, at(buf, blocks.displs[r], item_size), blocks.counts[r], item_size, r + 1,
                 tag + 2);
    }
  }
}

Picos reduce_scatter_recursive_halving_cost(const CostQuery& q,
                                            std::span<const std::size_t> counts) {
  const int p = q.p;
  if (p == 1) return 0;
  const Halving h(p);
  const Blocks blocks = Blocks::contiguous(counts);
  const std::size_t total = blocks.total();
  PortClocks clocks(q, p);
  for (int i = 0; i < h.extra; ++i) {
    clocks.transfer(2 * i, 2 * i + 1, total);
    clocks.combine(2 * i + 1, total);
  }
  for (int mask = 1; mask < h.pp; mask <<= 1) {
    for (int v = 0; v < h.pp; ++v) {
      const int u = v ^ mask;
      if (u < v) continue;
      const std::size_t vu = total_of(blocks, h.blocks_of(u, 2 * mask));
      const std::size_t uv = total_of(blocks, h.blocks_of(v, 2 * mask));
      clocks.exchange(h.real(v), h.real(u), vu, uv, uv, vu);
    }
  }
  for (int i = 0; i < h.extra; ++i) clocks.transfer(2 * i + 1, 2 * i, counts[2 * i]);
  return clocks.finish();
}

void run_reduce_scatter_recursive_halving(const Call& call) {
  run_reduce_scatter(call, reduce_scatter_recursive_halving);
}
Picos cost_reduce_scatter_recursive_halving(const CostQuery& q) {
  return reduce_scatter_recursive_halving_cost(q, counts_of(q));
}

namespace {
Claim claim_recursive_halving(const CostQuery& q) {
  using namespace internal;
  if (!equal_counts(q)) return Claim::estimate;
  const bool exact = q.p == 1 || (is_power_of_two(q.p) && q.model.port != Port::half);
  return on_machine(q, exact ? Claim::exact : Claim::lower_bound, true);
}
}  // namespace

Algorithm reduce_scatter_recursive_halving_row() {
  return {
      .name = "recursive_halving",
      .description = "recursive halving at distances 1, 2, 4, ... in rank order (000 §3, 004); "
                     "non-powers of two fold the extra ranks in and out",
      .requirements = "nothing",
      .applicable = applies_always,
      .cost = cost_reduce_scatter_recursive_halving,
      .run = run_reduce_scatter_recursive_halving,
      .claim = claim_recursive_halving,
  };
}

}  // namespace vmc::internal
