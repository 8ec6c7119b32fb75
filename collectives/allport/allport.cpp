// What the all-port hypercube algorithms share; see allport.hpp.
#include "collectives/allport/allport.hpp"

#include <algorithm>
#include <cmath>

#include "collectives/costs/claims.hpp"
#include "collectives/patterns/binomial.hpp"
#include "collectives/primitives/blocks.hpp"
#include "runtime/ports.hpp"

namespace vmc::internal::allport {

int dimension(int p) { return patterns::ceil_log2(p); }

bool applies(const CostQuery& q) { return is_power_of_two(q.p); }
bool applies_combining(const CostQuery& q) { return is_power_of_two(q.p) && q.commutative; }

Windows combining_windows(std::size_t n, int d) {
  return patterns::allport::windows(n, static_cast<std::size_t>(std::max(d, 1)));
}

Bytes pack_windows(const void* data, const Windows& w, std::size_t item_size) {
  Bytes parts(w.count * w.size * item_size);
  for (std::size_t j = 0; j < w.count; ++j) {
    copy_items(at(parts.data(), j * w.size, item_size), at(data, w.start(j), item_size), w.size,
               item_size);
  }
  return parts;
}

void unpack_windows(const void* parts, const Windows& w, std::size_t item_size, void* data) {
  for (std::size_t j = 0; j < w.count; ++j) {
    copy_items(at(data, w.start(j), item_size), at(parts, j * w.size, item_size), w.size,
               item_size);
  }
}

WindowPlaces::WindowPlaces(const Windows& w, std::size_t item_size, void* data)
    : w_(w),
      item_size_(item_size),
      data_(data),
      apart_(w.size == 0 ? w.count : std::min(w.count, w.n / w.size)),
      rest_((w.count - apart_) * w.size * item_size) {}

char* WindowPlaces::operator()(std::size_t k) {
  return k < apart_ ? at(data_, w_.start(k), item_size_)
                    : at(rest_.data(), (k - apart_) * w_.size, item_size_);
}

void WindowPlaces::finish() {
  for (std::size_t k = apart_; k < w_.count; ++k) {
    copy_items(at(data_, w_.start(k), item_size_), (*this)(k), w_.size, item_size_);
  }
}

Picos fan(const CostQuery& q, int out, int in, bool paired, Picos t) {
  return port_rounds(q.model.port, out, in, paired) * t;
}

Claim claim(const CostQuery& q) {
  return on_machine(q, q.model.port == Port::all ? Claim::exact : Claim::lower_bound, true);
}

StepClocks::StepClocks(const CostQuery& q, int p)
    : q_(q), now_(p, 0), arrival_(p, 0), out_(p, 0), combined_(p, 0) {}

void StepClocks::message(int from, int to, std::size_t items) {
  const Picos t = q_.units.message(items);
  arrival_[to] = std::max(arrival_[to], now_[from] + t);
  // All ports: the node's messages of one step leave at once; else one after another.
  const bool at_once = port_hold(q_.model.port) == PortHold::nothing;
  out_[from] = at_once ? std::max(out_[from], t) : out_[from] + t;
}

void StepClocks::combine(int v, std::size_t items) { combined_[v] += items; }

void StepClocks::end_step() {
  for (std::size_t v = 0; v < now_.size(); ++v) {
    now_[v] = std::max(now_[v] + out_[v], arrival_[v]) + q_.units.combine(combined_[v]);
    arrival_[v] = out_[v] = 0;
    combined_[v] = 0;
  }
}

Picos StepClocks::finish() const { return *std::max_element(now_.begin(), now_.end()); }

namespace {
EdstPlan plan_of(std::size_t n, int trees, int packets) {
  EdstPlan plan;
  plan.trees = trees;
  plan.packets = packets;
  plan.pieces = patterns::allport::windows(n, static_cast<std::size_t>(trees) * packets);
  return plan;
}
Picos plan_time(const CostUnits& u, int d, const EdstPlan& plan) {
  if (plan.pieces.count == 0) return 0;
  const int h = patterns::allport::edst_height(d);
  return (plan.packets + h - 1) * u.message(plan.pieces.size);
}
}  // namespace

EdstPlan edst_plan(const CostUnits& u, int d, std::size_t n, std::size_t segment_items) {
  const int trees = static_cast<int>(std::min<std::size_t>(d, n));
  if (trees == 0) return {};
  const std::size_t per_tree = (n + trees - 1) / trees;
  const int most = static_cast<int>(std::min<std::size_t>(n / trees, kMaxPackets));
  auto clamp = [&](double m) {
    return static_cast<int>(std::clamp(m, 1.0, static_cast<double>(most)));
  };
  if (segment_items > 0) {
    return plan_of(n, trees, clamp(std::ceil(double(per_tree) / double(segment_items))));
  }
  const int h = patterns::allport::edst_height(d);
  // (M + H - 1)(alpha + n beta / (trees M)) is least at M = sqrt((H-1) n beta / (trees alpha)).
  const double best = u.alpha > 0 ? std::sqrt(double(h - 1) * double(n) * double(u.beta) /
                                              (double(trees) * double(u.alpha)))
                                  : double(most);
  EdstPlan chosen = plan_of(n, trees, 1);
  Picos chosen_time = plan_time(u, d, chosen);
  for (int m = clamp(std::floor(best) - 2); m <= clamp(std::ceil(best) + 2); ++m) {
    const EdstPlan candidate = plan_of(n, trees, m);
    const Picos t = plan_time(u, d, candidate);
    if (t < chosen_time) {
      chosen = candidate;
      chosen_time = t;
    }
  }
  return chosen;
}

Picos edst_time(const CostQuery& q, int d, const EdstPlan& plan) {
  if (plan.pieces.count == 0) return 0;
  const int h = patterns::allport::edst_height(d);
  const int per_round = q.model.port == Port::all ? 1 : plan.trees;  // the root's port
  return (plan.packets * per_round + h - 1) * q.units.message(plan.pieces.size);
}

}  // namespace vmc::internal::allport
