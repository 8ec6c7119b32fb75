// `vmc figure 004-formulas` (tools/formulas_004.hpp): 004's formulas against vmc's runs.
//
// Each case is one (operation, algorithm, hybrid member, mesh, n) at root 0, run timing only
// on the virtual clock under 004's model (§2: duplex ports, wormhole routing, links shared at
// max(beta_node, c beta_net) per item with beta_net = beta) with 000's iPSC/860 costs, as
// 004's figures are made (docs/figures.md). The formula of the row is 004's, written below
// from its text in 004's n (the whole vector: p blocks for the collect and the distributed
// reduction, p^2 for the all-to-all), citing the section and the equation; the hybrids'
// equations are garbled in the OCR copy (../shared/seeds/004_*.txt), and where their
// structure is legible they are the sum of 004's own terms over the member's rings or
// scattered lines, which the row says. Where 004 gives no formula for an algorithm vmc runs,
// the row says so and has no verdict.
//
// Verdicts: "exact" (the run equals the formula to the picosecond), "exact after whole
// pieces" (it equals the formula at n rounded up to a multiple of the pieces the algorithm
// cuts the vector into: vmc pads the last piece), or "different" with its reason. A
// reduction that differs under the eager protocol is run again under rendezvous, the row
// beside it: where that one is exact, the difference is eager overlap (a node combines one
// child's vector while the next arrives), a modelling choice 004's sums do not make. A
// difference whose reason this file does not name is "different, unexplained".
#include "tools/formulas_004.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "collectives/mesh/dopl.hpp"
#include "collectives/mesh/mst_sc.hpp"
#include "collectives/patterns/binomial.hpp"
#include "collectives/patterns/mesh_rings.hpp"
#include "collectives/primitives/group_mesh.hpp"
#include "collectives/registry.hpp"
#include "tools/model_options.hpp"
#include "tools/runner.hpp"

namespace vmc::cli {
namespace {

// 000's iPSC/860 costs on 004's machine (docs/figures.md), in picoseconds; delta for the
// rearrangement table only.
constexpr double kAlpha = 525e6, kBeta = 2e6, kGamma = 0.35e6, kDelta = 0.5e6;
const char* const kModelFlags =
    "--port duplex --routing wormhole --contention shared --data none --alpha 525us --beta 2us "
    "--gamma 0.35us";

const std::vector<std::string>& meshes() {
  static const std::vector<std::string> all = {
      "mesh:2x3", "mesh:5x1",   "mesh:6x4",   "mesh:8x8",  "mesh:7x11",
      "mesh:16x16", "mesh:4x4x4", "torus:6x4", "torus:8x8"};
  return all;
}
// 1 and 7 (short), 1000 and 1003 (not multiples of most piece counts; 1003 = 17 x 59 of
// none of the meshes' p), 65536 (long).
const std::vector<std::size_t>& lengths() {
  static const std::vector<std::size_t> all = {1, 7, 1000, 1003, 65536};
  return all;
}

// One ring digit as 004's formulas see it: f nodes, c_{i,j} rings interleaved with it (its
// spacing: 004 §5.2, "the number of active rings in the i-th dimension that are interleaved
// with the j-th ring"), and whether it is a whole dimension (a dimensional ring, no
// rearrangement in 004's PFR-DR forms).
struct Ring {
  int f = 1, c = 1;
  bool whole = false;
};

std::vector<Ring> rings_of(const patterns::RingPlan& plan) {
  std::vector<Ring> r;
  for (const patterns::RingDigit& g : plan.digits) {
    r.push_back({g.radix, g.spacing, g.radix == plan.shape.lengths[g.dim]});
  }
  return r;
}

// 004 §5.2's dimension alternation: "utilizing rings that lie in different dimensions in
// the mesh ... In such cases, let c_{i,j} be the number of active rings in the i-th dimension
// that are interleaved with the j-th ring of that dimension. Thus, there will be at most
// c_{i,j} messages contending for a given link during a step of the PFR method." A stage s
// of an alternating plan is a set of rings spread over the dimensions (each node runs the
// digit patterns::stage_order names for it, the algorithm's schedule); a ring of f nodes
// `spacing` apart in dimension i is interleaved with the rings of its digit on the same line
// of dimension i (every other coordinate equal) and the same segment of f x spacing nodes,
// which differ from it in x_i mod spacing. So c_{i,j} counts the offsets x_i mod spacing of
// the segment that run that digit at stage s, the ring itself included (spacing of them
// without alternation, the non-alternating c above). A stage's digits have one radix (a
// rotation keeps radices), so its rings move alike and the stage takes its most contended
// ring's time: c_s = max_j c_{i,j}. `split`: the reduction-to-all hybrid's head, whose rings
// alternate by the tail's digits (patterns::stage_order); `alternation`: which groups rotate
// (every group in the all-to-all, 004 §13's "approximately 1/d of the nodes operate in rings
// that lie within each dimension").
std::vector<Ring> alternated_rings_of(
    const patterns::RingPlan& plan, int split = 0,
    patterns::Alternation alternation = patterns::Alternation::interleaved) {
  std::vector<Ring> rings = rings_of(plan);
  const patterns::MeshShape& shape = plan.shape;
  std::vector<std::vector<int>> order(shape.size());
  for (int x = 0; x < shape.size(); ++x) {
    order[x] = patterns::stage_order(plan, x, alternation, split);
  }
  for (int s = 0; s < plan.phases(); ++s) {
    std::map<std::vector<int>, std::set<int>> active;  // (digit, segment) -> offsets
    for (int x = 0; x < shape.size(); ++x) {
      const int t = order[x][s];
      const patterns::RingDigit& g = plan.digits[t];
      std::vector<int> key = shape.coordinates(x);
      const int offset = key[g.dim] % g.spacing;
      key[g.dim] -= key[g.dim] % (g.spacing * g.radix);
      key.push_back(t);
      active[key].insert(offset);
    }
    int c = 1;
    for (const auto& [segment, offsets] : active) c = std::max(c, int(offsets.size()));
    rings[s].c = c;
    rings[s].f = plan.digits[order[0][s]].radix;
  }
  return rings;
}

struct Units {
  double a = kAlpha, b = kBeta, g = kGamma, dl = 0;
};

// 004's ring sums (§8 T_PFR-COLLECT, §10 T_PFR-DISTRIBUTED REDUCTION, their DR and PFR-DR
// forms): sum over the digits (f - 1)(alpha + N / (prod of the digits from this one to the
// last) x per_item), the rings listed in collect order, so that the message of a digit is
// the vector over the rings "not yet collected" (for the reduction, the rings already
// reduced over, run in the opposite order: the same message).
double ring_sum(const std::vector<Ring>& rings, double N, double a,
                const std::function<double(const Ring&)>& per_item) {
  double t = 0;
  for (std::size_t s = 0; s < rings.size(); ++s) {
    double rest = 1;
    for (std::size_t k = s; k < rings.size(); ++k) rest *= rings[k].f;
    t += (rings[s].f - 1) * (a + N / rest * per_item(rings[s]));
  }
  return t;
}

// 004's formula for one row: the time at 004's n (picoseconds, a real number), what it is,
// and the pieces the algorithm cuts 004's n into (0: none). Empty `time`: 004 gives none.
struct Formula {
  std::string equation;  // e.g. "§9 T_SC-BROADCAST"
  std::string note;      // how it was read, where the text is garbled
  std::function<double(double)> time;
  double pieces = 0;
  // Where the row's formula is derived because 004 writes only an approximation: 004's own,
  // shown on the row beside it (`beside` names it there).
  std::string beside, beside_equation;
  std::function<double(double)> beside_time;
  // The reason the run differs from 004's own on that row (default: its approximation).
  std::string beside_reason = "004's approximation";
  // Where the pieces are not one count for the whole vector (the DOPL: k_alt parts, k_i
  // pieces per dimension): 004's formula with every part and piece rounded up to whole
  // items, for "exact after whole pieces".
  std::function<double(double)> whole_time;
  // The DOPL's whole-piece formula without its wraparound term ((k_alt - 1)(alpha + n/k_alt
  // beta)): the run where the wraparounds overlap the steps entirely.
  std::function<double(double)> without_wraps;
  // The DOPL with k_alt > 1 under `--dopl-steps synchronized`: the formula derived for that
  // schedule (dopl_synchronized), real and at whole pieces; empty where no half alternates.
  std::function<double(double)> synchronized, synchronized_whole;
};

// §9 T_DOPL-BROADCAST for k_alt parts of k_i pieces each (b: beta, or §11's beta + gamma).
// `whole`: every part and piece rounded up to whole items, ceil(n/k_alt) and
// ceil(ceil(n/k_alt)/k_i) (the last ones padded), for "exact after whole pieces".
double dopl_004(const patterns::MeshShape& shape, int k, const std::vector<double>& ki, double N,
                double a, double b, bool whole = false, bool wraps = true) {
  const int d = shape.dimensions();
  const double part = whole ? std::ceil(N / k) : N / k;
  double t = wraps ? (k - 1) * (a + part * b) : 0;
  for (int i = 0; i < d; ++i) {
    const double steps = std::ceil(double(k + d - 1 - i) / d) * (shape.lengths[i] - 1) + ki[i] - 1;
    t += steps * (a + (whole ? std::ceil(part / ki[i]) : part / ki[i]) * b);
  }
  return t;
}

// The DOPL with its steps synchronized (derived from 004 §6.2's schedule and "explicit
// synchronization", §9's terms; k_alt > 1, else 004's own at k_alt = 1, which has no
// barrier). Step s (s = 0 .. k_alt + d - 2) pipelines along the lines of dimension
// D = s mod d: every line that carries a part holds m_D nodes and pipelines k_D pieces of
// n/(k_alt k_D) items, and all start together when the barrier before the step ends, so
// the step takes (m_D - 1 + k_D - 1)(alpha + n/(k_alt k_D) b), its pieces drained (b: beta,
// or §11's beta + gamma, each piece combined where it arrives). The wraparounds of the
// step run beside it on ports it leaves idle (a tail's out-port and a head's in-port on
// their own line, 004 §6.2's "directly to the head node"), alpha + n/k_alt beta each, never
// longer than k_D pieces. Dimension i has ceil((k_alt + d - 1 - i)/d) steps (§9's factor).
// Between consecutive steps, k_alt + d - 2 of them, every member waits for the others: a
// dissemination barrier of empty messages, ceil(log2 p) rounds of alpha (each node sends
// one and receives one per round, duplex). So
//   T = sum_i ceil((k_alt + d - 1 - i)/d)(m_i + k_i - 2)(alpha + n/(k_alt k_i) b)
//       + (k_alt + d - 2) ceil(log2 p) alpha.
// The reduction's tail combines its wraparound's part after its pieces (n/k_alt gamma more)
// and ends before the step's head, which combines the last of (m_D - 1 + k_D - 1) pieces.
double dopl_synchronized(const patterns::MeshShape& shape, int k, const std::vector<double>& ki,
                         double N, double a, double b, bool whole) {
  if (k == 1) return dopl_004(shape, k, ki, N, a, b, whole);
  const int d = shape.dimensions();
  const double part = whole ? std::ceil(N / k) : N / k;
  double t = (k + d - 2) * patterns::ceil_log2(shape.size()) * a;
  for (int i = 0; i < d; ++i) {
    const double uses = std::ceil(double(k + d - 1 - i) / d);
    t += uses * (shape.lengths[i] + ki[i] - 2) *
         (a + (whole ? std::ceil(part / ki[i]) : part / ki[i]) * b);
  }
  return t;
}

// The parts and pieces of vmc's DOPL plan for q (004 §15.2's k_alt and §9/§11's k_i: the
// algorithm's parameters, not its cost), as 004's formula takes them.
struct DoplChoice {
  int k = 1;
  std::vector<double> ki;
};
DoplChoice dopl_choice(const CostQuery& q, bool reduction) {
  const patterns::MeshShape shape = internal::mesh_shape_of(q);
  const internal::DoplPlan plan = internal::dopl_plan(q, reduction);
  DoplChoice c{plan.k_alt, {}};
  for (int i = 0; i < shape.dimensions(); ++i) c.ki.push_back(double(plan.pieces(shape, i)));
  return c;
}

// The MST-SC broadcast and MST-DG reduction-to-one (§9, §11) of member `member`: the scattered
// lines' SC or DG terms, then the MST groups' terms: ceil(log2 p_{d',1}) steps across the
// virtual dimension at max(beta_node, p_{d',0} beta_net) per item and ceil(log2 prod_{i<d'}
// m_i) within the lower dimensions, on blocks of n / B (B the scattered nodes).
Formula mst_sc_004(const patterns::MeshShape& shape, int member, bool reduce, const Units& u) {
  const int p = shape.size();
  const double g = reduce ? u.g : 0;
  if (member == 0) {
    return {reduce ? "§11 T_MST-REDUCTION-TO-ONE" : "§9 T_MST-BROADCAST",
            "member 0: the pure MST",
            [=](double N) { return patterns::ceil_log2(p) * (u.a + N * (u.b + g)); }, 0};
  }
  const internal::ScSplit s = internal::sc_split(shape, member);
  const double B = s.scattered.blocks();
  double lines = 0;
  for (const patterns::RingDigit& d : s.scattered.digits) {
    lines += patterns::ceil_log2(d.radix) + d.radix - 1;
  }
  int lower = 1;
  for (int i = 0; i < s.dim; ++i) lower *= shape.lengths[i];
  const int p0 = s.p0, p1 = s.p1();
  const bool all = member + 1 == internal::sc_members(shape);
  Formula f;
  if (all) {
    f.equation = reduce ? "§11 T_DG-REDUCTION-TO-ONE" : "§9 T_SC-BROADCAST";
    f.note = "the last member: pure " + std::string(reduce ? "DG" : "SC");
  } else {
    f.equation = reduce ? "§11 T_MST-DG-REDUCTION-TO-ONE" : "§9 T_MST-SC-BROADCAST";
    f.note = "garbled in the OCR text: its terms as legible, over the member's scattered "
             "lines and MST groups";
  }
  // 004's terms with c messages sharing a crossing link (004: p_{d',0}).
  const auto terms = [=](int c) {
    return [=](double N) {
      const double blk = N / B;
      double t = lines * u.a + (B - 1) * blk * (2 * u.b + g);
      if (p1 > 1) t += patterns::ceil_log2(p1) * (u.a + blk * (std::max(u.b, c * u.b) + g));
      t += patterns::ceil_log2(lower) * (u.a + blk * (u.b + g));
      return t;
    };
  };
  f.time = terms(p0);
  f.pieces = B;
  // The staggered line: the broadcast's scattered line of 3 in the virtual dimension whose
  // MST groups are pairs (one crossing step, no lower dimensions), its other scattered lines
  // of power-of-two length (they end together), the root at the line's end (root 0). 004's
  // MST scatter on a line of 3 (§5.1's recursive splitting: the root's range of 3 cut into
  // its own 2 and the far 1) sends the far node its block first, one message (alpha + n/B
  // beta) before the middle node has its own; the far node's crossing message then runs
  // alone for exactly its own length and ends as the other two start, so those share their
  // links two ways: §2's max(beta_node, c beta_net) with c = 2, not p_{d',0} = 3. The
  // formula of 004's schedule, derived so; 004's own (three sharers) on the row beside.
  bool others_even = true;
  for (const patterns::RingDigit& d : s.scattered.digits) {
    others_even &= d.dim == s.dim || (d.radix & (d.radix - 1)) == 0;
  }
  if (!reduce && !all && p0 == 3 && p1 == 2 && lower == 1 && others_even) {
    f.equation = "§9 T_MST-SC-BROADCAST, the staggered line (derived)";
    f.note = "derived: 004's schedule on the scattered line of 3 sends the far node its block "
             "first, so its crossing message runs alone and the other two share their links two "
             "ways (§2's c = 2, not p_{d',0} = 3); 004's own formula is the row below";
    f.time = terms(2);
    f.beside = "004's, three sharers";
    f.beside_reason = "groups start apart";
    f.beside_equation = "§9 T_MST-SC-BROADCAST";
    f.beside_time = terms(p0);
  }
  return f;
}

// allreduce mesh_pfr_pfr_dc's member i: (rings of h merged prime factors, the distributed
// reduction and collect over the last k digits), in the order of
// collectives/allreduce/allreduce_mesh_pfr_pfr_dc.cpp.
std::pair<patterns::RingPlan, int> pfr_pfr_dc_member(const patterns::MeshShape& shape, int i) {
  for (int h = 0; h <= patterns::pfr_dr_merges(shape); ++h) {
    patterns::RingPlan plan = patterns::pfr_dr_rings(shape, h);
    if (i <= plan.phases()) return {std::move(plan), i};
    i -= plan.phases() + 1;
  }
  return {patterns::pfr_dr_rings(shape, patterns::pfr_dr_merges(shape)), 0};
}

Formula formula_004(Operation op, const std::string& algorithm, int member, const CostQuery& q,
                    const Units& u) {
  const patterns::MeshShape shape = internal::mesh_shape_of(q);
  const int p = shape.size();
  const int L = patterns::ceil_log2(p);
  double lines = 0, ring_steps = 0;
  for (int m : shape.lengths) lines += patterns::ceil_log2(m) + m - 1, ring_steps += m - 1;
  const double frac = double(p - 1) / p;
  const std::vector<Ring> pfr = rings_of(patterns::prime_factor_rings(shape));
  const auto shared = [u](const Ring& r) { return std::max(u.b, r.c * u.b); };
  const auto mst_bcast = [=](double N) { return L * (u.a + N * u.b); };
  const auto mst_gather = [=](double N) { return L * u.a + frac * N * u.b; };
  const auto dr_reduce = [=](double N) { return ring_steps * u.a + frac * N * (u.b + u.g); };
  const auto dr_collect = [=](double N) { return ring_steps * u.a + frac * N * u.b; };
  const auto pfr_collect = [=](const std::vector<Ring>& r, double N) {
    return ring_sum(r, N, u.a, [&](const Ring& g) { return shared(g) + u.dl; });
  };
  const auto pfr_reduce = [=](const std::vector<Ring>& r, double N) {
    return ring_sum(r, N, u.a, [&](const Ring& g) { return shared(g) + u.dl + u.g; });
  };
  using enum Operation;
  if (algorithm == "mesh_mst") {
    switch (op) {
      case broadcast: return {"§9 T_MST-BROADCAST", "", mst_bcast, 0};
      case reduce:
        return {"§11 T_MST-REDUCTION-TO-ONE", "",
                [=](double N) { return L * (u.a + N * (u.b + u.g)); }, 0};
      case allreduce:
        return {"§12 fan-in/fan-out: T_MST-REDUCTION-TO-ONE + T_MST-BROADCAST", "",
                [=](double N) { return L * (u.a + N * (u.b + u.g)) + mst_bcast(N); }, 0};
      case scatter: return {"§7 T_MST-SCATTER", "", mst_gather, double(p)};
      case gather: return {"§7 T_MST-GATHER", "", mst_gather, double(p)};
      case allgather:
        return {"§8 T_MST-COLLECT = T_MST-GATHER + T_MST-BROADCAST", "",
                [=](double N) { return mst_gather(N) + mst_bcast(N); }, double(p)};
      default: break;
    }
  }
  if (op == broadcast && algorithm == "mesh_sc") {
    return {"§9 T_SC-BROADCAST", "",
            [=](double N) { return lines * u.a + 2 * frac * N * u.b; }, double(p)};
  }
  if (op == reduce && algorithm == "mesh_dg") {
    return {"§11 T_DG-REDUCTION-TO-ONE", "",
            [=](double N) { return lines * u.a + frac * N * (2 * u.b + u.g); }, double(p)};
  }
  if (algorithm == "mesh_mst_sc" || algorithm == "mesh_mst_dg") {
    return mst_sc_004(shape, member, op == reduce, u);
  }
  if (algorithm == "mesh_dopl") {
    const bool red = op != broadcast;
    const DoplChoice c = dopl_choice(q, red);
    Formula f;
    f.equation = op == broadcast ? "§9 T_DOPL-BROADCAST" : "§11 T_DOPL (§9's with beta + gamma)";
    f.note = "k_alt and k_i as vmc's plan chooses them, by 004 §15.2 and §9";
    if (op == allreduce) {
      const DoplChoice b = dopl_choice(q, false);
      f.equation = "§12 fan-in/fan-out: T_DOPL-REDUCTION-TO-ONE + T_DOPL-BROADCAST";
      f.note = "the two halves' formulas, each with its own k_alt; §12's text on the DOPL is "
               "lost in the OCR text";
      f.time = [=](double N) {
        return dopl_004(shape, c.k, c.ki, N, u.a, u.b + u.g) +
               dopl_004(shape, b.k, b.ki, N, u.a, u.b);
      };
      f.whole_time = [=](double N) {
        return dopl_004(shape, c.k, c.ki, N, u.a, u.b + u.g, true) +
               dopl_004(shape, b.k, b.ki, N, u.a, u.b, true);
      };
      f.without_wraps = [=](double N) {
        return dopl_004(shape, c.k, c.ki, N, u.a, u.b + u.g, true, false) +
               dopl_004(shape, b.k, b.ki, N, u.a, u.b, true, false);
      };
      if (c.k > 1 || b.k > 1) {
        for (const bool whole : {false, true}) {
          (whole ? f.synchronized_whole : f.synchronized) = [=](double N) {
            return dopl_synchronized(shape, c.k, c.ki, N, u.a, u.b + u.g, whole) +
                   dopl_synchronized(shape, b.k, b.ki, N, u.a, u.b, whole);
          };
        }
      }
      return f;
    }
    const double b = red ? u.b + u.g : u.b;
    if (red) f.note += "; §11's own equation is lost in the OCR text, its k_i survives";

    f.time = [=](double N) { return dopl_004(shape, c.k, c.ki, N, u.a, b); };
    f.whole_time = [=](double N) { return dopl_004(shape, c.k, c.ki, N, u.a, b, true); };
    f.without_wraps = [=](double N) {
      return dopl_004(shape, c.k, c.ki, N, u.a, b, true, false);
    };
    if (c.k > 1) {
      f.synchronized = [=](double N) {
        return dopl_synchronized(shape, c.k, c.ki, N, u.a, b, false);
      };
      f.synchronized_whole = [=](double N) {
        return dopl_synchronized(shape, c.k, c.ki, N, u.a, b, true);
      };
    }
    return f;
  }
  if (op == allgather && algorithm == "mesh_dr") {
    return {"§8 T_DR-COLLECT", "lost in the OCR text: §10's DR form without gamma, as §8's PFR-DR "
            "writes its DR terms", dr_collect, 0};
  }
  if (op == reduce_scatter && algorithm == "mesh_dr") {
    return {"§10 T_DR-DISTRIBUTED REDUCTION", "", dr_reduce, 0};
  }
  if (algorithm == "mesh_pfr_alt" || algorithm == "mesh_pfr_dc_alt") {
    const std::vector<Ring> alt = alternated_rings_of(patterns::prime_factor_rings(shape));
    const std::string note = "§5.2's c_{i,j} under alternation, the most per stage";
    if (op == allgather) {
      return {"§8 T_PFR-COLLECT, §5.2 alternation", note,
              [=](double N) { return pfr_collect(alt, N); }, 0};
    }
    if (op == reduce_scatter) {
      return {"§10 T_PFR-DISTRIBUTED REDUCTION, §5.2 alternation", note,
              [=](double N) { return pfr_reduce(alt, N); }, 0};
    }
    return {"§12 T_PFR-DC, §5.2 alternation", note,
            [=](double N) { return pfr_reduce(alt, N) + pfr_collect(alt, N); }, double(p)};
  }
  if (algorithm == "mesh_pfr_dr_alt") {
    const std::vector<Ring> r = alternated_rings_of(patterns::pfr_dr_rings(shape, member));
    const bool red = op == reduce_scatter;
    Formula f;
    f.equation = red ? "§10 T_PFR-DR-DISTRIBUTED REDUCTION, §5.2 alternation"
                     : "§8 T_PFR-DR-COLLECT, §5.2 alternation";
    f.note = "garbled in the OCR text: its DR terms per whole ring, its PFR terms per "
             "factored one, §5.2's c_{i,j} under alternation (§8: alternation only in the "
             "factored dimensions)";
    f.time = [=](double N) {
      return ring_sum(r, N, u.a, [&](const Ring& g) {
        return shared(g) + (g.whole ? 0 : u.dl) + (red ? u.g : 0);
      });
    };
    return f;
  }
  if (op == allgather && algorithm == "mesh_pfr") {
    return {"§8 T_PFR-COLLECT", "", [=](double N) { return pfr_collect(pfr, N); }, 0};
  }
  if (op == reduce_scatter && algorithm == "mesh_pfr") {
    return {"§10 T_PFR-DISTRIBUTED REDUCTION", "",
            [=](double N) { return pfr_reduce(pfr, N); }, 0};
  }
  if (algorithm == "mesh_pfr_dr") {
    const patterns::RingPlan plan = patterns::pfr_dr_rings(shape, member);
    std::vector<Ring> r = rings_of(plan);
    const bool red = op == reduce_scatter;
    Formula f;
    f.equation = red ? "§10 T_PFR-DR-DISTRIBUTED REDUCTION" : "§8 T_PFR-DR-COLLECT";
    f.note = "garbled in the OCR text: its DR terms per whole ring, its PFR terms per "
             "factored one";
    f.time = [=](double N) {
      return ring_sum(r, N, u.a, [&](const Ring& g) {
        return shared(g) + (g.whole ? 0 : u.dl) + (red ? u.g : 0);
      });
    };
    return f;
  }
  if (op == allreduce && algorithm == "mesh_dr") {
    return {"§12 DR-DC: T_DR-DISTRIBUTED REDUCTION + T_DR-COLLECT", "",
            [=](double N) { return dr_reduce(N) + dr_collect(N); }, double(p)};
  }
  if (op == allreduce && algorithm == "mesh_pfr") {
    const std::vector<Ring> r =
        rings_of(patterns::prime_factor_rings(shape, patterns::RingOrder::rank_order));
    return {"§12 T_PFR-REDUCTION-TO-ALL", "", [=](double N) {
              double t = 0;
              for (const Ring& g : r) t += (g.f - 1) * (u.a + N * (shared(g) + u.g));
              return t;
            }, 0};
  }
  if (op == allreduce && algorithm == "mesh_pfr_dc") {
    return {"§12 T_PFR-DC = T_PFR-DISTRIBUTED REDUCTION + T_PFR-COLLECT", "",
            [=](double N) { return pfr_reduce(pfr, N) + pfr_collect(pfr, N); }, double(p)};
  }
  if (op == allreduce && (algorithm == "mesh_pfr_pfr_dc" || algorithm == "mesh_pfr_pfr_dc_alt")) {
    const auto [plan, k] = pfr_pfr_dc_member(shape, member);
    const bool alt = algorithm == "mesh_pfr_pfr_dc_alt";
    const std::vector<Ring> all =
        alt ? alternated_rings_of(plan, plan.phases() - k) : rings_of(plan);
    const std::vector<Ring> tail(all.end() - k, all.end()), head(all.begin(), all.end() - k);
    double B = 1;
    for (const Ring& g : tail) B *= g.f;
    Formula f{alt ? "§12 T_PFR-PFR-DC-REDUCTION-TO-ALL, §5.2 alternation"
                  : "§12 T_PFR-PFR-DC-REDUCTION-TO-ALL",
              alt ? "garbled in the OCR text: its terms as legible, over the member's stages, "
                    "§5.2's c_{i,j} under alternation (the head's rings alternate by the "
                    "tail's digits)"
                  : "garbled in the OCR text: its terms as legible, over the member's rings",
              {}, B};
    f.time = [=](double N) {
      double t = pfr_reduce(tail, N) + pfr_collect(tail, N);
      for (const Ring& g : head) t += (g.f - 1) * (u.a + N / B * (shared(g) + u.g));
      return t;
    };
    return f;
  }
  if (op == alltoall && algorithm == "mesh_dr") {
    return {"§13 T_DR-ALL-TO-ALL-SCATTER", "",
            [=](double N) { return ring_steps * (u.a + N / (2 * p) * (u.b + u.dl)); }, 0};
  }
  if (op == alltoall && algorithm == "mesh_direct") {
    // 004's direct sends one after another as vmc orders them: step k (k = 1 .. p-1, its
    // mesh coordinates k_i) sends every node's block to the node k_i further along each
    // dimension, mod m_i. On a line of m_i nodes the shift by k_i sends m_i - k_i blocks
    // k_i hops one way and k_i blocks m_i - k_i hops the other, so the busiest link of the
    // step carries min(k_i, m_i - k_i) of them (004 §2's sharing, max(beta_node, c
    // beta_net)); 004's ≈ charges ceil(m_i/2) for every step, per dimension.
    Formula f{"§13 T_DIRECT-ALL-TO-ALL-SCATTER, summed over its shifts",
              "derived: 004 writes the direct send's time only as approximate (≈); this is "
              "the sum of its p - 1 steps, each N/p^2 items at max(beta, c_k beta) with c_k = "
              "max_i min(k_i, m_i - k_i) the messages on the step's busiest link; 004's ≈ is "
              "the row below",
              [=](double N) {
                double t = 0;
                for (int k = 1; k < p; ++k) {
                  int c = 1;
                  for (int i = 0; i < shape.dimensions(); ++i) {
                    const int ki = shape.coordinate(k, i), m = shape.lengths[i];
                    if (ki != 0) c = std::max(c, std::min(ki, m - ki));
                  }
                  t += u.a + N / (double(p) * p) * std::max(u.b, c * u.b);
                }
                return t;
              },
              0};
    f.beside = "004's ≈";
    f.beside_equation = "§13 T_DIRECT-ALL-TO-ALL-SCATTER (004: approximately)";
    f.beside_time = [=](double N) {
      double t = (p - 1) * u.a;
      for (int m : shape.lengths) t += N / (2 * p) * std::max(u.b, (m + 1) / 2 * u.b);
      return t;
    };
    return f;
  }
  if (op == alltoall && algorithm == "mesh_pfr") {
    // 004 §13's interleaved exchange over the prime factors rings: "the nodes circulate all
    // the subvectors destined for nodes that are in the remaining rings of the other nodes
    // of the current ring", with §5.2's alternation ("approximately 1/d of the nodes operate
    // in rings that lie within each dimension"); its equation is lost in the OCR text but
    // for its closing words, "where n is the length of all of the vectors on all of the
    // nodes ... and j represents the rings in the i-th dimension": a sum over the rings
    // (i, j) of PFR terms. Each ring step of the DR all-to-all's form, n/(2p) items on
    // average (§13 T_DR-ALL-TO-ALL-SCATTER), with the PFR terms' (p_{i,j} - 1) steps and
    // max(beta_node, c_{i,j} beta_net).
    const std::vector<Ring> r = alternated_rings_of(patterns::prime_factor_rings(shape), 0,
                                                    patterns::Alternation::every_group);
    return {"§13 PFR all-to-all scatter (derived)",
            "derived, lost in the OCR text: §13 T_DR-ALL-TO-ALL-SCATTER's terms over the "
            "prime factors rings, c_s as in the alternating PFR collect",
            [=](double N) {
              double t = 0;
              for (const Ring& g : r) t += (g.f - 1) * (u.a + N / (2 * p) * (shared(g) + u.dl));
              return t;
            },
            0};
  }
  throw std::logic_error("004-formulas: no formula for " + to_string(op) + " " + algorithm);
}

// Each equation as written above, in 004's n (the whole vector), for the page.
std::string expression(const std::string& equation) {
  static const std::map<std::string, std::string> text = {
      {"§9 T_MST-BROADCAST", "ceil(log2 p)(alpha + n beta)"},
      {"§9 T_SC-BROADCAST", "(sum_i (ceil(log2 m_i) + m_i - 1)) alpha + 2 (p-1)/p n beta"},
      {"§9 T_DOPL-BROADCAST",
       "(k_alt - 1)(alpha + n/k_alt beta) + sum_i (ceil((k_alt + d - 1 - i)/d)(m_i - 1) + k_i "
       "- 1)(alpha + n/(k_alt k_i) beta)"},
      {"§9 T_MST-SC-BROADCAST",
       "sum over the scattered lines of l nodes (ceil(log2 l) + l - 1) alpha + 2 (B-1) n/B beta "
       "+ ceil(log2 p_{d',1})(alpha + n/B max(beta, p_{d',0} beta)) + ceil(log2 prod_{i<d'} "
       "m_i)(alpha + n/B beta), B = p_{d',0} prod_{i>d'} m_i the scattered nodes"},
      {"§9 T_MST-SC-BROADCAST, the staggered line (derived)",
       "sum over the scattered lines of l nodes (ceil(log2 l) + l - 1) alpha + 2 (B-1) n/B beta "
       "+ (alpha + n/B max(beta, 2 beta)), B = 3 prod_{i>d'} m_i the scattered nodes "
       "(p_{d',0} = 3, p_{d',1} = 2, no lower dimensions)"},
      {"§11 T_MST-REDUCTION-TO-ONE", "ceil(log2 p)(alpha + n (beta + gamma))"},
      {"§11 T_DG-REDUCTION-TO-ONE",
       "(sum_i (ceil(log2 m_i) + m_i - 1)) alpha + (p-1)/p n (2 beta + gamma)"},
      {"§11 T_DOPL (§9's with beta + gamma)", "§9's T_DOPL-BROADCAST with beta + gamma for beta"},
      {"§11 T_MST-DG-REDUCTION-TO-ONE",
       "sum over the scattered lines of l nodes (ceil(log2 l) + l - 1) alpha + (B-1) n/B (2 beta "
       "+ gamma) + ceil(log2 p_{d',1})(alpha + n/B (max(beta, p_{d',0} beta) + gamma)) + "
       "ceil(log2 prod_{i<d'} m_i)(alpha + n/B (beta + gamma))"},
      {"§8 T_MST-COLLECT = T_MST-GATHER + T_MST-BROADCAST",
       "ceil(log2 p) alpha + (p-1)/p n beta + ceil(log2 p)(alpha + n beta)"},
      {"§8 T_DR-COLLECT", "(sum_i (m_i - 1)) alpha + (p-1)/p n beta"},
      {"§8 T_PFR-COLLECT",
       "sum over the rings t, widest first (f_t - 1)(alpha + n/(prod_{s>=t} f_s) (max(beta, "
       "c_t beta) + delta))"},
      {"§8 T_PFR-DR-COLLECT",
       "sum over the member's rings t (f_t - 1)(alpha + n/(prod_{s>=t} f_s) (max(beta, c_t "
       "beta) + delta)), delta on the factored rings only"},
      {"§10 T_DR-DISTRIBUTED REDUCTION", "(sum_i (m_i - 1)) alpha + (p-1)/p n (beta + gamma)"},
      {"§10 T_PFR-DISTRIBUTED REDUCTION",
       "sum over the rings t (f_t - 1)(alpha + n/(prod_{s>=t} f_s) (max(beta, c_t beta) + "
       "delta + gamma)), run closest first"},
      {"§10 T_PFR-DR-DISTRIBUTED REDUCTION",
       "sum over the member's rings t (f_t - 1)(alpha + n/(prod_{s>=t} f_s) (max(beta, c_t "
       "beta) + delta + gamma)), delta on the factored rings only"},
      {"§12 fan-in/fan-out: T_MST-REDUCTION-TO-ONE + T_MST-BROADCAST",
       "ceil(log2 p)(alpha + n (beta + gamma)) + ceil(log2 p)(alpha + n beta)"},
      {"§12 DR-DC: T_DR-DISTRIBUTED REDUCTION + T_DR-COLLECT",
       "2 (sum_i (m_i - 1)) alpha + (p-1)/p n (2 beta + gamma)"},
      {"§12 T_PFR-REDUCTION-TO-ALL",
       "sum over the rings t (f_t - 1)(alpha + n (max(beta, c_t beta) + gamma))"},
      {"§12 T_PFR-DC = T_PFR-DISTRIBUTED REDUCTION + T_PFR-COLLECT",
       "the two PFR sums above on the whole vector"},
      {"§12 fan-in/fan-out: T_DOPL-REDUCTION-TO-ONE + T_DOPL-BROADCAST",
       "the two DOPL formulas, each with its own k_alt and k_i"},
      {"§12 T_PFR-PFR-DC-REDUCTION-TO-ALL",
       "the PFR distributed reduction and collect sums over the last k rings (B nodes), plus "
       "sum over the other rings t (f_t - 1)(alpha + n/B (max(beta, c_t beta) + gamma))"},
      {"§8 T_PFR-COLLECT, §5.2 alternation",
       "sum over the stages s (f_s - 1)(alpha + n/(prod_{s'>=s} f_s') (max(beta, c_s beta) + "
       "delta)), c_s the most active rings interleaved with one ring of stage s"},
      {"§10 T_PFR-DISTRIBUTED REDUCTION, §5.2 alternation",
       "sum over the stages s (f_s - 1)(alpha + n/(prod_{s'>=s} f_s') (max(beta, c_s beta) + "
       "delta + gamma)), run closest first, c_s as in the collect"},
      {"§12 T_PFR-DC, §5.2 alternation", "the two alternating PFR sums on the whole vector"},
      {"§8 T_PFR-DR-COLLECT, §5.2 alternation",
       "sum over the member's stages s (f_s - 1)(alpha + n/(prod_{s'>=s} f_s') (max(beta, c_s "
       "beta) + delta)), delta on the factored rings only, c_s as in the PFR collect"},
      {"§10 T_PFR-DR-DISTRIBUTED REDUCTION, §5.2 alternation",
       "sum over the member's stages s (f_s - 1)(alpha + n/(prod_{s'>=s} f_s') (max(beta, c_s "
       "beta) + delta + gamma)), delta on the factored rings only, c_s as in the PFR collect"},
      {"§12 T_PFR-PFR-DC-REDUCTION-TO-ALL, §5.2 alternation",
       "the alternating PFR distributed reduction and collect sums over the last k rings (B "
       "nodes), plus sum over the other stages s (f_s - 1)(alpha + n/B (max(beta, c_s beta) + "
       "gamma)), c_s the most active rings interleaved with one ring of stage s"},
      {"§7 T_MST-SCATTER", "ceil(log2 p) alpha + (p-1)/p n beta"},
      {"§7 T_MST-GATHER", "ceil(log2 p) alpha + (p-1)/p n beta"},
      {"§13 T_DR-ALL-TO-ALL-SCATTER", "sum_i (m_i - 1)(alpha + n/(2p) (beta + delta))"},
      {"§13 T_DIRECT-ALL-TO-ALL-SCATTER (004: approximately)",
       "(p-1) alpha + sum_i n/(2p) max(beta, ceil(m_i/2) beta)"},
      {"§13 T_DIRECT-ALL-TO-ALL-SCATTER, summed over its shifts",
       "sum_{k=1}^{p-1} (alpha + n/p^2 max(beta, c_k beta)), c_k = max_i min(k_i, m_i - k_i), "
       "k_i the mesh coordinates of k"},
      {"§9 T_DOPL-BROADCAST, synchronized steps (derived)",
       "sum_i ceil((k_alt + d - 1 - i)/d)(m_i + k_i - 2)(alpha + n/(k_alt k_i) beta) + (k_alt + "
       "d - 2) ceil(log2 p) alpha"},
      {"§11 T_DOPL, synchronized steps (derived)",
       "sum_i ceil((k_alt + d - 1 - i)/d)(m_i + k_i - 2)(alpha + n/(k_alt k_i) (beta + gamma)) "
       "+ (k_alt + d - 2) ceil(log2 p) alpha"},
      {"§12 fan-in/fan-out, synchronized steps (derived)",
       "the two synchronized DOPL formulas, each with its own k_alt and k_i (a half of one part "
       "has no barrier: 004's own at k_alt = 1)"},
      {"§13 PFR all-to-all scatter (derived)",
       "sum over the stages s (f_s - 1)(alpha + n/(2p) (max(beta, c_s beta) + delta)), c_s the "
       "most active rings interleaved with one ring of stage s"},
  };
  const auto it = text.find(equation);
  return it == text.end() ? "" : it->second;
}

// The DOPL with its steps synchronized (`--dopl-steps synchronized`): the derived formula's
// name and how it was read.
std::string synchronized_equation(Operation op) {
  switch (op) {
    case Operation::broadcast: return "§9 T_DOPL-BROADCAST, synchronized steps (derived)";
    case Operation::reduce: return "§11 T_DOPL, synchronized steps (derived)";
    default: return "§12 fan-in/fan-out, synchronized steps (derived)";
  }
}
std::string synchronized_note(Operation op) {
  return std::string("derived: 004 §6.2's schedule with its \"explicit synchronization\", a "
                     "dissemination barrier between consecutive steps; each step drains its "
                     "k_i pieces over m_i nodes, its wraparounds beside it on idle ports") +
         (op == Operation::broadcast ? "" : ", each piece combined where it arrives") +
         "; the synchronized run is on the row below the default's, 004's own formula "
         "against it on the next";
}

// The rows of the table: the 004 algorithms vmc registers, the families by member.
struct Row {
  Operation op;
  std::string algorithm;
  bool family = false;
};
const std::vector<Row>& rows() {
  using enum Operation;
  static const std::vector<Row> all = {
      {broadcast, "mesh_mst"},       {broadcast, "mesh_sc"},
      {broadcast, "mesh_dopl"},      {broadcast, "mesh_mst_sc", true},
      {reduce, "mesh_mst"},          {reduce, "mesh_dg"},
      {reduce, "mesh_dopl"},         {reduce, "mesh_mst_dg", true},
      {allgather, "mesh_mst"},       {allgather, "mesh_dr"},
      {allgather, "mesh_pfr"},       {allgather, "mesh_pfr_dr", true},
      {allgather, "mesh_pfr_alt"},   {allgather, "mesh_pfr_dr_alt", true},
      {reduce_scatter, "mesh_dr"},   {reduce_scatter, "mesh_pfr"},
      {reduce_scatter, "mesh_pfr_dr", true},
      {reduce_scatter, "mesh_pfr_alt"}, {reduce_scatter, "mesh_pfr_dr_alt", true},
      {allreduce, "mesh_mst"},       {allreduce, "mesh_dr"},
      {allreduce, "mesh_pfr"},       {allreduce, "mesh_pfr_dc"},
      {allreduce, "mesh_pfr_dc_alt"},
      {allreduce, "mesh_dopl"},      {allreduce, "mesh_pfr_pfr_dc", true},
      {allreduce, "mesh_pfr_pfr_dc_alt", true},
      {scatter, "mesh_mst"},         {gather, "mesh_mst"},
      {alltoall, "mesh_dr"},         {alltoall, "mesh_pfr"},
      {alltoall, "mesh_direct"},
  };
  return all;
}

// 004's n: the whole vector.
double n_004(Operation op, std::size_t n, int p) {
  using enum Operation;
  switch (op) {
    case allgather:
    case reduce_scatter:
    case scatter:
    case gather: return double(n) * p;
    case alltoall: return double(n) * p * p;
    default: return double(n);
  }
}

Model model_004(const std::string& protocol, const std::string& delta,
                const std::string& routing = "wormhole") {
  ModelOptions o;
  o.alpha = "525us";
  o.beta = "2us";
  o.gamma = "0.35us";
  o.port = "duplex";
  o.routing = routing;
  o.contention = "shared";
  o.protocol = protocol;
  o.delta = delta;
  return o.model();
}

// The call of a case: root 0, float items summed, timing only.
RunSpec spec_of(Operation op, const std::string& algorithm, int member, std::size_t n,
                DoplSteps steps = DoplSteps::overlap) {
  RunSpec s;
  s.dopl_steps = steps;
  s.op = op;
  s.algorithm = algorithm;
  s.n = n;
  s.type = "float";
  s.hybrid = member;
  s.data = false;
  return s;
}

struct Outcome {
  Picos time = 0, predicted = 0;
};
Outcome run_case(const std::string& spec, const Model& model, Operation op,
                 const std::string& algorithm, int member, std::size_t n,
                 DoplSteps steps = DoplSteps::overlap) {
  Machine m({.topology = parse_topology(spec), .model = model, .trace = false,
             .data = Data::none});
  const RunOutcome out = run_collective(m, spec_of(op, algorithm, member, n, steps));
  return {out.result.time_ps(), out.predicted};
}

// A case's query, with the topology it points to.
struct Query {
  std::shared_ptr<const Topology> topology;
  CostQuery q;
};
Query query_of(const std::string& spec, const Model& model, Operation op,
               const std::string& algorithm, int member, std::size_t n) {
  Query r{parse_topology(spec), {}};
  r.q = run_query(*r.topology, model, spec_of(op, algorithm, member, n));
  return r;
}

// Milliseconds to the picosecond (a formula's real value rounded to it).
std::string ms(double ps) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9f", std::round(ps) / 1e9);
  return buf;
}

std::string ratio(double simulated, double formula) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", simulated / formula);
  return buf;
}

bool equal(double formula, Picos t) { return std::abs(formula - double(t)) < 0.5; }

// "exact", "exact after whole pieces", or "" (different).
std::string judge(const Formula& f, double N, Picos t) {
  if (equal(f.time(N), t)) return "exact";
  if (f.whole_time) return equal(f.whole_time(N), t) ? "exact after whole pieces" : "";
  if (f.pieces > 1) {
    const double whole = std::ceil(N / f.pieces) * f.pieces;
    if (whole != N && equal(f.time(whole), t)) return "exact after whole pieces";
  }
  return "";
}

bool power_of_two(int x) { return (x & (x - 1)) == 0; }

// One case of the table: a row of vmc's registry on one machine at one length.
struct Case {
  Operation op;
  std::string algorithm;
  int member = -1;
  std::string label;  // the member, as vmc explain lists it
  std::string spec;
  std::size_t n = 0;
};

std::string command_of(const Case& c, const std::string& extra) {
  std::string s = "vmc run --op " + to_string(c.op) + " --algorithm " + c.algorithm;
  if (c.member >= 0) s += " --hybrid " + std::to_string(c.member);
  return s + " --topology " + c.spec + " --n " + std::to_string(c.n) + " " + kModelFlags + extra;
}

// The reasons a row may differ from 004's formula: a short name the rows give, and what it
// means, printed once under the table.
struct Reason {
  const char* name;
  const char* text;
};
const std::vector<Reason>& reasons() {
  static const std::vector<Reason> all = {
      {"004's approximation",
       "004 writes T_DIRECT-ALL-TO-ALL-SCATTER as approximate (its ≈): it charges each "
       "dimension ceil(m_i/2) messages on a link for all N/(2p) items, where the direct "
       "sends' step k (every node to the node k_i further along each dimension) has "
       "min(k_i, m_i - k_i) on its busiest link: the run is below it. The row above it is "
       "judged by that schedule's own sum, derived from 004's text (§13's direct sends, §2's "
       "sharing), and is exact"},
      {"steps unsynchronized",
       "k_alt > 1, a modelling choice: by default vmc runs 004 §6.2's schedule without the "
       "\"explicit synchronization\" 004 couples it with, each node going on to its next "
       "step when it is done with its own part of the last. The run is below 004's sum "
       "(5-26% on these rows) and above that sum at whole pieces without its wraparound "
       "term, except on mesh:4x4x4 at n = 1000 and 1003, where the broadcast equals it (the "
       "row says so) and the reduction is ceil(n/k_alt) gamma below it. Unsynchronized, the "
       "longest path passes where a message waits for an in-port another holds (on mesh:6x4 "
       "at n = 65536 the wraparound of part 0 holds node (0,1)'s in-port when the root's "
       "pieces of step 3 come; the broadcast's longest path is 36 T_0 + 34 T_1 + T_W, T_i = "
       "alpha + ceil(ceil(n/k_alt)/k_i) beta, T_W = alpha + ceil(n/k_alt) beta, where 004 "
       "charges 28 T_0 + 18 T_1 + 4 T_W), and which message takes an in-port first follows "
       "from the times, so no closed form in 004's terms equals every row; vmc's own cost is "
       "the schedule replayed, equal to the run (predicted_s; collectives/mesh/dopl.hpp). The "
       "same case under `--dopl-steps synchronized` (a dissemination barrier of empty "
       "messages between consecutive steps, 004 §6.2), on the row below, is judged by the "
       "formula derived for that schedule and is exact (after whole pieces); 004's own "
       "formula against that run is on the row after it (\"synchronized steps\")"},
      {"synchronized steps",
       "004's own formula against the run with the steps synchronized: 004 charges each "
       "dimension's k_i - 1 pieces once, as if every step's pieces ran on into the next "
       "step's line, and the k_alt - 1 wraparounds one after another, and nothing for the "
       "synchronization; with the steps synchronized every step drains its pieces, m_i + "
       "k_i - 2 piece times per use of dimension i, the wraparounds run beside the steps (a "
       "wraparound takes a tail's out-port and a head's in-port its line leaves idle, alpha "
       "+ n/k_alt beta, never longer than the step's k_i pieces), and each of the k_alt + d "
       "- 2 barriers costs ceil(log2 p) alpha. The run is 10-53% above 004's formula on "
       "these rows, except on mesh:2x3 (0.80 of it), whose lines of two nodes take one piece "
       "(nothing to drain) and where 004's four wraparounds of a fifth of the vector, added "
       "one after another, outweigh the barriers. The row above it, judged by the formula "
       "derived for the synchronized schedule, is exact (after whole pieces)"},
      {"torus routes",
       "a torus whose rings are not of power-of-two length: the recursive-splitting tree's "
       "messages take the shortest way round and two share a link "
       "(patterns::mst_contention_free); 004 §5.1's tree is contention-free on a mesh's "
       "dimension-order routes. The run is above 004's formula; in the reduction-to-all the "
       "broadcast half shares the link and the reduction half has the eager overlap below. "
       "The same case under `--routing direct` (no link shared; with `--protocol rendezvous` "
       "too for the reduction-to-all), on the row below, is exact: the difference is the "
       "shared link alone"},
      {"groups start apart",
       "an MST-SC member with a scatter line of 3 nodes and interleaved MST groups: the line's "
       "nodes end the scatter at different times, so the groups that share links start apart "
       "and share them for part of a message only; the rendezvous protocol does not change "
       "that. On the line of 3 the root sends its far node its block first (one message, "
       "alpha + n/B beta), then the middle node its own; the far node's crossing message "
       "runs alone for exactly that long, which is its whole length, and ends as the other "
       "two start, so these share their links two ways, not 004's three (p_{d',0}). Where "
       "the groups take one crossing step (p_{d',1} = 2, no lower dimensions: mesh:6x4's "
       "member 4) the row is judged by that schedule's own formula, derived from 004's text "
       "(§5.1's scatter, §2's sharing with c = 2), and is exact (after whole blocks); 004's "
       "formula, three sharers, is on the row below it, n/B beta above the run at whole "
       "blocks. Starting the groups together, as 004's formula has them, would hold the far "
       "node back and end n/B beta later, so vmc does not; its own formula for the member "
       "counts the two sharers and is exact (predicted_s; collectives/mesh/mst_sc.cpp, where "
       "the root is not in the middle of a line whose crossing runs downwards)"},
      {"eager overlap",
       "under the eager protocol a node combines one child's vector while the next arrives "
       "(reductions), or a ring message of a node done with its scatter takes the in-port of a "
       "node still waiting for its scatter message (SC broadcasts whose scatter lines are not "
       "of power-of-two length: collectives/broadcast/broadcast_mesh_sc.cpp); 004's sums "
       "charge every step in full. The same case under `--protocol rendezvous`, on the row "
       "below, is exact (or exact after whole pieces)"},
      {"modelling choice: prime lengths",
       "every m_i prime: the prime factors rings are the dimensional rings and their layout "
       "is the rank order, so vmc rearranges nothing and charges nothing, as 004's DR "
       "formulas do; 004's PFR formula, read literally, charges delta"},
      {"modelling choice: blocks in layout order",
       "block x belongs to the node of layout index x, so every chunk is contiguous and "
       "nothing is rearranged (collectives/allreduce/allreduce_mesh_pfr_dc.cpp); 004 sums the "
       "two halves' formulas with their delta"},
      {"modelling choice: rearranged on arrival",
       "vmc rearranges a node's own groups when a phase starts and each group that arrives "
       "home, 2 (m_i - 1)/m_i of a node's items per phase (2 (f_s - 1)/f_s per stage of the "
       "PFR all-to-all); 004's formula charges delta on every item sent, (m_i - 1)/2 of them "
       "(its text rearranges once between phases): the two agree where m_i = 4, never on a "
       "ring of prime length"},
  };
  return all;
}

// Why a case differs from 004's formula under the eager protocol, where the reason is not
// eager overlap (the rendezvous row decides that): a reason's name, or "" where this file
// names none.
std::string reason_eager(const Case& c, const CostQuery& q, const Formula& f, double N,
                         Picos t) {
  const patterns::MeshShape shape = internal::mesh_shape_of(q);
  const double F = f.time(N);
  if (c.algorithm == "mesh_dopl") {
    const DoplChoice red = dopl_choice(q, c.op != Operation::broadcast);
    const DoplChoice bc = dopl_choice(q, false);
    const bool both = c.op == Operation::allreduce;
    if ((red.k > 1 || (both && bc.k > 1)) && double(t) < F) return "steps unsynchronized";
  }
  const bool outward_mst =
      (c.algorithm == "mesh_mst" && c.op != Operation::gather && c.op != Operation::reduce) ||
      (c.algorithm == "mesh_mst_sc" && c.member == 0);
  if (outward_mst && c.spec.starts_with("torus:") && double(t) > F) {
    bool ring_not_power = false;
    for (int m : shape.lengths) ring_not_power |= m > 2 && !power_of_two(m);
    if (ring_not_power) return "torus routes";
  }
  if (c.algorithm == "mesh_mst_sc" && c.member > 0) {
    const internal::ScSplit s = internal::sc_split(shape, c.member);
    bool uneven = false;
    for (const patterns::RingDigit& d : s.scattered.digits) uneven |= !power_of_two(d.radix);
    if (s.interleaved() && uneven) return "groups start apart";
  }
  return "";
}

struct Line {
  Case c;
  std::string protocol;  // "" (eager) or " (rendezvous)"
  std::string equation;
  std::optional<double> formula;
  Picos simulated = 0, predicted = 0;
  std::string verdict;
};

void print_line(std::FILE* out, const Line& l) {
  std::fprintf(out, "| %s | %s%s | %s | %s | %zu | %s | %s | %s | %s | %s | %s |\n",
               to_string(l.c.op).c_str(), l.c.algorithm.c_str(), l.protocol.c_str(),
               l.c.member < 0 ? "" : (std::to_string(l.c.member) + ": " + l.c.label).c_str(),
               l.c.spec.c_str(), l.c.n, l.equation.c_str(),
               l.formula ? ms(*l.formula).c_str() : "", ms(double(l.simulated)).c_str(),
               ms(double(l.predicted)).c_str(),
               l.formula ? ratio(double(l.simulated), *l.formula).c_str() : "",
               l.verdict.c_str());
}

const char* const kHeader =
    "| operation | algorithm | member | mesh | n | 004's formula | 004 (ms) | simulated (ms) | "
    "predicted_s (ms) | simulated / 004 | verdict |\n"
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";

// The cases: every row and member on every machine and length.
std::vector<Case> cases(const Model& model) {
  std::vector<Case> all;
  for (const Row& row : rows()) {
    for (const std::string& spec : meshes()) {
      std::vector<std::string> labels = {""};
      if (row.family) {
        const std::string optimal = row.algorithm + "_optimal";
        labels = find_algorithm(row.op, optimal)->members(
            query_of(spec, model, row.op, optimal, -1, 1).q);
      }
      for (std::size_t i = 0; i < labels.size(); ++i) {
        for (std::size_t n : lengths()) {
          all.push_back({row.op, row.algorithm, row.family ? int(i) : -1, labels[i], spec, n});
        }
      }
    }
  }
  return all;
}

struct Tally {
  int exact = 0, whole = 0, named = 0, unexplained = 0, none = 0;
};

// The rearrangement table (004's delta): the rows whose formulas charge it, with delta set.
struct DeltaRow {
  Operation op;
  std::string algorithm;
  int member;
  // Why vmc's charge differs from 004's where it does: a reason's name (a modelling choice).
  const char* reason;
};
const std::vector<DeltaRow>& delta_rows() {
  using enum Operation;
  static const std::vector<DeltaRow> all = {
      {allgather, "mesh_pfr", -1, "modelling choice: prime lengths"},
      {reduce_scatter, "mesh_pfr", -1, "modelling choice: prime lengths"},
      {allgather, "mesh_pfr_alt", -1, "modelling choice: prime lengths"},
      {reduce_scatter, "mesh_pfr_alt", -1, "modelling choice: prime lengths"},
      {allreduce, "mesh_pfr_dc", -1, "modelling choice: blocks in layout order"},
      {allreduce, "mesh_pfr_dc_alt", -1, "modelling choice: blocks in layout order"},
      {alltoall, "mesh_dr", -1, "modelling choice: rearranged on arrival"},
      {alltoall, "mesh_pfr", -1, "modelling choice: rearranged on arrival"},
  };
  return all;
}

bool all_prime(const patterns::MeshShape& shape) {
  for (int m : shape.lengths) {
    for (int k = 2; k * k <= m; ++k) {
      if (m % k == 0) return false;
    }
  }
  return true;
}

}  // namespace

void print_004_formulas(std::FILE* out) {
  const Model eager = model_004("eager", "0"), rendezvous = model_004("rendezvous", "0");
  std::vector<Line> lines;
  std::vector<std::string> unexplained;
  std::map<std::string, Tally> tallies;
  std::map<std::string, std::vector<std::string>> notes;  // per row: "equation: note"
  std::vector<std::string> order;
  for (const Case& c : cases(eager)) {
    const Query query = query_of(c.spec, eager, c.op, c.algorithm, c.member, c.n);
    const CostQuery& q = query.q;
    const Formula f = formula_004(c.op, c.algorithm, c.member, q, Units{});
    const Outcome o = run_case(c.spec, eager, c.op, c.algorithm, c.member, c.n);
    const double N = n_004(c.op, c.n, q.p);
    const std::string key = to_string(c.op) + " " + c.algorithm;
    if (!tallies.contains(key)) order.push_back(key);
    const std::string formula = expression(f.equation);
    const std::string note = f.equation + (formula.empty() ? "" : ", `" + formula + "`") +
                             (f.note.empty() ? "" : " (" + f.note + ")");
    std::vector<std::string>& seen = notes[key];
    if (std::find(seen.begin(), seen.end(), note) == seen.end()) seen.push_back(note);
    if (f.beside_time) {
      const std::string b = f.beside_equation + ", `" + expression(f.beside_equation) +
                            "` (004's own, on the row below: " + f.beside + ")";
      if (std::find(seen.begin(), seen.end(), b) == seen.end()) seen.push_back(b);
    }
    Tally& tally = tallies[key];
    Line line{c, "", f.equation, std::nullopt, o.time, o.predicted, ""};
    if (!f.time) {
      line.verdict = "no formula: 004's is " + f.note;
      ++tally.none;
      lines.push_back(line);
      continue;
    }
    line.formula = f.time(N);
    line.verdict = judge(f, N, o.time);
    std::optional<Line> beside, more;
    if (f.beside_time) {
      // 004's own approximation beside the derived formula the row is judged by.
      const double approx = f.beside_time(N);
      const std::string bv = judge({.time = f.beside_time, .pieces = f.pieces}, N, o.time);
      // 004's approximation is above the run; the staggered line's three sharers are above
      // it once its blocks are whole, and the row above, judged by the derived formula,
      // says the rest.
      const bool named = f.beside_reason == "004's approximation"
                             ? double(o.time) < approx
                             : !line.verdict.empty();
      beside = Line{c, " (" + f.beside + ")", f.beside_equation, approx, o.time, o.predicted,
                    !bv.empty() ? bv
                    : named     ? "different: " + f.beside_reason
                                : "different, unexplained"};
      if (beside->verdict == "different, unexplained") unexplained.push_back(command_of(c, ""));
    }
    if (line.verdict.empty()) {
      const std::string why = reason_eager(c, q, f, N, o.time);
      if (why == "torus routes") {
        // The same tree with no link shared (direct routing), under the eager protocol and,
        // for the reduction half's overlap, under rendezvous: the row beside it.
        for (const std::string protocol : {"eager", "rendezvous"}) {
          const Outcome r = run_case(c.spec, model_004(protocol, "0", "direct"), c.op,
                                     c.algorithm, c.member, c.n);
          const std::string rv = judge(f, N, r.time);
          if (rv.empty()) continue;
          const std::string as = protocol == "eager" ? "direct routing"
                                                     : "direct routing, rendezvous";
          line.verdict = "different: torus routes (" + as + ": " + rv + ")";
          beside = Line{c, " (" + as + ")", f.equation, line.formula, r.time, r.predicted, rv};
          break;
        }
        if (!beside) line.verdict = "different: " + why;
      } else if (why == "steps unsynchronized") {
        // The same case with the steps synchronized, judged by the formula derived for it,
        // and 004's own formula against that run, on the two rows below.
        const Outcome s = run_case(c.spec, eager, c.op, c.algorithm, c.member, c.n,
                                   DoplSteps::synchronized);
        const std::string sv =
            judge({.time = f.synchronized, .whole_time = f.synchronized_whole}, N, s.time);
        line.verdict = "different: " + why + " (synchronized: " +
                       (sv.empty() ? "different" : sv) + ")";
        if (equal(f.without_wraps(N), o.time)) {
          line.verdict += "; the run: 004's at whole pieces without its wraparound term, exact";
        }
        const std::string own = judge(f, N, s.time);
        beside = Line{c, " (synchronized)", synchronized_equation(c.op), f.synchronized(N),
                      s.time, s.predicted, sv.empty() ? "different, unexplained" : sv};
        more = Line{c, " (synchronized, 004's own)", f.equation, line.formula, s.time,
                    s.predicted, own.empty() ? "different: synchronized steps" : own};
        if (sv.empty()) unexplained.push_back(command_of(c, " --dopl-steps synchronized"));
        const std::string sync_key = key + " (synchronized)";
        if (!tallies.contains(sync_key)) {
          order.insert(std::find(order.begin(), order.end(), key) + 1, sync_key);
        }
        Tally& st = tallies[sync_key];
        if (sv == "exact") ++st.exact;
        else if (sv == "exact after whole pieces") ++st.whole;
        else ++st.unexplained;
        const std::string sn = synchronized_equation(c.op) + ", `" +
                               expression(synchronized_equation(c.op)) + "` (" +
                               synchronized_note(c.op) + ")";
        if (std::find(seen.begin(), seen.end(), sn) == seen.end()) seen.push_back(sn);
      } else if (!why.empty()) {
        line.verdict = "different: " + why;
      } else {
        const Outcome r = run_case(c.spec, rendezvous, c.op, c.algorithm, c.member, c.n);
        const std::string rv = judge(f, N, r.time);
        if (!rv.empty()) {
          line.verdict = "different: eager overlap (rendezvous: " + rv + ")";
          beside = Line{c, " (rendezvous)", f.equation, line.formula, r.time, r.predicted, rv};
        }
      }
    }
    if (line.verdict == "exact") ++tally.exact;
    else if (line.verdict == "exact after whole pieces") ++tally.whole;
    else if (!line.verdict.empty()) ++tally.named;
    if (line.verdict.empty()) {
      line.verdict = "different, unexplained";
      ++tally.unexplained;
      unexplained.push_back(command_of(c, ""));
    }
    lines.push_back(line);
    if (beside) lines.push_back(*beside);
    if (more) lines.push_back(*more);
  }

  // The rearrangement time.
  const Model with_delta = model_004("eager", "0.5us");
  const Units du{kAlpha, kBeta, kGamma, kDelta};
  std::vector<Line> delta_lines;
  for (const DeltaRow& d : delta_rows()) {
    for (const std::string spec : {"mesh:6x4", "mesh:7x11", "mesh:4x4x4", "mesh:8x8"}) {
      for (std::size_t n : {std::size_t(1000), std::size_t(65536)}) {
        const Case c{d.op, d.algorithm, d.member, "", spec, n};
        const Query query = query_of(spec, with_delta, c.op, c.algorithm, c.member, n);
        const CostQuery& q = query.q;
        const Formula f = formula_004(c.op, c.algorithm, c.member, q, du);
        const Outcome o = run_case(spec, with_delta, c.op, c.algorithm, c.member, n);
        Line line{c, " --delta 0.5us", f.equation, std::nullopt, o.time, o.predicted, ""};
        if (!f.time) {
          line.verdict = "no formula: 004's is " + f.note;
        } else {
          const double N = n_004(c.op, n, q.p);
          line.formula = f.time(N);
          line.verdict = judge(f, N, o.time);
          // mesh_pfr_dc_alt is mesh_pfr_dc, moving nothing, where no group alternates; where
          // one does it puts the vector in its staged order and back, 004's delta.
          const patterns::MeshShape shape = internal::mesh_shape_of(q);
          const bool applies =
              d.algorithm == "mesh_pfr_dc_alt"
                  ? !patterns::alternates(patterns::prime_factor_rings(shape),
                                          patterns::Alternation::interleaved)
                  : std::string(d.reason) != "modelling choice: prime lengths" ||
                        all_prime(shape);
          if (line.verdict.empty() && d.reason[0] != '\0' && applies) {
            line.verdict = std::string("different: ") + d.reason;
          }
          if (line.verdict.empty()) {
            line.verdict = "different, unexplained";
            unexplained.push_back(command_of(c, " --delta 0.5us"));
          }
        }
        delta_lines.push_back(line);
      }
    }
  }

  std::fprintf(out, "%s", R"(# 004's formulas against vmc's simulated times

Made by `vmc figure 004-formulas > docs/004-formulas.md` (a minute or two; the test
`docs.004Formulas` makes it again and fails where the page differs or a row is different
for a reason not named). Every algorithm of 004 (Watts) that vmc registers, every member
of its hybrid families, on mesh:2x3, 5x1, 6x4, 8x8, 7x11, 16x16, 4x4x4, torus:6x4 and
torus:8x8, n = 1, 7, 1000, 1003 and 65536, root 0, timing only on the virtual clock under
004's model (004 §2: duplex nodes, wormhole routing, a link that c messages share gives each
max(beta_node, c beta_net) per item, beta_net = beta; 000's iPSC/860 costs, as
docs/figures.md's 004 figures):

```sh
)");
  std::fprintf(out, "%s", kModelFlags);
  std::fprintf(out, "%s", R"(
```

- **004's formula** is written in tools/formulas_004.cpp from 004's text (§§7-13), apart
  from the algorithms' cost functions: 004's n is the whole vector (p blocks of vmc's n for
  the collect, the distributed reduction, the scatter and the gather; p^2 for the
  all-to-all), c_{i,j} the rings interleaved with a ring (its spacing, 004 §5.2; for the
  `_alt` rows, whose rings of one stage alternate dimensions, the active ones among them,
  the most of any ring of the stage), and the hybrids, whose equations the OCR copy garbles,
  the sum of 004's own terms over the member's rings or scattered lines. The DOPL rows take
  vmc's k_alt and k_i (004 §15.2's choice, §9's pieces) and evaluate 004's equation with
  them. Four formulas are derived from 004's text: the direct all-to-all's, the sum of its
  shifts, where 004 writes only an approximation (≈; shown on the row below each, judged
  against the same run); the PFR all-to-all's, whose equation the OCR text loses, from
  004's PFR terms; the MST-SC broadcast's on the staggered line of 3 (mesh:6x4's member
  4), where 004's schedule lets two messages, not three, share a crossing link (004's own
  formula on the row below each, "groups start apart"); and the DOPL's with its steps
  synchronized (`--dopl-steps synchronized`, 004 §6.2's "explicit synchronization": every
  step's pieces drained, its wraparounds beside it, a barrier between steps), on the row
  below each DOPL row of more than one part, with 004's own formula against that run on
  the row after it; their rows say "derived".
- **simulated** is the run's virtual time (`vmc run --json`'s `time_s`), **predicted_s**
  vmc's own formula for the algorithm (its claim), shown for comparison; times in ms to the
  picosecond, and the ratio simulated / 004.
- **verdict**: *exact* (the run equals 004's formula to the picosecond), *exact after whole
  pieces* (it equals 004's formula at n rounded up to a multiple of the pieces the algorithm
  cuts the vector into: vmc pads the last piece; for the DOPL, 004's n/k_alt and
  n/(k_alt k_i) each rounded up to whole items), or *different* with the reason. A case
  that differs for eager overlap has the same case under `--protocol rendezvous` on the row
  below it, with its own verdict; one that differs for torus routes the same case under
  `--routing direct` (no link shared); a DOPL case of more than one part, whose steps vmc
  runs unsynchronized by default, the same case under `--dopl-steps synchronized`, tallied
  in the summary as `mesh_dopl (synchronized)`. *different, unexplained* marks a difference
  whose reason is not named; the test holds the list of those it knows (none at present).

## Summary

| operation | algorithm | exact | exact after whole pieces | different, reason named | different, unexplained | no formula in 004 |
| --- | --- | --- | --- | --- | --- | --- |
)");
  for (const std::string& key : order) {
    const Tally& t = tallies[key];
    const std::size_t space = key.find(' ');
    std::fprintf(out, "| %s | %s | %d | %d | %d | %d | %d |\n", key.substr(0, space).c_str(),
                 key.substr(space + 1).c_str(), t.exact, t.whole, t.named, t.unexplained,
                 t.none);
  }
  std::fprintf(out, "\nUnexplained rows: %zu.\n", unexplained.size());
  for (const std::string& u : unexplained) std::fprintf(out, "- `%s`\n", u.c_str());
  std::fprintf(out, "\n## The formulas\n\nEach row's formula, as tools/formulas_004.cpp "
               "writes it from 004's text (the members of a family by their ends and the "
               "hybrid between them):\n\n");
  for (const std::string& key : order) {
    const std::vector<std::string>& seen = notes[key];
    if (seen.empty()) continue;  // the synchronized DOPL rows: with the DOPL's notes
    std::fprintf(out, "- %s:", key.c_str());
    for (std::size_t i = 0; i < seen.size(); ++i) {
      std::fprintf(out, "%s %s", i == 0 ? "" : ";", seen[i].c_str());
    }
    std::fprintf(out, ".\n");
  }
  std::fprintf(out, "\n## The reasons\n\nThe reasons the rows name:\n\n");
  for (const Reason& r : reasons()) std::fprintf(out, "- **%s**: %s.\n", r.name, r.text);

  std::fprintf(out, "%s", R"(
## The rearrangement time (004's delta)

004 charges delta, the time per item of local rearrangement, in its PFR formulas (§8, §10,
§12) and its all-to-all formulas (§13); the table above runs with none. Here the rows that
charge it run with `--delta 0.5us` on mesh:6x4, mesh:7x11 (every length prime), mesh:4x4x4
and mesh:8x8. Where vmc charges it otherwise the verdict names the modelling choice; vmc's
charge is kept in each (the reasons are in the algorithms' source files too):

- PFR collect and distributed reduction (`allgather`, `reduce_scatter` `mesh_pfr`): 004
  charges delta on every message, n/(prod of the rings not yet collected) per step; summed
  over the steps that is the (p-1)/p n delta vmc charges once at the end, so the rows are
  exact on meshes that factor. On a mesh whose every length is prime (mesh:7x11) the prime
  factors rings are the dimensional rings and their layout is the rank order: vmc moves
  nothing and charges nothing, as 004's DR formulas do; 004's PFR formula read literally
  charges delta there, but its reason for delta (§5.2: non-contiguous portions, from rings
  in alternated dimensions) does not arise. Not changed.
- PFR-DC reduction-to-all (`allreduce mesh_pfr_dc`; the `mesh_pfr_pfr_dc` members do the
  same): 004 writes T_PFR-DC as the sum of the two halves' formulas, delta included; vmc
  gives block x to the node of layout index x, so every chunk is contiguous and nothing is
  rearranged. 004 does not say in which order the blocks end (§12: "the nodes essentially
  perform a distributed reduction followed by a collect"), so vmc's charge is a modelling
  choice, named, not fixed. With the alternation (`mesh_pfr_dc_alt`) each node puts the
  vector in its staged order and back, 2 (p-1) ceil(n/p) items: 004's charge, exact (after
  whole pieces) where a group alternates (mesh:4x4x4, 8x8); where none does (mesh:6x4,
  7x11) the row is `mesh_pfr_dc` and moves nothing. The `_alt` collect and distributed
  reduction charge as `mesh_pfr`.
- DR all-to-all (`alltoall mesh_dr`): 004's formula charges delta with every item sent,
  n/(2p) per step, where its text rearranges once between phases ("The data on each node
  would then be rearranged so that each node's portion is contiguous"); vmc charges its own
  schedule's moves, 2 (m_i - 1)/m_i of a node's items per phase. The two agree where every
  m_i = 4 (mesh:4x4x4). 004's text and formula disagree, so vmc's charge is kept. The PFR
  all-to-all's formula is lost in the OCR text; the one derived from its terms (above)
  charges delta as the DR all-to-all's does, n/(2p) with every item sent, where vmc moves
  2 (f_s - 1)/f_s of a node's items per stage: the same modelling choice.

)");
  std::fprintf(out, "%s", kHeader);
  for (const Line& l : delta_lines) print_line(out, l);
  std::fprintf(out, "\n## Every case\n\n%s", kHeader);
  for (const Line& l : lines) print_line(out, l);
}

}  // namespace vmc::cli
