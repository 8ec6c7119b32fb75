// Every collective operation of vmc, one header per operation (collectives/<op>/<op>.hpp;
// a v-variant such as allgatherv is declared beside its operation).
//
//   #include "collectives/collectives.hpp"
//   vmc::allreduce(node.world(), std::span(x), vmc::ops::sum<float>());
#pragma once

#include "collectives/allgather/allgather.hpp"
#include "collectives/allreduce/allreduce.hpp"
#include "collectives/alltoall/alltoall.hpp"
#include "collectives/barrier/barrier.hpp"
#include "collectives/broadcast/broadcast.hpp"
#include "collectives/exscan/exscan.hpp"
#include "collectives/gather/gather.hpp"
#include "collectives/op.hpp"
#include "collectives/reduce/reduce.hpp"
#include "collectives/reduce_scatter/reduce_scatter.hpp"
#include "collectives/registry.hpp"
#include "collectives/scan/scan.hpp"
#include "collectives/scatter/scatter.hpp"
