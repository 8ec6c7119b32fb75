/* The MPI layer's environment: MPI_Init_thread's level, MPI_Query_thread, MPI_Is_thread_main,
 * MPI_Initialized and MPI_Finalized around the session, the versions, the processor name,
 * the clock (virtual time, one for every rank) and the predefined attributes. Exit status 0
 * and "environment: ok" from rank 0 when every check held on every rank.
 *
 *   vmcc environment.c -o environment && vmc mpirun -np 4 ./environment */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int errors = 0;
static int me = 0;

#define CHECK(cond, ...)                                          \
  do {                                                            \
    if (!(cond)) {                                                \
      fprintf(stderr, "rank %d, line %d: ", me, __LINE__);        \
      fprintf(stderr, __VA_ARGS__);                               \
      fprintf(stderr, "\n");                                      \
      ++errors;                                                   \
    }                                                             \
  } while (0)

static int attr(MPI_Comm comm, int key, int* flag) {
  int* v = NULL;
  MPI_Comm_get_attr(comm, key, &v, flag);
  return *flag ? *v : -12345;
}

int main(int argc, char** argv) {
  int flag = -1, provided = -1, p;
  MPI_Initialized(&flag);
  CHECK(flag == 0, "initialized before MPI_Init_thread: %d", flag);
  MPI_Finalized(&flag);
  CHECK(flag == 0, "finalized before MPI_Init_thread: %d", flag);
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  CHECK(provided == MPI_THREAD_FUNNELED, "provided %d, expected MPI_THREAD_FUNNELED", provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Initialized(&flag);
  CHECK(flag == 1, "initialized: %d", flag);
  MPI_Query_thread(&provided);
  CHECK(provided == MPI_THREAD_FUNNELED, "Query_thread: %d", provided);
  MPI_Is_thread_main(&flag);
  CHECK(flag == 1, "Is_thread_main: %d", flag);

  int version = 0, subversion = -1, len = 0;
  MPI_Get_version(&version, &subversion);
  CHECK(version == 4 && subversion == 1, "version %d.%d", version, subversion);
  CHECK(MPI_VERSION == 4 && MPI_SUBVERSION == 1, "mpi.h's version");
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  MPI_Get_library_version(text, &len);
  CHECK(strncmp(text, "vmc ", 4) == 0 && (int)strlen(text) == len, "library version '%s'", text);
  char name[MPI_MAX_PROCESSOR_NAME];
  char expect[MPI_MAX_PROCESSOR_NAME];
  MPI_Get_processor_name(name, &len);
  snprintf(expect, sizeof expect, "vmc-node-%d", me);
  CHECK(strcmp(name, expect) == 0 && len == (int)strlen(expect), "processor name '%s'", name);

  /* the clock: virtual time from 0, advanced by messages only, one clock for all */
  double t0 = MPI_Wtime();
  CHECK(t0 == 0.0, "Wtime at the start: %g", t0);
  CHECK(MPI_Wtick() == 1e-12, "Wtick %g", MPI_Wtick());
  MPI_Barrier(MPI_COMM_WORLD);
  double t1 = MPI_Wtime();
  CHECK(p == 1 ? t1 == 0.0 : t1 > 0.0, "Wtime after a barrier: %g", t1);
  double latest = 0;
  MPI_Allreduce(&t1, &latest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  CHECK(MPI_Wtime() >= latest, "a rank's time after an allreduce is before another's before it");

  /* the predefined attributes, on MPI_COMM_WORLD and on any communicator */
  CHECK(attr(MPI_COMM_WORLD, MPI_TAG_UB, &flag) == 2147483647 && flag, "MPI_TAG_UB");
  CHECK(attr(MPI_COMM_WORLD, MPI_HOST, &flag) == MPI_PROC_NULL && flag, "MPI_HOST");
  CHECK(attr(MPI_COMM_WORLD, MPI_IO, &flag) == MPI_ANY_SOURCE && flag, "MPI_IO");
  CHECK(attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &flag) == 1 && flag, "MPI_WTIME_IS_GLOBAL");
  CHECK(attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, &flag) == p && flag, "MPI_UNIVERSE_SIZE");
  CHECK(attr(MPI_COMM_WORLD, MPI_APPNUM, &flag) == 0 && flag, "MPI_APPNUM");
  CHECK(attr(MPI_COMM_SELF, MPI_TAG_UB, &flag) == 2147483647 && flag, "MPI_TAG_UB on self");
  CHECK(attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &flag) == MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE");
  int cls, code;
  MPI_Add_error_class(&cls);
  MPI_Add_error_code(cls, &code);
  CHECK(cls > MPI_ERR_LASTCODE && code > cls, "added class %d code %d", cls, code);
  CHECK(attr(MPI_COMM_WORLD, MPI_LASTUSEDCODE, &flag) == code, "MPI_LASTUSEDCODE after adding");
  int tag_ub = attr(MPI_COMM_WORLD, MPI_TAG_UB, &flag);
  int* old_tag_ub = NULL;
  MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &old_tag_ub, &flag); /* the deprecated name */
  CHECK(flag == 1 && *old_tag_ub == tag_ub, "Attr_get of MPI_TAG_UB");

  int total = 0;
  MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  MPI_Finalized(&flag);
  CHECK(flag == 1, "finalized after MPI_Finalize: %d", flag);
  MPI_Initialized(&flag);
  CHECK(flag == 1, "initialized after MPI_Finalize: %d", flag);
  total += errors;
  if (me == 0) {
    if (total == 0) printf("environment: ok, %d ranks, tag_ub %d\n", p, tag_ub);
    else printf("environment: %d failures, %d ranks\n", total, p);
  }
  return total != 0;
}
