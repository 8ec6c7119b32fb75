// The MPI functions that only convert: handles between C and Fortran (vmc's handles are ints,
// so a handle is its own Fortran integer), statuses between C and the two Fortran forms (the
// same integers in the same order), and address arithmetic (MPI_Aint_add, MPI_Aint_diff).
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "mpi/errors.hpp"
#include "mpi/include/mpi.h"

static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
              "a C status is MPI_F_STATUS_SIZE Fortran integers");
static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status),
              "a Fortran 2008 status is a C status's integers");
static_assert(offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint) &&
                  offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
                  offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint),
              "MPI_F_SOURCE, MPI_F_TAG and MPI_F_ERROR index the fields of a C status");

namespace {

// Copies a status's integers from `from` to `to`; a null one is an error of `function`.
int copy_status(const char* function, const void* from, void* to) {
  if (from == nullptr || to == nullptr) {
    return vmc::mpi::raise_error(function, MPI_COMM_NULL, MPI_ERR_ARG,
                                 "a status is null (MPI_STATUS_IGNORE cannot be converted)");
  }
  std::memcpy(to, from, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

MPI_Fint MPI_Comm_c2f(MPI_Comm comm) { return comm; }
MPI_Comm MPI_Comm_f2c(MPI_Fint comm) { return comm; }
MPI_Fint MPI_Errhandler_c2f(MPI_Errhandler errhandler) { return errhandler; }
MPI_Errhandler MPI_Errhandler_f2c(MPI_Fint errhandler) { return errhandler; }
MPI_Fint MPI_File_c2f(MPI_File file) { return file; }
MPI_File MPI_File_f2c(MPI_Fint file) { return file; }
MPI_Fint MPI_Group_c2f(MPI_Group group) { return group; }
MPI_Group MPI_Group_f2c(MPI_Fint group) { return group; }
MPI_Fint MPI_Info_c2f(MPI_Info info) { return info; }
MPI_Info MPI_Info_f2c(MPI_Fint info) { return info; }
MPI_Fint MPI_Message_c2f(MPI_Message message) { return message; }
MPI_Message MPI_Message_f2c(MPI_Fint message) { return message; }
MPI_Fint MPI_Op_c2f(MPI_Op op) { return op; }
MPI_Op MPI_Op_f2c(MPI_Fint op) { return op; }
MPI_Fint MPI_Request_c2f(MPI_Request request) { return request; }
MPI_Request MPI_Request_f2c(MPI_Fint request) { return request; }
MPI_Fint MPI_Session_c2f(MPI_Session session) { return session; }
MPI_Session MPI_Session_f2c(MPI_Fint session) { return session; }
MPI_Fint MPI_Type_c2f(MPI_Datatype datatype) { return datatype; }
MPI_Datatype MPI_Type_f2c(MPI_Fint datatype) { return datatype; }
MPI_Fint MPI_Win_c2f(MPI_Win win) { return win; }
MPI_Win MPI_Win_f2c(MPI_Fint win) { return win; }

int MPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  return copy_status("MPI_Status_c2f", c_status, f_status);
}
int MPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  return copy_status("MPI_Status_f2c", f_status, c_status);
}
int MPI_Status_c2f08(const MPI_Status* c_status, MPI_F08_status* f08_status) {
  return copy_status("MPI_Status_c2f08", c_status, f08_status);
}
int MPI_Status_f082c(const MPI_F08_status* f08_status, MPI_Status* c_status) {
  return copy_status("MPI_Status_f082c", f08_status, c_status);
}
int MPI_Status_f082f(const MPI_F08_status* f08_status, MPI_Fint* f_status) {
  return copy_status("MPI_Status_f082f", f08_status, f_status);
}
int MPI_Status_f2f08(const MPI_Fint* f_status, MPI_F08_status* f08_status) {
  return copy_status("MPI_Status_f2f08", f_status, f08_status);
}

// Addresses are integers here: the sum and the difference wrap as the machine's addresses do.
MPI_Aint MPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(base) +
                               static_cast<std::uintptr_t>(disp));
}
MPI_Aint MPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(addr1) -
                               static_cast<std::uintptr_t>(addr2));
}

}  // extern "C"
