// Intercommunicators (MPI-4.1 sections 7.6 and 6.2.2): MPI_Intercomm_create,
// _create_from_groups, _merge, MPI_Comm_remote_size, _remote_group; dup, split, create,
// compare and free of one (communicators.cpp calls them); point to point on one (pt2pt.cpp
// maps its ranks); and every blocking collective on one.
//
// What an intercommunicator is here (state.hpp's Intercomm): its handle's `comm` is a fresh
// comm of its local group, so MPI_Comm_size, _rank and _group give the local group as the
// standard says; `bridge` is a vmc comm over both groups, the group whose lowest world rank is
// lower first, each group in its own order, so that remote rank r is bridge rank
// r + remote_offset on either side: point to point runs on it (a rank names the remote group's
// rank, MPI_ANY_SOURCE takes any remote rank's message, a status gives the remote rank). The
// collectives run on two intracommunicator handles of the rank's own, never given to the
// program: `local` (the local group) and `both` (both groups, another context than `bridge`,
// so that no receive of the program takes a collective's message). Making these comms is the
// emulator's bookkeeping (Comm::create_group on the world, Comm::split), free in modelled time
// as every communicator constructor is; what the standard makes the processes exchange is
// modelled: MPI_Intercomm_create's leaders swap their groups over the peer communicator with
// the program's tag (a wrong leader or tag deadlocks, as in MPI, and the report names
// MPI_Intercomm_create), and each leader broadcasts the remote group in its own (its size,
// then its ranks); MPI_Intercomm_merge's leaders swap their `high` over `both` and broadcast
// it. A timing-only run (vmc mpirun --data none) moves no payload: those values go through
// the job (share_values), the messages charged all the same.
//
// The collectives are composed of vmc's intracommunicator collectives on each group and
// messages between the groups, as MPI libraries build them, so their virtual time is that of
// real algorithms (`both`'s messages are point to point on `both`):
//   MPI_Barrier          barrier in each group, the leaders swap an empty message, barrier
//   MPI_Bcast            root -> remote leader, bcast in the remote group
//   MPI_Reduce           reduce in the sending group to its leader, leader -> root
//   MPI_Allreduce        reduce in each group to its leader, the leaders swap, bcast in each
//   MPI_Reduce_scatter(_block)  reduce in each group to its leader, the leaders swap,
//                        scatter(v) in each group
//   MPI_Gather           gather in the sending group to its leader, leader -> root
//   MPI_Scatter          root -> remote leader, scatter in the remote group
//   MPI_Allgather        gather in each group to its leader, the leaders swap, bcast in each
//   MPI_Gatherv, _Scatterv, _Allgatherv  each block straight to or from the root (the
//                        counts are the root's alone), then, for allgatherv, a bcast in
//                        each group of what its leader received
//   MPI_Alltoall(v)      every rank sends its block to every remote rank (nonblocking, then
//                        waits for all)
//   MPI_Scan, _Exscan    not defined on an intercommunicator: MPI_ERR_COMM
// Each group's intracommunicator calls run with the job's algorithms (vmc mpirun --coll) or
// auto, as the program's own calls do. Argument errors are found by those calls on the ranks
// that use the arguments (a count at a PROC_NULL rank is not read, as the standard says).
// Mismatched calls: every member of both groups compares the call's name (and its op) through
// Comm::begin_collective on `both`, and each group's own calls compare their counts, roots and
// types within the group; not checked: that the two groups' counts and types agree (a
// mismatch there is a truncation or a wrong result, as under MPI libraries).
#include "mpi/intercomm.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "collectives/collectives.hpp"
#include "runtime/errors.hpp"

using namespace vmc;
using namespace vmc::mpi;

namespace {

// Comm::create_group's tags for the comms an intercommunicator is made of: negative, as every
// tag of a group MPI makes for itself (MPI_COMM_SELF's is -1, MPI_Comm_dup's -2).
constexpr std::int64_t kBridgeTag = -3;
constexpr std::int64_t kBothTag = -4;
constexpr std::int64_t kLocalTag = -5;
constexpr std::int64_t kMergeTag = -6;
constexpr std::int64_t kLeadersTag = -7;
constexpr std::int64_t kFromGroupsTag = -8;
// The tags of the point-to-point messages on `both`: a collective's, and MPI_Intercomm_merge's
// swap of `high` (only these calls send there, in the order every member calls them).
constexpr int kCollectiveTag = 0;
constexpr int kMergeSwapTag = 1;

const Comm& world(RankState& s) { return s.comms.at(MPI_COMM_WORLD).comm; }

std::vector<int> members_of(const Comm& c) {
  const std::span<const int> m = c.members();
  return {m.begin(), m.end()};
}

// Runs a front-door call of the runtime: a vmc misuse (the members' calls differ) ends the run
// as an MPI report; a failed rank or link the call needed (vmc mpirun --fail) fails the call
// with MPI_ERR_PROC_FAILED or MPI_ERR_OTHER through the communicator's error handler.
template <class F>
auto on_runtime(const char* fn, F&& f) {
  try {
    return told_of_failures(fn, std::forward<F>(f));
  } catch (const UsageError& e) {
    // vmc's text names the node first ("node 3 (rank 1 of comm 2): "): the report names the
    // rank.
    const std::string text = without_who(e.what(), "");
    if (const auto* differ = dynamic_cast<const CallsDifferError*>(&e)) {
      // The failure of the rank it blames, which may be another than this one.
      blamed_rank_failure(*differ, "the ranks' calls differ: " + text);
    }
    throw FatalError(error_report(fn, MPI_ERR_ARG, "the ranks' calls differ: " + text));
  }
}

// The leader's `values` on every rank of `local` (rank `root`'s): two broadcasts, the count
// then the values, each a modelled message; the values themselves go through the job, so a
// timing-only run has them too. Collective over `local`.
std::vector<std::size_t> from_leader(const char* fn, const Comm& local, int root,
                                     std::vector<std::size_t> values) {
  CallSignature sig;
  sig.operation = fn;
  const Tag tag = on_runtime(fn, [&] { return local.begin_collective(sig); });
  const SharedKey key{local.id(), tag};
  const bool leader = local.rank() == root;
  if (leader) share_values(key, values, local.size() - 1);
  std::size_t n = values.size();
  vmc::broadcast(local, std::span<std::size_t>(&n, 1), root, operation_options(Operation::broadcast));
  if (!leader) values = take_shared_values(key);
  vmc::broadcast(local, std::span<std::size_t>(values), root, operation_options(Operation::broadcast));
  return values;
}

// The leaders' swap: this leader's `values` to the other (rank `peer` of `over`, which both are
// in) and the other's back, one message each way of tag `tag`; `key` names the swap (the two
// sides' values are shared under key.tag + side, `side` 0 or 1 on the two leaders).
std::vector<std::size_t> swap_with_leader(const Comm& over, int peer, Tag tag, SharedKey key,
                                          int side, std::vector<std::size_t> values) {
  share_values({key.comm, key.tag + side}, values, 1);
  // A group is at most the world: room enough for any message of the other leader.
  std::vector<std::size_t> in(static_cast<std::size_t>(this_node()->size()) + 1);
  vmc::Status got;
  over.sendrecv_raw(values.data(), values.size() * sizeof(std::size_t), values.size(), peer, tag,
                    in.data(), in.size() * sizeof(std::size_t), sizeof(std::size_t), peer, tag,
                    &got);
  return take_shared_values({key.comm, key.tag + 1 - side});
}


// --- making intercommunicators ---------------------------------------------------------------

std::size_t add_entry(RankState& s, CommEntry e) {
  s.comms.push_back(std::move(e));
  return s.comms.size() - 1;
}

// The intercommunicator of local group `local` (a comm of its own, fresh) and the remote group
// `remote` (world ranks, by remote rank): a new handle with `errhandler`, and its two handles
// of the rank's own (the errors of the calls made on them come back to the intercomm call:
// MPI_ERRORS_RETURN). Bookkeeping only: every member of both groups makes it with the same
// lists.
MPI_Comm make_inter(const char* fn, RankState& s, Comm local, std::vector<int> remote,
                    MPI_Errhandler errhandler,
                    std::vector<std::pair<std::string, std::string>> info = {}) {
  const std::vector<int> mine = members_of(local);
  const bool first = *std::min_element(mine.begin(), mine.end()) <
                     *std::min_element(remote.begin(), remote.end());
  std::vector<int> order = first ? mine : remote;
  const std::vector<int>& second = first ? remote : mine;
  order.insert(order.end(), second.begin(), second.end());
  auto x = std::make_shared<Intercomm>();
  x->bridge = constructed(fn, [&] { return world(s).create_group(order, kBridgeTag); });
  Comm both = constructed(fn, [&] { return world(s).create_group(order, kBothTag); });
  x->local_offset = first ? 0 : static_cast<int>(remote.size());
  x->remote_offset = first ? static_cast<int>(mine.size()) : 0;
  x->remote = std::move(remote);
  const auto handle = static_cast<MPI_Comm>(s.comms.size());
  x->local = handle + 1;
  x->both = handle + 2;
  const std::string label = "communicator " + std::to_string(handle);
  add_entry(s, CommEntry{.comm = local, .errhandler = errhandler, .inter = x,
                         .info = std::move(info)});
  add_entry(s, CommEntry{.comm = std::move(local), .name = "local group of " + label,
                         .errhandler = MPI_ERRORS_RETURN});
  add_entry(s, CommEntry{.comm = std::move(both), .name = "both groups of " + label,
                         .errhandler = MPI_ERRORS_RETURN});
  return handle;
}

const Intercomm& inter_of(const char* fn, RankState& s, MPI_Comm comm) {
  const CommEntry& e = comm_or_fail(fn, s, comm);
  if (e.inter == nullptr) {
    fail(fn, MPI_ERR_COMM, comm_label(s, comm) + " is not an intercommunicator");
  }
  return *e.inter;
}

std::vector<std::size_t> as_values(const std::vector<int>& v) { return {v.begin(), v.end()}; }
std::vector<int> as_ranks(const std::vector<std::size_t>& v) { return {v.begin(), v.end()}; }

// --- collectives: the call on its rank ---------------------------------------------------------

// An intercommunicator collective on its rank: checked, its context named for a deadlock
// report, its name (and op) compared by every member of both groups.
struct InterCall {
  const char* fn;
  RankState& s;
  MPI_Comm comm;
  const Intercomm& x;
  int rank;        // in the local group
  int local_size;
  int remote_size;

  bool leader() const { return rank == 0; }
  // The rank of remote rank r, and of the remote leader, on `both`.
  int remote(int r) const { return r + x.remote_offset; }
  int remote_leader() const { return x.remote_offset; }
};

InterCall open_inter(const char* fn, MPI_Comm comm, const char* op = nullptr) {
  RankState& s = session_state(fn);
  const CommEntry& e = comm_or_fail(fn, s, comm);
  const Intercomm& x = *e.inter;
  CallSignature sig;
  sig.operation = fn;
  sig.check_count = false;  // each group's own calls compare their counts
  const std::string op_text = op != nullptr ? op : "";
  sig.op = op_text;
  on_runtime(fn, [&] {
    s.comms.at(static_cast<std::size_t>(x.both)).comm.begin_collective(sig);
    return 0;
  });
  return {fn, s, comm, x, e.comm.rank(), e.comm.size(), static_cast<int>(x.remote.size())};
}

// An op in the members' comparison, by its handle ("MPI_Op 3": a predefined op's is the same
// on every rank, and a program makes its own in one order on every rank).
std::string op_text(MPI_Op op) { return "MPI_Op " + std::to_string(op); }

// A call made on the rank's own handles: its error (which MPI_ERRORS_RETURN returned) raised
// again as the intercommunicator call's, with its text.
void inner(const InterCall& c, int rc) {
  if (rc == MPI_SUCCESS) return;
  std::string text = "failed";
  int cls = rc;
  MPI_Error_class(rc, &cls);
  if (auto it = c.s.last_error.find(cls); it != c.s.last_error.end()) {
    text = it->second;
    // "MPI_Reduce: MPI_ERR_COUNT: negative count -1": the class is said again by the report.
    const std::size_t a = text.find(": ");
    const std::size_t b = a == std::string::npos ? a : text.find(": ", a + 2);
    if (b != std::string::npos) text = text.substr(0, a) + ": " + text.substr(b + 2);
  }
  fail(c.fn, rc, text);
}

void check_inter_root(const InterCall& c, int root) {
  vmc::mpi::check_inter_root(c.fn, root, c.remote_size);
}

void check_no_in_place(const InterCall& c, const void* buf) {
  if (buf == MPI_IN_PLACE) {
    fail(c.fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed on an intercommunicator");
  }
}

std::string root_text(int root) {
  if (root == MPI_ROOT) return "MPI_ROOT";
  if (root == MPI_PROC_NULL) return "MPI_PROC_NULL";
  return std::to_string(root);
}

// Names the call in a deadlock report while the rank is inside it, as the intracommunicator
// calls do: "MPI_Bcast(root MPI_ROOT, communicator 5)".
struct InterContext {
  CallContext context;
  InterContext(const InterCall& c, const std::string& args)
      : context(std::string(c.fn) + "(" + args + (args.empty() ? "" : ", ") +
                comm_label(c.s, c.comm) + ")") {}
};

// Scratch room for `count` items of `type`, laid out as a buffer of them (its true extent).
struct Scratch {
  std::vector<unsigned char> bytes;
  void* at = nullptr;
};
Scratch scratch(const InterCall& c, MPI_Datatype type, long long count) {
  Scratch out;
  if (count <= 0) return out;
  MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
  inner(c, MPI_Type_get_extent(type, &lb, &extent));
  inner(c, MPI_Type_get_true_extent(type, &true_lb, &true_extent));
  out.bytes.resize(static_cast<std::size_t>((count - 1) * std::max<MPI_Aint>(extent, 0) +
                                            true_extent) + 1);
  out.at = out.bytes.data() - true_lb;
  return out;
}

MPI_Aint extent_of(const InterCall& c, MPI_Datatype type) {
  MPI_Aint lb = 0, extent = 0;
  inner(c, MPI_Type_get_extent(type, &lb, &extent));
  return extent;
}

const void* at(const void* buf, MPI_Aint bytes) {
  return static_cast<const unsigned char*>(buf) + bytes;
}
void* at(void* buf, MPI_Aint bytes) { return static_cast<unsigned char*>(buf) + bytes; }

// Waits for every request of `rs` (the rank's own, on `both`).
void wait_all(const InterCall& c, std::vector<MPI_Request>& rs) {
  if (rs.empty()) return;
  inner(c, MPI_Waitall(static_cast<int>(rs.size()), rs.data(), MPI_STATUSES_IGNORE));
}

}  // namespace

namespace vmc::mpi {

void check_inter_root(const char* fn, int root, int remote_size) {
  if (root == MPI_ROOT || root == MPI_PROC_NULL) return;
  if (root < 0 || root >= remote_size) {
    fail(fn, MPI_ERR_ROOT,
         "root " + std::to_string(root) +
             " is none of MPI_ROOT, MPI_PROC_NULL and a rank of the remote group (of " +
             std::to_string(remote_size) + ") on an intercommunicator");
  }
}

bool is_inter(MPI_Comm comm) {
  const Node* n = this_node();
  if (n == nullptr) return false;
  const RankState& s = rank_state(*n);
  if (!s.initialized || s.finalized) return false;
  const CommEntry* e = live_comm(s, comm);
  return e != nullptr && e->inter != nullptr;
}

MPI_Comm dup_inter(const char* fn, RankState& s, MPI_Comm comm, MPI_Errhandler errhandler) {
  const CommEntry& e = s.comms.at(static_cast<std::size_t>(comm));
  const std::vector<int> all = [&] {
    std::vector<int> r(static_cast<std::size_t>(e.comm.size()));
    for (int i = 0; i < e.comm.size(); ++i) r[static_cast<std::size_t>(i)] = i;
    return r;
  }();
  Comm local = constructed(fn, [&] { return e.comm.create_group(all, kLocalTag); });
  std::vector<int> remote = e.inter->remote;
  std::vector<std::pair<std::string, std::string>> info = e.info;
  return make_inter(fn, s, std::move(local), std::move(remote), errhandler, std::move(info));
}

// The new local group: the local ranks of colour `color` by (key, rank); the new remote group:
// the remote ranks of that colour in their own new order, which `both`'s split gives (its
// order within a group is the group's: (key, rank)). Comm::split is bookkeeping: no data.
MPI_Comm split_inter(const char* fn, RankState& s, MPI_Comm comm, int color, int key) {
  const CommEntry& e = s.comms.at(static_cast<std::size_t>(comm));
  const MPI_Errhandler errhandler = e.errhandler;
  const Intercomm x = *e.inter;
  Comm local = constructed(fn, [&] { return e.comm.split(color, key); });
  Comm both = constructed(
      fn, [&] { return s.comms.at(static_cast<std::size_t>(x.both)).comm.split(color, key); });
  if (!local.valid()) return MPI_COMM_NULL;
  const std::vector<int> mine = members_of(local);
  std::vector<int> remote;
  for (int w : both.members()) {
    if (std::find(mine.begin(), mine.end(), w) == mine.end()) remote.push_back(w);
  }
  if (remote.empty()) return MPI_COMM_NULL;
  return make_inter(fn, s, std::move(local), std::move(remote), errhandler);
}

// MPI_Comm_create on an intercommunicator: `members` (world ranks) is a group of the local
// group; the remote side's is the remote ranks of their own call. A split by membership.
MPI_Comm create_inter(const char* fn, RankState& s, MPI_Comm comm,
                      const std::vector<int>& members) {
  const CommEntry& e = s.comms.at(static_cast<std::size_t>(comm));
  const std::vector<int> local = members_of(e.comm);
  for (int w : members) {
    if (std::find(local.begin(), local.end(), w) == local.end()) {
      fail(fn, MPI_ERR_GROUP,
           "the group holds world rank " + std::to_string(w) +
               ", which is not in the intercommunicator's local group");
    }
  }
  const int me = e.comm.world_rank(e.comm.rank());
  auto it = std::find(members.begin(), members.end(), me);
  const bool in = it != members.end();
  return split_inter(fn, s, comm, in ? 0 : -1, in ? static_cast<int>(it - members.begin()) : 0);
}

void free_inter(RankState& s, const CommEntry& e) {
  const MPI_Comm local = e.inter->local, both = e.inter->both;
  s.comms.at(static_cast<std::size_t>(local)) = CommEntry{.freed = true};
  s.comms.at(static_cast<std::size_t>(both)) = CommEntry{.freed = true};
}

namespace {
int compare_lists(std::span<const int> a, std::span<const int> b) {
  if (std::equal(a.begin(), a.end(), b.begin(), b.end())) return MPI_IDENT;
  if (a.size() != b.size()) return MPI_UNEQUAL;
  std::vector<int> x(a.begin(), a.end()), y(b.begin(), b.end());
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  return x == y ? MPI_SIMILAR : MPI_UNEQUAL;
}
}  // namespace

// An intercommunicator and an intracommunicator are unequal; two intercommunicators are
// congruent when both their groups are the same in the same order, similar when their members
// are (MPI-4.1 7.4.1); MPI_IDENT is the same one (the caller's test).
int compare_inter(const CommEntry& a, const CommEntry& b) {
  if (a.inter == nullptr || b.inter == nullptr) return MPI_UNEQUAL;
  const int l = compare_lists(a.comm.members(), b.comm.members());
  const int r = compare_lists(a.inter->remote, b.inter->remote);
  if (l == MPI_UNEQUAL || r == MPI_UNEQUAL) return MPI_UNEQUAL;
  return l == MPI_IDENT && r == MPI_IDENT ? MPI_CONGRUENT : MPI_SIMILAR;
}

// --- collectives ------------------------------------------------------------------------------

int inter_barrier(MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const InterCall c = open_inter("MPI_Barrier", comm);
    const InterContext context(c, "");
    inner(c, MPI_Barrier(c.x.local));
    if (c.leader()) {
      inner(c, MPI_Sendrecv(nullptr, 0, MPI_BYTE, c.remote_leader(), kCollectiveTag, nullptr, 0,
                            MPI_BYTE, c.remote_leader(), kCollectiveTag, c.x.both,
                            MPI_STATUS_IGNORE));
    }
    inner(c, MPI_Barrier(c.x.local));
    return MPI_SUCCESS;
  });
}

int inter_bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const InterCall c = open_inter("MPI_Bcast", comm);
    check_inter_root(c, root);
    const InterContext context(c, "root " + root_text(root));
    if (root == MPI_ROOT) {
      inner(c, MPI_Send(buffer, count, datatype, c.remote_leader(), kCollectiveTag, c.x.both));
    } else if (root != MPI_PROC_NULL) {
      if (c.leader()) {
        inner(c, MPI_Recv(buffer, count, datatype, c.remote(root), kCollectiveTag, c.x.both,
                          MPI_STATUS_IGNORE));
      }
      inner(c, MPI_Bcast(buffer, count, datatype, 0, c.x.local));
    }
    return MPI_SUCCESS;
  });
}

int inter_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const std::string o = op_text(op);
    const InterCall c = open_inter("MPI_Reduce", comm, o.c_str());
    check_inter_root(c, root);
    const InterContext context(c, "root " + root_text(root));
    if (root == MPI_ROOT) {
      check_no_in_place(c, recvbuf);
      inner(c, MPI_Recv(recvbuf, count, datatype, c.remote_leader(), kCollectiveTag, c.x.both,
                        MPI_STATUS_IGNORE));
    } else if (root != MPI_PROC_NULL) {
      check_no_in_place(c, sendbuf);
      Scratch t = c.leader() ? scratch(c, datatype, count) : Scratch{};
      inner(c, MPI_Reduce(sendbuf, t.at, count, datatype, op, 0, c.x.local));
      if (c.leader()) {
        inner(c, MPI_Send(t.at, count, datatype, c.remote(root), kCollectiveTag, c.x.both));
      }
    }
    return MPI_SUCCESS;
  });
}

// Each group's reduction at its leader, swapped with the other leader's into `into`.
void reduce_and_swap(const InterCall& c, const void* sendbuf, void* into, int count,
                     MPI_Datatype datatype, MPI_Op op) {
  check_no_in_place(c, sendbuf);
  Scratch t = c.leader() ? scratch(c, datatype, count) : Scratch{};
  inner(c, MPI_Reduce(sendbuf, t.at, count, datatype, op, 0, c.x.local));
  if (c.leader()) {
    inner(c, MPI_Sendrecv(t.at, count, datatype, c.remote_leader(), kCollectiveTag, into, count,
                          datatype, c.remote_leader(), kCollectiveTag, c.x.both,
                          MPI_STATUS_IGNORE));
  }
}

int inter_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const std::string o = op_text(op);
    const InterCall c = open_inter("MPI_Allreduce", comm, o.c_str());
    check_no_in_place(c, recvbuf);
    const InterContext context(c, std::to_string(count) + " items");
    reduce_and_swap(c, sendbuf, recvbuf, count, datatype, op);
    inner(c, MPI_Bcast(recvbuf, count, datatype, 0, c.x.local));
    return MPI_SUCCESS;
  });
}

int inter_scan(const char* fn, MPI_Comm comm) {
  return mpi_call(comm, [&]() -> int {
    RankState& s = session_state(fn);
    fail(fn, MPI_ERR_COMM,
         std::string(fn) + " is not defined on an intercommunicator (" + comm_label(s, comm) +
             " is one; MPI-4.1 section 6.11)");
  });
}

int inter_reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const std::string o = op_text(op);
    const InterCall c = open_inter("MPI_Reduce_scatter_block", comm, o.c_str());
    check_no_in_place(c, recvbuf);
    if (recvcount < 0) fail(c.fn, MPI_ERR_COUNT, "negative count " + std::to_string(recvcount));
    const InterContext context(c, std::to_string(recvcount) + " items a block");
    // Each group's vector: its size times recvcount (the same count in both groups).
    const int n = c.local_size * recvcount;
    Scratch other = c.leader() ? scratch(c, datatype, n) : Scratch{};
    reduce_and_swap(c, sendbuf, other.at, n, datatype, op);
    inner(c, MPI_Scatter(other.at, recvcount, datatype, recvbuf, recvcount, datatype, 0,
                         c.x.local));
    return MPI_SUCCESS;
  });
}

int inter_reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const std::string o = op_text(op);
    const InterCall c = open_inter("MPI_Reduce_scatter", comm, o.c_str());
    check_no_in_place(c, recvbuf);
    check_arg(c.fn, recvcounts, "recvcounts");
    std::vector<int> displs(static_cast<std::size_t>(c.local_size));
    int n = 0;
    for (int i = 0; i < c.local_size; ++i) {
      if (recvcounts[i] < 0) {
        fail(c.fn, MPI_ERR_COUNT,
             "negative recvcounts[" + std::to_string(i) + "] " + std::to_string(recvcounts[i]));
      }
      displs[static_cast<std::size_t>(i)] = n;
      n += recvcounts[i];
    }
    const InterContext context(c, std::to_string(n) + " items");
    Scratch other = c.leader() ? scratch(c, datatype, n) : Scratch{};
    reduce_and_swap(c, sendbuf, other.at, n, datatype, op);
    inner(c, MPI_Scatterv(other.at, recvcounts, displs.data(), datatype, recvbuf,
                          recvcounts[c.rank], datatype, 0, c.x.local));
    return MPI_SUCCESS;
  });
}

int inter_gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const InterCall c = open_inter("MPI_Gather", comm);
    check_inter_root(c, root);
    const InterContext context(c, "root " + root_text(root));
    if (root == MPI_ROOT) {
      check_no_in_place(c, recvbuf);
      if (recvcount < 0) fail(c.fn, MPI_ERR_COUNT, "negative count " + std::to_string(recvcount));
      inner(c, MPI_Recv(recvbuf, c.remote_size * recvcount, recvtype, c.remote_leader(),
                        kCollectiveTag, c.x.both, MPI_STATUS_IGNORE));
    } else if (root != MPI_PROC_NULL) {
      check_no_in_place(c, sendbuf);
      if (sendcount < 0) fail(c.fn, MPI_ERR_COUNT, "negative count " + std::to_string(sendcount));
      const int n = c.local_size * sendcount;
      Scratch t = c.leader() ? scratch(c, sendtype, n) : Scratch{};
      inner(c, MPI_Gather(sendbuf, sendcount, sendtype, t.at, sendcount, sendtype, 0, c.x.local));
      if (c.leader()) {
        inner(c, MPI_Send(t.at, n, sendtype, c.remote(root), kCollectiveTag, c.x.both));
      }
    }
    return MPI_SUCCESS;
  });
}

// Each remote rank's block straight into the root's buffer (the counts are the root's).
void receive_blocks(const InterCall& c, void* recvbuf, const int recvcounts[], const int displs[],
                    MPI_Datatype recvtype) {
  check_no_in_place(c, recvbuf);
  check_arg(c.fn, recvcounts, "recvcounts");
  check_arg(c.fn, displs, "displs");
  const MPI_Aint extent = extent_of(c, recvtype);
  std::vector<MPI_Request> rs;
  for (int i = 0; i < c.remote_size; ++i) {
    MPI_Request r = MPI_REQUEST_NULL;
    inner(c, MPI_Irecv(at(recvbuf, displs[i] * extent), recvcounts[i], recvtype, c.remote(i),
                       kCollectiveTag, c.x.both, &r));
    rs.push_back(r);
  }
  wait_all(c, rs);
}

int inter_gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const InterCall c = open_inter("MPI_Gatherv", comm);
    check_inter_root(c, root);
    const InterContext context(c, "root " + root_text(root));
    if (root == MPI_ROOT) {
      receive_blocks(c, recvbuf, recvcounts, displs, recvtype);
    } else if (root != MPI_PROC_NULL) {
      check_no_in_place(c, sendbuf);
      inner(c, MPI_Send(sendbuf, sendcount, sendtype, c.remote(root), kCollectiveTag, c.x.both));
    }
    return MPI_SUCCESS;
  });
}

int inter_scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const InterCall c = open_inter("MPI_Scatter", comm);
    check_inter_root(c, root);
    const InterContext context(c, "root " + root_text(root));
    if (root == MPI_ROOT) {
      check_no_in_place(c, sendbuf);
      if (sendcount < 0) fail(c.fn, MPI_ERR_COUNT, "negative count " + std::to_string(sendcount));
      inner(c, MPI_Send(sendbuf, c.remote_size * sendcount, sendtype, c.remote_leader(),
                        kCollectiveTag, c.x.both));
    } else if (root != MPI_PROC_NULL) {
      check_no_in_place(c, recvbuf);
      if (recvcount < 0) fail(c.fn, MPI_ERR_COUNT, "negative count " + std::to_string(recvcount));
      const int n = c.local_size * recvcount;
      Scratch t = c.leader() ? scratch(c, recvtype, n) : Scratch{};
      if (c.leader()) {
        inner(c, MPI_Recv(t.at, n, recvtype, c.remote(root), kCollectiveTag, c.x.both,
                          MPI_STATUS_IGNORE));
      }
      inner(c, MPI_Scatter(t.at, recvcount, recvtype, recvbuf, recvcount, recvtype, 0,
                           c.x.local));
    }
    return MPI_SUCCESS;
  });
}

int inter_scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const InterCall c = open_inter("MPI_Scatterv", comm);
    check_inter_root(c, root);
    const InterContext context(c, "root " + root_text(root));
    if (root == MPI_ROOT) {
      check_no_in_place(c, sendbuf);
      check_arg(c.fn, sendcounts, "sendcounts");
      check_arg(c.fn, displs, "displs");
      const MPI_Aint extent = extent_of(c, sendtype);
      std::vector<MPI_Request> rs;
      for (int i = 0; i < c.remote_size; ++i) {
        MPI_Request r = MPI_REQUEST_NULL;
        inner(c, MPI_Isend(at(sendbuf, displs[i] * extent), sendcounts[i], sendtype, c.remote(i),
                           kCollectiveTag, c.x.both, &r));
        rs.push_back(r);
      }
      wait_all(c, rs);
    } else if (root != MPI_PROC_NULL) {
      check_no_in_place(c, recvbuf);
      inner(c, MPI_Recv(recvbuf, recvcount, recvtype, c.remote(root), kCollectiveTag, c.x.both,
                        MPI_STATUS_IGNORE));
    }
    return MPI_SUCCESS;
  });
}

int inter_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const InterCall c = open_inter("MPI_Allgather", comm);
    check_no_in_place(c, sendbuf);
    check_no_in_place(c, recvbuf);
    if (sendcount < 0) fail(c.fn, MPI_ERR_COUNT, "negative count " + std::to_string(sendcount));
    if (recvcount < 0) fail(c.fn, MPI_ERR_COUNT, "negative count " + std::to_string(recvcount));
    const InterContext context(c, "");
    const int n = c.local_size * sendcount, m = c.remote_size * recvcount;
    Scratch t = c.leader() ? scratch(c, sendtype, n) : Scratch{};
    inner(c, MPI_Gather(sendbuf, sendcount, sendtype, t.at, sendcount, sendtype, 0, c.x.local));
    if (c.leader()) {
      inner(c, MPI_Sendrecv(t.at, n, sendtype, c.remote_leader(), kCollectiveTag, recvbuf, m,
                            recvtype, c.remote_leader(), kCollectiveTag, c.x.both,
                            MPI_STATUS_IGNORE));
    }
    inner(c, MPI_Bcast(recvbuf, m, recvtype, 0, c.x.local));
    return MPI_SUCCESS;
  });
}

int inter_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const InterCall c = open_inter("MPI_Allgatherv", comm);
    check_no_in_place(c, sendbuf);
    const InterContext context(c, "");
    // Every rank's block to the remote leader, which receives the remote group's ...
    MPI_Request mine = MPI_REQUEST_NULL;
    inner(c, MPI_Isend(sendbuf, sendcount, sendtype, c.remote_leader(), kCollectiveTag,
                       c.x.both, &mine));
    if (c.leader()) receive_blocks(c, recvbuf, recvcounts, displs, recvtype);
    std::vector<MPI_Request> rs{mine};
    wait_all(c, rs);
    // ... and broadcasts them in its group, as one indexed type of the blocks.
    check_arg(c.fn, recvcounts, "recvcounts");
    check_arg(c.fn, displs, "displs");
    MPI_Datatype blocks = MPI_DATATYPE_NULL;
    inner(c, MPI_Type_indexed(c.remote_size, recvcounts, displs, recvtype, &blocks));
    inner(c, MPI_Type_commit(&blocks));
    const int rc = MPI_Bcast(recvbuf, 1, blocks, 0, c.x.local);
    MPI_Type_free(&blocks);
    inner(c, rc);
    return MPI_SUCCESS;
  });
}

int inter_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const InterCall c = open_inter("MPI_Alltoall", comm);
    check_no_in_place(c, sendbuf);
    check_no_in_place(c, recvbuf);
    const InterContext context(c, "");
    const MPI_Aint sext = extent_of(c, sendtype), rext = extent_of(c, recvtype);
    std::vector<MPI_Request> rs;
    for (int i = 0; i < c.remote_size; ++i) {
      MPI_Request r = MPI_REQUEST_NULL, q = MPI_REQUEST_NULL;
      inner(c, MPI_Irecv(at(recvbuf, MPI_Aint{i} * recvcount * rext), recvcount, recvtype,
                         c.remote(i), kCollectiveTag, c.x.both, &r));
      inner(c, MPI_Isend(at(sendbuf, MPI_Aint{i} * sendcount * sext), sendcount, sendtype,
                         c.remote(i), kCollectiveTag, c.x.both, &q));
      rs.push_back(r);
      rs.push_back(q);
    }
    wait_all(c, rs);
    return MPI_SUCCESS;
  });
}

int inter_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return mpi_call(comm, [&] {
    const InterCall c = open_inter("MPI_Alltoallv", comm);
    check_no_in_place(c, sendbuf);
    check_no_in_place(c, recvbuf);
    check_arg(c.fn, sendcounts, "sendcounts");
    check_arg(c.fn, sdispls, "sdispls");
    check_arg(c.fn, recvcounts, "recvcounts");
    check_arg(c.fn, rdispls, "rdispls");
    const InterContext context(c, "");
    const MPI_Aint sext = extent_of(c, sendtype), rext = extent_of(c, recvtype);
    std::vector<MPI_Request> rs;
    for (int i = 0; i < c.remote_size; ++i) {
      MPI_Request r = MPI_REQUEST_NULL, q = MPI_REQUEST_NULL;
      inner(c, MPI_Irecv(at(recvbuf, rdispls[i] * rext), recvcounts[i], recvtype, c.remote(i),
                         kCollectiveTag, c.x.both, &r));
      inner(c, MPI_Isend(at(sendbuf, sdispls[i] * sext), sendcounts[i], sendtype, c.remote(i),
                         kCollectiveTag, c.x.both, &q));
      rs.push_back(r);
      rs.push_back(q);
    }
    wait_all(c, rs);
    return MPI_SUCCESS;
  });
}

}  // namespace vmc::mpi

extern "C" {

// The local leader swaps its group (world ranks) with the remote leader's over `peer_comm`
// with `tag` (a message each way, as the standard says), then broadcasts the remote group in
// its own; every member then makes the same comms (make_inter).
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                         int remote_leader, int tag, MPI_Comm* newintercomm) {
  const char* fn = "MPI_Intercomm_create";
  return mpi_call(local_comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& l = comm_or_fail(fn, s, local_comm);
    if (l.inter != nullptr) {
      fail(fn, MPI_ERR_COMM,
           "the local communicator " + comm_label(s, local_comm) + " is an intercommunicator");
    }
    check_arg(fn, newintercomm, "newintercomm");
    check_rank(fn, MPI_ERR_RANK, "local_leader", local_leader, l.comm);
    const Comm local_parent = l.comm;
    const MPI_Errhandler errhandler = l.errhandler;
    const bool leader = local_parent.rank() == local_leader;
    const std::string call = std::string(fn) + "(local leader " + std::to_string(local_leader) +
                             ", " + comm_label(s, local_comm) + ", remote leader " +
                             std::to_string(remote_leader) + " of " +
                             comm_label(s, peer_comm) + ", tag " + std::to_string(tag) + ")";
    const CallContext context(call);
    std::vector<std::size_t> remote;
    if (leader) {
      const CommEntry& p = comm_or_fail(fn, s, peer_comm);
      if (p.inter != nullptr) {
        fail(fn, MPI_ERR_COMM,
             "the peer communicator " + comm_label(s, peer_comm) + " is an intercommunicator");
      }
      check_rank(fn, MPI_ERR_RANK, "remote_leader", remote_leader, p.comm);
      if (tag < 0) fail(fn, MPI_ERR_TAG, "invalid tag " + std::to_string(tag) + " (negative)");
      const int me = p.comm.world_rank(p.comm.rank());
      const int other = p.comm.world_rank(remote_leader);
      if (me == other) {
        fail(fn, MPI_ERR_RANK,
             "the remote leader " + std::to_string(remote_leader) +
                 " of the peer communicator is this rank, the local leader (the groups must be "
                 "disjoint)");
      }
      // The leaders' pair names the swap's values in the job (a comm of their own, made
      // anew for each creation: bookkeeping).
      const int pair_members[2] = {std::min(me, other), std::max(me, other)};
      const Comm pair =
          constructed(fn, [&] { return world(s).create_group(pair_members, kLeadersTag); });
      CallSignature sig;
      sig.operation = fn;
      const Tag key_tag = on_runtime(fn, [&] { return pair.begin_collective(sig); });
      remote = on_runtime(fn, [&] {
        return swap_with_leader(p.comm, remote_leader, tag, SharedKey{pair.id(), key_tag},
                                me < other ? 0 : 1, as_values(members_of(local_parent)));
      });
    }
    // A fresh comm of the local group, so that no message of local_comm's is the new one's.
    std::vector<int> all(static_cast<std::size_t>(local_parent.size()));
    for (int i = 0; i < local_parent.size(); ++i) all[static_cast<std::size_t>(i)] = i;
    Comm local = constructed(fn, [&] { return local_parent.create_group(all, kLocalTag); });
    // The leader's list on every member (local ranks local_comm's).
    remote = on_runtime(fn, [&] {
      return from_leader(fn, local, local_leader, std::move(remote));
    });
    const std::vector<int> mine = members_of(local_parent);
    for (std::size_t w : remote) {
      if (std::find(mine.begin(), mine.end(), static_cast<int>(w)) != mine.end()) {
        fail(fn, MPI_ERR_COMM,
             "world rank " + std::to_string(w) +
                 " is in both groups: the local and remote groups must be disjoint");
      }
    }
    *newintercomm = make_inter(fn, s, std::move(local), as_ranks(remote), errhandler);
    return MPI_SUCCESS;
  });
}

// Every member of both groups calls; the group that passes high = false comes first (when
// both pass the same, the group of the lower world rank first). The leaders swap their
// groups' `high` over `both` and broadcast the other's in their group.
int MPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  const char* fn = "MPI_Intercomm_merge";
  return mpi_call(intercomm, [&] {
    RankState& s = session_state(fn);
    const Intercomm& x = inter_of(fn, s, intercomm);
    check_arg(fn, newintracomm, "newintracomm");
    const CommEntry& e = s.comms.at(static_cast<std::size_t>(intercomm));
    const Comm local = e.comm;
    const MPI_Errhandler errhandler = e.errhandler;
    const Intercomm kept = x;
    const Comm both = s.comms.at(static_cast<std::size_t>(kept.both)).comm;
    const CallContext context(std::string(fn) + "(high " + std::to_string(high) + ", " +
                              comm_label(s, intercomm) + ")");
    CallSignature sig;
    sig.operation = fn;
    const Tag tag = on_runtime(fn, [&] { return both.begin_collective(sig); });
    std::vector<std::size_t> theirs;
    const bool first = kept.local_offset == 0;
    if (local.rank() == 0) {
      theirs = on_runtime(fn, [&] {
        return swap_with_leader(both, kept.remote_offset, kMergeSwapTag, SharedKey{both.id(), tag},
                                first ? 0 : 1, {high != 0 ? 1u : 0u});
      });
    }
    theirs = on_runtime(fn, [&] { return from_leader(fn, local, 0, std::move(theirs)); });
    const bool their_high = !theirs.empty() && theirs[0] != 0;
    const bool mine_first = (high != 0) == their_high ? first : high == 0;
    const std::vector<int> mine = members_of(local);
    std::vector<int> order = mine_first ? mine : kept.remote;
    const std::vector<int>& second = mine_first ? kept.remote : mine;
    order.insert(order.end(), second.begin(), second.end());
    Comm merged = constructed(fn, [&] { return world(s).create_group(order, kMergeTag); });
    s.comms.push_back(CommEntry{.comm = std::move(merged), .errhandler = errhandler});
    *newintracomm = static_cast<MPI_Comm>(s.comms.size() - 1);
    return MPI_SUCCESS;
  });
}

// Both groups are given: every member knows them, so the comms are made with no message (the
// leaders and the string tag are checked on the rank, not across ranks; calls with other
// groups make other comms, and their ranks wait for each other as the standard's would).
int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                     MPI_Group remote_group, int remote_leader,
                                     const char* stringtag, MPI_Info info,
                                     MPI_Errhandler errhandler, MPI_Comm* newintercomm) {
  const char* fn = "MPI_Intercomm_create_from_groups";
  return mpi_call(MPI_COMM_NULL, [&] {
    Node& n = rank_in_session(fn);
    RankState& s = rank_state(n);
    const std::vector<int> mine = group_or_fail(fn, s, local_group).members;
    const std::vector<int> remote = group_or_fail(fn, s, remote_group).members;
    check_arg(fn, stringtag, "stringtag");
    check_arg(fn, newintercomm, "newintercomm");
    auto hints = info_entries(fn, s, info);
    if (errhandler < 0 || errhandler >= static_cast<MPI_Errhandler>(s.errhandlers.size())) {
      fail(fn, MPI_ERR_ARG, "invalid error handler " + std::to_string(errhandler));
    }
    if (local_leader < 0 || local_leader >= static_cast<int>(mine.size())) {
      fail(fn, MPI_ERR_RANK, "local_leader " + std::to_string(local_leader) +
                                 " is not a rank of the local group (of " +
                                 std::to_string(mine.size()) + ")");
    }
    if (remote_leader < 0 || remote_leader >= static_cast<int>(remote.size())) {
      fail(fn, MPI_ERR_RANK, "remote_leader " + std::to_string(remote_leader) +
                                 " is not a rank of the remote group (of " +
                                 std::to_string(remote.size()) + ")");
    }
    if (std::find(mine.begin(), mine.end(), n.rank()) == mine.end()) {
      fail(fn, MPI_ERR_GROUP, "this rank is not in the local group");
    }
    for (int w : remote) {
      if (std::find(mine.begin(), mine.end(), w) != mine.end()) {
        fail(fn, MPI_ERR_GROUP,
             "world rank " + std::to_string(w) +
                 " is in both groups: the local and remote groups must be disjoint");
      }
    }
    Comm local = constructed(fn, [&] { return world(s).create_group(mine, kFromGroupsTag); });
    *newintercomm = make_inter(fn, s, std::move(local), remote, errhandler, std::move(hints));
    return MPI_SUCCESS;
  });
}

int MPI_Comm_remote_size(MPI_Comm comm, int* size) {
  const char* fn = "MPI_Comm_remote_size";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const Intercomm& x = inter_of(fn, s, comm);
    check_arg(fn, size, "size");
    *size = static_cast<int>(x.remote.size());
    return MPI_SUCCESS;
  });
}

int MPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  const char* fn = "MPI_Comm_remote_group";
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const Intercomm& x = inter_of(fn, s, comm);
    check_arg(fn, group, "group");
    std::vector<int> remote = x.remote;
    *group = add_group(s, std::move(remote));
    return MPI_SUCCESS;
  });
}

}  // extern "C"
