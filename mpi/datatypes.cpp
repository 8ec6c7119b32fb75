// What a program may ask of a datatype, on the predefined ones (mpi/datatypes.hpp; derived
// datatypes are not supported yet): its size, and addresses. A predefined datatype's lower
// bound is 0 and its upper bound its extent. MPI_LB and MPI_UB, MPI-1's markers, have no data
// and span nothing. Errors go to MPI_COMM_SELF's handler (these calls have no communicator).
#include <cstdint>
#include <string>

#include "mpi/datatypes.hpp"
#include "mpi/include/mpi.h"
#include "mpi/state.hpp"

using namespace vmc;
using namespace vmc::mpi;

namespace {

// The datatype's row and the output argument, checked.
const PredefinedType& query(const char* fn, MPI_Datatype datatype, const void* out,
                            const char* what) {
  const PredefinedType& t = predefined_or_fail(fn, datatype);
  check_arg(fn, out, what);
  return t;
}

int get_address(const char* fn, const void* location, MPI_Aint* address) {
  return mpi_call(MPI_COMM_SELF, [&] {
    check_arg(fn, address, "address");
    *address = static_cast<MPI_Aint>(reinterpret_cast<std::uintptr_t>(location));
    return MPI_SUCCESS;
  });
}

}  // namespace

extern "C" {

int MPI_Type_size(MPI_Datatype datatype, int* size) {
  return mpi_call(MPI_COMM_SELF, [&] {
    *size = static_cast<int>(query("MPI_Type_size", datatype, size, "size").size);
    return MPI_SUCCESS;
  });
}

int MPI_Get_address(const void* location, MPI_Aint* address) {
  return get_address("MPI_Get_address", location, address);
}

// --- MPI-1's, removed in MPI-3.0 (include/vmc_mpi_removed_functions.h) -------------------

int MPI_Address(const void* location, MPI_Aint* address) {
  return get_address("MPI_Address", location, address);
}

int MPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  return mpi_call(MPI_COMM_SELF, [&] {
    *extent = static_cast<MPI_Aint>(query("MPI_Type_extent", datatype, extent, "extent").extent);
    return MPI_SUCCESS;
  });
}

int MPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
  return mpi_call(MPI_COMM_SELF, [&] {
    query("MPI_Type_lb", datatype, displacement, "displacement");
    *displacement = 0;
    return MPI_SUCCESS;
  });
}

int MPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
  return mpi_call(MPI_COMM_SELF, [&] {
    *displacement = static_cast<MPI_Aint>(
        query("MPI_Type_ub", datatype, displacement, "displacement").extent);
    return MPI_SUCCESS;
  });
}

}  // extern "C"
