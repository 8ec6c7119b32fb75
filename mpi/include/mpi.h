/* vmc's mpi.h: the MPI interface as programs built by vmcc see it (C and C++). Every rank of
 * `vmc mpirun -np P ./prog` is a private copy of the program in one process (mpi/program.hpp);
 * these functions run the calls on the rank's emulated node (libvmc_mpi, the files of mpi/).
 *
 * Written for vmc from the MPI standard's semantics. Handles are ints, each rank's own. What is
 * here: start and end (Init, Init_thread, Initialized, Finalize, Finalized, Abort), the
 * environment (versions, processor name, the clock: Wtime is the node's modelled time, the
 * predefined attributes), communicators (WORLD, SELF, dup, split, split_type, create,
 * create_group, free, compare, names), groups, attributes, error handlers and error strings,
 * blocking send and receive with an explicit source and tag, Get_count, and the collectives
 * (Barrier, Bcast, Gather(v), Scatter(v), Allgather(v), Alltoall(v), Reduce, Allreduce,
 * Reduce_scatter(_block), Scan, Exscan) on the predefined datatypes and operations. Not yet:
 * MPI_ANY_SOURCE and MPI_ANY_TAG in receives (an error that says so), nonblocking calls,
 * derived datatypes, user operations, intercommunicators (docs/mpi.md).
 *
 * Link names: each function is declared with the assembler name vmc_<function> (vmc_MPI_Send
 * for MPI_Send), so that a program's calls reach vmc's library and never an MPI library the
 * vmc program itself may be linked with. Source code calls MPI_Send as usual. */
#ifndef VMC_MPI_H
#define VMC_MPI_H

#ifdef __cplusplus
extern "C" {
#endif

#define VMC_MPI_LINK_NAME(name) __asm__("vmc_" #name)

#define MPI_VERSION 4
#define MPI_SUBVERSION 1

/* Handles. */
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Errhandler;
typedef int MPI_Group;
typedef int MPI_Info;
typedef long long MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;

/* What a receive tells about the message it took. count is private: use MPI_Get_count. */
typedef struct MPI_Status {
  int MPI_SOURCE;
  int MPI_TAG;
  int MPI_ERROR;
  long long vmc_bytes;
} MPI_Status;

/* Communicators. */
#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_COMM_WORLD ((MPI_Comm)1)
#define MPI_COMM_SELF ((MPI_Comm)2)

/* Predefined datatypes (values are vmc's own). */
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
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

/* Predefined reduction operations. */
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

/* Groups, and the results of MPI_Comm_compare and MPI_Group_compare. */
#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_GROUP_EMPTY ((MPI_Group)1)
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* Split types (MPI_Comm_split_type), and the longest name of a communicator. */
#define MPI_COMM_TYPE_SHARED 1
#define MPI_COMM_TYPE_HW_GUIDED 2
#define MPI_COMM_TYPE_HW_UNGUIDED 3
#define MPI_COMM_TYPE_RESOURCE_GUIDED 4
#define MPI_MAX_OBJECT_NAME 128

/* Info objects (only their null handle and the environment's: vmc reads no hints). */
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_INFO_ENV ((MPI_Info)1)

/* Caching: a key's callbacks, and the key no call returns. */
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void* extra_state,
                                        void* attribute_val_in, void* attribute_val_out,
                                        int* flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void* attribute_val,
                                          void* extra_state);
typedef int MPI_Copy_function(MPI_Comm oldcomm, int keyval, void* extra_state,
                              void* attribute_val_in, void* attribute_val_out, int* flag);
typedef int MPI_Delete_function(MPI_Comm comm, int keyval, void* attribute_val,
                                void* extra_state);
#define MPI_KEYVAL_INVALID 0

/* Predefined attribute keys (MPI_Comm_get_attr). */
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_UNIVERSE_SIZE 5
#define MPI_LASTUSEDCODE 6
#define MPI_APPNUM 7

#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)1)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)2)
#define MPI_ERRORS_ABORT ((MPI_Errhandler)3)
/* A user's error handler (its variable arguments are the implementation's: vmc passes none). */
typedef void MPI_Comm_errhandler_function(MPI_Comm* comm, int* error_code, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;

/* Wildcards and special ranks. */
#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_UNDEFINED (-32766)
#define MPI_STATUS_IGNORE ((MPI_Status*)0)
#define MPI_STATUSES_IGNORE ((MPI_Status*)0)
#define MPI_IN_PLACE ((void*)-1)
#define MPI_BOTTOM ((void*)0)
#define MPI_TAG_UB_VALUE 2147483647
#define MPI_MAX_PROCESSOR_NAME 64
#define MPI_MAX_ERROR_STRING 256
#define MPI_MAX_LIBRARY_VERSION_STRING 256

/* Thread levels (MPI_Init_thread provides MPI_THREAD_FUNNELED at most: each rank is one
 * thread of control). */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* Error classes. */
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
/* Every class is at most MPI_ERR_LASTCODE; those a program adds (MPI_Add_error_class) are
 * above it. */
#define MPI_ERR_LASTCODE 127

/* Start and end. */
int MPI_Init(int* argc, char*** argv) VMC_MPI_LINK_NAME(MPI_Init);
int MPI_Initialized(int* flag) VMC_MPI_LINK_NAME(MPI_Initialized);
int MPI_Finalize(void) VMC_MPI_LINK_NAME(MPI_Finalize);
int MPI_Finalized(int* flag) VMC_MPI_LINK_NAME(MPI_Finalized);
int MPI_Abort(MPI_Comm comm, int errorcode) VMC_MPI_LINK_NAME(MPI_Abort);
int MPI_Init_thread(int* argc, char*** argv, int required, int* provided)
    VMC_MPI_LINK_NAME(MPI_Init_thread);
int MPI_Query_thread(int* provided) VMC_MPI_LINK_NAME(MPI_Query_thread);
int MPI_Is_thread_main(int* flag) VMC_MPI_LINK_NAME(MPI_Is_thread_main);
int MPI_Get_version(int* version, int* subversion) VMC_MPI_LINK_NAME(MPI_Get_version);
int MPI_Get_library_version(char* version, int* resultlen)
    VMC_MPI_LINK_NAME(MPI_Get_library_version);

/* Errors. */
int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function* comm_errhandler_fn,
                               MPI_Errhandler* errhandler)
    VMC_MPI_LINK_NAME(MPI_Comm_create_errhandler);
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
    VMC_MPI_LINK_NAME(MPI_Comm_set_errhandler);
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler)
    VMC_MPI_LINK_NAME(MPI_Comm_get_errhandler);
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
    VMC_MPI_LINK_NAME(MPI_Comm_call_errhandler);
int MPI_Errhandler_free(MPI_Errhandler* errhandler) VMC_MPI_LINK_NAME(MPI_Errhandler_free);
int MPI_Error_string(int errorcode, char* string, int* resultlen)
    VMC_MPI_LINK_NAME(MPI_Error_string);
int MPI_Error_class(int errorcode, int* errorclass) VMC_MPI_LINK_NAME(MPI_Error_class);
int MPI_Add_error_class(int* errorclass) VMC_MPI_LINK_NAME(MPI_Add_error_class);
int MPI_Add_error_code(int errorclass, int* errorcode) VMC_MPI_LINK_NAME(MPI_Add_error_code);
int MPI_Add_error_string(int errorcode, const char* string)
    VMC_MPI_LINK_NAME(MPI_Add_error_string);

/* Communicators. */
int MPI_Comm_rank(MPI_Comm comm, int* rank) VMC_MPI_LINK_NAME(MPI_Comm_rank);
int MPI_Comm_size(MPI_Comm comm, int* size) VMC_MPI_LINK_NAME(MPI_Comm_size);
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) VMC_MPI_LINK_NAME(MPI_Comm_dup);
int MPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm* newcomm)
    VMC_MPI_LINK_NAME(MPI_Comm_dup_with_info);
int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm)
    VMC_MPI_LINK_NAME(MPI_Comm_split);
int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info,
                        MPI_Comm* newcomm) VMC_MPI_LINK_NAME(MPI_Comm_split_type);
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm)
    VMC_MPI_LINK_NAME(MPI_Comm_create);
int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm)
    VMC_MPI_LINK_NAME(MPI_Comm_create_group);
int MPI_Comm_free(MPI_Comm* comm) VMC_MPI_LINK_NAME(MPI_Comm_free);
int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result)
    VMC_MPI_LINK_NAME(MPI_Comm_compare);
int MPI_Comm_set_name(MPI_Comm comm, const char* comm_name) VMC_MPI_LINK_NAME(MPI_Comm_set_name);
int MPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen)
    VMC_MPI_LINK_NAME(MPI_Comm_get_name);
int MPI_Comm_test_inter(MPI_Comm comm, int* flag) VMC_MPI_LINK_NAME(MPI_Comm_test_inter);

/* Attributes of communicators, and the deprecated names of the same calls. */
int MPI_Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                           MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                           void* extra_state) VMC_MPI_LINK_NAME(MPI_Comm_create_keyval);
int MPI_Comm_free_keyval(int* comm_keyval) VMC_MPI_LINK_NAME(MPI_Comm_free_keyval);
int MPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val)
    VMC_MPI_LINK_NAME(MPI_Comm_set_attr);
int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void* attribute_val, int* flag)
    VMC_MPI_LINK_NAME(MPI_Comm_get_attr);
int MPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) VMC_MPI_LINK_NAME(MPI_Comm_delete_attr);
int MPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                      void* extra_state) VMC_MPI_LINK_NAME(MPI_Keyval_create);
int MPI_Keyval_free(int* keyval) VMC_MPI_LINK_NAME(MPI_Keyval_free);
int MPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) VMC_MPI_LINK_NAME(MPI_Attr_put);
int MPI_Attr_get(MPI_Comm comm, int keyval, void* attribute_val, int* flag)
    VMC_MPI_LINK_NAME(MPI_Attr_get);
int MPI_Attr_delete(MPI_Comm comm, int keyval) VMC_MPI_LINK_NAME(MPI_Attr_delete);

/* Groups. */
int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) VMC_MPI_LINK_NAME(MPI_Comm_group);
int MPI_Group_size(MPI_Group group, int* size) VMC_MPI_LINK_NAME(MPI_Group_size);
int MPI_Group_rank(MPI_Group group, int* rank) VMC_MPI_LINK_NAME(MPI_Group_rank);
int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup)
    VMC_MPI_LINK_NAME(MPI_Group_incl);
int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup)
    VMC_MPI_LINK_NAME(MPI_Group_excl);
int MPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup)
    VMC_MPI_LINK_NAME(MPI_Group_range_incl);
int MPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup)
    VMC_MPI_LINK_NAME(MPI_Group_range_excl);
int MPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup)
    VMC_MPI_LINK_NAME(MPI_Group_union);
int MPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup)
    VMC_MPI_LINK_NAME(MPI_Group_intersection);
int MPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup)
    VMC_MPI_LINK_NAME(MPI_Group_difference);
int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                              int ranks2[]) VMC_MPI_LINK_NAME(MPI_Group_translate_ranks);
int MPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result)
    VMC_MPI_LINK_NAME(MPI_Group_compare);
int MPI_Group_free(MPI_Group* group) VMC_MPI_LINK_NAME(MPI_Group_free);

/* The clock: the node's modelled time in seconds, and its resolution. */
double MPI_Wtime(void) VMC_MPI_LINK_NAME(MPI_Wtime);
double MPI_Wtick(void) VMC_MPI_LINK_NAME(MPI_Wtick);
int MPI_Get_processor_name(char* name, int* resultlen) VMC_MPI_LINK_NAME(MPI_Get_processor_name);

/* Point to point. */
int MPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
             MPI_Comm comm) VMC_MPI_LINK_NAME(MPI_Send);
int MPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status* status) VMC_MPI_LINK_NAME(MPI_Recv);
int MPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count)
    VMC_MPI_LINK_NAME(MPI_Get_count);
int MPI_Type_size(MPI_Datatype datatype, int* size) VMC_MPI_LINK_NAME(MPI_Type_size);

/* Collectives. */
int MPI_Barrier(MPI_Comm comm) VMC_MPI_LINK_NAME(MPI_Barrier);
int MPI_Bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
    VMC_MPI_LINK_NAME(MPI_Bcast);
int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm) VMC_MPI_LINK_NAME(MPI_Reduce);
int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                  MPI_Op op, MPI_Comm comm) VMC_MPI_LINK_NAME(MPI_Allreduce);
int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
    VMC_MPI_LINK_NAME(MPI_Gather);
int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm) VMC_MPI_LINK_NAME(MPI_Gatherv);
int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
    VMC_MPI_LINK_NAME(MPI_Scatter);
int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) VMC_MPI_LINK_NAME(MPI_Scatterv);
int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
    VMC_MPI_LINK_NAME(MPI_Allgather);
int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                   MPI_Comm comm) VMC_MPI_LINK_NAME(MPI_Allgatherv);
int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
    VMC_MPI_LINK_NAME(MPI_Alltoall);
int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                  const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
    VMC_MPI_LINK_NAME(MPI_Alltoallv);
int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
    VMC_MPI_LINK_NAME(MPI_Reduce_scatter);
int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
    VMC_MPI_LINK_NAME(MPI_Reduce_scatter_block);
int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm) VMC_MPI_LINK_NAME(MPI_Scan);
int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm) VMC_MPI_LINK_NAME(MPI_Exscan);

#ifdef __cplusplus
}
#endif

#endif /* VMC_MPI_H */
