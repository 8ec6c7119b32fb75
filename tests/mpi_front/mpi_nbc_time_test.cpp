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
// takes MPI_Neighbor_alltoall's time. And a loop of MPI_Test completes MPI_Iallreduce at the
// virtual times MPI_Wait does, with the same results and statistics, on both engines, in a
// number of tests bounded by what happens in the machine meanwhile: also when the loop reads
// MPI_Wtime between its tests (a clock read is nothing in between: docs/model.md).
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

// How each call of run_loop completes its MPI_Iallreduce.
enum class Completion { wait, test_loop, test_loop_reading_clock };

struct LoopRun {
  std::vector<double> times;  // each rank's MPI_Wtime after its calls
  std::vector<float> sums;    // each rank's last result
  std::vector<long> most;     // the most tests one of its loops made
  Stats stats;
};

// `calls` calls of MPI_Iallreduce of one float on p ranks, each completed as `how` says,
// each rank charging some work of its own after each call (so the ranks start the next call
// at different times).
LoopRun run_loop(int p, Engine engine, Completion how, int calls) {
  MachineConfig c;
  c.topology = parse_topology("full:" + std::to_string(p));
  c.model.alpha = 10e-6;
  c.model.beta = 1e-9;
  c.engine = engine;
  c.trace = false;
  Machine m(c);
  mpi::begin_job(mpi::JobOptions{.ranks = p});
  LoopRun out;
  out.times.assign(static_cast<std::size_t>(p), -1);
  out.sums.assign(static_cast<std::size_t>(p), -1);
  out.most.assign(static_cast<std::size_t>(p), 0);
  const RunResult result = m.run([&](Node& node) {
    MPI_Init(nullptr, nullptr);
    const auto rank = static_cast<std::size_t>(node.rank());
    float in = static_cast<float>(node.rank() + 1), sum = 0;
    for (int k = 0; k < calls; ++k) {
      MPI_Request r = MPI_REQUEST_NULL;
      MPI_Iallreduce(&in, &sum, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &r);
      if (how == Completion::wait) {
        MPI_Wait(&r, MPI_STATUS_IGNORE);
      } else {
        int flag = 0;
        long tests = 0;
        // Bounded here, so that a loop that never ends fails the test instead of hanging it.
        while (!flag && tests < 100000) {
          MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
          ++tests;
          if (how == Completion::test_loop_reading_clock) (void)MPI_Wtime();
        }
        if (!flag) MPI_Wait(&r, MPI_STATUS_IGNORE);
        out.most[rank] = std::max(out.most[rank], tests);
      }
      node.charge_compute(1e-6 * static_cast<double>(node.rank() % 3));
    }
    out.times[rank] = MPI_Wtime();
    out.sums[rank] = sum;
    MPI_Finalize();
  });
  const mpi::JobOutcome outcome = mpi::end_job();
  EXPECT_TRUE(outcome.unfinalized.empty());
  out.stats = result.stats();
  return out;
}

TEST(MpiTestLoop, CompletesAtTheWaitsTimesInBoundedTestsOnBothEngines) {
  const int calls = 20;
  for (Engine engine : {Engine::fibers, Engine::threads}) {
    for (int p : {2, 5, 8}) {
      const LoopRun wait = run_loop(p, engine, Completion::wait, calls);
      for (Completion how : {Completion::test_loop, Completion::test_loop_reading_clock}) {
        SCOPED_TRACE(to_string(engine) + " p " + std::to_string(p) +
                     (how == Completion::test_loop ? " test loop" : " test loop with MPI_Wtime"));
        const LoopRun loop = run_loop(p, engine, how, calls);
        EXPECT_EQ(loop.times, wait.times);
        EXPECT_EQ(loop.sums, wait.sums);
        EXPECT_EQ(loop.sums[0], static_cast<float>(p * (p + 1) / 2));
        EXPECT_EQ(loop.stats.time, wait.stats.time);
        EXPECT_EQ(loop.stats.node_time, wait.stats.node_time);
        EXPECT_EQ(loop.stats.messages, wait.stats.messages);
        EXPECT_EQ(loop.stats.bytes, wait.stats.bytes);
        EXPECT_EQ(loop.stats.combined_items, wait.stats.combined_items);
        EXPECT_EQ(loop.stats.critical_startups, wait.stats.critical_startups);
        // A failed test moves its rank on to the next instant at which anything happens
        // (after the first, which stays): a loop makes at most two tests at the instant it
        // starts and one at each instant after, and each instant has a message end, a
        // combine's end or a rank's work's end of the call (2 (p - 1) messages, p - 1
        // combines, p charges).
        const long events = 2 * (p - 1) + (p - 1) + p;
        for (int r = 0; r < p; ++r) {
          EXPECT_GE(loop.most[static_cast<std::size_t>(r)], 1) << "rank " << r;
          EXPECT_LE(loop.most[static_cast<std::size_t>(r)], 2 + events) << "rank " << r;
        }
      }
    }
  }
}

}  // namespace
