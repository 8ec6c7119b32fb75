#include "collectives/primitives/p2p.hpp"

#include <string>

#include "runtime/errors.hpp"

namespace vmc::internal {

namespace {
void check_size(const Comm& comm, std::size_t got, std::size_t want, int source) {
  if (got != want) {
    throw UsageError(comm.who() + ": received " + std::to_string(got) + " items from rank " +
                     std::to_string(source) + " where " + std::to_string(want) +
                     " were expected: the ranks disagree about the counts");
  }
}
}  // namespace

void send_message(const Comm& comm, const void* data, std::size_t items, std::size_t item_size,
                  int dest, Tag tag) {
  comm.send_raw(data, items * item_size, items, dest, tag);
}

void recv_message(const Comm& comm, void* data, std::size_t items, std::size_t item_size,
                  int source, Tag tag) {
  std::size_t got = comm.recv_raw(data, items * item_size, item_size, source, tag) / item_size;
  check_size(comm, got, items, source);
}

void sendrecv_message(const Comm& comm, const void* out, std::size_t out_items, int dest,
                      void* in, std::size_t in_items, int source, std::size_t item_size, Tag tag) {
  std::size_t got = comm.sendrecv_raw(out, out_items * item_size, out_items, dest, in,
                                      in_items * item_size, item_size, source, tag) /
                    item_size;
  check_size(comm, got, in_items, source);
}

void send_items(const Comm& comm, const void* data, std::size_t items, std::size_t item_size,
                int dest, Tag tag) {
  if (items > 0) send_message(comm, data, items, item_size, dest, tag);
}

void recv_items(const Comm& comm, void* data, std::size_t items, std::size_t item_size,
                int source, Tag tag) {
  if (items > 0) recv_message(comm, data, items, item_size, source, tag);
}

void sendrecv_items(const Comm& comm, const void* out, std::size_t out_items, int dest,
                    void* in, std::size_t in_items, int source, std::size_t item_size, Tag tag) {
  if (out_items == 0) {
    recv_items(comm, in, in_items, item_size, source, tag);
  } else if (in_items == 0) {
    send_items(comm, out, out_items, item_size, dest, tag);
  } else {
    sendrecv_message(comm, out, out_items, dest, in, in_items, source, item_size, tag);
  }
}

void wait_message(const Comm& comm, Request& request, std::size_t items, int source) {
  check_size(comm, comm.wait(request), items, source);
}

namespace {
constexpr std::size_t kSend = static_cast<std::size_t>(-1);
}  // namespace

void Batch::send(const void* data, std::size_t items, std::size_t item_size, int dest, Tag tag) {
  requests_.push_back(comm_.isend_raw(data, items * item_size, items, dest, tag, SendMode::lent));
  expected_.push_back(kSend);
  peers_.push_back(dest);
}

void Batch::send_each(const void* data, std::size_t items, std::size_t item_size,
                      std::span<const int> dests, Tag tag) {
  if (dests.empty()) return;  // a leaf of the tree: nothing to post
  const std::size_t first = requests_.size();
  requests_.resize(first + dests.size());
  expected_.resize(first + dests.size(), kSend);
  peers_.insert(peers_.end(), dests.begin(), dests.end());
  comm_.isend_raw_each(data, items * item_size, items, dests, tag, SendMode::lent,
                       std::span<Request>(requests_).subspan(first));
}

void Batch::recv(void* data, std::size_t items, std::size_t item_size, int source, Tag tag) {
  requests_.push_back(comm_.irecv_raw(data, items * item_size, item_size, source, tag));
  expected_.push_back(items);
  peers_.push_back(source);
}

void Batch::reserve(std::size_t transfers) {
  requests_.reserve(transfers);
  expected_.reserve(transfers);
  peers_.reserve(transfers);
}

void Batch::wait() {
  const std::vector<std::size_t> got = comm_.wait_all(requests_);
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (expected_[i] != kSend) check_size(comm_, got[i], expected_[i], peers_[i]);
  }
  requests_.clear();
  expected_.clear();
  peers_.clear();
}

}  // namespace vmc::internal
