// Every collective operation of vmc, one header per operation (collectives/<op>/<op>.hpp),
// the registry of their algorithms and automatic selection.
//
//   #include "collectives/collectives.hpp"
//   vmc::allreduce(node.world(), std::span(x), vmc::ops::sum<float>());
#pragma once

#include "collectives/allgather/allgather.hpp"
#include "collectives/allgatherv/allgatherv.hpp"
#include "collectives/allreduce/allreduce.hpp"
#include "collectives/alltoall/alltoall.hpp"
#include "collectives/alltoallv/alltoallv.hpp"
#include "collectives/barrier/barrier.hpp"
#include "collectives/broadcast/broadcast.hpp"
#include "collectives/exscan/exscan.hpp"
#include "collectives/gather/gather.hpp"
#include "collectives/gatherv/gatherv.hpp"
#include "collectives/op.hpp"
#include "collectives/reduce/reduce.hpp"
#include "collectives/reduce_scatter/reduce_scatter.hpp"
#include "collectives/registry.hpp"
#include "collectives/scan/scan.hpp"
#include "collectives/scatter/scatter.hpp"
#include "collectives/scatterv/scatterv.hpp"
#include "collectives/selection/selection.hpp"
