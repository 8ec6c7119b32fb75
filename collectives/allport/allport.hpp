// What the all-port hypercube algorithms share (000 §7; the patterns are in
// collectives/patterns/allport.hpp): the cube's dimension, what a node's fan of messages
// costs under each port model, the packet plan of the pipelined edge-disjoint trees, and the
// claim every all-port row makes.
//
// The schedules move equal windows in lockstep steps: every node posts its step's isends and
// irecvs, one per tree (so one per link), and waits for all of them before the next step.
// A directed link between neighbours is then only ever used by its sender, one message at a
// time, so under `--port all` nothing waits on a whole hypercube (e-cube routes between
// neighbours are one link) nor where links are private: the formulas are exact there. Under
// the one-port models the same messages queue at the ports; there the formulas count only
// what must queue (a node's own sends pass its port one after another), a lower bound.
#pragma once

#include <cstddef>
#include <vector>

#include "collectives/patterns/allport.hpp"
#include "collectives/vocabulary/row.hpp"
#include "runtime/scratch.hpp"

namespace vmc::internal::allport {

using patterns::allport::Windows;

// d = log2 p (p a power of two).
int dimension(int p);
// What the rows require: p a power of two, and a commutative op for those that combine (their
// trees combine subcubes in the order of rotated dimensions, not in rank order).
bool applies(const CostQuery& q);
bool applies_combining(const CostQuery& q);
// The windows of the rows that combine: min(d, n) of them, and one (no step) for p = 1.
Windows combining_windows(std::size_t n, int d);

// The windows of a vector side by side, window j at item j * w.size (each window is a
// message of the schedules), and back (later windows overwrite the items they share).
Bytes pack_windows(const void* data, const Windows& w, std::size_t item_size);
void unpack_windows(const void* parts, const Windows& w, std::size_t item_size, void* data);

// Where a node that receives every window of a vector keeps them: the first n / size windows,
// which lie apart, in the vector itself; only the last ones, which overlap their neighbours,
// in scratch of their own, copied into the vector by finish() (after the node has sent them
// on). So a node copies no other window a second time and holds no second vector (which, at
// p nodes in a broadcast at once, was p vectors of scratch: 1 GiB for 1 MiB on 1,024).
class WindowPlaces {
 public:
  WindowPlaces(const Windows& w, std::size_t item_size, void* data);
  char* operator()(std::size_t k);
  void finish();

 private:
  Windows w_;
  std::size_t item_size_;
  void* data_;
  std::size_t apart_;  // windows 0 .. apart_ - 1 are in the vector
  Bytes rest_;
};

// Time a node needs to send `out` and receive `in` messages of duration t each, all posted
// at once to or from different neighbours: t under all-port (0 without messages); else the
// messages pass the node's port(s) one at a time: max(out, in) t under duplex, and under
// exchange when every send goes to a node it also receives from (`paired`), otherwise
// (out + in) t. Never more than the messages take.
Picos fan(const CostQuery& q, int out, int in, bool paired, Picos t);

// The claim of every all-port row: under `--port all` its formula is exact where no two of
// its messages can share a link (the cube pattern on a whole hypercube, or private links),
// a lower bound elsewhere and under rendezvous; under the other port models a lower bound.
Claim claim(const CostQuery& q);

// A replay of a lockstep schedule whose nodes drift apart (combines, uneven blocks): in each
// step every node posts its messages at once and waits for all of them, then combines. A
// message starts when its sender reaches the step and ends alpha + n beta later; a node's
// step ends when its last message does, then its combines run. Under all-port that is the
// schedule itself: exact where the all-port claim is. Under the other port models a node's
// own sends also pass its out-port one after another (and everything else can only wait
// longer): a lower bound.
class StepClocks {
 public:
  StepClocks(const CostQuery& q, int p);
  // A message of `items` items from -> to in the current step.
  void message(int from, int to, std::size_t items);
  // Combining `items` items on v after the current step's messages.
  void combine(int v, std::size_t items);
  void end_step();
  Picos finish() const;  // the latest node

 private:
  const CostQuery& q_;
  std::vector<Picos> now_, arrival_, out_;
  std::vector<std::size_t> combined_;
};

// The pipelined edge-disjoint trees (broadcast allport_edst): `trees` = min(d, n) trees each
// carry `packets` packets; the vector is cut into trees * packets equal windows, window
// i * trees + j being packet i of tree j.
struct EdstPlan {
  int trees = 0;
  int packets = 0;
  Windows pieces;
};
// At most this many packets per tree (the receives a node posts at once).
constexpr int kMaxPackets = 64;
// The plan for n items on a d-cube: `segment_items` per packet when given (clamped to
// 1..kMaxPackets packets), else the packet count near sqrt((H-1) n beta / (trees alpha)) with
// the least time (M + H - 1)(alpha + b beta), H = edst_height(d), b the packet size.
EdstPlan edst_plan(const CostUnits& u, int d, std::size_t n, std::size_t segment_items);
// Time of a plan: (M + H - 1)(alpha + b beta) under all-port; under the other port models
// the root's M rounds of t packets pass its port one at a time before the last packet's
// H - 1 more hops: (M t + H - 1)(alpha + b beta), a lower bound.
Picos edst_time(const CostQuery& q, int d, const EdstPlan& plan);

}  // namespace vmc::internal::allport
