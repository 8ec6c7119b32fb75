// The nonblocking and persistent collectives on an intercommunicator (mpi/nbc_inter.cpp): the
// same arguments as mpi/nbc.cpp's calls, which call these when `comm` is one. `fn` names the
// MPI function ("MPI_Ibcast", "MPI_Bcast_init"); `persistent`: the _init form (the request
// started by MPI_Start). Counts and displacements are read into MPI_Count-wide values at once.
#pragma once

#include "mpi/counts.hpp"
#include "mpi/include/mpi.h"

namespace vmc::mpi {

int inter_nbc_barrier(const char* fn, MPI_Comm comm, MPI_Request* request, bool persistent);
int inter_nbc_bcast(const char* fn, void* buffer, MPI_Count count, MPI_Datatype datatype,
                    int root, MPI_Comm comm, MPI_Request* request, bool persistent);
// Ireduce (`all` false) and Iallreduce (`all` true, `root` unused).
int inter_nbc_reduce(const char* fn, const void* sendbuf, void* recvbuf, MPI_Count count,
                     MPI_Datatype datatype, MPI_Op op, int root, bool all, MPI_Comm comm,
                     MPI_Request* request, bool persistent);
// Ireduce_scatter (`recvcounts`) and Ireduce_scatter_block (`recvcounts` null, `recvcount`).
int inter_nbc_reduce_scatter(const char* fn, const void* sendbuf, void* recvbuf,
                             CountArray recvcounts, MPI_Count recvcount, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm, MPI_Request* request, bool persistent);
// Igather (`v` false: `recvcount` from each) and Igatherv (`recvcounts`, `displs`).
int inter_nbc_gather(const char* fn, const void* sendbuf, MPI_Count sendcount,
                     MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                     CountArray recvcounts, CountArray displs, MPI_Datatype recvtype, int root,
                     MPI_Comm comm, MPI_Request* request, bool persistent, bool v);
// Iscatter (`v` false: `sendcount` to each) and Iscatterv (`sendcounts`, `displs`).
int inter_nbc_scatter(const char* fn, const void* sendbuf, MPI_Count sendcount,
                      CountArray sendcounts, CountArray displs, MPI_Datatype sendtype,
                      void* recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Request* request, bool persistent, bool v);
// Iallgather (`v` false) and Iallgatherv.
int inter_nbc_allgather(const char* fn, const void* sendbuf, MPI_Count sendcount,
                        MPI_Datatype sendtype, void* recvbuf, MPI_Count recvcount,
                        CountArray recvcounts, CountArray displs, MPI_Datatype recvtype,
                        MPI_Comm comm, MPI_Request* request, bool persistent, bool v);
// Ialltoall (`v` false) and Ialltoallv.
int inter_nbc_alltoall(const char* fn, const void* sendbuf, MPI_Count sendcount,
                       CountArray sendcounts, CountArray sdispls, MPI_Datatype sendtype,
                       void* recvbuf, MPI_Count recvcount, CountArray recvcounts,
                       CountArray rdispls, MPI_Datatype recvtype, MPI_Comm comm,
                       MPI_Request* request, bool persistent, bool v);
// Ialltoallw (and the blocking MPI_Alltoallw, which waits for it at once).
int inter_nbc_alltoallw(const char* fn, const void* sendbuf, CountArray sendcounts,
                        CountArray sdispls, const MPI_Datatype* sendtypes, void* recvbuf,
                        CountArray recvcounts, CountArray rdispls,
                        const MPI_Datatype* recvtypes, MPI_Comm comm, MPI_Request* request,
                        bool persistent);

}  // namespace vmc::mpi
