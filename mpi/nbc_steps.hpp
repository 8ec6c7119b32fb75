// The parts of mpi/nbc.cpp's schedules that other schedules compose (mpi/nbc_inter.cpp: the
// nonblocking and persistent collectives on an intercommunicator run each group's part with
// these, among the group's ranks of the comm of both groups).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "mpi/nbc.hpp"
#include "mpi/typemap.hpp"

namespace vmc::mpi {

struct RankState;

// The ranks a part of a schedule runs among: ranks offset .. offset + size - 1 of the
// schedule's comm, as ranks 0 .. size - 1; `rank` the calling rank's among them.
struct Span {
  int offset = 0;
  int size = 0;
  int rank = 0;
  int peer(int r) const { return offset + r; }
};
// Every rank of the schedule's comm.
Span whole(const Schedule& x);

// --- buffers in packed form ----------------------------------------------------------------

// Blocks of a buffer argument: (first item, items), in items of its datatype.
using Blocks = std::vector<std::pair<std::size_t, std::size_t>>;
Blocks whole(std::size_t items);
Blocks blocks_of(const std::vector<std::size_t>& counts, const std::vector<std::size_t>& displs);
// The item past the farthest block (saturated at the largest size_t, for check_span).
std::size_t end_of(const Blocks& b);

// The packed form of a buffer argument: the program's memory when its type lies as it packs,
// else a copy the schedule owns; `read`: packed from the buffer now (charged delta per
// element), `written`: unpacked into it when the schedule ends (charged alike).
unsigned char* packed(Schedule& x, const Typemap& m, const void* buf, const Blocks& blocks,
                      bool read, bool written);
// A copy the schedule owns of `bytes` bytes from `from`.
unsigned char* copy_of(Schedule& x, const void* from, std::size_t bytes);
void copy_bytes(void* to, const void* from, std::size_t bytes);
// A derived type's typemap, kept alive by the schedule (the program may free the handle).
const Typemap* kept(Schedule& x, const RankState& s, MPI_Datatype t, const Typemap* map);

// --- steps among the ranks of a span ---------------------------------------------------------

// Dissemination barrier: ceil(lg p) steps of one message each way.
void barrier_steps(Schedule& x, Span g);
// Binomial broadcast of `bytes` at `buf` from `root` (a rank of the span).
void bcast_steps(Schedule& x, unsigned char* buf, std::size_t bytes, std::size_t unit, int root,
                 Span g);
// Binomial reduction of `units` items at `acc` to the span's rank 0, in rank order (the op:
// Schedule::set_op); `acc` becomes the result there.
void reduce_to_zero_steps(Schedule& x, unsigned char* acc, std::size_t units, std::size_t unit,
                          Span g);

}  // namespace vmc::mpi
