// The sequential reference; see reference.hpp.
#include "collectives/reference/reference.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace vmc::reference {

Reference::Reference(Shape shape, const Op* op, Inputs inputs)
    : shape_(std::move(shape)), op_(op), inputs_(std::move(inputs)) {
  const int q = shape_.members;
  if (q < 1) throw std::invalid_argument("reference: a call needs at least one member");
  if (shape_.root < 0 || shape_.root >= q) {
    throw std::invalid_argument("reference: root " + std::to_string(shape_.root) +
                                " is not a member of " + std::to_string(q));
  }
  const Operation o = shape_.op;
  auto sized = [q](const std::vector<std::size_t>& v) {
    return v.empty() || v.size() == static_cast<std::size_t>(q);
  };
  if (!sized(shape_.counts) || !sized(shape_.displs) ||
      (!shape_.counts.empty() && shape_.displs.empty() && o != Operation::reduce_scatter)) {
    throw std::invalid_argument("reference: counts and displs need one entry per member");
  }
  if (o == Operation::reduce_scatter && !shape_.counts.empty()) {
    rs_displs_.assign(q, 0);
    for (int r = 1; r < q; ++r) rs_displs_[r] = rs_displs_[r - 1] + shape_.counts[r - 1];
  }
  if (!shape_.send_counts.empty() &&
      (shape_.send_counts.size() != std::size_t(q) || shape_.send_displs.size() != std::size_t(q) ||
       shape_.recv_displs.size() != std::size_t(q))) {
    throw std::invalid_argument("reference: alltoallv's counts and displs need q x q entries");
  }
}

void Reference::input(int r, std::size_t first, std::size_t count, unsigned char* out) const {
  if (count > 0) inputs_(r, first, count, out);
}

std::size_t Reference::count(int r) const {
  return shape_.counts.empty() ? shape_.n : shape_.counts[r];
}

std::size_t Reference::displ(int r) const {
  if (shape_.counts.empty()) return shape_.n * static_cast<std::size_t>(r);
  return shape_.op == Operation::reduce_scatter ? rs_displs_[r] : shape_.displs[r];
}

std::size_t Reference::sent(int s, int d) const {
  return shape_.send_counts.empty() ? shape_.n : shape_.send_counts[s][d];
}

std::size_t Reference::sent_at(int s, int d) const {
  return shape_.send_counts.empty() ? shape_.n * static_cast<std::size_t>(d)
                                    : shape_.send_displs[s][d];
}

std::size_t Reference::received_at(int d, int s) const {
  return shape_.send_counts.empty() ? shape_.n * static_cast<std::size_t>(s)
                                    : shape_.recv_displs[d][s];
}

std::size_t Reference::input_items(int r) const {
  const int q = shape_.members, root = shape_.root;
  const std::size_t n = shape_.n;
  auto end_of_blocks = [&] {  // the end of the furthest block
    std::size_t end = 0;
    for (int k = 0; k < q; ++k) {
      if (count(k) > 0) end = std::max(end, displ(k) + count(k));
    }
    return end;
  };
  switch (shape_.op) {
    case Operation::broadcast: return r == root ? n : 0;
    case Operation::scatter: return r == root ? n * static_cast<std::size_t>(q) : 0;
    case Operation::scatterv: return r == root ? end_of_blocks() : 0;
    case Operation::reduce_scatter:
      return shape_.counts.empty() ? n * static_cast<std::size_t>(q)
                                   : rs_displs_[q - 1] + shape_.counts[q - 1];
    case Operation::alltoall: return n * static_cast<std::size_t>(q);
    case Operation::alltoallv: {
      std::size_t end = 0;
      for (int d = 0; d < q; ++d) {
        if (sent(r, d) > 0) end = std::max(end, sent_at(r, d) + sent(r, d));
      }
      return end;
    }
    case Operation::gatherv:
    case Operation::allgatherv: return count(r);
    case Operation::barrier: return 0;
    default: return n;  // reduce, allreduce, scan, exscan, gather, allgather
  }
}

std::size_t Reference::result_items(int r) const {
  const int q = shape_.members, root = shape_.root;
  const std::size_t n = shape_.n, nq = n * static_cast<std::size_t>(q);
  auto end_of_blocks = [&] {
    std::size_t end = 0;
    for (int k = 0; k < q; ++k) {
      if (count(k) > 0) end = std::max(end, displ(k) + count(k));
    }
    return end;
  };
  switch (shape_.op) {
    case Operation::broadcast:
    case Operation::allreduce:
    case Operation::scan: return n;
    case Operation::reduce: return r == root ? n : 0;
    case Operation::exscan: return r == 0 ? 0 : n;
    case Operation::allgather:
    case Operation::alltoall: return nq;
    case Operation::gather: return r == root ? nq : 0;
    case Operation::allgatherv: return end_of_blocks();
    case Operation::gatherv: return r == root ? end_of_blocks() : 0;
    case Operation::scatter:
    case Operation::scatterv:
      return shape_.in_place && r == root ? 0 : count(r);
    case Operation::reduce_scatter: return count(r);
    case Operation::alltoallv: {
      std::size_t end = 0;
      for (int s = 0; s < q; ++s) {
        if (sent(s, r) > 0) end = std::max(end, received_at(r, s) + sent(s, r));
      }
      return end;
    }
    case Operation::barrier: return 0;
  }
  return 0;
}

void Reference::fold(int last, std::size_t first, std::size_t count, unsigned char* out) {
  const std::size_t isz = shape_.item_size;
  input(0, first, count, out);
  scratch_.resize(count * isz);
  for (int r = 1; r <= last; ++r) {
    input(r, first, count, scratch_.data());
    if (count > 0) op_->apply(out, scratch_.data(), out, count);
  }
}

const Bytes& Reference::prefix(int last) {
  const std::size_t n = shape_.n, isz = shape_.item_size;
  if (prefix_rank_ < 0 || prefix_rank_ > last) {  // start again from rank 0
    prefix_.resize(n * isz);
    input(0, 0, n, prefix_.data());
    prefix_rank_ = 0;
  }
  scratch_.resize(n * isz);
  for (; prefix_rank_ < last; ++prefix_rank_) {
    input(prefix_rank_ + 1, 0, n, scratch_.data());
    if (n > 0) op_->apply(prefix_.data(), scratch_.data(), prefix_.data(), n);
  }
  return prefix_;
}

Bytes Reference::expected(int r, Bytes before) {
  if (r < 0 || r >= shape_.members) {
    throw std::invalid_argument("reference: rank " + std::to_string(r) + " is not a member of " +
                                std::to_string(shape_.members));
  }
  const Operation o = shape_.op;
  if (!inputs_ || (op_ == nullptr && (o == Operation::reduce || o == Operation::allreduce ||
                                      o == Operation::scan || o == Operation::exscan ||
                                      o == Operation::reduce_scatter))) {
    throw std::invalid_argument("reference: the results of " + to_string(o) +
                                " need the inputs and the op");
  }
  const std::size_t isz = shape_.item_size, n = shape_.n, items = result_items(r);
  if (items == 0) return before;
  if (before.size() < items * isz) before.resize(items * isz);
  unsigned char* out = before.data();
  const int q = shape_.members, root = shape_.root;
  switch (shape_.op) {
    case Operation::broadcast: input(root, 0, n, out); break;
    case Operation::reduce:
    case Operation::allreduce:
      if (!have_whole_) {
        whole_.resize(n * isz);
        fold(q - 1, 0, n, whole_.data());
        have_whole_ = true;
      }
      std::copy(whole_.begin(), whole_.end(), out);
      break;
    case Operation::scan:
    case Operation::exscan: {
      const Bytes& x = prefix(shape_.op == Operation::scan ? r : r - 1);
      std::copy(x.begin(), x.end(), out);
      break;
    }
    case Operation::allgather:
    case Operation::gather:
    case Operation::allgatherv:
    case Operation::gatherv:
      for (int s = 0; s < q; ++s) input(s, 0, count(s), out + displ(s) * isz);
      break;
    case Operation::scatter:
    case Operation::scatterv: input(root, displ(r), count(r), out); break;
    case Operation::reduce_scatter: fold(q - 1, displ(r), count(r), out); break;
    case Operation::alltoall:
    case Operation::alltoallv:
      for (int s = 0; s < q; ++s) input(s, sent_at(s, r), sent(s, r), out + received_at(r, s) * isz);
      break;
    case Operation::barrier: break;
  }
  return before;
}

}  // namespace vmc::reference
