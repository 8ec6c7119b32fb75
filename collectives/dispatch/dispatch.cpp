// The common call path of the front doors (dispatch.hpp).
#include "collectives/dispatch/dispatch.hpp"

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "collectives/dispatch/checks.hpp"
#include "collectives/execution/run_row.hpp"
#include "collectives/registry/registry.hpp"
#include "collectives/selection/selection.hpp"
#include "runtime/errors.hpp"

namespace vmc {

namespace {

Choice choose_for(Operation operation, const Call& call, const CostQuery& query) {
  try {
    return choose(operation, query);
  } catch (const std::invalid_argument& e) {
    throw UsageError(call.comm->who() + ": " + e.what());
  }
}

void run_choice(Operation operation, const Choice& choice, Call call, const CallSignature& sig) {
  // A family's `_optimal` row runs the member selection chose for it (the copy made only
  // then: a default Options makes a text, on every call).
  std::optional<Options> with_member;
  if (choice.member >= 0) {
    with_member.emplace(*call.options);
    with_member->hybrid = choice.member;
    call.options = &*with_member;
  }
  run_row(operation, *choice.row, call, sig);
}

// A node's last call of a regular collective and what was chosen for it (Comm::call_memo).
// Its query is made of these numbers and options and of the comm's (topology, steady model,
// units, members: fixed for a comm, whose id and weight are compared, in one run: the memo is
// let go of when a run starts), so selection would choose again what it chose then; the
// registry's count of registrations is compared as selection's own memo compares it.
struct LastCall final : detail::CallMemo {
  std::uint32_t comm = 0;
  std::size_t weight = 0;  // 0: nothing remembered (a comm's weight is at least 1)
  Operation operation = Operation::barrier;
  std::size_t n = 0;
  int root = 0;
  std::size_t item_size = 0;
  bool has_op = false;
  bool commutative = true;
  bool in_place = false;
  std::uint64_t registrations = 0;
  std::string algorithm;
  std::size_t segment_items = 0;
  std::vector<int> strategy;
  int hybrid = -1;
  DoplSteps dopl_steps = DoplSteps::overlap;
  Choice choice;

  bool repeated_by(Operation o, const Call& c, bool inplace, std::uint64_t registered) const {
    const Options& x = *c.options;
    return o == operation && c.n == n && c.root == root && c.item_size == item_size &&
           in_place == inplace && (c.op != nullptr) == has_op &&
           (c.op == nullptr || c.op->commutative() == commutative) &&
           c.comm->id() == comm && c.comm->weight() == weight &&
           registered == registrations && x.segment_items == segment_items &&
           x.hybrid == hybrid && x.dopl_steps == dopl_steps && x.algorithm == algorithm &&
           x.strategy == strategy;
  }
  void remember(Operation o, const Call& c, bool inplace, std::uint64_t registered,
                const Choice& chosen) {
    const Options& x = *c.options;
    comm = c.comm->id();
    weight = c.comm->weight();
    operation = o;
    n = c.n;
    root = c.root;
    item_size = c.item_size;
    has_op = c.op != nullptr;
    commutative = c.op == nullptr || c.op->commutative();
    in_place = inplace;
    registrations = registered;
    if (algorithm != x.algorithm) algorithm = x.algorithm;
    segment_items = x.segment_items;
    if (strategy != x.strategy) strategy = x.strategy;
    hybrid = x.hybrid;
    dopl_steps = x.dopl_steps;
    choice = chosen;
  }
};

}  // namespace

void dispatch(Operation operation, Call call, const CostQuery& query, const CallSignature& sig) {
  run_choice(operation, choose_for(operation, call, query), call, sig);
}

void dispatch_regular(Operation operation, Call call, bool in_place, const CallSignature& sig) {
  const Options& options = *call.options;
  if (options.custom != nullptr) {  // a row not in the registry: nothing is remembered
    dispatch(operation, call,
             make_query(*call.comm, call.n, call.root, call.item_size, call.op, in_place, options),
             sig);
    return;
  }
  std::unique_ptr<detail::CallMemo>& memo = call.comm->call_memo();
  if (memo == nullptr) memo = std::make_unique<LastCall>();
  LastCall& last = static_cast<LastCall&>(*memo);
  const std::uint64_t registered = registrations();
  if (!last.repeated_by(operation, call, in_place, registered)) {
    last.remember(operation, call, in_place, registered,
                  choose_for(operation, call,
                             make_query(*call.comm, call.n, call.root, call.item_size, call.op,
                                        in_place, options)));
  }
  const Choice choice = last.choice;  // a row that calls a collective remembers its own
  run_choice(operation, choice, call, sig);
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
  dispatch_regular(operation, call, in_place, sig);
}

}  // namespace vmc
