// The algorithm registry as a program sees it: the operations (vocabulary/operation.hpp),
// what a row is and what it is given (vocabulary/row.hpp, query.hpp, call.hpp), and the
// tables, with register_algorithm to add a row of one's own (registry/registry.hpp).
// One table per operation: the selector, the CLI, the docs and the tests all read them.
// With it come the runtime's Comm and the buffers a row's run moves data with
// (runtime/scratch.hpp).
#pragma once

#include "collectives/registry/registry.hpp"
#include "collectives/vocabulary/call.hpp"
#include "collectives/vocabulary/operation.hpp"
#include "collectives/vocabulary/query.hpp"
#include "collectives/vocabulary/row.hpp"
#include "runtime/comm.hpp"
#include "runtime/scratch.hpp"
