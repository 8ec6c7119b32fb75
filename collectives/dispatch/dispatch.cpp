// The common call path of the front doors (dispatch.hpp).
#include "collectives/dispatch/dispatch.hpp"

#include <optional>
#include <stdexcept>
#include <string_view>

#include "collectives/dispatch/checks.hpp"
#include "collectives/execution/run_row.hpp"
#include "collectives/selection/selection.hpp"
#include "runtime/errors.hpp"

namespace vmc {

void dispatch(Operation operation, Call call, const CostQuery& query, const CallSignature& sig) {
  std::optional<Choice> choice;
  try {
    choice = choose(operation, query);
  } catch (const std::invalid_argument& e) {
    throw UsageError(call.comm->who() + ": " + e.what());
  }
  // A family's `_optimal` row runs the member selection chose for it (the copy made only
  // then: a default Options makes a text, on every call).
  std::optional<Options> with_member;
  if (choice->member >= 0) {
    with_member.emplace(*call.options);
    with_member->hybrid = choice->member;
    call.options = &*with_member;
  }
  run_row(operation, *choice->row, call, sig);
}

void dispatch_itemwise(Operation operation, const Comm& comm, const void* send,
                       std::size_t send_items, void* recv, std::size_t recv_items,
                       std::size_t item_size, const Op& op, const Options& options) {
  const std::string_view name = traits(operation).name;  // no text made per call
  internal::require_valid(comm, name);
  internal::require_op_items(comm, op, item_size, name);
  const bool in_place = send == nullptr;
  const std::size_t n = in_place ? recv_items : send_items;
  if (!in_place) {
    internal::require_recv_holds(comm, name, recv_items, n);
    internal::require_no_alias(comm, send, n * item_size, recv, n * item_size, name);
  }
  CallSignature sig{.operation = name, .op = op.name(), .root = -1, .count = n,
                    .item_size = item_size};
  Call call{.comm = &comm, .send = send, .recv = recv, .n = n, .item_size = item_size,
            .op = &op, .options = &options};
  dispatch(operation, call, make_query(comm, n, 0, item_size, &op, in_place, options), sig);
}

}  // namespace vmc
