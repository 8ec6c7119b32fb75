# cmake -DBUILD_DIR=... -DWORK_DIR=... -P install_load_test.cmake
# A user's library of algorithms against the installed package: installs vmc from BUILD_DIR
# into a prefix, builds the example project installed under share/vmc/examples/my_algorithms
# (vmc_add_algorithm_library, two algorithms) as it is, and runs its algorithms with the
# installed vmc: run (checked against the sequential reference), explain, sweep and show with
# --load, list (the rows marked loaded, with their file), and vmc mpirun --coll on an MPI
# program built with the installed vmcc, whose allgather and allreduce then take the library's
# algorithms: the same virtual time and messages as the built-in ring's, and refused without
# --load.
include(${CMAKE_CURRENT_LIST_DIR}/commands.cmake)  # run() and expect()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/installed)
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(example ${prefix}/share/vmc/examples/my_algorithms)
if(NOT EXISTS ${example}/CMakeLists.txt)
  message(FATAL_ERROR "the example library is not installed under share/vmc/examples")
endif()
run("configuring the example library" ${CMAKE_COMMAND} -S ${example} -B ${WORK_DIR}/build
    -DCMAKE_PREFIX_PATH=${prefix})
run("building it" ${CMAKE_COMMAND} --build ${WORK_DIR}/build)
set(library ${WORK_DIR}/build/my_algorithms.so)
set(vmc ${prefix}/bin/vmc)

run("vmc run --load (allgather)" ${vmc} run --load ${library} --topology ring:5 --op allgather
    --algorithm my_ring --n 3 --check)
expect("vmc run --load (allgather)" "allgather my_ring on ring:5 (p = 5), n = 3")
expect("vmc run --load (allgather)" "check      correct")
run("vmc run --load (allreduce)" ${vmc} run --load ${library} --topology mesh:2x3
    --op allreduce --algorithm my_ring_combine --n 7 --type int64 --reduction matmul --check)
expect("vmc run --load (allreduce)" "allreduce my_ring_combine on mesh:2x3")
expect("vmc run --load (allreduce)" "check      correct")
run("vmc explain --load" ${vmc} explain --load ${library} --topology ring:6 --op allgather
    --n 16)
expect("vmc explain --load" "   my_ring ")
run("vmc sweep --load" ${vmc} sweep --load ${library} --topology ring:4 --op allreduce
    --algorithms my_ring_combine --n 1,64)
expect("vmc sweep --load" "my_ring_combine,64,")
run("vmc show --load" ${vmc} show --load ${library} --topology ring:4 --op allgather
    --algorithm my_ring --n 4 -o ${WORK_DIR}/show.html)
file(READ ${WORK_DIR}/show.html page)
string(FIND "${page}" "my_ring" at)
if(at EQUAL -1)
  message(FATAL_ERROR "vmc show --load: the page does not name my_ring")
endif()
run("vmc list --load" ${vmc} list --load ${library})
expect("vmc list --load" "  my_ring\n")
expect("vmc list --load" "loaded from ${library}\n")

# vmc mpirun --coll: an MPI program's allgather and allreduce on the library's algorithms.
set(program ${WORK_DIR}/collectives)
file(WRITE ${program}.c [=[
#include <mpi.h>
#include <stdio.h>
#include <string.h>

/* argv[1]: allgather or allreduce, on 4 ints per rank; prints whether the results are right. */
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, wrong = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int mine[4], all[4 * 64];
  for (int i = 0; i < 4; ++i) mine[i] = 100 * rank + i;
  if (strcmp(argv[1], "allgather") == 0) {
    MPI_Allgather(mine, 4, MPI_INT, all, 4, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r) {
      for (int i = 0; i < 4; ++i) wrong += all[4 * r + i] != 100 * r + i;
    }
  } else {
    MPI_Allreduce(mine, all, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < 4; ++i) wrong += all[i] != 100 * size * (size - 1) / 2 + size * i;
  }
  int any = 0;
  MPI_Reduce(&wrong, &any, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0) printf("%s %s\n", argv[1], any == 0 ? "right" : "WRONG");
  MPI_Finalize();
  return 0;
}
]=])
run("vmcc" ${prefix}/bin/vmcc ${program}.c -o ${program})
set(machine --topology ring:5 --port duplex --stats)
run("mpirun --coll allgather=my_ring" ${vmc} mpirun --load ${library} -np 5 ${machine}
    --coll allgather=my_ring ${program} allgather)
expect("mpirun --coll allgather=my_ring" "allgather right")
set(mine "${last_output}")
run("mpirun --coll allgather=ring" ${vmc} mpirun -np 5 ${machine} --coll allgather=ring
    ${program} allgather)
# The same schedule as the built-in ring: the same virtual time and messages.
foreach(line time messages)
  string(REGEX MATCH "\n${line} +[^\n]*" in_mine "\n${mine}")
  string(REGEX MATCH "\n${line} +[^\n]*" in_ring "\n${last_output}")
  if(NOT in_mine OR NOT in_mine STREQUAL in_ring)
    message(FATAL_ERROR "mpirun --coll allgather=my_ring: \"${line}\" differs from the ring's:"
                        "\n${mine}\n---\n${last_output}")
  endif()
endforeach()
run("mpirun --coll allreduce=my_ring_combine" ${CMAKE_COMMAND} -E env VMC_LOAD=${library}
    ${vmc} mpirun -np 5 ${machine} --coll allreduce=my_ring_combine ${program} allreduce)
expect("mpirun --coll allreduce=my_ring_combine" "allreduce right")
execute_process(COMMAND ${vmc} mpirun -np 2 --coll allgather=my_ring ${program} allgather
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(FIND "${err}" "has no algorithm \"my_ring\"" at)
if(rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "mpirun --coll allgather=my_ring without --load: expected a refusal, "
                      "got ${rc}:\n${out}${err}")
endif()
message(STATUS "install test of a library of algorithms passed")
