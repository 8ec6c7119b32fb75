/* An MPI-1 program: it calls functions that MPI-3.0 removed, which must reach vmc's library
 * (vmc mpirun's process also holds another MPI library, whose functions have the same plain
 * names): error handlers set, got and made by their MPI-1 names; addresses, extents and bounds
 * of predefined datatypes, MPI_LB and MPI_UB among them; MPI_Type_struct with an MPI_UB marker
 * (a double whose upper bound the marker sets) and MPI_Type_extent of it. Each rank prints
 * "rank R: mpi1 ok" when everything held, else what did not, and returns 1. */
#include <mpi.h>
#include <stdio.h>

static int failures;
static int handled;

static void check(int ok, const char* what) {
  if (!ok) {
    printf("FAILED: %s\n", what);
    ++failures;
  }
}

static void count_errors(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  if (*code == MPI_ERR_COUNT) ++handled;
}

struct double_int {
  double d;
  int i;
};

int main(int argc, char** argv) {
  int rank = 0, rc;
  MPI_Errhandler mine, got;
  MPI_Aint a, b, extent, lb, ub;
  double x[2] = {0, 0};
  int lengths[2] = {1, 1};
  MPI_Aint displacements[2] = {0, (MPI_Aint)sizeof(double)};
  MPI_Datatype types[2] = {MPI_DOUBLE, MPI_UB}, made;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);

  /* Calls with no communicator raise their errors on MPI_COMM_SELF. */
  check(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS &&
            MPI_Errhandler_set(MPI_COMM_SELF, MPI_ERRORS_RETURN) == MPI_SUCCESS,
        "MPI_Errhandler_set");
  check(MPI_Errhandler_get(MPI_COMM_WORLD, &got) == MPI_SUCCESS && got == MPI_ERRORS_RETURN,
        "MPI_Errhandler_get gives what MPI_Errhandler_set set");
  check(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &got) == MPI_SUCCESS &&
            got == MPI_ERRORS_RETURN,
        "MPI_Comm_get_errhandler sees it too");
  rc = MPI_Send(x, -1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
  check(rc == MPI_ERR_COUNT, "an error returns under MPI_ERRORS_RETURN");
  check(MPI_Errhandler_create(count_errors, &mine) == MPI_SUCCESS, "MPI_Errhandler_create");
  check(PMPI_Errhandler_set(MPI_COMM_WORLD, mine) == MPI_SUCCESS, "PMPI_Errhandler_set");
  rc = MPI_Send(x, -1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
  check(rc == MPI_ERR_COUNT && handled == 1, "the program's handler is called");
  check(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS &&
            MPI_Errhandler_free(&mine) == MPI_SUCCESS,
        "MPI_Errhandler_free");

  check(MPI_Address(&x[1], &b) == MPI_SUCCESS && MPI_Address(&x[0], &a) == MPI_SUCCESS &&
            b - a == (MPI_Aint)sizeof(double),
        "MPI_Address");
  check(MPI_Get_address(&x[1], &a) == MPI_SUCCESS && a == b, "MPI_Get_address");
  check(MPI_Type_extent(MPI_DOUBLE, &extent) == MPI_SUCCESS &&
            extent == (MPI_Aint)sizeof(double),
        "MPI_Type_extent(MPI_DOUBLE)");
  check(MPI_Type_extent(MPI_DOUBLE_INT, &extent) == MPI_SUCCESS &&
            extent == (MPI_Aint)sizeof(struct double_int),
        "MPI_Type_extent(MPI_DOUBLE_INT) is the padded pair's");
  check(MPI_Type_lb(MPI_INT, &lb) == MPI_SUCCESS && lb == 0, "MPI_Type_lb(MPI_INT)");
  check(MPI_Type_ub(MPI_INT, &ub) == MPI_SUCCESS && ub == (MPI_Aint)sizeof(int),
        "MPI_Type_ub(MPI_INT)");
  check(MPI_Type_extent(MPI_UB, &extent) == MPI_SUCCESS && extent == 0 &&
            MPI_Type_ub(MPI_LB, &ub) == MPI_SUCCESS && ub == 0,
        "MPI_LB and MPI_UB span nothing");
  check(MPI_Type_extent(MPI_DATATYPE_NULL, &extent) == MPI_ERR_TYPE,
        "MPI_Type_extent(MPI_DATATYPE_NULL) is MPI_ERR_TYPE");
  displacements[1] = 2 * (MPI_Aint)sizeof(double);
  rc = MPI_Type_struct(2, lengths, displacements, types, &made);
  check(rc == MPI_SUCCESS, "MPI_Type_struct");
  if (rc == MPI_SUCCESS) {
    int size = 0;
    check(MPI_Type_extent(made, &extent) == MPI_SUCCESS &&
              extent == 2 * (MPI_Aint)sizeof(double) &&
              MPI_Type_size(made, &size) == MPI_SUCCESS && size == (int)sizeof(double),
          "MPI_Type_struct: the MPI_UB marker sets the extent, the double the size");
    check(MPI_Type_free(&made) == MPI_SUCCESS && made == MPI_DATATYPE_NULL, "MPI_Type_free");
  }

  if (failures == 0) printf("rank %d: mpi1 ok\n", rank);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
