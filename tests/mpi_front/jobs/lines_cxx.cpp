// A C++ program (built by vmcxx at test time): every rank writes lines to std::cout in
// several pieces, and with printf and std::cerr, so that ranks running at once would mix
// within a line if their lines were not kept whole.
#include <mpi.h>

#include <cstdio>
#include <iostream>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < 50; ++i) {
    std::cout << "rank " << rank << " cout " << i << std::endl;
    std::printf("rank %d printf %d\n", rank, i);
    std::cerr << "rank " << rank << " cerr " << i << "\n";
    if (i % 10 == 0) MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
