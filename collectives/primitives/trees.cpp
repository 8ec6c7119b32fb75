// Building blocks of the tree- and hypercube-structured combine algorithms; see trees.hpp.
#include "collectives/primitives/trees.hpp"

#include <algorithm>

#include "collectives/patterns/binomial.hpp"
#include "collectives/primitives/blocks.hpp"

namespace vmc::internal::trees {

Fold::Fold(int p_) : p(p_), p2(patterns::floor_pow2(p_)), base(2 * p2 - p_) {}

int Fold::log2() const { return patterns::ceil_log2(p2); }

Picos exchange(const CostQuery& q, std::size_t out, std::size_t in) {
  if (q.model.port == Port::half) return msg(q, out) + msg(q, in);
  return std::max(msg(q, out), msg(q, in));
}

bool ring_exact(const CostQuery& q) {
  return q.model.port == Port::duplex || q.model.port == Port::all;
}

Picos ring_step(const CostQuery& q, std::size_t out, std::size_t in) {
  if (q.p == 2) return exchange(q, out, in);  // both neighbours are one partner
  if (ring_exact(q)) return std::max(msg(q, out), msg(q, in));
  return msg(q, out) + msg(q, in);
}

void combine(const Comm& c, const Op& op, const void* a, const void* b, void* out,
             std::size_t n) {
  op.apply(a, b, out, n);
  c.charge_combine(n);
}

// --- binomial broadcast ---------------------------------------------------------------------
void bcast_binomial(const Comm& c, void* buf, std::size_t n, std::size_t isz, const Rooted& vr,
                    Tag tag) {
  const int v = vr.to_virtual(c.rank());
  if (v != 0) recv_message(c, buf, n, isz, vr.to_real(patterns::binomial_parent(v)), tag);
  for (int child : patterns::binomial_children(v, vr.p)) {
    send_message(c, buf, n, isz, vr.to_real(child), tag);
  }
}

Picos bcast_binomial_cost(const CostQuery& q, int p, std::size_t n) {
  return patterns::ceil_log2(p) * msg(q, n);
}

// --- fold -----------------------------------------------------------------------------------
void fold_in(const Comm& c, void* acc, void* tmp, std::size_t n, std::size_t isz, const Op* op,
             const Rooted& vr, const Fold& f, Tag tag) {
  const int v = vr.to_virtual(c.rank());
  if (!f.folded() || !f.in_pair(v)) return;
  const int partner = vr.to_real(f.pair_partner(v));
  if (f.extra(v)) {
    send_message(c, acc, n, isz, partner, tag);
  } else {
    recv_message(c, tmp, n, isz, partner, tag);
    if (op != nullptr) combine(c, *op, acc, tmp, acc, n);  // the extra is the higher rank
  }
}

void fold_out(const Comm& c, void* buf, std::size_t n, std::size_t isz, const Rooted& vr,
              const Fold& f, Tag tag) {
  const int v = vr.to_virtual(c.rank());
  if (!f.folded() || !f.in_pair(v)) return;
  const int partner = vr.to_real(f.pair_partner(v));
  if (f.extra(v)) {
    recv_message(c, buf, n, isz, partner, tag);
  } else {
    send_message(c, buf, n, isz, partner, tag);
  }
}

// --- trees and hypercube exchanges over the survivors ------------------------------------------
void reduce_pow2(const Comm& c, void* acc, void* tmp, std::size_t n, std::size_t isz,
                 const Op* op, const Rooted& vr, const Fold& f, Tag tag) {
  const int j = f.survivor_rank(vr.to_virtual(c.rank()));
  for (int k = 1; k < f.p2; k <<= 1) {
    if ((j & k) != 0) {  // my subtree is complete: hand it to the parent and stop
      send_message(c, acc, n, isz, vr.to_real(f.virtual_of(j - k)), tag);
      return;
    }
    recv_message(c, tmp, n, isz, vr.to_real(f.virtual_of(j + k)), tag);
    if (op != nullptr) combine(c, *op, acc, tmp, acc, n);  // child covers higher ranks
  }
}

void allreduce_doubling_pow2(const Comm& c, void* acc, void* tmp, std::size_t n,
                             std::size_t isz, const Op& op, const Rooted& vr, const Fold& f,
                             Tag tag) {
  const int j = f.survivor_rank(vr.to_virtual(c.rank()));
  for (int k = 1; k < f.p2; k <<= 1) {
    const int u = j ^ k;
    const int peer = vr.to_real(f.virtual_of(u));
    sendrecv_message(c, acc, n, peer, tmp, n, peer, isz, tag);
    if (u > j) combine(c, op, acc, tmp, acc, n);
    else combine(c, op, tmp, acc, acc, n);
  }
}

std::vector<std::pair<int, int>> halving_segments(int j, int p2) {
  std::vector<std::pair<int, int>> segs{{0, p2}};
  int lo = 0, len = p2;
  for (int k = 1; k < p2; k <<= 1) {
    len /= 2;
    if ((j & k) != 0) lo += len;
    segs.emplace_back(lo, len);
  }
  return segs;
}

void reduce_scatter_halving(const Comm& c, void* buf, void* tmp, std::size_t blk,
                            std::size_t isz, const Op& op, const Rooted& vr, const Fold& f,
                            Tag tag, const void* source) {
  const int j = f.survivor_rank(vr.to_virtual(c.rank()));
  const auto segs = halving_segments(j, f.p2);
  for (std::size_t i = 0; i + 1 < segs.size(); ++i) {
    const int u = j ^ (1 << i);
    const int peer = vr.to_real(f.virtual_of(u));
    const auto [lo, len] = segs[i];
    const auto [keep, half] = segs[i + 1];
    const int give = keep == lo ? lo + half : lo;
    const std::size_t items = static_cast<std::size_t>(half) * blk;
    const void* from = i == 0 && source != nullptr ? source : buf;
    char* kept = at(buf, keep * blk, isz);
    const char* mine = at(from, keep * blk, isz);
    sendrecv_message(c, at(from, give * blk, isz), items, peer, tmp, items, peer, isz, tag);
    if (u > j) combine(c, op, mine, tmp, kept, items);
    else combine(c, op, tmp, mine, kept, items);
  }
}

void allgather_mirror(const Comm& c, void* buf, std::size_t blk, std::size_t isz,
                      const Rooted& vr, const Fold& f, Tag tag) {
  const int j = f.survivor_rank(vr.to_virtual(c.rank()));
  const auto segs = halving_segments(j, f.p2);
  for (int i = static_cast<int>(segs.size()) - 2; i >= 0; --i) {
    const int peer = vr.to_real(f.virtual_of(j ^ (1 << i)));
    const auto [plo, plen] = segs[i];
    const auto [lo, len] = segs[i + 1];
    const int sib = lo == plo ? plo + len : plo;
    const std::size_t items = static_cast<std::size_t>(len) * blk;
    sendrecv_message(c, at(buf, lo * blk, isz), items, peer, at(buf, sib * blk, isz), items,
                     peer, isz, tag);
  }
}

void gather_mirror(const Comm& c, void* buf, std::size_t blk, std::size_t isz, int jr,
                   const Rooted& vr, const Fold& f, Tag tag) {
  const int j = f.survivor_rank(vr.to_virtual(c.rank()));
  const auto segs = halving_segments(j, f.p2);
  for (int i = static_cast<int>(segs.size()) - 2; i >= 0; --i) {
    const int peer = vr.to_real(f.virtual_of(j ^ (1 << i)));
    const auto [plo, plen] = segs[i];
    const auto [lo, len] = segs[i + 1];
    const std::size_t items = static_cast<std::size_t>(len) * blk;
    if (((j ^ jr) & (1 << i)) != 0) {  // not on the root's side: hand over and stop
      send_message(c, at(buf, lo * blk, isz), items, isz, peer, tag);
      return;
    }
    const int sib = lo == plo ? plo + len : plo;
    recv_message(c, at(buf, sib * blk, isz), items, isz, peer, tag);
  }
}

Picos halving_cost(const CostQuery& q, int p2, std::size_t blk) {
  Picos t = 0;
  for (int k = 2; k <= p2; k <<= 1) {
    const std::size_t h = static_cast<std::size_t>(p2 / k) * blk;
    t += exchange(q, h, h) + comb(q, h);
  }
  return t;
}

Picos mirror_allgather_cost(const CostQuery& q, int p2, std::size_t blk) {
  Picos t = 0;
  for (int k = 2; k <= p2; k <<= 1) {
    const std::size_t h = static_cast<std::size_t>(p2 / k) * blk;
    t += exchange(q, h, h);
  }
  return t;
}

Picos mirror_gather_cost(const CostQuery& q, int p2, std::size_t blk) {
  Picos t = 0;
  for (int k = 2; k <= p2; k <<= 1) t += msg(q, static_cast<std::size_t>(p2 / k) * blk);
  return t;
}

// --- scatter and doubling -------------------------------------------------------------------
void scatter_binomial(const Comm& c, void* buf, std::size_t blk, std::size_t isz,
                      const Rooted& vr, Tag tag) {
  const int p = vr.p;
  const int v = vr.to_virtual(c.rank());
  if (v != 0) {
    const std::size_t items = patterns::binomial_subtree_size(v, p) * blk;
    recv_message(c, at(buf, v * blk, isz), items, isz,
                 vr.to_real(patterns::binomial_parent(v)), tag);
  }
  for (int child : patterns::binomial_children(v, p)) {
    const std::size_t items = patterns::binomial_subtree_size(child, p) * blk;
    send_message(c, at(buf, child * blk, isz), items, isz, vr.to_real(child), tag);
  }
}

std::vector<Picos> scatter_binomial_finish(const CostQuery& q, int p, std::size_t blk) {
  std::vector<Picos> recv_end(p, 0), finish(p, 0);
  for (int v = 0; v < p; ++v) {  // parents precede their children
    Picos t = recv_end[v];
    for (int child : patterns::binomial_children(v, p)) {
      t += msg(q, patterns::binomial_subtree_size(child, p) * blk);
      recv_end[child] = t;
    }
    finish[v] = t;
  }
  return finish;
}

void allgather_doubling(const Comm& c, void* buf, std::size_t blk, std::size_t isz,
                        const Rooted& vr, Tag tag) {
  const int v = vr.to_virtual(c.rank());
  for (int k = 1; k < vr.p; k <<= 1) {
    const int u = v ^ k;
    const std::size_t items = static_cast<std::size_t>(k) * blk;
    sendrecv_message(c, at(buf, (v & ~(k - 1)) * blk, isz), items, vr.to_real(u),
             at(buf, (u & ~(k - 1)) * blk, isz), items, vr.to_real(u), isz, tag);
  }
}

bool prefix_pow2(const Comm& c, const void* y, void* excl, void* msg, void* tmp, std::size_t n,
                 std::size_t isz, const Op& op, const Rooted& vr, const Fold& f, Tag tag) {
  const int j = f.survivor_rank(vr.to_virtual(c.rank()));
  copy_data(msg, y, n * isz);
  bool have = false;
  for (int k = 1; k < f.p2; k <<= 1) {
    const int u = j ^ k;
    const int peer = vr.to_real(f.virtual_of(u));
    sendrecv_message(c, msg, n, peer, tmp, n, peer, isz, tag);
    if (u < j) {
      if (have) combine(c, op, tmp, excl, excl, n);
      else copy_data(excl, tmp, n * isz);
      have = true;
      combine(c, op, tmp, msg, msg, n);
    } else {
      combine(c, op, msg, tmp, msg, n);
    }
  }
  return have;
}

}  // namespace vmc::internal::trees
