# Installing vmc: `cmake --install build --prefix PREFIX` puts the libraries, the vmc program,
# the headers under PREFIX/include/vmc/ (keeping their paths: "collectives/collectives.hpp",
# "runtime/machine.hpp"), a CMake package and a pkg-config file in place, so that a program
# builds against it with
#   find_package(vmc REQUIRED)                      # or COMPONENTS testing for the harness
#   target_link_libraries(app PRIVATE vmc::vmc)     # vmc::testing: collectives/testing.hpp
# or `pkg-config --cflags --libs vmc`. In this build tree the same targets exist as
# vmc::vmc and vmc::testing, with the source root as their include path.
#
# The MPI front door: PREFIX/bin/vmcc and vmcxx (they find the headers and the libraries
# relative to themselves), libvmc_mpi and libvmc_mpi_per_rank.a, the MPI headers under PREFIX/include/vmc/mpi/ (never a
# bare include/mpi.h that would shadow another MPI's), and for CMake
#   find_package(vmc REQUIRED COMPONENTS mpi)
#   vmc_add_mpi_program(ring ring.c)                # or target_link_libraries(... vmc::mpi)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(VMC_INSTALL_INCLUDEDIR ${CMAKE_INSTALL_INCLUDEDIR}/vmc)
set(VMC_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/vmc)

# vmc::vmc: everything a program needs to run collectives on a Machine.
add_library(vmc_library INTERFACE)
target_link_libraries(vmc_library INTERFACE vmc_collectives vmc_runtime vmc_topology)
add_library(vmc::vmc ALIAS vmc_library)
set(VMC_EXPORTED vmc_library vmc_collectives vmc_runtime vmc_topology)
set_target_properties(vmc_library PROPERTIES EXPORT_NAME vmc)
set_target_properties(vmc_collectives PROPERTIES EXPORT_NAME collectives)
set_target_properties(vmc_runtime PROPERTIES EXPORT_NAME runtime)
set_target_properties(vmc_topology PROPERTIES EXPORT_NAME topology)
if(TARGET vmc_testing)
  set_target_properties(vmc_testing PROPERTIES EXPORT_NAME testing)
  add_library(vmc::testing ALIAS vmc_testing)
endif()

# Include paths: the source root here, PREFIX/include/vmc once installed; C++20 for users.
# (The libraries' own private include paths, such as concurrentqueue's, stay private: no
# installed header includes them.)
foreach(lib ${VMC_EXPORTED} vmc_testing)
  if(TARGET ${lib})
    set_property(TARGET ${lib} PROPERTY INTERFACE_INCLUDE_DIRECTORIES
                 $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                 $<INSTALL_INTERFACE:${VMC_INSTALL_INCLUDEDIR}>)
    set_property(TARGET ${lib} APPEND PROPERTY INTERFACE_COMPILE_FEATURES cxx_std_20)
  endif()
endforeach()

# A sanitizer build's libraries need the sanitizer's runtime in every program that links them.
if(VMC_SANITIZE)
  set_property(TARGET vmc_topology APPEND PROPERTY INTERFACE_LINK_OPTIONS
               -fsanitize=${VMC_SANITIZE})
endif()

install(TARGETS ${VMC_EXPORTED} EXPORT vmcTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT vmcTargets NAMESPACE vmc:: DESTINATION ${VMC_INSTALL_CMAKEDIR})
if(TARGET vmc_testing)
  install(TARGETS vmc_testing EXPORT vmcTestingTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(EXPORT vmcTestingTargets NAMESPACE vmc:: DESTINATION ${VMC_INSTALL_CMAKEDIR})
endif()
install(TARGETS vmc RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})

# The MPI front door. The installed vmc finds libvmc_mpi beside the other libraries.
file(RELATIVE_PATH vmc_bin_to_lib /${CMAKE_INSTALL_BINDIR} /${CMAKE_INSTALL_LIBDIR})
set_target_properties(vmc PROPERTIES INSTALL_RPATH "$ORIGIN/${vmc_bin_to_lib}")
set_target_properties(vmc_mpi PROPERTIES EXPORT_NAME mpi_library)
set_target_properties(vmc_mpi_per_rank PROPERTIES EXPORT_NAME mpi_per_rank)
set_target_properties(vmc_mpi_interface PROPERTIES EXPORT_NAME mpi)
set_property(TARGET vmc_mpi_interface APPEND PROPERTY INTERFACE_INCLUDE_DIRECTORIES
             $<INSTALL_INTERFACE:${VMC_INSTALL_INCLUDEDIR}/mpi>)
install(TARGETS vmc_mpi vmc_mpi_per_rank vmc_mpi_interface EXPORT vmcMpiTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT vmcMpiTargets NAMESPACE vmc:: DESTINATION ${VMC_INSTALL_CMAKEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/mpi/include/ DESTINATION ${VMC_INSTALL_INCLUDEDIR}/mpi
        FILES_MATCHING PATTERN "*.h")
install(PROGRAMS ${PROJECT_BINARY_DIR}/installed/vmcc ${PROJECT_BINARY_DIR}/installed/vmcxx
        DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PROJECT_SOURCE_DIR}/cmake/vmc_mpi_program.cmake
        DESTINATION ${VMC_INSTALL_CMAKEDIR})
# Libraries of algorithms for --load: the CMake helper, and an example project that builds as
# it is (share/vmc/examples/my_algorithms; docs/library.md).
install(FILES ${PROJECT_SOURCE_DIR}/cmake/vmc_algorithm_library.cmake
        DESTINATION ${VMC_INSTALL_CMAKEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples/my_algorithms
        DESTINATION ${CMAKE_INSTALL_DATADIR}/vmc/examples)

# Every header of topology and collectives, but topology's private detail.hpp; runtime's public
# headers (the others are its internals: node state, the transports; docs/architecture.md).
foreach(dir topology collectives)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir} DESTINATION ${VMC_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.hpp" PATTERN "detail.hpp" EXCLUDE)
endforeach()
set(runtime_public comm errors failures link_rates machine model mpi ports scratch trace)
list(TRANSFORM runtime_public PREPEND ${PROJECT_SOURCE_DIR}/runtime/)
list(TRANSFORM runtime_public APPEND .hpp)
install(FILES ${runtime_public} DESTINATION ${VMC_INSTALL_INCLUDEDIR}/runtime)

# What the installed libraries link that a user must find: the link libraries of each
# exported target that are imported targets of a package (a static library brings its
# private dependencies along).
set(VMC_FIND_DEPENDENCIES "")
set(VMC_PC_LIBS "")
foreach(lib vmc_collectives vmc_runtime vmc_topology)
  get_target_property(deps ${lib} LINK_LIBRARIES)
  foreach(dep IN LISTS deps)
    if(dep MATCHES "^Boost::(.*)$")
      set(component ${CMAKE_MATCH_1})
      if(NOT VMC_FIND_DEPENDENCIES MATCHES "Boost")
        string(APPEND VMC_FIND_DEPENDENCIES "find_dependency(Boost COMPONENTS ${component})\n")
        string(APPEND VMC_PC_LIBS " -lboost_${component}")
      endif()
    elseif(dep STREQUAL "MPI::MPI_CXX")
      # The MPI transport (runtime/mpi_transport.cpp): MPI's C interface, as vmc was built.
      string(APPEND VMC_FIND_DEPENDENCIES
             "set(MPI_CXX_SKIP_MPICXX ON)\nfind_dependency(MPI COMPONENTS CXX)\n")
      foreach(mpi_lib IN LISTS MPI_CXX_LIBRARIES)
        string(APPEND VMC_PC_LIBS " ${mpi_lib}")
      endforeach()
    elseif(dep MATCHES "^TBB::(.*)$")
      string(APPEND VMC_PC_LIBS " -l${CMAKE_MATCH_1}")
      if(NOT VMC_FIND_DEPENDENCIES MATCHES "TBB")
        string(APPEND VMC_FIND_DEPENDENCIES "find_dependency(TBB)\n")
      endif()
    endif()
  endforeach()
endforeach()

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/vmcConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cmake/vmcConfig.cmake
                              INSTALL_DESTINATION ${VMC_INSTALL_CMAKEDIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cmake/vmcConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cmake/vmcConfig.cmake
              ${PROJECT_BINARY_DIR}/cmake/vmcConfigVersion.cmake
        DESTINATION ${VMC_INSTALL_CMAKEDIR})

# pkg-config: relocatable (paths relative to the .pc file), the libraries in link order.
if(VMC_SANITIZE)
  string(APPEND VMC_PC_LIBS " -fsanitize=${VMC_SANITIZE}")
endif()
file(RELATIVE_PATH VMC_PC_PREFIX /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
configure_file(${PROJECT_SOURCE_DIR}/cmake/vmc.pc.in ${PROJECT_BINARY_DIR}/cmake/vmc.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cmake/vmc.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
