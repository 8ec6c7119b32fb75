/* Every function of vmc's MPI tables (mpi/include/vmc_mpi_functions.h, and the MPI-1 ones
 * MPI-3.0 removed, vmc_mpi_removed_functions.h) and its PMPI_ name, by address: the array
 * below is made from the tables by the preprocessor, so it holds every line of them. Built by vmcc with -Wl,--no-undefined and loaded by `vmc mpirun` (every symbol bound
 * at load time), it shows that libvmc_mpi defines them all.
 *
 *   every_function          prints how many addresses it holds, checks the conversions, the
 *                           predefined callbacks and a few PMPI_ forwards, returns 0
 *   every_function NAME     calls the unsupported function NAME (MPI_Win_create,
 *                           PMPI_File_open, MPI_T_init_thread, MPI_Type_match_size), which must
 *                           end the run */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

typedef void (*any_function)(void);

#define VMC_MPI_IMPLEMENTED(ret, name, params, args, comm) \
  (any_function)name, (any_function)P##name,
#define VMC_MPI_UNSUPPORTED VMC_MPI_IMPLEMENTED
static const any_function functions[] = {
#include <vmc_mpi_functions.h>
#include <vmc_mpi_removed_functions.h>
};
#undef VMC_MPI_IMPLEMENTED
#undef VMC_MPI_UNSUPPORTED

static const any_function callbacks[] = {
    (any_function)MPI_COMM_NULL_COPY_FN, (any_function)MPI_COMM_DUP_FN,
    (any_function)MPI_COMM_NULL_DELETE_FN, (any_function)MPI_TYPE_NULL_COPY_FN,
    (any_function)MPI_TYPE_DUP_FN, (any_function)MPI_TYPE_NULL_DELETE_FN,
    (any_function)MPI_WIN_NULL_COPY_FN, (any_function)MPI_WIN_DUP_FN,
    (any_function)MPI_WIN_NULL_DELETE_FN, (any_function)MPI_NULL_COPY_FN,
    (any_function)MPI_DUP_FN, (any_function)MPI_NULL_DELETE_FN};

static int failures;

static void check(int ok, const char* what) {
  if (!ok) {
    printf("FAILED: %s\n", what);
    ++failures;
  }
}

/* Handles, statuses and addresses convert and come back. */
static void check_conversions(void) {
  MPI_Status c, back;
  MPI_Fint f[MPI_F_STATUS_SIZE];
  MPI_F08_status f08;
  double buffer[4];
  const MPI_Aint base = (MPI_Aint)buffer;

  check(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) == MPI_COMM_WORLD, "MPI_Comm_c2f, _f2c");
  check(MPI_Type_f2c(MPI_Type_c2f(MPI_DOUBLE)) == MPI_DOUBLE, "MPI_Type_c2f, _f2c");
  check(MPI_Op_f2c(MPI_Op_c2f(MPI_MAXLOC)) == MPI_MAXLOC, "MPI_Op_c2f, _f2c");
  check(PMPI_Win_f2c(PMPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL, "PMPI_Win_c2f, _f2c");

  memset(&c, 0, sizeof c);
  c.MPI_SOURCE = 3;
  c.MPI_TAG = 17;
  c.MPI_ERROR = MPI_ERR_TRUNCATE;
  check(MPI_Status_c2f(&c, f) == MPI_SUCCESS, "MPI_Status_c2f returns MPI_SUCCESS");
  check(f[MPI_F_SOURCE] == 3 && f[MPI_F_TAG] == 17 && f[MPI_F_ERROR] == MPI_ERR_TRUNCATE,
        "MPI_Status_c2f puts source, tag and error at MPI_F_SOURCE, MPI_F_TAG, MPI_F_ERROR");
  check(MPI_Status_f2f08(f, &f08) == MPI_SUCCESS && f08.MPI_TAG == 17, "MPI_Status_f2f08");
  memset(&back, 0, sizeof back);
  check(MPI_Status_f082c(&f08, &back) == MPI_SUCCESS && back.MPI_SOURCE == 3 &&
            back.MPI_TAG == 17 && back.MPI_ERROR == MPI_ERR_TRUNCATE,
        "a status through Fortran and Fortran 2008 comes back");

  check(MPI_Aint_diff(MPI_Aint_add(base, 3 * (MPI_Aint)sizeof(double)), base) ==
            3 * (MPI_Aint)sizeof(double),
        "MPI_Aint_add, MPI_Aint_diff");
  check(MPI_Aint_add(base, 8) == (MPI_Aint)&buffer[1], "MPI_Aint_add is the address");
}

/* DUP copies the attribute's value, NULL_COPY does not copy, NULL_DELETE succeeds. */
static void check_callbacks(void) {
  int value = 5, flag = -1;
  void* copy = NULL;
  check(MPI_COMM_DUP_FN(MPI_COMM_WORLD, 1, NULL, &value, &copy, &flag) == MPI_SUCCESS &&
            flag == 1 && copy == &value,
        "MPI_COMM_DUP_FN copies the value");
  flag = -1;
  check(MPI_TYPE_NULL_COPY_FN(MPI_INT, 1, NULL, &value, &copy, &flag) == MPI_SUCCESS &&
            flag == 0,
        "MPI_TYPE_NULL_COPY_FN does not copy");
  check(MPI_WIN_NULL_DELETE_FN(MPI_WIN_NULL, 1, &value, NULL) == MPI_SUCCESS,
        "MPI_WIN_NULL_DELETE_FN");
}

/* A PMPI_ name reaches the same function. */
static void check_pmpi(void) {
  int rank = -1, prank = -2, size = -1, psize = -2;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_rank(MPI_COMM_WORLD, &prank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  PMPI_Comm_size(MPI_COMM_WORLD, &psize);
  check(rank == prank && size == psize, "PMPI_Comm_rank and PMPI_Comm_size");
  check(PMPI_Wtick() == MPI_Wtick(), "PMPI_Wtick");
}

/* Calls one unsupported function; it must not return. */
static int call(const char* name) {
  int rc = -1;
  if (strcmp(name, "MPI_Win_create") == 0) {
    static double memory[8];
    MPI_Win win;
    rc = MPI_Win_create(memory, (MPI_Aint)sizeof memory, (int)sizeof(double), MPI_INFO_NULL,
                        MPI_COMM_WORLD, &win);
  } else if (strcmp(name, "PMPI_File_open") == 0) {
    MPI_File file;
    rc = PMPI_File_open(MPI_COMM_WORLD, "data", MPI_MODE_RDONLY, MPI_INFO_NULL, &file);
  } else if (strcmp(name, "MPI_T_init_thread") == 0) {
    int provided;
    rc = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  } else if (strcmp(name, "MPI_Type_match_size") == 0) {
    MPI_Datatype type;
    rc = MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &type);
  } else {
    printf("every_function: no case for %s\n", name);
    return 2;
  }
  printf("every_function: %s returned %d\n", name, rc);
  return 3;
}

int main(int argc, char** argv) {
  const size_t n = sizeof functions / sizeof functions[0];
  size_t i, missing = 0;
  int rc = 0;
  MPI_Init(&argc, &argv);
  if (argc > 1) {
    rc = call(argv[1]);
  } else {
    for (i = 0; i < n; ++i) missing += functions[i] == NULL;
    for (i = 0; i < sizeof callbacks / sizeof callbacks[0]; ++i) missing += callbacks[i] == NULL;
    check(missing == 0, "every function has an address");
    check_conversions();
    check_callbacks();
    check_pmpi();
    printf("every_function: %zu functions by address (MPI_ and PMPI_), %zu callbacks\n", n,
           sizeof callbacks / sizeof callbacks[0]);
    if (failures == 0) printf("every_function: all checks passed\n");
    rc = failures == 0 ? 0 : 1;
  }
  MPI_Finalize();
  return rc;
}
