// Nonblocking collectives in virtual time. Work a rank does between MPI_Ibcast (or
// MPI_Iallreduce) and MPI_Wait overlaps the collective, as work overlaps a nonblocking
// point-to-point transfer: every rank starts the collective, computes (charged work,
// Node::charge_compute: what a program's own computation would cost were it modelled) and
// waits; each rank must finish no later than when it waits at once and computes after, and
// the root (whose sends are all posted by the start) strictly earlier. And a nonblocking
// broadcast waited for at once takes the time of the blocking call running the same
// algorithm (`binomial`, named as `vmc mpirun --coll broadcast=binomial` names it), to the
// picosecond, at every root. The same two for MPI_Ineighbor_alltoall on a periodic Cartesian
// grid, where every rank posts all of its transfers when it starts the call: each rank's
// work overlaps its exchange (strictly earlier than work after it), and waited at once it
// takes MPI_Neighbor_alltoall's time.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "mpi/include/mpi.h"
#include "mpi/job.hpp"
#include "runtime/machine.hpp"
#include "topology/topology.hpp"

namespace {

using namespace vmc;

enum class Call { bcast, allreduce };
// The blocking call then the work; the nonblocking one waited at once then the work; the
// nonblocking one with the work between its start and its wait.
enum class Form { blocking, waited_at_once, overlapped };

// Each rank's virtual time at the end of the collective of `n` ints (root `root`) and
// `work` seconds of computation, as `form` orders them.
std::vector<double> run(const std::string& topology, Call call, Form form, int n, double work,
                        int root = 0, const std::string& bcast_algorithm = "auto") {
  MachineConfig c;
  c.topology = parse_topology(topology);
  c.model.alpha = 525e-6;
  c.model.beta = 2e-6;
  c.model.gamma = 0.35e-6;
  c.trace = false;
  Machine m(c);
  const int p = m.size();
  mpi::JobOptions job{.ranks = p};
  if (bcast_algorithm != "auto") job.algorithms["broadcast"] = bcast_algorithm;
  mpi::begin_job(job);
  std::vector<double> times(static_cast<std::size_t>(p), -1);
  m.run([&](Node& node) {
    MPI_Init(nullptr, nullptr);
    std::vector<int> in(static_cast<std::size_t>(n), node.rank() + 1), out(in.size(), 0);
    MPI_Request r = MPI_REQUEST_NULL;
    if (form == Form::blocking && call == Call::bcast) {
      MPI_Bcast(in.data(), n, MPI_INT, root, MPI_COMM_WORLD);
    } else if (form == Form::blocking) {
      MPI_Allreduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    } else if (call == Call::bcast) {
      MPI_Ibcast(in.data(), n, MPI_INT, root, MPI_COMM_WORLD, &r);
    } else {
      MPI_Iallreduce(in.data(), out.data(), n, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
    }
    if (form == Form::waited_at_once) MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (work > 0) node.charge_compute(work);
    if (form == Form::overlapped) MPI_Wait(&r, MPI_STATUS_IGNORE);
    times[static_cast<std::size_t>(node.rank())] = MPI_Wtime();
    if (call == Call::bcast) {
      EXPECT_EQ(in[0], root + 1) << "rank " << node.rank();
    } else {
      EXPECT_EQ(out[0], p * (p + 1) / 2) << "rank " << node.rank();
    }
    MPI_Finalize();
  });
  const mpi::JobOutcome outcome = mpi::end_job();
  EXPECT_TRUE(outcome.unfinalized.empty());
  return times;
}

TEST(MpiLayerNonblockingTime, WorkBetweenStartAndWaitOverlapsTheCollective) {
  for (const std::string topology : {"full:8", "ring:7", "hypercube:16", "mesh:3x4"}) {
    for (Call call : {Call::bcast, Call::allreduce}) {
      SCOPED_TRACE(topology + (call == Call::bcast ? " bcast" : " allreduce"));
      const int n = 20000;
      // The work: as long as the collective alone takes its last rank.
      const std::vector<double> alone = run(topology, call, Form::waited_at_once, n, 0);
      const double work = *std::max_element(alone.begin(), alone.end());
      ASSERT_GT(work, 0);
      const std::vector<double> after = run(topology, call, Form::waited_at_once, n, work);
      const std::vector<double> overlapped = run(topology, call, Form::overlapped, n, work);
      for (std::size_t r = 0; r < after.size(); ++r) {
        EXPECT_LE(overlapped[r], after[r]) << "rank " << r;
        EXPECT_GE(overlapped[r], work) << "rank " << r;  // the work is done in full
      }
      EXPECT_LT(overlapped[0], after[0]) << "the root's sends overlap its work";
    }
  }
}

TEST(MpiLayerNonblockingTime, WaitedAtOnceItTakesTheBlockingCallsTime) {
  for (const std::string topology : {"full:8", "hypercube:16", "ring:7"}) {
    for (int root : {0, 3}) {
      SCOPED_TRACE(topology + " root " + std::to_string(root));
      const std::vector<double> blocking =
          run(topology, Call::bcast, Form::blocking, 1000, 0, root, "binomial");
      const std::vector<double> nonblocking =
          run(topology, Call::bcast, Form::waited_at_once, 1000, 0, root);
      EXPECT_EQ(nonblocking, blocking);
    }
  }
}

// Each rank's virtual time after MPI_Neighbor_alltoall (blocking) or MPI_Ineighbor_alltoall
// of `n` ints a neighbour on a periodic 2-D grid of the machine's ranks, and `work` seconds
// of computation as `form` orders them.
std::vector<double> run_neighbor(const std::string& topology, Form form, int n, double work) {
  MachineConfig c;
  c.topology = parse_topology(topology);
  c.model.alpha = 525e-6;
  c.model.beta = 2e-6;
  c.trace = false;
  Machine m(c);
  const int p = m.size();
  mpi::begin_job(mpi::JobOptions{.ranks = p});
  std::vector<double> times(static_cast<std::size_t>(p), -1);
  m.run([&](Node& node) {
    MPI_Init(nullptr, nullptr);
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    MPI_Dims_create(p, 2, dims);
    MPI_Comm grid = MPI_COMM_NULL;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    std::vector<int> in(static_cast<std::size_t>(4 * n), node.rank()), out(in.size(), -1);
    MPI_Request r = MPI_REQUEST_NULL;
    const double start = MPI_Wtime();
    if (form == Form::blocking) {
      MPI_Neighbor_alltoall(in.data(), n, MPI_INT, out.data(), n, MPI_INT, grid);
    } else {
      MPI_Ineighbor_alltoall(in.data(), n, MPI_INT, out.data(), n, MPI_INT, grid, &r);
    }
    if (form == Form::waited_at_once) MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (work > 0) node.charge_compute(work);
    if (form == Form::overlapped) MPI_Wait(&r, MPI_STATUS_IGNORE);
    times[static_cast<std::size_t>(node.rank())] = MPI_Wtime() - start;
    int left = -1, right = -1;
    MPI_Cart_shift(grid, 0, 1, &left, &right);
    EXPECT_EQ(out[0], left) << "rank " << node.rank() << ": the block from the left neighbour";
    MPI_Comm_free(&grid);
    MPI_Finalize();
  });
  const mpi::JobOutcome outcome = mpi::end_job();
  EXPECT_TRUE(outcome.unfinalized.empty());
  return times;
}

TEST(MpiLayerNonblockingTime, NeighbourhoodAlltoallOverlapsWorkAndWaitedAtOnceIsBlocking) {
  for (const std::string topology : {"full:6", "torus:3x4", "hypercube:8"}) {
    SCOPED_TRACE(topology);
    const int n = 5000;
    const std::vector<double> blocking = run_neighbor(topology, Form::blocking, n, 0);
    const std::vector<double> alone = run_neighbor(topology, Form::waited_at_once, n, 0);
    EXPECT_EQ(alone, blocking);
    const double work = *std::max_element(alone.begin(), alone.end());
    ASSERT_GT(work, 0);
    const std::vector<double> after = run_neighbor(topology, Form::waited_at_once, n, work);
    const std::vector<double> overlapped = run_neighbor(topology, Form::overlapped, n, work);
    for (std::size_t r = 0; r < after.size(); ++r) {
      EXPECT_LT(overlapped[r], after[r]) << "rank " << r;
      EXPECT_GE(overlapped[r], work) << "rank " << r;  // the work is done in full
    }
  }
}

}  // namespace
