# A build that asked for MPI (VMC_WITH_MPI, on by default) must have found it and built its
# tests: otherwise the tests of the MPI transport and the spread machine would vanish from the
# suite without a word. Run by CTest as
#   cmake -DWITH=<VMC_WITH_MPI> -DHAVE=<VMC_HAVE_MPI> -DCTEST=<ctest> -DBUILD=<build dir> -P mpi_built.cmake
if(NOT WITH)
  message(STATUS "MPI was not asked for (VMC_WITH_MPI=OFF): nothing to check")
  return()
endif()
if(NOT HAVE)
  message(FATAL_ERROR
    "MPI was asked for (VMC_WITH_MPI=ON) but CMake did not find it, so the mpi tests were not "
    "built: install libopenmpi-dev and openmpi-bin (tools/setup.sh does), or configure with "
    "-DVMC_WITH_MPI=OFF to build without MPI on purpose")
endif()
execute_process(COMMAND ${CTEST} --test-dir ${BUILD} -N -L mpi
                OUTPUT_VARIABLE listed RESULT_VARIABLE status)
string(REGEX MATCH "Total Tests: ([0-9]+)" total "${listed}")
if(NOT status EQUAL 0 OR NOT CMAKE_MATCH_1 OR CMAKE_MATCH_1 LESS 10)
  message(FATAL_ERROR "MPI was found, but the suite lists ${CMAKE_MATCH_1} tests labelled mpi "
                      "(at least 10 expected: tests/mpi/CMakeLists.txt):\n${listed}")
endif()
message(STATUS "MPI found and ${CMAKE_MATCH_1} mpi tests built")
