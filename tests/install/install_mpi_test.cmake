# cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -P install_mpi_test.cmake
# The MPI front door as a user gets it: installs vmc from BUILD_DIR into a prefix, moves the
# prefix (an installed tree must not depend on where it was installed), and from there builds
# MPI programs with the installed vmcc and vmcxx and through find_package(vmc COMPONENTS mpi)
# (a C-only CMake project), and runs them with the installed vmc mpirun. No include/mpi.h may
# be installed, where it would shadow another MPI's.
include(${CMAKE_CURRENT_LIST_DIR}/commands.cmake)  # run(), expect() and expect_installed()

file(REMOVE_RECURSE ${WORK_DIR})
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/installed)
set(prefix ${WORK_DIR}/moved)
file(RENAME ${WORK_DIR}/installed ${prefix})
expect_installed(${prefix} bin/vmc bin/vmcc bin/vmcxx include/vmc/mpi/mpi.h)
foreach(library libvmc_mpi.so libvmc_mpi_per_rank.a)
  file(GLOB_RECURSE libraries ${prefix}/lib*/${library})
  if(NOT libraries)
    message(FATAL_ERROR "${library} not installed")
  endif()
endforeach()
if(EXISTS ${prefix}/include/mpi.h)
  message(FATAL_ERROR "include/mpi.h installed: it would shadow another MPI's")
endif()

# The wrappers: everything from the prefix they are in, nothing from the build.
run("vmcc -show" ${prefix}/bin/vmcc -show ring.c -o ring)
expect("vmcc -show" "${prefix}/bin/../include/vmc/mpi")
expect("vmcc -show" "-Wl,--wrap=printf")
foreach(elsewhere ${BUILD_DIR}/mpi ${SOURCE_DIR}/mpi/include)
  string(FIND "${last_output}" "${elsewhere}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "the installed vmcc points at ${elsewhere}:\n${last_output}")
  endif()
endforeach()
run("vmcc ring.c" ${prefix}/bin/vmcc ${SOURCE_DIR}/examples/mpi/ring.c -o ${WORK_DIR}/ring)
run("vmc mpirun ring" ${prefix}/bin/vmc mpirun -np 4 ${WORK_DIR}/ring)
expect("vmc mpirun ring" "token 10 (expected 10)")
# getopt per rank: the installed vmcc links the installed libvmc_mpi_per_rank.a.
run("vmcc getopt_ranks.c" ${prefix}/bin/vmcc ${SOURCE_DIR}/tests/mpi_front/jobs/getopt_ranks.c
    -o ${WORK_DIR}/getopt_ranks)
run("vmc mpirun getopt_ranks" ${prefix}/bin/vmc mpirun -np 2 ${WORK_DIR}/getopt_ranks -n 7 -v)
expect("vmc mpirun getopt_ranks" "rank 1 scan 2: n=7 v=1 long=- optind=4 rest=\n")
run("vmcxx lines_cxx.cpp" ${prefix}/bin/vmcxx ${SOURCE_DIR}/tests/mpi_front/jobs/lines_cxx.cpp
    -o ${WORK_DIR}/lines_cxx)
run("vmc mpirun lines_cxx" ${prefix}/bin/vmc mpirun -np 2 --tag-output ${WORK_DIR}/lines_cxx)
expect("vmc mpirun lines_cxx" "[1,1]<stdout>:rank 1 cout 49\n")

# A user's CMake project in C: find_package(vmc COMPONENTS mpi), vmc_add_mpi_program.
set(project ${WORK_DIR}/project)
file(WRITE ${project}/CMakeLists.txt "cmake_minimum_required(VERSION 3.25)
project(ring_user C)
find_package(vmc 0.1 REQUIRED COMPONENTS mpi)
vmc_add_mpi_program(ring ${SOURCE_DIR}/examples/mpi/ring.c)
")
run("configuring a project with find_package(vmc COMPONENTS mpi)" ${CMAKE_COMMAND}
    -S ${project} -B ${project}/build -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release)
run("building it" ${CMAKE_COMMAND} --build ${project}/build)
run("vmc mpirun on its program" ${prefix}/bin/vmc mpirun -np 3 --topology ring:3
    ${project}/build/ring)
expect("vmc mpirun on its program" "token 6 (expected 6)")
message(STATUS "install test of the MPI front door passed")
