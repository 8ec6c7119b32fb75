// Point to point over vmc's Comm (runtime/comm.hpp): sends in their four modes, receives,
// nonblocking calls (MPI_Isendrecv's one request for two transfers among them) and their
// completions, MPI_Request_get_status, persistent requests (buffered ones too), probes,
// matched probes, cancel, statuses. A message costs what a Comm message of the same size
// costs: its bytes cross the modelled network, `count` items of the datatype charged beta
// each.
//
// How the MPI calls map onto the runtime:
// - MPI_ANY_SOURCE and MPI_ANY_TAG are vmc::kAnySource and kAnyTag: on the virtual clock the
//   simulation decides which message such a receive takes (the one whose send was reached
//   first in virtual time; at one instant the lower source rank), and Waitany, Testany,
//   Waitsome, Testsome, Testall, Iprobe and Improbe answer in virtual time, so a program's
//   matches and times are the same on every run (docs/mpi.md).
// - Ssend and Issend are synchronous sends (their transfer starts once the receive is posted);
//   Rsend is a standard send (the receive must be posted first: not checked); Bsend is a
//   nonblocking send the rank keeps in its attached buffer's account until it completes (its
//   bytes are copied when it is posted, as the runtime copies every message it posts).
// - A request's handle indexes the rank's table (mpi/pt2pt.hpp); persistent requests keep
//   their arguments and post a fresh transfer at each MPI_Start.
// - On an intercommunicator a rank names a rank of the remote group: the call runs on the
//   intercommunicator's bridge (mpi/intercomm.cpp), a comm over both groups where remote rank
//   r is r + remote_offset, and a status gives the remote rank back (MPI_ANY_SOURCE takes a
//   message of any remote rank: no rank of the local group sends there).
// - Every error is raised through the communicator's error handler (mpi_call): a receive
//   buffer too small is MPI_ERR_TRUNCATE (the message is taken and dropped), and in a list
//   completion the failing request's status carries its class (MPI_ERR_IN_STATUS).
#include "mpi/pt2pt.hpp"

#include <algorithm>
#include <limits>
#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mpi/datatypes.hpp"
#include "mpi/state.hpp"
#include "runtime/errors.hpp"

namespace vmc::mpi {
namespace {

// --- arguments ---------------------------------------------------------------------------

// The bytes `count` items of `t` take packed, which is what a message of them carries (the
// padding of the pair types included).
std::size_t bytes_of(MPI_Count count, const Typemap& t) {
  return static_cast<std::size_t>(count) * t.packed;
}

// The predefined elements of `count` items of `t` (a pair is one): what packing and
// unpacking them is charged delta for.
std::size_t elements_of(MPI_Count count, const Typemap& t) {
  return static_cast<std::size_t>(count) * t.elements;
}

// The items a message of them is charged beta for, as the collectives move the type: its
// predefined elements when they are all of one type, else its bytes (the runtime's items
// are of one size: a struct of an int and 28 chars is 32 items of a byte, not 29).
std::size_t items_of(MPI_Count count, const Typemap& t) {
  return t.basic != MPI_DATATYPE_NULL ? elements_of(count, t) : bytes_of(count, t);
}

// A request's typemap: a derived type's own shared copy (which outlives MPI_Type_free while
// the request is in flight), else `t`, a predefined type's.
void keep_typemap(const RankState& s, RequestEntry& r, MPI_Datatype datatype, const Typemap& t) {
  r.kept = kept_typemap(s, datatype);
  r.map = r.kept != nullptr ? r.kept.get() : &t;
}

// What a send sends: the program's buffer when its type lies in memory as it packs, else the
// packed copy made in `copy` (charged delta per element: the model's rearrangement).
const void* packed_send(const Comm& c, const Typemap& t, const void* buf, MPI_Count count,
                        std::vector<unsigned char>& copy) {
  if (t.contiguous || count == 0) return buf;
  copy.resize(bytes_of(count, t));
  pack(t, buf, static_cast<std::size_t>(count), copy.data());
  c.charge_rearrange(elements_of(count, t));
  return copy.data();
}

// Where a receive lands: the program's buffer when its type lies in memory as it packs, else
// `staging` (unpacked by deliver once the message is in).
void* receive_into(const Typemap& t, void* buf, MPI_Count count,
                   std::vector<unsigned char>& staging) {
  if (t.contiguous || count == 0) return buf;
  staging.resize(bytes_of(count, t));
  return staging.data();
}

// The `bytes` a receive took into staging, unpacked into the program's buffer (charged delta
// per element).
void deliver(const Comm& c, const Typemap& t, const std::vector<unsigned char>& staging,
             std::size_t bytes, void* buf) {
  if (t.contiguous || staging.empty() || bytes == 0) return;
  unpack(t, staging.data(), bytes, buf);
  c.charge_rearrange(t.packed == 0 ? 0 : (bytes * t.elements + t.packed - 1) / t.packed);
}

void check_send_tag(const char* fn, int tag) {
  if (tag < 0) fail(fn, MPI_ERR_TAG, "invalid tag " + std::to_string(tag) + " (negative)");
  // MPI_TAG_UB is kMaxUserTag, the largest int: no int tag is above it.
}

void check_receive_tag(const char* fn, int tag) {
  if (tag != MPI_ANY_TAG) check_send_tag(fn, tag);
}

// On an intercommunicator a rank names the remote group's rank (mpi/intercomm.cpp): the call
// runs on its bridge, where remote rank r is r + remote_offset, and a status gives the remote
// rank back. On an intracommunicator the comm is the rank's own, the offset 0.
const Comm& peers_of(const CommEntry& e) { return e.inter != nullptr ? e.inter->bridge : e.comm; }
int offset_of(const CommEntry& e) { return e.inter != nullptr ? e.inter->remote_offset : 0; }
int to_peer(const CommEntry& e, int r) { return r >= 0 ? r + offset_of(e) : r; }

void check_peer(const char* fn, const char* what, int r, const CommEntry& e) {
  if (e.inter == nullptr) {
    check_rank(fn, MPI_ERR_RANK, what, r, e.comm);
  } else if (r < 0 || r >= static_cast<int>(e.inter->remote.size())) {
    fail(fn, MPI_ERR_RANK,
         std::string(what) + " " + std::to_string(r) +
             " is not a rank of the remote group (of " + std::to_string(e.inter->remote.size()) +
             ") of an intercommunicator");
  }
}

void check_destination(const char* fn, int dest, const CommEntry& e) {
  if (dest != MPI_PROC_NULL) check_peer(fn, "destination", dest, e);
}

void check_source(const char* fn, int source, const CommEntry& e) {
  if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE) check_peer(fn, "source", source, e);
}

// The checks every call that moves data makes, in this order: the rank's session, the
// communicator, the count, the datatype, the buffer.
struct Checked {
  RankState& state;
  const CommEntry& entry;
  const Typemap& type;
};
Checked check_data(const char* fn, MPI_Comm comm, const void* buf, MPI_Count count,
                   MPI_Datatype datatype) {
  Node& n = rank_in_session(fn);
  RankState& s = rank_state(n);
  const CommEntry& e = comm_or_fail(fn, s, comm);
  check_count(fn, count);
  const Typemap& t = moved_typemap(fn, s, datatype, count);
  check_buffer(fn, buf, count);
  return {s, e, t};
}

// The checks of a call that sends and receives (MPI_Sendrecv, MPI_Isendrecv and their
// _replace forms): check_data's on the send side, then the receive side's count, datatype and
// buffer, the tags, the destination and the source.
struct CheckedPair {
  RankState& state;
  const CommEntry& entry;
  const Typemap& send_type;
  const Typemap& recv_type;
};
CheckedPair check_sendrecv(const char* fn, MPI_Comm comm, const void* sendbuf, MPI_Count sendcount,
                           MPI_Datatype sendtype, int dest, int sendtag, const void* recvbuf,
                           MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag) {
  auto [s, e, st] = check_data(fn, comm, sendbuf, sendcount, sendtype);
  check_count(fn, recvcount);
  const Typemap& rt = moved_typemap(fn, s, recvtype, recvcount);
  check_buffer(fn, recvbuf, recvcount);
  check_send_tag(fn, sendtag);
  check_receive_tag(fn, recvtag);
  check_destination(fn, dest, e);
  check_source(fn, source, e);
  return {s, e, st, rt};
}

// "comm 5" or the communicator's name.
std::string comm_name(MPI_Comm comm, const CommEntry& e) {
  return e.name.empty() ? "comm " + std::to_string(comm) : e.name;
}

std::string peer_name(int peer) {
  if (peer == MPI_ANY_SOURCE) return "MPI_ANY_SOURCE";
  if (peer == MPI_PROC_NULL) return "MPI_PROC_NULL";
  return std::to_string(peer);
}

std::string tag_name(int tag) { return tag == MPI_ANY_TAG ? "MPI_ANY_TAG" : std::to_string(tag); }

// What a deadlock report says a rank is blocked in: "MPI_Recv(source 1, tag 5, MPI_COMM_WORLD)".
std::string call_text(const char* fn, const char* peer_word, int peer, int tag, MPI_Comm comm,
                      const CommEntry& e) {
  return std::string(fn) + "(" + peer_word + " " + peer_name(peer) + ", tag " + tag_name(tag) +
         ", " + comm_name(comm, e) + ")";
}

// The same for a call made often (a test or probe a program polls with), made only if a
// deadlock report asks for it: a polling loop that nothing else can end is reported in it.
struct CallText {
  const char* fn;
  const char* peer_word;
  int peer, tag;
  MPI_Comm comm;
  const CommEntry* e;
  static std::string describe(const void* arg) {
    const CallText& c = *static_cast<const CallText*>(arg);
    return call_text(c.fn, c.peer_word, c.peer, c.tag, c.comm, *c.e);
  }
};

// --- statuses ------------------------------------------------------------------------------

// A status's fields but MPI_ERROR, which a call that completes one request leaves as it was
// unless the call fails (MPI-4.1 3.2.5: only the calls that complete several set it, and
// only when they fail with MPI_ERR_IN_STATUS); `error` is written when it is not MPI_SUCCESS.
void set_status(MPI_Status* status, int source, int tag, std::size_t bytes, int error,
                bool cancelled) {
  if (status == MPI_STATUS_IGNORE) return;
  status->MPI_SOURCE = source;
  status->MPI_TAG = tag;
  if (error != MPI_SUCCESS) status->MPI_ERROR = error;
  status->vmc_cancelled = cancelled ? 1 : 0;
  status->vmc_bytes = static_cast<long long>(bytes);
}

// The empty status (a request to or from MPI_PROC_NULL, an inactive persistent request).
void set_empty(MPI_Status* status, int source = MPI_ANY_SOURCE) {
  set_status(status, source, MPI_ANY_TAG, 0, MPI_SUCCESS, false);
}

// `offset`: the remote offset of an intercommunicator's bridge, whose ranks `s` gives.
void set_from(MPI_Status* status, const vmc::Status& s, int offset = 0) {
  set_status(status, s.source >= 0 ? s.source - offset : s.source, static_cast<int>(s.tag),
             s.bytes, MPI_SUCCESS, s.cancelled);
}

// --- runtime errors in MPI's words --------------------------------------------------------

// Runs a call on the runtime: a receive too small for its message becomes MPI_ERR_TRUNCATE
// (the status, if any, says what the message was), a receive from a rank that has failed
// (vmc mpirun --fail) MPI_ERR_PROC_FAILED, a receive of a message a failed link lost (--fail
// link:...) MPI_ERR_OTHER with the runtime's words (MPI has no class for a failed link), any
// other misuse the runtime finds MPI_ERR_OTHER with its words. `offset`: an
// intercommunicator's remote offset (set_from's).
template <class F>
void on_runtime(const char* fn, MPI_Status* status, F&& f, int offset = 0) {
  try {
    f();
  } catch (const NodeFailedError& e) {
    set_status(status, e.failed_rank() >= 0 ? e.failed_rank() - offset : e.failed_rank(),
               MPI_ANY_TAG, 0, MPI_ERR_PROC_FAILED, false);
    fail(fn, MPI_ERR_PROC_FAILED, e.what());
  } catch (const LinkFailedError& e) {
    set_status(status, e.peer_rank() >= 0 ? e.peer_rank() - offset : e.peer_rank(), MPI_ANY_TAG,
               0, MPI_ERR_OTHER, false);
    fail(fn, MPI_ERR_OTHER, e.what());
  } catch (const TruncationError& e) {
    set_status(status, e.source() >= 0 ? e.source() - offset : e.source(),
               static_cast<int>(e.tag()), e.bytes(), MPI_ERR_TRUNCATE, false);
    fail(fn, MPI_ERR_TRUNCATE, e.what());
  } catch (const UsageError& e) {
    fail(fn, MPI_ERR_OTHER, e.what());
  }
}

// Runs a call whose communicator is known only inside it (a request's): an MpiError goes to
// the error handler of `comm` as it stands when the error is thrown.
template <class Body>
int request_call(MPI_Comm& comm, Body&& body) {
  try {
    return body();
  } catch (const MpiError& e) {
    return raise_error(e.function(), comm, e.error_class(), e.text());
  }
}

// --- requests ------------------------------------------------------------------------------

PointToPointState& p2p(RankState& s) { return s.p2p; }

// The calling rank's state, checked to be in its session (for calls without a communicator).
RankState& session(const char* fn) { return rank_state(rank_in_session(fn)); }

// The node's world comm: any of the node's comms completes any of its requests.
const Comm& world_of(RankState& s) { return s.comms.at(MPI_COMM_WORLD).comm; }

// A request's handle is its slot in the table and the slot's generation: a slot is reused, but
// a handle kept past its request's completion (a copy of it, completed once already) names
// an older generation and is refused, not taken for the slot's new request.
constexpr int kSlotBits = 20;
constexpr std::uint32_t kSlots = 1u << kSlotBits;
constexpr std::uint32_t kGenerations = 1u << (31 - kSlotBits);
std::size_t slot_of(MPI_Request h) { return static_cast<std::uint32_t>(h) & (kSlots - 1); }

MPI_Request new_request(RankState& s) {
  PointToPointState& p = p2p(s);
  std::size_t slot;
  if (!p.free_requests.empty()) {
    slot = static_cast<std::size_t>(p.free_requests.back());
    p.free_requests.pop_back();
  } else {
    slot = p.requests.size();
    if (slot >= kSlots) {
      fail("MPI_Request", MPI_ERR_INTERN,
           "more than " + std::to_string(kSlots - 1) + " requests in use at once on one rank");
    }
    p.requests.emplace_back();
  }
  RequestEntry& r = p.requests[slot];
  const std::uint32_t generation = (r.generation + 1) % kGenerations;
  r = RequestEntry{};
  r.in_use = true;
  r.generation = generation;
  return static_cast<MPI_Request>((generation << kSlotBits) | slot);
}

void release_request(RankState& s, MPI_Request h) {
  RequestEntry& r = p2p(s).requests[slot_of(h)];
  const std::uint32_t generation = r.generation;
  r = RequestEntry{};
  r.generation = generation;
  p2p(s).free_requests.push_back(static_cast<MPI_Request>(slot_of(h)));
}

RequestEntry& entry(RankState& s, MPI_Request h) { return p2p(s).requests[slot_of(h)]; }

// Whether handle h names a request in use (of its generation).
bool live_request(RankState& s, MPI_Request h) {
  const PointToPointState& p = p2p(s);
  if (h <= MPI_REQUEST_NULL || slot_of(h) == 0 || slot_of(h) >= p.requests.size()) return false;
  const RequestEntry& r = p.requests[slot_of(h)];
  return r.in_use && static_cast<std::uint32_t>(h) >> kSlotBits == r.generation;
}

// The request a handle names (not MPI_REQUEST_NULL), or MPI_ERR_REQUEST.
RequestEntry& request_or_fail(const char* fn, RankState& s, MPI_Request h) {
  PointToPointState& p = p2p(s);
  if (!live_request(s, h)) {
    fail(fn, MPI_ERR_REQUEST,
         "invalid request " + std::to_string(h) +
             " (never made by this rank, or already completed and freed: a request is "
             "completed once)");
  }
  return p.requests[slot_of(h)];
}

void buffered_send(const char* fn, RankState& s, const Comm& c, const void* buf, MPI_Count count,
                   const Typemap& t, int dest, int tag);

// Posts the transfer of request r (a nonblocking call, or MPI_Start of a persistent one). A
// buffered request's send is made at once from the attached buffer (MPI_ERR_BUFFER when it
// has no room, and the request stays inactive), and the request is then complete.
void start(const char* fn, RankState& s, RequestEntry& r) {
  r.cancel = false;
  r.proc_null = r.peer == MPI_PROC_NULL;
  const Typemap& t = *r.map;
  if (r.buffered && !r.proc_null) buffered_send(fn, s, r.on, r.buffer, r.count, t, r.peer, r.tag);
  r.active = true;
  if (r.proc_null || r.buffered) return;
  const std::size_t bytes = bytes_of(r.count, t);
  on_runtime(fn, nullptr, [&] {
    if (r.send) {
      const void* out = packed_send(r.on, t, r.buffer, r.count, r.staging);
      r.request = r.on.isend_raw(out, bytes, items_of(r.count, t), r.peer, r.tag, r.mode);
    } else {
      void* in = receive_into(t, r.buffer, r.count, r.staging);
      r.request = r.on.irecv_raw(in, bytes, 1, r.peer == MPI_ANY_SOURCE ? kAnySource : r.peer,
                                 r.tag == MPI_ANY_TAG ? kAnyTag : r.tag);
    }
  });
}

// A request for a nonblocking or persistent call: its arguments checked and, unless
// persistent, its transfer posted.
int make_request(const char* fn, bool send, const void* buf, MPI_Count count, MPI_Datatype datatype,
                 int peer, int tag, MPI_Comm comm, SendMode mode, bool persistent,
                 MPI_Request* request, bool buffered = false) {
  return mpi_call(comm, [&] {
    auto [s, e, t] = check_data(fn, comm, buf, count, datatype);
    if (send) {
      check_send_tag(fn, tag);
      check_destination(fn, peer, e);
    } else {
      check_receive_tag(fn, tag);
      check_source(fn, peer, e);
    }
    if (request == nullptr) fail(fn, MPI_ERR_ARG, "null request pointer");
    const MPI_Request h = new_request(s);
    RequestEntry& r = entry(s, h);
    r.send = send;
    r.persistent = persistent;
    r.comm = comm;
    r.on = peers_of(e);
    r.source_offset = offset_of(e);
    r.buffer = const_cast<void*>(buf);
    r.count = count;
    r.datatype = datatype;
    keep_typemap(s, r, datatype, t);
    r.peer = to_peer(e, peer);
    r.tag = tag;
    r.mode = mode;
    r.buffered = buffered;
    *request = h;
    if (!persistent) {
      try {
        start(fn, s, r);
      } catch (...) {
        release_request(s, h);
        *request = MPI_REQUEST_NULL;
        throw;
      }
    }
    return MPI_SUCCESS;
  });
}

// After a request's transfer completed (or failed): a nonblocking request is freed and its
// handle set to MPI_REQUEST_NULL, a persistent one made inactive.
void retire(RankState& s, MPI_Request* h) {
  RequestEntry& r = entry(s, *h);
  r.active = false;
  r.request = vmc::Request();
  r.send_half = vmc::Request();
  r.schedule.reset();
  if (!r.persistent) {
    release_request(s, *h);
    *h = MPI_REQUEST_NULL;
  }
}

// The status of a completed request from the runtime's (its source in `from`'s ranks).
void set_completed(MPI_Status* status, const RequestEntry& r, const vmc::Status& got,
                   const Comm& from) {
  if (r.send) {
    set_empty(status);
    return;
  }
  vmc::Status s = got;
  if (&from != &r.on && s.source >= 0) s.source = r.on.comm_rank(from.world_rank(s.source));
  set_from(status, s, r.source_offset);
}

// Waits for runtime request `req` of request entry r (`got`, if given, in r's communicator's
// ranks): while nonblocking collectives are outstanding on the rank, their transfers complete
// and their schedules advance meanwhile (mpi/nbc.hpp).
void wait_for(RankState& s, const RequestEntry& r, vmc::Request& req, vmc::Status* got) {
  if (!schedules_outstanding(s)) {
    r.on.wait(req, got);
    return;
  }
  vmc::Status st;
  wait_progressing(s, std::span<vmc::Request>(&req, 1), &st, {});
  if (st.source >= 0) st.source = r.on.comm_rank(st.source);
  if (got != nullptr) *got = st;
}

// Completes MPI_Isendrecv's send half, if it has one in flight: waits for it, or with
// `wait` false completes it only if it has completed by now; whether it is done. A send that
// fails (its buffer changed in flight) lets go of the receive too, so that nothing is left
// in flight that no call will complete.
bool finish_send_half(const char* fn, RankState& s, RequestEntry& r, bool wait) {
  if (r.send_half.null()) return true;
  bool done = true;
  try {
    on_runtime(fn, nullptr, [&] {
      if (wait) {
        wait_for(s, r, r.send_half, nullptr);
      } else {
        done = r.on.test(r.send_half);
      }
    });
  } catch (...) {
    r.send_half = vmc::Request();
    if (!r.proc_null && !r.request.null()) {
      try {
        r.on.free(r.request);
      } catch (const UsageError&) {
        // completed already: nothing in flight
      }
      r.request = vmc::Request();
    }
    r.proc_null = true;
    throw;
  }
  return done;
}

// A request's status when it completes without the runtime's: an MPI_PROC_NULL receive's, a
// send's (buffered).
void set_trivial(MPI_Status* status, const RequestEntry& r) {
  if (r.buffered) {
    set_empty(status);
  } else {
    set_status(status, MPI_PROC_NULL, MPI_ANY_TAG, 0, MPI_SUCCESS, r.cancel && !r.send);
  }
}

// Completes request *h, waiting for its transfer; fills the status; retires it. Its errors
// are raised through its communicator's handler; returns the class it ended with.
int complete(const char* fn, RankState& s, MPI_Request* h, MPI_Status* status) {
  RequestEntry& r = entry(s, *h);
  MPI_Comm comm = r.comm;
  int error = MPI_SUCCESS;
  if (!r.active) {
    set_empty(status);
  } else if (r.schedule != nullptr) {
    // A nonblocking collective: its schedule run to its end (an empty status).
    const std::shared_ptr<Schedule> x = r.schedule;
    error = request_call(comm, [&] {
      on_runtime(fn, nullptr,
                 [&] { wait_progressing(s, {}, nullptr, [&] { return x->done(); }); });
      return MPI_SUCCESS;
    });
    set_empty(status);
  } else {
    error = request_call(comm, [&] {
      finish_send_half(fn, s, r, true);
      if (r.proc_null || r.buffered) {
        set_trivial(status, r);
        return MPI_SUCCESS;
      }
      vmc::Status got;
      on_runtime(fn, status, [&] { wait_for(s, r, r.request, &got); }, r.source_offset);
      set_completed(status, r, got, r.on);
      if (!r.send) deliver(r.on, *r.map, r.staging, got.bytes, r.buffer);
      return MPI_SUCCESS;
    });
  }
  retire(s, h);
  return error;
}

// Inactive, buffered and MPI_PROC_NULL requests complete at once, without the runtime (an
// MPI_Isendrecv from MPI_PROC_NULL once its send has completed).
bool trivially_complete(const RequestEntry& r) {
  if (r.schedule != nullptr) return !r.active || r.schedule->done();
  return !r.active || r.buffered || (r.proc_null && r.send_half.null());
}

// The runtime request a list call waits for or tests of a request that does not complete
// trivially: MPI_Isendrecv's send half while it is in flight, then its receive. The lists
// complete a send half by itself and wait on, or test again, for its receive: a request
// completes when its last half does, so the first request of a list to complete is the one
// whose last half completes first.
vmc::Request& exposed(RequestEntry& r) { return r.send_half.null() ? r.request : r.send_half; }

// The non-null requests of a list, checked, with their places in it.
struct ListItem {
  int index;
  MPI_Request handle;
};
std::vector<ListItem> list_items(const char* fn, RankState& s, int count,
                                 const MPI_Request requests[]) {
  if (count < 0) fail(fn, MPI_ERR_COUNT, "negative count " + std::to_string(count));
  if (count > 0 && requests == nullptr) fail(fn, MPI_ERR_ARG, "null array of requests");
  std::vector<ListItem> items;
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    request_or_fail(fn, s, requests[i]);
    for (const ListItem& it : items) {
      if (it.handle == requests[i]) {
        fail(fn, MPI_ERR_REQUEST,
             "request " + std::to_string(requests[i]) + " is in the list twice");
      }
    }
    items.push_back({i, requests[i]});
  }
  return items;
}

MPI_Status* status_at(MPI_Status statuses[], int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

// The runtime's requests of a list's transfers that are not trivial, and where each is in
// the list of items.
struct Pending {
  std::vector<vmc::Request> requests;
  std::vector<int> at;
};
Pending pending_of(RankState& s, const std::vector<ListItem>& items) {
  Pending p;
  for (int k = 0; k < static_cast<int>(items.size()); ++k) {
    RequestEntry& r = entry(s, items[static_cast<std::size_t>(k)].handle);
    if (trivially_complete(r) || r.schedule != nullptr) continue;
    p.requests.push_back(exposed(r));
    p.at.push_back(k);
  }
  return p;
}

// After a list call's runtime completed the exposed request of r: when that was a send half,
// it is done, and r waits for its receive still (false); else r's receive completed (true).
bool last_half_done(RequestEntry& r) {
  if (r.send_half.null()) return true;
  r.send_half = vmc::Request();
  return false;
}

// The rank's nonblocking collectives advanced without blocking (a test call's progress).
void progress(const char* fn, RankState& s) {
  on_runtime(fn, nullptr, [&] { progress_schedules(s); });
}

// Whether a nonblocking collective of the list has completed.
bool listed_schedule_done(RankState& s, const std::vector<ListItem>& items) {
  for (const ListItem& it : items) {
    const RequestEntry& r = entry(s, it.handle);
    if (r.schedule != nullptr && r.schedule->done()) return true;
  }
  return false;
}

// A listed request the runtime completed (through the world comm: `got` in world ranks).
void finish_listed(RankState& s, MPI_Request* h, MPI_Status* status, const vmc::Status& got) {
  RequestEntry& r = entry(s, *h);
  set_completed(status, r, got, world_of(s));
  if (!r.send) deliver(r.on, *r.map, r.staging, got.bytes, r.buffer);
  retire(s, h);
}

// The error handler that applies to a list: its first request's communicator.
MPI_Comm list_comm(RankState& s, int count, const MPI_Request requests[]) {
  for (int i = 0; requests != nullptr && i < count; ++i) {
    const MPI_Request h = requests[i];
    if (live_request(s, h)) {
      return entry(s, h).comm;
    }
  }
  return MPI_COMM_WORLD;
}

// --- buffered sends ------------------------------------------------------------------------

// Completes the buffered sends that have completed by now (in model time), returning their
// space to the attached buffer.
void reclaim(RankState& s) {
  BsendState& b = p2p(s).bsend;
  if (b.in_flight.empty()) return;
  std::vector<vmc::Request> rs;
  for (auto& f : b.in_flight) rs.push_back(f.request);
  const std::vector<std::size_t> done = world_of(s).test_some(rs);
  std::vector<BsendState::InFlight> left;
  for (std::size_t i = 0; i < b.in_flight.size(); ++i) {
    if (std::find(done.begin(), done.end(), i) == done.end()) {
      left.push_back(std::move(b.in_flight[i]));
    }
  }
  b.in_flight = std::move(left);
}

MPI_Count bsend_space(const BsendState& b) {
  MPI_Count used = 0;
  for (const auto& f : b.in_flight) used += f.bytes;
  return b.size - used;
}

void wait_buffered(RankState& s) {
  BsendState& b = p2p(s).bsend;
  if (b.in_flight.empty()) return;
  std::vector<vmc::Request> rs;
  for (auto& f : b.in_flight) rs.push_back(f.request);
  CallContext context("MPI_Buffer_detach (its buffered sends in flight)");
  world_of(s).wait_all(rs);
  b.in_flight.clear();
}

// A buffered send: posted at once, its space counted in the attached buffer until it
// completes.
void buffered_send(const char* fn, RankState& s, const Comm& c, const void* buf, MPI_Count count,
                   const Typemap& t, int dest, int tag) {
  BsendState& b = p2p(s).bsend;
  const std::size_t bytes = bytes_of(count, t);
  const long long need = static_cast<long long>(bytes) + MPI_BSEND_OVERHEAD;
  if (b.buffer == nullptr) {
    fail(fn, MPI_ERR_BUFFER, "no buffer attached (MPI_Buffer_attach) for a buffered send");
  }
  if (need > bsend_space(b)) reclaim(s);
  if (need > bsend_space(b)) {
    fail(fn, MPI_ERR_BUFFER,
         "the attached buffer of " + std::to_string(b.size) + " bytes has " +
             std::to_string(bsend_space(b)) + " bytes free; this message needs " +
             std::to_string(need) + " (its " + std::to_string(bytes) +
             " bytes and MPI_BSEND_OVERHEAD)");
  }
  // Sent from a copy, as from the attached buffer: the program may change its own at once.
  BsendState::InFlight f;
  f.bytes = need;
  if (t.contiguous || count == 0) {
    f.copy.assign(static_cast<const unsigned char*>(buf),
                  static_cast<const unsigned char*>(buf) + bytes);
  } else {
    packed_send(c, t, buf, count, f.copy);
  }
  on_runtime(fn, nullptr, [&] {
    f.request = c.isend_raw(f.copy.data(), bytes, items_of(count, t), dest, tag);
  });
  b.in_flight.push_back(std::move(f));
}

// --- matched probes ------------------------------------------------------------------------

MPI_Message new_message(RankState& s, vmc::Request r, MPI_Comm comm, const Comm& on) {
  auto& ms = p2p(s).messages;
  // Handles 0 and 1 are MPI_MESSAGE_NULL and MPI_MESSAGE_NO_PROC.
  if (ms.size() < 2) ms.resize(2);
  std::size_t h = 2;
  while (h < ms.size() && ms[h].in_use) ++h;
  if (h == ms.size()) ms.emplace_back();
  ms[h] = MessageEntry{true, r, comm, on};
  return static_cast<MPI_Message>(h);
}

}  // namespace

void finish_point_to_point(RankState& state) {
  // A nonblocking collective the program never completed is erroneous, as a point-to-point
  // request never completed is: its schedule is run to its end first, so that the other ranks
  // are not left waiting for this one, then MPI_Finalize says which.
  std::vector<std::string> never;
  for (const RequestEntry& r : state.p2p.requests) {
    if (r.in_use && r.active && r.schedule != nullptr) never.push_back(r.schedule->what());
  }
  finish_schedules(state);
  wait_buffered(state);
  if (!never.empty()) {
    std::string text = std::to_string(never.size()) +
                       " nonblocking collective(s) started and never completed by a wait or a "
                       "test: ";
    for (std::size_t i = 0; i < never.size(); ++i) text += (i > 0 ? ", " : "") + never[i];
    fail("MPI_Finalize", MPI_ERR_REQUEST,
         text + " (vmc ran them to their end, so that the other ranks could go on)");
  }
}

MPI_Request add_collective_request(RankState& s, MPI_Comm comm, ScheduleStart start,
                                   bool persistent) {
  const MPI_Request h = new_request(s);
  {
    RequestEntry& r = entry(s, h);
    r.comm = comm;
    r.on = s.comms.at(static_cast<std::size_t>(comm)).comm;
    r.persistent = persistent;
  }
  if (persistent) {
    // Compared with the other members and given its tag space now, in the order the ranks
    // make their persistent collectives; each MPI_Start reuses it.
    PersistentTag reserved{.reserve = true};
    try {
      start(&reserved);
    } catch (...) {
      release_request(s, h);
      throw;
    }
    RequestEntry& r = entry(s, h);
    r.collective_tag = reserved.tag;
    r.start_schedule = std::move(start);
    return h;
  }
  std::shared_ptr<Schedule> x;
  try {
    x = start(nullptr);
  } catch (...) {
    release_request(s, h);
    throw;
  }
  RequestEntry& r = entry(s, h);
  r.schedule = x;
  r.active = true;
  add_schedule(s, std::move(x));
  return h;
}

}  // namespace vmc::mpi

using namespace vmc;
using namespace vmc::mpi;

extern "C" {

// --- blocking sends --------------------------------------------------------------------------

static int send_call(const char* fn, const void* buf, MPI_Count count, MPI_Datatype datatype,
                     int dest, int tag, MPI_Comm comm, SendMode mode, bool buffered) {
  return mpi_call(comm, [&] {
    auto [s, e, t] = check_data(fn, comm, buf, count, datatype);
    check_send_tag(fn, tag);
    check_destination(fn, dest, e);
    if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
    const Comm& c = peers_of(e);
    if (buffered) {
      buffered_send(fn, s, c, buf, count, t, to_peer(e, dest), tag);
      return MPI_SUCCESS;
    }
    CallContext context(call_text(fn, "dest", dest, tag, comm, e));
    std::vector<unsigned char> copy;
    const void* out = packed_send(c, t, buf, count, copy);
    on_runtime(fn, nullptr, [&] {
      if (schedules_outstanding(s)) {
        // The rank's nonblocking collectives advance while it waits.
        vmc::Request q =
            c.isend_raw(out, bytes_of(count, t), items_of(count, t), to_peer(e, dest), tag, mode);
        wait_progressing(s, std::span<vmc::Request>(&q, 1), nullptr, {});
        return;
      }
      c.send_raw(out, bytes_of(count, t), items_of(count, t), to_peer(e, dest), tag, mode);
    });
    return MPI_SUCCESS;
  });
}

int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm) {
  return send_call("MPI_Send", buf, count, datatype, dest, tag, comm, SendMode::standard, false);
}

int MPI_Send_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm) {
  return send_call("MPI_Send_c", buf, count, datatype, dest, tag, comm, SendMode::standard, false);
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm) {
  return send_call("MPI_Ssend", buf, count, datatype, dest, tag, comm, SendMode::synchronous,
                   false);
}

int MPI_Ssend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm) {
  return send_call("MPI_Ssend_c", buf, count, datatype, dest, tag, comm, SendMode::synchronous,
                   false);
}

int MPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm) {
  return send_call("MPI_Rsend", buf, count, datatype, dest, tag, comm, SendMode::standard, false);
}

int MPI_Rsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm) {
  return send_call("MPI_Rsend_c", buf, count, datatype, dest, tag, comm, SendMode::standard, false);
}

int MPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
              MPI_Comm comm) {
  return send_call("MPI_Bsend", buf, count, datatype, dest, tag, comm, SendMode::standard, true);
}

int MPI_Bsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm) {
  return send_call("MPI_Bsend_c", buf, count, datatype, dest, tag, comm, SendMode::standard, true);
}

// MPI_Buffer_attach and its _c form.
static int buffer_attach(const char* fn, void* buffer, MPI_Count size) {
  return mpi_call(MPI_COMM_SELF, [&] {
    BsendState& b = session(fn).p2p.bsend;
    if (b.buffer != nullptr) fail(fn, MPI_ERR_BUFFER, "a buffer is attached already");
    if (size < 0) fail(fn, MPI_ERR_ARG, "negative size " + std::to_string(size));
    if (buffer == nullptr && size > 0) fail(fn, MPI_ERR_BUFFER, "null buffer");
    b.buffer = buffer != nullptr ? buffer : &b;  // a buffer of size 0 is attached all the same
    b.size = size;
    return MPI_SUCCESS;
  });
}

int MPI_Buffer_attach(void* buffer, int size) {
  return buffer_attach("MPI_Buffer_attach", buffer, size);
}

int MPI_Buffer_attach_c(void* buffer, MPI_Count size) {
  return buffer_attach("MPI_Buffer_attach_c", buffer, size);
}

// MPI_Buffer_detach and its _c form: the size given back as the call's type holds it (an
// int form's buffer larger than an int holds is MPI_ERR_COUNT).
static int buffer_detach(const char* fn, void* buffer_addr, MPI_Count* size,
                         MPI_Count max_size) {
  return mpi_call(MPI_COMM_SELF, [&] {
    RankState& s = session(fn);
    BsendState& b = s.p2p.bsend;
    if (b.buffer == nullptr) fail(fn, MPI_ERR_BUFFER, "no buffer is attached");
    if (size != nullptr && b.size > max_size) {
      fail(fn, MPI_ERR_COUNT,
           "the attached buffer's " + std::to_string(b.size) +
               " bytes do not fit its int size (detach it with MPI_Buffer_detach_c)");
    }
    wait_buffered(s);
    if (buffer_addr != nullptr) {
      void* given = b.buffer == &b ? nullptr : b.buffer;
      std::memcpy(buffer_addr, &given, sizeof given);
    }
    if (size != nullptr) *size = b.size;
    b.buffer = nullptr;
    b.size = 0;
    return MPI_SUCCESS;
  });
}

int MPI_Buffer_detach(void* buffer_addr, int* size) {
  MPI_Count wide = 0;
  const int err = buffer_detach("MPI_Buffer_detach", buffer_addr, size != nullptr ? &wide : nullptr,
                                std::numeric_limits<int>::max());
  if (err == MPI_SUCCESS && size != nullptr) *size = static_cast<int>(wide);
  return err;
}

int MPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  return buffer_detach("MPI_Buffer_detach_c", buffer_addr, size,
                       std::numeric_limits<MPI_Count>::max());
}

// --- blocking receives -------------------------------------------------------------------

static int recv_call(const char* fn, void* buf, MPI_Count count, MPI_Datatype datatype,
                     int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return mpi_call(comm, [&] {
    auto [s, e, t] = check_data(fn, comm, buf, count, datatype);
    check_receive_tag(fn, tag);
    check_source(fn, source, e);
    if (source == MPI_PROC_NULL) {
      set_empty(status, MPI_PROC_NULL);
      return MPI_SUCCESS;
    }
    CallContext context(call_text(fn, "source", source, tag, comm, e));
    vmc::Status got;
    std::vector<unsigned char> staging;
    void* in = receive_into(t, buf, count, staging);
    const Comm& c = peers_of(e);
    on_runtime(fn, status, [&] {
      const int from = source == MPI_ANY_SOURCE ? kAnySource : to_peer(e, source);
      const Tag with = tag == MPI_ANY_TAG ? kAnyTag : tag;
      if (schedules_outstanding(s)) {
        // The rank's nonblocking collectives advance while it waits.
        vmc::Request q = c.irecv_raw(in, bytes_of(count, t), 1, from, with);
        wait_progressing(s, std::span<vmc::Request>(&q, 1), &got, {});
        if (got.source >= 0) got.source = c.comm_rank(got.source);
        return;
      }
      c.recv_raw(in, bytes_of(count, t), 1, from, with, &got);
    }, offset_of(e));
    set_from(status, got, offset_of(e));
    deliver(c, t, staging, got.bytes, buf);
    return MPI_SUCCESS;
  });
}

int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  return recv_call("MPI_Recv", buf, count, datatype, source, tag, comm, status);
}

int MPI_Recv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
               MPI_Comm comm, MPI_Status* status) {
  return recv_call("MPI_Recv_c", buf, count, datatype, source, tag, comm, status);
}

// Sendrecv and Sendrecv_replace: the send and the receive at once (a copy of the buffer is
// sent when it also receives).
static int sendrecv_call(const char* fn, const void* sendbuf, MPI_Count sendcount,
                         MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                         MPI_Comm comm, MPI_Status* status, bool replace) {
  return mpi_call(comm, [&] {
    auto [s, e, st, rt] = check_sendrecv(fn, comm, sendbuf, sendcount, sendtype, dest, sendtag,
                                         recvbuf, recvcount, recvtype, source, recvtag);
    const Comm& c = peers_of(e);
    std::vector<unsigned char> copy, staging;
    if (replace && st.contiguous) {
      const auto* p = static_cast<const unsigned char*>(sendbuf);
      copy.assign(p, p + bytes_of(sendcount, st));
      sendbuf = copy.data();
    } else if (dest != MPI_PROC_NULL) {
      sendbuf = packed_send(c, st, sendbuf, sendcount, copy);
    }
    void* in = source == MPI_PROC_NULL ? recvbuf : receive_into(rt, recvbuf, recvcount, staging);
    const int from = source == MPI_ANY_SOURCE ? kAnySource : to_peer(e, source);
    const int to = to_peer(e, dest);
    const Tag rtag = recvtag == MPI_ANY_TAG ? kAnyTag : recvtag;
    CallContext context(std::string(fn) + "(dest " + peer_name(dest) + " tag " +
                        std::to_string(sendtag) + ", source " + peer_name(source) + " tag " +
                        tag_name(recvtag) + ", " + comm_name(comm, e) + ")");
    vmc::Status got;
    on_runtime(fn, status, [&] {
      if (dest == MPI_PROC_NULL && source == MPI_PROC_NULL) return;
      if (schedules_outstanding(s)) {
        // The rank's nonblocking collectives advance while it waits.
        std::array<vmc::Request, 2> q;  // the receive, the send
        if (source != MPI_PROC_NULL) q[0] = c.irecv_raw(in, bytes_of(recvcount, rt), 1, from, rtag);
        if (dest != MPI_PROC_NULL) {
          q[1] = c.isend_raw(sendbuf, bytes_of(sendcount, st), items_of(sendcount, st), to,
                             sendtag);
        }
        while (!q[0].null() || !q[1].null()) {
          vmc::Status one;
          if (wait_progressing(s, q, &one, {}) == 0) {
            got = one;
            if (got.source >= 0) got.source = c.comm_rank(got.source);
          }
        }
        return;
      }
      if (dest == MPI_PROC_NULL) {
        c.recv_raw(in, bytes_of(recvcount, rt), 1, from, rtag, &got);
      } else if (source == MPI_PROC_NULL) {
        c.send_raw(sendbuf, bytes_of(sendcount, st), items_of(sendcount, st), to, sendtag);
      } else {
        c.sendrecv_raw(sendbuf, bytes_of(sendcount, st), items_of(sendcount, st), to, sendtag,
                       in, bytes_of(recvcount, rt), 1, from, rtag, &got);
      }
    }, offset_of(e));
    if (source == MPI_PROC_NULL) {
      set_empty(status, MPI_PROC_NULL);
    } else {
      set_from(status, got, offset_of(e));
      deliver(c, rt, staging, got.bytes, recvbuf);
    }
    return MPI_SUCCESS;
  });
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                 int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                 int recvtag, MPI_Comm comm, MPI_Status* status) {
  return sendrecv_call("MPI_Sendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                       recvcount, recvtype, source, recvtag, comm, status, false);
}

int MPI_Sendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                   int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return sendrecv_call("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                       recvcount, recvtype, source, recvtag, comm, status, false);
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return sendrecv_call("MPI_Sendrecv_replace", buf, count, datatype, dest, sendtag, buf, count,
                       datatype, source, recvtag, comm, status, true);
}

int MPI_Sendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  return sendrecv_call("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag, buf, count,
                       datatype, source, recvtag, comm, status, true);
}

// Isendrecv and Isendrecv_replace: a send and a receive posted at once, one request for both
// (RequestEntry: the receive is its transfer, the send its send half), which completes when
// both have, with the receive's status. _replace sends a copy of the buffer, taken before the
// receive may write into it.
static int isendrecv_call(const char* fn, const void* sendbuf, MPI_Count sendcount,
                          MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                          MPI_Comm comm, MPI_Request* request, bool replace) {
  return mpi_call(comm, [&] {
    auto [s, e, st, rt] = check_sendrecv(fn, comm, sendbuf, sendcount, sendtype, dest, sendtag,
                                         recvbuf, recvcount, recvtype, source, recvtag);
    if (request == nullptr) fail(fn, MPI_ERR_ARG, "null request pointer");
    const MPI_Request h = new_request(s);
    RequestEntry& r = entry(s, h);
    r.comm = comm;
    r.on = peers_of(e);
    r.source_offset = offset_of(e);
    r.buffer = recvbuf;
    r.count = recvcount;
    r.datatype = recvcount == 0 && recvtype == MPI_DATATYPE_NULL ? MPI_DATATYPE_NULL : recvtype;
    keep_typemap(s, r, r.datatype, rt);
    r.peer = to_peer(e, source);
    r.tag = recvtag;
    r.active = true;
    r.proc_null = source == MPI_PROC_NULL;
    const std::size_t send_bytes = bytes_of(sendcount, st);
    if (replace && dest != MPI_PROC_NULL && st.contiguous) {
      const auto* p = static_cast<const unsigned char*>(sendbuf);
      r.send_copy.assign(p, p + send_bytes);
      sendbuf = r.send_copy.data();
    } else if (dest != MPI_PROC_NULL) {
      sendbuf = packed_send(r.on, st, sendbuf, sendcount, r.send_copy);
    }
    void* in = r.proc_null ? recvbuf : receive_into(rt, recvbuf, recvcount, r.staging);
    try {
      on_runtime(fn, nullptr, [&] {
        if (dest != MPI_PROC_NULL) {
          r.send_half = r.on.isend_raw(sendbuf, send_bytes, items_of(sendcount, st),
                                       to_peer(e, dest), sendtag);
        }
        if (!r.proc_null) {
          r.request = r.on.irecv_raw(in, bytes_of(recvcount, rt), 1,
                                     source == MPI_ANY_SOURCE ? kAnySource : to_peer(e, source),
                                     recvtag == MPI_ANY_TAG ? kAnyTag : recvtag);
        }
      });
    } catch (...) {
      if (!r.send_half.null()) r.on.free(r.send_half);
      release_request(s, h);
      throw;
    }
    *request = h;
    return MPI_SUCCESS;
  });
}

int MPI_Isendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                  int recvtag, MPI_Comm comm, MPI_Request* request) {
  return isendrecv_call("MPI_Isendrecv", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                        recvcount, recvtype, source, recvtag, comm, request, false);
}

int MPI_Isendrecv_c(const void* sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest,
                    int sendtag, void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  return isendrecv_call("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                        recvcount, recvtype, source, recvtag, comm, request, false);
}

int MPI_Isendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Request* request) {
  return isendrecv_call("MPI_Isendrecv_replace", buf, count, datatype, dest, sendtag, buf, count,
                        datatype, source, recvtag, comm, request, true);
}

int MPI_Isendrecv_replace_c(void* buf, MPI_Count count, MPI_Datatype datatype, int dest,
                            int sendtag, int source, int recvtag, MPI_Comm comm,
                            MPI_Request* request) {
  return isendrecv_call("MPI_Isendrecv_replace_c", buf, count, datatype, dest, sendtag, buf, count,
                        datatype, source, recvtag, comm, request, true);
}

// --- nonblocking calls and persistent requests ---------------------------------------------

int MPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return make_request("MPI_Isend", true, buf, count, datatype, dest, tag, comm,
                      SendMode::standard, false, request);
}

int MPI_Isend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                MPI_Comm comm, MPI_Request* request) {
  return make_request("MPI_Isend_c", true, buf, count, datatype, dest, tag, comm,
                      SendMode::standard, false, request);
}

int MPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request* request) {
  return make_request("MPI_Issend", true, buf, count, datatype, dest, tag, comm,
                      SendMode::synchronous, false, request);
}

int MPI_Issend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request* request) {
  return make_request("MPI_Issend_c", true, buf, count, datatype, dest, tag, comm,
                      SendMode::synchronous, false, request);
}

int MPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request* request) {
  return make_request("MPI_Irsend", true, buf, count, datatype, dest, tag, comm,
                      SendMode::standard, false, request);
}

int MPI_Irsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request* request) {
  return make_request("MPI_Irsend_c", true, buf, count, datatype, dest, tag, comm,
                      SendMode::standard, false, request);
}

int MPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
               MPI_Comm comm, MPI_Request* request) {
  // Buffered: the send is the attached buffer's; the request completes at once.
  const int err = MPI_Bsend(buf, count, datatype, dest, tag, comm);
  if (err != MPI_SUCCESS) return err;
  return make_request("MPI_Ibsend", true, buf, count, datatype, MPI_PROC_NULL, tag, comm,
                      SendMode::standard, false, request);
}

int MPI_Ibsend_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                 MPI_Comm comm, MPI_Request* request) {
  const int err = MPI_Bsend_c(buf, count, datatype, dest, tag, comm);
  if (err != MPI_SUCCESS) return err;
  return make_request("MPI_Ibsend_c", true, buf, count, datatype, MPI_PROC_NULL, tag, comm,
                      SendMode::standard, false, request);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return make_request("MPI_Irecv", false, buf, count, datatype, source, tag, comm,
                      SendMode::standard, false, request);
}

int MPI_Irecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                MPI_Comm comm, MPI_Request* request) {
  return make_request("MPI_Irecv_c", false, buf, count, datatype, source, tag, comm,
                      SendMode::standard, false, request);
}

int MPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm, MPI_Request* request) {
  return make_request("MPI_Send_init", true, buf, count, datatype, dest, tag, comm,
                      SendMode::standard, true, request);
}

int MPI_Send_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request* request) {
  return make_request("MPI_Send_init_c", true, buf, count, datatype, dest, tag, comm,
                      SendMode::standard, true, request);
}

int MPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request* request) {
  return make_request("MPI_Ssend_init", true, buf, count, datatype, dest, tag, comm,
                      SendMode::synchronous, true, request);
}

int MPI_Ssend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request) {
  return make_request("MPI_Ssend_init_c", true, buf, count, datatype, dest, tag, comm,
                      SendMode::synchronous, true, request);
}

int MPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request* request) {
  return make_request("MPI_Rsend_init", true, buf, count, datatype, dest, tag, comm,
                      SendMode::standard, true, request);
}

int MPI_Rsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request) {
  return make_request("MPI_Rsend_init_c", true, buf, count, datatype, dest, tag, comm,
                      SendMode::standard, true, request);
}

int MPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                  MPI_Comm comm, MPI_Request* request) {
  return make_request("MPI_Recv_init", false, buf, count, datatype, source, tag, comm,
                      SendMode::standard, true, request);
}

int MPI_Recv_init_c(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                    MPI_Comm comm, MPI_Request* request) {
  return make_request("MPI_Recv_init_c", false, buf, count, datatype, source, tag, comm,
                      SendMode::standard, true, request);
}

// Each MPI_Start is an MPI_Bsend: its message goes from the attached buffer, and the request
// is complete at once.
int MPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request* request) {
  return make_request("MPI_Bsend_init", true, buf, count, datatype, dest, tag, comm,
                      SendMode::standard, true, request, true);
}

int MPI_Bsend_init_c(const void* buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag,
                     MPI_Comm comm, MPI_Request* request) {
  return make_request("MPI_Bsend_init_c", true, buf, count, datatype, dest, tag, comm,
                      SendMode::standard, true, request, true);
}

int MPI_Start(MPI_Request* request) {
  const char* fn = "MPI_Start";
  MPI_Comm comm = MPI_COMM_WORLD;
  return request_call(comm, [&] {
    RankState& s = session(fn);
    if (request == nullptr) fail(fn, MPI_ERR_ARG, "null request pointer");
    RequestEntry& r = request_or_fail(fn, s, *request);
    comm = r.comm;
    if (!r.persistent) fail(fn, MPI_ERR_REQUEST, "the request is not persistent");
    if (r.active) fail(fn, MPI_ERR_REQUEST, "the request is active already (complete it first)");
    if (r.start_schedule) {
      PersistentTag reuse{.tag = r.collective_tag};
      std::shared_ptr<Schedule> x = r.start_schedule(&reuse);
      RequestEntry& started = entry(s, *request);
      started.schedule = x;
      started.active = true;
      add_schedule(s, std::move(x));
      return MPI_SUCCESS;
    }
    start(fn, s, r);
    return MPI_SUCCESS;
  });
}

int MPI_Startall(int count, MPI_Request array_of_requests[]) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const int err = request_call(comm, [&] {
    if (count < 0) fail("MPI_Startall", MPI_ERR_COUNT, "negative count " + std::to_string(count));
    if (count > 0 && array_of_requests == nullptr) {
      fail("MPI_Startall", MPI_ERR_ARG, "null array of requests");
    }
    return MPI_SUCCESS;
  });
  for (int i = 0; err == MPI_SUCCESS && i < count; ++i) {
    const int e = MPI_Start(&array_of_requests[i]);
    if (e != MPI_SUCCESS) return e;
  }
  return err;
}

int MPI_Request_free(MPI_Request* request) {
  const char* fn = "MPI_Request_free";
  MPI_Comm comm = MPI_COMM_WORLD;
  return request_call(comm, [&] {
    RankState& s = session(fn);
    if (request == nullptr) fail(fn, MPI_ERR_ARG, "null request pointer");
    RequestEntry& r = request_or_fail(fn, s, *request);
    comm = r.comm;
    if (r.schedule != nullptr && r.active) {
      fail(fn, MPI_ERR_REQUEST,
           "the request of " + r.schedule->what() +
               " is in flight: freeing a collective's request before it completes is erroneous "
               "(complete it with a wait or a test first)");
    }
    if (r.active && !r.buffered) {
      // The transfers go on; nobody completes them.
      on_runtime(fn, nullptr, [&] {
        if (!r.send_half.null()) r.on.free(r.send_half);
        if (!r.proc_null) r.on.free(r.request);
      });
      for (std::vector<unsigned char>* copy : {&r.staging, &r.send_copy}) {
        if (!copy->empty()) s.p2p.orphaned_copies.push_back(std::move(*copy));
      }
    }
    release_request(s, *request);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
  });
}

int MPI_Cancel(MPI_Request* request) {
  const char* fn = "MPI_Cancel";
  MPI_Comm comm = MPI_COMM_WORLD;
  return request_call(comm, [&] {
    RankState& s = session(fn);
    if (request == nullptr) fail(fn, MPI_ERR_ARG, "null request pointer");
    RequestEntry& r = request_or_fail(fn, s, *request);
    comm = r.comm;
    if (!r.active) fail(fn, MPI_ERR_REQUEST, "the request is not active");
    if (r.schedule != nullptr) {
      fail(fn, MPI_ERR_REQUEST, "a collective's request cannot be cancelled");
    }
    r.cancel = true;
    // A send is not withdrawn: it completes as it would.
    if (r.proc_null || r.send) return MPI_SUCCESS;
    on_runtime(fn, nullptr, [&] { r.on.cancel(r.request); });
    return MPI_SUCCESS;
  });
}

// Whether the request has completed, without completing it: it stays as it is, to be completed
// by a wait or a test (an MPI_Isendrecv's send half, internal, is completed when it has).
// Whether `request` has completed, its status then written, the request left as it is (the
// MPI_Request_get_status calls). A null or inactive request is complete with an empty status.
// `comm`: the request's communicator, for the error handler.
static bool peek_status(const char* fn, RankState& s, MPI_Request request, MPI_Comm& comm,
                        MPI_Status* status) {
  if (request == MPI_REQUEST_NULL) {
    set_empty(status);
    return true;
  }
  RequestEntry& r = request_or_fail(fn, s, request);
  comm = r.comm;
  if (!r.active || (r.schedule != nullptr && r.schedule->done())) {
    set_empty(status);
    return true;
  }
  if (r.schedule != nullptr) return false;
  if (!finish_send_half(fn, s, r, false)) return false;
  if (r.proc_null || r.buffered) {
    set_trivial(status, r);
    return true;
  }
  vmc::Status got;
  bool done = false;
  on_runtime(fn, nullptr, [&] { done = r.on.completed(r.request, &got); });
  if (done) set_completed(status, r, got, r.on);
  return done;
}

// Whether a request of a list counts for MPI_Request_get_status_any and _some: neither null
// nor inactive.
static bool active_request(const char* fn, RankState& s, MPI_Request request) {
  return request != MPI_REQUEST_NULL && request_or_fail(fn, s, request).active;
}

// A list's count and array, checked as the wait and test calls check theirs.
static void check_request_list(const char* fn, int count, const MPI_Request requests[]) {
  if (count < 0) fail(fn, MPI_ERR_COUNT, "negative count " + std::to_string(count));
  if (count > 0 && requests == nullptr) fail(fn, MPI_ERR_ARG, "null array of requests");
}

int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  const char* fn = "MPI_Request_get_status";
  MPI_Comm comm = MPI_COMM_WORLD;
  return request_call(comm, [&] {
    RankState& s = session(fn);
    if (flag == nullptr) fail(fn, MPI_ERR_ARG, "null flag");
    *flag = 0;
    if (request != MPI_REQUEST_NULL) progress(fn, s);
    *flag = peek_status(fn, s, request, comm, status) ? 1 : 0;
    return MPI_SUCCESS;
  });
}

// MPI-4.1 section 3.7.5: the statuses of the list when every request has completed, the
// requests left as they are.
int MPI_Request_get_status_all(int count, const MPI_Request array_of_requests[], int* flag,
                               MPI_Status array_of_statuses[]) {
  const char* fn = "MPI_Request_get_status_all";
  MPI_Comm comm = MPI_COMM_WORLD;
  return request_call(comm, [&] {
    RankState& s = session(fn);
    check_request_list(fn, count, array_of_requests);
    if (flag == nullptr) fail(fn, MPI_ERR_ARG, "null flag");
    progress(fn, s);
    std::vector<MPI_Status> got(static_cast<std::size_t>(count));
    *flag = 0;
    for (int i = 0; i < count; ++i) {
      if (!peek_status(fn, s, array_of_requests[i], comm, &got[static_cast<std::size_t>(i)])) {
        return MPI_SUCCESS;
      }
    }
    *flag = 1;
    if (array_of_statuses != MPI_STATUSES_IGNORE) {
      std::copy(got.begin(), got.end(), array_of_statuses);
    }
    return MPI_SUCCESS;
  });
}

// The first active request of the list that has completed, left as it is; *index
// MPI_UNDEFINED and *flag 1 when none is active.
int MPI_Request_get_status_any(int count, const MPI_Request array_of_requests[], int* index,
                               int* flag, MPI_Status* status) {
  const char* fn = "MPI_Request_get_status_any";
  MPI_Comm comm = MPI_COMM_WORLD;
  return request_call(comm, [&] {
    RankState& s = session(fn);
    check_request_list(fn, count, array_of_requests);
    if (index == nullptr || flag == nullptr) fail(fn, MPI_ERR_ARG, "null index or flag");
    progress(fn, s);
    *index = MPI_UNDEFINED;
    *flag = 0;
    bool any_active = false;
    for (int i = 0; i < count; ++i) {
      if (!active_request(fn, s, array_of_requests[i])) continue;
      any_active = true;
      if (peek_status(fn, s, array_of_requests[i], comm, status)) {
        *index = i;
        *flag = 1;
        return MPI_SUCCESS;
      }
    }
    if (!any_active) {
      *flag = 1;
      set_empty(status);
    }
    return MPI_SUCCESS;
  });
}

// Every active request of the list that has completed, left as it is; *outcount
// MPI_UNDEFINED when none is active.
int MPI_Request_get_status_some(int incount, const MPI_Request array_of_requests[],
                                int* outcount, int array_of_indices[],
                                MPI_Status array_of_statuses[]) {
  const char* fn = "MPI_Request_get_status_some";
  MPI_Comm comm = MPI_COMM_WORLD;
  return request_call(comm, [&] {
    RankState& s = session(fn);
    check_request_list(fn, incount, array_of_requests);
    if (outcount == nullptr) fail(fn, MPI_ERR_ARG, "null outcount");
    progress(fn, s);
    int done = 0;
    bool any_active = false;
    for (int i = 0; i < incount; ++i) {
      if (!active_request(fn, s, array_of_requests[i])) continue;
      any_active = true;
      MPI_Status got;
      if (!peek_status(fn, s, array_of_requests[i], comm, &got)) continue;
      if (array_of_indices == nullptr) fail(fn, MPI_ERR_ARG, "null array of indices");
      array_of_indices[done] = i;
      if (array_of_statuses != MPI_STATUSES_IGNORE) array_of_statuses[done] = got;
      ++done;
    }
    *outcount = any_active ? done : MPI_UNDEFINED;
    return MPI_SUCCESS;
  });
}

int MPI_Test_cancelled(const MPI_Status* status, int* flag) {
  return mpi_call(MPI_COMM_SELF, [&] {
    if (status == nullptr || flag == nullptr) {
      fail("MPI_Test_cancelled", MPI_ERR_ARG, "null status or flag");
    }
    *flag = status->vmc_cancelled != 0;
    return MPI_SUCCESS;
  });
}

// --- completions ------------------------------------------------------------------------------

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  const char* fn = "MPI_Wait";
  MPI_Comm comm = MPI_COMM_WORLD;
  return request_call(comm, [&] {
    RankState& s = session(fn);
    if (request == nullptr) fail(fn, MPI_ERR_ARG, "null request pointer");
    if (*request == MPI_REQUEST_NULL) {
      set_empty(status);
      return MPI_SUCCESS;
    }
    RequestEntry& r = request_or_fail(fn, s, *request);
    comm = r.comm;
    if (r.schedule != nullptr) {
      CallContext context(r.schedule->what());
      return complete(fn, s, request, status);
    }
    const CommEntry& e = s.comms.at(static_cast<std::size_t>(r.comm));
    CallContext context(call_text(fn, r.send ? "dest" : "source",
                                      r.peer >= 0 ? r.peer - r.source_offset : r.peer, r.tag,
                                      r.comm, e));
    return complete(fn, s, request, status);
  });
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  const char* fn = "MPI_Test";
  MPI_Comm comm = MPI_COMM_WORLD;
  return request_call(comm, [&] {
    RankState& s = session(fn);
    if (request == nullptr || flag == nullptr) fail(fn, MPI_ERR_ARG, "null request or flag");
    *flag = 0;
    if (*request == MPI_REQUEST_NULL) {
      *flag = 1;
      set_empty(status);
      return MPI_SUCCESS;
    }
    progress(fn, s);
    RequestEntry& r = request_or_fail(fn, s, *request);
    comm = r.comm;
    if (trivially_complete(r)) {
      *flag = 1;
      return complete(fn, s, request, status);
    }
    if (r.schedule != nullptr) return MPI_SUCCESS;
    vmc::Status got;
    bool done = false;
    try {
      if (!finish_send_half(fn, s, r, false)) return MPI_SUCCESS;
      if (trivially_complete(r)) {
        *flag = 1;
        return complete(fn, s, request, status);
      }
      const CallText text{fn, r.send ? "dest" : "source",
                          r.peer >= 0 ? r.peer - r.source_offset : r.peer, r.tag, r.comm,
                          &s.comms.at(static_cast<std::size_t>(r.comm))};
      CallContext context(&CallText::describe, &text);
      on_runtime(
          fn, status, [&] { done = r.on.test(r.request, nullptr, &got); }, r.source_offset);
    } catch (const MpiError&) {
      *flag = 1;  // it completed, with an error
      retire(s, request);
      throw;
    }
    if (!done) return MPI_SUCCESS;
    *flag = 1;
    set_completed(status, r, got, r.on);
    retire(s, request);
    return MPI_SUCCESS;
  });
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]) {
  const char* fn = "MPI_Waitall";
  MPI_Comm comm = MPI_COMM_WORLD;
  return request_call(comm, [&] {
    RankState& s = session(fn);
    comm = list_comm(s, count, array_of_requests);
    const std::vector<ListItem> items = list_items(fn, s, count, array_of_requests);
    for (int i = 0; i < count && array_of_statuses != MPI_STATUSES_IGNORE; ++i) {
      if (array_of_requests[i] == MPI_REQUEST_NULL) set_empty(&array_of_statuses[i]);
    }
    CallContext context(std::string(fn) + "(" + std::to_string(items.size()) + " requests)");
    // Each in turn: the node waits until the last has completed, as for one wait of all.
    std::vector<int> errors(items.size(), MPI_SUCCESS);
    bool failed = false;
    for (std::size_t k = 0; k < items.size(); ++k) {
      MPI_Status* st = status_at(array_of_statuses, items[k].index);
      errors[k] = complete(fn, s, &array_of_requests[items[k].index], st);
      failed = failed || errors[k] != MPI_SUCCESS;
    }
    if (failed) {
      // Every status then says how its request ended.
      for (std::size_t k = 0; k < items.size() && array_of_statuses != MPI_STATUSES_IGNORE; ++k) {
        array_of_statuses[items[k].index].MPI_ERROR = errors[k];
      }
      fail(fn, MPI_ERR_IN_STATUS, "a request of the list failed (see its status)");
    }
    return MPI_SUCCESS;
  });
}

int MPI_Waitany(int count, MPI_Request array_of_requests[], int* index, MPI_Status* status) {
  const char* fn = "MPI_Waitany";
  MPI_Comm comm = MPI_COMM_WORLD;
  return request_call(comm, [&] {
    RankState& s = session(fn);
    comm = list_comm(s, count, array_of_requests);
    if (index == nullptr) fail(fn, MPI_ERR_ARG, "null index");
    const std::vector<ListItem> items = list_items(fn, s, count, array_of_requests);
    *index = MPI_UNDEFINED;
    for (const ListItem& it : items) {
      if (trivially_complete(entry(s, it.handle))) {
        *index = it.index;
        return complete(fn, s, &array_of_requests[it.index], status);
      }
    }
    if (items.empty()) {
      set_empty(status);
      return MPI_SUCCESS;
    }
    CallContext context(std::string(fn) + "(" + std::to_string(items.size()) + " requests)");
    for (;;) {
      for (const ListItem& it : items) {
        const RequestEntry& r = entry(s, it.handle);
        if (r.schedule != nullptr && trivially_complete(r)) {
          *index = it.index;
          return complete(fn, s, &array_of_requests[it.index], status);
        }
      }
      const Pending p = pending_of(s, items);
      std::vector<vmc::Request> rs = p.requests;
      vmc::Status got;
      std::size_t chosen = 0;
      on_runtime(fn, status, [&] {
        chosen = wait_progressing(s, rs, &got, [&] { return listed_schedule_done(s, items); });
      });
      if (chosen == kNoRequest) continue;  // a collective of the list has completed
      const ListItem& it = items[static_cast<std::size_t>(p.at[chosen])];
      RequestEntry& r = entry(s, it.handle);
      if (!last_half_done(r)) {
        if (!trivially_complete(r)) continue;  // its receive is still to come
        *index = it.index;
        return complete(fn, s, &array_of_requests[it.index], status);
      }
      *index = it.index;
      finish_listed(s, &array_of_requests[it.index], status, got);
      return MPI_SUCCESS;
    }
  });
}

int MPI_Testany(int count, MPI_Request array_of_requests[], int* index, int* flag,
                MPI_Status* status) {
  const char* fn = "MPI_Testany";
  MPI_Comm comm = MPI_COMM_WORLD;
  return request_call(comm, [&] {
    RankState& s = session(fn);
    comm = list_comm(s, count, array_of_requests);
    if (index == nullptr || flag == nullptr) fail(fn, MPI_ERR_ARG, "null index or flag");
    progress(fn, s);
    const std::vector<ListItem> items = list_items(fn, s, count, array_of_requests);
    *index = MPI_UNDEFINED;
    *flag = 0;
    for (const ListItem& it : items) {
      if (trivially_complete(entry(s, it.handle))) {
        *index = it.index;
        *flag = 1;
        return complete(fn, s, &array_of_requests[it.index], status);
      }
    }
    if (items.empty()) {
      *flag = 1;
      set_empty(status);
      return MPI_SUCCESS;
    }
    for (;;) {
      const Pending p = pending_of(s, items);
      std::vector<vmc::Request> rs = p.requests;
      vmc::Status got;
      std::size_t chosen = 0;
      bool done = false;
      if (rs.empty()) return MPI_SUCCESS;  // collectives only, none complete
      on_runtime(fn, status, [&] { done = world_of(s).test_any(rs, chosen, &got); });
      if (!done) return MPI_SUCCESS;
      const ListItem& it = items[static_cast<std::size_t>(p.at[chosen])];
      RequestEntry& r = entry(s, it.handle);
      if (!last_half_done(r)) {
        if (!trivially_complete(r)) continue;  // its send has completed: test its receive
        *index = it.index;
        *flag = 1;
        return complete(fn, s, &array_of_requests[it.index], status);
      }
      *index = it.index;
      *flag = 1;
      finish_listed(s, &array_of_requests[it.index], status, got);
      return MPI_SUCCESS;
    }
  });
}

// Waitsome and Testsome: every request of the list that has completed (by the first
// completion, for Waitsome), with their statuses, in the list's order.
static int some_call(const char* fn, bool wait, int incount, MPI_Request array_of_requests[],
                     int* outcount, int array_of_indices[], MPI_Status array_of_statuses[]) {
  MPI_Comm comm = MPI_COMM_WORLD;
  return request_call(comm, [&] {
    RankState& s = session(fn);
    comm = list_comm(s, incount, array_of_requests);
    if (outcount == nullptr) fail(fn, MPI_ERR_ARG, "null outcount");
    if (!wait) progress(fn, s);
    const std::vector<ListItem> items = list_items(fn, s, incount, array_of_requests);
    if (items.empty()) {
      *outcount = MPI_UNDEFINED;
      return MPI_SUCCESS;
    }
    // The completed requests: list index, and what the runtime gave a completed receive (none:
    // the request completes without the runtime).
    std::vector<std::pair<int, std::optional<vmc::Status>>> order;
    std::vector<ListItem> left = items;
    for (;;) {
      std::vector<ListItem> pending;
      for (const ListItem& it : left) {
        if (trivially_complete(entry(s, it.handle))) {
          order.emplace_back(it.index, std::nullopt);
        } else {
          pending.push_back(it);
        }
      }
      if (pending.empty()) break;
      const Pending p = pending_of(s, pending);
      std::vector<vmc::Request> rs = p.requests;
      std::vector<vmc::Status> got(rs.size());
      std::vector<std::size_t> done;
      if (wait && order.empty() && schedules_outstanding(s)) {
        // The first completion, collectives' ends included, then what else has completed.
        CallContext context(std::string(fn) + "(" + std::to_string(items.size()) + " requests)");
        std::size_t first = kNoRequest;
        vmc::Status first_got;
        on_runtime(fn, nullptr, [&] {
          first = wait_progressing(s, rs, &first_got,
                                   [&] { return listed_schedule_done(s, pending); });
        });
        if (first == kNoRequest) {  // a collective of the list has completed
          left = pending;
          continue;
        }
        on_runtime(fn, nullptr, [&] { done = world_of(s).test_some(rs, got); });
        got[first] = first_got;
        done.insert(std::lower_bound(done.begin(), done.end(), first), first);
      } else if (wait && order.empty()) {
        CallContext context(std::string(fn) + "(" + std::to_string(items.size()) + " requests)");
        on_runtime(fn, nullptr, [&] { done = world_of(s).wait_some(rs, got); });
      } else if (!rs.empty()) {
        struct Listed {
          const char* fn;
          std::size_t count;
        } listed{fn, items.size()};
        CallContext context(
            [](const void* arg) {
              const Listed& l = *static_cast<const Listed*>(arg);
              return std::string(l.fn) + "(" + std::to_string(l.count) + " requests)";
            },
            &listed);
        on_runtime(fn, nullptr, [&] { done = world_of(s).test_some(rs, got); });
      }
      // A send half done: its request waits for its receive, tested (or waited for) again.
      bool sends = false;
      std::vector<bool> received(pending.size(), false);
      for (std::size_t j : done) {
        const auto k = static_cast<std::size_t>(p.at[j]);
        if (last_half_done(entry(s, pending[k].handle))) {
          order.emplace_back(pending[k].index, got[j]);
          received[k] = true;
        } else {
          sends = true;
        }
      }
      left.clear();
      for (std::size_t k = 0; k < pending.size(); ++k) {
        if (!received[k]) left.push_back(pending[k]);
      }
      if (!sends) break;
    }
    std::sort(order.begin(), order.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    int n = 0;
    for (const auto& [i, got] : order) {
      MPI_Status* st = status_at(array_of_statuses, n);
      if (got) {
        finish_listed(s, &array_of_requests[i], st, *got);
      } else {
        complete(fn, s, &array_of_requests[i], st);
      }
      if (array_of_indices != nullptr) array_of_indices[n] = i;
      ++n;
    }
    *outcount = n;
    return MPI_SUCCESS;
  });
}

int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int* outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[]) {
  return some_call("MPI_Waitsome", true, incount, array_of_requests, outcount, array_of_indices,
                   array_of_statuses);
}

int MPI_Testsome(int incount, MPI_Request array_of_requests[], int* outcount,
                 int array_of_indices[], MPI_Status array_of_statuses[]) {
  return some_call("MPI_Testsome", false, incount, array_of_requests, outcount, array_of_indices,
                   array_of_statuses);
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int* flag,
                MPI_Status array_of_statuses[]) {
  const char* fn = "MPI_Testall";
  MPI_Comm comm = MPI_COMM_WORLD;
  return request_call(comm, [&] {
    RankState& s = session(fn);
    comm = list_comm(s, count, array_of_requests);
    if (flag == nullptr) fail(fn, MPI_ERR_ARG, "null flag");
    progress(fn, s);
    const std::vector<ListItem> items = list_items(fn, s, count, array_of_requests);
    *flag = 0;
    for (const ListItem& it : items) {
      const RequestEntry& r = entry(s, it.handle);
      if (r.schedule != nullptr && !trivially_complete(r)) return MPI_SUCCESS;
    }
    // Every runtime request of the list's transfers, both halves of an MPI_Isendrecv's: all
    // complete at once, or none. receive[k]: the index in rs of item k's receive, or -1.
    std::vector<vmc::Request> rs;
    std::vector<std::size_t> sends;
    std::vector<int> receive(items.size(), -1);
    for (std::size_t k = 0; k < items.size(); ++k) {
      RequestEntry& r = entry(s, items[k].handle);
      if (trivially_complete(r)) continue;
      if (!r.send_half.null()) {
        sends.push_back(k);
        rs.push_back(r.send_half);
      }
      if (!r.proc_null) {
        receive[k] = static_cast<int>(rs.size());
        rs.push_back(r.request);
      }
    }
    std::vector<vmc::Status> got(rs.size());
    bool all = true;
    if (!rs.empty()) on_runtime(fn, nullptr, [&] { all = world_of(s).test_all(rs, got); });
    *flag = all ? 1 : 0;
    if (!all) return MPI_SUCCESS;
    for (std::size_t k : sends) entry(s, items[k].handle).send_half = vmc::Request();
    for (int i = 0; i < count && array_of_statuses != MPI_STATUSES_IGNORE; ++i) {
      if (array_of_requests[i] == MPI_REQUEST_NULL) set_empty(&array_of_statuses[i]);
    }
    for (std::size_t k = 0; k < items.size(); ++k) {
      const int i = items[k].index;
      MPI_Status* st = status_at(array_of_statuses, i);
      if (receive[k] >= 0) {
        finish_listed(s, &array_of_requests[i], st, got[static_cast<std::size_t>(receive[k])]);
      } else {
        complete(fn, s, &array_of_requests[i], st);
      }
    }
    return MPI_SUCCESS;
  });
}

// --- probes --------------------------------------------------------------------------------

static int probe_call(const char* fn, int source, int tag, MPI_Comm comm, int* flag,
                      MPI_Status* status) {
  return mpi_call(comm, [&] {
    Node& n = rank_in_session(fn);
    const CommEntry& e = comm_or_fail(fn, rank_state(n), comm);
    check_receive_tag(fn, tag);
    check_source(fn, source, e);
    if (flag != nullptr) *flag = 0;
    if (source == MPI_PROC_NULL) {
      if (flag != nullptr) *flag = 1;
      set_empty(status, MPI_PROC_NULL);
      return MPI_SUCCESS;
    }
    const int from = source == MPI_ANY_SOURCE ? kAnySource : to_peer(e, source);
    const Tag t = tag == MPI_ANY_TAG ? kAnyTag : tag;
    vmc::Status got;
    const Comm& c = peers_of(e);
    on_runtime(fn, nullptr, [&] {
      if (flag == nullptr) {
        CallContext context(call_text(fn, "source", source, tag, comm, e));
        got = c.probe(from, t);
      } else {
        const CallText text{fn, "source", source, tag, comm, &e};
        CallContext context(&CallText::describe, &text);
        *flag = c.iprobe(from, t, &got) ? 1 : 0;
      }
    });
    if (flag == nullptr || *flag != 0) set_from(status, got, offset_of(e));
    return MPI_SUCCESS;
  });
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return probe_call("MPI_Probe", source, tag, comm, nullptr, status);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  if (flag == nullptr) {
    return mpi_call(comm, [&]() -> int { fail("MPI_Iprobe", MPI_ERR_ARG, "null flag"); });
  }
  return probe_call("MPI_Iprobe", source, tag, comm, flag, status);
}

static int matched_probe_call(const char* fn, int source, int tag, MPI_Comm comm, int* flag,
                              MPI_Message* message, MPI_Status* status) {
  return mpi_call(comm, [&] {
    Node& n = rank_in_session(fn);
    RankState& s = rank_state(n);
    const CommEntry& e = comm_or_fail(fn, s, comm);
    check_receive_tag(fn, tag);
    check_source(fn, source, e);
    if (message == nullptr) fail(fn, MPI_ERR_ARG, "null message pointer");
    if (flag != nullptr) *flag = 0;
    *message = MPI_MESSAGE_NULL;
    if (source == MPI_PROC_NULL) {
      if (flag != nullptr) *flag = 1;
      *message = MPI_MESSAGE_NO_PROC;
      set_empty(status, MPI_PROC_NULL);
      return MPI_SUCCESS;
    }
    const int from = source == MPI_ANY_SOURCE ? kAnySource : to_peer(e, source);
    const Tag t = tag == MPI_ANY_TAG ? kAnyTag : tag;
    vmc::Status got;
    vmc::Request r;
    const Comm& c = peers_of(e);
    on_runtime(fn, nullptr, [&] {
      if (flag == nullptr) {
        CallContext context(call_text(fn, "source", source, tag, comm, e));
        r = c.mprobe(from, t, &got);
      } else {
        const CallText text{fn, "source", source, tag, comm, &e};
        CallContext context(&CallText::describe, &text);
        c.improbe(from, t, r, &got);
      }
    });
    if (r.null()) return MPI_SUCCESS;
    if (flag != nullptr) *flag = 1;
    *message = new_message(s, r, comm, c);
    s.p2p.messages[static_cast<std::size_t>(*message)].source_offset = offset_of(e);
    set_from(status, got, offset_of(e));
    return MPI_SUCCESS;
  });
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  return matched_probe_call("MPI_Mprobe", source, tag, comm, nullptr, message, status);
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                MPI_Status* status) {
  if (flag == nullptr) {
    return mpi_call(comm, [&]() -> int { fail("MPI_Improbe", MPI_ERR_ARG, "null flag"); });
  }
  return matched_probe_call("MPI_Improbe", source, tag, comm, flag, message, status);
}

// Mrecv and Imrecv: the message becomes a receive into buf (a request of the rank's table).
static int matched_receive(const char* fn, void* buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Message* message, MPI_Request* request, MPI_Status* status) {
  MPI_Comm comm = MPI_COMM_WORLD;
  return request_call(comm, [&] {
    RankState& s = session(fn);
    if (message == nullptr) fail(fn, MPI_ERR_ARG, "null message pointer");
    check_count(fn, count);
    const Typemap& t = moved_typemap(fn, s, datatype, count);
    check_buffer(fn, buf, count);
    if (*message == MPI_MESSAGE_NO_PROC) {
      *message = MPI_MESSAGE_NULL;
      if (request != nullptr) {
        return make_request(fn, false, buf, count, datatype, MPI_PROC_NULL, MPI_ANY_TAG,
                            MPI_COMM_SELF, SendMode::standard, false, request);
      }
      set_empty(status, MPI_PROC_NULL);
      return MPI_SUCCESS;
    }
    auto& ms = s.p2p.messages;
    if (*message < 2 || *message >= static_cast<MPI_Message>(ms.size()) ||
        !ms[static_cast<std::size_t>(*message)].in_use) {
      fail(fn, MPI_ERR_REQUEST, "invalid message " + std::to_string(*message) +
                                    " (not from MPI_Mprobe or MPI_Improbe, or received already)");
    }
    MessageEntry m = ms[static_cast<std::size_t>(*message)];
    ms[static_cast<std::size_t>(*message)] = MessageEntry{};
    *message = MPI_MESSAGE_NULL;
    comm = m.comm;
    std::vector<unsigned char> staging;
    void* in = receive_into(t, buf, count, staging);
    on_runtime(fn, nullptr, [&] { m.on.mrecv_into(m.request, in, bytes_of(count, t), 1); });
    const MPI_Request h = new_request(s);
    RequestEntry& r = entry(s, h);
    r.comm = m.comm;
    r.on = m.on;
    r.source_offset = m.source_offset;
    r.active = true;
    r.request = m.request;
    r.buffer = buf;
    r.count = count;
    r.datatype = datatype;
    keep_typemap(s, r, datatype, t);
    r.staging = std::move(staging);  // the receive's buffer moves with it
    if (request != nullptr) {
      *request = h;
      return MPI_SUCCESS;
    }
    MPI_Request local = h;
    return complete(fn, s, &local, status);
  });
}

int MPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
              MPI_Status* status) {
  return matched_receive("MPI_Mrecv", buf, count, datatype, message, nullptr, status);
}

int MPI_Mrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
                MPI_Status* status) {
  return matched_receive("MPI_Mrecv_c", buf, count, datatype, message, nullptr, status);
}

int MPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
               MPI_Request* request) {
  if (request == nullptr) {
    return mpi_call(MPI_COMM_WORLD,
                    [&]() -> int { fail("MPI_Imrecv", MPI_ERR_ARG, "null request pointer"); });
  }
  return matched_receive("MPI_Imrecv", buf, count, datatype, message, request,
                         MPI_STATUS_IGNORE);
}

int MPI_Imrecv_c(void* buf, MPI_Count count, MPI_Datatype datatype, MPI_Message* message,
                 MPI_Request* request) {
  if (request == nullptr) {
    return mpi_call(MPI_COMM_WORLD,
                    [&]() -> int { fail("MPI_Imrecv_c", MPI_ERR_ARG, "null request pointer"); });
  }
  return matched_receive("MPI_Imrecv_c", buf, count, datatype, message, request,
                         MPI_STATUS_IGNORE);
}

// --- statuses ------------------------------------------------------------------------------

// The typemap of a status query's datatype: a predefined one's needs no session, a derived
// one is the calling rank's; MPI_LB and MPI_UB hold no data.
static const Typemap& status_typemap(const char* fn, MPI_Datatype datatype) {
  if (datatype != MPI_DATATYPE_NULL && predefined_type(datatype) != nullptr) {
    return data_typemap(fn, datatype);
  }
  return any_typemap(fn, session(fn), datatype);
}

static int count_of(const char* fn, const MPI_Status* status, MPI_Datatype datatype,
                    bool elements, MPI_Count* out) {
  return mpi_call(MPI_COMM_SELF, [&] {
    const Typemap& t = status_typemap(fn, datatype);
    if (status == MPI_STATUS_IGNORE) fail(fn, MPI_ERR_ARG, "MPI_STATUS_IGNORE given");
    if (out == nullptr) fail(fn, MPI_ERR_ARG, "null count");
    const long long bytes = status->vmc_bytes;
    if (elements) {
      // A pair holds two basic elements; a message may end inside an item, not an element.
      const long long n = elements_in(t, static_cast<std::size_t>(bytes));
      *out = n < 0 ? MPI_UNDEFINED : n;
      return MPI_SUCCESS;
    }
    const auto packed = static_cast<long long>(t.packed);
    if (packed == 0) {
      *out = bytes == 0 && datatype >= VMC_MPI_FIRST_DERIVED_TYPE ? 0 : MPI_UNDEFINED;
    } else {
      *out = bytes % packed != 0 ? MPI_UNDEFINED : bytes / packed;
    }
    return MPI_SUCCESS;
  });
}

// An int form's count: MPI_UNDEFINED when it does not fit (MPI-4.1 section 3.2.5).
static int int_or_undefined(MPI_Count c) {
  return c > std::numeric_limits<int>::max() ? MPI_UNDEFINED : static_cast<int>(c);
}

int MPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  MPI_Count c = 0;
  const int err = count_of("MPI_Get_count", status, datatype, false, &c);
  if (err == MPI_SUCCESS && count != nullptr) *count = int_or_undefined(c);
  return err;
}

int MPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return count_of("MPI_Get_count_c", status, datatype, false, count);
}

int MPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  MPI_Count c = 0;
  const int err = count_of("MPI_Get_elements", status, datatype, true, &c);
  if (err == MPI_SUCCESS && count != nullptr) *count = int_or_undefined(c);
  return err;
}

int MPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return count_of("MPI_Get_elements_c", status, datatype, true, count);
}

int MPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  return count_of("MPI_Get_elements_x", status, datatype, true, count);
}

static int set_elements(const char* fn, MPI_Status* status, MPI_Datatype datatype,
                        MPI_Count count) {
  return mpi_call(MPI_COMM_SELF, [&] {
    const Typemap& t = status_typemap(fn, datatype);
    if (status == nullptr) fail(fn, MPI_ERR_ARG, "null status");
    if (count < 0) fail(fn, MPI_ERR_COUNT, "negative count " + std::to_string(count));
    // The bytes of `count` basic elements packed: whole items, then the elements of the last.
    long long per_item = 0;
    for (const Run& r : t.runs) {
      per_item += static_cast<long long>(r.count) *
                  (predefined_type(r.type)->kind == TypeKind::pair ? 2 : 1);
    }
    long long bytes = per_item == 0 ? 0 : count / per_item * static_cast<long long>(t.packed);
    long long left = per_item == 0 ? 0 : count % per_item;
    for (const Run& r : t.runs) {
      if (left <= 0) break;
      const PredefinedType& e = *predefined_type(r.type);
      const long long per = e.kind == TypeKind::pair ? 2 : 1;
      const long long take = std::min(left / per, static_cast<long long>(r.count));
      bytes += take * static_cast<long long>(e.extent);
      left -= take * per;
      if (take < static_cast<long long>(r.count)) break;
    }
    status->vmc_bytes = bytes;
    return MPI_SUCCESS;
  });
}

int MPI_Status_set_elements(MPI_Status* status, MPI_Datatype datatype, int count) {
  return set_elements("MPI_Status_set_elements", status, datatype, count);
}

int MPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  return set_elements("MPI_Status_set_elements_x", status, datatype, count);
}

int MPI_Status_set_elements_c(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  return set_elements("MPI_Status_set_elements_c", status, datatype, count);
}

// MPI-4.1's accessors of a status's public fields.
static int status_field(const char* fn, MPI_Status* status, int MPI_Status::*field, int* out,
                        const int* in) {
  return mpi_call(MPI_COMM_SELF, [&] {
    if (status == nullptr) fail(fn, MPI_ERR_ARG, "null status");
    if (in != nullptr) {
      status->*field = *in;
      return MPI_SUCCESS;
    }
    check_arg(fn, out, "the result");
    *out = status->*field;
    return MPI_SUCCESS;
  });
}

int MPI_Status_get_source(MPI_Status* status, int* source) {
  return status_field("MPI_Status_get_source", status, &MPI_Status::MPI_SOURCE, source, nullptr);
}

int MPI_Status_get_tag(MPI_Status* status, int* tag) {
  return status_field("MPI_Status_get_tag", status, &MPI_Status::MPI_TAG, tag, nullptr);
}

int MPI_Status_get_error(MPI_Status* status, int* error) {
  return status_field("MPI_Status_get_error", status, &MPI_Status::MPI_ERROR, error, nullptr);
}

int MPI_Status_set_source(MPI_Status* status, int source) {
  return status_field("MPI_Status_set_source", status, &MPI_Status::MPI_SOURCE, nullptr, &source);
}

int MPI_Status_set_tag(MPI_Status* status, int tag) {
  return status_field("MPI_Status_set_tag", status, &MPI_Status::MPI_TAG, nullptr, &tag);
}

int MPI_Status_set_error(MPI_Status* status, int error) {
  return status_field("MPI_Status_set_error", status, &MPI_Status::MPI_ERROR, nullptr, &error);
}

int MPI_Status_set_cancelled(MPI_Status* status, int flag) {
  return mpi_call(MPI_COMM_SELF, [&] {
    if (status == nullptr) fail("MPI_Status_set_cancelled", MPI_ERR_ARG, "null status");
    status->vmc_cancelled = flag != 0;
    return MPI_SUCCESS;
  });
}

}  // extern "C"
