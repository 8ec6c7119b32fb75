/* vmc's mpi.h as a C program sees it: it compiles with -std=c99 and -std=c11, -Wall -Wextra
 * -pedantic -Werror, and its constants hold what the standard asks of them (run the program:
 * it prints what does not and exits non-zero). No MPI function is called: it links without
 * libvmc_mpi. */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

static int failures;

static void check(int ok, const char* what) {
  if (!ok) {
    printf("FAILED: %s\n", what);
    ++failures;
  }
}

/* Every value of `values` differs from the others. */
static void check_distinct(const long long* values, size_t n, const char* what) {
  size_t i, j;
  for (i = 0; i < n; ++i) {
    for (j = i + 1; j < n; ++j) {
      if (values[i] == values[j]) {
        printf("FAILED: %s: entries %zu and %zu are both %lld\n", what, i, j, values[i]);
        ++failures;
      }
    }
  }
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The predefined callbacks have the types of their keys' callbacks: a mismatch is a
 * compile error (the comparisons are never evaluated). */
static const size_t callback_types[] = {
    sizeof(MPI_COMM_NULL_COPY_FN == (MPI_Comm_copy_attr_function*)0),
    sizeof(MPI_COMM_DUP_FN == (MPI_Comm_copy_attr_function*)0),
    sizeof(MPI_COMM_NULL_DELETE_FN == (MPI_Comm_delete_attr_function*)0),
    sizeof(MPI_TYPE_NULL_COPY_FN == (MPI_Type_copy_attr_function*)0),
    sizeof(MPI_TYPE_DUP_FN == (MPI_Type_copy_attr_function*)0),
    sizeof(MPI_TYPE_NULL_DELETE_FN == (MPI_Type_delete_attr_function*)0),
    sizeof(MPI_WIN_NULL_COPY_FN == (MPI_Win_copy_attr_function*)0),
    sizeof(MPI_WIN_DUP_FN == (MPI_Win_copy_attr_function*)0),
    sizeof(MPI_WIN_NULL_DELETE_FN == (MPI_Win_delete_attr_function*)0),
    sizeof(MPI_NULL_COPY_FN == (MPI_Copy_function*)0),
    sizeof(MPI_DUP_FN == (MPI_Copy_function*)0),
    sizeof(MPI_NULL_DELETE_FN == (MPI_Delete_function*)0),
    sizeof(MPI_CONVERSION_FN_NULL == (MPI_Datarep_conversion_function*)0),
    sizeof(MPI_CONVERSION_FN_NULL_C == (MPI_Datarep_conversion_function_c*)0),
    sizeof(MPI_Op_create == (int (*)(MPI_User_function*, int, MPI_Op*))0),
    sizeof(MPI_Comm_create_errhandler ==
           (int (*)(MPI_Comm_errhandler_function*, MPI_Errhandler*))0),
    sizeof(MPI_Errhandler_create == (int (*)(MPI_Handler_function*, MPI_Errhandler*))0),
    sizeof(MPI_T_event_register_callback ==
           (int (*)(MPI_T_event_registration, MPI_T_cb_safety, MPI_Info, void*,
                    MPI_T_event_cb_function*))0)};

static const long long datatypes[] = {
    MPI_DATATYPE_NULL, MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE, MPI_SHORT,
    MPI_UNSIGNED_SHORT, MPI_INT, MPI_UNSIGNED, MPI_LONG, MPI_UNSIGNED_LONG, MPI_LONG_LONG,
    MPI_UNSIGNED_LONG_LONG, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_INT8_T, MPI_UINT8_T,
    MPI_INT16_T, MPI_UINT16_T, MPI_INT32_T, MPI_UINT32_T, MPI_INT64_T, MPI_UINT64_T, MPI_C_BOOL,
    MPI_WCHAR, MPI_AINT, MPI_OFFSET, MPI_COUNT, MPI_PACKED, MPI_C_FLOAT_COMPLEX,
    MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX, MPI_CXX_BOOL, MPI_CXX_FLOAT_COMPLEX,
    MPI_CXX_DOUBLE_COMPLEX, MPI_CXX_LONG_DOUBLE_COMPLEX, MPI_FLOAT_INT, MPI_DOUBLE_INT,
    MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_CHARACTER, MPI_LOGICAL,
    MPI_INTEGER, MPI_REAL, MPI_DOUBLE_PRECISION, MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_2REAL,
    MPI_2DOUBLE_PRECISION, MPI_2INTEGER, MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8,
    MPI_INTEGER16, MPI_REAL2, MPI_REAL4, MPI_REAL8, MPI_REAL16, MPI_COMPLEX4, MPI_COMPLEX8,
    MPI_COMPLEX16, MPI_COMPLEX32, MPI_LB, MPI_UB};

static const long long ops[] = {MPI_OP_NULL, MPI_MAX,  MPI_MIN,    MPI_SUM,    MPI_PROD,
                                MPI_LAND,    MPI_BAND, MPI_LOR,    MPI_BOR,    MPI_LXOR,
                                MPI_BXOR,    MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};

static const long long error_classes[] = {
    MPI_SUCCESS, MPI_ERR_BUFFER, MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_TAG, MPI_ERR_COMM,
    MPI_ERR_RANK, MPI_ERR_REQUEST, MPI_ERR_ROOT, MPI_ERR_GROUP, MPI_ERR_OP, MPI_ERR_TOPOLOGY,
    MPI_ERR_DIMS, MPI_ERR_ARG, MPI_ERR_UNKNOWN, MPI_ERR_TRUNCATE, MPI_ERR_OTHER, MPI_ERR_INTERN,
    MPI_ERR_IN_STATUS, MPI_ERR_PENDING, MPI_ERR_UNSUPPORTED_OPERATION, MPI_ERR_ACCESS,
    MPI_ERR_AMODE, MPI_ERR_ASSERT, MPI_ERR_BAD_FILE, MPI_ERR_BASE, MPI_ERR_CONVERSION,
    MPI_ERR_DISP, MPI_ERR_DUP_DATAREP, MPI_ERR_FILE_EXISTS, MPI_ERR_FILE_IN_USE, MPI_ERR_FILE,
    MPI_ERR_INFO_KEY, MPI_ERR_INFO_NOKEY, MPI_ERR_INFO_VALUE, MPI_ERR_INFO, MPI_ERR_IO,
    MPI_ERR_KEYVAL, MPI_ERR_LOCKTYPE, MPI_ERR_NAME, MPI_ERR_NO_MEM, MPI_ERR_NOT_SAME,
    MPI_ERR_NO_SPACE, MPI_ERR_NO_SUCH_FILE, MPI_ERR_PORT, MPI_ERR_PROC_ABORTED, MPI_ERR_QUOTA,
    MPI_ERR_READ_ONLY, MPI_ERR_RMA_ATTACH, MPI_ERR_RMA_CONFLICT, MPI_ERR_RMA_RANGE,
    MPI_ERR_RMA_SHARED, MPI_ERR_RMA_SYNC, MPI_ERR_RMA_FLAVOR, MPI_ERR_SERVICE, MPI_ERR_SESSION,
    MPI_ERR_SIZE, MPI_ERR_SPAWN, MPI_ERR_UNSUPPORTED_DATAREP, MPI_ERR_VALUE_TOO_LARGE,
    MPI_ERR_WIN, MPI_ERR_ERRHANDLER, MPI_T_ERR_MEMORY, MPI_T_ERR_NOT_INITIALIZED,
    MPI_T_ERR_CANNOT_INIT, MPI_T_ERR_INVALID, MPI_T_ERR_INVALID_INDEX, MPI_T_ERR_INVALID_ITEM,
    MPI_T_ERR_INVALID_SESSION, MPI_T_ERR_INVALID_HANDLE, MPI_T_ERR_INVALID_NAME,
    MPI_T_ERR_OUT_OF_HANDLES, MPI_T_ERR_OUT_OF_SESSIONS, MPI_T_ERR_CVAR_SET_NOT_NOW,
    MPI_T_ERR_CVAR_SET_NEVER, MPI_T_ERR_PVAR_NO_STARTSTOP, MPI_T_ERR_PVAR_NO_WRITE,
    MPI_T_ERR_PVAR_NO_ATOMIC, MPI_T_ERR_NOT_ACCESSIBLE, MPI_T_ERR_NOT_SUPPORTED};

/* Keys of attributes, with MPI_KEYVAL_INVALID among them (no key is invalid). */
static const long long keys[] = {
    MPI_KEYVAL_INVALID, MPI_TAG_UB,   MPI_HOST,          MPI_IO,       MPI_WTIME_IS_GLOBAL,
    MPI_UNIVERSE_SIZE,  MPI_APPNUM,   MPI_LASTUSEDCODE,  MPI_WIN_BASE, MPI_WIN_SIZE,
    MPI_WIN_DISP_UNIT,  MPI_WIN_MODEL, MPI_WIN_CREATE_FLAVOR};

/* Bits that a program combines with |: file modes and window assertions. */
static const long long mode_bits[] = {
    MPI_MODE_RDONLY,     MPI_MODE_RDWR,        MPI_MODE_WRONLY,    MPI_MODE_CREATE,
    MPI_MODE_EXCL,       MPI_MODE_DELETE_ON_CLOSE, MPI_MODE_UNIQUE_OPEN, MPI_MODE_SEQUENTIAL,
    MPI_MODE_APPEND,     MPI_MODE_NOCHECK,     MPI_MODE_NOSTORE,   MPI_MODE_NOPUT,
    MPI_MODE_NOPRECEDE,  MPI_MODE_NOSUCCEED};

static const long long combiners[] = {
    MPI_COMBINER_NAMED,        MPI_COMBINER_DUP,          MPI_COMBINER_CONTIGUOUS,
    MPI_COMBINER_VECTOR,       MPI_COMBINER_HVECTOR,      MPI_COMBINER_INDEXED,
    MPI_COMBINER_HINDEXED,     MPI_COMBINER_INDEXED_BLOCK, MPI_COMBINER_HINDEXED_BLOCK,
    MPI_COMBINER_STRUCT,       MPI_COMBINER_SUBARRAY,     MPI_COMBINER_DARRAY,
    MPI_COMBINER_F90_REAL,     MPI_COMBINER_F90_COMPLEX,  MPI_COMBINER_F90_INTEGER,
    MPI_COMBINER_RESIZED,      MPI_COMBINER_VALUE_INDEX};

/* Ranks a call may take besides the members': wildcards, nobody, the root's side, and
 * MPI_UNDEFINED (MPI_Comm_split's color). */
static const long long special_ranks[] = {MPI_ANY_SOURCE, MPI_PROC_NULL, MPI_ROOT,
                                          MPI_UNDEFINED};

static const long long comparisons[] = {MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR, MPI_UNEQUAL};
static const long long split_types[] = {MPI_COMM_TYPE_SHARED, MPI_COMM_TYPE_HW_GUIDED,
                                        MPI_COMM_TYPE_HW_UNGUIDED,
                                        MPI_COMM_TYPE_RESOURCE_GUIDED, MPI_UNDEFINED};
static const long long topologies[] = {MPI_GRAPH, MPI_CART, MPI_DIST_GRAPH, MPI_UNDEFINED};
static const long long distributions[] = {MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK,
                                          MPI_DISTRIBUTE_CYCLIC};
static const long long typeclasses[] = {MPI_TYPECLASS_INTEGER, MPI_TYPECLASS_REAL,
                                        MPI_TYPECLASS_COMPLEX};
static const long long seeks[] = {MPI_SEEK_SET, MPI_SEEK_CUR, MPI_SEEK_END};
static const long long errhandlers[] = {MPI_ERRHANDLER_NULL, MPI_ERRORS_ARE_FATAL,
                                        MPI_ERRORS_RETURN, MPI_ERRORS_ABORT};
static const long long comms[] = {MPI_COMM_NULL, MPI_COMM_WORLD, MPI_COMM_SELF};
static const long long t_binds[] = {
    MPI_T_BIND_NO_OBJECT, MPI_T_BIND_MPI_COMM, MPI_T_BIND_MPI_DATATYPE,
    MPI_T_BIND_MPI_ERRHANDLER, MPI_T_BIND_MPI_FILE, MPI_T_BIND_MPI_GROUP, MPI_T_BIND_MPI_OP,
    MPI_T_BIND_MPI_REQUEST, MPI_T_BIND_MPI_WIN, MPI_T_BIND_MPI_MESSAGE, MPI_T_BIND_MPI_INFO,
    MPI_T_BIND_MPI_SESSION};

int main(void) {
  size_t i;
  MPI_Status status;
  MPI_F08_status f08;
  MPI_Fint f[MPI_F_STATUS_SIZE];
  void* pointers[8];

  check(MPI_VERSION == 4 && MPI_SUBVERSION == 1, "MPI_VERSION 4, MPI_SUBVERSION 1");
  check(COUNT(callback_types) == 18, "the callback types compiled");

  check_distinct(datatypes, COUNT(datatypes), "datatypes");
  check(COUNT(datatypes) == VMC_MPI_PREDEFINED_TYPES, "VMC_MPI_PREDEFINED_TYPES types");
  for (i = 0; i < COUNT(datatypes); ++i) {
    check(datatypes[i] >= 0 && datatypes[i] < VMC_MPI_PREDEFINED_TYPES,
          "a predefined datatype is below VMC_MPI_PREDEFINED_TYPES");
  }
  check(VMC_MPI_FIRST_DERIVED_TYPE >= VMC_MPI_PREDEFINED_TYPES, "derived types come after");
  check(MPI_LONG_LONG_INT == MPI_LONG_LONG && MPI_C_COMPLEX == MPI_C_FLOAT_COMPLEX, "aliases");

  check_distinct(ops, COUNT(ops), "operations");
  for (i = 0; i < COUNT(ops); ++i) check(ops[i] < VMC_MPI_FIRST_USER_OP, "predefined ops first");

  check_distinct(error_classes, COUNT(error_classes), "error classes");
  for (i = 1; i < COUNT(error_classes); ++i) {
    check(error_classes[i] > MPI_SUCCESS && error_classes[i] <= MPI_ERR_LASTCODE,
          "an error class is in (MPI_SUCCESS, MPI_ERR_LASTCODE]");
  }
  check(MPI_SUCCESS == 0, "MPI_SUCCESS is 0");

  check_distinct(keys, COUNT(keys), "attribute keys");
  check_distinct(mode_bits, COUNT(mode_bits), "mode bits");
  for (i = 0; i < COUNT(mode_bits); ++i) {
    check(mode_bits[i] > 0 && (mode_bits[i] & (mode_bits[i] - 1)) == 0, "a mode is one bit");
  }
  check_distinct(combiners, COUNT(combiners), "combiners");
  check_distinct(special_ranks, COUNT(special_ranks), "special ranks");
  for (i = 0; i < COUNT(special_ranks); ++i) check(special_ranks[i] < 0, "special ranks < 0");
  check(MPI_ANY_TAG < 0, "MPI_ANY_TAG is no tag");
  check(MPI_TAG_UB_VALUE >= 32767, "tags up to at least 32767");
  check_distinct(comparisons, COUNT(comparisons), "comparison results");
  check_distinct(split_types, COUNT(split_types), "split types");
  check_distinct(topologies, COUNT(topologies), "topologies");
  check_distinct(distributions, COUNT(distributions), "distributions");
  check(MPI_DISTRIBUTE_DFLT_DARG < 0, "MPI_DISTRIBUTE_DFLT_DARG is no block size");
  check(MPI_ORDER_C != MPI_ORDER_FORTRAN, "orders");
  check_distinct(typeclasses, COUNT(typeclasses), "type classes");
  check_distinct(seeks, COUNT(seeks), "seeks");
  check_distinct(errhandlers, COUNT(errhandlers), "error handlers");
  check(comms[0] == 0 && comms[1] == 1 && comms[2] == 2, "MPI_COMM_NULL, _WORLD, _SELF: 0, 1, 2");
  check(MPI_ANY_SOURCE == -1 && MPI_ANY_TAG == -1 && MPI_PROC_NULL == -2 && MPI_ROOT == -3,
        "the wildcards and special ranks keep their values");
  check_distinct(t_binds, COUNT(t_binds), "tool bindings");
  check(MPI_THREAD_SINGLE < MPI_THREAD_FUNNELED && MPI_THREAD_FUNNELED < MPI_THREAD_SERIALIZED &&
            MPI_THREAD_SERIALIZED < MPI_THREAD_MULTIPLE,
        "thread levels increase");
  check(MPI_T_VERBOSITY_USER_BASIC < MPI_T_VERBOSITY_MPIDEV_ALL, "verbosities");
  check(MPI_LOCK_EXCLUSIVE != MPI_LOCK_SHARED, "locks");
  check(MPI_WIN_SEPARATE != MPI_WIN_UNIFIED, "memory models");
  check(MPI_MESSAGE_NO_PROC != MPI_MESSAGE_NULL && MPI_GROUP_EMPTY != MPI_GROUP_NULL &&
            MPI_INFO_ENV != MPI_INFO_NULL,
        "predefined handles differ from the null ones");

  /* Special addresses: distinct where a call must tell them apart. */
  pointers[0] = MPI_IN_PLACE;
  pointers[1] = MPI_BOTTOM;
  pointers[2] = MPI_BUFFER_AUTOMATIC;
  pointers[3] = MPI_UNWEIGHTED;
  pointers[4] = MPI_WEIGHTS_EMPTY;
  pointers[5] = MPI_STATUS_IGNORE;
  pointers[6] = MPI_ERRCODES_IGNORE;
  pointers[7] = MPI_ARGV_NULL;
  check(pointers[0] != pointers[1] && pointers[0] != pointers[2] && pointers[1] != pointers[2],
        "MPI_IN_PLACE, MPI_BOTTOM and MPI_BUFFER_AUTOMATIC differ");
  check(pointers[3] != pointers[4] && pointers[3] != NULL && pointers[4] != NULL,
        "MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY differ, and neither is NULL");
  check(MPI_ARGVS_NULL == NULL && MPI_STATUSES_IGNORE == NULL && MPI_F_STATUS_IGNORE == NULL &&
            MPI_F08_STATUS_IGNORE == NULL,
        "ignored arguments");

  /* A status: the public fields, and its size in Fortran integers. */
  status.MPI_SOURCE = 1;
  status.MPI_TAG = 2;
  status.MPI_ERROR = MPI_SUCCESS;
  status.vmc_cancelled = 0;
  status.vmc_bytes = 0;
  f08.MPI_SOURCE = status.MPI_SOURCE;
  f[MPI_F_TAG] = status.MPI_TAG;
  check(sizeof status == sizeof f && sizeof f08 == sizeof f, "MPI_F_STATUS_SIZE integers");
  check(f08.MPI_SOURCE == 1 && f[MPI_F_TAG] == 2, "status fields");
  check(sizeof(MPI_Aint) == sizeof(void*) && sizeof(MPI_Count) >= sizeof(MPI_Aint) &&
            sizeof(MPI_Count) >= sizeof(MPI_Offset),
        "MPI_Aint holds an address, MPI_Count an MPI_Aint and an MPI_Offset");
  check(MPI_MAX_PROCESSOR_NAME > 0 && MPI_MAX_ERROR_STRING > 0 && MPI_MAX_OBJECT_NAME > 0 &&
            MPI_MAX_INFO_KEY > 0 && MPI_MAX_INFO_VAL > 0 && MPI_MAX_PORT_NAME > 0 &&
            MPI_MAX_DATAREP_STRING > 0 && MPI_MAX_LIBRARY_VERSION_STRING > 0 &&
            MPI_MAX_PSET_NAME_LEN > 0 && MPI_MAX_STRINGTAG_LEN > 0 && MPI_BSEND_OVERHEAD >= 0,
        "lengths");
  check(MPI_T_ENUM_NULL == NULL && MPI_T_PVAR_ALL_HANDLES != MPI_T_PVAR_HANDLE_NULL,
        "tool handles");
  check(MPI_T_CB_REQUIRE_NONE < MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE &&
            MPI_T_SOURCE_ORDERED != MPI_T_SOURCE_UNORDERED,
        "tool enums");

  if (failures == 0) printf("header_use: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
