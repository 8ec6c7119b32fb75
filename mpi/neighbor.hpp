// A neighbourhood collective on one rank (MPI-4.1 8.6), as one round of nonblocking transfers:
// a receive from every source and a send to every destination of the communicator's topology
// (mpi/topology.hpp's Neighbourhood), each on its own tag of the call's tag space
// (Comm::begin_collective), so that no point-to-point message or other collective matches
// them. Made by plan (arguments checked, derived types packed), posted by start, finished by
// finish once the requests have completed (received blocks unpacked): the blocking calls of
// mpi/neighbor.cpp run the three at once; the nonblocking and persistent forms run them as a
// schedule of one step (mpi/nbc.hpp), finished when the schedule ends.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "mpi/topology.hpp"
#include "mpi/typemap.hpp"
#include "runtime/comm.hpp"

namespace vmc::mpi {

struct RankState;

// One block of a neighbourhood collective's buffer: `count` items of `type` at `at`.
struct NeighborBlock {
  const void* at = nullptr;
  std::size_t count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
};

class NeighborExchange {
 public:
  // One block per neighbour, in the neighbourhood's order (sends: destinations, receives:
  // sources); types checked (MPI_ERR_TYPE: not committed, freed, ...). A block to or from
  // MPI_PROC_NULL moves nothing. Packs the send blocks whose types do not lie in memory as
  // they pack (charged delta per element on `comm`'s node, as point to point).
  static NeighborExchange plan(const char* fn, const RankState& state, const Comm& comm,
                               const Neighbourhood& n, std::span<const NeighborBlock> sends,
                               std::span<const NeighborBlock> receives);
  // Posts every transfer on `comm` at tags base + the neighbour's tag (inside a
  // Comm::CollectiveScope); the requests, receives first.
  std::vector<Request> start(const Comm& comm, Tag base) const;
  // Once every request has completed (`received`: what wait_all returned, bytes for the
  // receives), unpacks the staged receive blocks (delta per element).
  void finish(const Comm& comm, std::span<const std::size_t> received);
  // What each receive may take, in the order of start's requests: finish's `received` when the
  // requests were completed without their statuses (a schedule's, mpi/nbc.hpp; the standard
  // makes a neighbour's message as long as its receive block).
  std::vector<std::size_t> capacities() const;

 private:
  struct Transfer {
    int peer = 0;
    int tag = 0;
    void* data = nullptr;       // the program's buffer, or staging
    std::size_t bytes = 0;      // what a send carries, what a receive may take
    std::size_t items = 0;      // what beta is charged for (sends)
    const Typemap* map = nullptr;
    void* unpack_to = nullptr;  // a staged receive's place in the program's buffer
  };
  std::vector<Transfer> sends_, receives_;
  std::vector<std::shared_ptr<const Typemap>> kept_;      // derived types' typemaps
  std::vector<std::unique_ptr<unsigned char[]>> copies_;  // packed sends, staged receives
};

}  // namespace vmc::mpi
