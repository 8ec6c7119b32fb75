/* Wildcards and probes: MPI_ANY_SOURCE and MPI_ANY_TAG in MPI_Recv, MPI_Irecv and
 * MPI_Sendrecv (rank 0 gets one message from every other rank, each exactly once, with the
 * right status); messages of one source keep their order under wildcards; selection by tag
 * among any sources; receives posted earlier match first; MPI_Probe and MPI_Iprobe then a
 * receive of the probed message sized by its count; MPI_Iprobe of nothing; MPI_Mprobe,
 * MPI_Improbe and MPI_Mrecv (a matched message is no longer receivable by other receives;
 * MPI_MESSAGE_NO_PROC); MPI_Waitany over receives from every source. */
#include "conformance.h"

static int rank, size;

/* Rank 0's bookkeeping of which sources it heard from. */
static void expect_each_once(int* seen, int source, const char* what) {
  CHECK(source > 0 && source < size, "%s: source %d", what, source);
  if (source <= 0 || source >= size) return;
  CHECK(seen[source] == 0, "%s: a second message from rank %d", what, source);
  seen[source] = 1;
}

static void check_all_seen(const int* seen, const char* what) {
  for (int r = 1; r < size; ++r) CHECK(seen[r] == 1, "%s: nothing from rank %d", what, r);
}

static int* fresh_seen(void) { return calloc((size_t)size, sizeof(int)); }

/* MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG) p - 1 times at rank 0. */
static void recv_any(void) {
  if (rank == 0) {
    int* seen = fresh_seen();
    for (int k = 1; k < size; ++k) {
      int v = -1;
      MPI_Status st;
      CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      expect_each_once(seen, st.MPI_SOURCE, "MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG)");
      CHECK(v == st.MPI_SOURCE && st.MPI_TAG == st.MPI_SOURCE % 5 + 1,
            "MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG): value %d, source %d, tag %d", v,
            st.MPI_SOURCE, st.MPI_TAG);
      int n = -1;
      MPI_Get_count(&st, MPI_INT, &n);
      CHECK(n == 1, "MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG): count %d", n);
    }
    check_all_seen(seen, "MPI_Recv(MPI_ANY_SOURCE, MPI_ANY_TAG)");
    free(seen);
  } else {
    CHECK_MPI(MPI_Send(&rank, 1, MPI_INT, 0, rank % 5 + 1, MPI_COMM_WORLD));
  }
}

/* p - 1 MPI_Irecv(MPI_ANY_SOURCE) at rank 0, completed together. */
static void irecv_any(void) {
  if (rank == 0) {
    const int n = size - 1;
    MPI_Request* reqs = conf_alloc(sizeof(MPI_Request) * (size_t)(n + 1));
    MPI_Status* sts = conf_alloc(sizeof(MPI_Status) * (size_t)(n + 1));
    int* v = conf_alloc(sizeof(int) * (size_t)(n + 1));
    for (int k = 0; k < n; ++k) {
      v[k] = -1;
      CHECK_MPI(MPI_Irecv(&v[k], 1, MPI_INT, MPI_ANY_SOURCE, 10, MPI_COMM_WORLD, &reqs[k]));
    }
    CHECK_MPI(MPI_Waitall(n, reqs, sts));
    int* seen = fresh_seen();
    for (int k = 0; k < n; ++k) {
      expect_each_once(seen, sts[k].MPI_SOURCE, "MPI_Irecv(MPI_ANY_SOURCE)");
      CHECK(v[k] == sts[k].MPI_SOURCE * 3 && sts[k].MPI_TAG == 10,
            "MPI_Irecv(MPI_ANY_SOURCE): value %d from %d, tag %d", v[k], sts[k].MPI_SOURCE,
            sts[k].MPI_TAG);
    }
    check_all_seen(seen, "MPI_Irecv(MPI_ANY_SOURCE)");
    free(seen);
    free(reqs);
    free(sts);
    free(v);
  } else {
    const int v = rank * 3;
    CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 10, MPI_COMM_WORLD));
  }
}

/* MPI_ANY_TAG from one source: the tags come in the order sent. */
static void any_tag_order(void) {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  const int tags[3] = {5, 3, 9};
  int out[3] = {rank, rank + 1, rank + 2};
  MPI_Request reqs[3];
  for (int k = 0; k < 3; ++k) {
    CHECK_MPI(MPI_Isend(&out[k], 1, MPI_INT, next, tags[k], MPI_COMM_WORLD, &reqs[k]));
  }
  for (int k = 0; k < 3; ++k) {
    int v = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, prev, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    CHECK(st.MPI_TAG == tags[k] && v == prev + k && st.MPI_SOURCE == prev,
          "MPI_Recv(source %d, MPI_ANY_TAG) number %d: tag %d, value %d (expected tag %d)", prev,
          k, st.MPI_TAG, v, tags[k]);
  }
  CHECK_MPI(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
  /* MPI_Sendrecv receiving from MPI_ANY_SOURCE with MPI_ANY_TAG. */
  int v = -1;
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(&rank, 1, MPI_INT, next, 11 + rank, &v, 1, MPI_INT, MPI_ANY_SOURCE,
                         MPI_ANY_TAG, MPI_COMM_WORLD, &st));
  CHECK(v == prev && st.MPI_SOURCE == prev && st.MPI_TAG == 11 + prev,
        "MPI_Sendrecv from MPI_ANY_SOURCE: value %d, source %d, tag %d", v, st.MPI_SOURCE,
        st.MPI_TAG);
}

/* Every other rank sends rank 0 a message tagged 1 and then one tagged 2; rank 0 takes all
 * the tag 2 messages first, from any source, then the tag 1 ones. */
static void select_by_tag(void) {
  if (rank == 0) {
    for (int tag = 2; tag >= 1; --tag) {
      int* seen = fresh_seen();
      for (int k = 1; k < size; ++k) {
        int v = 0;
        MPI_Status st;
        CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st));
        expect_each_once(seen, st.MPI_SOURCE, "MPI_Recv(MPI_ANY_SOURCE, tag)");
        CHECK(st.MPI_TAG == tag && v == (tag == 2 ? -st.MPI_SOURCE : st.MPI_SOURCE),
              "MPI_Recv(MPI_ANY_SOURCE, tag %d): value %d from %d with tag %d", tag, v,
              st.MPI_SOURCE, st.MPI_TAG);
      }
      check_all_seen(seen, "MPI_Recv(MPI_ANY_SOURCE, tag)");
      free(seen);
    }
  } else {
    int out[2] = {rank, -rank};
    MPI_Request reqs[2];
    CHECK_MPI(MPI_Isend(&out[0], 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Isend(&out[1], 1, MPI_INT, 0, 2, MPI_COMM_WORLD, &reqs[1]));
    CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  }
}

/* A message that two posted receives both match goes to the one posted first: rank 0 posts
 * (MPI_ANY_SOURCE, 7), then (1, 7), then (1, MPI_ANY_TAG); rank 1 sends 1, 2, 3. */
static void posted_order(void) {
  if (size < 2) return;
  if (rank == 0) {
    int a = 0, b = 0, c = 0;
    MPI_Request reqs[3];
    CHECK_MPI(MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Irecv(&b, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &reqs[1]));
    CHECK_MPI(MPI_Irecv(&c, 1, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[2]));
    CHECK_MPI(MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE));
    CHECK(a == 1 && b == 2 && c == 3,
          "posted receives matched out of order: got %d, %d, %d (expected 1, 2, 3)", a, b, c);
  } else if (rank == 1) {
    for (int v = 1; v <= 3; ++v) CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD));
  }
}

/* Every other rank sends 20 numbered messages; rank 0 receives them all from MPI_ANY_SOURCE
 * and each source's numbers must come in order. */
static void per_source_order(void) {
  enum { R = 20 };
  if (rank == 0) {
    int* last = conf_alloc(sizeof(int) * (size_t)size);
    for (int r = 0; r < size; ++r) last[r] = -1;
    for (int k = 0; k < (size - 1) * R; ++k) {
      int msg[2] = {-1, -1};
      MPI_Status st;
      CHECK_MPI(MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, 50, MPI_COMM_WORLD, &st));
      const int s = st.MPI_SOURCE;
      CHECK(s > 0 && s < size && msg[0] == s, "per-source order: message from %d says %d", s,
            msg[0]);
      if (s <= 0 || s >= size) continue;
      CHECK(msg[1] == last[s] + 1, "per-source order: from rank %d, number %d after %d", s,
            msg[1], last[s]);
      last[s] = msg[1];
    }
    for (int r = 1; r < size; ++r) CHECK(last[r] == R - 1, "per-source order: rank %d ended at %d", r, last[r]);
    free(last);
  } else {
    for (int k = 0; k < R; ++k) {
      int msg[2] = {rank, k};
      CHECK_MPI(MPI_Send(msg, 2, MPI_INT, 0, 50, MPI_COMM_WORLD));
    }
  }
}

/* MPI_Probe, then a receive sized by the probe's count, from the probed source and tag. */
static void probe_then_recv(void) {
  if (rank == 0) {
    int* seen = fresh_seen();
    for (int k = 1; k < size; ++k) {
      MPI_Status st;
      CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
      int n = -1;
      CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
      const int s = st.MPI_SOURCE;
      expect_each_once(seen, s, "MPI_Probe");
      CHECK(n == (s * 3) % 7 && st.MPI_TAG == 60 + s % 4, "MPI_Probe: count %d, tag %d from %d",
            n, st.MPI_TAG, s);
      int* buf = conf_alloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
      MPI_Status st2;
      CHECK_MPI(MPI_Recv(buf, n, MPI_INT, s, st.MPI_TAG, MPI_COMM_WORLD, &st2));
      int n2 = -1;
      MPI_Get_count(&st2, MPI_INT, &n2);
      CHECK(n2 == n && st2.MPI_SOURCE == s && st2.MPI_TAG == st.MPI_TAG,
            "the receive after MPI_Probe: count %d from %d tag %d", n2, st2.MPI_SOURCE, st2.MPI_TAG);
      for (int i = 0; i < n; ++i) CHECK(buf[i] == s * 100 + i, "after MPI_Probe: [%d] = %d", i, buf[i]);
      free(buf);
    }
    check_all_seen(seen, "MPI_Probe");
    free(seen);
  } else {
    const int n = (rank * 3) % 7;
    int buf[7];
    for (int i = 0; i < n; ++i) buf[i] = rank * 100 + i;
    CHECK_MPI(MPI_Send(buf, n, MPI_INT, 0, 60 + rank % 4, MPI_COMM_WORLD));
  }
}

/* MPI_Iprobe: nothing is ever sent with tag 12345, so it finds nothing; then a loop of
 * MPI_Iprobe until the previous rank's message arrives, received as probed. */
static void iprobe(void) {
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  int flag = 1;
  MPI_Status st;
  CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, &st));
  CHECK(!flag, "MPI_Iprobe found a message with a tag nobody sent");
  MPI_Request req;
  const int v = rank + 1000;
  CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, next, 70, MPI_COMM_WORLD, &req));
  long polls = 0;
  flag = 0;
  while (!flag) {
    CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 70, MPI_COMM_WORLD, &flag, &st));
    if (++polls > 2000000000L) break;
  }
  CHECK(flag && st.MPI_SOURCE == prev && st.MPI_TAG == 70,
        "MPI_Iprobe loop: flag %d, source %d, tag %d", flag, st.MPI_SOURCE, st.MPI_TAG);
  int w = -1;
  CHECK_MPI(MPI_Recv(&w, 1, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(w == prev + 1000, "after the MPI_Iprobe loop: got %d", w);
  CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
  /* MPI_Iprobe and MPI_Probe from MPI_PROC_NULL: found at once, empty of data. */
  CHECK_MPI(MPI_Iprobe(MPI_PROC_NULL, 70, MPI_COMM_WORLD, &flag, &st));
  int n = -1;
  MPI_Get_count(&st, MPI_INT, &n);
  CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && n == 0,
        "MPI_Iprobe(MPI_PROC_NULL): flag %d, source %d, tag %d, count %d", flag, st.MPI_SOURCE,
        st.MPI_TAG, n);
  CHECK_MPI(MPI_Probe(MPI_PROC_NULL, 70, MPI_COMM_WORLD, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "MPI_Probe(MPI_PROC_NULL): source %d", st.MPI_SOURCE);
}

/* Matched probes. Rank 0 takes one message from each other rank with MPI_Mprobe or
 * MPI_Improbe and MPI_Mrecv; then rank 1's two messages of one tag: the first matched by
 * MPI_Mprobe must not be taken by a later MPI_Recv, which gets the second. */
static void matched_probes(void) {
  if (rank == 0) {
    int* seen = fresh_seen();
    for (int k = 1; k < size; ++k) {
      MPI_Message msg = MPI_MESSAGE_NULL;
      MPI_Status st;
      if (k % 2) {
        CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st));
      } else {
        int flag = 0;
        long polls = 0;
        while (!flag && ++polls < 2000000000L) {
          CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
        }
      }
      const int s = st.MPI_SOURCE;
      expect_each_once(seen, s, "MPI_Mprobe");
      int n = -1;
      MPI_Get_count(&st, MPI_DOUBLE, &n);
      CHECK(n == s % 4 + 1 && st.MPI_TAG == 80 + s % 3, "MPI_Mprobe: count %d, tag %d from %d",
            n, st.MPI_TAG, s);
      double buf[4] = {0, 0, 0, 0};
      MPI_Status st2;
      CHECK_MPI(MPI_Mrecv(buf, n, MPI_DOUBLE, &msg, &st2));
      CHECK(msg == MPI_MESSAGE_NULL, "MPI_Mrecv did not set MPI_MESSAGE_NULL");
      CHECK(st2.MPI_SOURCE == s && st2.MPI_TAG == st.MPI_TAG, "MPI_Mrecv: source %d tag %d",
            st2.MPI_SOURCE, st2.MPI_TAG);
      for (int i = 0; i < n && i < 4; ++i) CHECK(buf[i] == s + i * 0.25, "MPI_Mrecv: [%d] = %g", i, buf[i]);
    }
    check_all_seen(seen, "MPI_Mprobe");
    free(seen);
  } else {
    double buf[4];
    const int n = rank % 4 + 1;
    for (int i = 0; i < n; ++i) buf[i] = rank + i * 0.25;
    CHECK_MPI(MPI_Send(buf, n, MPI_DOUBLE, 0, 80 + rank % 3, MPI_COMM_WORLD));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    if (size >= 2) {
      MPI_Message msg;
      MPI_Status st;
      CHECK_MPI(MPI_Mprobe(1, 90, MPI_COMM_WORLD, &msg, &st));
      int second = 0, first = 0;
      CHECK_MPI(MPI_Recv(&second, 1, MPI_INT, MPI_ANY_SOURCE, 90, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK_MPI(MPI_Mrecv(&first, 1, MPI_INT, &msg, MPI_STATUS_IGNORE));
      CHECK(first == 1 && second == 2,
            "a message matched by MPI_Mprobe was received by another receive: got %d by "
            "MPI_Mrecv and %d by MPI_Recv (expected 1 and 2)", first, second);
    }
  } else if (rank == 1) {
    int v[2] = {1, 2};
    MPI_Request reqs[2];
    CHECK_MPI(MPI_Isend(&v[0], 1, MPI_INT, 0, 90, MPI_COMM_WORLD, &reqs[0]));
    CHECK_MPI(MPI_Isend(&v[1], 1, MPI_INT, 0, 90, MPI_COMM_WORLD, &reqs[1]));
    CHECK_MPI(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  }
  /* MPI_PROC_NULL: MPI_MESSAGE_NO_PROC, whose MPI_Mrecv completes at once. */
  MPI_Message msg = MPI_MESSAGE_NULL;
  MPI_Status st;
  CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &msg, &st));
  CHECK(msg == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL,
        "MPI_Mprobe(MPI_PROC_NULL): not MPI_MESSAGE_NO_PROC, source %d", st.MPI_SOURCE);
  int x = 3;
  CHECK_MPI(MPI_Mrecv(&x, 1, MPI_INT, &msg, &st));
  CHECK(msg == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL && x == 3,
        "MPI_Mrecv of MPI_MESSAGE_NO_PROC: source %d, buffer %d", st.MPI_SOURCE, x);
}

/* MPI_Waitany over one receive per source (specific sources) at rank 0. */
static void waitany_sources(void) {
  if (rank == 0) {
    const int n = size - 1;
    MPI_Request* reqs = conf_alloc(sizeof(MPI_Request) * (size_t)(n + 1));
    long* v = conf_alloc(sizeof(long) * (size_t)(n + 1));
    for (int k = 0; k < n; ++k) {
      v[k] = -1;
      CHECK_MPI(MPI_Irecv(&v[k], 1, MPI_LONG, k + 1, 95, MPI_COMM_WORLD, &reqs[k]));
    }
    int* seen = fresh_seen();
    for (int k = 0; k < n; ++k) {
      int index = -1;
      MPI_Status st;
      CHECK_MPI(MPI_Waitany(n, reqs, &index, &st));
      CHECK(index >= 0 && index < n, "MPI_Waitany: index %d", index);
      if (index < 0 || index >= n) break;
      expect_each_once(seen, index + 1, "MPI_Waitany over every source");
      CHECK(st.MPI_SOURCE == index + 1 && v[index] == 10L * (index + 1),
            "MPI_Waitany: index %d, source %d, value %ld", index, st.MPI_SOURCE, v[index]);
    }
    check_all_seen(seen, "MPI_Waitany over every source");
    free(seen);
    free(reqs);
    free(v);
  } else {
    const long v = 10L * rank;
    CHECK_MPI(MPI_Send(&v, 1, MPI_LONG, 0, 95, MPI_COMM_WORLD));
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* A barrier between parts: each part's receives finish before the barrier, and no rank
   * sends the next part's messages before it, so that wildcards see one part's only. */
  void (*parts[])(void) = {recv_any,         irecv_any, any_tag_order,  select_by_tag,
                           posted_order,     per_source_order, probe_then_recv, iprobe,
                           matched_probes,   waitany_sources};
  for (size_t k = 0; k < sizeof parts / sizeof parts[0]; ++k) {
    parts[k]();
    MPI_Barrier(MPI_COMM_WORLD);
  }
  return conf_finish();
}
