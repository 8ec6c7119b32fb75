/* vmc's mpi.h: the MPI interface as programs built by vmcc see it (C and C++). Every rank of
 * `vmc mpirun -np P ./prog` is a private copy of the program in one process (mpi/program.hpp);
 * these functions run the calls on the rank's emulated node (libvmc_mpi, the files of mpi/).
 *
 * Written for vmc from the MPI standard's semantics. Handles are ints. What is here: start and
 * end (Init, Initialized, Finalize, Finalized, Abort), ranks and sizes, the clock (Wtime is
 * the node's modelled time), blocking send and receive with an explicit source and tag,
 * Get_count, and the collectives Barrier, Bcast, Reduce and Allreduce. Not yet: MPI_ANY_SOURCE
 * and MPI_ANY_TAG in receives (an error that says so), nonblocking calls, communicators other
 * than MPI_COMM_WORLD and MPI_COMM_SELF, derived datatypes, user ops, error handlers (every
 * error is fatal: MPI_ERRORS_ARE_FATAL ends the run naming the rank and the function).
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

#define MPI_VERSION 3
#define MPI_SUBVERSION 1

/* Handles. */
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Errhandler;
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

#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)1)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)2)

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

/* Thread levels (MPI_Init_thread is not here yet). */
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
#define MPI_ERR_LASTCODE 64

/* Start and end. */
int MPI_Init(int* argc, char*** argv) VMC_MPI_LINK_NAME(MPI_Init);
int MPI_Initialized(int* flag) VMC_MPI_LINK_NAME(MPI_Initialized);
int MPI_Finalize(void) VMC_MPI_LINK_NAME(MPI_Finalize);
int MPI_Finalized(int* flag) VMC_MPI_LINK_NAME(MPI_Finalized);
int MPI_Abort(MPI_Comm comm, int errorcode) VMC_MPI_LINK_NAME(MPI_Abort);

/* Communicators. */
int MPI_Comm_rank(MPI_Comm comm, int* rank) VMC_MPI_LINK_NAME(MPI_Comm_rank);
int MPI_Comm_size(MPI_Comm comm, int* size) VMC_MPI_LINK_NAME(MPI_Comm_size);

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

#ifdef __cplusplus
}
#endif

#endif /* VMC_MPI_H */
