// Nonblocking and persistent collectives: the schedule engine (mpi/nbc.hpp), the schedules of
// every operation, and MPI's I and _init calls.
//
// A call checks its arguments as the blocking call does (mpi/collectives.cpp's checks),
// compares its signature with the other members' (Comm::begin_collective, which also gives
// it a tag space of its own: calls started in the same order on every rank, as the standard
// requires, get the same space, so several outstanding at once on one communicator never take
// each other's messages), then builds its schedule and runs its first steps. A persistent
// request keeps the call's arguments and does the last two at every MPI_Start.
//
// Data: every buffer is moved in packed form (typemap.hpp): the program's own memory when its
// datatype lies in memory as it packs, else a copy the schedule owns, packed when the call
// starts (charged delta per element, as the blocking calls) and unpacked into the program's
// buffer when the schedule ends (charged alike). Items are the units the blocking calls move
// (a derived type of one basic type as that type, a user op's datatype as whole items).
//
// The schedules, each logarithmic where a simple one is (p the communicator's size, n the
// bytes of a block or of the vector):
// - Ibarrier: dissemination, ceil(lg p) steps of one message each way: ceil(lg p) alpha.
// - Ibcast: binomial tree from the root, vmc's broadcast `binomial` (003 Alg. 4.1/4.2):
//   ceil(lg p) (alpha + n beta).
// - Ireduce, Iallreduce, Ireduce_scatter(_block): a binomial reduction to rank 0 over real
//   ranks, each rank combining its lower half with the upper half it receives, which keeps
//   rank order for a non-commutative op; then a message to the root (Ireduce), a binomial
//   broadcast (Iallreduce) or each rank's block from rank 0 (the reduce-scatters).
// - Iscan, Iexscan: recursive doubling in rank order (each rank keeps the combine of the
//   lower ranks it has heard of and of its subcube), lg p steps.
// - Iallgather: ring, p - 1 steps of one block.
// - Igather(v), Iscatter(v), Iallgatherv, Ialltoall(v), Ialltoallw (and the blocking
//   MPI_Alltoallw, its schedule waited for at once): linear, every transfer in one step.
// On an intercommunicator every call goes to mpi/nbc_inter.cpp, whose schedules run the
// barrier, broadcast and reduction steps here among each group's ranks (mpi/nbc_steps.hpp).
#include "mpi/nbc.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "mpi/intercomm.hpp"
#include "mpi/nbc_inter.hpp"
#include "mpi/nbc_steps.hpp"
#include "mpi/pt2pt.hpp"
#include "mpi/state.hpp"
#include "runtime/errors.hpp"
#include "runtime/machine.hpp"

namespace vmc::mpi {

// --- the engine ------------------------------------------------------------------------------

unsigned char* Schedule::scratch(std::size_t bytes) {
  buffers_.emplace_back(std::max<std::size_t>(bytes, 1), 0);
  return buffers_.back().data();
}

namespace {
const unsigned char kNothing = 0;
std::size_t items_in(std::size_t bytes, std::size_t unit) {
  return unit == 0 || bytes == 0 ? 0 : bytes / unit;
}
}  // namespace

void Schedule::send(const void* data, std::size_t bytes, std::size_t unit, int peer) {
  const Comm::CollectiveScope scope(comm_);
  pending_.push_back(charged().isend_raw(bytes == 0 ? &kNothing : data, bytes,
                                         items_in(bytes, unit), peer, tag_));
}

void Schedule::recv(void* data, std::size_t bytes, std::size_t unit, int peer) {
  const Comm::CollectiveScope scope(comm_);
  static unsigned char nowhere = 0;
  pending_.push_back(comm_.irecv_raw(bytes == 0 ? &nowhere : data, bytes,
                                     std::max<std::size_t>(unit, 1), peer, tag_));
}

void Schedule::combine(const void* a, const void* b, void* out, std::size_t units) const {
  if (units == 0) return;
  op_->apply(a, b, out, units);
  charged().charge_combine(units);
}

bool Schedule::advance() {
  while (!done_) {
    for (const vmc::Request& r : pending_) {
      if (!r.null()) return false;
    }
    pending_.clear();
    if (next_ < steps_.size()) {
      Step step = std::move(steps_[next_++]);
      step(*this);
      continue;
    }
    for (auto& finish : finishers_) finish();
    finishers_.clear();
    done_ = true;
  }
  return true;
}

namespace {

std::vector<std::shared_ptr<Schedule>>& outstanding(RankState& s) { return s.p2p.schedules; }

void drop_done(RankState& s) {
  auto& v = outstanding(s);
  v.erase(std::remove_if(v.begin(), v.end(), [](const auto& x) { return x->done(); }), v.end());
}

// Every pending transfer of every outstanding schedule, with its owner and place.
struct Transfers {
  std::vector<vmc::Request> requests;
  std::vector<std::pair<Schedule*, std::size_t>> at;
};
Transfers transfers_of(RankState& s) {
  Transfers t;
  for (const auto& x : outstanding(s)) {
    std::vector<vmc::Request>& p = x->pending();
    for (std::size_t i = 0; i < p.size(); ++i) {
      if (p[i].null()) continue;
      t.requests.push_back(p[i]);
      t.at.emplace_back(x.get(), i);
    }
  }
  return t;
}

const Comm& world_of(RankState& s) { return s.comms.at(MPI_COMM_WORLD).comm; }

}  // namespace

bool schedules_outstanding(const RankState& s) { return !s.p2p.schedules.empty(); }

void add_schedule(RankState& s, std::shared_ptr<Schedule> schedule) {
  schedule->advance();
  if (!schedule->done()) outstanding(s).push_back(std::move(schedule));
}

void progress_schedules(RankState& s) {
  if (outstanding(s).empty()) return;
  // One test of all the transfers (a test call queries once), then the steps whose turn came;
  // again while a test completed something and the steps posted more.
  for (;;) {
    Transfers t = transfers_of(s);
    if (t.requests.empty()) break;
    const std::vector<std::size_t> done = world_of(s).test_some(t.requests);
    for (std::size_t k : done) t.at[k].first->pending()[t.at[k].second] = vmc::Request();
    bool posted = false;
    for (const auto& x : outstanding(s)) {
      if (!x->done() && x->advance() == false) {
        posted = posted || std::any_of(x->pending().begin(), x->pending().end(),
                                       [](const vmc::Request& r) { return !r.null(); });
      }
    }
    drop_done(s);
    if (done.empty() || !posted) break;
  }
  drop_done(s);
}

std::size_t wait_progressing(RankState& s, std::span<vmc::Request> rs, vmc::Status* status,
                             const std::function<bool()>& until) {
  for (;;) {
    drop_done(s);
    if (until && until()) return kNoRequest;
    if (rs.empty() && outstanding(s).size() == 1) {
      // One schedule and nothing else: its step's transfers all at once.
      Schedule& x = *outstanding(s).front();
      world_of(s).wait_all(x.pending());
      x.advance();
      continue;
    }
    Transfers t = transfers_of(s);
    const std::size_t own = rs.size();
    std::vector<vmc::Request> all(rs.begin(), rs.end());
    all.insert(all.end(), t.requests.begin(), t.requests.end());
    const bool any = std::any_of(all.begin(), all.end(), [](const auto& r) { return !r.null(); });
    if (!any) return kNoRequest;
    vmc::Status got;
    const std::size_t k = world_of(s).wait_any(all, &got);
    if (k < own) {
      rs[k] = vmc::Request();
      if (status != nullptr) *status = got;
      return k;
    }
    auto [x, i] = t.at[k - own];
    x->pending()[i] = vmc::Request();
    x->advance();
  }
}

void finish_schedules(RankState& s) {
  if (outstanding(s).empty()) return;
  CallContext context("MPI_Finalize (nonblocking collectives never completed)");
  wait_progressing(s, {}, nullptr, [&] { return outstanding(s).empty(); });
}

std::shared_ptr<Schedule> start_schedule(const char* fn, RankState& s, MPI_Comm handle,
                                         const Comm& comm, const CallSignature& sig,
                                         const std::string& args,
                                         const std::function<void(Schedule&)>& build,
                                         PersistentTag* persistent) {
  const bool fresh = persistent == nullptr || persistent->reserve;
  Tag tag = persistent != nullptr ? persistent->tag : 0;
  try {
    if (fresh) tag = comm.begin_collective(sig);
  } catch (const CallsDifferError& e) {
    calls_differ_failure(e, comm_label(s, handle), handle == MPI_COMM_WORLD);
  } catch (const UsageError& e) {
    throw FatalError(error_report(fn, MPI_ERR_ARG,
                                  calls_differ(without_who(e.what(), ""), comm_label(s, handle),
                                               handle == MPI_COMM_WORLD)));
  }
  if (persistent != nullptr && persistent->reserve) {  // made: its starts come later
    persistent->tag = tag;
    return nullptr;
  }
  auto x = std::make_shared<Schedule>(
      comm, tag,
      std::string(fn) + "(" + args + (args.empty() ? "" : ", ") + comm_label(s, handle) + ")");
  build(*x);
  return x;
}

// --- buffers in packed form ----------------------------------------------------------------

Blocks whole(std::size_t items) { return {{0, items}}; }

Blocks blocks_of(const std::vector<std::size_t>& counts, const std::vector<std::size_t>& displs) {
  Blocks b;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] > 0) b.emplace_back(displs[i], counts[i]);
  }
  return b;
}

std::size_t end_of(const Blocks& b) {
  // Saturated at the largest size_t: displacements past it wrap (regular layouts of blocks
  // too large), and the buffer's span check (check_span) must then fail, not pass.
  std::size_t end = 0;
  for (auto [at, n] : b) {
    end = std::max(end, at > std::numeric_limits<std::size_t>::max() - n
                            ? std::numeric_limits<std::size_t>::max()
                            : at + n);
  }
  return end;
}

unsigned char* packed(Schedule& x, const Typemap& m, const void* buf, const Blocks& blocks,
                      bool read, bool written) {
  auto* user = static_cast<unsigned char*>(const_cast<void*>(buf));
  if (m.contiguous || buf == nullptr || buf == MPI_IN_PLACE) return user;
  const std::size_t items = end_of(blocks);
  if (items == 0) return user;
  unsigned char* copy = x.scratch(items * m.packed);
  std::size_t elements = 0;
  for (auto [at, n] : blocks) elements += n * m.elements;
  if (read) {
    for (auto [at, n] : blocks) {
      pack(m, user + static_cast<MPI_Aint>(at) * m.extent(), n, copy + at * m.packed);
    }
    x.comm().charge_rearrange(elements);
  }
  if (written) {
    const Typemap* map = &m;
    Schedule* owner = &x;
    x.at_end([map, copy, user, blocks, elements, owner] {
      for (auto [at, n] : blocks) {
        unpack(*map, copy + at * map->packed, n * map->packed,
               user + static_cast<MPI_Aint>(at) * map->extent());
      }
      owner->comm().charge_rearrange(elements);
    });
  }
  return copy;
}

unsigned char* copy_of(Schedule& x, const void* from, std::size_t bytes) {
  unsigned char* c = x.scratch(bytes);
  if (bytes > 0) std::memcpy(c, from, bytes);
  return c;
}

void copy_bytes(void* to, const void* from, std::size_t bytes) {
  if (bytes > 0 && to != from) std::memmove(to, from, bytes);
}

const Typemap* kept(Schedule& x, const RankState& s, MPI_Datatype t, const Typemap* map) {
  if (auto k = kept_typemap(s, t)) {
    x.keep(k);
    return k.get();
  }
  return map;
}

// --- the schedules ----------------------------------------------------------------------------

Span whole(const Schedule& x) { return {0, x.size(), x.rank()}; }

// Dissemination: in step k each rank signals rank + 2^k and hears from rank - 2^k.
void barrier_steps(Schedule& x, Span g) {
  const int p = g.size, r = g.rank;
  for (int d = 1; d < p; d <<= 1) {
    x.then([=](Schedule& s) {
      s.send(nullptr, 0, 1, g.peer((r + d) % p));
      s.recv(nullptr, 0, 1, g.peer((r - d + p) % p));
    });
  }
}

// Binomial tree from `root` (003 Alg. 4.1/4.2, 001 "One-to-all broadcast", as vmc's
// broadcast `binomial`): virtual rank rank XOR root for p a power of two (every edge a
// hypercube link), (rank - root) mod p otherwise; receive from the parent, then send to the
// children, the largest subtree first.
void bcast_steps(Schedule& x, unsigned char* buf, std::size_t bytes, std::size_t unit, int root,
                 Span g) {
  const int p = g.size;
  const bool pow2 = (p & (p - 1)) == 0;
  auto virt = [=](int r) { return pow2 ? r ^ root : (r - root + p) % p; };
  auto real = [=](int v) { return g.peer(pow2 ? v ^ root : (v + root) % p); };
  const int vr = virt(g.rank);
  int mask = 1;
  while (mask < p && (vr & mask) == 0) mask <<= 1;
  if (vr != 0) {
    const int parent = real(vr - mask);
    x.then([=](Schedule& s) { s.recv(buf, bytes, unit, parent); });
  }
  x.then([=](Schedule& s) {
    for (int m = mask >> 1; m > 0; m >>= 1) {
      if (vr + m < p) s.send(buf, bytes, unit, real(vr + m));
    }
  });
}

// Binomial reduction to rank 0 over real ranks: at mask m a rank whose bit m is set sends its
// combine of ranks [r, r + m) to r - m and is done; the others receive [r + m, r + 2m) and
// combine it after their own, so rank order holds for any op. acc: this rank's contribution,
// becomes rank 0's result.
void reduce_to_zero_steps(Schedule& x, unsigned char* acc, std::size_t units, std::size_t unit,
                          Span g) {
  const int p = g.size, r = g.rank;
  const std::size_t bytes = units * unit;
  unsigned char* tmp = nullptr;
  for (int mask = 1; mask < p; mask <<= 1) {
    if (r & mask) {
      x.then([=](Schedule& s) { s.send(acc, bytes, unit, g.peer(r - mask)); });
      return;
    }
    if (r + mask < p) {
      if (tmp == nullptr) tmp = x.scratch(bytes);
      x.then([=](Schedule& s) { s.recv(tmp, bytes, unit, g.peer(r + mask)); });
      x.then([=](Schedule& s) { s.combine(acc, tmp, acc, units); });
    }
  }
}

namespace {

// Recursive doubling in rank order (scan and exscan): `part` holds the combine of this rank's
// subcube so far; the partner's subcube is combined before it when the partner is lower (and
// into the result), after it when higher. result: the scan (starts as this rank's
// contribution), or the exscan (undefined on rank 0; set from the first lower partner on).
void scan_steps(Schedule& x, unsigned char* result, unsigned char* part, std::size_t units,
                std::size_t unit, bool exclusive) {
  const int p = x.size(), r = x.rank();
  const std::size_t bytes = units * unit;
  unsigned char* got = x.scratch(bytes);
  bool first = exclusive;
  for (int mask = 1; mask < p; mask <<= 1) {
    const int partner = r ^ mask;
    if (partner >= p) continue;
    x.then([=](Schedule& s) {
      s.send(part, bytes, unit, partner);
      s.recv(got, bytes, unit, partner);
    });
    if (partner < r) {
      const bool set = first;
      first = false;
      x.then([=](Schedule& s) {
        if (set) {
          copy_bytes(result, got, bytes);
        } else {
          s.combine(got, result, result, units);
        }
        s.combine(got, part, part, units);
      });
    } else {
      x.then([=](Schedule& s) { s.combine(part, got, part, units); });
    }
  }
}

// Ring allgather: block r is in place; in step k each rank sends block r - k to r + 1 and
// receives block r - k - 1 from r - 1.
void allgather_ring_steps(Schedule& x, unsigned char* out, std::size_t block, std::size_t unit) {
  const int p = x.size(), r = x.rank();
  for (int k = 0; k + 1 < p; ++k) {
    const int send_block = ((r - k) % p + p) % p, recv_block = ((r - k - 1) % p + p) % p;
    x.then([=](Schedule& s) {
      s.send(out + static_cast<std::size_t>(send_block) * block, block, unit, (r + 1) % p);
      s.recv(out + static_cast<std::size_t>(recv_block) * block, block, unit, (r - 1 + p) % p);
    });
  }
}

// Every transfer in one step: block i of `out` (bytes at[i], bytes[i]) goes to rank i, block i
// of `in` comes from it; this rank's own block is copied. A null side moves nothing.
struct Blockwise {
  const unsigned char* out = nullptr;
  std::vector<std::size_t> out_at, out_bytes;
  unsigned char* in = nullptr;
  std::vector<std::size_t> in_at, in_bytes;
};
void linear_steps(Schedule& x, std::shared_ptr<const Blockwise> b, std::size_t unit) {
  const int p = x.size(), r = x.rank();
  x.then([=](Schedule& s) {
    const auto me = static_cast<std::size_t>(r);
    if (b->out != nullptr && b->in != nullptr) {
      copy_bytes(b->in + b->in_at[me], b->out + b->out_at[me],
                 std::min(b->in_bytes[me], b->out_bytes[me]));
    }
    for (int i = 0; i < p; ++i) {
      if (i == r || b->in == nullptr) continue;
      const auto k = static_cast<std::size_t>(i);
      s.recv(b->in + b->in_at[k], b->in_bytes[k], unit, i);
    }
    for (int i = 0; i < p; ++i) {
      if (i == r || b->out == nullptr) continue;
      const auto k = static_cast<std::size_t>(i);
      s.send(b->out + b->out_at[k], b->out_bytes[k], unit, i);
    }
  });
}

// --- the calls --------------------------------------------------------------------------------

void check_request(const char* fn, const MPI_Request* request) {
  check_arg(fn, request, "request");
}

std::size_t me_of(const Comm& c) { return static_cast<std::size_t>(c.rank()); }

std::vector<std::size_t> scaled(const std::vector<std::size_t>& v, std::size_t by) {
  std::vector<std::size_t> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = v[i] * by;
  return out;
}

// What every start of a call does: its signature compared and its tag space taken, then its
// schedule built by `build` (given the schedule) and its first steps run.
struct Started {
  std::string operation;  // the signature's texts, owned
  std::string type;
  std::string op;
  int root = -1;
  std::size_t count = 0;
  std::size_t item_size = 0;
  bool check_count = true;
  std::uint64_t layout = 0;
  std::string args;  // how a deadlock report names the call's arguments
};

std::shared_ptr<Schedule> begin(const char* fn, RankState& s, MPI_Comm handle, const Comm& comm,
                                const Started& d, PersistentTag* persistent,
                                const std::function<void(Schedule&)>& build) {
  CallSignature sig;
  sig.operation = d.operation;
  if (!d.op.empty()) sig.op = d.op;
  sig.root = d.root;
  sig.count = d.count;
  sig.item_size = d.item_size;
  sig.type = d.type;
  sig.check_count = d.check_count;
  sig.layout = d.layout;
  return start_schedule(fn, s, handle, comm, sig, d.args, build, persistent);
}

// Makes the call's request: a nonblocking call's schedule started now, a persistent one's
// started by each MPI_Start.
int make(const char* fn, MPI_Comm comm, MPI_Request* request, bool persistent,
         const std::function<ScheduleStart(const Collective&)>& prepare) {
  return mpi_call(comm, [&] {
    const Collective c = open_collective(fn, comm);
    check_request(fn, request);
    ScheduleStart start = prepare(c);
    *request = add_collective_request(c.state, comm, std::move(start), persistent);
    return MPI_SUCCESS;
  });
}

std::string items_text(std::size_t n, const char* type) {
  return std::to_string(n) + " x " + type;
}

Started described(const char* fn, const char* type, std::size_t units, std::size_t unit_size,
                  int root, const char* op, std::string args) {
  Started d;
  d.operation = fn;
  d.type = type;
  d.count = units;
  d.item_size = unit_size;
  d.root = root;
  if (op != nullptr) d.op = op;
  d.args = std::move(args);
  return d;
}

// --- each operation: checks, then what each start builds -----------------------------------

ScheduleStart barrier_call(const Collective& c) {
  Started d;
  d.operation = c.fn;
  RankState* s = &c.state;
  const MPI_Comm h = c.handle;
  const Comm comm = c.comm;
  const char* fn = c.fn;
  return [=](PersistentTag* persistent) {
    return begin(fn, *s, h, comm, d, persistent,
                 [](Schedule& x) { barrier_steps(x, whole(x)); });
  };
}

ScheduleStart bcast_call(const Collective& c, void* buffer, MPI_Count count, MPI_Datatype datatype,
                         int root) {
  check_count(c.fn, count);
  const CollectiveType t = collective_type(c.fn, c.handle, datatype);
  check_span(c.fn, count, *t.map, c.state, datatype);
  check_root(c, root);
  check_not_in_place(c.fn, buffer, "the buffer");
  check_buffer(c.fn, buffer, count);
  const std::size_t items = static_cast<std::size_t>(count), n = t.units(items);
  const Started d = described(c.fn, t.unit_name, n, t.unit_size, root, nullptr,
                              "root " + std::to_string(root) + ", " + items_text(n, t.unit_name));
  RankState* s = &c.state;
  const MPI_Comm h = c.handle;
  const Comm comm = c.comm;
  const char* fn = c.fn;
  return [=](PersistentTag* persistent) {
    return begin(fn, *s, h, comm, d, persistent, [&](Schedule& x) {
      const Typemap* m = kept(x, *s, datatype, t.map);
      const bool at_root = comm.rank() == root;
      unsigned char* buf = packed(x, *m, buffer, whole(items), at_root, !at_root);
      bcast_steps(x, buf, n * t.unit_size, t.unit_size, root, whole(x));
    });
  };
}

// Ireduce and Iallreduce: rank 0's binomial reduction, then the result to the root or to all.
ScheduleStart reduce_call(const Collective& c, const void* sendbuf, void* recvbuf, MPI_Count count,
                          MPI_Datatype datatype, MPI_Op op, int root, bool all) {
  const char* fn = c.fn;
  check_count(fn, count);
  const CollectiveReduction red = collective_reduction(fn, c.handle, datatype, op);
  const CollectiveType t = red.type;
  check_span(c.fn, count, *t.map, c.state, datatype);
  if (!all) check_root(c, root);
  const bool at_root = all || c.rank() == root;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !at_root) fail(fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's send buffer only");
  if (!in_place) check_buffer(fn, sendbuf, count);
  if (at_root) {
    check_not_in_place(fn, recvbuf, "the receive buffer");
    check_buffer(fn, recvbuf, count);
  }
  const std::size_t items = static_cast<std::size_t>(count), n = t.units(items);
  const std::size_t unit = t.unit_size, bytes = n * unit;
  const Started d = described(
      fn, t.unit_name, n, unit, all ? -1 : root, red.label,
      (all ? std::string() : "root " + std::to_string(root) + ", ") + items_text(n, t.unit_name) +
          ", " + red.label);
  RankState* s = &c.state;
  const MPI_Comm h = c.handle;
  const Comm comm = c.comm;
  const Op vop = red.op;
  const std::size_t weight = red.weight;
  return [=](PersistentTag* persistent) {
    return begin(fn, *s, h, comm, d, persistent, [&](Schedule& x) {
      x.set_op(vop, weight);
      const Typemap* m = kept(x, *s, datatype, t.map);
      const int r = comm.rank();
      const bool gets = all || r == root;
      unsigned char* out = gets ? packed(x, *m, recvbuf, whole(items), in_place, true) : nullptr;
      const unsigned char* mine =
          in_place ? out : packed(x, *m, sendbuf, whole(items), true, false);
      unsigned char* acc = copy_of(x, mine, bytes);
      reduce_to_zero_steps(x, acc, n, unit, whole(x));
      if (all) {
        bcast_steps(x, acc, bytes, unit, 0, whole(x));
        x.then([=](Schedule&) { copy_bytes(out, acc, bytes); });
      } else if (root == 0) {
        if (r == 0) x.then([=](Schedule&) { copy_bytes(out, acc, bytes); });
      } else if (r == 0) {
        x.then([=](Schedule& y) { y.send(acc, bytes, unit, root); });
      } else if (r == root) {
        x.then([=](Schedule& y) { y.recv(out, bytes, unit, 0); });
      }
    });
  };
}

ScheduleStart scan_call(const Collective& c, const void* sendbuf, void* recvbuf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Op op, bool exclusive) {
  const char* fn = c.fn;
  check_count(fn, count);
  const CollectiveReduction red = collective_reduction(fn, c.handle, datatype, op);
  const CollectiveType t = red.type;
  check_span(c.fn, count, *t.map, c.state, datatype);
  check_not_in_place(fn, recvbuf, "the receive buffer");
  const bool in_place = sendbuf == MPI_IN_PLACE;
  check_buffer(fn, recvbuf, count);
  if (!in_place) check_buffer(fn, sendbuf, count);
  const std::size_t items = static_cast<std::size_t>(count), n = t.units(items);
  const std::size_t unit = t.unit_size, bytes = n * unit;
  const Started d = described(fn, t.unit_name, n, unit, -1, red.label,
                              items_text(n, t.unit_name) + ", " + red.label);
  RankState* s = &c.state;
  const MPI_Comm h = c.handle;
  const Comm comm = c.comm;
  const Op vop = red.op;
  const std::size_t weight = red.weight;
  return [=](PersistentTag* persistent) {
    return begin(fn, *s, h, comm, d, persistent, [&](Schedule& x) {
      x.set_op(vop, weight);
      const Typemap* m = kept(x, *s, datatype, t.map);
      const bool writes = !exclusive || comm.rank() > 0;
      unsigned char* out = packed(x, *m, recvbuf, whole(items), in_place, writes);
      const unsigned char* mine =
          in_place ? out : packed(x, *m, sendbuf, whole(items), true, false);
      unsigned char* part = copy_of(x, mine, bytes);
      unsigned char* result = copy_of(x, mine, bytes);
      scan_steps(x, result, part, n, unit, exclusive);
      if (writes) x.then([=](Schedule&) { copy_bytes(out, result, bytes); });
    });
  };
}

// Ireduce_scatter and _block: rank 0's binomial reduction of the whole vector, then each
// rank's block from rank 0.
ScheduleStart reduce_scatter_call(const Collective& c, const void* sendbuf, void* recvbuf,
                                  std::vector<std::size_t> counts_items, MPI_Datatype datatype,
                                  MPI_Op op, bool block) {
  const char* fn = c.fn;
  const CollectiveReduction red = collective_reduction(fn, c.handle, datatype, op);
  const CollectiveType t = red.type;
  check_span(fn, items_total(counts_items), *t.map, c.state, datatype);
  check_not_in_place(fn, recvbuf, "the receive buffer");
  const bool in_place = sendbuf == MPI_IN_PLACE;
  std::size_t total_items = 0;
  for (std::size_t k : counts_items) total_items += k;
  const std::size_t mine_items = counts_items[static_cast<std::size_t>(c.rank())];
  if (mine_items > 0) check_buffer(fn, recvbuf, 1);
  if (total_items > 0) check_buffer(fn, in_place ? recvbuf : sendbuf, 1);
  const std::size_t unit = t.unit_size;
  const std::vector<std::size_t> counts = scaled(counts_items, t.per);
  const std::size_t total = t.units(total_items);
  Started d = described(fn, t.unit_name, block ? counts[0] : 0, unit, -1, red.label,
                        items_text(t.units(mine_items), t.unit_name) + ", " + red.label);
  if (!block) {
    d.check_count = false;
    d.layout = hash_integers(std::span<const std::size_t>(counts));
  }
  RankState* s = &c.state;
  const MPI_Comm h = c.handle;
  const Comm comm = c.comm;
  const Op vop = red.op;
  const std::size_t weight = red.weight;
  return [=](PersistentTag* persistent) {
    return begin(fn, *s, h, comm, d, persistent, [&](Schedule& x) {
      x.set_op(vop, weight);
      const Typemap* m = kept(x, *s, datatype, t.map);
      const int p = comm.size(), r = comm.rank();
      const unsigned char* all =
          packed(x, *m, in_place ? recvbuf : sendbuf, whole(total_items), true, false);
      unsigned char* acc = copy_of(x, all, total * unit);
      unsigned char* out = packed(x, *m, recvbuf, whole(mine_items), false, true);
      reduce_to_zero_steps(x, acc, total, unit, whole(x));
      x.then([=](Schedule& y) {
        if (r != 0) {
          y.recv(out, counts[static_cast<std::size_t>(r)] * unit, unit, 0);
          return;
        }
        std::size_t at = 0;
        for (int i = 0; i < p; ++i) {
          const std::size_t b = counts[static_cast<std::size_t>(i)] * unit;
          if (i == 0) {
            copy_bytes(out, acc + at, b);
          } else {
            y.send(acc + at, b, unit, i);
          }
          at += b;
        }
      });
    });
  };
}

// Igather, Iscatter, their v forms, Iallgatherv, Ialltoall(v): one step of every transfer.
// `root` < 0: every rank sends and receives (the all forms).
struct VLayout {
  std::vector<std::size_t> counts, displs;  // in items of the side's datatype
};

// Igather and Igatherv (gather true), Iscatter and Iscatterv (false), in items: the root's
// side laid out by `root_side` (counts and displacements), the other side `own` items.
ScheduleStart rooted_call(const Collective& c, bool gather, const void* sendbuf,
                          MPI_Count own_count, MPI_Datatype own_type, void* rootbuf,
                          const VLayout& root_side, MPI_Datatype root_type, int root, bool v) {
  const char* fn = c.fn;
  check_root(c, root);
  const bool at_root = c.rank() == root;
  const void* own_buf = sendbuf;  // gather: the send buffer; scatter: the receive buffer
  const bool in_place = own_buf == MPI_IN_PLACE;
  if (in_place && !at_root) {
    fail(fn, MPI_ERR_BUFFER, std::string("MPI_IN_PLACE is the root's ") +
                                 (gather ? "send" : "receive") + " buffer only");
  }
  CollectiveType ot{}, rt{};
  if (!in_place) {
    check_count(fn, own_count);
    ot = collective_type(fn, c.handle, own_type);
    check_span(fn, own_count, *ot.map, c.state, own_type);
    check_buffer(fn, own_buf, own_count);
  }
  const std::size_t me = static_cast<std::size_t>(c.rank());
  if (at_root) {
    rt = collective_type(fn, c.handle, root_type);
    const std::size_t root_end = end_of(blocks_of(root_side.counts, root_side.displs));
    check_span(fn, count_of_items(root_end), *rt.map, c.state, root_type);
    check_not_in_place(fn, rootbuf, gather ? "the receive buffer" : "the send buffer");
    if (!in_place) {
      const auto root_own = static_cast<MPI_Count>(root_side.counts[me]);
      check_collective_signature(fn, gather ? own_count : root_own, gather ? ot : rt,
                                 gather ? root_own : own_count, gather ? rt : ot,
                                 "the root's own block: ");
    }
    if (root_end > 0) check_buffer(fn, rootbuf, 1);
  }
  const CollectiveType& ut = at_root ? rt : ot;
  const std::size_t unit = ut.unit_size;
  const std::size_t own_units = in_place ? 0 : ot.units(static_cast<std::size_t>(own_count));
  Started d = described(fn, ut.unit_name, v ? 0 : own_units, unit, root, nullptr,
                        "root " + std::to_string(root) + ", " +
                            items_text(at_root && in_place ? rt.units(root_side.counts[me])
                                                           : own_units,
                                       ut.unit_name));
  if (v) d.check_count = false;
  if (!v && at_root && in_place) d.count = rt.units(root_side.counts[me]);
  RankState* s = &c.state;
  const MPI_Comm h = c.handle;
  const Comm comm = c.comm;
  const VLayout layout = root_side;
  return [=](PersistentTag* persistent) {
    return begin(fn, *s, h, comm, d, persistent, [&](Schedule& x) {
      const int p = comm.size();
      auto b = std::make_shared<Blockwise>();
      unsigned char* own = nullptr;
      if (!in_place) {
        const Typemap* m = kept(x, *s, own_type, ot.map);
        own = packed(x, *m, own_buf, whole(static_cast<std::size_t>(own_count)), gather,
                     !gather);
      }
      const std::size_t own_bytes = own_units * unit;
      if (at_root) {
        const Typemap* m = kept(x, *s, root_type, rt.map);
        const Blocks blocks = blocks_of(layout.counts, layout.displs);
        // In place, the root's own block of a gather is read from its receive buffer.
        unsigned char* all = packed(x, *m, rootbuf, blocks, !gather || in_place, gather);
        std::vector<std::size_t> at(layout.counts.size()), bytes(layout.counts.size());
        for (std::size_t i = 0; i < at.size(); ++i) {
          at[i] = layout.displs[i] * m->packed;
          bytes[i] = rt.units(layout.counts[i]) * unit;
        }
        if (gather) {
          b->in = all;
          b->in_at = at;
          b->in_bytes = bytes;
          if (!in_place) {
            b->out = own;
            b->out_at.assign(static_cast<std::size_t>(p), 0);
            b->out_bytes.assign(static_cast<std::size_t>(p), 0);
            b->out_bytes[static_cast<std::size_t>(comm.rank())] = own_bytes;
          }
        } else {
          b->out = all;
          b->out_at = at;
          b->out_bytes = bytes;
          if (!in_place) {
            b->in = own;
            b->in_at.assign(static_cast<std::size_t>(p), 0);
            b->in_bytes.assign(static_cast<std::size_t>(p), 0);
            b->in_bytes[static_cast<std::size_t>(comm.rank())] = own_bytes;
          }
        }
        // The root alone: its transfers with every other rank.
        x.then([=](Schedule& y) {
          const auto r = static_cast<std::size_t>(y.rank());
          if (b->out != nullptr && b->in != nullptr) {
            copy_bytes(b->in + b->in_at[r], b->out + b->out_at[r],
                       std::min(b->in_bytes[r], b->out_bytes[r]));
          }
          for (int i = 0; i < p; ++i) {
            if (static_cast<std::size_t>(i) == r) continue;
            const auto k = static_cast<std::size_t>(i);
            if (gather) {
              y.recv(b->in + b->in_at[k], b->in_bytes[k], unit, i);
            } else {
              y.send(b->out + b->out_at[k], b->out_bytes[k], unit, i);
            }
          }
        });
      } else {
        x.then([=](Schedule& y) {
          if (gather) {
            y.send(own, own_bytes, unit, root);
          } else {
            y.recv(own, own_bytes, unit, root);
          }
        });
      }
    });
  };
}

// Iallgather (ring), Iallgatherv and Ialltoall(v) (linear).
ScheduleStart all_call(const Collective& c, const void* sendbuf, VLayout send_side,
                       MPI_Datatype sendtype, void* recvbuf, VLayout recv_side,
                       MPI_Datatype recvtype, bool to_all_same, bool ring, bool v) {
  // to_all_same: every rank sends the same block to all (allgather); else block i to rank i.
  const char* fn = c.fn;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const std::size_t me = static_cast<std::size_t>(c.rank());
  const CollectiveType rt = collective_type(fn, c.handle, recvtype);
  const std::size_t recv_end = end_of(blocks_of(recv_side.counts, recv_side.displs));
  check_span(fn, count_of_items(recv_end), *rt.map, c.state, recvtype);
  CollectiveType st = rt;
  check_not_in_place(fn, recvbuf, "the receive buffer");
  if (!in_place) {
    st = collective_type(fn, c.handle, sendtype);
    const std::size_t send_end = end_of(blocks_of(send_side.counts, send_side.displs));
    check_span(fn, count_of_items(send_end), *st.map, c.state, sendtype);
    if (to_all_same) {
      check_collective_signature(fn, static_cast<MPI_Count>(send_side.counts[0]), st,
                                 static_cast<MPI_Count>(recv_side.counts[me]), rt, "");
      check_buffer(fn, sendbuf, static_cast<MPI_Count>(send_side.counts[0]));
    } else {
      check_collective_signature(fn, static_cast<MPI_Count>(send_side.counts[me]), st,
                                 static_cast<MPI_Count>(recv_side.counts[me]), rt,
                                 "the block a rank sends itself: ");
      if (send_end > 0) check_buffer(fn, sendbuf, 1);
    }
    if ((st.derived || rt.derived) && std::strcmp(st.unit_name, rt.unit_name) != 0 &&
        !to_all_same) {
      fail(fn, MPI_ERR_TYPE, "sendtype and recvtype differ in their basic types");
    }
  }
  if (recv_end > 0) check_buffer(fn, recvbuf, 1);
  const std::size_t unit = rt.unit_size;
  const std::size_t n = rt.units(recv_side.counts[me]);
  Started d = described(fn, rt.unit_name, v ? 0 : n, unit, -1, nullptr,
                        items_text(n, rt.unit_name));
  if (v) {
    d.check_count = false;
    if (to_all_same) {
      const std::vector<std::size_t> counts = scaled(recv_side.counts, rt.per);
      d.layout = hash_integers(std::span<const std::size_t>(counts));
    }
  }
  RankState* s = &c.state;
  const MPI_Comm h = c.handle;
  const Comm comm = c.comm;
  return [=](PersistentTag* persistent) {
    return begin(fn, *s, h, comm, d, persistent, [&](Schedule& x) {
      const int p = comm.size();
      const Typemap* rm = kept(x, *s, recvtype, rt.map);
      const Blocks rblocks = blocks_of(recv_side.counts, recv_side.displs);
      // In place, the send blocks are the receive buffer's (alltoall: read from a copy).
      unsigned char* out = packed(x, *rm, recvbuf, rblocks, in_place, true);
      auto b = std::make_shared<Blockwise>();
      b->in = out;
      for (std::size_t i = 0; i < static_cast<std::size_t>(p); ++i) {
        b->in_at.push_back(recv_side.displs[i] * rm->packed);
        b->in_bytes.push_back(rt.units(recv_side.counts[i]) * unit);
      }
      const unsigned char* from = nullptr;
      if (in_place) {
        from = copy_of(x, out, end_of(rblocks) * rm->packed);
        b->out_at = b->in_at;
        b->out_bytes = b->in_bytes;
      } else {
        const Typemap* sm = kept(x, *s, sendtype, st.map);
        from = packed(x, *sm, sendbuf, blocks_of(send_side.counts, send_side.displs), true,
                      false);
        for (std::size_t i = 0; i < send_side.counts.size(); ++i) {
          b->out_at.push_back(send_side.displs[i] * sm->packed);
          b->out_bytes.push_back(st.units(send_side.counts[i]) * unit);
        }
      }
      b->out = from;
      if (to_all_same) {
        // Every rank's one block to every other: the same send block for all.
        if (!in_place) {
          copy_bytes(out + b->in_at[me_of(comm)], from, b->out_bytes[0]);
        }
        if (ring) {
          allgather_ring_steps(x, out, b->in_bytes[0], unit);
          return;
        }
        const unsigned char* mine = out + b->in_at[me_of(comm)];
        const std::size_t mine_bytes = b->in_bytes[me_of(comm)];
        x.then([=](Schedule& y) {
          for (int i = 0; i < p; ++i) {
            if (i == y.rank()) continue;
            y.recv(b->in + b->in_at[static_cast<std::size_t>(i)],
                   b->in_bytes[static_cast<std::size_t>(i)], unit, i);
          }
          for (int i = 0; i < p; ++i) {
            if (i != y.rank()) y.send(mine, mine_bytes, unit, i);
          }
        });
        return;
      }
      linear_steps(x, b, unit);
    });
  };
}

// Ialltoallw: block i of its own count and datatype, at a byte displacement, on each side;
// linear, every transfer in one step. A message is charged beta per predefined element when
// its type's elements are all of one type, else per byte, as point to point charges it.
struct WBlock {
  std::size_t count = 0;
  MPI_Aint displ = 0;   // bytes
  MPI_Datatype type = MPI_DATATYPE_NULL;
  const Typemap* map = nullptr;
};

ScheduleStart alltoallw_call(const Collective& c, const void* sendbuf, CountArray sendcounts,
                             CountArray sdispls, const MPI_Datatype* sendtypes, void* recvbuf,
                             CountArray recvcounts, CountArray rdispls,
                             const MPI_Datatype* recvtypes) {
  const char* fn = c.fn;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  check_not_in_place(fn, recvbuf, "the receive buffer");
  auto side = [&](CountArray counts, CountArray displs, const MPI_Datatype* types,
                  const char* counts_name, const char* displs_name, const char* types_name) {
    check_arg(fn, counts.data(), counts_name);
    check_arg(fn, displs.data(), displs_name);
    check_arg(fn, types, types_name);
    std::vector<WBlock> v(c.p());
    for (std::size_t i = 0; i < c.p(); ++i) {
      if (counts[i] < 0) {
        fail(fn, MPI_ERR_COUNT, std::string(counts_name) + "[" + std::to_string(i) + "] = " +
                                    std::to_string(counts[i]) + " is negative");
      }
      v[i] = {static_cast<std::size_t>(counts[i]), static_cast<MPI_Aint>(displs[i]), types[i],
              &moved_typemap(fn, c.state, types[i], counts[i])};
    }
    return v;
  };
  const std::vector<WBlock> recv =
      side(recvcounts, rdispls, recvtypes, "recvcounts", "rdispls", "recvtypes");
  const std::vector<WBlock> send =
      in_place ? recv : side(sendcounts, sdispls, sendtypes, "sendcounts", "sdispls", "sendtypes");
  for (std::size_t i = 0; i < c.p(); ++i) {
    if (recv[i].count > 0) check_buffer(fn, recvbuf, 1);
    if (!in_place && send[i].count > 0) check_buffer(fn, sendbuf, 1);
  }
  const std::size_t me = me_of(c.comm);
  if (!in_place && send[me].count * send[me].map->size != recv[me].count * recv[me].map->size) {
    fail(fn, MPI_ERR_TRUNCATE, "the block a rank sends itself (" +
                                   std::to_string(send[me].count * send[me].map->size) +
                                   " bytes) and the block it receives from itself (" +
                                   std::to_string(recv[me].count * recv[me].map->size) +
                                   " bytes) differ");
  }
  Started d;
  d.operation = fn;
  d.check_count = false;
  d.args = std::to_string(recv[me].count) + " items from itself";
  RankState* s = &c.state;
  const MPI_Comm h = c.handle;
  const Comm comm = c.comm;
  return [=](PersistentTag* persistent) {
    return begin(fn, *s, h, comm, d, persistent, [&](Schedule& x) {
      const int p = comm.size();
      // Each block in packed form: its own copy (the types differ block by block).
      auto* rbase = static_cast<unsigned char*>(recvbuf);
      std::vector<unsigned char*> staged(static_cast<std::size_t>(p));
      for (std::size_t i = 0; i < staged.size(); ++i) {
        const Typemap* m = kept(x, *s, recv[i].type, recv[i].map);
        const std::size_t bytes = recv[i].count * m->packed;
        staged[i] = x.scratch(bytes);
        unsigned char* user = rbase + recv[i].displ;
        if (in_place && bytes > 0) {
          pack(*m, user, recv[i].count, staged[i]);  // what this rank sends in place
          x.comm().charge_rearrange(recv[i].count * m->elements);
        }
        const std::size_t n = recv[i].count;
        const std::size_t elements = n * m->elements;
        Schedule* owner = &x;
        x.at_end([m, staged, i, user, bytes, elements, owner] {
          if (bytes == 0) return;
          unpack(*m, staged[i], bytes, user);
          owner->comm().charge_rearrange(elements);
        });
      }
      std::vector<const unsigned char*> out(static_cast<std::size_t>(p));
      std::vector<std::size_t> out_bytes(static_cast<std::size_t>(p)), out_unit(out.size());
      for (std::size_t i = 0; i < out.size(); ++i) {
        const Typemap* m = kept(x, *s, send[i].type, send[i].map);
        const std::size_t bytes = send[i].count * m->packed;
        if (in_place) {
          out[i] = copy_of(x, staged[i], bytes);
        } else {
          unsigned char* copy = x.scratch(bytes);
          if (bytes > 0) {
            pack(*m, static_cast<const unsigned char*>(sendbuf) + send[i].displ, send[i].count,
                 copy);
            if (!m->contiguous) x.comm().charge_rearrange(send[i].count * m->elements);
          }
          out[i] = copy;
        }
        out_bytes[i] = bytes;
        out_unit[i] = m->basic != MPI_DATATYPE_NULL && m->elements > 0 ? m->packed / m->elements
                                                                        : 1;
      }
      x.then([=](Schedule& y) {
        const auto r = static_cast<std::size_t>(y.rank());
        copy_bytes(staged[r], out[r], out_bytes[r]);
        for (int i = 0; i < p; ++i) {
          const auto k = static_cast<std::size_t>(i);
          if (k == r) continue;
          y.recv(staged[k], recv[k].count * recv[k].map->packed, 1, i);
        }
        for (int i = 0; i < p; ++i) {
          const auto k = static_cast<std::size_t>(i);
          if (k != r) y.send(out[k], out_bytes[k], out_unit[k], i);
        }
      });
    });
  };
}

}  // namespace

}  // namespace vmc::mpi

using namespace vmc;
using namespace vmc::mpi;

namespace {

// The layouts of the fixed-size calls: p blocks of `count` items back to back.
VLayout regular(std::size_t p, MPI_Count count) {
  VLayout l;
  for (std::size_t i = 0; i < p; ++i) {
    l.counts.push_back(static_cast<std::size_t>(count));
    l.displs.push_back(i * static_cast<std::size_t>(count));
  }
  return l;
}

VLayout one_block(MPI_Count count) { return {{static_cast<std::size_t>(count)}, {0}}; }

VLayout given(const char* fn, std::size_t p, CountArray counts, const char* counts_name,
              CountArray displs, const char* displs_name) {
  return {counts_of(fn, counts, p, counts_name, MPI_ERR_COUNT),
          counts_of(fn, displs, p, displs_name, MPI_ERR_ARG)};
}

// --- the calls, one body for the I form and the _init form ---------------------------------

int barrier(const char* fn, MPI_Comm comm, MPI_Request* request, bool persistent) {
  if (is_inter(comm)) return inter_nbc_barrier(fn, comm, request, persistent);
  return make(fn, comm, request, persistent, [](const Collective& c) { return barrier_call(c); });
}

int bcast(const char* fn, void* buffer, MPI_Count count, MPI_Datatype datatype, int root,
          MPI_Comm comm, MPI_Request* request, bool persistent) {
  if (is_inter(comm)) {
    return inter_nbc_bcast(fn, buffer, count, datatype, root, comm, request, persistent);
  }
  return make(fn, comm, request, persistent, [&](const Collective& c) {
    return bcast_call(c, buffer, count, datatype, root);
  });
}

int reduce(const char* fn, const void* sendbuf, void* recvbuf, MPI_Count count,
           MPI_Datatype datatype, MPI_Op op, int root, bool all, MPI_Comm comm,
           MPI_Request* request, bool persistent) {
  if (is_inter(comm)) {
    return inter_nbc_reduce(fn, sendbuf, recvbuf, count, datatype, op, root, all, comm, request,
                            persistent);
  }
  return make(fn, comm, request, persistent, [&](const Collective& c) {
    return reduce_call(c, sendbuf, recvbuf, count, datatype, op, root, all);
  });
}

int scan(const char* fn, const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
         MPI_Op op, bool exclusive, MPI_Comm comm, MPI_Request* request, bool persistent) {
  if (is_inter(comm)) return inter_scan(fn, comm);
  return make(fn, comm, request, persistent, [&](const Collective& c) {
    return scan_call(c, sendbuf, recvbuf, count, datatype, op, exclusive);
  });
}

int reduce_scatter(const char* fn, const void* sendbuf, void* recvbuf, CountArray recvcounts,
                   MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request, bool persistent, bool block) {
  if (is_inter(comm)) {
    return inter_nbc_reduce_scatter(fn, sendbuf, recvbuf, block ? nullptr : recvcounts,
                                    recvcount, datatype, op, comm, request, persistent);
  }
  return make(fn, comm, request, persistent, [&](const Collective& c) {
    std::vector<std::size_t> counts;
    if (block) {
      check_count(fn, recvcount);
      counts.assign(c.p(), static_cast<std::size_t>(recvcount));
    } else {
      counts = counts_of(fn, recvcounts, c.p(), "recvcounts", MPI_ERR_COUNT);
    }
    return reduce_scatter_call(c, sendbuf, recvbuf, counts, datatype, op, block);
  });
}

int gather(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
           void* recvbuf, MPI_Count recvcount, CountArray recvcounts, CountArray displs,
           MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request,
           bool persistent, bool v) {
  if (is_inter(comm)) {
    return inter_nbc_gather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvcounts,
                            displs, recvtype, root, comm, request, persistent, v);
  }
  return make(fn, comm, request, persistent, [&](const Collective& c) {
    VLayout l;
    if (c.rank() == root) {
      if (v) {
        l = given(fn, c.p(), recvcounts, "recvcounts", displs, "displs");
      } else {
        check_count(fn, recvcount);
        l = regular(c.p(), recvcount);
      }
    }
    return rooted_call(c, true, sendbuf, sendcount, sendtype, recvbuf, l, recvtype, root, v);
  });
}

int scatter(const char* fn, const void* sendbuf, MPI_Count sendcount, CountArray sendcounts,
            CountArray displs, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
            MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request,
            bool persistent, bool v) {
  if (is_inter(comm)) {
    return inter_nbc_scatter(fn, sendbuf, sendcount, sendcounts, displs, sendtype, recvbuf,
                             recvcount, recvtype, root, comm, request, persistent, v);
  }
  return make(fn, comm, request, persistent, [&](const Collective& c) {
    VLayout l;
    if (c.rank() == root) {
      if (v) {
        l = given(fn, c.p(), sendcounts, "sendcounts", displs, "displs");
      } else {
        check_count(fn, sendcount);
        l = regular(c.p(), sendcount);
      }
    }
    return rooted_call(c, false, recvbuf, recvcount, recvtype, const_cast<void*>(sendbuf), l,
                       sendtype, root, v);
  });
}

int allgather(const char* fn, const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
              void* recvbuf, MPI_Count recvcount, CountArray recvcounts, CountArray displs,
              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request, bool persistent,
              bool v) {
  if (is_inter(comm)) {
    return inter_nbc_allgather(fn, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvcounts,
                               displs, recvtype, comm, request, persistent, v);
  }
  return make(fn, comm, request, persistent, [&](const Collective& c) {
    if (sendbuf != MPI_IN_PLACE) check_count(fn, sendcount);
    VLayout r;
    if (v) {
      r = given(fn, c.p(), recvcounts, "recvcounts", displs, "displs");
    } else {
      check_count(fn, recvcount);
      r = regular(c.p(), recvcount);
    }
    return all_call(c, sendbuf, one_block(sendbuf == MPI_IN_PLACE ? 0 : sendcount), sendtype,
                    recvbuf, r, recvtype, true, !v, v);
  });
}

int alltoall(const char* fn, const void* sendbuf, MPI_Count sendcount, CountArray sendcounts,
             CountArray sdispls, MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
             CountArray recvcounts, CountArray rdispls, MPI_Datatype recvtype, MPI_Comm comm,
             MPI_Request* request, bool persistent, bool v) {
  if (is_inter(comm)) {
    return inter_nbc_alltoall(fn, sendbuf, sendcount, sendcounts, sdispls, sendtype, recvbuf,
                              recvcount, recvcounts, rdispls, recvtype, comm, request, persistent,
                              v);
  }
  return make(fn, comm, request, persistent, [&](const Collective& c) {
    VLayout sl, rl;
    if (v) {
      rl = given(fn, c.p(), recvcounts, "recvcounts", rdispls, "rdispls");
      sl = sendbuf == MPI_IN_PLACE ? rl
                                   : given(fn, c.p(), sendcounts, "sendcounts", sdispls, "sdispls");
    } else {
      check_count(fn, recvcount);
      rl = regular(c.p(), recvcount);
      if (sendbuf != MPI_IN_PLACE) check_count(fn, sendcount);
      sl = sendbuf == MPI_IN_PLACE ? rl : regular(c.p(), sendcount);
    }
    return all_call(c, sendbuf, sl, sendtype, recvbuf, rl, recvtype, false, false, v);
  });
}

}  // namespace

extern "C" {

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return barrier("MPI_Ibarrier", comm, request, false);
}
int MPI_Barrier_init(MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return barrier("MPI_Barrier_init", comm, request, true);
}

int MPI_Ibcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
               MPI_Request* request) {
  return bcast("MPI_Ibcast", buffer, count, datatype, root, comm, request, false);
}

int MPI_Ibcast_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  return bcast("MPI_Ibcast_c", buffer, count, datatype, root, comm, request, false);
}
int MPI_Bcast_init(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                   MPI_Info, MPI_Request* request) {
  return bcast("MPI_Bcast_init", buffer, count, datatype, root, comm, request, true);
}

int MPI_Bcast_init_c(void* buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                     MPI_Info, MPI_Request* request) {
  return bcast("MPI_Bcast_init_c", buffer, count, datatype, root, comm, request, true);
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                int root, MPI_Comm comm, MPI_Request* request) {
  return reduce("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op, root, false, comm, request,
                false);
}

int MPI_Ireduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, int root, MPI_Comm comm, MPI_Request* request) {
  return reduce("MPI_Ireduce_c", sendbuf, recvbuf, count, datatype, op, root, false, comm, request,
                false);
}
int MPI_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, int root, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return reduce("MPI_Reduce_init", sendbuf, recvbuf, count, datatype, op, root, false, comm,
                request, true);
}

int MPI_Reduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, int root, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return reduce("MPI_Reduce_init_c", sendbuf, recvbuf, count, datatype, op, root, false, comm,
                request, true);
}

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                   MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce("MPI_Iallreduce", sendbuf, recvbuf, count, datatype, op, -1, true, comm, request,
                false);
}

int MPI_Iallreduce_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce("MPI_Iallreduce_c", sendbuf, recvbuf, count, datatype, op, -1, true, comm, request,
                false);
}
int MPI_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                       MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return reduce("MPI_Allreduce_init", sendbuf, recvbuf, count, datatype, op, -1, true, comm,
                request, true);
}

int MPI_Allreduce_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return reduce("MPI_Allreduce_init_c", sendbuf, recvbuf, count, datatype, op, -1, true, comm,
                request, true);
}

int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              MPI_Comm comm, MPI_Request* request) {
  return scan("MPI_Iscan", sendbuf, recvbuf, count, datatype, op, false, comm, request, false);
}

int MPI_Iscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return scan("MPI_Iscan_c", sendbuf, recvbuf, count, datatype, op, false, comm, request, false);
}
int MPI_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return scan("MPI_Scan_init", sendbuf, recvbuf, count, datatype, op, false, comm, request, true);
}

int MPI_Scan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return scan("MPI_Scan_init_c", sendbuf, recvbuf, count, datatype, op, false, comm, request, true);
}

int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm, MPI_Request* request) {
  return scan("MPI_Iexscan", sendbuf, recvbuf, count, datatype, op, true, comm, request, false);
}

int MPI_Iexscan_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return scan("MPI_Iexscan_c", sendbuf, recvbuf, count, datatype, op, true, comm, request, false);
}
int MPI_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return scan("MPI_Exscan_init", sendbuf, recvbuf, count, datatype, op, true, comm, request,
              true);
}

int MPI_Exscan_init_c(const void* sendbuf, void* recvbuf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Op op, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return scan("MPI_Exscan_init_c", sendbuf, recvbuf, count, datatype, op, true, comm, request,
              true);
}

int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              MPI_Request* request) {
  return reduce_scatter("MPI_Ireduce_scatter_block", sendbuf, recvbuf, nullptr, recvcount,
                        datatype, op, comm, request, false, true);
}

int MPI_Ireduce_scatter_block_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                MPI_Request* request) {
  return reduce_scatter("MPI_Ireduce_scatter_block_c", sendbuf, recvbuf, nullptr, recvcount,
                        datatype, op, comm, request, false, true);
}
int MPI_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info,
                                  MPI_Request* request) {
  return reduce_scatter("MPI_Reduce_scatter_block_init", sendbuf, recvbuf, nullptr, recvcount,
                        datatype, op, comm, request, true, true);
}

int MPI_Reduce_scatter_block_init_c(const void* sendbuf, void* recvbuf, MPI_Count recvcount,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info,
                                    MPI_Request* request) {
  return reduce_scatter("MPI_Reduce_scatter_block_init_c", sendbuf, recvbuf, nullptr, recvcount,
                        datatype, op, comm, request, true, true);
}

int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                        MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter("MPI_Ireduce_scatter", sendbuf, recvbuf, recvcounts, -1, datatype, op,
                        comm, request, false, false);
}

int MPI_Ireduce_scatter_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  return reduce_scatter("MPI_Ireduce_scatter_c", sendbuf, recvbuf, recvcounts, -1, datatype, op,
                        comm, request, false, false);
}
int MPI_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[],
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info,
                            MPI_Request* request) {
  return reduce_scatter("MPI_Reduce_scatter_init", sendbuf, recvbuf, recvcounts, -1, datatype,
                        op, comm, request, true, false);
}

int MPI_Reduce_scatter_init_c(const void* sendbuf, void* recvbuf, const MPI_Count recvcounts[],
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info,
                              MPI_Request* request) {
  return reduce_scatter("MPI_Reduce_scatter_init_c", sendbuf, recvbuf, recvcounts, -1, datatype,
                        op, comm, request, true, false);
}

int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                MPI_Request* request) {
  return gather("MPI_Igather", sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr, nullptr,
                recvtype, root, comm, request, false, false);
}

int MPI_Igather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request* request) {
  return gather("MPI_Igather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr, nullptr,
                recvtype, root, comm, request, false, false);
}
int MPI_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info,
                    MPI_Request* request) {
  return gather("MPI_Gather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr,
                nullptr, recvtype, root, comm, request, true, false);
}

int MPI_Gather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return gather("MPI_Gather_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr,
                nullptr, recvtype, root, comm, request, true, false);
}

int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                 MPI_Comm comm, MPI_Request* request) {
  return gather("MPI_Igatherv", sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs,
                recvtype, root, comm, request, false, true);
}

int MPI_Igatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                   int root, MPI_Comm comm, MPI_Request* request) {
  return gather("MPI_Igatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs,
                recvtype, root, comm, request, false, true);
}
int MPI_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return gather("MPI_Gatherv_init", sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs,
                recvtype, root, comm, request, true, true);
}

int MPI_Gatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                       MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info,
                       MPI_Request* request) {
  return gather("MPI_Gatherv_init_c", sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts, displs,
                recvtype, root, comm, request, true, true);
}

int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                 MPI_Request* request) {
  return scatter("MPI_Iscatter", sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                 recvcount, recvtype, root, comm, request, false, false);
}

int MPI_Iscatter_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request* request) {
  return scatter("MPI_Iscatter_c", sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                 recvcount, recvtype, root, comm, request, false, false);
}
int MPI_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info,
                     MPI_Request* request) {
  return scatter("MPI_Scatter_init", sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                 recvcount, recvtype, root, comm, request, true, false);
}

int MPI_Scatter_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                       MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return scatter("MPI_Scatter_init_c", sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                 recvcount, recvtype, root, comm, request, true, false);
}

int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                  MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                  int root, MPI_Comm comm, MPI_Request* request) {
  return scatter("MPI_Iscatterv", sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount,
                 recvtype, root, comm, request, false, true);
}

int MPI_Iscatterv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                    MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return scatter("MPI_Iscatterv_c", sendbuf, 0, sendcounts, displs, sendtype, recvbuf, recvcount,
                 recvtype, root, comm, request, false, true);
}
int MPI_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[],
                      MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                      int root, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return scatter("MPI_Scatterv_init", sendbuf, 0, sendcounts, displs, sendtype, recvbuf,
                 recvcount, recvtype, root, comm, request, true, true);
}

int MPI_Scatterv_init_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                        MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                        MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info,
                        MPI_Request* request) {
  return scatter("MPI_Scatterv_init_c", sendbuf, 0, sendcounts, displs, sendtype, recvbuf,
                 recvcount, recvtype, root, comm, request, true, true);
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgather("MPI_Iallgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr,
                   nullptr, recvtype, comm, request, false, false);
}

int MPI_Iallgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request* request) {
  return allgather("MPI_Iallgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, nullptr,
                   nullptr, recvtype, comm, request, false, false);
}
int MPI_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                       MPI_Request* request) {
  return allgather("MPI_Allgather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   nullptr, nullptr, recvtype, comm, request, true, false);
}

int MPI_Allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                         void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info, MPI_Request* request) {
  return allgather("MPI_Allgather_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   nullptr, nullptr, recvtype, comm, request, true, false);
}

int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request* request) {
  return allgather("MPI_Iallgatherv", sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                   displs, recvtype, comm, request, false, true);
}

int MPI_Iallgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                      void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                      MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgather("MPI_Iallgatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                   displs, recvtype, comm, request, false, true);
}
int MPI_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                        void* recvbuf, const int recvcounts[], const int displs[],
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return allgather("MPI_Allgatherv_init", sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                   displs, recvtype, comm, request, true, true);
}

int MPI_Allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                          void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                          MPI_Datatype recvtype, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return allgather("MPI_Allgatherv_init_c", sendbuf, sendcount, sendtype, recvbuf, 0, recvcounts,
                   displs, recvtype, comm, request, true, true);
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoall("MPI_Ialltoall", sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                  recvcount, nullptr, nullptr, recvtype, comm, request, false, false);
}

int MPI_Ialltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void* recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                    MPI_Request* request) {
  return alltoall("MPI_Ialltoall_c", sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                  recvcount, nullptr, nullptr, recvtype, comm, request, false, false);
}
int MPI_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                      int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                      MPI_Request* request) {
  return alltoall("MPI_Alltoall_init", sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                  recvcount, nullptr, nullptr, recvtype, comm, request, true, false);
}

int MPI_Alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                        void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                        MPI_Info, MPI_Request* request) {
  return alltoall("MPI_Alltoall_init_c", sendbuf, sendcount, nullptr, nullptr, sendtype, recvbuf,
                  recvcount, nullptr, nullptr, recvtype, comm, request, true, false);
}

int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                   MPI_Request* request) {
  return alltoall("MPI_Ialltoallv", sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0,
                  recvcounts, rdispls, recvtype, comm, request, false, true);
}

int MPI_Ialltoallv_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request* request) {
  return alltoall("MPI_Ialltoallv_c", sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0,
                  recvcounts, rdispls, recvtype, comm, request, false, true);
}
int MPI_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                       MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                       const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                       MPI_Request* request) {
  return alltoall("MPI_Alltoallv_init", sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0,
                  recvcounts, rdispls, recvtype, comm, request, true, true);
}

int MPI_Alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         MPI_Datatype recvtype, MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return alltoall("MPI_Alltoallv_init_c", sendbuf, 0, sendcounts, sdispls, sendtype, recvbuf, 0,
                  recvcounts, rdispls, recvtype, comm, request, true, true);
}

static int alltoallw(const char* fn, const void* sendbuf, CountArray sendcounts,
                     CountArray sdispls, const MPI_Datatype sendtypes[], void* recvbuf,
                     CountArray recvcounts, CountArray rdispls, const MPI_Datatype recvtypes[],
                     MPI_Comm comm, MPI_Request* request, bool persistent) {
  if (is_inter(comm)) {
    return inter_nbc_alltoallw(fn, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                               rdispls, recvtypes, comm, request, persistent);
  }
  return make(fn, comm, request, persistent, [&](const Collective& c) {
    return alltoallw_call(c, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                          rdispls, recvtypes);
  });
}

int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                   const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                   MPI_Request* request) {
  return alltoallw("MPI_Ialltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                   recvcounts, rdispls, recvtypes, comm, request, false);
}

int MPI_Ialltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                     MPI_Request* request) {
  return alltoallw("MPI_Ialltoallw_c", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                   recvcounts, rdispls, recvtypes, comm, request, false);
}
int MPI_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                       MPI_Info, MPI_Request* request) {
  return alltoallw("MPI_Alltoallw_init", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                   recvcounts, rdispls, recvtypes, comm, request, true);
}

int MPI_Alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void* recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info,
                         MPI_Request* request) {
  return alltoallw("MPI_Alltoallw_init_c", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                   recvcounts, rdispls, recvtypes, comm, request, true);
}
// The blocking form: the nonblocking one's schedule, waited for at once (vmc's collectives
// have no alltoallw).
int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  const int rc = alltoallw("MPI_Alltoallw", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                           recvcounts, rdispls, recvtypes, comm, &request, false);
  if (rc != MPI_SUCCESS) return rc;
  return MPI_Wait(&request, MPI_STATUS_IGNORE);
}

int MPI_Alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                    const MPI_Datatype sendtypes[], void* recvbuf, const MPI_Count recvcounts[],
                    const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  MPI_Request request = MPI_REQUEST_NULL;
  const int rc = alltoallw("MPI_Alltoallw_c", sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                           recvcounts, rdispls, recvtypes, comm, &request, false);
  if (rc != MPI_SUCCESS) return rc;
  return MPI_Wait(&request, MPI_STATUS_IGNORE);
}

}  // extern "C"
