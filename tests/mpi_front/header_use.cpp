// vmc's mpi.h as a C++ program sees it: it compiles with -std=c++17 and -std=c++20, -Wall
// -Wextra -pedantic -Werror; its constants are constant expressions, and its predefined
// callbacks, conversions and functions have the types the standard gives them.
#include <mpi.h>

#include <type_traits>

namespace {

template <class Function, class Expected>
constexpr bool has_type(Function*, Expected*) {
  return std::is_same_v<Function, Expected>;
}

static_assert(MPI_VERSION == 4 && MPI_SUBVERSION == 1);
static_assert(std::is_same_v<MPI_Comm, int> && std::is_same_v<MPI_Datatype, int> &&
              std::is_same_v<MPI_Session, int> && std::is_same_v<MPI_Win, int>);
static_assert(std::is_standard_layout_v<MPI_Status> &&
              sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint));
static_assert(sizeof(MPI_Aint) == sizeof(void*) && sizeof(MPI_Count) >= sizeof(MPI_Offset));

// Constants usable where C++ wants constant expressions.
constexpr MPI_Datatype kTypes[] = {MPI_INT, MPI_CXX_BOOL, MPI_CXX_DOUBLE_COMPLEX, MPI_2INT};
static_assert(kTypes[1] != kTypes[0] && MPI_DOUBLE_INT != MPI_FLOAT_INT);
static_assert(MPI_ERR_UNSUPPORTED_OPERATION <= MPI_ERR_LASTCODE &&
              MPI_ERR_ERRHANDLER <= MPI_ERR_LASTCODE && MPI_T_ERR_NOT_SUPPORTED <= MPI_ERR_LASTCODE);
static_assert(MPI_COMM_WORLD == 1 && MPI_COMM_SELF == 2 && MPI_COMM_NULL == 0);

int switch_on(MPI_Op op) {
  switch (op) {
    case MPI_MAXLOC: return 1;
    case MPI_MINLOC: return 2;
    case MPI_REPLACE: return 3;
    case MPI_NO_OP: return 4;
    default: return 0;
  }
}

// Predefined callbacks and a few functions, by type.
static_assert(has_type(&MPI_COMM_DUP_FN, static_cast<MPI_Comm_copy_attr_function*>(nullptr)));
static_assert(has_type(&MPI_COMM_NULL_DELETE_FN,
                       static_cast<MPI_Comm_delete_attr_function*>(nullptr)));
static_assert(has_type(&MPI_TYPE_DUP_FN, static_cast<MPI_Type_copy_attr_function*>(nullptr)));
static_assert(has_type(&MPI_WIN_NULL_COPY_FN, static_cast<MPI_Win_copy_attr_function*>(nullptr)));
static_assert(has_type(&MPI_DUP_FN, static_cast<MPI_Copy_function*>(nullptr)));
static_assert(std::is_same_v<decltype(MPI_Wtime()), double>);
static_assert(std::is_same_v<decltype(MPI_Aint_add(0, 0)), MPI_Aint>);
static_assert(std::is_same_v<decltype(MPI_Comm_f2c(0)), MPI_Comm>);
static_assert(std::is_same_v<decltype(PMPI_Type_c2f(MPI_INT)), MPI_Fint>);
static_assert(std::is_same_v<decltype(MPI_Send_c(nullptr, MPI_Count{0}, MPI_BYTE, 0, 0,
                                                 MPI_COMM_WORLD)),
                             int>);

}  // namespace

int header_use_cxx(int op) { return switch_on(op); }
