# vmc_add_algorithm_library(NAME SOURCES...): a library of algorithms that every vmc command
# loads with --load NAME.so (collectives/algorithm_library.hpp; docs/library.md). It is a
# shared module named NAME.so in the build directory, compiled as C++20 with vmc's headers. It
# links none of vmc's libraries: its algorithms call the vmc program's own runtime, which the
# program exports when it loads the library. Its symbols are hidden but for the entry point
# that VMC_ALGORITHM_LIBRARY defines, so two libraries never bind to each other's functions.
function(vmc_add_algorithm_library name)
  if(NOT ARGN)
    message(FATAL_ERROR "vmc_add_algorithm_library(${name}): name its source files")
  endif()
  add_library(${name} MODULE ${ARGN})
  if(TARGET vmc::collectives)
    set(headers vmc::collectives)  # an installed vmc
  else()
    set(headers vmc_collectives)   # vmc's own build tree
  endif()
  target_include_directories(${name} PRIVATE
                             $<TARGET_PROPERTY:${headers},INTERFACE_INCLUDE_DIRECTORIES>)
  if(TARGET TBB::tbb)  # a header or two of vmc's include TBB's
    target_include_directories(${name} SYSTEM PRIVATE
                               $<TARGET_PROPERTY:TBB::tbb,INTERFACE_INCLUDE_DIRECTORIES>)
  endif()
  target_compile_features(${name} PRIVATE cxx_std_20)
  set_target_properties(${name} PROPERTIES PREFIX "" CXX_VISIBILITY_PRESET hidden
                                           VISIBILITY_INLINES_HIDDEN ON)
endfunction()
