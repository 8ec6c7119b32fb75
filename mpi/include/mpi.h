/* vmc's mpi.h: the MPI-4.1 C interface as programs built by vmcc see it (C and C++). Every
 * rank of `vmc mpirun -np P ./prog` is a private copy of the program in one process
 * (mpi/program.hpp); these functions run its calls on the rank's emulated node (libvmc_mpi).
 *
 * Written for vmc from the MPI standard. Every function of MPI-4.1 is declared, from one table
 * (vmc_mpi_functions.h, beside this file), so that any MPI program compiles and links, and
 * the MPI-1 functions MPI-3.0 removed, from another (vmc_mpi_removed_functions.h); the
 * tables say which ones vmc implements. The others return MPI_ERR_UNSUPPORTED_OPERATION through
 * the communicator's error handler, with a text that names the function (the default handler,
 * MPI_ERRORS_ARE_FATAL, ends the run naming the rank and the function).
 *
 * Link names: each function is declared with the assembler name vmc_<function> (vmc_MPI_Send
 * for MPI_Send, vmc_PMPI_Send for PMPI_Send), so that a program's calls reach vmc's library and
 * never an MPI library the vmc program itself may be linked with. Source code calls MPI_Send
 * as usual. Every PMPI_ function calls its MPI_ function (the profiling interface).
 *
 * Handles are ints; 0 is each kind's null handle. The constants follow the chapters of the
 * standard, each group under a short comment; the values are vmc's own. */
#ifndef VMC_MPI_H
#define VMC_MPI_H

#include <stddef.h> /* offsetof and size_t, which programs that build struct types expect */
#include <stdint.h> /* intptr_t, for MPI_Aint */

#ifdef __cplusplus
extern "C" {
#endif

#define VMC_MPI_LINK_NAME(name) __asm__("vmc_" #name)

/* This is vmc's mpi.h (a program may test for it). */
#define VMC_MPI 1

/* The version of the standard. */
#define MPI_VERSION 4
#define MPI_SUBVERSION 1

/* ---- Types of addresses, offsets, counts and Fortran integers, and the handles ---- */

typedef intptr_t MPI_Aint;    /* an address or a displacement */
typedef long long MPI_Offset; /* a position in a file */
typedef long long MPI_Count;  /* holds an MPI_Aint, an MPI_Offset or an int */
typedef int MPI_Fint;         /* a Fortran INTEGER */

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Errhandler;
typedef int MPI_File;
typedef int MPI_Group;
typedef int MPI_Info;
typedef int MPI_Message;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Session;
typedef int MPI_Win;

/* ---- 3. Point-to-point communication ---- */

/* What a receive tells about the message it took. vmc_cancelled and vmc_bytes are private: use
 * MPI_Test_cancelled and MPI_Get_count. */
typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  int vmc_cancelled;
  long long vmc_bytes;
} MPI_Status;

/* Wildcards and special ranks. */
#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_UNDEFINED (-32766)
#define MPI_TAG_UB_VALUE 2147483647 /* vmc's largest tag, the value of the MPI_TAG_UB key */

/* Requests and matched messages (MPI_Mprobe). */
#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)1)

/* Statuses a call need not fill. */
#define MPI_STATUS_IGNORE ((MPI_Status*)0)
#define MPI_STATUSES_IGNORE ((MPI_Status*)0)

/* Buffered mode: the bytes a message adds to the attached buffer, and the buffer that grows
 * as needed (MPI_Comm_attach_buffer, MPI_Session_attach_buffer). */
#define MPI_BSEND_OVERHEAD 128
#define MPI_BUFFER_AUTOMATIC ((void*)-2)

/* ---- 5. Datatypes ---- */

/* Predefined datatypes. A predefined handle is the row of vmc's table of predefined types
 * (mpi/datatypes.hpp: name, size, extent, kind), 1 to VMC_MPI_PREDEFINED_TYPES - 1, so that
 * the implementation finds a type's size and kind by indexing; MPI_DATATYPE_NULL is 0, and the
 * handles of derived types (MPI_Type_contiguous, ...) start at VMC_MPI_FIRST_DERIVED_TYPE. */
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
/* C types. */
#define MPI_CHAR ((MPI_Datatype)1)
#define MPI_SIGNED_CHAR ((MPI_Datatype)2)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)3)
#define MPI_BYTE ((MPI_Datatype)4)
#define MPI_SHORT ((MPI_Datatype)5)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)6)
#define MPI_INT ((MPI_Datatype)7)
#define MPI_UNSIGNED ((MPI_Datatype)8)
#define MPI_LONG ((MPI_Datatype)9)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)10)
#define MPI_LONG_LONG ((MPI_Datatype)11)
#define MPI_LONG_LONG_INT MPI_LONG_LONG
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)12)
#define MPI_FLOAT ((MPI_Datatype)13)
#define MPI_DOUBLE ((MPI_Datatype)14)
#define MPI_LONG_DOUBLE ((MPI_Datatype)15)
#define MPI_INT8_T ((MPI_Datatype)16)
#define MPI_UINT8_T ((MPI_Datatype)17)
#define MPI_INT16_T ((MPI_Datatype)18)
#define MPI_UINT16_T ((MPI_Datatype)19)
#define MPI_INT32_T ((MPI_Datatype)20)
#define MPI_UINT32_T ((MPI_Datatype)21)
#define MPI_INT64_T ((MPI_Datatype)22)
#define MPI_UINT64_T ((MPI_Datatype)23)
#define MPI_C_BOOL ((MPI_Datatype)24)
#define MPI_WCHAR ((MPI_Datatype)25)
#define MPI_AINT ((MPI_Datatype)26)
#define MPI_OFFSET ((MPI_Datatype)27)
#define MPI_COUNT ((MPI_Datatype)28)
#define MPI_PACKED ((MPI_Datatype)29)
#define MPI_C_FLOAT_COMPLEX ((MPI_Datatype)30)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX ((MPI_Datatype)31)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)32)
/* C++ types. */
#define MPI_CXX_BOOL ((MPI_Datatype)33)
#define MPI_CXX_FLOAT_COMPLEX ((MPI_Datatype)34)
#define MPI_CXX_DOUBLE_COMPLEX ((MPI_Datatype)35)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)36)
/* Value and index pairs, for MPI_MAXLOC and MPI_MINLOC. */
#define MPI_FLOAT_INT ((MPI_Datatype)37)
#define MPI_DOUBLE_INT ((MPI_Datatype)38)
#define MPI_LONG_INT ((MPI_Datatype)39)
#define MPI_2INT ((MPI_Datatype)40)
#define MPI_SHORT_INT ((MPI_Datatype)41)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)42)
/* Fortran types, which a C program may name too (their C types' sizes: INTEGER 4 bytes). */
#define MPI_CHARACTER ((MPI_Datatype)43)
#define MPI_LOGICAL ((MPI_Datatype)44)
#define MPI_INTEGER ((MPI_Datatype)45)
#define MPI_REAL ((MPI_Datatype)46)
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)47)
#define MPI_COMPLEX ((MPI_Datatype)48)
#define MPI_DOUBLE_COMPLEX ((MPI_Datatype)49)
#define MPI_2REAL ((MPI_Datatype)50)
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)51)
#define MPI_2INTEGER ((MPI_Datatype)52)
#define MPI_INTEGER1 ((MPI_Datatype)53)
#define MPI_INTEGER2 ((MPI_Datatype)54)
#define MPI_INTEGER4 ((MPI_Datatype)55)
#define MPI_INTEGER8 ((MPI_Datatype)56)
#define MPI_INTEGER16 ((MPI_Datatype)57)
#define MPI_REAL2 ((MPI_Datatype)58)
#define MPI_REAL4 ((MPI_Datatype)59)
#define MPI_REAL8 ((MPI_Datatype)60)
#define MPI_REAL16 ((MPI_Datatype)61)
#define MPI_COMPLEX4 ((MPI_Datatype)62)
#define MPI_COMPLEX8 ((MPI_Datatype)63)
#define MPI_COMPLEX16 ((MPI_Datatype)64)
#define MPI_COMPLEX32 ((MPI_Datatype)65)
/* The bounds MPI-1's MPI_Type_struct took as markers (removed in MPI-3.0, as that function was;
 * MPICH and Open MPI still offer them): no data, size and extent 0. */
#define MPI_LB ((MPI_Datatype)66)
#define MPI_UB ((MPI_Datatype)67)
#define VMC_MPI_PREDEFINED_TYPES 68
#define VMC_MPI_FIRST_DERIVED_TYPE 256

/* The address 0 (absolute addresses in a datatype). */
#define MPI_BOTTOM ((void*)0)

/* How a datatype was made (MPI_Type_get_envelope). */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR 5
#define MPI_COMBINER_INDEXED 6
#define MPI_COMBINER_HINDEXED 7
#define MPI_COMBINER_INDEXED_BLOCK 8
#define MPI_COMBINER_HINDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT 10
#define MPI_COMBINER_SUBARRAY 11
#define MPI_COMBINER_DARRAY 12
#define MPI_COMBINER_F90_REAL 13
#define MPI_COMBINER_F90_COMPLEX 14
#define MPI_COMBINER_F90_INTEGER 15
#define MPI_COMBINER_RESIZED 16
#define MPI_COMBINER_VALUE_INDEX 17

/* Array layouts and distributions (MPI_Type_create_subarray, MPI_Type_create_darray). */
#define MPI_ORDER_C 0
#define MPI_ORDER_FORTRAN 1
#define MPI_DISTRIBUTE_NONE 0
#define MPI_DISTRIBUTE_BLOCK 1
#define MPI_DISTRIBUTE_CYCLIC 2
#define MPI_DISTRIBUTE_DFLT_DARG (-1)

/* Classes of types (MPI_Type_match_size). */
#define MPI_TYPECLASS_INTEGER 1
#define MPI_TYPECLASS_REAL 2
#define MPI_TYPECLASS_COMPLEX 3

/* ---- 6. Collective communication ---- */

/* The send buffer that is the receive buffer. */
#define MPI_IN_PLACE ((void*)-1)

/* Predefined reduction operations; the handles of user operations (MPI_Op_create) start at
 * VMC_MPI_FIRST_USER_OP. */
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_MAX ((MPI_Op)1)
#define MPI_MIN ((MPI_Op)2)
#define MPI_SUM ((MPI_Op)3)
#define MPI_PROD ((MPI_Op)4)
#define MPI_LAND ((MPI_Op)5)
#define MPI_BAND ((MPI_Op)6)
#define MPI_LOR ((MPI_Op)7)
#define MPI_BOR ((MPI_Op)8)
#define MPI_LXOR ((MPI_Op)9)
#define MPI_BXOR ((MPI_Op)10)
#define MPI_MAXLOC ((MPI_Op)11)
#define MPI_MINLOC ((MPI_Op)12)
#define MPI_REPLACE ((MPI_Op)13)
#define MPI_NO_OP ((MPI_Op)14)
#define VMC_MPI_FIRST_USER_OP 32

/* A user's reduction (MPI_Op_create, MPI_Op_create_c). */
typedef void MPI_User_function(void* invec, void* inoutvec, int* len, MPI_Datatype* datatype);
typedef void MPI_User_function_c(void* invec, void* inoutvec, MPI_Count* len,
                                 MPI_Datatype* datatype);

/* ---- 7. Groups, contexts, communicators and caching ---- */

#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_COMM_WORLD ((MPI_Comm)1)
#define MPI_COMM_SELF ((MPI_Comm)2)
#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_GROUP_EMPTY ((MPI_Group)1)

/* Results of MPI_Comm_compare and MPI_Group_compare. */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* Split types (MPI_Comm_split_type). */
#define MPI_COMM_TYPE_SHARED 1
#define MPI_COMM_TYPE_HW_GUIDED 2
#define MPI_COMM_TYPE_HW_UNGUIDED 3
#define MPI_COMM_TYPE_RESOURCE_GUIDED 4

/* Names of communicators, datatypes and windows, and the string tags of
 * MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups. */
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_STRINGTAG_LEN 256

/* Caching: the callbacks of a key, the key no call returns, and the predefined callbacks
 * (NULL_COPY: not copied; DUP: the copy holds the same value; NULL_DELETE: nothing to do). */
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void* extra_state,
                                        void* attribute_val_in, void* attribute_val_out,
                                        int* flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void* attribute_val,
                                          void* extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void* extra_state,
                                        void* attribute_val_in, void* attribute_val_out,
                                        int* flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval,
                                          void* attribute_val, void* extra_state);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void* extra_state,
                                       void* attribute_val_in, void* attribute_val_out, int* flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void* attribute_val,
                                         void* extra_state);
#define MPI_KEYVAL_INVALID 0

int MPI_COMM_NULL_COPY_FN(MPI_Comm oldcomm, int comm_keyval, void* extra_state,
                          void* attribute_val_in, void* attribute_val_out, int* flag)
    VMC_MPI_LINK_NAME(MPI_COMM_NULL_COPY_FN);
int MPI_COMM_DUP_FN(MPI_Comm oldcomm, int comm_keyval, void* extra_state,
                    void* attribute_val_in, void* attribute_val_out, int* flag)
    VMC_MPI_LINK_NAME(MPI_COMM_DUP_FN);
int MPI_COMM_NULL_DELETE_FN(MPI_Comm comm, int comm_keyval, void* attribute_val,
                            void* extra_state) VMC_MPI_LINK_NAME(MPI_COMM_NULL_DELETE_FN);
int MPI_TYPE_NULL_COPY_FN(MPI_Datatype oldtype, int type_keyval, void* extra_state,
                          void* attribute_val_in, void* attribute_val_out, int* flag)
    VMC_MPI_LINK_NAME(MPI_TYPE_NULL_COPY_FN);
int MPI_TYPE_DUP_FN(MPI_Datatype oldtype, int type_keyval, void* extra_state,
                    void* attribute_val_in, void* attribute_val_out, int* flag)
    VMC_MPI_LINK_NAME(MPI_TYPE_DUP_FN);
int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype datatype, int type_keyval, void* attribute_val,
                            void* extra_state) VMC_MPI_LINK_NAME(MPI_TYPE_NULL_DELETE_FN);
int MPI_WIN_NULL_COPY_FN(MPI_Win oldwin, int win_keyval, void* extra_state,
                         void* attribute_val_in, void* attribute_val_out, int* flag)
    VMC_MPI_LINK_NAME(MPI_WIN_NULL_COPY_FN);
int MPI_WIN_DUP_FN(MPI_Win oldwin, int win_keyval, void* extra_state, void* attribute_val_in,
                   void* attribute_val_out, int* flag) VMC_MPI_LINK_NAME(MPI_WIN_DUP_FN);
int MPI_WIN_NULL_DELETE_FN(MPI_Win win, int win_keyval, void* attribute_val, void* extra_state)
    VMC_MPI_LINK_NAME(MPI_WIN_NULL_DELETE_FN);

/* ---- 8. Process topologies ---- */

/* Results of MPI_Topo_test (MPI_UNDEFINED: none). */
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3

/* Weights of a distributed graph: none given, and none to give (an empty neighbourhood). */
#define MPI_UNWEIGHTED ((int*)1)
#define MPI_WEIGHTS_EMPTY ((int*)2)

/* ---- 9. Environmental management ---- */

/* Lengths of the strings the environment returns, the terminating zero included. */
#define MPI_MAX_PROCESSOR_NAME 64
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_ERROR_STRING 1024 /* a failure's text names the call and its cause */

/* Predefined attribute keys: of MPI_COMM_WORLD (MPI_Comm_get_attr), then of windows. */
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_UNIVERSE_SIZE 5
#define MPI_LASTUSEDCODE 6
#define MPI_APPNUM 7
#define MPI_WIN_BASE 8
#define MPI_WIN_SIZE 9
#define MPI_WIN_DISP_UNIT 10
#define MPI_WIN_CREATE_FLAVOR 11
#define MPI_WIN_MODEL 12

/* Error handlers, and the functions a user's handler is (its variable arguments are the
 * implementation's). */
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)1)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)2)
#define MPI_ERRORS_ABORT ((MPI_Errhandler)3)
typedef void MPI_Comm_errhandler_function(MPI_Comm* comm, int* error_code, ...);
typedef void MPI_Win_errhandler_function(MPI_Win* win, int* error_code, ...);
typedef void MPI_File_errhandler_function(MPI_File* file, int* error_code, ...);
typedef void MPI_Session_errhandler_function(MPI_Session* session, int* error_code, ...);

/* Error classes: 0 is success; every class is at most MPI_ERR_LASTCODE, and the classes and
 * codes a program adds (MPI_Add_error_class) are above it. */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_UNSUPPORTED_OPERATION 20
#define MPI_ERR_ACCESS 21
#define MPI_ERR_AMODE 22
#define MPI_ERR_ASSERT 23
#define MPI_ERR_BAD_FILE 24
#define MPI_ERR_BASE 25
#define MPI_ERR_CONVERSION 26
#define MPI_ERR_DISP 27
#define MPI_ERR_DUP_DATAREP 28
#define MPI_ERR_FILE_EXISTS 29
#define MPI_ERR_FILE_IN_USE 30
#define MPI_ERR_FILE 31
#define MPI_ERR_INFO_KEY 32
#define MPI_ERR_INFO_NOKEY 33
#define MPI_ERR_INFO_VALUE 34
#define MPI_ERR_INFO 35
#define MPI_ERR_IO 36
#define MPI_ERR_KEYVAL 37
#define MPI_ERR_LOCKTYPE 38
#define MPI_ERR_NAME 39
#define MPI_ERR_NO_MEM 40
#define MPI_ERR_NOT_SAME 41
#define MPI_ERR_NO_SPACE 42
#define MPI_ERR_NO_SUCH_FILE 43
#define MPI_ERR_PORT 44
#define MPI_ERR_PROC_ABORTED 45
#define MPI_ERR_QUOTA 46
#define MPI_ERR_READ_ONLY 47
#define MPI_ERR_RMA_ATTACH 48
#define MPI_ERR_RMA_CONFLICT 49
#define MPI_ERR_RMA_RANGE 50
#define MPI_ERR_RMA_SHARED 51
#define MPI_ERR_RMA_SYNC 52
#define MPI_ERR_RMA_FLAVOR 53
#define MPI_ERR_SERVICE 54
#define MPI_ERR_SESSION 55
#define MPI_ERR_SIZE 56
#define MPI_ERR_SPAWN 57
#define MPI_ERR_UNSUPPORTED_DATAREP 58
#define MPI_ERR_VALUE_TOO_LARGE 59
#define MPI_ERR_WIN 60
#define MPI_ERR_ERRHANDLER 61
/* The tool interface's classes (chapter 15) are the next ones, 62 to 79. */
/* User-Level Failure Mitigation's class (the MPI Forum's fault-tolerance proposal; its
 * implementations call it MPIX_ERR_PROC_FAILED): a call that needed a process that has failed
 * (vmc mpirun --fail). */
#define MPI_ERR_PROC_FAILED 80
#define MPIX_ERR_PROC_FAILED MPI_ERR_PROC_FAILED
#define MPI_ERR_LASTCODE 127

/* ---- 10. The info object ---- */

#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_INFO_ENV ((MPI_Info)1)
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024

/* ---- 11. Process initialization, creation and management ---- */

/* Thread levels, in increasing order (MPI_Init_thread). */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* Sessions and their process sets. */
#define MPI_SESSION_NULL ((MPI_Session)0)
#define MPI_MAX_PSET_NAME_LEN 256

/* Arguments of MPI_Comm_spawn and MPI_Comm_spawn_multiple a caller need not give, and the
 * name of a port (MPI_Open_port). */
#define MPI_ARGV_NULL ((char**)0)
#define MPI_ARGVS_NULL ((char***)0)
#define MPI_ERRCODES_IGNORE ((int*)0)
#define MPI_MAX_PORT_NAME 256

/* ---- 12. One-sided communication ---- */

#define MPI_WIN_NULL ((MPI_Win)0)

/* Assertions of window synchronization; bits, distinct from the file modes (chapter 14). */
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384

/* Locks, how a window was made (MPI_WIN_CREATE_FLAVOR) and its memory model
 * (MPI_WIN_MODEL). */
#define MPI_LOCK_EXCLUSIVE 1
#define MPI_LOCK_SHARED 2
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2

/* ---- 13. External interfaces ---- */

/* The callbacks of a generalized request (MPI_Grequest_start). */
typedef int MPI_Grequest_query_function(void* extra_state, MPI_Status* status);
typedef int MPI_Grequest_free_function(void* extra_state);
typedef int MPI_Grequest_cancel_function(void* extra_state, int complete);

/* ---- 14. I/O ---- */

#define MPI_FILE_NULL ((MPI_File)0)

/* Access modes of MPI_File_open; bits. */
#define MPI_MODE_RDONLY 1
#define MPI_MODE_RDWR 2
#define MPI_MODE_WRONLY 4
#define MPI_MODE_CREATE 8
#define MPI_MODE_EXCL 16
#define MPI_MODE_DELETE_ON_CLOSE 32
#define MPI_MODE_UNIQUE_OPEN 64
#define MPI_MODE_SEQUENTIAL 128
#define MPI_MODE_APPEND 256

/* Where a seek counts from, and the displacement of a view that starts at the current
 * position. */
#define MPI_SEEK_SET 0
#define MPI_SEEK_CUR 1
#define MPI_SEEK_END 2
#define MPI_DISPLACEMENT_CURRENT ((MPI_Offset)-1)

/* Data representations (MPI_Register_datarep): the callbacks, and the conversion that does
 * nothing. */
#define MPI_MAX_DATAREP_STRING 128
typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint* extent,
                                        void* extra_state);
typedef int MPI_Datarep_conversion_function(void* userbuf, MPI_Datatype datatype, int count,
                                            void* filebuf, MPI_Offset position,
                                            void* extra_state);
typedef int MPI_Datarep_conversion_function_c(void* userbuf, MPI_Datatype datatype,
                                              MPI_Count count, void* filebuf,
                                              MPI_Offset position, void* extra_state);
#define MPI_CONVERSION_FN_NULL ((MPI_Datarep_conversion_function*)0)
#define MPI_CONVERSION_FN_NULL_C ((MPI_Datarep_conversion_function_c*)0)

/* ---- 15. Tool support ---- */

/* Handles of the tool interface, and their null values. */
typedef struct vmc_MPI_T_enum* MPI_T_enum;
typedef struct vmc_MPI_T_cvar_handle* MPI_T_cvar_handle;
typedef struct vmc_MPI_T_pvar_handle* MPI_T_pvar_handle;
typedef struct vmc_MPI_T_pvar_session* MPI_T_pvar_session;
typedef struct vmc_MPI_T_event_instance* MPI_T_event_instance;
typedef struct vmc_MPI_T_event_registration* MPI_T_event_registration;
#define MPI_T_ENUM_NULL ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
#define MPI_T_PVAR_ALL_HANDLES ((MPI_T_pvar_handle)1)

/* Verbosity of a variable, from the user's basic level to the implementer's every detail. */
#define MPI_T_VERBOSITY_USER_BASIC 1
#define MPI_T_VERBOSITY_USER_DETAIL 2
#define MPI_T_VERBOSITY_USER_ALL 3
#define MPI_T_VERBOSITY_TUNER_BASIC 4
#define MPI_T_VERBOSITY_TUNER_DETAIL 5
#define MPI_T_VERBOSITY_TUNER_ALL 6
#define MPI_T_VERBOSITY_MPIDEV_BASIC 7
#define MPI_T_VERBOSITY_MPIDEV_DETAIL 8
#define MPI_T_VERBOSITY_MPIDEV_ALL 9

/* The object a variable or an event is bound to. */
#define MPI_T_BIND_NO_OBJECT 0
#define MPI_T_BIND_MPI_COMM 1
#define MPI_T_BIND_MPI_DATATYPE 2
#define MPI_T_BIND_MPI_ERRHANDLER 3
#define MPI_T_BIND_MPI_FILE 4
#define MPI_T_BIND_MPI_GROUP 5
#define MPI_T_BIND_MPI_OP 6
#define MPI_T_BIND_MPI_REQUEST 7
#define MPI_T_BIND_MPI_WIN 8
#define MPI_T_BIND_MPI_MESSAGE 9
#define MPI_T_BIND_MPI_INFO 10
#define MPI_T_BIND_MPI_SESSION 11

/* Scope of a control variable: who may change it and where it must agree. */
#define MPI_T_SCOPE_CONSTANT 1
#define MPI_T_SCOPE_READONLY 2
#define MPI_T_SCOPE_LOCAL 3
#define MPI_T_SCOPE_GROUP 4
#define MPI_T_SCOPE_GROUP_EQ 5
#define MPI_T_SCOPE_ALL 6
#define MPI_T_SCOPE_ALL_EQ 7

/* Classes of performance variables. */
#define MPI_T_PVAR_CLASS_STATE 1
#define MPI_T_PVAR_CLASS_LEVEL 2
#define MPI_T_PVAR_CLASS_SIZE 3
#define MPI_T_PVAR_CLASS_PERCENTAGE 4
#define MPI_T_PVAR_CLASS_HIGHWATERMARK 5
#define MPI_T_PVAR_CLASS_LOWWATERMARK 6
#define MPI_T_PVAR_CLASS_COUNTER 7
#define MPI_T_PVAR_CLASS_AGGREGATE 8
#define MPI_T_PVAR_CLASS_TIMER 9
#define MPI_T_PVAR_CLASS_GENERIC 10

/* What an event callback may do, and whether a source's events come in order. */
typedef enum MPI_T_cb_safety {
  MPI_T_CB_REQUIRE_NONE = 0,
  MPI_T_CB_REQUIRE_MPI_RESTRICTED = 1,
  MPI_T_CB_REQUIRE_THREAD_SAFE = 2,
  MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE = 3
} MPI_T_cb_safety;
typedef enum MPI_T_source_order {
  MPI_T_SOURCE_ORDERED = 0,
  MPI_T_SOURCE_UNORDERED = 1
} MPI_T_source_order;

/* Event callbacks. */
typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance,
                                     MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, void* user_data);
typedef void MPI_T_event_free_cb_function(MPI_T_event_registration event_registration,
                                          MPI_T_cb_safety cb_safety, void* user_data);
typedef void MPI_T_event_dropped_cb_function(MPI_Count count,
                                             MPI_T_event_registration event_registration,
                                             int source_index, MPI_T_cb_safety cb_safety,
                                             void* user_data);

/* Error classes of the tool interface (after MPI_ERR_ERRHANDLER, at most MPI_ERR_LASTCODE). */
#define MPI_T_ERR_MEMORY 62
#define MPI_T_ERR_NOT_INITIALIZED 63
#define MPI_T_ERR_CANNOT_INIT 64
#define MPI_T_ERR_INVALID 65
#define MPI_T_ERR_INVALID_INDEX 66
#define MPI_T_ERR_INVALID_ITEM 67
#define MPI_T_ERR_INVALID_SESSION 68
#define MPI_T_ERR_INVALID_HANDLE 69
#define MPI_T_ERR_INVALID_NAME 70
#define MPI_T_ERR_OUT_OF_HANDLES 71
#define MPI_T_ERR_OUT_OF_SESSIONS 72
#define MPI_T_ERR_CVAR_SET_NOT_NOW 73
#define MPI_T_ERR_CVAR_SET_NEVER 74
#define MPI_T_ERR_PVAR_NO_STARTSTOP 75
#define MPI_T_ERR_PVAR_NO_WRITE 76
#define MPI_T_ERR_PVAR_NO_ATOMIC 77
#define MPI_T_ERR_NOT_ACCESSIBLE 78
#define MPI_T_ERR_NOT_SUPPORTED 79

/* ---- 16. Deprecated interfaces ---- */

/* The callbacks of MPI_Keyval_create and their predefined values, and the earlier names of
 * the error handler functions. */
typedef int MPI_Copy_function(MPI_Comm oldcomm, int keyval, void* extra_state,
                              void* attribute_val_in, void* attribute_val_out, int* flag);
typedef int MPI_Delete_function(MPI_Comm comm, int keyval, void* attribute_val,
                                void* extra_state);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
int MPI_NULL_COPY_FN(MPI_Comm oldcomm, int keyval, void* extra_state, void* attribute_val_in,
                     void* attribute_val_out, int* flag) VMC_MPI_LINK_NAME(MPI_NULL_COPY_FN);
int MPI_DUP_FN(MPI_Comm oldcomm, int keyval, void* extra_state, void* attribute_val_in,
               void* attribute_val_out, int* flag) VMC_MPI_LINK_NAME(MPI_DUP_FN);
int MPI_NULL_DELETE_FN(MPI_Comm comm, int keyval, void* attribute_val, void* extra_state)
    VMC_MPI_LINK_NAME(MPI_NULL_DELETE_FN);

/* ---- 17. Removed interfaces ---- */

/* The function of MPI-1's MPI_Errhandler_create (the datatypes MPI_LB and MPI_UB are with the
 * other datatypes). */
typedef MPI_Comm_errhandler_function MPI_Handler_function;

/* ---- 19. Language bindings ---- */

/* A status as Fortran sees it: an array of MPI_F_STATUS_SIZE integers (MPI_Status_c2f) with
 * the source, the tag and the error at these indices, or the Fortran 2008 type; and the
 * statuses to ignore on that side. */
#define MPI_F_STATUS_SIZE 6
#define MPI_F_SOURCE 0
#define MPI_F_TAG 1
#define MPI_F_ERROR 2
typedef struct MPI_F08_status {
  MPI_Fint MPI_SOURCE;
  MPI_Fint MPI_TAG;
  MPI_Fint MPI_ERROR;
  MPI_Fint vmc_internal[MPI_F_STATUS_SIZE - 3];
} MPI_F08_status;
#define MPI_F_STATUS_IGNORE ((MPI_Fint*)0)
#define MPI_F_STATUSES_IGNORE ((MPI_Fint*)0)
#define MPI_F08_STATUS_IGNORE ((MPI_F08_status*)0)
#define MPI_F08_STATUSES_IGNORE ((MPI_F08_status*)0)

/* ---- The functions: every one of the tables, and its PMPI_ name ---- */

/* vmc_mpi_functions.h holds MPI-4.1's functions; vmc_mpi_removed_functions.h the MPI-1 ones
 * MPI-3.0 removed, which older programs still call. */

#define VMC_MPI_DECLARE(ret, name, params)      \
  ret name params VMC_MPI_LINK_NAME(name);      \
  ret P##name params VMC_MPI_LINK_NAME(P##name);
#define VMC_MPI_IMPLEMENTED(ret, name, params, args, comm) VMC_MPI_DECLARE(ret, name, params)
#define VMC_MPI_UNSUPPORTED(ret, name, params, args, comm) VMC_MPI_DECLARE(ret, name, params)
#include "vmc_mpi_functions.h"
#include "vmc_mpi_removed_functions.h"
#undef VMC_MPI_IMPLEMENTED
#undef VMC_MPI_UNSUPPORTED
#undef VMC_MPI_DECLARE

#ifdef __cplusplus
}
#endif

#endif /* VMC_MPI_H */
