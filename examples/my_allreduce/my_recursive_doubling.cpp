// A user's recursive doubling allreduce, a registry row with every field filled in (its row
// is kMyRecursiveDoubling in my_allreduce.hpp). In step k every rank exchanges its whole
// partial vector with the rank whose number differs in bit k, and combines the two with the
// lower rank's partial on the left, so both partners compute the same value and a
// non-commutative op gives x0 op x1 op ... op x(p-1) on every rank.
//
// Requires: p a power of two.
// Cost, T = alpha + n beta and d = log2 p: d (T + n gamma); under --port half an exchange is
// two messages, d (2 T + n gamma). Exact where links are private (direct routing, full:P)
// under eager sends, a lower bound there under rendezvous, an estimate elsewhere.
#include <cstring>
#include <vector>

#include "my_allreduce.hpp"

namespace {

bool power_of_two(int p) { return p > 0 && (p & (p - 1)) == 0; }

int log2_of(int p) {
  int d = 0;
  while ((1 << d) < p) ++d;
  return d;
}

}  // namespace

bool applicable_my_recursive_doubling(const vmc::CostQuery& q) { return power_of_two(q.p); }

vmc::Picos cost_my_recursive_doubling(const vmc::CostQuery& q) {
  if (q.n == 0) return 0;  // nothing is sent
  const vmc::Picos exchange = (q.model.port == vmc::Port::half ? 2 : 1) * q.units.message(q.n);
  return log2_of(q.p) * (exchange + q.units.combine(q.n));
}

vmc::Claim claim_my_recursive_doubling(const vmc::CostQuery& q) {
  const bool private_links =
      q.model.routing == vmc::Routing::direct || q.topology->family() == "full";
  if (!private_links) return vmc::Claim::estimate;  // partners' routes may share links
  return q.model.protocol == vmc::Protocol::eager ? vmc::Claim::exact : vmc::Claim::lower_bound;
}

void my_recursive_doubling(const vmc::Call& call) {
  const vmc::Comm& comm = *call.comm;
  const std::size_t n = call.n, bytes = n * call.item_size;
  if (n == 0) return;
  std::vector<char> acc(bytes), got(bytes);
  std::memcpy(acc.data(), call.send != nullptr ? call.send : call.recv, bytes);  // in place
  const int me = comm.rank();
  for (int bit = 1; bit < comm.size(); bit <<= 1) {
    const int partner = me ^ bit;
    comm.sendrecv_raw(acc.data(), bytes, n, partner, got.data(), bytes, call.item_size, partner,
                      call.tag);
    if (partner < me) {
      call.op->apply(got.data(), acc.data(), acc.data(), n);  // partner's partial on the left
    } else {
      call.op->apply(acc.data(), got.data(), acc.data(), n);
    }
    comm.charge_combine(n);
  }
  std::memcpy(call.recv, acc.data(), bytes);
}
