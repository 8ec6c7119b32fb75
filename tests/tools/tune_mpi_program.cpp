// One collective on MPI_COMM_WORLD, for the test of `vmc tune --format ompi` under Open MPI:
// `tune_mpi_program OP N` calls OP (allreduce or bcast) once with N floats, so that Open MPI's
// message counters show which algorithm its rules chose (tune_test.cpp).
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: tune_mpi_program allreduce|bcast N\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const std::string op = argv[1];
  const int n = std::atoi(argv[2]);
  std::vector<float> in(n + 1, 1.0f), out(n + 1, 0.0f);
  if (op == "allreduce") {
    MPI_Allreduce(in.data(), out.data(), n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  } else if (op == "bcast") {
    MPI_Bcast(in.data(), n, MPI_FLOAT, 0, MPI_COMM_WORLD);
  } else {
    std::fprintf(stderr, "tune_mpi_program: unknown operation %s\n", op.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return 0;
}
