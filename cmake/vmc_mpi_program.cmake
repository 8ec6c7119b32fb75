# How an MPI program is built for `vmc mpirun`: one definition read by vmc's build (mpi/,
# tools/vmcc.in) and installed with vmc's CMake package (vmcConfig.cmake includes it).
#
# An MPI program is a shared object that vmc mpirun loads once per rank (mpi/program.hpp):
# position-independent, `main` exported, linked with -Wl,-Bsymbolic (its own symbols bind to
# its own copy) and with -Wl,--wrap= for the libc calls that act on the whole process, so
# that they act on the calling rank instead (libvmc_mpi: mpi/stdio.cpp for the C stdio writes,
# mpi/exit.cpp for exit, abort and a failed assert, mpi/shared_malloc.cpp for malloc, calloc,
# realloc and free (libc's unless vmc mpirun --shared-malloc); libvmc_mpi_per_rank.a, linked into the
# program itself, for getopt and its variables (mpi/per_rank.c), strtok and the random number
# generators (mpi/per_rank_libc.c)). And with -Wl,--no-undefined:
# a symbol that neither the program nor the libraries it links define is an error when it is
# linked, naming the symbol, not a failure to load it or, worse, a call that binds by its name
# to whatever library of vmc's process defines it (an MPI library's MPI_ function). And with
# -z norelro and -z noseparate-code: a program of two loadable segments (code and read-only
# data in one, writable data in the other) instead of four, and no read-only-after-relocation
# part, so that loading a rank's copy maps two segments and protects none afterwards. vmc
# mpirun loads the program once per rank, and every mapping made, protected or unmapped costs
# the kernel a flush of the process's TLB (a call to the hypervisor on a virtual machine):
# `vmc mpirun -np 1024` of a program that only calls MPI_Init and MPI_Finalize spent 0.37-0.41
# s of system time with the four segments and RELRO, 0.17-0.20 s without (docs/mpi.md,
# "Privatization"). RELRO guards a process's GOT against an attacker's writes; the copies are
# a simulation's, in vmc's process.
#
#   find_package(vmc REQUIRED COMPONENTS mpi)
#   vmc_add_mpi_program(ring ring.c)       # -> ./ring, for vmc mpirun -np 8 ./ring

set(VMC_MPI_WRAPPED_CALLS
    printf vprintf fprintf vfprintf __printf_chk __vprintf_chk __fprintf_chk __vfprintf_chk
    puts fputs fputs_unlocked fputc fputc_unlocked putc putc_unlocked putchar putchar_unlocked
    fwrite fwrite_unlocked perror
    exit _exit _Exit abort __assert_fail
    getopt getopt_long getopt_long_only __posix_getopt
    strtok rand srand random srandom drand48 erand48 lrand48 nrand48 mrand48 jrand48 srand48
    seed48 lcong48
    malloc calloc realloc free)
set(VMC_MPI_PROGRAM_LINK_OPTIONS -Wl,-Bsymbolic -Wl,--no-undefined -Wl,-z,norelro
    -Wl,-z,noseparate-code)
foreach(call IN LISTS VMC_MPI_WRAPPED_CALLS)
  list(APPEND VMC_MPI_PROGRAM_LINK_OPTIONS -Wl,--wrap=${call})
endforeach()
# C frames must unwind: a rank's exit() ends it by an exception through them.
set(VMC_MPI_PROGRAM_C_OPTIONS -fexceptions)
# Both languages: a frame larger than a page (a large local array) touches its pages in order,
# so that a rank overflowing its stack meets the guard page below it and is named by the
# crash report, instead of writing over another rank's stack (the fibers engine's stacks lie
# side by side) and crashing that one later, or not at all.
set(VMC_MPI_PROGRAM_OPTIONS -fstack-clash-protection)

# vmc_add_mpi_program(NAME SOURCES...): the program NAME (a MODULE library named exactly NAME,
# no lib prefix or .so suffix, as vmcc -o NAME makes it) built against vmc::mpi.
function(vmc_add_mpi_program name)
  if(NOT ARGN)
    message(FATAL_ERROR "vmc_add_mpi_program(${name}): give the program's sources")
  endif()
  add_library(${name} MODULE ${ARGN})
  target_link_libraries(${name} PRIVATE vmc::mpi)
  set_target_properties(${name} PROPERTIES PREFIX "" SUFFIX "")
endfunction()
