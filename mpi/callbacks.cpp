// The predefined attribute callbacks of mpi.h: a key made with NULL_COPY is not copied to a
// duplicate, one made with DUP is copied with the same value, and NULL_DELETE does nothing
// when an attribute goes. The deprecated MPI_NULL_COPY_FN, MPI_DUP_FN and MPI_NULL_DELETE_FN
// are the communicator's.
#include "mpi/include/mpi.h"

namespace {

int no_copy(int* flag) {
  *flag = 0;
  return MPI_SUCCESS;
}

// The attribute's value is a pointer-sized word; the copy gets the same word.
int same_value(void* attribute_val_in, void* attribute_val_out, int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_COMM_NULL_COPY_FN(MPI_Comm, int, void*, void*, void*, int* flag) {
  return no_copy(flag);
}
int MPI_COMM_DUP_FN(MPI_Comm, int, void*, void* attribute_val_in, void* attribute_val_out,
                    int* flag) {
  return same_value(attribute_val_in, attribute_val_out, flag);
}
int MPI_COMM_NULL_DELETE_FN(MPI_Comm, int, void*, void*) { return MPI_SUCCESS; }

int MPI_TYPE_NULL_COPY_FN(MPI_Datatype, int, void*, void*, void*, int* flag) {
  return no_copy(flag);
}
int MPI_TYPE_DUP_FN(MPI_Datatype, int, void*, void* attribute_val_in, void* attribute_val_out,
                    int* flag) {
  return same_value(attribute_val_in, attribute_val_out, flag);
}
int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype, int, void*, void*) { return MPI_SUCCESS; }

int MPI_WIN_NULL_COPY_FN(MPI_Win, int, void*, void*, void*, int* flag) { return no_copy(flag); }
int MPI_WIN_DUP_FN(MPI_Win, int, void*, void* attribute_val_in, void* attribute_val_out,
                   int* flag) {
  return same_value(attribute_val_in, attribute_val_out, flag);
}
int MPI_WIN_NULL_DELETE_FN(MPI_Win, int, void*, void*) { return MPI_SUCCESS; }

int MPI_NULL_COPY_FN(MPI_Comm, int, void*, void*, void*, int* flag) { return no_copy(flag); }
int MPI_DUP_FN(MPI_Comm, int, void*, void* attribute_val_in, void* attribute_val_out,
               int* flag) {
  return same_value(attribute_val_in, attribute_val_out, flag);
}
int MPI_NULL_DELETE_FN(MPI_Comm, int, void*, void*) { return MPI_SUCCESS; }

}  // extern "C"
