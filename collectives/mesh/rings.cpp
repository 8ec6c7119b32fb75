// The ring primitives of 004 on byte buffers (mesh_rings.hpp).
#include "collectives/mesh/rings.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

#include "collectives/mesh/families.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/primitives/p2p.hpp"
#include "collectives/primitives/trees.hpp"

namespace vmc::internal {

using patterns::Alternation;
using patterns::RingPlan;
using patterns::RingStep;

namespace {

// Layout blocks [first, first + len) sit back to back in the buffer.
bool contiguous(const Blocks& b, int first, int len) {
  for (int x = first; x + 1 < first + len; ++x) {
    if (b.displs[x] + b.counts[x] != b.displs[x + 1]) return false;
  }
  return true;
}

// The items of a range of blocks as one message: in place, or packed into `stage`.
const char* outgoing(const Comm& comm, const void* buf, std::size_t isz, const Blocks& b,
                     int first, int len, Bytes& stage) {
  if (contiguous(b, first, len)) return at(buf, b.displs[first], isz);
  const std::size_t items = b.range_total(first, len);
  stage.resize(items * isz);
  pack_blocks(buf, isz, b, first, len, stage.data());
  comm.charge_rearrange(items);
  return stage.data();
}

void collect_step(const Comm& comm, void* buf, std::size_t isz, const Blocks& b,
                  const RingStep& s, Tag tag, Bytes& out, Bytes& in) {
  const std::size_t nout = b.range_total(s.send_first, s.blocks);
  const std::size_t nin = b.range_total(s.recv_first, s.blocks);
  const char* src = outgoing(comm, buf, isz, b, s.send_first, s.blocks, out);
  const bool direct = contiguous(b, s.recv_first, s.blocks);
  if (!direct) in.resize(nin * isz);
  char* dst = direct ? at(buf, b.displs[s.recv_first], isz) : in.data();
  sendrecv_items(comm, src, nout, s.right, dst, nin, s.left, isz, tag);
  if (!direct) {
    unpack_blocks(in.data(), isz, b, s.recv_first, s.blocks, buf);
    comm.charge_rearrange(nin);
  }
}

void reduce_step(const Comm& comm, void* buf, std::size_t isz, const Blocks& b,
                 const RingStep& s, const Op& op, Tag tag, Bytes& out,
                 Bytes& in) {
  const std::size_t nout = b.range_total(s.send_first, s.blocks);
  const std::size_t nin = b.range_total(s.recv_first, s.blocks);
  const char* src = outgoing(comm, buf, isz, b, s.send_first, s.blocks, out);
  in.resize(nin * isz);
  sendrecv_items(comm, src, nout, s.right, in.data(), nin, s.left, isz, tag);
  std::size_t pos = 0;
  for (int x = s.recv_first; x < s.recv_first + s.blocks; ++x) {
    char* mine = at(buf, b.displs[x], isz);
    if (b.counts[x] > 0) op.apply(at(in.data(), pos, isz), mine, mine, b.counts[x]);
    pos += b.counts[x];
  }
  if (nin > 0) comm.charge_combine(nin);
}

// The largest chunk of phase t: chunk(t) consecutive layout blocks, aligned.
std::size_t largest_chunk(const RingPlan& plan, std::span<const std::size_t> counts, int t) {
  const std::size_t c = plan.chunk(t);
  std::size_t most = 0;
  for (std::size_t first = 0; first < counts.size(); first += c) {
    std::size_t s = 0;
    for (std::size_t x = first; x < first + c && x < counts.size(); ++x) s += counts[x];
    most = std::max(most, s);
  }
  return most;
}

int sharers_of(std::span<const int> sharers, int t) {
  return sharers.empty() ? 1 : sharers[t];
}

Picos message_with(const CostQuery& q, std::size_t items, int sharers) {
  if (items == 0) return 0;
  return checked_add(q.units.startup(items),
                     checked_mul(q.units.item_time(sharers), items, "transfer time n beta"),
                     "message time");
}

}  // namespace

void ring_collect(const Comm& comm, const RingPlan& plan, void* buf, std::size_t item_size,
                  const Blocks& blocks, Tag tag) {
  Bytes out, in;
  for (int t = 0; t < plan.phases(); ++t) {
    for (int k = 0; k + 1 < plan.digits[t].radix; ++k) {
      collect_step(comm, buf, item_size, blocks, patterns::collect_step(plan, comm.rank(), t, k),
                   tag, out, in);
    }
  }
}

void ring_reduce_scatter(const Comm& comm, const RingPlan& plan, void* buf,
                         std::size_t item_size, const Blocks& blocks, const Op& op, Tag tag) {
  Bytes out, in;
  for (int t = plan.phases() - 1; t >= 0; --t) {
    for (int k = 0; k + 1 < plan.digits[t].radix; ++k) {
      reduce_step(comm, buf, item_size, blocks, patterns::reduce_step(plan, comm.rank(), t, k),
                  op, tag, out, in);
    }
  }
}

void ring_alltoall(const Comm& comm, const RingPlan& plan, Alternation a, void* slots,
                   std::size_t n, std::size_t item_size, Tag tag) {
  const int p = plan.blocks(), me = comm.rank();
  const std::size_t block_bytes = n * item_size;
  Bytes buf[2];
  for (int t : patterns::stage_order(plan, me, a)) {
    const int f = plan.digits[t].radix, v = plan.value(me, t);
    // Group u: the slots whose digit t is u, in slot order (p / f slots).
    std::vector<std::vector<int>> group(f);
    for (int y = 0; y < p; ++y) group[plan.value(y, t)].push_back(y);
    const std::size_t g_items = group[0].size() * n, g_bytes = g_items * item_size;
    buf[0].resize((f - 1) * g_bytes);
    buf[1].resize((f - 1) * g_bytes);
    char* packed = buf[0].data();  // own groups for members v+1 .. v+f-1, in that order
    for (int o = 1; o < f; ++o) {
      for (int y : group[(v + o) % f]) {
        copy_items(packed, at(slots, y * n, item_size), n, item_size);
        packed += block_bytes;
      }
    }
    if (g_items > 0) comm.charge_rearrange((f - 1) * g_items);
    int cur = 0;
    std::size_t offset = 0;
    for (int k = 1; k < f; ++k) {
      const patterns::ExchangeStep e = patterns::exchange_step(plan, me, t, k);
      char* recv = buf[1 - cur].data();
      sendrecv_items(comm, buf[cur].data() + offset, e.groups * g_items, e.right, recv,
                     e.groups * g_items, e.left, item_size, tag);
      for (int y : group[e.origin]) {  // the first group is home: slot digit t = origin
        copy_items(at(slots, y * n, item_size), recv, n, item_size);
        recv += block_bytes;
      }
      if (g_items > 0) comm.charge_rearrange(g_items);
      cur = 1 - cur;
      offset = g_bytes;  // the rest travels on
    }
  }
}

void dr_collect(const Comm& comm, const patterns::MeshShape& shape, int lo, int hi, void* buf,
                std::size_t item_size, const Blocks& blocks, Tag tag) {
  ring_collect(comm, patterns::dimensional_rings(shape, lo, hi), buf, item_size, blocks, tag);
}

void dr_reduce_scatter(const Comm& comm, const patterns::MeshShape& shape, int lo, int hi,
                       void* buf, std::size_t item_size, const Blocks& blocks, const Op& op,
                       Tag tag) {
  ring_reduce_scatter(comm, patterns::dimensional_rings(shape, lo, hi), buf, item_size, blocks,
                      op, tag);
}

Picos ring_step_time(const CostQuery& q, int radix, std::size_t out, std::size_t in,
                     int sharers) {
  const Picos a = message_with(q, out, sharers), b = message_with(q, in, sharers);
  const bool one_by_one =
      q.model.port == Port::half || (radix > 2 && q.model.port == Port::exchange);
  return one_by_one ? checked_add(a, b, "ring step") : std::max(a, b);
}

Picos ring_collect_cost(const CostQuery& q, const RingPlan& plan,
                        std::span<const std::size_t> counts, std::span<const int> sharers) {
  Picos cost = 0;
  for (int t = 0; t < plan.phases(); ++t) {
    const std::size_t c = largest_chunk(plan, counts, t);
    const int f = plan.digits[t].radix;
    cost = checked_add(cost, checked_mul(ring_step_time(q, f, c, c, sharers_of(sharers, t)), f - 1));
  }
  return cost;
}

Picos ring_reduce_scatter_cost(const CostQuery& q, const RingPlan& plan,
                               std::span<const std::size_t> counts,
                               std::span<const int> sharers) {
  Picos cost = 0;
  for (int t = 0; t < plan.phases(); ++t) {
    const std::size_t c = largest_chunk(plan, counts, t);
    const int f = plan.digits[t].radix;
    const Picos step = checked_add(ring_step_time(q, f, c, c, sharers_of(sharers, t)),
                                   q.units.combine(c), "ring step");
    cost = checked_add(cost, checked_mul(step, f - 1));
  }
  return cost;
}

Picos ring_alltoall_cost(const CostQuery& q, const RingPlan& plan, std::size_t n,
                         std::span<const int> sharers) {
  Picos cost = 0;
  const std::size_t p = plan.blocks();
  for (int t = 0; t < plan.phases(); ++t) {
    const int f = plan.digits[t].radix;
    const std::size_t g = p / f * n;
    if (g == 0) continue;
    cost = checked_add(cost, q.units.rearrange((f - 1) * g));
    for (int k = 1; k < f; ++k) {
      const std::size_t items = (f - k) * g;
      cost = checked_add(cost, ring_step_time(q, f, items, items, sharers_of(sharers, t)));
      cost = checked_add(cost, q.units.rearrange(g));
    }
  }
  return cost;
}

Picos dr_collect_cost(const CostQuery& q, const patterns::MeshShape& shape, int lo, int hi,
                      std::span<const std::size_t> counts) {
  return ring_collect_cost(q, patterns::dimensional_rings(shape, lo, hi), counts, {});
}

Picos dr_reduce_scatter_cost(const CostQuery& q, const patterns::MeshShape& shape, int lo,
                             int hi, std::span<const std::size_t> counts) {
  return ring_reduce_scatter_cost(q, patterns::dimensional_rings(shape, lo, hi), counts, {});
}

bool PlanSharing::shared() const {
  return std::any_of(sharers.begin(), sharers.end(), [](int c) { return c > 1; });
}

PlanSharing plan_sharing(const CostQuery& q, const RingPlan& plan, Alternation a, int split) {
  PlanSharing out{std::vector<int>(plan.phases(), 1), true, false};
  if (q.model.routing != Routing::wormhole || !whole_machine(q) || q.p <= 1) return out;
  // The loads depend on the topology and the plan alone; selection asks again and again.
  using Key = std::tuple<std::string, std::vector<int>, Alternation, int>;
  static std::mutex mu;
  static std::map<Key, PlanSharing> cache;
  std::vector<int> digits;
  for (const patterns::RingDigit& d : plan.digits) {
    digits.insert(digits.end(), {d.dim, d.radix, d.spacing});
  }
  Key key{q.topology->spec(), digits, a, split};
  {
    std::lock_guard<std::mutex> g(mu);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  const auto links = patterns::stage_links(plan, *q.topology, a, split);
  out.known = true;
  for (int t = 0; t < plan.phases(); ++t) {
    out.sharers[t] = links[t].sharers;
    out.uniform = out.uniform && links[t].uniform;
  }
  std::lock_guard<std::mutex> g(mu);
  cache.emplace(key, out);
  return out;
}

std::vector<int> charged_sharers(const CostQuery& q, const PlanSharing& s) {
  if (q.model.contention != Contention::shared) return {};
  return s.sharers;
}

Claim ring_ideal(const CostQuery& q, const RingPlan& plan) {
  bool pairs = true;
  for (const patterns::RingDigit& d : plan.digits) pairs = pairs && d.radix <= 2;
  return two_sided_ports(q) || pairs ? Claim::exact : Claim::lower_bound;
}

Claim dr_claim(const CostQuery& q) {
  if (!equal_counts(q)) return Claim::estimate;
  return on_own_mesh(q, ring_ideal(q, patterns::dimensional_rings(mesh_shape_of(q))));
}

Claim plan_claim(const CostQuery& q, const RingPlan& plan, Alternation a, int split) {
  if (!equal_counts(q)) return Claim::estimate;
  Claim ideal = ring_ideal(q, plan);
  if (links_private(q)) return on_machine(q, ideal, false);
  const PlanSharing s = plan_sharing(q, plan, a, split);
  if (!s.known) return on_machine(q, ideal, false);
  // A stage's messages move in lockstep when every node sends and receives at once.
  const bool lockstep = ideal == Claim::exact;
  if (q.model.protocol == Protocol::rendezvous && ideal == Claim::exact) {
    ideal = Claim::lower_bound;
  }
  if (!s.shared()) return ideal;
  // The sharing charged (c messages on a link through a whole step) is what a stage's
  // messages meet when they move in lockstep and alike. Where a node's send and receive take
  // turns (exchange and half ports on rings longer than 2) they drift apart, fewer of them
  // overlap than charged, and the formula is above the run: neither exact nor a lower bound.
  if (q.model.contention == Contention::shared) {
    return s.uniform && lockstep ? ideal : Claim::estimate;
  }
  return ideal == Claim::estimate ? Claim::estimate : Claim::lower_bound;
}

void ring_combine(const Comm& comm, const RingPlan& plan, int t, void* acc, std::size_t n,
                  std::size_t item_size, const Op& op, Tag tag) {
  const int f = plan.digits[t].radix;
  if (n == 0 || f == 1) return;
  const std::size_t bytes = n * item_size;
  Bytes ring(f * bytes);
  copy_items(ring.data() + plan.value(comm.rank(), t) * bytes, acc, n, item_size);
  // The ring's collect of whole vectors: a plan of digit t alone, one block per member.
  ring_collect(comm, RingPlan{plan.shape, {plan.digits[t]}}, ring.data(), item_size,
               Blocks::equal(n, f), tag);
  copy_items(acc, ring.data(), n, item_size);
  for (int u = 1; u < f; ++u) {
    trees::combine(comm, op, acc, ring.data() + u * bytes, acc, n);
  }
}

Picos ring_combine_cost(const CostQuery& q, int radix, std::size_t n, int sharers) {
  if (n == 0 || radix == 1) return 0;
  const Picos step = checked_add(ring_step_time(q, radix, n, n, sharers), trees::comb(q, n),
                                 "ring combine step");
  return checked_mul(step, radix - 1, "ring combine");
}

namespace {
// The last `dc` digits of the plan (the distributed reduction's and the collect's rings).
RingPlan tail_plan(const RingPlan& plan, int dc) {
  return RingPlan{plan.shape, {plan.digits.end() - dc, plan.digits.end()}};
}
}  // namespace

void plan_allreduce(const Call& call, const RingPlan& plan, int dc, Alternation a) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  // Nothing rotates: the run without alternation, as plan_allreduce_alternates promises.
  if (!plan_allreduce_alternates(plan, dc, a)) a = Alternation::none;
  const RingPlan tail = tail_plan(plan, dc);
  const int blocks = tail.blocks(), head = plan.phases() - dc;
  const std::size_t blk = ceil_div(call.n, blocks), bytes = blk * call.item_size;
  auto buf = contribution(call, blk * blocks);
  if (c.size() > 1) {
    // Where the tail alternates, block x of the vector goes where this rank's layout holds
    // the block of the rank of tail layout index x; every chunk of the staged tail is then
    // contiguous and arrives in the order it is held.
    const bool reorder = patterns::alternates(tail, a);
    std::vector<int> piece(blocks);
    for (int x = 0; x < blocks; ++x) piece[x] = x;
    int mine = tail.layout_index(c.rank());
    if (reorder) {
      const std::vector<int> owners = layout_owners(tail, c.rank(), a);
      for (int x = 0; x < blocks; ++x) {
        piece[x] = tail.layout_index(owners[x]);
        if (owners[x] == c.rank()) mine = x;
      }
    }
    Bytes work;
    char* w = buf.data();
    if (reorder) {
      work.resize(blocks * bytes);
      for (int x = 0; x < blocks; ++x) {
        copy_items(work.data() + x * bytes, buf.data() + piece[x] * bytes, blk, call.item_size);
      }
      c.charge_rearrange((blocks - 1) * blk);
      w = work.data();
    }
    const RingPlan staged = reorder ? patterns::staged_plan(tail, c.rank(), a) : tail;
    const Blocks layout = Blocks::equal(blk, blocks);
    if (dc > 0) ring_reduce_scatter(c, staged, w, call.item_size, layout, *call.op, call.tag);
    // The rings outside the tail agree on its digits: their members hold the same block.
    const std::vector<int> order = patterns::stage_order(plan, c.rank(), a, head);
    for (int s = 0; s < head; ++s) {
      ring_combine(c, plan, order[s], w + mine * bytes, blk, call.item_size, *call.op,
                   call.tag + 1);
    }
    if (dc > 0) ring_collect(c, staged, w, call.item_size, layout, call.tag + 2);
    if (reorder) {
      for (int x = 0; x < blocks; ++x) {
        copy_items(buf.data() + piece[x] * bytes, work.data() + x * bytes, blk, call.item_size);
      }
      c.charge_rearrange((blocks - 1) * blk);
    }
  }
  deliver(call, buf);
}

bool plan_allreduce_alternates(const RingPlan& plan, int dc, Alternation a) {
  // What plan_allreduce asks: the tail's reorder and staged plan, the head's stage order.
  return patterns::alternates(tail_plan(plan, dc), a) ||
         patterns::alternates(plan, a, plan.phases() - dc);
}

Picos plan_allreduce_cost(const CostQuery& q, const RingPlan& plan, int dc,
                          std::span<const int> sharers, Alternation a) {
  if (q.n == 0 || q.p == 1) return 0;
  const RingPlan tail = tail_plan(plan, dc);
  const std::size_t blk = ceil_div(q.n, tail.blocks());
  const std::vector<std::size_t> counts(tail.blocks(), blk);
  const int head = plan.phases() - dc;
  const std::span<const int> tail_sharers =
      sharers.empty() ? sharers : sharers.subspan(head);
  Picos cost = checked_add(ring_reduce_scatter_cost(q, tail, counts, tail_sharers),
                           ring_collect_cost(q, tail, counts, tail_sharers), "allreduce time");
  for (int t = 0; t < head; ++t) {
    cost = checked_add(cost,
                       ring_combine_cost(q, plan.digits[t].radix, blk,
                                         sharers.empty() ? 1 : sharers[t]),
                       "allreduce time");
  }
  if (patterns::alternates(tail, a)) {
    const Picos move = q.units.rearrange((tail.blocks() - 1) * blk);
    cost = checked_add(cost, checked_add(move, move, "rearrangement"), "allreduce time");
  }
  return cost;
}

RingPlan pfr_plan(const CostQuery& q) { return patterns::prime_factor_rings(mesh_shape_of(q)); }
RingPlan pfr_plan(const Comm& comm) { return patterns::prime_factor_rings(mesh_shape_of(comm)); }

int pfr_dr_members(const CostQuery& q) { return patterns::pfr_dr_merges(mesh_shape_of(q)) + 1; }

std::string pfr_dr_label(const CostQuery& q, int h, Alternation a) {
  const patterns::MeshShape shape = mesh_shape_of(q);
  return patterns::describe_plan(patterns::pfr_dr_rings(shape, h)) +
         end_member_note(h, patterns::pfr_dr_merges(shape),
                         a == Alternation::none ? "mesh_pfr" : "mesh_pfr_alt", "mesh_dr");
}

Claim pfr_dr_claim(const CostQuery& q, int h, Alternation a) {
  return plan_claim(q, patterns::pfr_dr_rings(mesh_shape_of(q), h), a);
}

std::vector<std::size_t> layout_counts(const CostQuery& q, const RingPlan& plan) {
  const std::vector<std::size_t> counts = counts_of(q);
  std::vector<std::size_t> out(plan.blocks());
  for (int x = 0; x < plan.blocks(); ++x) out[x] = counts[plan.rank_at(0, x)];
  return out;
}

std::vector<int> layout_owners(const RingPlan& plan, int rank, Alternation a) {
  if (patterns::alternates(plan, a)) return patterns::staged_owners(plan, rank, a);
  std::vector<int> owners(plan.blocks());
  for (int x = 0; x < plan.blocks(); ++x) owners[x] = plan.rank_at(rank, x);
  return owners;
}

Blocks plan_layout(std::span<const int> owners, const Blocks& by_rank) {
  std::vector<std::size_t> counts(owners.size());
  for (std::size_t x = 0; x < owners.size(); ++x) counts[x] = by_rank.counts[owners[x]];
  return Blocks::contiguous(counts);
}

void move_blocks(std::span<const int> owners, int rank, const Blocks& by_rank, void* ranked,
                 const Blocks& by_layout, void* layout, std::size_t item_size, bool to_layout,
                 WhichBlocks which) {
  for (std::size_t x = 0; x < owners.size(); ++x) {
    const bool own = owners[x] == rank;
    if (which == WhichBlocks::own ? !own : which == WhichBlocks::others && own) continue;
    char* r = at(ranked, by_rank.displs[owners[x]], item_size);
    char* l = at(layout, by_layout.displs[x], item_size);
    copy_items(to_layout ? l : r, to_layout ? r : l, by_layout.counts[x], item_size);
  }
}

Picos plan_rearrange_cost(const CostQuery& q, const RingPlan& plan,
                          std::span<const std::size_t> counts) {
  if (plan.identity_layout() || counts.empty()) return 0;
  std::size_t total = 0, least = counts[0];
  for (std::size_t c : counts) total += c, least = std::min(least, c);
  return q.units.rearrange(total - least);
}

}  // namespace vmc::internal
