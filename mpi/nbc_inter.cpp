// The nonblocking and persistent collectives on an intercommunicator (MPI-4.1 sections 6.2.2,
// 6.12 and 6.13): every I and _init form of barrier, bcast, gather(v), scatter(v),
// allgather(v), alltoall(v, w), reduce, allreduce and reduce_scatter(_block), with MPI_ROOT and
// MPI_PROC_NULL as the blocking forms take them (mpi/intercomm.cpp).
//
// Each is a schedule (mpi/nbc.hpp) on the intercommunicator's comm of both groups (state.hpp's
// Intercomm::both), its tag space given by Comm::begin_collective there, so that its messages
// meet neither the program's nor another collective's. It composes what the blocking form
// composes: each group's own part runs the steps of mpi/nbc.cpp's schedules among the group's
// ranks (mpi/nbc_steps.hpp's Span: local rank r is rank r + local_offset of both), and the
// leaders (local rank 0) exchange the groups' data:
//   Ibarrier          barrier in each group, the leaders swap an empty message, barrier
//   Ibcast            root -> remote leader, binomial bcast in the remote group
//   Ireduce           binomial reduction in the sending group to its leader, leader -> root
//   Iallreduce        reduction in each group to its leader, the leaders swap, bcast in each
//   Ireduce_scatter(_block)  reduction in each group to its leader, the leaders swap, the
//                     leader sends each rank of its group its block
//   Igather           each rank's block to its leader, leader -> root
//   Iscatter          root -> remote leader, which sends each rank of its group its block
//   Iallgather        each group's blocks to its leader, the leaders swap, bcast in each
//   Igatherv, Iscatterv  each block straight from or to the root (the counts are the root's)
//   Iallgatherv       each rank's block to the remote leader, bcast of what it received in
//                     its group
//   Ialltoall(v, w)   every rank's block to every remote rank, in one step
// A reduction combines in rank order within a group (the binomial reduction keeps it), so a
// non-commutative op gets the standard's result. The members of both groups compare the call's
// name and op (begin_collective on both groups' comm); the counts and types are not compared
// across the groups (a mismatch is a truncation or a wrong result, as under MPI libraries).
// MPI_IN_PLACE is MPI_ERR_BUFFER on an intercommunicator.
#include "mpi/nbc_inter.hpp"

#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "mpi/intercomm.hpp"
#include "mpi/nbc_steps.hpp"
#include "mpi/pt2pt.hpp"
#include "mpi/state.hpp"

namespace vmc::mpi {

namespace {

// An intercommunicator collective as its schedule sees it.
struct InterSide {
  const char* fn;
  RankState* s;
  MPI_Comm handle;
  Comm both;       // both groups, the local group's ranks at `local`
  Span local;
  int remote_offset = 0;
  int remote_size = 0;

  int remote(int r) const { return remote_offset + r; }
  int remote_leader() const { return remote_offset; }
  bool leader() const { return local.rank == 0; }
};

InterSide open_side(const char* fn, MPI_Comm comm) {
  RankState& s = session_state(fn);
  const CommEntry& e = comm_or_fail(fn, s, comm);
  const Intercomm& x = *e.inter;
  return {fn,
          &s,
          comm,
          s.comms.at(static_cast<std::size_t>(x.both)).comm,
          Span{x.local_offset, e.comm.size(), e.comm.rank()},
          x.remote_offset,
          static_cast<int>(x.remote.size())};
}

// What a call's checks give each of its starts: the steps to build, and its texts.
struct Prepared {
  std::function<void(Schedule&)> build = [](Schedule&) {};
  std::string args;  // how a deadlock report names the call's arguments
  std::string op;    // the op compared across the members, or empty
};

int make(const char* fn, MPI_Comm comm, MPI_Request* request, bool persistent,
         const std::function<Prepared(const InterSide&)>& prepare) {
  return mpi_call(comm, [&] {
    const InterSide c = open_side(fn, comm);
    check_arg(fn, request, "request");
    const Prepared p = prepare(c);
    ScheduleStart start = [c, p](PersistentTag* tag) {
      CallSignature sig;
      sig.operation = c.fn;
      sig.op = p.op;
      sig.check_count = false;  // each group's counts are its own
      return start_schedule(c.fn, *c.s, c.handle, c.both, sig, p.args, p.build, tag);
    };
    *request = add_collective_request(*c.s, comm, std::move(start), persistent);
    return MPI_SUCCESS;
  });
}

// --- checks ----------------------------------------------------------------------------------

void check_root(const InterSide& c, int root) { check_inter_root(c.fn, root, c.remote_size); }

std::string root_text(int root) {
  if (root == MPI_ROOT) return "MPI_ROOT";
  if (root == MPI_PROC_NULL) return "MPI_PROC_NULL";
  return std::to_string(root);
}

std::string op_text(MPI_Op op) { return "MPI_Op " + std::to_string(op); }

void check_no_in_place(const InterSide& c, const void* buf) {
  if (buf == MPI_IN_PLACE) {
    fail(c.fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed on an intercommunicator");
  }
}

std::size_t count_of(const InterSide& c, MPI_Count n) {
  if (n < 0) fail(c.fn, MPI_ERR_COUNT, "negative count " + std::to_string(n));
  return static_cast<std::size_t>(n);
}

// A buffer of `items` items of `type` (the end of its farthest block): its type checked, not
// MPI_IN_PLACE, not null if it holds any, not spanning more bytes than an MPI_Aint holds
// (MPI_ERR_COUNT, as every call's buffers are checked).
CollectiveType buffer_type(const InterSide& c, const void* buf, std::size_t items,
                           MPI_Datatype type) {
  check_no_in_place(c, buf);
  const CollectiveType t = collective_type(c.fn, c.handle, type);
  check_span(c.fn, count_of_items(items), *t.map, *c.s, type);
  if (items > 0) check_buffer(c.fn, buf, 1);
  return t;
}

std::vector<std::size_t> same(std::size_t n, std::size_t v) { return std::vector<std::size_t>(n, v); }

std::vector<std::size_t> prefix_of(const std::vector<std::size_t>& v) {
  std::vector<std::size_t> at(v.size());
  std::exclusive_scan(v.begin(), v.end(), at.begin(), std::size_t{0});
  return at;
}

std::vector<std::size_t> bytes_of(const std::vector<std::size_t>& items, const CollectiveType& t) {
  std::vector<std::size_t> b(items.size());
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = t.units(items[i]) * t.unit_size;
  return b;
}

// --- steps within a group ----------------------------------------------------------------------

// Each rank's block (bytes[r] at `own`) to the group's rank 0, into `all` in rank order there
// (`gather`); or the other way, rank 0's `all` out to the ranks' `own`.
void leader_steps(Schedule& x, bool gather, unsigned char* own, unsigned char* all,
                  std::vector<std::size_t> bytes, std::size_t unit, Span g) {
  x.then([=](Schedule& y) {
    const auto me = static_cast<std::size_t>(g.rank);
    if (g.rank != 0) {
      if (gather) {
        y.send(own, bytes[me], unit, g.peer(0));
      } else {
        y.recv(own, bytes[me], unit, g.peer(0));
      }
      return;
    }
    const std::vector<std::size_t> at = prefix_of(bytes);
    if (gather) {
      copy_bytes(all, own, bytes[0]);
    } else {
      copy_bytes(own, all, bytes[0]);
    }
    for (int i = 1; i < g.size; ++i) {
      const auto k = static_cast<std::size_t>(i);
      if (gather) {
        y.recv(all + at[k], bytes[k], unit, g.peer(i));
      } else {
        y.send(all + at[k], bytes[k], unit, g.peer(i));
      }
    }
  });
}

// The leaders' swap: `out` to the remote leader, its message into `in`.
void swap_steps(Schedule& x, const InterSide& c, const unsigned char* out, std::size_t out_bytes,
                unsigned char* in, std::size_t in_bytes, std::size_t unit) {
  if (!c.leader()) return;
  const int peer = c.remote_leader();
  x.then([=](Schedule& y) {
    y.send(out, out_bytes, unit, peer);
    y.recv(in, in_bytes, unit, peer);
  });
}

// --- the operations --------------------------------------------------------------------------

Prepared barrier_call(const InterSide& c) {
  Prepared p;
  p.build = [c](Schedule& x) {
    barrier_steps(x, c.local);
    swap_steps(x, c, nullptr, 0, nullptr, 0, 1);
    barrier_steps(x, c.local);
  };
  return p;
}

Prepared bcast_call(const InterSide& c, void* buffer, MPI_Count count, MPI_Datatype datatype,
                    int root) {
  check_root(c, root);
  Prepared p;
  p.args = "root " + root_text(root);
  if (root == MPI_PROC_NULL) return p;
  const std::size_t items = count_of(c, count);
  const CollectiveType t = buffer_type(c, buffer, items, datatype);
  const std::size_t bytes = t.units(items) * t.unit_size, unit = t.unit_size;
  const bool sends = root == MPI_ROOT;
  p.build = [=](Schedule& x) {
    const Typemap* m = kept(x, *c.s, datatype, t.map);
    unsigned char* buf = packed(x, *m, buffer, whole(items), sends, !sends);
    if (sends) {
      x.then([=](Schedule& y) { y.send(buf, bytes, unit, c.remote_leader()); });
      return;
    }
    if (c.leader()) x.then([=](Schedule& y) { y.recv(buf, bytes, unit, c.remote(root)); });
    bcast_steps(x, buf, bytes, unit, 0, c.local);
  };
  return p;
}

Prepared reduce_call(const InterSide& c, const void* sendbuf, void* recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, int root, bool all) {
  if (!all) check_root(c, root);
  Prepared p;
  p.op = op_text(op);
  const std::size_t items = count_of(c, count);
  p.args = (all ? std::string() : "root " + root_text(root) + ", ") + std::to_string(items) +
           " items";
  if (!all && root == MPI_PROC_NULL) return p;
  const CollectiveReduction red = collective_reduction(c.fn, c.handle, datatype, op);
  const bool receives = all || root == MPI_ROOT, sends = all || root != MPI_ROOT;
  if (receives) buffer_type(c, recvbuf, items, datatype);
  if (sends) buffer_type(c, sendbuf, items, datatype);
  const std::size_t n = red.type.units(items), unit = red.type.unit_size, bytes = n * unit;
  p.build = [=](Schedule& x) {
    const Typemap* m = kept(x, *c.s, datatype, red.type.map);
    unsigned char* out = receives ? packed(x, *m, recvbuf, whole(items), false, true) : nullptr;
    if (!sends) {  // the root: the remote group's result from its leader
      x.then([=](Schedule& y) { y.recv(out, bytes, unit, c.remote_leader()); });
      return;
    }
    x.set_op(red.op, red.weight);
    unsigned char* acc = copy_of(x, packed(x, *m, sendbuf, whole(items), true, false), bytes);
    reduce_to_zero_steps(x, acc, n, unit, c.local);
    if (!all) {
      if (c.leader()) x.then([=](Schedule& y) { y.send(acc, bytes, unit, c.remote(root)); });
      return;
    }
    swap_steps(x, c, acc, bytes, out, bytes, unit);
    bcast_steps(x, out, bytes, unit, 0, c.local);
  };
  return p;
}

// Ireduce_scatter(_block): `counts` the local group's blocks, in items.
Prepared reduce_scatter_call(const InterSide& c, const void* sendbuf, void* recvbuf,
                             std::vector<std::size_t> counts, MPI_Datatype datatype, MPI_Op op) {
  Prepared p;
  p.op = op_text(op);
  const CollectiveReduction red = collective_reduction(c.fn, c.handle, datatype, op);
  const std::size_t total = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
  const std::size_t mine = counts[static_cast<std::size_t>(c.local.rank)];
  buffer_type(c, sendbuf, static_cast<std::size_t>(items_total(counts)), datatype);
  buffer_type(c, recvbuf, mine, datatype);
  p.args = std::to_string(mine) + " items";
  const std::size_t unit = red.type.unit_size, bytes = red.type.units(total) * unit;
  const std::vector<std::size_t> block_bytes = bytes_of(counts, red.type);
  p.build = [=](Schedule& x) {
    x.set_op(red.op, red.weight);
    const Typemap* m = kept(x, *c.s, datatype, red.type.map);
    unsigned char* acc = copy_of(x, packed(x, *m, sendbuf, whole(total), true, false), bytes);
    unsigned char* out = packed(x, *m, recvbuf, whole(mine), false, true);
    reduce_to_zero_steps(x, acc, red.type.units(total), unit, c.local);
    unsigned char* other = c.leader() ? x.scratch(bytes) : nullptr;
    swap_steps(x, c, acc, bytes, other, bytes, unit);
    leader_steps(x, false, out, other, block_bytes, unit, c.local);
  };
  return p;
}

// The blocks of the remote ranks at the root (and at every rank of Iallgatherv): the given
// counts and displacements (`v`), else `count` items each, back to back.
struct RemoteBlocks {
  std::vector<std::size_t> counts, at;
};
RemoteBlocks remote_blocks(const InterSide& c, bool v, CountArray counts, const char* counts_name,
                           CountArray displs, MPI_Count count) {
  const auto r = static_cast<std::size_t>(c.remote_size);
  if (v) {
    return {counts_of(c.fn, counts, r, counts_name, MPI_ERR_COUNT),
            counts_of(c.fn, displs, r, "displs", MPI_ERR_ARG)};
  }
  RemoteBlocks b{same(r, count_of(c, count)), {}};
  b.at = prefix_of(b.counts);
  return b;
}

// Igather(v) (`gather`) and Iscatter(v): at the root, the remote ranks' blocks of `rootbuf`
// (`v`: the root's counts and displacements); elsewhere this rank's own block of `ownbuf`.
Prepared rooted_call(const InterSide& c, bool gather, const void* ownbuf, MPI_Count own_count,
                     MPI_Datatype own_type, const void* rootbuf, MPI_Count root_count,
                     CountArray root_counts, CountArray displs, MPI_Datatype root_type,
                     int root, bool v) {
  check_root(c, root);
  Prepared p;
  p.args = "root " + root_text(root);
  if (root == MPI_PROC_NULL) return p;
  if (root == MPI_ROOT) {
    const RemoteBlocks rb = remote_blocks(c, v, root_counts, gather ? "recvcounts" : "sendcounts",
                                          displs, root_count);
    const Blocks blocks = blocks_of(rb.counts, rb.at);
    const CollectiveType t = buffer_type(c, rootbuf, end_of(blocks), root_type);
    const std::vector<std::size_t> bytes = bytes_of(rb.counts, t);
    const std::vector<std::size_t> at = rb.at;
    p.build = [=](Schedule& x) {
      const Typemap* m = kept(x, *c.s, root_type, t.map);
      unsigned char* all = packed(x, *m, rootbuf, blocks, !gather, gather);
      auto move = [=](Schedule& y, unsigned char* data, std::size_t n, int peer) {
        if (gather) {
          y.recv(data, n, t.unit_size, peer);
        } else {
          y.send(data, n, t.unit_size, peer);
        }
      };
      if (!v) {  // one message of the remote group's blocks with its leader
        const std::size_t n = std::accumulate(bytes.begin(), bytes.end(), std::size_t{0});
        x.then([=](Schedule& y) { move(y, all, n, c.remote_leader()); });
        return;
      }
      x.then([=](Schedule& y) {
        for (int i = 0; i < c.remote_size; ++i) {
          const auto k = static_cast<std::size_t>(i);
          move(y, all + at[k] * m->packed, bytes[k], c.remote(i));
        }
      });
    };
    return p;
  }
  const std::size_t items = count_of(c, own_count);
  const CollectiveType t = buffer_type(c, ownbuf, items, own_type);
  const std::size_t own_bytes = t.units(items) * t.unit_size, unit = t.unit_size;
  p.build = [=](Schedule& x) {
    const Typemap* m = kept(x, *c.s, own_type, t.map);
    unsigned char* own = packed(x, *m, ownbuf, whole(items), gather, !gather);
    if (v) {
      x.then([=](Schedule& y) {
        if (gather) {
          y.send(own, own_bytes, unit, c.remote(root));
        } else {
          y.recv(own, own_bytes, unit, c.remote(root));
        }
      });
      return;
    }
    const auto size = static_cast<std::size_t>(c.local.size);
    unsigned char* all = c.leader() ? x.scratch(size * own_bytes) : nullptr;
    if (gather) leader_steps(x, true, own, all, same(size, own_bytes), unit, c.local);
    if (c.leader()) {
      x.then([=](Schedule& y) {
        if (gather) {
          y.send(all, size * own_bytes, unit, c.remote(root));
        } else {
          y.recv(all, size * own_bytes, unit, c.remote(root));
        }
      });
    }
    if (!gather) leader_steps(x, false, own, all, same(size, own_bytes), unit, c.local);
  };
  return p;
}

Prepared allgather_call(const InterSide& c, const void* sendbuf, MPI_Count sendcount,
                        MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                        CountArray recvcounts, CountArray displs, MPI_Datatype recvtype,
                        bool v) {
  Prepared p;
  const std::size_t items = count_of(c, sendcount);
  const CollectiveType st = buffer_type(c, sendbuf, items, sendtype);
  const RemoteBlocks rb = remote_blocks(c, v, recvcounts, "recvcounts", displs, recvcount);
  const std::vector<std::size_t> counts = rb.counts, at = rb.at;
  const Blocks blocks = blocks_of(counts, at);
  const CollectiveType rt = buffer_type(c, recvbuf, end_of(blocks), recvtype);
  const std::size_t own_bytes = st.units(items) * st.unit_size;
  const std::vector<std::size_t> bytes = bytes_of(counts, rt);
  const std::size_t in_bytes = std::accumulate(bytes.begin(), bytes.end(), std::size_t{0});
  p.build = [=](Schedule& x) {
    const Typemap* sm = kept(x, *c.s, sendtype, st.map);
    const Typemap* rm = kept(x, *c.s, recvtype, rt.map);
    unsigned char* own = packed(x, *sm, sendbuf, whole(items), true, false);
    unsigned char* out = packed(x, *rm, recvbuf, blocks, false, true);
    if (!v) {
      // The group's blocks at its leader, swapped for the remote group's, broadcast.
      const auto size = static_cast<std::size_t>(c.local.size);
      unsigned char* all = c.leader() ? x.scratch(size * own_bytes) : nullptr;
      leader_steps(x, true, own, all, same(size, own_bytes), st.unit_size, c.local);
      swap_steps(x, c, all, size * own_bytes, out, in_bytes, rt.unit_size);
      bcast_steps(x, out, in_bytes, rt.unit_size, 0, c.local);
      return;
    }
    // Each rank's block to the remote leader; the remote blocks at this group's leader, in
    // order, broadcast and put in place.
    unsigned char* staged = x.scratch(in_bytes);
    const std::vector<std::size_t> staged_at = prefix_of(bytes);
    x.then([=](Schedule& y) {
      y.send(own, own_bytes, st.unit_size, c.remote_leader());
      if (!c.leader()) return;
      for (int i = 0; i < c.remote_size; ++i) {
        const auto k = static_cast<std::size_t>(i);
        y.recv(staged + staged_at[k], bytes[k], rt.unit_size, c.remote(i));
      }
    });
    bcast_steps(x, staged, in_bytes, rt.unit_size, 0, c.local);
    x.then([=](Schedule&) {
      for (std::size_t k = 0; k < bytes.size(); ++k) {
        copy_bytes(out + at[k] * rm->packed, staged + staged_at[k], bytes[k]);
      }
    });
  };
  return p;
}

// One step: block i of the send side to remote rank i, block i of the receive side from it
// (byte offsets and lengths in the packed forms `from` and `to`).
struct Exchange {
  const unsigned char* from = nullptr;
  std::vector<std::size_t> out_at, out_bytes, out_unit;
  unsigned char* to = nullptr;
  std::vector<std::size_t> in_at, in_bytes;
};
void exchange_step(Schedule& x, const InterSide& c, std::shared_ptr<const Exchange> e) {
  x.then([=](Schedule& y) {
    for (int i = 0; i < c.remote_size; ++i) {
      const auto k = static_cast<std::size_t>(i);
      y.recv(e->to + e->in_at[k], e->in_bytes[k], 1, c.remote(i));
    }
    for (int i = 0; i < c.remote_size; ++i) {
      const auto k = static_cast<std::size_t>(i);
      y.send(e->from + e->out_at[k], e->out_bytes[k], e->out_unit[k], c.remote(i));
    }
  });
}

Prepared alltoall_call(const InterSide& c, const void* sendbuf, MPI_Count sendcount,
                       CountArray sendcounts, CountArray sdispls, MPI_Datatype sendtype,
                       void* recvbuf, MPI_Count recvcount, CountArray recvcounts,
                       CountArray rdispls, MPI_Datatype recvtype, bool v) {
  Prepared p;
  const auto r = static_cast<std::size_t>(c.remote_size);
  std::vector<std::size_t> sc, sd, rc, rd;
  if (v) {
    sc = counts_of(c.fn, sendcounts, r, "sendcounts", MPI_ERR_COUNT);
    sd = counts_of(c.fn, sdispls, r, "sdispls", MPI_ERR_ARG);
    rc = counts_of(c.fn, recvcounts, r, "recvcounts", MPI_ERR_COUNT);
    rd = counts_of(c.fn, rdispls, r, "rdispls", MPI_ERR_ARG);
  } else {
    sc = same(r, count_of(c, sendcount));
    rc = same(r, count_of(c, recvcount));
    sd = prefix_of(sc);
    rd = prefix_of(rc);
  }
  const Blocks sblocks = blocks_of(sc, sd), rblocks = blocks_of(rc, rd);
  const CollectiveType st = buffer_type(c, sendbuf, end_of(sblocks), sendtype);
  const CollectiveType rt = buffer_type(c, recvbuf, end_of(rblocks), recvtype);
  p.build = [=](Schedule& x) {
    const Typemap* sm = kept(x, *c.s, sendtype, st.map);
    const Typemap* rm = kept(x, *c.s, recvtype, rt.map);
    auto e = std::make_shared<Exchange>();
    e->from = packed(x, *sm, sendbuf, sblocks, true, false);
    e->to = packed(x, *rm, recvbuf, rblocks, false, true);
    for (std::size_t k = 0; k < r; ++k) {
      e->out_at.push_back(sd[k] * sm->packed);
      e->out_bytes.push_back(st.units(sc[k]) * st.unit_size);
      e->out_unit.push_back(st.unit_size);
      e->in_at.push_back(rd[k] * rm->packed);
      e->in_bytes.push_back(rt.units(rc[k]) * rt.unit_size);
    }
    exchange_step(x, c, e);
  };
  return p;
}

// Ialltoallw: a datatype and a byte displacement per block; each block packed into (and
// unpacked from) a copy of its own. A message is charged beta per predefined element when its
// type's elements are all of one type, else per byte, as point to point charges it.
Prepared alltoallw_call(const InterSide& c, const void* sendbuf, CountArray sendcounts,
                        CountArray sdispls, const MPI_Datatype* sendtypes, void* recvbuf,
                        CountArray recvcounts, CountArray rdispls,
                        const MPI_Datatype* recvtypes) {
  Prepared p;
  check_no_in_place(c, sendbuf);
  check_no_in_place(c, recvbuf);
  const auto r = static_cast<std::size_t>(c.remote_size);
  struct Side {
    std::vector<std::size_t> counts, displs;
    std::vector<MPI_Datatype> types;
    std::vector<const Typemap*> maps;
  };
  auto side = [&](const void* buf, CountArray counts, CountArray displs,
                  const MPI_Datatype* types, const char* counts_name, const char* displs_name,
                  const char* types_name) {
    Side s;
    s.counts = counts_of(c.fn, counts, r, counts_name, MPI_ERR_COUNT);
    s.displs = counts_of(c.fn, displs, r, displs_name, MPI_ERR_ARG);
    if (r > 0) check_arg(c.fn, types, types_name);
    for (std::size_t k = 0; k < r; ++k) {
      s.types.push_back(types[k]);
      s.maps.push_back(&moved_typemap(c.fn, *c.s, types[k], static_cast<long long>(s.counts[k])));
      if (s.counts[k] > 0) check_buffer(c.fn, buf, 1);
    }
    return s;
  };
  const Side out = side(sendbuf, sendcounts, sdispls, sendtypes, "sendcounts", "sdispls",
                        "sendtypes");
  const Side in = side(recvbuf, recvcounts, rdispls, recvtypes, "recvcounts", "rdispls",
                       "recvtypes");
  p.build = [=](Schedule& x) {
    auto e = std::make_shared<Exchange>();
    std::size_t out_total = 0, in_total = 0;
    for (std::size_t k = 0; k < r; ++k) {
      out_total += out.counts[k] * out.maps[k]->packed;
      in_total += in.counts[k] * in.maps[k]->packed;
    }
    unsigned char* from = x.scratch(out_total);
    unsigned char* to = x.scratch(in_total);
    std::size_t oat = 0, iat = 0;
    for (std::size_t k = 0; k < r; ++k) {
      const Typemap* sm = kept(x, *c.s, out.types[k], out.maps[k]);
      const std::size_t ob = out.counts[k] * sm->packed;
      if (ob > 0) {
        pack(*sm, static_cast<const unsigned char*>(sendbuf) + out.displs[k], out.counts[k],
             from + oat);
        if (!sm->contiguous) x.comm().charge_rearrange(out.counts[k] * sm->elements);
      }
      e->out_at.push_back(oat);
      e->out_bytes.push_back(ob);
      e->out_unit.push_back(sm->basic != MPI_DATATYPE_NULL && sm->elements > 0
                                ? sm->packed / sm->elements
                                : 1);
      oat += ob;
      const Typemap* rm = kept(x, *c.s, in.types[k], in.maps[k]);
      const std::size_t ib = in.counts[k] * rm->packed;
      e->in_at.push_back(iat);
      e->in_bytes.push_back(ib);
      unsigned char* user = static_cast<unsigned char*>(recvbuf) + in.displs[k];
      unsigned char* staged = to + iat;
      const std::size_t elements = in.counts[k] * rm->elements;
      Schedule* owner = &x;
      x.at_end([rm, staged, user, ib, elements, owner] {
        if (ib == 0) return;
        unpack(*rm, staged, ib, user);
        if (!rm->contiguous) owner->comm().charge_rearrange(elements);
      });
      iat += ib;
    }
    e->from = from;
    e->to = to;
    exchange_step(x, c, e);
  };
  return p;
}

std::vector<std::size_t> local_counts(const InterSide& c, CountArray recvcounts,
                                      MPI_Count recvcount) {
  const auto n = static_cast<std::size_t>(c.local.size);
  if (recvcounts.data() == nullptr) return same(n, count_of(c, recvcount));
  return counts_of(c.fn, recvcounts, n, "recvcounts", MPI_ERR_COUNT);
}

}  // namespace

int inter_nbc_barrier(const char* fn, MPI_Comm comm, MPI_Request* request, bool persistent) {
  return make(fn, comm, request, persistent, [](const InterSide& c) { return barrier_call(c); });
}

int inter_nbc_bcast(const char* fn, void* buffer, MPI_Count count, MPI_Datatype datatype,
                    int root, MPI_Comm comm, MPI_Request* request, bool persistent) {
  return make(fn, comm, request, persistent, [&](const InterSide& c) {
    return bcast_call(c, buffer, count, datatype, root);
  });
}

int inter_nbc_reduce(const char* fn, const void* sendbuf, void* recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, int root, bool all, MPI_Comm comm,
                     MPI_Request* request, bool persistent) {
  return make(fn, comm, request, persistent, [&](const InterSide& c) {
    return reduce_call(c, sendbuf, recvbuf, count, datatype, op, root, all);
  });
}

int inter_nbc_reduce_scatter(const char* fn, const void* sendbuf, void* recvbuf,
                             CountArray recvcounts, MPI_Count recvcount, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm, MPI_Request* request, bool persistent) {
  return make(fn, comm, request, persistent, [&](const InterSide& c) {
    return reduce_scatter_call(c, sendbuf, recvbuf, local_counts(c, recvcounts, recvcount),
                               datatype, op);
  });
}

int inter_nbc_gather(const char* fn, const void* sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                     CountArray recvcounts, CountArray displs, MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Request* request, bool persistent, bool v) {
  return make(fn, comm, request, persistent, [&](const InterSide& c) {
    return rooted_call(c, true, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvcounts,
                       displs, recvtype, root, v);
  });
}

int inter_nbc_scatter(const char* fn, const void* sendbuf, MPI_Count sendcount,
                      CountArray sendcounts, CountArray displs, MPI_Datatype sendtype,
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Request* request, bool persistent, bool v) {
  return make(fn, comm, request, persistent, [&](const InterSide& c) {
    return rooted_call(c, false, recvbuf, recvcount, recvtype, sendbuf, sendcount, sendcounts,
                       displs, sendtype, root, v);
  });
}

int inter_nbc_allgather(const char* fn, const void* sendbuf, MPI_Count sendcount,
                        MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                        CountArray recvcounts, CountArray displs, MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Request* request, bool persistent, bool v) {
  return make(fn, comm, request, persistent, [&](const InterSide& c) {
    return allgather_call(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvcounts,
                          displs, recvtype, v);
  });
}

int inter_nbc_alltoall(const char* fn, const void* sendbuf, MPI_Count sendcount,
                       CountArray sendcounts, CountArray sdispls, MPI_Datatype sendtype,
                       void* recvbuf, MPI_Count recvcount, CountArray recvcounts,
                       CountArray rdispls, MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request* request, bool persistent, bool v) {
  return make(fn, comm, request, persistent, [&](const InterSide& c) {
    return alltoall_call(c, sendbuf, sendcount, sendcounts, sdispls, sendtype, recvbuf,
                         recvcount, recvcounts, rdispls, recvtype, v);
  });
}

int inter_nbc_alltoallw(const char* fn, const void* sendbuf, CountArray sendcounts,
                        CountArray sdispls, const MPI_Datatype* sendtypes, void* recvbuf,
                        CountArray recvcounts, CountArray rdispls,
                        const MPI_Datatype* recvtypes, MPI_Comm comm, MPI_Request* request,
                        bool persistent) {
  return make(fn, comm, request, persistent, [&](const InterSide& c) {
    return alltoallw_call(c, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                          rdispls, recvtypes);
  });
}

}  // namespace vmc::mpi
