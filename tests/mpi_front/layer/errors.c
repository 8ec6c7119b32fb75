/* The MPI layer's errors under MPI_ERRORS_RETURN: each bad argument of the communicator,
 * group, collective and error calls returns its class, and MPI_Error_string gives the text
 * (the function and the problem); errors on no communicator or on an invalid one go to
 * MPI_COMM_SELF's handler; a program's handler is called with the communicator and the code;
 * added classes, codes and strings; the handler is inherited by new communicators. Every
 * rank makes every erroneous call, so that no rank waits for another; a barrier at the end
 * shows that nothing is left hanging. Exit status 0 and "errors: ok" from rank 0 when every
 * check held on every rank.
 *
 *   vmcc errors.c -o errors && vmc mpirun -np 4 ./errors */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int errors = 0;
static int me = 0, p = 0;

#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      fprintf(stderr, "rank %d, line %d: ", me, __LINE__);        \
      fprintf(stderr, __VA_ARGS__);                               \
      fprintf(stderr, "\n");                                      \
      ++errors;                                                   \
    }                                                             \
  } while (0)

/* The call returned `cls`, and the text of that class names the function and says `words`. */
#define EXPECT(call, cls, function, words)                                             \
  do {                                                                                 \
    int rc_ = (call);                                                                  \
    char text_[MPI_MAX_ERROR_STRING];                                                  \
    int len_ = 0, class_ = -1;                                                         \
    MPI_Error_class(rc_, &class_);                                                     \
    MPI_Error_string(rc_, text_, &len_);                                               \
    CHECK(rc_ == (cls) && class_ == (cls), "%s returned %d, expected %s", #call, rc_, #cls); \
    CHECK(strstr(text_, function) == text_ && strstr(text_, #cls) && strstr(text_, words), \
          "%s: text '%s' does not name %s, %s and '%s'", #call, text_, function, #cls, words); \
    CHECK(len_ == (int)strlen(text_), "Error_string's length");                        \
  } while (0)

static int handled = 0;
static MPI_Comm handled_comm = MPI_COMM_NULL;
static int handled_code = 0;
static void handler(MPI_Comm* comm, int* code, ...) {
  ++handled;
  handled_comm = *comm;
  handled_code = *code;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
  CHECK(eh == MPI_ERRORS_ARE_FATAL, "the default handler is %d", eh);
  MPI_Errhandler_free(&eh);
  CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free of a predefined handler");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
  CHECK(eh == MPI_ERRORS_RETURN, "get_errhandler: %d", eh);

  /* a class with no error yet: its generic text */
  char text[MPI_MAX_ERROR_STRING];
  int len;
  MPI_Error_string(MPI_ERR_TRUNCATE, text, &len);
  CHECK(strcmp(text, "MPI_ERR_TRUNCATE: message truncated on receive") == 0, "generic: '%s'", text);
  MPI_Error_string(MPI_SUCCESS, text, &len);
  CHECK(strstr(text, "MPI_SUCCESS") != NULL, "success: '%s'", text);

  int x[4] = {0, 0, 0, 0}, y[4];
  struct { double v; int i; } pair = {1.0, me}, pair_out;
  /* collectives */
  EXPECT(MPI_Bcast(x, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Bcast", "negative count -1");
  EXPECT(MPI_Bcast(x, 1, MPI_INT, p, MPI_COMM_WORLD), MPI_ERR_ROOT, "MPI_Bcast", "is not a rank");
  EXPECT(MPI_Bcast(NULL, 2, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bcast", "null buffer");
  EXPECT(MPI_Bcast(x, 1, 9999, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Bcast", "invalid datatype 9999");
  EXPECT(MPI_Bcast(x, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE, "MPI_Bcast", "MPI_DATATYPE_NULL");
  EXPECT(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER, "MPI_Bcast", "MPI_IN_PLACE");
  EXPECT(MPI_Allreduce(&pair, &pair_out, 1, MPI_DOUBLE_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP,
         "MPI_Allreduce", "MPI_SUM does not apply to MPI_DOUBLE_INT");
  EXPECT(MPI_Allreduce(x, y, 1, MPI_FLOAT, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Allreduce",
         "MPI_BAND does not apply to MPI_FLOAT");
  EXPECT(MPI_Allreduce(x, y, 1, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Allreduce",
         "MPI_MAXLOC does not apply to MPI_INT");
  EXPECT(MPI_Allreduce(x, y, 1, MPI_WCHAR, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Allreduce",
         "MPI_SUM does not apply to MPI_WCHAR");
  EXPECT(MPI_Allreduce(x, y, 1, MPI_INT, 999, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Allreduce",
         "invalid operation 999");
  EXPECT(MPI_Allreduce(x, y, 1, MPI_INT, MPI_REPLACE, MPI_COMM_WORLD), MPI_ERR_OP, "MPI_Allreduce",
         "MPI_REPLACE does not apply");
  EXPECT(MPI_Allreduce(x, x + 1, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER,
         "MPI_Allreduce", "overlap");
  EXPECT(MPI_Reduce(MPI_IN_PLACE, x, 1, MPI_INT, MPI_SUM, p, MPI_COMM_WORLD), MPI_ERR_ROOT,
         "MPI_Reduce", "root");
  if (p > 1) {
    /* MPI_IN_PLACE at a rank that is not the root: every rank but the root is wrong, so the
       root must not enter the call (it would wait for the others): it skips it */
    if (me != 0) {
      EXPECT(MPI_Reduce(MPI_IN_PLACE, x, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER,
             "MPI_Reduce", "the root's send buffer only");
    }
  }
  EXPECT(MPI_Gather(x, 1, MPI_INT, y, 1, MPI_DOUBLE, me, MPI_COMM_WORLD), MPI_ERR_TYPE,
         "MPI_Gather", "differ in size");
  EXPECT(MPI_Gather(x, 1, MPI_INT, y, 2, MPI_INT, me, MPI_COMM_WORLD), MPI_ERR_COUNT,
         "MPI_Gather", "sendcount 1 and recvcount 2 differ");
  int counts[64], displs[64];
  for (int i = 0; i < p; ++i) { counts[i] = 1; displs[i] = i; }
  counts[p - 1] = -2;
  EXPECT(MPI_Allgatherv(x, 1, MPI_INT, y, counts, displs, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT,
         "MPI_Allgatherv", "is negative");
  counts[p - 1] = 1;
  EXPECT(MPI_Alltoallv(x, NULL, displs, MPI_INT, y, counts, displs, MPI_INT, MPI_COMM_WORLD),
         MPI_ERR_ARG, "MPI_Alltoallv", "null pointer");

  /* communicators: null, unknown, freed, predefined ones that cannot be freed */
  MPI_Comm dup, copy;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_get_errhandler(dup, &eh);
  CHECK(eh == MPI_ERRORS_RETURN, "a dup inherits the handler: %d", eh);
  EXPECT(MPI_Bcast(x, -3, MPI_INT, 0, dup), MPI_ERR_COUNT, "MPI_Bcast", "negative count -3");
  copy = dup;
  MPI_Comm_free(&dup);
  EXPECT(MPI_Barrier(copy), MPI_ERR_COMM, "MPI_Barrier", "was freed");
  EXPECT(MPI_Comm_free(&copy), MPI_ERR_COMM, "MPI_Comm_free", "was freed");
  EXPECT(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Barrier", "MPI_COMM_NULL");
  EXPECT(MPI_Comm_size(12345, &len), MPI_ERR_COMM, "MPI_Comm_size", "invalid communicator 12345");
  MPI_Comm world = MPI_COMM_WORLD;
  EXPECT(MPI_Comm_free(&world), MPI_ERR_COMM, "MPI_Comm_free", "cannot be freed");
  MPI_Comm split;
  EXPECT(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &split), MPI_ERR_ARG, "MPI_Comm_split", "color -5");
  EXPECT(MPI_Comm_split_type(MPI_COMM_WORLD, 77, 0, MPI_INFO_NULL, &split), MPI_ERR_ARG,
         "MPI_Comm_split_type", "split_type 77");
  EXPECT(MPI_Comm_rank(MPI_COMM_WORLD, NULL), MPI_ERR_ARG, "MPI_Comm_rank", "null pointer");
  int keyval_attr = 0;
  EXPECT(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &keyval_attr), MPI_ERR_KEYVAL,
         "MPI_Comm_set_attr", "predefined");
  EXPECT(MPI_Comm_get_attr(MPI_COMM_WORLD, 4242, &y, &len), MPI_ERR_KEYVAL, "MPI_Comm_get_attr",
         "invalid keyval 4242");

  /* groups (no communicator: MPI_COMM_SELF's handler) */
  MPI_Group g, h;
  MPI_Comm_group(MPI_COMM_WORLD, &g);
  int bad[1] = {p};
  EXPECT(MPI_Group_incl(g, 1, bad, &h), MPI_ERR_RANK, "MPI_Group_incl", "is not a rank");
  EXPECT(MPI_Group_incl(g, p + 1, bad, &h), MPI_ERR_ARG, "MPI_Group_incl", "for a group of");
  int twice[2] = {0, 0};
  if (p >= 2) EXPECT(MPI_Group_incl(g, 2, twice, &h), MPI_ERR_RANK, "MPI_Group_incl", "listed twice");
  int zero_stride[1][3] = {{0, 0, 0}};
  EXPECT(MPI_Group_range_incl(g, 1, zero_stride, &h), MPI_ERR_ARG, "MPI_Group_range_incl",
         "the stride is 0");
  MPI_Group kept = g;
  MPI_Group_free(&g);
  EXPECT(MPI_Group_size(kept, &len), MPI_ERR_GROUP, "MPI_Group_size", "was freed");
  EXPECT(MPI_Group_size(MPI_GROUP_NULL, &len), MPI_ERR_GROUP, "MPI_Group_size", "MPI_GROUP_NULL");
  EXPECT(MPI_Comm_create(MPI_COMM_WORLD, kept, &split), MPI_ERR_GROUP, "MPI_Comm_create", "was freed");

  /* errors of the error calls themselves */
  EXPECT(MPI_Error_class(1234567, &len), MPI_ERR_ARG, "MPI_Error_class", "invalid error code 1234567");
  EXPECT(MPI_Comm_set_errhandler(MPI_COMM_WORLD, 99), MPI_ERR_ARG, "MPI_Comm_set_errhandler",
         "invalid error handler 99");
  EXPECT(MPI_Add_error_string(MPI_ERR_COUNT, "mine"), MPI_ERR_ARG, "MPI_Add_error_string",
         "predefined");

  /* a program's handler, called with the communicator and the code */
  MPI_Errhandler mine;
  MPI_Comm_create_errhandler(handler, &mine);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Comm_set_errhandler(dup, mine);
  int rc = MPI_Bcast(x, -1, MPI_INT, 0, dup);
  CHECK(rc == MPI_ERR_COUNT && handled == 1 && handled_comm == dup && handled_code == MPI_ERR_COUNT,
        "handler: rc %d, called %d times with comm %d (dup %d) code %d", rc, handled, handled_comm,
        dup, handled_code);
  /* added classes, codes and strings, raised by the program */
  int cls, code;
  MPI_Add_error_class(&cls);
  MPI_Add_error_code(cls, &code);
  MPI_Add_error_string(code, "my own error");
  MPI_Error_class(code, &len);
  CHECK(len == cls, "the class of an added code: %d, expected %d", len, cls);
  MPI_Error_string(code, text, &len);
  CHECK(strcmp(text, "my own error") == 0, "an added code's string: '%s'", text);
  rc = MPI_Comm_call_errhandler(dup, code);
  CHECK(rc == MPI_SUCCESS && handled == 2 && handled_code == code,
        "call_errhandler: rc %d handled %d code %d", rc, handled, handled_code);
  rc = MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_OTHER);
  CHECK(rc == MPI_SUCCESS && handled == 2, "call_errhandler with MPI_ERRORS_RETURN: %d", rc);
  MPI_Errhandler_free(&mine);
  CHECK(mine == MPI_ERRHANDLER_NULL, "Errhandler_free");
  rc = MPI_Bcast(x, -1, MPI_INT, 0, dup); /* the comm keeps a freed handler */
  CHECK(handled == 3, "a freed handler stays with its communicators: %d", handled);
  MPI_Comm_free(&dup);

  MPI_Barrier(MPI_COMM_WORLD);
  int total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0) {
    if (total == 0) printf("errors: ok, %d ranks\n", p);
    else printf("errors: %d failures, %d ranks\n", total, p);
  }
  MPI_Finalize();
  return total != 0;
}
