// Every collective operation of vmc, one header per operation (collectives/<op>/<op>.hpp).
//
//   #include "collectives/collectives.hpp"
//   vmc::allreduce(node.world(), std::span(x), vmc::ops::sum<float>());
#pragma once

#include "collectives/allreduce/allreduce.hpp"
#include "collectives/barrier/barrier.hpp"
#include "collectives/broadcast/broadcast.hpp"
#include "collectives/exscan/exscan.hpp"
#include "collectives/op.hpp"
#include "collectives/reduce/reduce.hpp"
#include "collectives/registry.hpp"
#include "collectives/scan/scan.hpp"

// The block collectives. Guarded while their headers are being written; the guard goes
// once every one of them exists.
#if __has_include("collectives/allgather/allgather.hpp")
#include "collectives/allgather/allgather.hpp"
#endif
#if __has_include("collectives/allgatherv/allgatherv.hpp")
#include "collectives/allgatherv/allgatherv.hpp"
#endif
#if __has_include("collectives/reduce_scatter/reduce_scatter.hpp")
#include "collectives/reduce_scatter/reduce_scatter.hpp"
#endif
#if __has_include("collectives/scatter/scatter.hpp")
#include "collectives/scatter/scatter.hpp"
#endif
#if __has_include("collectives/scatterv/scatterv.hpp")
#include "collectives/scatterv/scatterv.hpp"
#endif
#if __has_include("collectives/gather/gather.hpp")
#include "collectives/gather/gather.hpp"
#endif
#if __has_include("collectives/gatherv/gatherv.hpp")
#include "collectives/gatherv/gatherv.hpp"
#endif
#if __has_include("collectives/alltoall/alltoall.hpp")
#include "collectives/alltoall/alltoall.hpp"
#endif
#if __has_include("collectives/alltoallv/alltoallv.hpp")
#include "collectives/alltoallv/alltoallv.hpp"
#endif
