// One node's part of a call of a row (run_row.hpp).
#include "collectives/execution/run_row.hpp"

#include <optional>
#include <stdexcept>

#include "collectives/registry/registry.hpp"

namespace vmc {

void run_row(Operation op, const Algorithm& row, Call call, CallSignature sig) {
  const Comm& comm = *call.comm;
  sig.algorithm = row.name;
  call.tag = comm.begin_collective(sig);
  const Comm::CollectiveScope scope(comm);
  std::optional<Op> no_op;
  if (!comm.moves_data() && !runs_timing_only(op, row)) {
    throw std::invalid_argument(to_string(op) + ": algorithm " + row.name +
                                " was registered without timing_only, so it cannot run on a "
                                "timing-only machine (Data::none)");
  }
  if (call.op != nullptr && !comm.moves_data()) {
    no_op.emplace(call.op->name(), call.op->commutative(), call.op->item_size(),
                  [](const void*, const void*, void*, std::size_t) {});
    call.op = &*no_op;
  }
  row.run(call);
}

}  // namespace vmc
