// A user's allreduce: see my_allreduce.hpp.
#include "my_allreduce.hpp"

#include <cstring>
#include <vector>

namespace {

// Children of v in the binomial tree of p ranks rooted at 0: v + 1, v + 2, v + 4, ... below
// v's lowest set bit; child v + k's subtree holds ranks [v + k, v + 2k).
std::vector<int> children(int v, int p) {
  std::vector<int> out;
  for (int k = 1; (v & k) == 0 && v + k < p; k <<= 1) out.push_back(v + k);
  return out;
}
int parent(int v) { return v & (v - 1); }  // v with its lowest set bit cleared

void allreduce(const vmc::Call& call, bool broken) {
  const vmc::Comm& comm = *call.comm;
  const int v = comm.rank(), p = comm.size();
  const std::size_t n = call.n, isz = call.item_size, bytes = n * isz;
  std::vector<char> acc(bytes);
  if (bytes > 0) std::memcpy(acc.data(), call.send != nullptr ? call.send : call.recv, bytes);
  const std::vector<int> kids = children(v, p);
  // Reduce: receive every child's subtree at once, combine them in rank order.
  std::vector<std::vector<char>> got(kids.size(), std::vector<char>(bytes));
  std::vector<vmc::Request> requests;
  for (std::size_t i = 0; i < kids.size(); ++i) {
    requests.push_back(comm.irecv_raw(got[i].data(), bytes, isz, kids[i], call.tag));
  }
  for (std::size_t i = 0; i < kids.size(); ++i) {
    comm.wait(requests[i]);
    if (broken && p == 6 && kids[i] == 4) continue;  // the bug: ranks 4 and 5 are lost
    call.op->apply(acc.data(), got[i].data(), acc.data(), n);
    comm.charge_combine(n);
  }
  if (v != 0) {
    comm.send_raw(acc.data(), bytes, n, parent(v), call.tag);
    comm.recv_raw(acc.data(), bytes, isz, parent(v), call.tag + 1);
  }
  // Broadcast: send the result to every child at once.
  requests.clear();
  for (int kid : kids) requests.push_back(comm.isend_raw(acc.data(), bytes, n, kid, call.tag + 1));
  comm.wait_all(requests);
  if (bytes > 0) std::memcpy(call.recv, acc.data(), bytes);
}

int ceil_log2(int p) {
  int d = 0;
  while ((1 << d) < p) ++d;
  return d;
}

}  // namespace

void my_allreduce(const vmc::Call& call) { allreduce(call, false); }
void my_allreduce_broken(const vmc::Call& call) { allreduce(call, true); }

vmc::Picos cost_my_allreduce(const vmc::CostQuery& q) {
  const int d = ceil_log2(q.p);
  return 2 * d * q.units.message(q.n) + d * q.units.combine(q.n);
}

vmc::Claim claim_my_allreduce(const vmc::CostQuery& q) {
  const bool private_links = q.model.routing == vmc::Routing::direct ||
                             q.topology->spec().rfind("full:", 0) == 0;
  const bool power_of_two = (q.p & (q.p - 1)) == 0;
  return private_links && power_of_two && q.model.port == vmc::Port::all &&
                 q.model.protocol == vmc::Protocol::eager
             ? vmc::Claim::exact
             : vmc::Claim::estimate;
}
