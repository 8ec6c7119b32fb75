// The path every public collective takes: check the call across the comm, pick the
// algorithm (forced by name or chosen by cost), run it.
#pragma once

#include "collectives/registry.hpp"

namespace vmc {

// Fills a CostQuery for this comm's machine and the call.
CostQuery make_query(const Comm& comm, std::size_t n, int root, std::size_t item_size,
                     const Op* op, bool in_place, const Options& options);

// Checks the signature across the comm, selects, and runs. `call.tag` is filled here.
// Throws UsageError naming the node when the input is bad or the algorithm not applicable.
void invoke(Operation operation, Call call, const CostQuery& query, const CallSignature& sig);

}  // namespace vmc
