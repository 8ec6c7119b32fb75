/* Nonblocking point-to-point: MPI_Isend, MPI_Issend and MPI_Irecv completed by MPI_Wait,
 * MPI_Waitall, MPI_Waitany, MPI_Waitsome, MPI_Test, MPI_Testall, MPI_Testany and
 * MPI_Testsome, with MPI_REQUEST_NULL among the requests (empty statuses for them),
 * statuses arrays and MPI_STATUSES_IGNORE; MPI_Request_free on an active send; persistent
 * requests (MPI_Send_init, MPI_Recv_init, MPI_Start, MPI_Startall) restarted many times;
 * MPI_Cancel of a receive that never matches (MPI_Test_cancelled true) and of one already
 * matched (false); an MPI_Issend that must not complete before its receive is posted; a
 * hundred requests outstanding at once; MPI_PROC_NULL. */
#include "conformance.h"

static int rank, size, next, prev;

/* The empty status (MPI 4.1, 3.7.3): source MPI_ANY_SOURCE, tag MPI_ANY_TAG, count 0. */
static void check_empty(const MPI_Status* st, const char* what) {
  int n = -5;
  MPI_Get_count(st, MPI_INT, &n);
  CHECK(st->MPI_SOURCE == MPI_ANY_SOURCE && st->MPI_TAG == MPI_ANY_TAG && n == 0,
        "%s: not an empty status (source %d, tag %d, count %d)", what, st->MPI_SOURCE,
        st->MPI_TAG, n);
}

static void check_status(const MPI_Status* st, int source, int tag, int count, const char* what) {
  int n = -5;
  MPI_Get_count(st, MPI_INT, &n);
  CHECK(st->MPI_SOURCE == source && st->MPI_TAG == tag && n == count,
        "%s: status (source %d, tag %d, count %d), expected (%d, %d, %d)", what, st->MPI_SOURCE,
        st->MPI_TAG, n, source, tag, count);
}

static void wait_and_waitall(void) {
  int out[4] = {rank, rank + 1, rank + 2, rank + 3}, in[4] = {0};
  MPI_Request rr, sr;
  CHECK_MPI(MPI_Irecv(in, 4, MPI_INT, prev, 1, MPI_COMM_WORLD, &rr));
  CHECK_MPI(MPI_Isend(out, 4, MPI_INT, next, 1, MPI_COMM_WORLD, &sr));
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&rr, &st));
  CHECK(rr == MPI_REQUEST_NULL, "MPI_Wait did not set the request to MPI_REQUEST_NULL");
  check_status(&st, prev, 1, 4, "MPI_Wait on MPI_Irecv");
  CHECK(in[0] == prev && in[3] == prev + 3, "MPI_Irecv: got %d..%d", in[0], in[3]);
  CHECK_MPI(MPI_Wait(&sr, MPI_STATUS_IGNORE));
  CHECK(sr == MPI_REQUEST_NULL, "MPI_Wait on a send did not set MPI_REQUEST_NULL");
  /* MPI_Wait on MPI_REQUEST_NULL: at once, an empty status. */
  MPI_Request null = MPI_REQUEST_NULL;
  CHECK_MPI(MPI_Wait(&null, &st));
  check_empty(&st, "MPI_Wait on MPI_REQUEST_NULL");

  /* MPI_Waitall with MPI_REQUEST_NULL among the requests. */
  int in2[3] = {0}, out2[3] = {rank * 3, rank * 3 + 1, rank * 3 + 2};
  MPI_Request reqs[6] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL,
                         MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  CHECK_MPI(MPI_Irecv(in, 4, MPI_INT, prev, 2, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Irecv(in2, 3, MPI_INT, next, 3, MPI_COMM_WORLD, &reqs[4]));
  CHECK_MPI(MPI_Isend(out, 2, MPI_INT, next, 2, MPI_COMM_WORLD, &reqs[3]));
  CHECK_MPI(MPI_Isend(out2, 3, MPI_INT, prev, 3, MPI_COMM_WORLD, &reqs[5]));
  MPI_Status sts[6];
  CHECK_MPI(MPI_Waitall(6, reqs, sts));
  for (int i = 0; i < 6; ++i) CHECK(reqs[i] == MPI_REQUEST_NULL, "MPI_Waitall left request %d", i);
  check_empty(&sts[0], "MPI_Waitall, status of MPI_REQUEST_NULL");
  check_empty(&sts[2], "MPI_Waitall, status of MPI_REQUEST_NULL");
  check_status(&sts[1], prev, 2, 2, "MPI_Waitall, receive from the previous rank");
  check_status(&sts[4], next, 3, 3, "MPI_Waitall, receive from the next rank");
  CHECK(in2[0] == next * 3 && in2[2] == next * 3 + 2, "MPI_Waitall: got %d..%d", in2[0], in2[2]);

  /* MPI_STATUSES_IGNORE, and an array of nothing but MPI_REQUEST_NULL. */
  CHECK_MPI(MPI_Irecv(in, 1, MPI_INT, prev, 4, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Isend(out, 1, MPI_INT, next, 4, MPI_COMM_WORLD, &reqs[1]));
  CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  CHECK(in[0] == prev, "MPI_Waitall with MPI_STATUSES_IGNORE: got %d", in[0]);
  CHECK_MPI(MPI_Waitall(6, reqs, sts));
  CHECK_MPI(MPI_Waitall(0, reqs, sts));
}

/* Every rank sends one message to every rank (itself included); the receives, one per
 * source with MPI_REQUEST_NULL between them, are completed by `how`. */
enum how { BY_WAITANY, BY_WAITSOME, BY_TESTANY, BY_TESTSOME, BY_TESTALL, BY_TEST };
static const char* const how_names[] = {"MPI_Waitany", "MPI_Waitsome", "MPI_Testany",
                                        "MPI_Testsome", "MPI_Testall", "MPI_Test"};

static void all_to_all(enum how how, int ignore_statuses) {
  const int n = 2 * size; /* request 2j receives from rank j, 2j + 1 stays null */
  const int tag = 200 + (int)how;
  MPI_Request* reqs = conf_alloc(sizeof(MPI_Request) * (size_t)n);
  MPI_Request* sends = conf_alloc(sizeof(MPI_Request) * (size_t)size);
  MPI_Status* sts = conf_alloc(sizeof(MPI_Status) * (size_t)n);
  int* in = conf_alloc(sizeof(int) * (size_t)n);
  int* out = conf_alloc(sizeof(int) * (size_t)size);
  int* seen = calloc((size_t)n, sizeof(int));
  int* indices = conf_alloc(sizeof(int) * (size_t)n);
  for (int j = 0; j < size; ++j) {
    reqs[2 * j + 1] = MPI_REQUEST_NULL;
    in[2 * j] = -1;
    CHECK_MPI(MPI_Irecv(&in[2 * j], 1, MPI_INT, j, tag, MPI_COMM_WORLD, &reqs[2 * j]));
  }
  for (int j = 0; j < size; ++j) {
    out[j] = rank * 1000 + j;
    CHECK_MPI(MPI_Isend(&out[j], 1, MPI_INT, j, tag, MPI_COMM_WORLD, &sends[j]));
  }
  const char* what = how_names[how];
  int done = 0, rounds = 0;
  while (done < size) {
    int count = 0;
    if (how == BY_WAITANY || how == BY_TESTANY) {
      int index = -7, flag = 1;
      MPI_Status st;
      if (how == BY_WAITANY) {
        CHECK_MPI(MPI_Waitany(n, reqs, &index, ignore_statuses ? MPI_STATUS_IGNORE : &st));
      } else {
        CHECK_MPI(MPI_Testany(n, reqs, &index, &flag, ignore_statuses ? MPI_STATUS_IGNORE : &st));
      }
      if (flag) {
        CHECK(index != MPI_UNDEFINED, "%s returned MPI_UNDEFINED with %d receives active", what,
              size - done);
        if (index == MPI_UNDEFINED) break;
        indices[count++] = index;
        sts[index] = st;
      } else {
        CHECK(index == MPI_UNDEFINED, "%s: no completion, but index %d", what, index);
      }
    } else if (how == BY_WAITSOME || how == BY_TESTSOME) {
      int outcount = -7;
      if (how == BY_WAITSOME) {
        CHECK_MPI(MPI_Waitsome(n, reqs, &outcount, indices, ignore_statuses ? MPI_STATUSES_IGNORE : sts));
        CHECK(outcount >= 1, "%s returned %d with receives active", what, outcount);
      } else {
        CHECK_MPI(MPI_Testsome(n, reqs, &outcount, indices, ignore_statuses ? MPI_STATUSES_IGNORE : sts));
        CHECK(outcount >= 0, "%s returned %d with receives active", what, outcount);
      }
      if (outcount < 0) break;
      /* Statuses come in the order of the indices; keep them by request. */
      MPI_Status* by_index = conf_alloc(sizeof(MPI_Status) * (size_t)(outcount > 0 ? outcount : 1));
      if (!ignore_statuses) memcpy(by_index, sts, sizeof(MPI_Status) * (size_t)outcount);
      for (int k = 0; k < outcount; ++k) {
        CHECK(indices[k] >= 0 && indices[k] < n, "%s: index %d", what, indices[k]);
        if (!ignore_statuses && indices[k] >= 0 && indices[k] < n) sts[indices[k]] = by_index[k];
      }
      free(by_index);
      count = outcount;
    } else if (how == BY_TESTALL) {
      int flag = 0;
      CHECK_MPI(MPI_Testall(n, reqs, &flag, ignore_statuses ? MPI_STATUSES_IGNORE : sts));
      if (flag) {
        for (int j = 0; j < size; ++j) {
          indices[count++] = 2 * j;
          if (!ignore_statuses) check_empty(&sts[2 * j + 1], "MPI_Testall, status of MPI_REQUEST_NULL");
        }
      }
    } else {
      for (int i = 0; i < n; ++i) {
        int flag = 0;
        MPI_Status st;
        const int was_null = reqs[i] == MPI_REQUEST_NULL;
        if (was_null && seen[i] == 0 && i % 2 == 1) {
          CHECK_MPI(MPI_Test(&reqs[i], &flag, &st));
          CHECK(flag, "MPI_Test on MPI_REQUEST_NULL: flag false");
          check_empty(&st, "MPI_Test on MPI_REQUEST_NULL");
          seen[i] = -1;
          continue;
        }
        if (was_null) continue;
        CHECK_MPI(MPI_Test(&reqs[i], &flag, ignore_statuses ? MPI_STATUS_IGNORE : &st));
        if (flag) {
          indices[count++] = i;
          if (!ignore_statuses) sts[i] = st;
        }
      }
    }
    for (int k = 0; k < count; ++k) {
      const int i = indices[k];
      if (i < 0 || i >= n) continue;
      CHECK(i % 2 == 0, "%s completed request %d, which is MPI_REQUEST_NULL", what, i);
      CHECK(seen[i] <= 0, "%s completed request %d twice", what, i);
      seen[i] = 1;
      CHECK(reqs[i] == MPI_REQUEST_NULL, "%s left completed request %d active", what, i);
      const int j = i / 2;
      CHECK(in[i] == j * 1000 + rank, "%s: the message from rank %d holds %d", what, j, in[i]);
      if (!ignore_statuses) check_status(&sts[i], j, tag, 1, what);
      ++done;
    }
    if (++rounds > 100000000) {
      CHECK(0, "%s: still %d receives active after 10^8 rounds", what, size - done);
      break;
    }
  }
  /* Nothing active is left: the "nothing to do" answers. */
  int index = -7, flag = 0, outcount = -7;
  MPI_Status st;
  CHECK_MPI(MPI_Waitany(n, reqs, &index, &st));
  CHECK(index == MPI_UNDEFINED, "MPI_Waitany with no active request: index %d", index);
  check_empty(&st, "MPI_Waitany with no active request");
  CHECK_MPI(MPI_Testany(n, reqs, &index, &flag, &st));
  CHECK(flag && index == MPI_UNDEFINED, "MPI_Testany with no active request: flag %d, index %d",
        flag, index);
  check_empty(&st, "MPI_Testany with no active request");
  CHECK_MPI(MPI_Waitsome(n, reqs, &outcount, indices, sts));
  CHECK(outcount == MPI_UNDEFINED, "MPI_Waitsome with no active request: outcount %d", outcount);
  CHECK_MPI(MPI_Testsome(n, reqs, &outcount, indices, sts));
  CHECK(outcount == MPI_UNDEFINED, "MPI_Testsome with no active request: outcount %d", outcount);
  CHECK_MPI(MPI_Testall(n, reqs, &flag, sts));
  CHECK(flag, "MPI_Testall with no active request: flag false");
  CHECK_MPI(MPI_Waitall(size, sends, MPI_STATUSES_IGNORE));
  free(reqs);
  free(sends);
  free(sts);
  free(in);
  free(out);
  free(seen);
  free(indices);
}

/* MPI_Request_free on an active send: the message still goes; the receiver's reply says
 * when the buffer may be reused. */
static void request_free(void) {
  int* out = conf_alloc(sizeof(int) * 1000);
  int* in = conf_alloc(sizeof(int) * 1000);
  for (int i = 0; i < 1000; ++i) out[i] = rank + i;
  MPI_Request req;
  CHECK_MPI(MPI_Isend(out, 1000, MPI_INT, next, 300, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Request_free(&req));
  CHECK(req == MPI_REQUEST_NULL, "MPI_Request_free did not set MPI_REQUEST_NULL");
  CHECK_MPI(MPI_Recv(in, 1000, MPI_INT, prev, 300, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(in[0] == prev && in[999] == prev + 999, "a freed send's message: got %d..%d", in[0], in[999]);
  int ack = 1, got = 0;
  CHECK_MPI(MPI_Sendrecv(&ack, 1, MPI_INT, prev, 301, &got, 1, MPI_INT, next, 301, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE));
  free(out);
  free(in);
}

/* Persistent requests: one send and one receive, started 50 times (MPI_Startall and
 * MPI_Start in turn), the send buffer changed between starts. */
static void persistent(void) {
  enum { N = 100, TIMES = 50 };
  int out[N], in[N];
  MPI_Request reqs[2];
  CHECK_MPI(MPI_Recv_init(in, N, MPI_INT, prev, 400, MPI_COMM_WORLD, &reqs[0]));
  CHECK_MPI(MPI_Send_init(out, N, MPI_INT, next, 400, MPI_COMM_WORLD, &reqs[1]));
  for (int k = 0; k < TIMES; ++k) {
    for (int i = 0; i < N; ++i) out[i] = rank * 100000 + k * 100 + i;
    memset(in, 0, sizeof in);
    if (k % 2 == 0) {
      CHECK_MPI(MPI_Startall(2, reqs));
    } else {
      CHECK_MPI(MPI_Start(&reqs[0]));
      CHECK_MPI(MPI_Start(&reqs[1]));
    }
    MPI_Status sts[2];
    if (k % 3 == 0) {
      int flag = 0;
      while (!flag) CHECK_MPI(MPI_Testall(2, reqs, &flag, sts));
    } else {
      CHECK_MPI(MPI_Waitall(2, reqs, sts));
    }
    CHECK(reqs[0] != MPI_REQUEST_NULL && reqs[1] != MPI_REQUEST_NULL,
          "completing a persistent request freed it (start %d)", k);
    check_status(&sts[0], prev, 400, N, "a persistent receive");
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += in[i] != prev * 100000 + k * 100 + i;
    CHECK(bad == 0, "persistent requests, start %d: %d wrong elements", k, bad);
  }
  /* Waiting on an inactive persistent request: at once, an empty status. */
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&reqs[0], &st));
  check_empty(&st, "MPI_Wait on an inactive persistent request");
  CHECK(reqs[0] != MPI_REQUEST_NULL, "MPI_Wait on an inactive persistent request freed it");
  CHECK_MPI(MPI_Request_free(&reqs[0]));
  CHECK_MPI(MPI_Request_free(&reqs[1]));
  CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL,
        "MPI_Request_free on persistent requests did not set MPI_REQUEST_NULL");
}

/* MPI_Cancel: a receive nothing will match is cancelled; one already matched is not. */
static void cancel(void) {
  int x = -1;
  MPI_Request req;
  CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, next, 999, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Cancel(&req));
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK(req == MPI_REQUEST_NULL, "MPI_Wait on a cancelled receive left the request");
  int cancelled = 0;
  CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
  CHECK(cancelled, "MPI_Test_cancelled false for a receive nothing matched");
  CHECK(x == -1, "a cancelled receive wrote its buffer");

  /* Matched for sure: the sender's MPI_Issend has completed and a barrier followed. */
  int in = -1, out = rank;
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, prev, 998, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Request sreq;
  CHECK_MPI(MPI_Issend(&out, 1, MPI_INT, next, 998, MPI_COMM_WORLD, &sreq));
  CHECK_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Cancel(&req));
  CHECK_MPI(MPI_Wait(&req, &st));
  CHECK_MPI(MPI_Test_cancelled(&st, &cancelled));
  CHECK(!cancelled, "MPI_Test_cancelled true for a receive already matched");
  CHECK(in == prev, "a receive matched before MPI_Cancel: got %d", in);
  check_status(&st, prev, 998, 1, "a receive matched before MPI_Cancel");
}

/* MPI_Issend completes only once its receive is posted: rank 2k's synchronous send to rank
 * 2k + 1 must test incomplete until rank 2k + 1, told to go by another message, posts it. */
static void issend(void) {
  const int partner = rank % 2 == 0 ? rank + 1 : rank - 1;
  if (partner >= size) return;
  int v = rank, w = -1, go = 1;
  if (rank % 2 == 0) {
    MPI_Request req;
    CHECK_MPI(MPI_Issend(&v, 1, MPI_INT, partner, 500, MPI_COMM_WORLD, &req));
    int early = 0;
    for (int k = 0; k < 200; ++k) {
      int flag = 0;
      CHECK_MPI(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
      early += flag;
      if (flag) break;
    }
    CHECK(!early, "MPI_Issend to rank %d completed before its receive was posted", partner);
    CHECK_MPI(MPI_Send(&go, 1, MPI_INT, partner, 501, MPI_COMM_WORLD));
    if (!early) CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  } else {
    CHECK_MPI(MPI_Recv(&go, 1, MPI_INT, partner, 501, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, partner, 500, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(w == partner, "MPI_Issend's message: got %d", w);
  }
}

/* A hundred sends of different sizes outstanding at once, their receives posted in the
 * reverse order of tags; then MPI_PROC_NULL. */
static void many_outstanding(void) {
  enum { K = 100 };
  MPI_Request reqs[2 * K];
  int* out[K];
  int* in[K];
  for (int k = 0; k < K; ++k) {
    const int n = 1 + (k * 997) % 3000;
    out[k] = conf_alloc(sizeof(int) * (size_t)n);
    in[k] = conf_alloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; ++i) out[k][i] = rank * 7 + k * 3 + i;
  }
  for (int k = K - 1; k >= 0; --k) {
    const int n = 1 + (k * 997) % 3000;
    CHECK_MPI(MPI_Irecv(in[k], n, MPI_INT, prev, 600 + k, MPI_COMM_WORLD, &reqs[K + k]));
  }
  for (int k = 0; k < K; ++k) {
    const int n = 1 + (k * 997) % 3000;
    CHECK_MPI(MPI_Isend(out[k], n, MPI_INT, next, 600 + k, MPI_COMM_WORLD, &reqs[k]));
  }
  MPI_Status sts[2 * K];
  CHECK_MPI(MPI_Waitall(2 * K, reqs, sts));
  for (int k = 0; k < K; ++k) {
    const int n = 1 + (k * 997) % 3000;
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += in[k][i] != prev * 7 + k * 3 + i;
    CHECK(bad == 0, "outstanding message %d: %d wrong elements", k, bad);
    check_status(&sts[K + k], prev, 600 + k, n, "an outstanding receive");
    free(out[k]);
    free(in[k]);
  }

  int x = 5;
  MPI_Request pn[2];
  CHECK_MPI(MPI_Irecv(&x, 1, MPI_INT, MPI_PROC_NULL, 700, MPI_COMM_WORLD, &pn[0]));
  CHECK_MPI(MPI_Isend(&x, 1, MPI_INT, MPI_PROC_NULL, 700, MPI_COMM_WORLD, &pn[1]));
  CHECK_MPI(MPI_Waitall(2, pn, sts));
  check_status(&sts[0], MPI_PROC_NULL, MPI_ANY_TAG, 0, "MPI_Irecv from MPI_PROC_NULL");
  CHECK(x == 5, "MPI_Irecv from MPI_PROC_NULL wrote its buffer");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  next = (rank + 1) % size;
  prev = (rank + size - 1) % size;
  wait_and_waitall();
  for (int how = BY_WAITANY; how <= BY_TEST; ++how) {
    all_to_all((enum how)how, 0);
    all_to_all((enum how)how, 1);
  }
  request_free();
  persistent();
  cancel();
  issend();
  many_outstanding();
  return conf_finish();
}
