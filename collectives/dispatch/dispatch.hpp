// The path every public collective takes after its front door has checked the call: choose
// the row (forced by name or chosen by selection) and, for a hybrid family's `_optimal` row,
// its member; then run it.
#pragma once

#include "collectives/vocabulary/call.hpp"
#include "collectives/vocabulary/operation.hpp"
#include "collectives/vocabulary/query.hpp"

namespace vmc {

// Chooses and runs. `call.tag` is filled here. Throws UsageError naming the node when the
// algorithm named is unknown or not applicable, or when no algorithm applies.
void dispatch(Operation operation, Call call, const CostQuery& query, const CallSignature& sig);

// The same for a call of a regular collective (no counts), whose query is
// make_query(comm, call.n, call.root, call.item_size, call.op, in_place, options): a call that
// repeats this node's previous call on the same comm runs the row chosen then without building
// the query or asking selection again (a program's loop of small calls).
void dispatch_regular(Operation operation, Call call, bool in_place, const CallSignature& sig);

// The front door of the operations that combine every node's vector item by item, the
// result on every node (allreduce, scan, exscan): the input checks, the call and its
// dispatch. send == nullptr: in place (recv holds the node's contribution).
void dispatch_itemwise(Operation operation, const Comm& comm, const void* send,
                       std::size_t send_items, void* recv, std::size_t recv_items,
                       std::size_t item_size, const Op& op, const Options& options);

}  // namespace vmc
