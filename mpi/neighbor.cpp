// The neighbourhood collectives (MPI-4.1 8.6), blocking: MPI_Neighbor_allgather(v) and
// MPI_Neighbor_alltoall(v, w), with their _c forms, on Cartesian, graph and distributed-graph
// communicators. Each is one round of nonblocking transfers, a receive from every source and a
// send to every destination (NeighborExchange, mpi/neighbor.hpp), then a wait for them all:
// the virtual time of the same isends and irecvs through vmc's Comm. A block of a derived type
// that does not lie in memory as it packs is packed before and unpacked after, charged delta
// per element, as point to point; a message is charged beta per predefined element (per byte
// when the type's elements mix). A communicator without a topology is MPI_ERR_TOPOLOGY. The
// members compare only the operation (Comm::begin_collective: their counts and types may
// differ between ranks that are not neighbours); a message longer than its receive block ends
// the run with MPI_ERR_TRUNCATE, since the other transfers of the round are then in flight.
#include "mpi/neighbor.hpp"

#include <algorithm>
#include <string>
#include <type_traits>

#include "mpi/nbc.hpp"
#include "mpi/pt2pt.hpp"
#include "mpi/state.hpp"
#include "runtime/errors.hpp"

using namespace vmc;
using namespace vmc::mpi;

NeighborExchange NeighborExchange::plan(const char* fn, const RankState& state, const Comm& comm,
                                        const Neighbourhood& n,
                                        std::span<const NeighborBlock> sends,
                                        std::span<const NeighborBlock> receives) {
  NeighborExchange x;
  auto add = [&](const Neighbour& peer, const NeighborBlock& b, bool send) {
    const Typemap& t = moved_typemap(fn, state, b.type, static_cast<long long>(b.count));
    if (peer.rank == MPI_PROC_NULL) return;
    if (auto kept = kept_typemap(state, b.type)) x.kept_.push_back(std::move(kept));
    Transfer tr;
    tr.peer = peer.rank;
    tr.tag = peer.tag;
    tr.map = &t;
    tr.bytes = b.count * t.packed;
    tr.items = t.basic != MPI_DATATYPE_NULL ? b.count * t.elements : tr.bytes;
    tr.data = const_cast<void*>(b.at);
    if (!t.contiguous && b.count > 0) {
      x.copies_.push_back(std::make_unique<unsigned char[]>(tr.bytes));
      unsigned char* copy = x.copies_.back().get();
      if (send) {
        pack(t, b.at, b.count, copy);
        comm.charge_rearrange(b.count * t.elements);
      } else {
        tr.unpack_to = tr.data;
      }
      tr.data = copy;
    }
    (send ? x.sends_ : x.receives_).push_back(tr);
  };
  for (std::size_t i = 0; i < n.sources.size(); ++i) add(n.sources[i], receives[i], false);
  for (std::size_t i = 0; i < n.destinations.size(); ++i) add(n.destinations[i], sends[i], true);
  return x;
}

std::vector<Request> NeighborExchange::start(const Comm& comm, Tag base) const {
  std::vector<Request> requests;
  requests.reserve(receives_.size() + sends_.size());
  for (const Transfer& r : receives_) {
    requests.push_back(comm.irecv_raw(r.data, r.bytes, 1, r.peer, base + r.tag));
  }
  for (const Transfer& s : sends_) {
    requests.push_back(comm.isend_raw(s.data, s.bytes, s.items, s.peer, base + s.tag));
  }
  return requests;
}

void NeighborExchange::finish(const Comm& comm, std::span<const std::size_t> received) {
  for (std::size_t i = 0; i < receives_.size(); ++i) {
    const Transfer& r = receives_[i];
    const std::size_t bytes = received[i];
    if (r.unpack_to == nullptr || bytes == 0) continue;
    unpack(*r.map, static_cast<const unsigned char*>(r.data), bytes, r.unpack_to);
    comm.charge_rearrange((bytes * r.map->elements + r.map->packed - 1) / r.map->packed);
  }
}

std::vector<std::size_t> NeighborExchange::capacities() const {
  std::vector<std::size_t> v;
  for (const Transfer& r : receives_) v.push_back(r.bytes);
  return v;
}

namespace {

// The calling rank's neighbourhood on `comm`, or MPI_ERR_TOPOLOGY.
Neighbourhood neighbourhood_or_fail(const char* fn, const RankState& s, MPI_Comm comm,
                                    const CommEntry& e) {
  if (e.topology == nullptr) {
    fail(fn, MPI_ERR_TOPOLOGY,
         comm_label(s, comm) +
             " has no process topology (a neighbourhood collective needs a Cartesian, graph or "
             "distributed graph communicator)");
  }
  return neighbourhood(*e.topology, e.comm.rank());
}

// Runs one exchange to its end: the members' calls compared, the transfers posted and waited
// for, the received blocks unpacked.
void run_exchange(const char* fn, const RankState& s, MPI_Comm handle, const Comm& comm,
                  NeighborExchange& x) {
  const CallContext context(std::string(fn) + "(" + comm_label(s, handle) + ")");
  CallSignature sig;
  sig.operation = fn;
  sig.check_count = false;
  Tag base = 0;
  try {
    base = comm.begin_collective(sig);
  } catch (const CallsDifferError& e) {
    calls_differ_failure(e, comm_label(s, handle), handle == MPI_COMM_WORLD);
  } catch (const UsageError& e) {
    throw FatalError(error_report(fn, MPI_ERR_ARG,
                                  calls_differ(without_who(e.what(), ""), comm_label(s, handle),
                                               handle == MPI_COMM_WORLD)));
  }
  const Comm::CollectiveScope scope(comm);
  std::vector<Request> requests = x.start(comm, base);
  std::vector<std::size_t> received;
  try {
    received = comm.wait_all(requests);
  } catch (const TruncationError& e) {
    throw FatalError(error_report(fn, MPI_ERR_TRUNCATE, e.what()));
  } catch (const UsageError& e) {
    throw FatalError(error_report(fn, MPI_ERR_OTHER, e.what()));
  }
  x.finish(comm, received);
}

template <class Count>
void check_counts(const char* fn, std::size_t n, const Count* counts, const char* what) {
  if (n > 0) check_arg(fn, counts, what);
  for (std::size_t i = 0; i < n; ++i) {
    if (counts[i] < 0) {
      fail(fn, MPI_ERR_COUNT,
           std::string(what) + "[" + std::to_string(i) + "] = " + std::to_string(counts[i]) +
               " is negative");
    }
  }
}

void check_not_in_place(const char* fn, const void* buf, const char* what) {
  if (buf == MPI_IN_PLACE) {
    fail(fn, MPI_ERR_BUFFER,
         std::string("MPI_IN_PLACE is not allowed as ") + what + " of a neighbourhood collective");
  }
}

// Bytes between items of `type` (its extent), checked to be live and the buffer, reaching
// `items` items of it, to span no more bytes than an MPI_Aint holds (MPI_ERR_COUNT).
MPI_Aint extent_of(const char* fn, const RankState& s, MPI_Datatype type, MPI_Count items) {
  return moved_typemap(fn, s, type, items).extent();
}

// The items a block of a v form reaches: its displacement (a negative one as none) and its
// count, in items, saturated as count_of_items saturates; none for a block of no items.
template <class Displ, class Count>
MPI_Count reach(Displ displ, Count count) {
  if (count <= 0) return 0;
  const auto at = displ > 0 ? static_cast<std::size_t>(displ) : std::size_t{0};
  return count_of_items(at + static_cast<std::size_t>(count));
}

const unsigned char* at(const void* base, MPI_Aint offset) {
  return static_cast<const unsigned char*>(base) + offset;
}

// Which form of a call: blocking (MPI_Neighbor_allgather), nonblocking (MPI_Ineighbor_allgather)
// or persistent (MPI_Neighbor_allgather_init).
enum class Form { blocking, nonblocking, persistent };

// The nonblocking and persistent forms: the exchange as a schedule of one step, its transfers
// on the call's tag space, finished (staged blocks unpacked) when the schedule ends. A
// nonblocking call plans (checks the types, packs) now; a persistent one at each MPI_Start,
// since the send buffer is read when the collective starts.
MPI_Request neighbor_request(const char* fn, RankState& s, MPI_Comm handle, const Comm& comm,
                             const Neighbourhood& n, std::vector<NeighborBlock> sends,
                             std::vector<NeighborBlock> receives, bool persistent) {
  std::shared_ptr<NeighborExchange> planned;
  if (!persistent) {
    planned = std::make_shared<NeighborExchange>(
        NeighborExchange::plan(fn, s, comm, n, sends, receives));
  }
  RankState* state = &s;
  ScheduleStart start = [=](PersistentTag* tag) {
    CallSignature sig;
    sig.operation = fn;
    sig.check_count = false;
    return start_schedule(fn, *state, handle, comm, sig, "", [&](Schedule& x) {
      auto ex = planned != nullptr ? planned
                                   : std::make_shared<NeighborExchange>(NeighborExchange::plan(
                                         fn, *state, comm, n, sends, receives));
      x.then([ex](Schedule& y) {
        const Comm::CollectiveScope scope(y.comm());
        for (const Request& r : ex->start(y.comm(), y.tag())) y.post(r);
      });
      x.at_end([ex, comm] { ex->finish(comm, ex->capacities()); });
    }, tag);
  };
  return add_collective_request(s, handle, std::move(start), persistent);
}

// The body every call shares: the communicator and its neighbourhood, then `blocks` (the send
// and receive blocks, arguments checked) and the exchange, run now (blocking) or as the
// request's schedule.
template <class Blocks>
int neighbor_call(const char* fn, MPI_Comm comm, Form form, MPI_Request* request,
                  Blocks&& blocks) {
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    const CommEntry& e = comm_or_fail(fn, s, comm);
    const Neighbourhood n = neighbourhood_or_fail(fn, s, comm, e);
    if (form != Form::blocking) check_arg(fn, request, "request");
    std::vector<NeighborBlock> sends, receives;
    blocks(s, n, sends, receives);
    if (form != Form::blocking) {
      *request = neighbor_request(fn, s, comm, e.comm, n, std::move(sends), std::move(receives),
                                  form == Form::persistent);
      return MPI_SUCCESS;
    }
    NeighborExchange x = NeighborExchange::plan(fn, s, e.comm, n, sends, receives);
    run_exchange(fn, s, comm, e.comm, x);
    return MPI_SUCCESS;
  });
}

template <class Count>
int allgather(const char* fn, const void* sendbuf, Count sendcount, MPI_Datatype sendtype,
              void* recvbuf, Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
              Form form = Form::blocking, MPI_Request* request = nullptr) {
  return neighbor_call(fn, comm, form, request, [&](const RankState& s, const Neighbourhood& n,
                                     std::vector<NeighborBlock>& sends,
                                     std::vector<NeighborBlock>& receives) {
    check_not_in_place(fn, sendbuf, "the send buffer");
    check_count(fn, sendcount);
    check_count(fn, recvcount);
    if (sendcount > 0 && !n.destinations.empty()) check_arg(fn, sendbuf, "sendbuf");
    if (recvcount > 0 && !n.sources.empty()) check_arg(fn, recvbuf, "recvbuf");
    const MPI_Aint extent =
        extent_of(fn, s, recvtype, blocks_span(recvcount, n.sources.size()));
    for (std::size_t i = 0; i < n.destinations.size(); ++i) {
      sends.push_back({sendbuf, static_cast<std::size_t>(sendcount), sendtype});
    }
    for (std::size_t i = 0; i < n.sources.size(); ++i) {
      receives.push_back({at(recvbuf, static_cast<MPI_Aint>(i) * static_cast<MPI_Aint>(recvcount) * extent),
                          static_cast<std::size_t>(recvcount), recvtype});
    }
  });
}

template <class Count, class Displ>
int allgatherv(const char* fn, const void* sendbuf, Count sendcount, MPI_Datatype sendtype,
               void* recvbuf, const Count recvcounts[], const Displ displs[],
               MPI_Datatype recvtype, MPI_Comm comm, Form form = Form::blocking,
               MPI_Request* request = nullptr) {
  return neighbor_call(fn, comm, form, request, [&](const RankState& s, const Neighbourhood& n,
                                     std::vector<NeighborBlock>& sends,
                                     std::vector<NeighborBlock>& receives) {
    check_not_in_place(fn, sendbuf, "the send buffer");
    check_count(fn, sendcount);
    if (sendcount > 0 && !n.destinations.empty()) check_arg(fn, sendbuf, "sendbuf");
    check_counts(fn, n.sources.size(), recvcounts, "recvcounts");
    if (!n.sources.empty()) check_arg(fn, displs, "displs");
    MPI_Count end = 0;
    for (std::size_t i = 0; i < n.sources.size(); ++i) {
      end = std::max(end, reach(displs[i], recvcounts[i]));
    }
    const MPI_Aint extent = extent_of(fn, s, recvtype, end);
    for (std::size_t i = 0; i < n.destinations.size(); ++i) {
      sends.push_back({sendbuf, static_cast<std::size_t>(sendcount), sendtype});
    }
    for (std::size_t i = 0; i < n.sources.size(); ++i) {
      if (recvcounts[i] > 0) check_arg(fn, recvbuf, "recvbuf");
      receives.push_back({at(recvbuf, static_cast<MPI_Aint>(displs[i]) * extent),
                          static_cast<std::size_t>(recvcounts[i]), recvtype});
    }
  });
}

template <class Count>
int alltoall(const char* fn, const void* sendbuf, Count sendcount, MPI_Datatype sendtype,
             void* recvbuf, Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
             Form form = Form::blocking, MPI_Request* request = nullptr) {
  return neighbor_call(fn, comm, form, request, [&](const RankState& s, const Neighbourhood& n,
                                     std::vector<NeighborBlock>& sends,
                                     std::vector<NeighborBlock>& receives) {
    check_not_in_place(fn, sendbuf, "the send buffer");
    check_count(fn, sendcount);
    check_count(fn, recvcount);
    if (sendcount > 0 && !n.destinations.empty()) check_arg(fn, sendbuf, "sendbuf");
    if (recvcount > 0 && !n.sources.empty()) check_arg(fn, recvbuf, "recvbuf");
    const MPI_Aint send_extent =
        extent_of(fn, s, sendtype, blocks_span(sendcount, n.destinations.size()));
    const MPI_Aint recv_extent =
        extent_of(fn, s, recvtype, blocks_span(recvcount, n.sources.size()));
    for (std::size_t i = 0; i < n.destinations.size(); ++i) {
      sends.push_back({at(sendbuf, static_cast<MPI_Aint>(i) * static_cast<MPI_Aint>(sendcount) * send_extent),
                       static_cast<std::size_t>(sendcount), sendtype});
    }
    for (std::size_t i = 0; i < n.sources.size(); ++i) {
      receives.push_back({at(recvbuf, static_cast<MPI_Aint>(i) * static_cast<MPI_Aint>(recvcount) * recv_extent),
                          static_cast<std::size_t>(recvcount), recvtype});
    }
  });
}

// alltoallv (displacements in items of the one type) and alltoallw (in bytes, a type per
// block): `types` null for v.
template <class Count, class Displ>
int alltoall_vw(const char* fn, const void* sendbuf, const Count sendcounts[],
                const Displ sdispls[], const MPI_Datatype* sendtypes, MPI_Datatype sendtype,
                void* recvbuf, const Count recvcounts[], const Displ rdispls[],
                const MPI_Datatype* recvtypes, MPI_Datatype recvtype, bool in_bytes,
                MPI_Comm comm, Form form = Form::blocking, MPI_Request* request = nullptr) {
  return neighbor_call(fn, comm, form, request, [&](const RankState& s, const Neighbourhood& n,
                                     std::vector<NeighborBlock>& sends,
                                     std::vector<NeighborBlock>& receives) {
    check_not_in_place(fn, sendbuf, "the send buffer");
    const std::size_t out = n.destinations.size(), in = n.sources.size();
    check_counts(fn, out, sendcounts, "sendcounts");
    check_counts(fn, in, recvcounts, "recvcounts");
    if (out > 0) check_arg(fn, sdispls, "sdispls");
    if (in > 0) check_arg(fn, rdispls, "rdispls");
    if (in_bytes && out > 0) check_arg(fn, sendtypes, "sendtypes");
    if (in_bytes && in > 0) check_arg(fn, recvtypes, "recvtypes");
    for (std::size_t i = 0; i < out; ++i) {
      const MPI_Datatype t = in_bytes ? sendtypes[i] : sendtype;
      const MPI_Aint unit = in_bytes ? 1 : extent_of(fn, s, t, reach(sdispls[i], sendcounts[i]));
      if (sendcounts[i] > 0) check_arg(fn, sendbuf, "sendbuf");
      sends.push_back({at(sendbuf, static_cast<MPI_Aint>(sdispls[i]) * unit),
                       static_cast<std::size_t>(sendcounts[i]), t});
    }
    for (std::size_t i = 0; i < in; ++i) {
      const MPI_Datatype t = in_bytes ? recvtypes[i] : recvtype;
      const MPI_Aint unit = in_bytes ? 1 : extent_of(fn, s, t, reach(rdispls[i], recvcounts[i]));
      if (recvcounts[i] > 0) check_arg(fn, recvbuf, "recvbuf");
      receives.push_back({at(recvbuf, static_cast<MPI_Aint>(rdispls[i]) * unit),
                          static_cast<std::size_t>(recvcounts[i]), t});
    }
  });
}

}  // namespace

extern "C" {

int MPI_Neighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                           void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return allgather("MPI_Neighbor_allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, comm);
}

int MPI_Neighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm) {
  return allgather("MPI_Neighbor_allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, comm);
}

int MPI_Neighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv("MPI_Neighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                    displs, recvtype, comm);
}

int MPI_Neighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                              MPI_Datatype recvtype, MPI_Comm comm) {
  return allgatherv("MPI_Neighbor_allgatherv_c", sendbuf, sendcount, sendtype, recvbuf,
                    recvcounts, displs, recvtype, comm);
}

int MPI_Neighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                          void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall("MPI_Neighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, comm);
}

int MPI_Neighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                            void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                            MPI_Comm comm) {
  return alltoall("MPI_Neighbor_alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, comm);
}

int MPI_Neighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall_vw("MPI_Neighbor_alltoallv", sendbuf, sendcounts, sdispls, nullptr, sendtype,
                     recvbuf, recvcounts, rdispls, nullptr, recvtype, false, comm);
}

int MPI_Neighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                             const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                             MPI_Datatype recvtype, MPI_Comm comm) {
  return alltoall_vw("MPI_Neighbor_alltoallv_c", sendbuf, sendcounts, sdispls, nullptr, sendtype,
                     recvbuf, recvcounts, rdispls, nullptr, recvtype, false, comm);
}

int MPI_Neighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                           MPI_Comm comm) {
  return alltoall_vw("MPI_Neighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes,
                     MPI_DATATYPE_NULL, recvbuf, recvcounts, rdispls, recvtypes,
                     MPI_DATATYPE_NULL, true, comm);
}

int MPI_Neighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                             const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                             void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                             const MPI_Datatype recvtypes[], MPI_Comm comm) {
  return alltoall_vw("MPI_Neighbor_alltoallw_c", sendbuf, sendcounts, sdispls, sendtypes,
                     MPI_DATATYPE_NULL, recvbuf, recvcounts, rdispls, recvtypes,
                     MPI_DATATYPE_NULL, true, comm);
}

// The nonblocking and persistent forms.

int MPI_Ineighbor_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                            void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request* request) {
  return allgather("MPI_Ineighbor_allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, comm, Form::nonblocking, request);
}

int MPI_Neighbor_allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                MPI_Info, MPI_Request* request) {
  return allgather("MPI_Neighbor_allgather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, comm, Form::persistent, request);
}

int MPI_Ineighbor_allgather_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                              void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request* request) {
  return allgather("MPI_Ineighbor_allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                   recvtype, comm, Form::nonblocking, request);
}

int MPI_Neighbor_allgather_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return allgather("MPI_Neighbor_allgather_init_c", sendbuf, sendcount, sendtype, recvbuf,
                   recvcount, recvtype, comm, Form::persistent, request);
}

int MPI_Ineighbor_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                             void* recvbuf, const int recvcounts[], const int displs[],
                             MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgatherv("MPI_Ineighbor_allgatherv", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                    displs, recvtype, comm, Form::nonblocking, request);
}

int MPI_Neighbor_allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, const int recvcounts[], const int displs[],
                                 MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                                 MPI_Request* request) {
  return allgatherv("MPI_Neighbor_allgatherv_init", sendbuf, sendcount, sendtype, recvbuf,
                    recvcounts, displs, recvtype, comm, Form::persistent, request);
}

int MPI_Ineighbor_allgatherv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                               void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                               MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return allgatherv("MPI_Ineighbor_allgatherv_c", sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                    displs, recvtype, comm, Form::nonblocking, request);
}

int MPI_Neighbor_allgatherv_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void* recvbuf, const MPI_Count recvcounts[],
                                   const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Info, MPI_Request* request) {
  return allgatherv("MPI_Neighbor_allgatherv_init_c", sendbuf, sendcount, sendtype, recvbuf,
                    recvcounts, displs, recvtype, comm, Form::persistent, request);
}

int MPI_Ineighbor_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           MPI_Request* request) {
  return alltoall("MPI_Ineighbor_alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, comm, Form::nonblocking, request);
}

int MPI_Neighbor_alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype,
                               void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Info, MPI_Request* request) {
  return alltoall("MPI_Neighbor_alltoall_init", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, comm, Form::persistent, request);
}

int MPI_Ineighbor_alltoall_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                             void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                             MPI_Comm comm, MPI_Request* request) {
  return alltoall("MPI_Ineighbor_alltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, comm, Form::nonblocking, request);
}

int MPI_Neighbor_alltoall_init_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                 void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return alltoall("MPI_Neighbor_alltoall_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                  recvtype, comm, Form::persistent, request);
}

int MPI_Ineighbor_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                            const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                            MPI_Request* request) {
  return alltoall_vw("MPI_Ineighbor_alltoallv", sendbuf, sendcounts, sdispls, nullptr, sendtype,
                     recvbuf, recvcounts, rdispls, nullptr, recvtype, false, comm,
                     Form::nonblocking, request);
}

int MPI_Neighbor_alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[],
                                MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                                const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                                MPI_Request* request) {
  return alltoall_vw("MPI_Neighbor_alltoallv_init", sendbuf, sendcounts, sdispls, nullptr, sendtype,
                     recvbuf, recvcounts, rdispls, nullptr, recvtype, false, comm, Form::persistent,
                     request);
}

int MPI_Ineighbor_alltoallv_c(const void* sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                              const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return alltoall_vw("MPI_Ineighbor_alltoallv_c", sendbuf, sendcounts, sdispls, nullptr, sendtype,
                     recvbuf, recvcounts, rdispls, nullptr, recvtype, false, comm,
                     Form::nonblocking, request);
}

int MPI_Neighbor_alltoallv_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                  const MPI_Aint sdispls[], MPI_Datatype sendtype, void* recvbuf,
                                  const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Info,
                                  MPI_Request* request) {
  return alltoall_vw("MPI_Neighbor_alltoallv_init_c", sendbuf, sendcounts, sdispls, nullptr,
                     sendtype, recvbuf, recvcounts, rdispls, nullptr, recvtype, false, comm,
                     Form::persistent, request);
}

int MPI_Ineighbor_alltoallw(const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                            MPI_Request* request) {
  return alltoall_vw("MPI_Ineighbor_alltoallw", sendbuf, sendcounts, sdispls, sendtypes,
                     MPI_DATATYPE_NULL, recvbuf, recvcounts, rdispls, recvtypes, MPI_DATATYPE_NULL,
                     true, comm, Form::nonblocking, request);
}

int MPI_Neighbor_alltoallw_init(const void* sendbuf, const int sendcounts[],
                                const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                void* recvbuf, const int recvcounts[], const MPI_Aint rdispls[],
                                const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info,
                                MPI_Request* request) {
  return alltoall_vw("MPI_Neighbor_alltoallw_init", sendbuf, sendcounts, sdispls, sendtypes,
                     MPI_DATATYPE_NULL, recvbuf, recvcounts, rdispls, recvtypes, MPI_DATATYPE_NULL,
                     true, comm, Form::persistent, request);
}

int MPI_Ineighbor_alltoallw_c(const void* sendbuf, const MPI_Count sendcounts[],
                              const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                              void* recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                              const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  return alltoall_vw("MPI_Ineighbor_alltoallw_c", sendbuf, sendcounts, sdispls, sendtypes,
                     MPI_DATATYPE_NULL, recvbuf, recvcounts, rdispls, recvtypes, MPI_DATATYPE_NULL,
                     true, comm, Form::nonblocking, request);
}

int MPI_Neighbor_alltoallw_init_c(const void* sendbuf, const MPI_Count sendcounts[],
                                  const MPI_Aint sdispls[], const MPI_Datatype sendtypes[],
                                  void* recvbuf, const MPI_Count recvcounts[],
                                  const MPI_Aint rdispls[], const MPI_Datatype recvtypes[],
                                  MPI_Comm comm, MPI_Info, MPI_Request* request) {
  return alltoall_vw("MPI_Neighbor_alltoallw_init_c", sendbuf, sendcounts, sdispls, sendtypes,
                     MPI_DATATYPE_NULL, recvbuf, recvcounts, rdispls, recvtypes, MPI_DATATYPE_NULL,
                     true, comm, Form::persistent, request);
}
}  // extern "C"
