/* A hand-written allreduce (sum of a vector of N longs) from point-to-point calls, with a
 * deliberate bug to find: it is right for some numbers of ranks and wrong for others.
 *
 * The algorithm, in three steps:
 *   1. pairs: the ranks pair up as (0, 1), (2, 3), ...; the odd rank of each pair sends its
 *      vector to the even one (the pair's leader), which adds it to its own;
 *   2. ring: the leaders pass the pair sums around a ring of leaders; after q - 1 steps
 *      (q leaders) each leader has added every other pair's sum;
 *   3. back: each leader sends the total to its partner.
 * Rank r contributes (r + 1) * (i + 1) at element i, so every rank must end with
 * P (P + 1) / 2 * (i + 1). Each rank checks its result; rank 0 says whether all were right;
 * the exit status is 1 on a wrong result. Only MPI_Send and MPI_Recv are used: in the ring,
 * leaders at even positions send first and those at odd positions receive first, so that no
 * send has to wait for a receive that waits for it.
 *
 *   vmcc my_allreduce.c -o my_allreduce && vmc mpirun -np 1:16 ./my_allreduce
 *
 * vmc mpirun runs it for every P from 1 to 16 and names the P where it fails. Which are
 * they, and why? (The answer is at the end of this file.) */
#include <mpi.h>
#include <stdio.h>

#define N 1000

static void add(long* into, const long* from) {
  for (int i = 0; i < N; ++i) into[i] += from[i];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  long mine[N], result[N], carry[N];
  for (int i = 0; i < N; ++i) {
    mine[i] = (long)(rank + 1) * (i + 1);
    result[i] = 0;
  }

  /* 1. Pairs: leader 2k, partner 2k + 1. */
  const int pairs = size / 2;
  const int leader = rank % 2 == 0 && rank < 2 * pairs;
  const int partner = rank % 2 == 0 ? rank + 1 : rank - 1;
  if (leader) {
    for (int i = 0; i < N; ++i) result[i] = mine[i];
    MPI_Recv(carry, N, MPI_LONG, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    add(result, carry);
  } else if (rank < 2 * pairs) {
    MPI_Send(mine, N, MPI_LONG, partner, 1, MPI_COMM_WORLD);
  }

  /* 2. Ring of the leaders: leader k is rank 2k; each step passes on what came in. */
  if (leader) {
    const int k = rank / 2, q = pairs;
    const int next = 2 * ((k + 1) % q), prev = 2 * ((k + q - 1) % q);
    long out[N];
    for (int i = 0; i < N; ++i) out[i] = result[i];
    for (int step = 1; step < q; ++step) {
      if (k % 2 == 0) {
        MPI_Send(out, N, MPI_LONG, next, 2, MPI_COMM_WORLD);
        MPI_Recv(carry, N, MPI_LONG, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(carry, N, MPI_LONG, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(out, N, MPI_LONG, next, 2, MPI_COMM_WORLD);
      }
      add(result, carry);
      for (int i = 0; i < N; ++i) out[i] = carry[i];
    }
  }

  /* 3. Back to the partners. */
  if (leader) {
    MPI_Send(result, N, MPI_LONG, partner, 3, MPI_COMM_WORLD);
  } else if (rank < 2 * pairs) {
    MPI_Recv(result, N, MPI_LONG, partner, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }

  /* Everyone checks; rank 0 collects the verdicts. */
  const long total = (long)size * (size + 1) / 2;
  int wrong = 0;
  for (int i = 0; i < N; ++i) wrong += result[i] != total * (i + 1);
  if (wrong) {
    printf("my_allreduce: rank %d of %d: element 0 is %ld, expected %ld\n", rank, size,
           result[0], total);
  }
  if (rank == 0) {
    int bad_ranks = wrong > 0;
    for (int r = 1; r < size; ++r) {
      int theirs = 0;
      MPI_Recv(&theirs, 1, MPI_INT, r, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      bad_ranks += theirs > 0;
    }
    if (bad_ranks) {
      printf("my_allreduce: %d ranks: WRONG on %d of them\n", size, bad_ranks);
    } else {
      printf("my_allreduce: %d ranks: every rank has the sum\n", size);
    }
  } else {
    MPI_Send(&wrong, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return wrong > 0;
}

/* The answer: it fails at every odd P (1, 3, 5, ..., 15). With an odd number of ranks the
 * last rank has no partner; `pairs = size / 2` rounds it away, so it is neither a leader
 * nor a partner: its vector never enters the sum and it never receives the result (its
 * result stays 0). A fix: make the last rank of an odd P a partner of rank 0 too (rank 0
 * receives two vectors in step 1 and sends the total to both in step 3). */
