# cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DCXX=... -P install_test.cmake
# Installs vmc from BUILD_DIR into WORK_DIR/prefix, then builds and tests
# SOURCE_DIR/examples/my_allreduce against it, and the README example with pkg-config.
include(${CMAKE_CURRENT_LIST_DIR}/commands.cmake)  # run(), expect() and expect_installed()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
expect_installed(${prefix} include/vmc/collectives/collectives.hpp include/vmc/runtime/machine.hpp
                 include/vmc/collectives/testing.hpp)
file(GLOB_RECURSE private ${prefix}/include/vmc/*/detail.hpp)
if(private)
  message(FATAL_ERROR "private headers installed: ${private}")
endif()

# The user's project, from its own clean build tree.
set(example ${WORK_DIR}/my_allreduce)
run("configuring examples/my_allreduce" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/my_allreduce
    -B ${example} -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_CXX_COMPILER=${CXX})
run("building examples/my_allreduce" ${CMAKE_COMMAND} --build ${example} -j 2)
run("the example's tests" ${CMAKE_CTEST_COMMAND} --test-dir ${example} --output-on-failure)
message(STATUS "${last_output}")
# The broken variant's report, read here too: the smallest failing case and its replay line.
execute_process(COMMAND ${example}/my_allreduce_test --gtest_also_run_disabled_tests
                        --gtest_filter=MyAllreduceBroken.*
                RESULT_VARIABLE rc OUTPUT_VARIABLE report ERROR_VARIABLE report_err)
if(rc EQUAL 0)
  message(FATAL_ERROR "the broken allreduce passed the harness:\n${report}")
endif()
foreach(expected "Smallest failing case:\n  p=6 n=1 root=0 type=int64 op=sum"
                 "allreduce my_allreduce_broken: FAILED"
                 "vmc::harness::parse_case(\"p=6 n=1 "
                 "VMC_HARNESS_CASE='p=6 n=1 ")
  string(FIND "${report}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the broken allreduce's report lacks \"${expected}\":\n${report}")
  endif()
endforeach()
message(STATUS "the broken variant is caught:\n${report}")

# pkg-config: the README's example built with the flags of the installed vmc.pc.
find_program(PKG_CONFIG pkg-config REQUIRED)
file(GLOB pc_dirs ${prefix}/lib*/pkgconfig ${prefix}/lib/*/pkgconfig)
list(JOIN pc_dirs ":" pc_path)
set(ENV{PKG_CONFIG_PATH} "${pc_path}")
run("pkg-config" ${PKG_CONFIG} --cflags --libs vmc)
string(STRIP "${last_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run("compiling the README example with pkg-config's flags" ${CXX} -O1
    ${SOURCE_DIR}/examples/readme_example.cpp -o ${WORK_DIR}/readme_example ${flags})
run("the README example" ${CMAKE_COMMAND} -E chdir ${WORK_DIR} ${WORK_DIR}/readme_example)
message(STATUS "install test passed")
