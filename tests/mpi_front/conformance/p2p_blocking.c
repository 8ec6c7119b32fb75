/* Blocking point-to-point: MPI_Send, MPI_Ssend, MPI_Rsend (its receive posted before a
 * barrier), MPI_Bsend with MPI_Buffer_attach and MPI_Buffer_detach, MPI_Recv, MPI_Sendrecv,
 * MPI_Sendrecv_replace; MPI_PROC_NULL in each; the status (source, tag, count) and
 * MPI_Get_count and MPI_Get_elements, MPI_UNDEFINED for a size that is not a multiple of the
 * type's; zero-length messages; 1 B to 1 MiB; the order of messages of one (source, tag);
 * many tags, up to MPI_TAG_UB; every predefined C type.
 *
 * Blocking sends around the ring go even ranks first, odd ranks receiving first, so that
 * nothing relies on a standard-mode send being buffered. */
#include "conformance.h"

static int rank, size, next, prev;

/* A ring shift with MPI_Send and MPI_Recv (MPI_Sendrecv to itself when alone). */
static void ring_shift(const void* out, int out_count, MPI_Datatype out_type, void* in,
                       int in_count, MPI_Datatype in_type, int tag, MPI_Status* status) {
  if (size == 1) {
    CHECK_MPI(MPI_Sendrecv(out, out_count, out_type, 0, tag, in, in_count, in_type, 0, tag,
                           MPI_COMM_WORLD, status));
  } else if (rank % 2 == 0) {
    CHECK_MPI(MPI_Send(out, out_count, out_type, next, tag, MPI_COMM_WORLD));
    CHECK_MPI(MPI_Recv(in, in_count, in_type, prev, tag, MPI_COMM_WORLD, status));
  } else {
    CHECK_MPI(MPI_Recv(in, in_count, in_type, prev, tag, MPI_COMM_WORLD, status));
    CHECK_MPI(MPI_Send(out, out_count, out_type, next, tag, MPI_COMM_WORLD));
  }
}

static void check_status(const MPI_Status* st, int source, int tag, MPI_Datatype type,
                         int count, const char* what) {
  CHECK(st->MPI_SOURCE == source, "%s: status.MPI_SOURCE %d, expected %d", what, st->MPI_SOURCE,
        source);
  CHECK(st->MPI_TAG == tag, "%s: status.MPI_TAG %d, expected %d", what, st->MPI_TAG, tag);
  int got = -5;
  CHECK_MPI(MPI_Get_count(st, type, &got));
  CHECK(got == count, "%s: MPI_Get_count %d, expected %d", what, got, count);
}

static void send_recv_status(void) {
  int out[10], in[20];
  for (int i = 0; i < 10; ++i) out[i] = rank * 100 + i;
  memset(in, 0, sizeof in);
  MPI_Status st;
  ring_shift(out, 10, MPI_INT, in, 20, MPI_INT, 5, &st);
  check_status(&st, prev, 5, MPI_INT, 10, "MPI_Recv of 10 ints into 20");
  for (int i = 0; i < 10; ++i) CHECK(in[i] == prev * 100 + i, "MPI_Recv: [%d] = %d", i, in[i]);
  for (int i = 10; i < 20; ++i) CHECK(in[i] == 0, "MPI_Recv wrote past the message: [%d]", i);
  /* MPI_STATUS_IGNORE. */
  ring_shift(out, 3, MPI_INT, in, 3, MPI_INT, 6, MPI_STATUS_IGNORE);
  CHECK(in[2] == prev * 100 + 2, "MPI_Recv with MPI_STATUS_IGNORE: got %d", in[2]);
}

/* MPI_Ssend around the ring: rank 0 starts, each rank receives and passes on. */
static void ssend_ring(void) {
  long token = 0;
  if (size == 1) return;
  if (rank == 0) {
    token = 1;
    CHECK_MPI(MPI_Ssend(&token, 1, MPI_LONG, next, 11, MPI_COMM_WORLD));
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&token, 1, MPI_LONG, prev, 11, MPI_COMM_WORLD, &st));
    check_status(&st, prev, 11, MPI_LONG, 1, "MPI_Recv of MPI_Ssend's token");
    CHECK(token == (long)size * (size + 1) / 2, "MPI_Ssend ring: token %ld, expected %ld",
          token, (long)size * (size + 1) / 2);
  } else {
    CHECK_MPI(MPI_Recv(&token, 1, MPI_LONG, prev, 11, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    token += rank + 1;
    CHECK_MPI(MPI_Ssend(&token, 1, MPI_LONG, next, 11, MPI_COMM_WORLD));
  }
}

/* MPI_Rsend: legal only once the receive is posted; the barrier orders that. */
static void rsend(void) {
  double out[4] = {rank + 0.5, rank + 1.5, rank + 2.5, rank + 3.5}, in[4] = {0, 0, 0, 0};
  MPI_Request req;
  CHECK_MPI(MPI_Irecv(in, 4, MPI_DOUBLE, prev, 12, MPI_COMM_WORLD, &req));
  CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
  CHECK_MPI(MPI_Rsend(out, 4, MPI_DOUBLE, next, 12, MPI_COMM_WORLD));
  MPI_Status st;
  CHECK_MPI(MPI_Wait(&req, &st));
  check_status(&st, prev, 12, MPI_DOUBLE, 4, "MPI_Rsend's message");
  for (int i = 0; i < 4; ++i) CHECK(in[i] == prev + i + 0.5, "MPI_Rsend: [%d] = %g", i, in[i]);
}

/* MPI_Bsend: ten messages of growing size to the next rank, all before any is received
 * (they must be buffered), received in reverse order of tags; twice with the same buffer;
 * then messages of two tags interleaved, received one tag after the other (each tag in
 * order). */
static void bsend(void) {
  enum { K = 10, UNIT = 100 };
  /* Room for every message sent, as if none were ever freed. */
  int attach_size = 0;
  for (int k = 0; k < K; ++k) attach_size += 2 * (k * UNIT * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
  attach_size += 40 * ((int)sizeof(int) * 2 + MPI_BSEND_OVERHEAD);
  char* buffer = conf_alloc((size_t)attach_size);
  CHECK_MPI(MPI_Buffer_attach(buffer, attach_size));
  int* out = conf_alloc(sizeof(int) * K * UNIT);
  int* in = conf_alloc(sizeof(int) * K * UNIT);
  for (int pass = 0; pass < 2; ++pass) {
    for (int k = 0; k < K; ++k) {
      for (int i = 0; i < k * UNIT; ++i) out[i] = rank * 1000000 + k * 1000 + i + pass;
      CHECK_MPI(MPI_Bsend(out, k * UNIT, MPI_INT, next, 20 + k, MPI_COMM_WORLD));
    }
    for (int k = K - 1; k >= 0; --k) {
      MPI_Status st;
      CHECK_MPI(MPI_Recv(in, K * UNIT, MPI_INT, prev, 20 + k, MPI_COMM_WORLD, &st));
      check_status(&st, prev, 20 + k, MPI_INT, k * UNIT, "MPI_Bsend's message");
      int bad = 0;
      for (int i = 0; i < k * UNIT; ++i) bad += in[i] != prev * 1000000 + k * 1000 + i + pass;
      CHECK(bad == 0, "MPI_Bsend message %d, pass %d: %d wrong elements", k, pass, bad);
    }
  }
  /* Two tags interleaved: 40 messages, tags 30 and 31 alternating, sequence numbers. */
  for (int k = 0; k < 40; ++k) {
    int msg[2] = {k, rank};
    CHECK_MPI(MPI_Bsend(msg, 2, MPI_INT, next, 30 + k % 2, MPI_COMM_WORLD));
  }
  for (int tag = 31; tag >= 30; --tag) {
    for (int k = tag - 30; k < 40; k += 2) {
      int msg[2] = {-1, -1};
      CHECK_MPI(MPI_Recv(msg, 2, MPI_INT, prev, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(msg[0] == k && msg[1] == prev,
            "MPI_Bsend tag %d: message %d arrived out of order (got number %d from %d)", tag, k,
            msg[0], msg[1]);
    }
  }
  void* detached = NULL;
  int detached_size = -1;
  CHECK_MPI(MPI_Buffer_detach(&detached, &detached_size));
  CHECK(detached == buffer, "MPI_Buffer_detach returned %p, attached %p", detached, (void*)buffer);
  CHECK(detached_size == attach_size, "MPI_Buffer_detach returned size %d, attached %d",
        detached_size, attach_size);
  /* Attached again, a zero-length message. */
  CHECK_MPI(MPI_Buffer_attach(buffer, attach_size));
  CHECK_MPI(MPI_Bsend(NULL, 0, MPI_INT, next, 39, MPI_COMM_WORLD));
  MPI_Status st;
  CHECK_MPI(MPI_Recv(in, 1, MPI_INT, prev, 39, MPI_COMM_WORLD, &st));
  check_status(&st, prev, 39, MPI_INT, 0, "MPI_Bsend of nothing");
  CHECK_MPI(MPI_Buffer_detach(&detached, &detached_size));
  free(buffer);
  free(out);
  free(in);
}

/* MPI_Sendrecv and MPI_Sendrecv_replace: forwards and backwards round the ring and to
 * itself. */
static void sendrecv(void) {
  long out[8], in[16];
  for (int i = 0; i < 8; ++i) out[i] = rank * 10L + i;
  MPI_Status st;
  CHECK_MPI(MPI_Sendrecv(out, 8, MPI_LONG, next, 40, in, 16, MPI_LONG, prev, 40, MPI_COMM_WORLD,
                         &st));
  check_status(&st, prev, 40, MPI_LONG, 8, "MPI_Sendrecv forwards");
  for (int i = 0; i < 8; ++i) CHECK(in[i] == prev * 10L + i, "MPI_Sendrecv: [%d] = %ld", i, in[i]);

  short s_out[5] = {(short)rank, 1, 2, 3, 4}, s_in[8] = {0};
  CHECK_MPI(MPI_Sendrecv(s_out, 5, MPI_SHORT, prev, 41, s_in, 8, MPI_SHORT, next, 41,
                         MPI_COMM_WORLD, &st));
  check_status(&st, next, 41, MPI_SHORT, 5, "MPI_Sendrecv backwards");
  CHECK(s_in[0] == next && s_in[4] == 4 && s_in[5] == 0, "MPI_Sendrecv backwards: got %d..%d",
        s_in[0], s_in[4]);

  CHECK_MPI(MPI_Sendrecv(out, 2, MPI_LONG, rank, 43, in, 2, MPI_LONG, rank, 43, MPI_COMM_WORLD,
                         &st));
  check_status(&st, rank, 43, MPI_LONG, 2, "MPI_Sendrecv to itself");
  CHECK(in[1] == rank * 10L + 1, "MPI_Sendrecv to itself: got %ld", in[1]);

  int buf[6];
  for (int i = 0; i < 6; ++i) buf[i] = rank * 6 + i;
  CHECK_MPI(MPI_Sendrecv_replace(buf, 6, MPI_INT, next, 44, prev, 44, MPI_COMM_WORLD, &st));
  check_status(&st, prev, 44, MPI_INT, 6, "MPI_Sendrecv_replace forwards");
  for (int i = 0; i < 6; ++i) {
    CHECK(buf[i] == prev * 6 + i, "MPI_Sendrecv_replace forwards: [%d] = %d", i, buf[i]);
  }
  CHECK_MPI(MPI_Sendrecv_replace(buf, 6, MPI_INT, prev, 45, next, 45, MPI_COMM_WORLD, &st));
  check_status(&st, next, 45, MPI_INT, 6, "MPI_Sendrecv_replace backwards");
  for (int i = 0; i < 6; ++i) {
    CHECK(buf[i] == rank * 6 + i, "MPI_Sendrecv_replace back home: [%d] = %d", i, buf[i]);
  }
  CHECK_MPI(MPI_Sendrecv_replace(buf, 6, MPI_INT, rank, 46, rank, 46, MPI_COMM_WORLD, &st));
  check_status(&st, rank, 46, MPI_INT, 6, "MPI_Sendrecv_replace to itself");
  CHECK(buf[5] == rank * 6 + 5, "MPI_Sendrecv_replace to itself: got %d", buf[5]);
}

/* MPI_PROC_NULL: sends succeed and do nothing; a receive completes at once with source
 * MPI_PROC_NULL, tag MPI_ANY_TAG and count 0, its buffer untouched. */
static void proc_null(void) {
  int x[3] = {7, 8, 9};
  CHECK_MPI(MPI_Send(x, 3, MPI_INT, MPI_PROC_NULL, 50, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Ssend(x, 3, MPI_INT, MPI_PROC_NULL, 50, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Rsend(x, 3, MPI_INT, MPI_PROC_NULL, 50, MPI_COMM_WORLD));
  CHECK_MPI(MPI_Bsend(x, 3, MPI_INT, MPI_PROC_NULL, 50, MPI_COMM_WORLD));
  MPI_Status st;
  st.MPI_SOURCE = st.MPI_TAG = 12345;
  CHECK_MPI(MPI_Recv(x, 3, MPI_INT, MPI_PROC_NULL, 50, MPI_COMM_WORLD, &st));
  check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0, "MPI_Recv from MPI_PROC_NULL");
  CHECK(x[0] == 7 && x[1] == 8 && x[2] == 9, "MPI_Recv from MPI_PROC_NULL wrote its buffer");
  /* A shift that is not periodic: the ends talk to MPI_PROC_NULL. */
  const int up = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
  const int down = rank > 0 ? rank - 1 : MPI_PROC_NULL;
  int out = rank, in = -1;
  CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, up, 51, &in, 1, MPI_INT, down, 51, MPI_COMM_WORLD, &st));
  if (down == MPI_PROC_NULL) {
    check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0, "MPI_Sendrecv from MPI_PROC_NULL");
    CHECK(in == -1, "MPI_Sendrecv from MPI_PROC_NULL wrote %d", in);
  } else {
    check_status(&st, down, 51, MPI_INT, 1, "MPI_Sendrecv in a non-periodic shift");
    CHECK(in == down, "MPI_Sendrecv in a non-periodic shift: got %d", in);
  }
  int both = rank;
  CHECK_MPI(MPI_Sendrecv_replace(&both, 1, MPI_INT, up, 52, down, 52, MPI_COMM_WORLD, &st));
  CHECK(both == (down == MPI_PROC_NULL ? rank : down), "MPI_Sendrecv_replace, non-periodic: %d",
        both);
  CHECK_MPI(MPI_Sendrecv(&out, 1, MPI_INT, MPI_PROC_NULL, 53, &in, 1, MPI_INT, MPI_PROC_NULL, 53,
                         MPI_COMM_WORLD, &st));
  check_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_INT, 0, "MPI_Sendrecv with MPI_PROC_NULL");
}

/* MPI_Get_count and MPI_Get_elements. */
static void counts(void) {
  unsigned char bytes[16];
  unsigned char seven[7] = {1, 2, 3, 4, 5, 6, 7};
  MPI_Status st;
  ring_shift(seven, 7, MPI_BYTE, bytes, 16, MPI_BYTE, 60, &st);
  int n = -5;
  CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &n));
  CHECK(n == 7, "MPI_Get_count of 7 bytes as MPI_BYTE: %d", n);
  CHECK_MPI(MPI_Get_elements(&st, MPI_BYTE, &n));
  CHECK(n == 7, "MPI_Get_elements of 7 bytes as MPI_BYTE: %d", n);
  /* 7 bytes are not a whole number of ints. */
  CHECK_MPI(MPI_Get_count(&st, MPI_INT, &n));
  CHECK(n == MPI_UNDEFINED, "MPI_Get_count of 7 bytes as MPI_INT: %d, expected MPI_UNDEFINED", n);
  CHECK_MPI(MPI_Get_elements(&st, MPI_INT, &n));
  CHECK(n == MPI_UNDEFINED, "MPI_Get_elements of 7 bytes as MPI_INT: %d, expected MPI_UNDEFINED", n);

  double d[5] = {1, 2, 3, 4, 5}, e[9];
  ring_shift(d, 5, MPI_DOUBLE, e, 9, MPI_DOUBLE, 61, &st);
  CHECK_MPI(MPI_Get_count(&st, MPI_DOUBLE, &n));
  CHECK(n == 5, "MPI_Get_count of 5 doubles: %d", n);
  CHECK_MPI(MPI_Get_elements(&st, MPI_DOUBLE, &n));
  CHECK(n == 5, "MPI_Get_elements of 5 doubles: %d", n);
}

/* Zero-length messages: no buffer needed; the receive's buffer stays untouched. */
static void zero_length(void) {
  int guard[2] = {42, 43};
  MPI_Status st;
  ring_shift(NULL, 0, MPI_INT, guard, 2, MPI_INT, 70, &st);
  check_status(&st, prev, 70, MPI_INT, 0, "a zero-length message");
  CHECK(guard[0] == 42 && guard[1] == 43, "a zero-length message wrote the receive buffer");
  ring_shift(guard, 0, MPI_DOUBLE, NULL, 0, MPI_DOUBLE, 71, &st);
  check_status(&st, prev, 71, MPI_DOUBLE, 0, "a zero-length message into no buffer");
}

/* 1 B to 1 MiB round the ring, every byte checked. */
static void sizes(void) {
  const int lengths[] = {1, 2, 3, 7, 8, 63, 64, 1000, 4095, 4096, 65535, 65536, 100001, 1 << 20};
  unsigned char* out = conf_alloc(1 << 20);
  unsigned char* in = conf_alloc((1 << 20) + 1);
  for (int k = 0; k < (int)(sizeof lengths / sizeof lengths[0]); ++k) {
    const int n = lengths[k];
    for (int i = 0; i < n; ++i) out[i] = (unsigned char)(rank * 131 + i * 7 + k);
    memset(in, CONF_FILLER, (size_t)n + 1);
    MPI_Status st;
    ring_shift(out, n, MPI_BYTE, in, n + 1, MPI_BYTE, 80 + k, &st);
    check_status(&st, prev, 80 + k, MPI_BYTE, n, "a message of n bytes");
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += in[i] != (unsigned char)(prev * 131 + i * 7 + k);
    CHECK(bad == 0 && in[n] == CONF_FILLER, "a message of %d bytes: %d wrong bytes%s", n, bad,
          in[n] == CONF_FILLER ? "" : ", the byte after it written");
  }
  free(out);
  free(in);
}

/* Messages of one (source, tag) arrive in the order sent, whatever their sizes: rank 2k
 * sends 60 messages to rank 2k + 1 (short and long mixed), which receives them in turn. */
static void order(void) {
  enum { N = 60, LONG = 20000 };
  int* buf = conf_alloc(sizeof(int) * LONG);
  const int partner = rank % 2 == 0 ? rank + 1 : rank - 1;
  if (partner >= size) {
    free(buf);
    return;
  }
  for (int k = 0; k < N; ++k) {
    const int n = k % 3 == 1 ? LONG : 1 + k % 5;
    if (rank % 2 == 0) {
      for (int i = 0; i < n; ++i) buf[i] = k;
      CHECK_MPI(MPI_Send(buf, n, MPI_INT, partner, 90, MPI_COMM_WORLD));
    } else {
      MPI_Status st;
      CHECK_MPI(MPI_Recv(buf, LONG, MPI_INT, partner, 90, MPI_COMM_WORLD, &st));
      int got = -1;
      MPI_Get_count(&st, MPI_INT, &got);
      CHECK(got == n && buf[0] == k && buf[n - 1] == k,
            "message %d of (source %d, tag 90): got number %d, %d ints (expected %d)", k, partner,
            buf[0], got, n);
    }
  }
  free(buf);
}

/* Many tags: 100 buffered messages with tags 0..99 to the next rank, received in a scrambled
 * order of tags; then one with the largest tag, MPI_TAG_UB's value. */
static void tags(void) {
  enum { T = 100 };
  const int attach_size = T * ((int)sizeof(int) + MPI_BSEND_OVERHEAD);
  char* buffer = conf_alloc((size_t)attach_size);
  CHECK_MPI(MPI_Buffer_attach(buffer, attach_size));
  for (int t = 0; t < T; ++t) {
    const int v = rank * 1000 + t;
    CHECK_MPI(MPI_Bsend(&v, 1, MPI_INT, next, t, MPI_COMM_WORLD));
  }
  for (int k = 0; k < T; ++k) {
    const int t = (k * 37 + 11) % T; /* 37 and 100 coprime: every tag once */
    int v = -1;
    MPI_Status st;
    CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, prev, t, MPI_COMM_WORLD, &st));
    CHECK(v == prev * 1000 + t && st.MPI_TAG == t, "tag %d: got %d with tag %d", t, v, st.MPI_TAG);
  }
  void* detached;
  int detached_size;
  CHECK_MPI(MPI_Buffer_detach(&detached, &detached_size));
  free(buffer);

  int* ub = NULL;
  int flag = 0;
  CHECK_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag));
  CHECK(flag && ub != NULL && *ub >= 32767, "MPI_TAG_UB: flag %d, value %d", flag, ub ? *ub : -1);
  if (flag && ub != NULL) {
    const int top = *ub;
    int v = rank, w = -1;
    MPI_Status st;
    ring_shift(&v, 1, MPI_INT, &w, 1, MPI_INT, top, &st);
    check_status(&st, prev, top, MPI_INT, 1, "a message tagged MPI_TAG_UB's value");
    CHECK(w == prev, "a message tagged MPI_TAG_UB's value: got %d", w);
  }
}

/* Every predefined C type round the ring, compared by value. */
static void types(void) {
  for (int t = 0; t < CONF_NTYPES; ++t) {
    const size_t extent = conf_types[t].size;
    const int n = 17 + t;
    unsigned char* out = conf_alloc(extent * (size_t)n);
    unsigned char* in = conf_alloc(extent * (size_t)(n + 1));
    conf_fill(t, out, (size_t)n, rank * 100 + t);
    memset(in, CONF_FILLER, extent * (size_t)(n + 1));
    MPI_Status st;
    char what[120];
    snprintf(what, sizeof what, "%d elements of %s", n, conf_types[t].name);
    ring_shift(out, n, conf_datatype(t), in, n + 1, conf_datatype(t), 100 + t, &st);
    check_status(&st, prev, 100 + t, conf_datatype(t), n, what);
    CHECK_FILLED(t, in, (size_t)n, prev * 100 + t, what);
    size_t first = 0;
    CHECK(conf_overwritten(in + extent * (size_t)n, 1, extent, NULL, &first) == 0,
          "%s: the element after the message was written", what);
    free(out);
    free(in);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  next = (rank + 1) % size;
  prev = (rank + size - 1) % size;
  send_recv_status();
  ssend_ring();
  rsend();
  bsend();
  sendrecv();
  proc_null();
  counts();
  zero_length();
  sizes();
  order();
  tags();
  types();
  return conf_finish();
}
