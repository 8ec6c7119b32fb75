// reduce mesh_dopl: 004's DOPL reduction-to-one (§6.2, §11) with one part (k_alt = 1): the
// DOPL broadcast's pipeline reversed. "To create a pipeline that originates at the leaves and
// culminates at the root node, simply vary i ... down to 0 and reverse the direction of the
// message sends": along every line of dimension d-1, then d-2, ..., 0 (in phase i the lines
// through the nodes that agree with the root in the dimensions above i, patterns::
// dopl_chain), the vector flows in pieces from the chain's tail to its head (the node with
// the root's coordinate); each node combines a piece into its own partial result before it
// passes it on, so the head of a chain ends with the chain's sum and carries it into the
// next phase. After dimension 0 the root holds the result.
//
// Choices: k_i = 004 §11's sqrt((m_i - 2) n (beta + gamma) / alpha) pieces along dimension i
// (patterns::dopl_pieces with beta + gamma), or pieces of Options::segment_items items. Only
// k_alt = 1: with more parts the broadcast re-transmits its last part on some lines and some
// nodes receive it twice, which reversed would send a partial result twice and count it
// twice.
//
// Requires: a commutative op (a chain runs from the root's coordinate up the line and around,
// not in rank order).
// Cost: the phases one after the other (every chain of a phase starts together: its nodes
// all headed chains of the same length in the phase before), each the pipeline of its chain
// of m_i nodes replayed piece by piece: the tail sends its pieces back to back; a node
// takes piece k when it has arrived and it is done with piece k-1, combines it (s_k gamma)
// and sends it on (alpha + s_k beta), the head ends with its last combine. 004 §11's form,
// sum_i (m_i + k_i - 2)(alpha + n/k_i (beta + gamma)), is near it for equal pieces. Exact
// under duplex and all-port nodes on the group's own mesh and on private links (each
// directed link of a line carries one sender's messages, patterns/mesh_dopl.hpp; a node's
// send and receive overlap); a lower bound under exchange and half ports (a node's send and
// receive take turns). 0 for n = 0.
#include <algorithm>

#include "collectives/costs/claims.hpp"
#include "collectives/patterns/mesh_dopl.hpp"
#include "collectives/primitives/blocks.hpp"
#include "collectives/primitives/buffers.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/primitives/p2p.hpp"
#include "collectives/primitives/trees.hpp"
#include "collectives/vocabulary/row.hpp"

namespace vmc::internal {

namespace {
std::size_t piece_items(const CostUnits& u, const Options& o, int m, std::size_t n) {
  if (o.segment_items > 0) return std::min(o.segment_items, std::max<std::size_t>(1, n));
  const double beta = double(u.item_time()) + double(u.gamma);
  return ceil_div(n, patterns::dopl_pieces(m, n, double(u.alpha), beta, 1));
}

// One chain of m nodes, n items in pieces of s: when its head is done.
Picos chain_time(const CostQuery& q, int m, std::size_t n, std::size_t s) {
  if (m <= 1 || n == 0) return 0;
  std::vector<Picos> sent(m, 0);  // when node j (0 the tail) sent its latest piece
  Picos head = 0;
  for (std::size_t first = 0; first < n; first += s) {
    const std::size_t len = std::min(s, n - first);
    const Picos message = trees::msg(q, len), combine = trees::comb(q, len);
    Picos arrived = sent[0] += message;  // the tail sends back to back
    for (int j = 1; j < m - 1; ++j) {
      sent[j] = std::max(arrived, sent[j]) + combine + message;
      arrived = sent[j];
    }
    head = std::max(arrived, head) + combine;
  }
  return head;
}
}  // namespace

bool applicable_reduce_mesh_dopl(const CostQuery& q) { return q.commutative; }

Picos cost_reduce_mesh_dopl(const CostQuery& q) {
  if (q.n == 0) return 0;
  const patterns::MeshShape shape = mesh_shape_of(q);
  Picos t = 0;
  for (int i = 0; i < shape.dimensions(); ++i) {
    const int m = shape.lengths[i];
    t = checked_add(t, chain_time(q, m, q.n, piece_items(q.units, q.options, m, q.n)),
                    "reduce time");
  }
  return t;
}

void run_reduce_mesh_dopl(const Call& call) {
  const Comm& c = *call.comm;
  if (call.n == 0) return;
  const patterns::MeshShape shape = mesh_shape_of(c);
  const std::size_t isz = call.item_size;
  auto acc = contribution(call, call.n);
  Bytes tmp;
  for (int dim = shape.dimensions() - 1; dim >= 0; --dim) {
    const patterns::DoplChain chain = patterns::dopl_chain(shape, call.root, dim, c.rank());
    if (!chain.active) continue;
    const std::size_t s = piece_items(c.units(), *call.options, shape.lengths[dim], call.n);
    tmp.resize(s * isz);
    for (std::size_t first = 0; first < call.n; first += s) {
      const std::size_t len = std::min(s, call.n - first);
      char* mine = at(acc.data(), first, isz);
      if (chain.next >= 0) {
        recv_message(c, tmp.data(), len, isz, chain.next, call.tag);
        trees::combine(c, *call.op, mine, tmp.data(), mine, len);
      }
      if (chain.prev >= 0) send_message(c, mine, len, isz, chain.prev, call.tag);
    }
  }
  if (c.rank() == call.root) deliver(call, acc);
}

Claim claim_reduce_mesh_dopl(const CostQuery& q) {
  return on_own_mesh(q, two_sided_ports(q) ? Claim::exact : Claim::lower_bound);
}

std::string detail_reduce_mesh_dopl(const CostQuery& q) {
  const patterns::MeshShape shape = mesh_shape_of(q);
  std::string s = "k_i =";
  for (int i = 0; i < shape.dimensions(); ++i) {
    const std::size_t piece = piece_items(q.units, q.options, shape.lengths[i], q.n);
    s += ' ';
    s += std::to_string(q.n == 0 ? 0 : ceil_div(q.n, piece));
  }
  return s;
}

Algorithm reduce_mesh_dopl_row() {
  return {
      .name = "mesh_dopl",
      .description = "the DOPL broadcast's pipeline reversed, one part: pieces flow up every line "
                     "of one dimension, then the next, combined on the way (004 §6.2/§11 DOPL "
                     "reduction-to-one), k_i = sqrt((m_i - 2) n (beta + gamma) / alpha) pieces",
      .requirements = "a commutative op",
      .applicable = applicable_reduce_mesh_dopl,
      .cost = cost_reduce_mesh_dopl,
      .run = run_reduce_mesh_dopl,
      .detail = detail_reduce_mesh_dopl,
      .claim = claim_reduce_mesh_dopl,
  };
}

}  // namespace vmc::internal
