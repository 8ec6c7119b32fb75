/* The large-count (_c) forms of MPI-4.1 (MPI_Count counts, MPI_Aint displacements) against
 * their int forms on the same data: every point-to-point _c call (the send modes, receives,
 * sendrecvs, nonblocking and persistent requests, matched receives, MPI_Get_count_c,
 * MPI_Get_elements_c, MPI_Buffer_attach_c and _detach_c) and every collective's blocking,
 * nonblocking and persistent _c form, each of whose results must equal its int form's and
 * the value the standard defines; MPI-4.1's MPI_Request_get_status_all, _any and _some
 * (requests left as they were); a count of 2^31 + 1 items of a zero-size datatype through
 * point to point and the collectives, and MPI_Get_count's MPI_UNDEFINED for a count no int
 * holds; a count whose bytes no MPI_Aint holds is MPI_ERR_COUNT.
 *
 *   large_count [int|c]
 *   large_count bytes int|c
 *
 * With an argument, only the int forms or only the _c forms run (the same calls in the same
 * order otherwise, and the checks of their values): the two runs must take the same virtual
 * time, messages and bytes, which tests/mpi_front/large_count_test.sh compares. `bytes`, for
 * a timing-only run at p = 2 (vmc mpirun --data none, which reads and writes no payload):
 * rank 0 sends rank 1 2^31 + 1 bytes from a buffer of one, as 2^31 + 1 MPI_BYTE (c) or as one
 * item of a contiguous type of 2^31 + 1 bytes (int). Needs an
 * MPI-4.1 library: under an older one (Open MPI 4.1) it says so and passes. */
#include "conformance.h"

#include <limits.h>

#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)

enum { N = 3, BLOCKING = 0, NONBLOCKING = 1, PERSISTENT = 2 };
static const char* const kind_names[] = {"blocking", "nonblocking", "persistent"};

static int rank, size, next, prev;
static MPI_Comm comm;

#define UNPAREN(...) __VA_ARGS__

/* Runs collective B (its nonblocking form I) in kind k, the int form with the arguments ia,
 * the _c form with ca when `wide`; a nonblocking or persistent one waited for at once. */
#define COLL(k, wide, B, I, ia, ca)                                                            \
  do {                                                                                         \
    MPI_Request req_ = MPI_REQUEST_NULL;                                                       \
    if ((k) == BLOCKING) {                                                                     \
      CHECK_MPI((wide) ? MPI_##B##_c(UNPAREN ca) : MPI_##B(UNPAREN ia));                       \
    } else {                                                                                   \
      if ((k) == NONBLOCKING) {                                                                \
        CHECK_MPI((wide) ? MPI_##I##_c(UNPAREN ca, &req_) : MPI_##I(UNPAREN ia, &req_));       \
      } else {                                                                                 \
        CHECK_MPI((wide) ? MPI_##B##_init_c(UNPAREN ca, MPI_INFO_NULL, &req_)                  \
                         : MPI_##B##_init(UNPAREN ia, MPI_INFO_NULL, &req_));                  \
        CHECK_MPI(MPI_Start(&req_));                                                           \
      }                                                                                        \
      CHECK_MPI(MPI_Wait(&req_, MPI_STATUS_IGNORE));                                           \
      if (req_ != MPI_REQUEST_NULL) CHECK_MPI(MPI_Request_free(&req_));                        \
    }                                                                                          \
  } while (0)

/* The value rank r puts at item i of block j. */
static int value(int r, int j, int i) { return 1000 * r + 10 * j + i + 1; }

/* Compares `got` with `want` (n ints), naming the call. */
static void expect(const int* got, const int* want, int n, const char* what, int wide, int k) {
  for (int i = 0; i < n; ++i) {
    if (got[i] != want[i]) {
      CHECK(got[i] == want[i], "%s%s (%s): item %d is %d, expected %d", what, wide ? "_c" : "",
            kind_names[k], i, got[i], want[i]);
      return;
    }
  }
}

/* --- point to point --------------------------------------------------------------------- */

static void p2p(int wide) {
  const int tag = 10 + wide;
  int out[N], in[N], want[N];
  for (int i = 0; i < N; ++i) {
    out[i] = value(rank, 0, i);
    want[i] = value(prev, 0, i);
  }
  MPI_Status st;
  /* Send and Recv; the counts of the status in both forms. */
  memset(in, 0, sizeof in);
  if (rank % 2 == 0) {
    CHECK_MPI(wide ? MPI_Send_c(out, N, MPI_INT, next, tag, comm)
                   : MPI_Send(out, N, MPI_INT, next, tag, comm));
    CHECK_MPI(wide ? MPI_Recv_c(in, N, MPI_INT, prev, tag, comm, &st)
                   : MPI_Recv(in, N, MPI_INT, prev, tag, comm, &st));
  } else {
    CHECK_MPI(wide ? MPI_Recv_c(in, N, MPI_INT, prev, tag, comm, &st)
                   : MPI_Recv(in, N, MPI_INT, prev, tag, comm, &st));
    CHECK_MPI(wide ? MPI_Send_c(out, N, MPI_INT, next, tag, comm)
                   : MPI_Send(out, N, MPI_INT, next, tag, comm));
  }
  expect(in, want, N, "MPI_Send/MPI_Recv", wide, BLOCKING);
  MPI_Count count = -1, elements = -1;
  int count_int = -1;
  CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &count));
  CHECK_MPI(MPI_Get_elements_c(&st, MPI_INT, &elements));
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count_int));
  CHECK(count == N && elements == N && count_int == N,
        "MPI_Get_count_c %lld, MPI_Get_elements_c %lld, MPI_Get_count %d; expected %d",
        (long long)count, (long long)elements, count_int, N);

  /* Ssend, Rsend (its receive posted first), Bsend from an attached buffer. */
  for (int mode = 0; mode < 3; ++mode) {
    MPI_Request r;
    memset(in, 0, sizeof in);
    CHECK_MPI(wide ? MPI_Irecv_c(in, N, MPI_INT, prev, tag + 10 * mode, comm, &r)
                   : MPI_Irecv(in, N, MPI_INT, prev, tag + 10 * mode, comm, &r));
    CHECK_MPI(MPI_Barrier(comm)); /* every receive posted before the ready send */
    char space[N * sizeof(int) + MPI_BSEND_OVERHEAD];
    if (mode == 2) {
      CHECK_MPI(wide ? MPI_Buffer_attach_c(space, (MPI_Count)sizeof space)
                     : MPI_Buffer_attach(space, (int)sizeof space));
    }
    const int t = tag + 10 * mode;
    if (mode == 0) {
      CHECK_MPI(wide ? MPI_Ssend_c(out, N, MPI_INT, next, t, comm)
                     : MPI_Ssend(out, N, MPI_INT, next, t, comm));
    } else if (mode == 1) {
      CHECK_MPI(wide ? MPI_Rsend_c(out, N, MPI_INT, next, t, comm)
                     : MPI_Rsend(out, N, MPI_INT, next, t, comm));
    } else {
      CHECK_MPI(wide ? MPI_Bsend_c(out, N, MPI_INT, next, t, comm)
                     : MPI_Bsend(out, N, MPI_INT, next, t, comm));
    }
    CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    if (mode == 2) {
      void* back = NULL;
      if (wide) {
        MPI_Count n = 0;
        CHECK_MPI(MPI_Buffer_detach_c(&back, &n));
        CHECK(n == (MPI_Count)sizeof space, "MPI_Buffer_detach_c gave %lld bytes", (long long)n);
      } else {
        int n = 0;
        CHECK_MPI(MPI_Buffer_detach(&back, &n));
        CHECK(n == (int)sizeof space, "MPI_Buffer_detach gave %d bytes", n);
      }
      CHECK(back == space, "the detached buffer is not the attached one");
    }
    expect(in, want, N, mode == 0 ? "MPI_Ssend" : mode == 1 ? "MPI_Rsend" : "MPI_Bsend", wide,
           BLOCKING);
  }

  /* The nonblocking sends, each to its own receive. */
  {
    int ins[4][N];
    MPI_Request rs[8];
    memset(ins, 0, sizeof ins);
    for (int j = 0; j < 4; ++j) {
      CHECK_MPI(wide ? MPI_Irecv_c(ins[j], N, MPI_INT, prev, 50 + j, comm, &rs[j])
                     : MPI_Irecv(ins[j], N, MPI_INT, prev, 50 + j, comm, &rs[j]));
    }
    CHECK_MPI(MPI_Barrier(comm));
    char space[N * sizeof(int) + MPI_BSEND_OVERHEAD];
    CHECK_MPI(MPI_Buffer_attach(space, (int)sizeof space));
    CHECK_MPI(wide ? MPI_Isend_c(out, N, MPI_INT, next, 50, comm, &rs[4])
                   : MPI_Isend(out, N, MPI_INT, next, 50, comm, &rs[4]));
    CHECK_MPI(wide ? MPI_Issend_c(out, N, MPI_INT, next, 51, comm, &rs[5])
                   : MPI_Issend(out, N, MPI_INT, next, 51, comm, &rs[5]));
    CHECK_MPI(wide ? MPI_Irsend_c(out, N, MPI_INT, next, 52, comm, &rs[6])
                   : MPI_Irsend(out, N, MPI_INT, next, 52, comm, &rs[6]));
    CHECK_MPI(wide ? MPI_Ibsend_c(out, N, MPI_INT, next, 53, comm, &rs[7])
                   : MPI_Ibsend(out, N, MPI_INT, next, 53, comm, &rs[7]));
    CHECK_MPI(MPI_Waitall(8, rs, MPI_STATUSES_IGNORE));
    void* back = NULL;
    int bytes = 0;
    CHECK_MPI(MPI_Buffer_detach(&back, &bytes));
    for (int j = 0; j < 4; ++j) expect(ins[j], want, N, "MPI_Isend and the others", wide, 1);
  }

  /* Sendrecv, Sendrecv_replace, Isendrecv, Isendrecv_replace. */
  for (int form = 0; form < 4; ++form) {
    int buf[N];
    memcpy(buf, out, sizeof buf);
    memset(in, 0, sizeof in);
    MPI_Request r = MPI_REQUEST_NULL;
    const int t = 70 + form;
    switch (form) {
      case 0:
        CHECK_MPI(wide ? MPI_Sendrecv_c(out, N, MPI_INT, next, t, in, N, MPI_INT, prev, t, comm,
                                        &st)
                       : MPI_Sendrecv(out, N, MPI_INT, next, t, in, N, MPI_INT, prev, t, comm,
                                      &st));
        break;
      case 1:
        CHECK_MPI(wide ? MPI_Sendrecv_replace_c(buf, N, MPI_INT, next, t, prev, t, comm, &st)
                       : MPI_Sendrecv_replace(buf, N, MPI_INT, next, t, prev, t, comm, &st));
        break;
      case 2:
        CHECK_MPI(wide ? MPI_Isendrecv_c(out, N, MPI_INT, next, t, in, N, MPI_INT, prev, t, comm,
                                         &r)
                       : MPI_Isendrecv(out, N, MPI_INT, next, t, in, N, MPI_INT, prev, t, comm,
                                       &r));
        break;
      default:
        CHECK_MPI(wide ? MPI_Isendrecv_replace_c(buf, N, MPI_INT, next, t, prev, t, comm, &r)
                       : MPI_Isendrecv_replace(buf, N, MPI_INT, next, t, prev, t, comm, &r));
        break;
    }
    if (r != MPI_REQUEST_NULL) CHECK_MPI(MPI_Wait(&r, &st));
    expect(form % 2 == 0 ? in : buf, want, N, "MPI_Sendrecv (and _replace, Isendrecv)", wide,
           form < 2 ? BLOCKING : NONBLOCKING);
    MPI_Count n = -1;
    CHECK_MPI(MPI_Get_count_c(&st, MPI_INT, &n));
    CHECK(n == N && st.MPI_SOURCE == prev, "sendrecv form %d: count %lld from %d", form,
          (long long)n, st.MPI_SOURCE);
  }

  /* Persistent requests, each started twice. */
  {
    int ins[5][N];
    MPI_Request rs[10];
    char space[2 * (N * sizeof(int) + MPI_BSEND_OVERHEAD)];
    CHECK_MPI(MPI_Buffer_attach(space, (int)sizeof space));
    for (int j = 0; j < 5; ++j) {
      CHECK_MPI(wide ? MPI_Recv_init_c(ins[j], N, MPI_INT, prev, 80 + j, comm, &rs[j])
                     : MPI_Recv_init(ins[j], N, MPI_INT, prev, 80 + j, comm, &rs[j]));
    }
    CHECK_MPI(wide ? MPI_Send_init_c(out, N, MPI_INT, next, 80, comm, &rs[5])
                   : MPI_Send_init(out, N, MPI_INT, next, 80, comm, &rs[5]));
    CHECK_MPI(wide ? MPI_Ssend_init_c(out, N, MPI_INT, next, 81, comm, &rs[6])
                   : MPI_Ssend_init(out, N, MPI_INT, next, 81, comm, &rs[6]));
    CHECK_MPI(wide ? MPI_Rsend_init_c(out, N, MPI_INT, next, 82, comm, &rs[7])
                   : MPI_Rsend_init(out, N, MPI_INT, next, 82, comm, &rs[7]));
    CHECK_MPI(wide ? MPI_Bsend_init_c(out, N, MPI_INT, next, 83, comm, &rs[8])
                   : MPI_Bsend_init(out, N, MPI_INT, next, 83, comm, &rs[8]));
    CHECK_MPI(wide ? MPI_Send_init_c(out, N, MPI_INT, next, 84, comm, &rs[9])
                   : MPI_Send_init(out, N, MPI_INT, next, 84, comm, &rs[9]));
    for (int round = 0; round < 2; ++round) {
      memset(ins, 0, sizeof ins);
      CHECK_MPI(MPI_Startall(5, rs));
      CHECK_MPI(MPI_Barrier(comm)); /* the receives posted before the ready send */
      CHECK_MPI(MPI_Startall(5, rs + 5));
      CHECK_MPI(MPI_Waitall(10, rs, MPI_STATUSES_IGNORE));
      for (int j = 0; j < 5; ++j) expect(ins[j], want, N, "MPI_Send_init and the others", wide, 2);
    }
    for (int j = 0; j < 10; ++j) CHECK_MPI(MPI_Request_free(&rs[j]));
    void* back = NULL;
    int bytes = 0;
    CHECK_MPI(MPI_Buffer_detach(&back, &bytes));
  }

  /* Matched probes: Mrecv and Imrecv. */
  for (int form = 0; form < 2; ++form) {
    MPI_Request s;
    CHECK_MPI(MPI_Isend(out, N, MPI_INT, next, 90 + form, comm, &s));
    MPI_Message m;
    CHECK_MPI(MPI_Mprobe(prev, 90 + form, comm, &m, &st));
    memset(in, 0, sizeof in);
    if (form == 0) {
      CHECK_MPI(wide ? MPI_Mrecv_c(in, N, MPI_INT, &m, &st) : MPI_Mrecv(in, N, MPI_INT, &m, &st));
    } else {
      MPI_Request r;
      CHECK_MPI(wide ? MPI_Imrecv_c(in, N, MPI_INT, &m, &r) : MPI_Imrecv(in, N, MPI_INT, &m, &r));
      CHECK_MPI(MPI_Wait(&r, &st));
    }
    CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
    expect(in, want, N, form == 0 ? "MPI_Mrecv" : "MPI_Imrecv", wide, form);
  }
}

/* MPI_Request_get_status_all, _any and _some: a receive polled until it has completed,
 * then still there for MPI_Wait; null requests among them. */
static void request_get_status(void) {
  int in = -1, out = rank;
  MPI_Request rs[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  CHECK_MPI(MPI_Irecv(&in, 1, MPI_INT, prev, 95, comm, &rs[1]));
  MPI_Request s;
  CHECK_MPI(MPI_Isend(&out, 1, MPI_INT, next, 95, comm, &s));
  int flag = 0, index = -1, polls = 0;
  MPI_Status st;
  while (!flag && polls < 1000000) {
    CHECK_MPI(MPI_Request_get_status_any(3, rs, &index, &flag, &st));
    ++polls;
  }
  CHECK(flag && index == 1 && st.MPI_SOURCE == prev,
        "MPI_Request_get_status_any: flag %d, index %d, source %d after %d polls", flag, index,
        st.MPI_SOURCE, polls);
  CHECK(rs[1] != MPI_REQUEST_NULL, "MPI_Request_get_status_any freed the request");
  MPI_Status sts[3];
  CHECK_MPI(MPI_Request_get_status_all(3, rs, &flag, sts));
  CHECK(flag && sts[1].MPI_SOURCE == prev && sts[0].MPI_SOURCE == MPI_ANY_SOURCE,
        "MPI_Request_get_status_all: flag %d, sources %d and %d", flag, sts[1].MPI_SOURCE,
        sts[0].MPI_SOURCE);
  int outcount = -1, indices[3] = {-1, -1, -1};
  CHECK_MPI(MPI_Request_get_status_some(3, rs, &outcount, indices, sts));
  CHECK(outcount == 1 && indices[0] == 1 && sts[0].MPI_SOURCE == prev,
        "MPI_Request_get_status_some: outcount %d, index %d", outcount, indices[0]);
  CHECK(rs[1] != MPI_REQUEST_NULL, "MPI_Request_get_status_some freed the request");
  CHECK_MPI(MPI_Wait(&rs[1], &st));
  CHECK(in == prev && st.MPI_SOURCE == prev, "the receive got %d from %d", in, st.MPI_SOURCE);
  CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
  /* No active request: _any gives MPI_UNDEFINED with flag true, _some MPI_UNDEFINED. */
  CHECK_MPI(MPI_Request_get_status_any(3, rs, &index, &flag, &st));
  CHECK(flag && index == MPI_UNDEFINED, "MPI_Request_get_status_any on none: %d %d", flag,
        index);
  CHECK_MPI(MPI_Request_get_status_some(3, rs, &outcount, indices, MPI_STATUSES_IGNORE));
  CHECK(outcount == MPI_UNDEFINED, "MPI_Request_get_status_some on none: %d", outcount);
}

/* --- collectives ------------------------------------------------------------------------ */

/* Counts and displacements of the v forms in both types: rank j's block holds 1 + j % 3 items,
 * blocks in rank order with a gap of one item after each. */
struct vlayout {
  int counts[64], displs[64];
  MPI_Count ccounts[64];
  MPI_Aint cdispls[64];
  int total; /* items the buffer spans */
};
static void make_vlayout(struct vlayout* l) {
  int at = 0;
  for (int j = 0; j < size; ++j) {
    l->counts[j] = 1 + j % 3;
    l->displs[j] = at;
    l->ccounts[j] = l->counts[j];
    l->cdispls[j] = at;
    at += l->counts[j] + 1;
  }
  l->total = at;
}

static void collectives(int wide, int k) {
  const int root = size - 1;
  int* send = conf_alloc(sizeof(int) * (size_t)(size * N + 1) * 4);
  int* recv = conf_alloc(sizeof(int) * (size_t)(size * N + 1) * 4);
  int* want = conf_alloc(sizeof(int) * (size_t)(size * N + 1) * 4);
  const int cap = (size * N + 1) * 4;
  struct vlayout v;
  make_vlayout(&v);

  /* Bcast */
  for (int i = 0; i < N; ++i) recv[i] = rank == root ? value(root, 0, i) : 0;
  for (int i = 0; i < N; ++i) want[i] = value(root, 0, i);
  COLL(k, wide, Bcast, Ibcast, (recv, N, MPI_INT, root, comm), (recv, N, MPI_INT, root, comm));
  expect(recv, want, N, "MPI_Bcast", wide, k);

  /* Reduce and Allreduce (MPI_SUM), Scan, Exscan */
  for (int i = 0; i < N; ++i) {
    send[i] = value(rank, 0, i);
    want[i] = 0;
    for (int r = 0; r < size; ++r) want[i] += value(r, 0, i);
  }
  memset(recv, 0, sizeof(int) * N);
  COLL(k, wide, Reduce, Ireduce, (send, recv, N, MPI_INT, MPI_SUM, root, comm),
       (send, recv, N, MPI_INT, MPI_SUM, root, comm));
  if (rank == root) expect(recv, want, N, "MPI_Reduce", wide, k);
  memset(recv, 0, sizeof(int) * N);
  COLL(k, wide, Allreduce, Iallreduce, (send, recv, N, MPI_INT, MPI_SUM, comm),
       (send, recv, N, MPI_INT, MPI_SUM, comm));
  expect(recv, want, N, "MPI_Allreduce", wide, k);
  for (int i = 0; i < N; ++i) {
    want[i] = 0;
    for (int r = 0; r <= rank; ++r) want[i] += value(r, 0, i);
  }
  memset(recv, 0, sizeof(int) * N);
  COLL(k, wide, Scan, Iscan, (send, recv, N, MPI_INT, MPI_SUM, comm),
       (send, recv, N, MPI_INT, MPI_SUM, comm));
  expect(recv, want, N, "MPI_Scan", wide, k);
  for (int i = 0; i < N; ++i) want[i] -= value(rank, 0, i);
  memset(recv, 0, sizeof(int) * N);
  COLL(k, wide, Exscan, Iexscan, (send, recv, N, MPI_INT, MPI_SUM, comm),
       (send, recv, N, MPI_INT, MPI_SUM, comm));
  if (rank > 0) expect(recv, want, N, "MPI_Exscan", wide, k);

  /* Reduce_scatter_block and Reduce_scatter: block j of every rank's vector summed at j. */
  for (int j = 0; j < size; ++j) {
    for (int i = 0; i < N; ++i) send[j * N + i] = value(rank, j, i);
  }
  for (int i = 0; i < N; ++i) {
    want[i] = 0;
    for (int r = 0; r < size; ++r) want[i] += value(r, rank, i);
  }
  memset(recv, 0, sizeof(int) * N);
  COLL(k, wide, Reduce_scatter_block, Ireduce_scatter_block,
       (send, recv, N, MPI_INT, MPI_SUM, comm), (send, recv, N, MPI_INT, MPI_SUM, comm));
  expect(recv, want, N, "MPI_Reduce_scatter_block", wide, k);
  {
    int counts[64];
    MPI_Count ccounts[64];
    for (int j = 0; j < size; ++j) counts[j] = N, ccounts[j] = N;
    memset(recv, 0, sizeof(int) * N);
    COLL(k, wide, Reduce_scatter, Ireduce_scatter, (send, recv, counts, MPI_INT, MPI_SUM, comm),
         (send, recv, ccounts, MPI_INT, MPI_SUM, comm));
    expect(recv, want, N, "MPI_Reduce_scatter", wide, k);
  }

  /* Gather and Allgather: rank r's N items at block r. */
  for (int i = 0; i < N; ++i) send[i] = value(rank, 0, i);
  for (int r = 0; r < size; ++r) {
    for (int i = 0; i < N; ++i) want[r * N + i] = value(r, 0, i);
  }
  memset(recv, 0, sizeof(int) * (size_t)cap);
  COLL(k, wide, Gather, Igather, (send, N, MPI_INT, recv, N, MPI_INT, root, comm),
       (send, N, MPI_INT, recv, N, MPI_INT, root, comm));
  if (rank == root) expect(recv, want, size * N, "MPI_Gather", wide, k);
  memset(recv, 0, sizeof(int) * (size_t)cap);
  COLL(k, wide, Allgather, Iallgather, (send, N, MPI_INT, recv, N, MPI_INT, comm),
       (send, N, MPI_INT, recv, N, MPI_INT, comm));
  expect(recv, want, size * N, "MPI_Allgather", wide, k);

  /* Scatter: block r of the root's buffer to rank r. */
  for (int r = 0; r < size; ++r) {
    for (int i = 0; i < N; ++i) send[r * N + i] = value(root, r, i);
  }
  for (int i = 0; i < N; ++i) want[i] = value(root, rank, i);
  memset(recv, 0, sizeof(int) * N);
  COLL(k, wide, Scatter, Iscatter, (send, N, MPI_INT, recv, N, MPI_INT, root, comm),
       (send, N, MPI_INT, recv, N, MPI_INT, root, comm));
  expect(recv, want, N, "MPI_Scatter", wide, k);

  /* Alltoall: block j of rank r's buffer to rank j. */
  for (int j = 0; j < size; ++j) {
    for (int i = 0; i < N; ++i) {
      send[j * N + i] = value(rank, j, i);
      want[j * N + i] = value(j, rank, i);
    }
  }
  memset(recv, 0, sizeof(int) * (size_t)cap);
  COLL(k, wide, Alltoall, Ialltoall, (send, N, MPI_INT, recv, N, MPI_INT, comm),
       (send, N, MPI_INT, recv, N, MPI_INT, comm));
  expect(recv, want, size * N, "MPI_Alltoall", wide, k);

  /* Gatherv and Allgatherv: rank r's counts[r] items at displs[r]; the gaps stay -1. */
  const int mine = v.counts[rank];
  for (int i = 0; i < mine; ++i) send[i] = value(rank, 1, i);
  for (int i = 0; i < v.total; ++i) want[i] = -1;
  for (int r = 0; r < size; ++r) {
    for (int i = 0; i < v.counts[r]; ++i) want[v.displs[r] + i] = value(r, 1, i);
  }
  for (int i = 0; i < v.total; ++i) recv[i] = -1;
  COLL(k, wide, Gatherv, Igatherv,
       (send, mine, MPI_INT, recv, v.counts, v.displs, MPI_INT, root, comm),
       (send, mine, MPI_INT, recv, v.ccounts, v.cdispls, MPI_INT, root, comm));
  if (rank == root) expect(recv, want, v.total, "MPI_Gatherv", wide, k);
  for (int i = 0; i < v.total; ++i) recv[i] = -1;
  COLL(k, wide, Allgatherv, Iallgatherv,
       (send, mine, MPI_INT, recv, v.counts, v.displs, MPI_INT, comm),
       (send, mine, MPI_INT, recv, v.ccounts, v.cdispls, MPI_INT, comm));
  expect(recv, want, v.total, "MPI_Allgatherv", wide, k);

  /* Scatterv: the root's block r (counts[r] at displs[r]) to rank r. */
  for (int i = 0; i < v.total; ++i) send[i] = -1;
  for (int r = 0; r < size; ++r) {
    for (int i = 0; i < v.counts[r]; ++i) send[v.displs[r] + i] = value(root, r, i);
  }
  for (int i = 0; i < mine; ++i) want[i] = value(root, rank, i);
  memset(recv, 0, sizeof(int) * N);
  COLL(k, wide, Scatterv, Iscatterv,
       (send, v.counts, v.displs, MPI_INT, recv, mine, MPI_INT, root, comm),
       (send, v.ccounts, v.cdispls, MPI_INT, recv, mine, MPI_INT, root, comm));
  expect(recv, want, mine, "MPI_Scatterv", wide, k);

  /* Alltoallv: to rank j, counts[j] items from displs[j]; from rank j into its block
   * displs[j] of the receive buffer, as many as j sends this rank (the same layout). Each
   * rank sends rank j the items value(rank, j, i). */
  for (int i = 0; i < v.total; ++i) send[i] = recv[i] = want[i] = -1;
  {
    /* To rank j this rank sends counts[rank] items: the counts of a pair agree. */
    int sc[64], sd[64], rc[64], rd[64];
    MPI_Count csc[64], crc[64];
    MPI_Aint csd[64], crd[64];
    for (int j = 0; j < size; ++j) {
      sc[j] = mine, sd[j] = j * (N + 1), rc[j] = v.counts[j], rd[j] = v.displs[j];
      csc[j] = sc[j], csd[j] = sd[j], crc[j] = rc[j], crd[j] = rd[j];
      for (int i = 0; i < mine; ++i) send[sd[j] + i] = value(rank, j, i);
      for (int i = 0; i < rc[j]; ++i) want[rd[j] + i] = value(j, rank, i);
    }
    COLL(k, wide, Alltoallv, Ialltoallv,
         (send, sc, sd, MPI_INT, recv, rc, rd, MPI_INT, comm),
         (send, csc, csd, MPI_INT, recv, crc, crd, MPI_INT, comm));
    expect(recv, want, v.total, "MPI_Alltoallv", wide, k);

    /* Alltoallw: the same blocks, displacements in bytes. */
    int bsd[64], brd[64];
    MPI_Aint cbsd[64], cbrd[64];
    MPI_Datatype types[64];
    for (int j = 0; j < size; ++j) {
      bsd[j] = sd[j] * (int)sizeof(int), brd[j] = rd[j] * (int)sizeof(int);
      cbsd[j] = bsd[j], cbrd[j] = brd[j];
      types[j] = MPI_INT;
    }
    for (int i = 0; i < v.total; ++i) recv[i] = -1;
    COLL(k, wide, Alltoallw, Ialltoallw,
         (send, sc, bsd, types, recv, rc, brd, types, comm),
         (send, csc, cbsd, types, recv, crc, cbrd, types, comm));
    expect(recv, want, v.total, "MPI_Alltoallw", wide, k);
  }

  /* Reduce_local */
  {
    int a[N], b[N];
    for (int i = 0; i < N; ++i) a[i] = i + 1, b[i] = 10 * i, want[i] = 11 * i + 1;
    CHECK_MPI(wide ? MPI_Reduce_local_c(a, b, N, MPI_INT, MPI_SUM)
                   : MPI_Reduce_local(a, b, N, MPI_INT, MPI_SUM));
    expect(b, want, N, "MPI_Reduce_local", wide, BLOCKING);
  }
  free(send);
  free(recv);
  free(want);
}

/* --- counts no int holds ------------------------------------------------------------------ */

static const MPI_Count big = (MPI_Count)INT_MAX + 2; /* 2^31 + 1 */

/* `rc` must be of class MPI_ERR_COUNT (`what`: the call). */
static void expect_err_count(int rc, const char* what) {
  int cls = -1;
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_COUNT, "%s: error class %d, not MPI_ERR_COUNT", what, cls);
}

/* Buffers no MPI_Aint spans, though each block's count alone would fit: every call checks the
 * whole buffer its counts and displacements lay out (blocks of every rank back to back, a v
 * form's farthest block, a reduce_scatter's send buffer), blocking, nonblocking and
 * persistent, and MPI_ERR_COUNT is what each returns on every rank (comm returns errors). */
#ifdef VMC_MPI_H
static void beyond_aint(int* token) {
  enum { MOST = 64 };
  const MPI_Count aint_ints = (MPI_Count)(((unsigned long long)-1 >> 1) / sizeof(int));
  /* `size` blocks of `block` MPI_INT span more than an MPI_Aint; one does not (p >= 2). */
  const MPI_Count block = aint_ints / size + 1;
  MPI_Request req = MPI_REQUEST_NULL;
  expect_err_count(MPI_Allgather_c(MPI_IN_PLACE, 0, MPI_INT, token, block, MPI_INT, comm),
                   "MPI_Allgather_c of p blocks past an MPI_Aint");
  expect_err_count(MPI_Iallgather_c(MPI_IN_PLACE, 0, MPI_INT, token, block, MPI_INT, comm, &req),
                   "MPI_Iallgather_c of p blocks past an MPI_Aint");
  expect_err_count(MPI_Alltoall_init_c(MPI_IN_PLACE, 0, MPI_INT, token, block, MPI_INT, comm,
                                       MPI_INFO_NULL, &req),
                   "MPI_Alltoall_init_c of p blocks past an MPI_Aint");
  expect_err_count(MPI_Reduce_scatter_block_c(MPI_IN_PLACE, token, block, MPI_INT, MPI_SUM, comm),
                   "MPI_Reduce_scatter_block_c of p blocks past an MPI_Aint");
  expect_err_count(MPI_Allreduce_c(MPI_IN_PLACE, token, (MPI_Count)1 << 62, MPI_INT, MPI_SUM, comm),
                   "MPI_Allreduce_c of 2^62 MPI_INT");
  /* One item at item 2^61 of MPI_INT: a v form's farthest block past an MPI_Aint. */
  MPI_Count counts[MOST], blocks[MOST];
  MPI_Aint displs[MOST];
  for (int i = 0; i < size; ++i) {
    counts[i] = 1;
    blocks[i] = block;
    displs[i] = i;
  }
  displs[size - 1] = (MPI_Aint)1 << 61;
  expect_err_count(MPI_Allgatherv_c(MPI_IN_PLACE, 0, MPI_INT, token, counts, displs, MPI_INT, comm),
                   "MPI_Allgatherv_c with a block at item 2^61");
  expect_err_count(MPI_Iallgatherv_c(MPI_IN_PLACE, 0, MPI_INT, token, counts, displs, MPI_INT,
                                     comm, &req),
                   "MPI_Iallgatherv_c with a block at item 2^61");
  expect_err_count(MPI_Alltoallv_c(MPI_IN_PLACE, NULL, NULL, MPI_INT, token, counts, displs,
                                   MPI_INT, comm),
                   "MPI_Alltoallv_c with a block at item 2^61");
  expect_err_count(MPI_Ialltoallv_c(MPI_IN_PLACE, NULL, NULL, MPI_INT, token, counts, displs,
                                    MPI_INT, comm, &req),
                   "MPI_Ialltoallv_c with a block at item 2^61");
  expect_err_count(MPI_Reduce_scatter_c(MPI_IN_PLACE, token, blocks, MPI_INT, MPI_SUM, comm),
                   "MPI_Reduce_scatter_c of p blocks past an MPI_Aint");
  /* The rooted forms at a root of its own (MPI_COMM_SELF: no other rank waits for it). */
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN));
  MPI_Aint far = (MPI_Aint)1 << 61;
  MPI_Count one = 1;
  expect_err_count(MPI_Gatherv_c(MPI_IN_PLACE, 0, MPI_INT, token, &one, &far, MPI_INT, 0,
                                 MPI_COMM_SELF),
                   "MPI_Gatherv_c with a block at item 2^61");
  expect_err_count(MPI_Igatherv_c(MPI_IN_PLACE, 0, MPI_INT, token, &one, &far, MPI_INT, 0,
                                  MPI_COMM_SELF, &req),
                   "MPI_Igatherv_c with a block at item 2^61");
  expect_err_count(MPI_Scatterv_init_c(token, &one, &far, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, 0,
                                       MPI_COMM_SELF, MPI_INFO_NULL, &req),
                   "MPI_Scatterv_init_c with a block at item 2^61");
  expect_err_count(MPI_Reduce_local_c(token, token, (MPI_Count)1 << 62, MPI_INT, MPI_SUM),
                   "MPI_Reduce_local_c of 2^62 MPI_INT");
  CHECK_MPI(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
  /* A neighbourhood's blocks (two neighbours on a periodic ring) past an MPI_Aint together. */
  MPI_Comm ring;
  int dims = size, periodic = 1;
  CHECK_MPI(MPI_Cart_create(comm, 1, &dims, &periodic, 0, &ring));
  CHECK_MPI(MPI_Comm_set_errhandler(ring, MPI_ERRORS_RETURN));
  const MPI_Count half = aint_ints / 2 + 1;
  expect_err_count(MPI_Neighbor_allgather_c(token, 0, MPI_INT, token, half, MPI_INT, ring),
                   "MPI_Neighbor_allgather_c of two blocks past an MPI_Aint");
  expect_err_count(MPI_Ineighbor_alltoall_c(token, 0, MPI_INT, token, half, MPI_INT, ring, &req),
                   "MPI_Ineighbor_alltoall_c of two blocks past an MPI_Aint");
  CHECK_MPI(MPI_Comm_free(&ring));
}
#endif

/* 2^31 + 1 items of a zero-size datatype through point to point and collectives: nothing
 * moves, the counts are carried. */
static void beyond_int(void) {
  MPI_Datatype empty;
  CHECK_MPI(MPI_Type_contiguous(0, MPI_INT, &empty));
  CHECK_MPI(MPI_Type_commit(&empty));
  int token = 0;
  MPI_Status st;
  MPI_Request r;
  CHECK_MPI(MPI_Irecv_c(&token, big, empty, prev, 99, comm, &r));
  CHECK_MPI(MPI_Send_c(&token, big, empty, next, 99, comm));
  CHECK_MPI(MPI_Wait(&r, &st));
  MPI_Count n = -1;
  CHECK_MPI(MPI_Get_count_c(&st, empty, &n));
  CHECK(n == 0, "MPI_Get_count_c of a zero-size datatype's message: %lld", (long long)n);
  CHECK_MPI(MPI_Bcast_c(&token, big, empty, 0, comm));
  CHECK_MPI(MPI_Allreduce_c(MPI_IN_PLACE, &token, 0, MPI_INT, MPI_SUM, comm));
  CHECK_MPI(MPI_Allgather_c(&token, big, empty, &token, big, empty, comm));
  CHECK_MPI(MPI_Alltoall_c(&token, big, empty, &token, big, empty, comm));
  MPI_Request coll = MPI_REQUEST_NULL;
  CHECK_MPI(MPI_Igather_c(&token, big, empty, &token, big, empty, 0, comm, &coll));
  CHECK_MPI(MPI_Wait(&coll, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Ialltoall_c(&token, big, empty, &token, big, empty, comm, &coll));
  CHECK_MPI(MPI_Wait(&coll, MPI_STATUS_IGNORE));
  CHECK_MPI(MPI_Type_free(&empty));

  /* A status of 2^31 + 1 bytes: MPI_Get_count gives MPI_UNDEFINED, MPI_Get_count_c the count. */
  MPI_Status made;
  CHECK_MPI(MPI_Status_set_elements_x(&made, MPI_BYTE, big));
  int narrow = 0;
  CHECK_MPI(MPI_Get_count(&made, MPI_BYTE, &narrow));
  CHECK_MPI(MPI_Get_count_c(&made, MPI_BYTE, &n));
  CHECK(narrow == MPI_UNDEFINED && n == big,
        "a status of 2^31 + 1 bytes: MPI_Get_count %d, MPI_Get_count_c %lld", narrow,
        (long long)n);

  /* Counts whose bytes no MPI_Aint holds: MPI_ERR_COUNT, through the handler. */
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  const MPI_Count huge = (MPI_Count)1 << 62; /* 2^64 bytes of MPI_INT */
  expect_err_count(MPI_Send_c(&token, huge, MPI_INT, next, 98, comm), "MPI_Send_c of 2^62 MPI_INT");
  expect_err_count(MPI_Bcast_c(&token, huge, MPI_INT, 0, comm), "MPI_Bcast_c of 2^62 MPI_INT");
  MPI_Request req = MPI_REQUEST_NULL;
  expect_err_count(MPI_Ibcast_c(&token, huge, MPI_INT, 0, comm, &req),
                   "MPI_Ibcast_c of 2^62 MPI_INT");
#ifdef VMC_MPI_H
  beyond_aint(&token); /* another library may take such calls as they come (and crash) */
#endif
  int rc = MPI_Bcast_c(&token, huge, MPI_INT, 0, comm);
#ifdef VMC_MPI_H
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  CHECK(strstr(text, "MPI_Bcast_c") != NULL && strstr(text, "4611686018427387904") != NULL,
        "the error's text names neither the call nor the count: %s", text);
#endif
  CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL));
}

/* 2^31 + 1 bytes from rank 0 to rank 1 (only a timing-only run may do this: the buffers are
 * one byte). */
static void bytes(int wide) {
  char one = 0;
  MPI_Datatype all = MPI_BYTE;
  MPI_Count items = big;
  if (!wide) {
    CHECK_MPI(MPI_Type_contiguous_c(big, MPI_BYTE, &all));
    CHECK_MPI(MPI_Type_commit(&all));
    items = 1;
  }
  if (rank == 0) {
    CHECK_MPI(wide ? MPI_Send_c(&one, items, all, 1, 97, comm)
                   : MPI_Send(&one, (int)items, all, 1, 97, comm));
  } else if (rank == 1) {
    MPI_Status st;
    CHECK_MPI(wide ? MPI_Recv_c(&one, items, all, 0, 97, comm, &st)
                   : MPI_Recv(&one, (int)items, all, 0, 97, comm, &st));
    MPI_Count n = -1;
    int narrow = 0;
    CHECK_MPI(MPI_Get_count_c(&st, MPI_BYTE, &n));
    CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &narrow));
    CHECK(n == big && narrow == MPI_UNDEFINED,
          "2^31 + 1 bytes received: MPI_Get_count_c %lld, MPI_Get_count %d", (long long)n, narrow);
  }
  if (!wide) CHECK_MPI(MPI_Type_free(&all));
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  next = (rank + 1) % size;
  prev = (rank + size - 1) % size;
  const int only_int = argc > 1 && strcmp(argv[1], "int") == 0;
  const int only_c = argc > 1 && strcmp(argv[1], "c") == 0;
  if (argc > 2 && strcmp(argv[1], "bytes") == 0) {
    bytes(strcmp(argv[2], "c") == 0);
  } else if (size > 64) {
    if (rank == 0) printf("large_count runs at p <= 64\n");
  } else {
    for (int wide = 0; wide < 2; ++wide) {
      if ((wide && only_int) || (!wide && only_c)) continue;
      p2p(wide);
      for (int k = BLOCKING; k <= PERSISTENT; ++k) collectives(wide, k);
    }
    if (!only_int && !only_c) {
      request_get_status();
      beyond_int();
    }
  }
  CHECK_MPI(MPI_Comm_free(&comm));
  return conf_finish();
}

#else

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("large_count needs MPI-4.1 (this library is MPI-%d.%d)\n", MPI_VERSION,
                        MPI_SUBVERSION);
  return conf_finish();
}

#endif
