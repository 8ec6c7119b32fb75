// Intercommunicators (mpi/intercomm.cpp): what the other files of the MPI front door call.
// The MPI functions that only intercommunicators have (MPI_Intercomm_create, _merge,
// MPI_Comm_remote_size, _remote_group) are defined there; the ones that take any
// communicator call these when theirs is an intercommunicator (state.hpp's Intercomm).
#pragma once

#include <vector>

#include "mpi/include/mpi.h"
#include "mpi/state.hpp"

namespace vmc::mpi {

// Whether `comm` names a live intercommunicator of the calling rank (false outside a session
// and for an invalid handle: the caller's own checks report those).
bool is_inter(MPI_Comm comm);

// A collective's root argument on an intercommunicator whose remote group has `remote_size`
// ranks: MPI_ROOT or MPI_PROC_NULL in the root's group, a remote rank in the other
// (MPI_ERR_ROOT).
void check_inter_root(const char* fn, int root, int remote_size);

// MPI_Comm_dup, _split and _create on intercommunicator `comm` (checked by the caller): the
// new intercommunicator's handle, or MPI_COMM_NULL (split and create: this rank is in no
// new group, or its new group has no remote side). The new one takes `errhandler`.
MPI_Comm dup_inter(const char* fn, RankState& s, MPI_Comm comm, MPI_Errhandler errhandler);
MPI_Comm split_inter(const char* fn, RankState& s, MPI_Comm comm, int color, int key);
MPI_Comm create_inter(const char* fn, RankState& s, MPI_Comm comm,
                      const std::vector<int>& members);
// MPI_Comm_free of an intercommunicator: its handles of the rank's own go with it.
void free_inter(RankState& s, const CommEntry& e);
// MPI_Comm_compare when either is an intercommunicator.
int compare_inter(const CommEntry& a, const CommEntry& b);

// The blocking collectives on an intercommunicator (MPI-4.1 section 6.2.2): the same
// arguments as the MPI functions, which call these first when `comm` is one.
int inter_barrier(MPI_Comm comm);
int inter_bcast(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm);
int inter_reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root, MPI_Comm comm);
int inter_allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op, MPI_Comm comm);
int inter_scan(const char* fn, MPI_Comm comm);  // MPI_Scan and MPI_Exscan: MPI_ERR_COMM
int inter_reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int inter_reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm);
int inter_gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int inter_gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                  MPI_Comm comm);
int inter_scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm);
int inter_scatterv(const void* sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype,
                   int root, MPI_Comm comm);
int inter_allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int inter_allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                     MPI_Comm comm);
int inter_alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm);
int inter_alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                    const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm);

}  // namespace vmc::mpi
