// What a rank keeps of its point-to-point calls (mpi/pt2pt.cpp): its requests (MPI_Request
// handles), the messages matched probes took (MPI_Message handles) and the buffer attached for
// buffered sends. Part of RankState (mpi/state.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "mpi/include/mpi.h"
#include "mpi/nbc.hpp"
#include "mpi/typemap.hpp"
#include "runtime/comm.hpp"

namespace vmc::mpi {

struct RankState;

// An MPI_Request's object. A nonblocking call's request is active from its call until a wait or
// a test completes it, and is then freed (its handle set to MPI_REQUEST_NULL); a persistent
// one is made inactive by its completion and freed by MPI_Request_free. MPI_Isendrecv's (and
// _replace's) request is its receive (`request`, or none from MPI_PROC_NULL) and its send
// (`send_half`, while in flight): it completes when both have, with the receive's status.
struct RequestEntry {
  std::uint32_t generation = 0;  // of the slot: a handle names its slot and generation
  bool in_use = false;
  bool send = false;
  bool persistent = false;
  bool active = false;
  bool proc_null = false;  // to or from MPI_PROC_NULL: completes at once, moves nothing
  bool freed = false;      // MPI_Request_free while active: goes on, nobody completes it
  bool cancel = false;     // MPI_Cancel was called on it
  bool buffered = false;   // MPI_Bsend_init's: each start is a buffered send, complete at once
  vmc::Request request;    // the runtime's, while active
  vmc::Request send_half;  // MPI_Isendrecv's send, until it has completed
  std::vector<unsigned char> send_copy;  // what MPI_Isendrecv_replace's send sends
  MPI_Comm comm = MPI_COMM_NULL;
  Comm on;                 // its communicator's comm (kept: the handle may be freed first)
  // What the call was given (a persistent request starts it again from these).
  void* buffer = nullptr;
  MPI_Count count = 0;
  MPI_Datatype datatype = MPI_DATATYPE_NULL;
  // The datatype's typemap (its own copy, `kept`, for a derived one: the program may free
  // the handle while the request is in flight), and, for a type that does not lie in memory
  // as it packs, the packed bytes a send sent or a receive takes before they are unpacked.
  const Typemap* map = nullptr;
  std::shared_ptr<const Typemap> kept;
  std::vector<unsigned char> staging;
  int peer = 0;
  int tag = 0;
  SendMode mode = SendMode::standard;
  int source_offset = 0;   // an intercommunicator's: `on` ranks minus this are remote ranks
  // A nonblocking collective's (mpi/nbc.hpp): its schedule while active, and for a persistent
  // one what each MPI_Start starts.
  std::shared_ptr<Schedule> schedule;
  ScheduleStart start_schedule;
  Tag collective_tag = 0;  // a persistent collective's tag space, taken when it was made
};

// An MPI_Message's object: a message mprobe or improbe took, until mrecv or imrecv.
struct MessageEntry {
  bool in_use = false;
  vmc::Request request;
  MPI_Comm comm = MPI_COMM_NULL;
  Comm on;
  int source_offset = 0;   // as RequestEntry's
};

// The buffer MPI_Buffer_attach gave for buffered sends, and the sends in flight from it.
struct BsendState {
  void* buffer = nullptr;
  MPI_Count size = 0;
  struct InFlight {
    vmc::Request request;
    MPI_Count bytes = 0;  // of the buffer it holds, overhead included
    std::vector<unsigned char> copy;  // what it sends: the program may reuse its own buffer
  };
  std::vector<InFlight> in_flight;
};

struct PointToPointState {
  std::vector<RequestEntry> requests{1};  // by handle; 0 is MPI_REQUEST_NULL
  std::vector<MPI_Request> free_requests;
  std::vector<MessageEntry> messages{1};  // by handle; 0 is MPI_MESSAGE_NULL
  BsendState bsend;
  // The packed copies of requests freed in flight (MPI_Request_free): their transfers go on
  // and use them (a send's is checked when it completes, a receive lands in its copy), so
  // they live on to the rank's end. A receive freed so is never unpacked into its buffer.
  std::vector<std::vector<unsigned char>> orphaned_copies;
  // The nonblocking collectives outstanding on the rank, in start order.
  std::vector<std::shared_ptr<Schedule>> schedules;
};

// A request of a nonblocking collective (started now) or of a persistent one (inactive until
// MPI_Start); its handle.
MPI_Request add_collective_request(RankState& state, MPI_Comm comm, ScheduleStart start,
                                   bool persistent);

// Before MPI_Finalize returns: the buffered sends still in flight are completed (as
// MPI_Buffer_detach would), so that the rank leaves nothing behind.
void finish_point_to_point(RankState& state);

}  // namespace vmc::mpi
