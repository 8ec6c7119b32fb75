// 004's dimension-ordered pipeline (DOPL, §6.2) as the broadcast (§9), the reduction-to-one
// (§11) and the reduction-to-all (§12) run it: the choice of k_alt and k_i, each node's
// program of sends and receives, and that program replayed for the cost. The schedule itself
// (who sends which part to whom at each step) is patterns/mesh_dopl.hpp.
//
// The broadcast program: at each step the tails send their wraparounds whole, then every
// node on a line receives each piece of the line's part from the node before it and sends
// it to the node after it; the heads take their wraparounds last (no head forwards the part
// a wraparound brings). The reduction program is that program reversed (004 §6.2: "to create
// a pipeline that originates at the leaves and culminates at the root node, simply vary i
// from k_alt - d - 2 down to 0 and reverse the direction of the message sends"): the
// steps in the opposite order, each send a receive and each receive a send; within a step a
// line's pieces still flow first to last, and a head sends its wraparound at the start of
// its step (the broadcast's head takes it at the end of the program; sent there, the
// reduction's wraparounds would all leave at once at the start and hold the heads and the
// tails' in-ports while the first steps pipeline: mesh:6x4 under 004's model, n = 65536,
// 378.5 ms against 249.8 ms). A head has nothing of that part to wait for (the broadcast
// never has it forward the part its wraparound brings). Since the
// broadcast gives every node every part exactly once (tests/collectives/
// mesh_dopl_pattern_test.cpp), its messages are, per part, the edges of a spanning tree
// rooted at the root; reversed, every node sends each item once, to its parent, after it has
// combined the items of its whole subtree (it received them where the broadcast sent them,
// and the broadcast sends an item only after it received it). Reversing every program and
// every message keeps the order in which two nodes' messages match (first sent, first
// received, both reversed) and keeps the wait-for graph acyclic; the moved wraparounds and
// pieces keep it so on every mesh the tests run (the replay throws where programs cannot
// end).
//
// The steps, overlapped or synchronized (Options::dopl_steps). By default (`overlap`, vmc's
// choice) a node goes on to its next step as soon as it is done with its own part of the
// last, so the lines of consecutive steps overlap, a message may wait for an in-port another
// holds, and the time is the programs replayed, no closed form. 004 §6.2 couples its
// dimension order with "explicit synchronization"; `synchronized` follows it where the plan
// has more than one part (one part has nothing in flight to keep apart): between
// consecutive steps every member takes part in a dissemination barrier of empty messages,
// ceil(log2 p) rounds, in round j a synchronous send to rank + 2^j and a receive from
// rank - 2^j (mod p; the reduction's rounds the broadcast's reversed, rank - 2^j and
// rank + 2^j, so its empty messages run the way its pieces do). A round's message starts
// only once its receiver has posted that round's receive, so it never takes an in-port a
// step's message still needs; every member leaves the barrier ceil(log2 p) alpha after the
// last one came, and all start the next step together. The broadcast's heads take their
// wraparounds within their step (their in-ports are idle there). So each step takes its
// own time, that of its lines of m_i nodes pipelining k_i pieces with the wraparounds
// beside them, and the DOPL's time is the sum of the steps, each replayed alone, and of the
// barriers (tools/formulas_004.cpp writes it in 004's terms, and docs/004-formulas.md holds
// it exact on 004's meshes). The barrier's messages run on links too: on the group's own
// mesh with 004's root-relative lines the tests find none that shares a link with a step's
// message (tests/collectives/mesh_dopl_test.cpp, every root of several meshes).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "collectives/costs/blocking_replay.hpp"
#include "collectives/patterns/mesh_dopl.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

// The choices: the number of parts and the items per piece of each part and dimension.
// Every part is ceil(n/k_alt) items and every piece of a part along dimension i is
// ceil(part/k_i) items, the last ones padded (as the SC broadcast's and the DG reduction's
// blocks: the padding travels and is dropped), so that every message of a step is one
// length: 004 §9's n/k_alt and n/(k_alt k_i), rounded up to whole items. The programs work
// on the padded vector, part q at q span(shape) (mesh/dopl.cpp copies the caller's vector
// in and out where it is not already that layout).
struct DoplPlan {
  int k_alt = 1;
  // beta: the time per item of a piece at a node in the middle of a line: 004 §9's beta for
  // the broadcast, §11's beta + gamma for the reduction (it receives, combines, sends on).
  double alpha = 0, beta = 0;
  std::size_t n = 0, segment = 0;
  // Options::dopl_steps == synchronized and k_alt > 1: a dissemination barrier between
  // consecutive steps (with one part there is nothing in flight to keep apart).
  bool synchronized = false;
  // The items of a part, ceil(n / k_alt) (the wraparound's message).
  std::size_t part_items() const;
  // Items per piece along dimension dim (004 §9/§11's k_i pieces per part, or
  // Options::segment_items), and the pieces of a part, ceil(part_items / piece).
  std::size_t piece(const patterns::MeshShape& shape, int dim) const;
  std::size_t pieces(const patterns::MeshShape& shape, int dim) const;
  // A part's room in the padded vector: its pieces' items, the most over the dimensions.
  std::size_t span(const patterns::MeshShape& shape) const;
  // Part q's first item in the padded vector, and that vector's length.
  std::size_t part_begin(const patterns::MeshShape& shape, int q) const {
    return std::size_t(q) * span(shape);
  }
  std::size_t padded(const patterns::MeshShape& shape) const {
    return std::size_t(k_alt) * span(shape);
  }
};

// 004 §9's T_DOPL (§11's with beta + gamma for beta) for k parts, in real numbers:
//   (k - 1)(alpha + n/k beta)
//   + sum_i (ceil((k + d - 1 - i)/d)(m_i - 1) + k_i - 1)(alpha + n/(k k_i) beta).
double dopl_formula_004(const patterns::MeshShape& shape, const DoplPlan& plan, int k);

// The plan of a DOPL of n items on `shape`: k_alt minimising dopl_formula_004 over
// k_alt = 1 .. min(15, n) (004 §15.2: the formula is convex in k_alt, which "will never
// exceed ten or fifteen"), except where alternation cannot help or cannot overlap: one
// dimension, n < 2, the exchange and half port models (a node cannot send a wraparound
// while it receives pieces from another neighbour; 004 §2 assumption 5 is duplex), and the
// rendezvous protocol (a wraparound sent before its receive is posted would hold its sender
// up and can deadlock). `reduction` selects §11's beta + gamma for §9's beta.
DoplPlan dopl_plan(const CostUnits& u, const Model& model, const patterns::MeshShape& shape,
                   std::size_t n, const Options& o, bool reduction);
DoplPlan dopl_plan(const CostQuery& q, bool reduction);

// One operation of a node's program, on the items [first, first + items) of the vector; or
// (from >= 0) one round of the barrier between two steps: an empty message to `peer`, a
// synchronous send (it starts once `peer` has posted its receive for it, so it never takes
// an in-port a step's message still needs), and at once the receive of one from `from`.
struct DoplOp {
  bool send = false;
  int peer = -1;
  std::size_t first = 0, items = 0;
  int from = -1;
};

// What `rank` does at step `step` of the program in the order it runs (the reduction's
// steps are the broadcast's reversed: its step e is the broadcast's k_alt + d - 2 - e, each
// send a receive and each receive a send). `in_step`: the broadcast's heads take their
// wraparounds in their own step, not at the end of the program.
std::vector<DoplOp> dopl_step_program(const patterns::MeshShape& shape, int root,
                                      const DoplPlan& plan, int rank, int step, bool reduction,
                                      bool in_step);

// What `rank` does, in order: the broadcast program, or reversed, the reduction's; where
// the plan is synchronized, the steps with the barrier's rounds between them (round j to
// rank + 2^j and from rank - 2^j, mod p: ceil(log2 p) rounds).
std::vector<DoplOp> dopl_program(const patterns::MeshShape& shape, int root,
                                 const DoplPlan& plan, int rank, bool reduction);

// Every node's program replayed under q's machine (costs/blocking_replay.hpp); in the
// reduction each receive is followed by its combine.
BlockingReplay::Result dopl_replay(const CostQuery& q, const patterns::MeshShape& shape,
                                   int root, const DoplPlan& plan, bool reduction);

// The time of a DOPL: k_alt = 1 in closed form (pipelined chains, dimension after
// dimension, k_i pieces of ceil(n/k_i) items: 004 §9's formula at whole pieces), else the
// replay; synchronized, the sum of the steps, each replayed alone (every node starts it at
// the barrier's end), and of the barriers, ceil(log2 p) startups of an empty message each
// (every member leaves a dissemination barrier ceil(log2 p) alpha after the last came).
Picos dopl_cost(const CostQuery& q, int root, bool reduction);

// The claim of dopl_cost on q's machine: every message runs along one line, each directed
// link of a line carries the broadcast's messages of one sender only (patterns/
// mesh_dopl.hpp) and the reduction's messages to one receiver only (whose in-port takes one
// at a time); so on the group's own mesh no message waits for a link or shares one.
Claim dopl_claim(const CostQuery& q, int root, bool reduction);

// "k_alt = K; k_i = ..." for explain, "; steps synchronized" after it where the plan is (no
// comma: sweep CSVs print it as a field).
std::string dopl_detail(const CostQuery& q, bool reduction);

// Run the broadcast of buf (n items) from `root`, or the reduction of acc (n items, the
// node's contribution, overwritten by partial results; the root's ends as the result) to it.
void dopl_broadcast(const Comm& c, void* buf, std::size_t n, std::size_t isz, int root,
                    const Options& o, Tag tag);
void dopl_reduce(const Comm& c, void* acc, std::size_t n, std::size_t isz, const Op& op,
                 int root, const Options& o, Tag tag);

}  // namespace vmc::internal
