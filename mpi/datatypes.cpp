// What a program may ask of a datatype, on the predefined ones (mpi/datatypes.hpp; derived
// datatypes are not supported yet): its size, extent and true extent, its name (which it may
// change, on its rank), the bytes a packed message of it takes (MPI_Pack_size), and addresses.
// A predefined datatype's lower bound, and true lower bound, are 0 and its upper bound its
// extent. MPI_LB and MPI_UB, MPI-1's markers, have no data and span nothing. Errors of calls
// with no communicator go to MPI_COMM_SELF's handler.
#include <climits>
#include <cstdint>
#include <cstring>
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

// The size of a predefined datatype in an MPI_Count (MPI_Type_size_x, _c).
int size_count(const char* fn, MPI_Datatype datatype, MPI_Count* size) {
  return mpi_call(MPI_COMM_SELF, [&] {
    *size = static_cast<MPI_Count>(query(fn, datatype, size, "size").size);
    return MPI_SUCCESS;
  });
}

// The lower bound and extent (true: of the data alone) of a predefined datatype, as Int.
template <class Int>
int extent_of(const char* fn, MPI_Datatype datatype, Int* lb, Int* extent, bool true_extent) {
  return mpi_call(MPI_COMM_SELF, [&] {
    const PredefinedType& t = query(fn, datatype, lb, "lb");
    check_arg(fn, extent, "extent");
    *lb = 0;
    *extent = static_cast<Int>(true_extent ? t.true_extent : t.extent);
    return MPI_SUCCESS;
  });
}

// An upper bound of the bytes MPI_Pack would make of `incount` items: their extent (what a
// message of them carries, so that a buffer for MPI_Bsend sized by it with
// MPI_BSEND_OVERHEAD per message holds them).
template <class Int>
int pack_size(const char* fn, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm,
              Int* size, MPI_Count largest) {
  return mpi_call(comm, [&] {
    RankState& s = session_state(fn);
    comm_or_fail(fn, s, comm);
    if (incount < 0) fail(fn, MPI_ERR_COUNT, "negative count " + std::to_string(incount));
    const PredefinedType& t = query(fn, datatype, size, "size");
    const auto extent = static_cast<MPI_Count>(t.extent);
    if (extent > 0 && incount > largest / extent) {
      fail(fn, MPI_ERR_VALUE_TOO_LARGE,
           std::to_string(incount) + " items of " + t.name + " take more than " +
               std::to_string(largest) + " bytes");
    }
    *size = static_cast<Int>(incount * extent);
    return MPI_SUCCESS;
  });
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

int MPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  return size_count("MPI_Type_size_x", datatype, size);
}

int MPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) {
  return size_count("MPI_Type_size_c", datatype, size);
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint* lb, MPI_Aint* extent) {
  return extent_of("MPI_Type_get_extent", datatype, lb, extent, false);
}

int MPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return extent_of("MPI_Type_get_extent_x", datatype, lb, extent, false);
}

int MPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count* lb, MPI_Count* extent) {
  return extent_of("MPI_Type_get_extent_c", datatype, lb, extent, false);
}

int MPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint* true_lb, MPI_Aint* true_extent) {
  return extent_of("MPI_Type_get_true_extent", datatype, true_lb, true_extent, true);
}

int MPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count* true_lb,
                               MPI_Count* true_extent) {
  return extent_of("MPI_Type_get_true_extent_x", datatype, true_lb, true_extent, true);
}

int MPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count* true_lb,
                               MPI_Count* true_extent) {
  return extent_of("MPI_Type_get_true_extent_c", datatype, true_lb, true_extent, true);
}

int MPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  const char* fn = "MPI_Type_get_name";
  return mpi_call(MPI_COMM_SELF, [&] {
    const RankState& s = session_state(fn);
    const PredefinedType& t = query(fn, datatype, type_name, "type_name");
    check_arg(fn, resultlen, "resultlen");
    const auto given = s.type_names.find(datatype);
    const std::string name = given != s.type_names.end() ? given->second : t.name;
    std::memcpy(type_name, name.c_str(), name.size() + 1);
    *resultlen = static_cast<int>(name.size());
    return MPI_SUCCESS;
  });
}

int MPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  const char* fn = "MPI_Type_set_name";
  return mpi_call(MPI_COMM_SELF, [&] {
    RankState& s = session_state(fn);
    query(fn, datatype, type_name, "type_name");
    s.type_names[datatype].assign(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
    return MPI_SUCCESS;
  });
}

int MPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  return pack_size("MPI_Pack_size", incount, datatype, comm, size, INT_MAX);
}

int MPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
  return pack_size("MPI_Pack_size_c", incount, datatype, comm, size, LLONG_MAX);
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
