/* Point-to-point calls on the predefined datatypes that test suites and benchmarks use beside
 * the usual ones: what a datatype is (extent, true extent, size, name, MPI_Pack_size, an
 * address), a buffered send's buffer sized by MPI_Pack_size, MPI_Bsend_init,
 * MPI_Request_get_status (which leaves the request to its wait), statuses set and read field
 * by field, MPI_Isendrecv and MPI_Isendrecv_replace completed by every completion call,
 * MPI_Pcontrol, and MPI_DATATYPE_NULL for no items. The ranks form a ring (p >= 2); each
 * prints "rank R: p2p ok" when everything held, else what did not, and returns 1. With the
 * argument "rendezvous" (run under --protocol rendezvous) it also checks that an MPI_Isendrecv
 * waits for its send. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static int failures;
static int rank, size, left, right;

static void check(int ok, const char* what) {
  if (!ok) {
    printf("rank %d FAILED: %s\n", rank, what);
    ++failures;
  }
}

struct short_int {
  short s;
  int i;
};

static void datatypes(void) {
  MPI_Aint lb = -1, extent = -1, a0, a1;
  MPI_Count clb = -1, cextent = -1, csize = -1;
  int n = -1, len = -1;
  char name[MPI_MAX_OBJECT_NAME];
  double x[2];

  check(MPI_Type_get_extent(MPI_INT, &lb, &extent) == MPI_SUCCESS && lb == 0 &&
            extent == (MPI_Aint)sizeof(int),
        "MPI_Type_get_extent(MPI_INT)");
  check(MPI_Type_get_extent_x(MPI_DOUBLE, &clb, &cextent) == MPI_SUCCESS && clb == 0 &&
            cextent == (MPI_Count)sizeof(double),
        "MPI_Type_get_extent_x(MPI_DOUBLE)");
  check(MPI_Type_get_extent(MPI_SHORT_INT, &lb, &extent) == MPI_SUCCESS &&
            extent == (MPI_Aint)sizeof(struct short_int),
        "MPI_SHORT_INT's extent is the padded pair's");
  check(MPI_Type_get_true_extent(MPI_SHORT_INT, &lb, &extent) == MPI_SUCCESS && lb == 0 &&
            extent == (MPI_Aint)(offsetof(struct short_int, i) + sizeof(int)),
        "MPI_SHORT_INT's true extent spans its data");
  check(MPI_Type_get_true_extent_x(MPI_CHAR, &clb, &cextent) == MPI_SUCCESS && clb == 0 &&
            cextent == 1,
        "MPI_Type_get_true_extent_x(MPI_CHAR)");
  check(MPI_Type_size_x(MPI_SHORT_INT, &csize) == MPI_SUCCESS &&
            csize == (MPI_Count)(sizeof(short) + sizeof(int)),
        "MPI_Type_size_x(MPI_SHORT_INT) counts its data only");
  check(MPI_Type_get_name(MPI_INT, name, &len) == MPI_SUCCESS && strcmp(name, "MPI_INT") == 0 &&
            len == 7,
        "MPI_Type_get_name(MPI_INT)");
  /* A name is the rank's own: rank 0 renames MPI_INT, the others still see MPI_INT. */
  if (rank == 0) check(MPI_Type_set_name(MPI_INT, "rank 0's int") == MPI_SUCCESS, "set_name");
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Type_get_name(MPI_INT, name, &len);
  check(strcmp(name, rank == 0 ? "rank 0's int" : "MPI_INT") == 0, "names are per rank");
  check(MPI_Pack_size(10, MPI_INT, MPI_COMM_WORLD, &n) == MPI_SUCCESS &&
            n >= 10 * (int)sizeof(int),
        "MPI_Pack_size(10, MPI_INT)");
  check(MPI_Get_address(&x[1], &a1) == MPI_SUCCESS && MPI_Get_address(&x[0], &a0) == 0 &&
            MPI_Aint_diff(a1, a0) == (MPI_Aint)sizeof(double),
        "MPI_Get_address");
  check(MPI_Type_get_extent(MPI_DATATYPE_NULL, &lb, &extent) == MPI_ERR_TYPE,
        "MPI_Type_get_extent(MPI_DATATYPE_NULL) is MPI_ERR_TYPE");
}

/* Bsend into a buffer that MPI_Pack_size sized, and a persistent buffered send started twice
 * (into a buffer for two such messages: the first may still be in flight at the second). */
static void buffered(void) {
  int n = 0, out[10], in[10], i, k, got = -1;
  static char buffer[4096];
  void* detached;
  MPI_Request r;
  for (i = 0; i < 10; ++i) out[i] = rank * 100 + i;
  MPI_Pack_size(10, MPI_INT, MPI_COMM_WORLD, &n);
  check(n + MPI_BSEND_OVERHEAD <= (int)sizeof buffer, "the buffer is large enough");
  MPI_Buffer_attach(buffer, n + MPI_BSEND_OVERHEAD);
  check(MPI_Bsend(out, 10, MPI_INT, right, 1, MPI_COMM_WORLD) == MPI_SUCCESS,
        "MPI_Bsend into a buffer of MPI_Pack_size + MPI_BSEND_OVERHEAD");
  MPI_Recv(in, 10, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  check(in[9] == left * 100 + 9, "the buffered message arrived");
  MPI_Buffer_detach(&detached, &n);
  MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, &n);
  MPI_Buffer_attach(buffer, 2 * (n + MPI_BSEND_OVERHEAD));
  check(MPI_Bsend_init(out, 1, MPI_INT, right, 2, MPI_COMM_WORLD, &r) == MPI_SUCCESS,
        "MPI_Bsend_init");
  for (k = 0; k < 2; ++k) {
    out[0] = rank * 100 + k;
    check(MPI_Start(&r) == MPI_SUCCESS, "MPI_Start of a buffered request");
    out[0] = -1; /* sent from the attached buffer: the program's own may change at once */
    check(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS && r != MPI_REQUEST_NULL,
          "a persistent buffered request completes and stays");
    MPI_Recv(&got, 1, MPI_INT, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    check(got == left * 100 + k, "each start sends the buffer as it was");
  }
  MPI_Request_free(&r);
  MPI_Buffer_detach(&detached, &n);
}

/* MPI_Request_get_status: false until the message can have arrived, then true with the
 * status, and the request is still the program's to complete. The left neighbour sends only
 * once it has this rank's "go". */
static void get_status(void) {
  int x = -1, go = 1, went = 0, flag = -1, count = -1;
  MPI_Request r, s;
  MPI_Status st;
  MPI_Irecv(&x, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &r);
  check(MPI_Request_get_status(r, &flag, &st) == MPI_SUCCESS && flag == 0,
        "not completed before its message was sent");
  MPI_Isend(&go, 1, MPI_INT, left, 4, MPI_COMM_WORLD, &s);
  MPI_Recv(&went, 1, MPI_INT, right, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Send(&rank, 1, MPI_INT, right, 3, MPI_COMM_WORLD);
  for (flag = 0; !flag;) MPI_Request_get_status(r, &flag, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  check(st.MPI_SOURCE == left && st.MPI_TAG == 3 && count == 1, "the status of get_status");
  check(r != MPI_REQUEST_NULL, "get_status leaves the request");
  check(MPI_Wait(&r, &st) == MPI_SUCCESS && r == MPI_REQUEST_NULL && x == left &&
            st.MPI_SOURCE == left,
        "the request completes after get_status");
  MPI_Wait(&s, MPI_STATUS_IGNORE);
  check(MPI_Request_get_status(MPI_REQUEST_NULL, &flag, &st) == MPI_SUCCESS && flag == 1,
        "get_status of MPI_REQUEST_NULL");
}

static void statuses(void) {
  MPI_Status st;
  MPI_Count n = -1;
  int v = 0;
  memset(&st, 0, sizeof st);
  check(MPI_Status_set_elements_x(&st, MPI_DOUBLE, 5) == MPI_SUCCESS &&
            MPI_Get_elements_x(&st, MPI_DOUBLE, &n) == MPI_SUCCESS && n == 5,
        "MPI_Status_set_elements_x, then MPI_Get_elements_x");
  check(MPI_Status_set_source(&st, 3) == MPI_SUCCESS && MPI_Status_set_tag(&st, 44) == 0 &&
            MPI_Status_set_error(&st, MPI_ERR_TAG) == 0 && st.MPI_SOURCE == 3 &&
            st.MPI_TAG == 44 && st.MPI_ERROR == MPI_ERR_TAG,
        "MPI_Status_set_source, _tag, _error");
  check(MPI_Status_get_source(&st, &v) == MPI_SUCCESS && v == 3, "MPI_Status_get_source");
  check(MPI_Status_get_tag(&st, &v) == MPI_SUCCESS && v == 44, "MPI_Status_get_tag");
  check(MPI_Status_get_error(&st, &v) == MPI_SUCCESS && v == MPI_ERR_TAG,
        "MPI_Status_get_error");
}

/* Two MPI_Isendrecv's around the ring (to the right from the left, and back), completed by
 * `how`; then checked. */
static void shift(const char* how) {
  int to_right = rank, to_left = rank + 1000, from_left = -1, from_right = -1, i, flag = 0;
  int index = -1, out = 0, indices[2], done = 0;
  MPI_Request r[2];
  MPI_Status st[2];
  MPI_Isendrecv(&to_right, 1, MPI_INT, right, 10, &from_left, 1, MPI_INT, left, 10,
                MPI_COMM_WORLD, &r[0]);
  MPI_Isendrecv(&to_left, 1, MPI_INT, left, 11, &from_right, 1, MPI_INT, right, 11,
                MPI_COMM_WORLD, &r[1]);
  if (strcmp(how, "wait") == 0) {
    MPI_Wait(&r[0], &st[0]);
    MPI_Wait(&r[1], &st[1]);
  } else if (strcmp(how, "waitall") == 0) {
    MPI_Waitall(2, r, st);
  } else if (strcmp(how, "test") == 0) {
    for (i = 0; i < 2; ++i) {
      for (flag = 0; !flag;) MPI_Test(&r[i], &flag, &st[i]);
    }
  } else if (strcmp(how, "testall") == 0) {
    while (!flag) MPI_Testall(2, r, &flag, st);
  } else if (strcmp(how, "waitany") == 0 || strcmp(how, "testany") == 0) {
    MPI_Status one;
    for (done = 0; done < 2;) {
      if (how[0] == 'w') {
        MPI_Waitany(2, r, &index, &one);
      } else {
        MPI_Testany(2, r, &index, &flag, &one);
        if (!flag) continue;
      }
      st[index] = one;
      ++done;
    }
  } else if (strcmp(how, "waitsome") == 0 || strcmp(how, "testsome") == 0) {
    MPI_Status some[2];
    for (done = 0; done < 2;) {
      if (how[0] == 'w') {
        MPI_Waitsome(2, r, &out, indices, some);
      } else {
        MPI_Testsome(2, r, &out, indices, some);
      }
      for (i = 0; i < out; ++i) st[indices[i]] = some[i];
      done += out;
    }
  }
  check(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL, how);
  check(from_left == left && from_right == right + 1000, how);
  check(st[0].MPI_SOURCE == left && st[0].MPI_TAG == 10 && st[1].MPI_SOURCE == right &&
            st[1].MPI_TAG == 11,
        how);
}

static void isendrecv(void) {
  const char* ways[] = {"wait", "waitall", "test", "testall", "waitany", "testany", "waitsome",
                        "testsome"};
  size_t i;
  int x[3], count = -1, flag = 0;
  MPI_Request r;
  MPI_Status st;
  for (i = 0; i < sizeof ways / sizeof ways[0]; ++i) shift(ways[i]);

  /* In place: each rank's buffer is replaced by its left neighbour's. */
  x[0] = rank;
  x[1] = rank * 2;
  x[2] = rank * 3;
  MPI_Isendrecv_replace(x, 3, MPI_INT, right, 20, left, 20, MPI_COMM_WORLD, &r);
  for (flag = 0; !flag;) MPI_Request_get_status(r, &flag, &st);
  MPI_Wait(&r, &st);
  MPI_Get_count(&st, MPI_INT, &count);
  check(x[0] == left && x[1] == left * 2 && x[2] == left * 3 && count == 3 &&
            st.MPI_SOURCE == left,
        "MPI_Isendrecv_replace");

  /* With MPI_PROC_NULL on either side. */
  {
    MPI_Request both[2];
    MPI_Status sts[2];
    x[0] = 7;
    x[1] = -1;
    MPI_Isendrecv(&rank, 1, MPI_INT, right, 21, &x[0], 1, MPI_INT, MPI_PROC_NULL, 21,
                  MPI_COMM_WORLD, &both[0]);
    MPI_Isendrecv(&rank, 1, MPI_INT, MPI_PROC_NULL, 21, &x[1], 1, MPI_INT, left, 21,
                  MPI_COMM_WORLD, &both[1]);
    MPI_Waitall(2, both, sts);
    check(sts[0].MPI_SOURCE == MPI_PROC_NULL && x[0] == 7, "MPI_Isendrecv from MPI_PROC_NULL");
    check(sts[1].MPI_SOURCE == left && x[1] == left, "MPI_Isendrecv to MPI_PROC_NULL");
  }
}

/* Under --protocol rendezvous, where a send completes only once its receive is posted: an
 * MPI_Isendrecv whose receive is from MPI_PROC_NULL completes when its send does. Rank 1 posts
 * the receive only once rank 0 says "go", so before that rank 0's request has not completed,
 * whichever call asks. */
static void isendrecv_waits_for_its_send(void) {
  int x = 5, go = 1, flag = -1, index = -1;
  MPI_Request r;
  MPI_Status st;
  if (rank == 0) {
    MPI_Isendrecv(&x, 1, MPI_INT, 1, 40, NULL, 0, MPI_INT, MPI_PROC_NULL, 40, MPI_COMM_WORLD, &r);
    MPI_Test(&r, &flag, &st);
    check(flag == 0, "MPI_Test: not before its send has completed");
    MPI_Request_get_status(r, &flag, &st);
    check(flag == 0, "MPI_Request_get_status: not before its send has completed");
    MPI_Testany(1, &r, &index, &flag, &st);
    check(flag == 0 && r != MPI_REQUEST_NULL, "MPI_Testany: not before its send has completed");
    MPI_Send(&go, 1, MPI_INT, 1, 41, MPI_COMM_WORLD);
    MPI_Wait(&r, &st);
    check(st.MPI_SOURCE == MPI_PROC_NULL, "then it completes");
  } else if (rank == 1) {
    MPI_Recv(&go, 1, MPI_INT, 0, 41, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(&x, 1, MPI_INT, 0, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
}

/* MPI_DATATYPE_NULL for no items, in every kind of call. */
static void null_type(void) {
  MPI_Status st;
  MPI_Request r;
  int count = -1, sent = 0, received = 0, k;
  for (k = 0; k < 2; ++k) { /* the odd ranks receive first: no cycle of blocking sends */
    if ((rank + k) % 2 == 0) {
      sent = MPI_Send(NULL, 0, MPI_DATATYPE_NULL, right, 30, MPI_COMM_WORLD) == MPI_SUCCESS;
    } else {
      received =
          MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, left, 30, MPI_COMM_WORLD, &st) == MPI_SUCCESS;
    }
  }
  check(sent, "MPI_Send of nothing as MPI_DATATYPE_NULL");
  check(received, "MPI_Recv of nothing as MPI_DATATYPE_NULL");
  MPI_Get_count(&st, MPI_INT, &count);
  check(count == 0 && st.MPI_SOURCE == left, "its status");
  check(MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 31, MPI_COMM_WORLD, &st) == 0 &&
            st.MPI_SOURCE == MPI_PROC_NULL,
        "MPI_Recv from MPI_PROC_NULL as MPI_DATATYPE_NULL");
  check(MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 31, MPI_COMM_WORLD, &r) == 0 &&
            MPI_Wait(&r, &st) == MPI_SUCCESS && st.MPI_SOURCE == MPI_PROC_NULL,
        "MPI_Irecv from MPI_PROC_NULL as MPI_DATATYPE_NULL");
  check(MPI_Recv_init(NULL, 0, MPI_DATATYPE_NULL, left, 32, MPI_COMM_WORLD, &r) == 0 &&
            MPI_Start(&r) == MPI_SUCCESS,
        "MPI_Recv_init of nothing as MPI_DATATYPE_NULL");
  MPI_Sendrecv(NULL, 0, MPI_DATATYPE_NULL, right, 32, NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL,
               32, MPI_COMM_WORLD, &st);
  check(MPI_Wait(&r, &st) == MPI_SUCCESS && st.MPI_SOURCE == left, "and its completion");
  MPI_Request_free(&r);
  check(MPI_Send(&count, 1, MPI_DATATYPE_NULL, right, 33, MPI_COMM_WORLD) == MPI_ERR_TYPE,
        "MPI_DATATYPE_NULL for an item is MPI_ERR_TYPE");
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  left = (rank + size - 1) % size;
  right = (rank + 1) % size;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  check(MPI_Pcontrol(1) == MPI_SUCCESS && MPI_Pcontrol(0, "ignored") == MPI_SUCCESS,
        "MPI_Pcontrol");
  datatypes();
  buffered();
  get_status();
  statuses();
  isendrecv();
  if (argc > 1 && strcmp(argv[1], "rendezvous") == 0) isendrecv_waits_for_its_send();
  null_type();
  if (failures == 0) printf("rank %d: p2p ok\n", rank);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
