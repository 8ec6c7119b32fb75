// Nonblocking and persistent collectives (mpi/nbc.cpp): a collective started by an I call
// (MPI_Ibcast, ...) or by MPI_Start of an _init call's request runs as a schedule, the way MPI
// libraries without a progress thread run them: steps in order, each posting nonblocking
// point-to-point transfers on the call's own tag space (Comm::begin_collective: no
// point-to-point message and no other collective call can match them) or doing local work
// (a copy, a combine with the op, unpacking into the program's buffer), a step run once every
// transfer the steps before it posted has completed. Nothing runs in the background: a
// schedule advances when its rank makes a call that progresses (every wait and test call,
// MPI_Request_get_status; docs/mpi.md lists them), so in virtual time its transfers overlap
// what the rank does meanwhile exactly as nonblocking point-to-point transfers do.
//
// pt2pt.cpp completes a schedule's request as it completes any other (RequestEntry::schedule),
// and every blocking wait of the rank waits for the transfers of every schedule outstanding
// on it as well, advancing them as they complete, so that a rank blocked in a wait still
// forwards what the other ranks' schedules need from it.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "collectives/op.hpp"
#include "mpi/counts.hpp"
#include "mpi/include/mpi.h"
#include "mpi/typemap.hpp"
#include "runtime/comm.hpp"

namespace vmc::mpi {

struct RankState;
struct TypeInfo;

// One collective call in flight on its rank.
class Schedule {
 public:
  using Step = std::function<void(Schedule&)>;

  // `what` names the call in a deadlock report: "MPI_Ibcast(root 0, 4 x MPI_INT, MPI_COMM_WORLD)".
  Schedule(Comm comm, Tag tag, std::string what) : comm_(std::move(comm)), tag_(tag),
                                                   what_(std::move(what)) {}

  const Comm& comm() const { return comm_; }
  int rank() const { return comm_.rank(); }
  int size() const { return comm_.size(); }
  const std::string& what() const { return what_; }

  // --- building: the steps in order, and what runs when the last has completed ---------------
  void then(Step step) { steps_.push_back(std::move(step)); }
  void at_end(std::function<void()> finish) { finishers_.push_back(std::move(finish)); }
  // A buffer the schedule owns (it lives as long as the schedule; its address never moves).
  unsigned char* scratch(std::size_t bytes);
  // The reduction op of a call that combines (its items are the op's items).
  // The reduction's op; `weight` > 1 for a user's op on a derived datatype: its sends and
  // combines are then charged per unit of the type (Comm::weighted), as the blocking call's.
  void set_op(Op op, std::size_t weight = 1) {
    op_.emplace(std::move(op));
    if (weight > 1) charged_.emplace(comm_.weighted(weight));
  }
  // Keeps what the schedule's pointers point into alive (a derived type's typemap).
  void keep(std::shared_ptr<const void> p) { kept_.push_back(std::move(p)); }

  // --- inside a step ---------------------------------------------------------------------
  // A transfer of `bytes` bytes to or from `peer`, items of `unit` bytes (what beta is
  // charged for), on the call's tag.
  void send(const void* data, std::size_t bytes, std::size_t unit, int peer);
  void recv(void* data, std::size_t bytes, std::size_t unit, int peer);
  // out = a op b over `units` of the op's items (a from the lower ranks), charged gamma each.
  void combine(const void* a, const void* b, void* out, std::size_t units) const;

  // --- the engine ----------------------------------------------------------------------------
  // Runs the steps whose turn has come without waiting: while nothing is pending, the next
  // step. Whether the schedule has completed.
  bool advance();
  bool done() const { return done_; }
  // The transfers posted and not yet completed (null once completed).
  std::vector<vmc::Request>& pending() { return pending_; }

 private:
  Comm comm_;
  Tag tag_;
  std::string what_;
  std::vector<Step> steps_;
  std::size_t next_ = 0;
  std::vector<std::function<void()>> finishers_;
  std::vector<vmc::Request> pending_;
  std::deque<std::vector<unsigned char>> buffers_;
  std::vector<std::shared_ptr<const void>> kept_;
  std::optional<Op> op_;
  std::optional<Comm> charged_;  // comm_ weighted for the op's datatype (set_op)
  const Comm& charged() const { return charged_ ? *charged_ : comm_; }
  bool done_ = false;
};

// A persistent collective's tag space: taken when the collective is made, not at each
// MPI_Start, since the ranks make their persistent collectives in one order but may start them
// in any (MPI-4.1 section 6.13). `reserve`: the call is only compared with the other members'
// and its tag space taken into `tag`, no schedule built; otherwise a start runs on `tag`.
struct PersistentTag {
  bool reserve = false;
  Tag tag = 0;
};

// What a collective's request starts: a fresh schedule; for a persistent one, called once to
// reserve its tag space and then at each MPI_Start with it (null: a nonblocking call's one
// start, on a tag space of its own).
using ScheduleStart = std::function<std::shared_ptr<Schedule>(PersistentTag*)>;

// --- the rank's schedules (called by pt2pt.cpp's wait and test calls) ----------------------

// Whether a schedule is outstanding on the rank.
bool schedules_outstanding(const RankState& s);
// A new schedule (started by its call) joins the rank's outstanding ones.
void add_schedule(RankState& s, std::shared_ptr<Schedule> schedule);
// Advances every outstanding schedule without blocking: one test of all their transfers (a
// test call's progress), then the steps whose turn came. Done schedules leave the list.
void progress_schedules(RankState& s);
// Blocks until one of `rs` completes (its index, `status` its status in world ranks) or
// `until()` holds (kNoRequest), completing meanwhile the transfers of every outstanding
// schedule and advancing them as they complete. `until` may be empty (rs alone).
std::size_t wait_progressing(RankState& s, std::span<vmc::Request> rs, vmc::Status* status,
                             const std::function<bool()>& until);
// Before MPI_Finalize returns: every schedule still outstanding (one whose request the program
// never completed, which is erroneous) runs to its end.
void finish_schedules(RankState& s);

// --- a new collective's schedule ---------------------------------------------------------

// Starts a collective call of this rank as a schedule: the members' signatures compared
// (Comm::begin_collective, which gives the call its tag space; a mismatch ends the run, as
// for a blocking call), then `build` adds the schedule's steps. `args` names the call's
// arguments in a deadlock report. The request: add_collective_request (mpi/pt2pt.hpp), given
// a ScheduleStart that calls this. A one-step schedule of given transfers (a neighbourhood
// collective's) is
//   start_schedule(fn, s, handle, comm, sig, args, [&](Schedule& x) {
//     x.then([=](Schedule& y) { /* y.recv(...) and y.send(...) for each neighbour */ });
//   });
// (a receive buffer that needs unpacking: x.at_end).
std::shared_ptr<Schedule> start_schedule(const char* fn, RankState& s, MPI_Comm handle,
                                         const Comm& comm, const CallSignature& sig,
                                         const std::string& args,
                                         const std::function<void(Schedule&)>& build,
                                         PersistentTag* persistent = nullptr);

// --- what the blocking collectives share with the nonblocking ones (mpi/collectives.cpp) ----

// A datatype as vmc's collectives move it: `per` units of `unit` to an item (a predefined
// type is its own unit; a derived one of one basic type moves as that type; one whose
// elements mix as bytes; a user op's datatype as whole packed items).
struct CollectiveType {
  const Typemap* map = nullptr;
  std::size_t unit_size = 0;
  const char* unit_name = "";
  std::size_t per = 1;
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  bool derived = false;
  std::size_t units(std::size_t items) const { return items * per; }
};
struct CollectiveReduction {
  CollectiveType type;
  Op op;
  const char* label;  // "MPI_SUM", "user operation 32"
  std::size_t weight = 1;  // a user's op on a derived type: its units to an item (set_op)
};
// A collective call on its rank: the session and the communicator checked (open_collective).
struct Collective {
  const char* fn;
  RankState& state;
  MPI_Comm handle;
  const Comm& comm;

  int rank() const { return comm.rank(); }
  std::size_t p() const { return static_cast<std::size_t>(comm.size()); }
};
Collective open_collective(const char* fn, MPI_Comm comm);
// The root is a rank of the call's communicator (MPI_ERR_ROOT).
void check_root(const Collective& c, int root);

// The checks of the blocking collectives, MPI errors on failure.
CollectiveType collective_type(const char* fn, MPI_Comm comm, MPI_Datatype datatype);
CollectiveReduction collective_reduction(const char* fn, MPI_Comm comm, MPI_Datatype datatype,
                                         MPI_Op op);
void check_collective_signature(const char* fn, MPI_Count sendcount, const CollectiveType& st,
                                MPI_Count recvcount, const CollectiveType& rt, const char* where);
// A buffer where MPI_IN_PLACE has no meaning (MPI_ERR_BUFFER).
void check_not_in_place(const char* fn, const void* buf, const char* what);
// A vector of p counts (`error_class` MPI_ERR_COUNT when one is negative) or displacements
// (MPI_ERR_ARG).
std::vector<std::size_t> counts_of(const char* fn, CountArray v, std::size_t p, const char* what,
                                   int error_class);

}  // namespace vmc::mpi
