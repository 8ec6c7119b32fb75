// Point-to-point transfers of item arrays for every collective: item-counted byte transfers
// that check that what arrives has the size the sender and receiver agreed on. A size
// mismatch means the ranks disagree about the counts (v-variants): a UsageError naming the
// receiving node, never a hang or a silent corruption.
//
// Two conventions, one family each:
// - *_message: exactly one message each way, even an empty one (it still costs a startup),
//   so a cost function counts messages without looking at the data (the combine-family
//   algorithms of trees.hpp, barriers).
// - *_items: empty messages are skipped (every rank knows every block size, so both sides
//   skip alike), as the block collectives' cost functions assume.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "runtime/comm.hpp"

namespace vmc::internal {

// Sends `items` items as one message.
void send_message(const Comm& comm, const void* data, std::size_t items, std::size_t item_size,
                  int dest, Tag tag);
// Receives one message of exactly `items` items.
void recv_message(const Comm& comm, void* data, std::size_t items, std::size_t item_size,
                  int source, Tag tag);
// Sends out_items to dest and receives exactly in_items from source at once.
void sendrecv_message(const Comm& comm, const void* out, std::size_t out_items, int dest,
                      void* in, std::size_t in_items, int source, std::size_t item_size, Tag tag);

// Sends `items` items (nothing at all when items == 0).
void send_items(const Comm& comm, const void* data, std::size_t items, std::size_t item_size,
                int dest, Tag tag);
// Receives exactly `items` items (nothing when items == 0).
void recv_items(const Comm& comm, void* data, std::size_t items, std::size_t item_size,
                int source, Tag tag);
// Sends out_items to dest and receives exactly in_items from source at once; degrades to a
// plain send or receive when one side is empty, and to nothing when both are.
void sendrecv_items(const Comm& comm, const void* out, std::size_t out_items, int dest,
                    void* in, std::size_t in_items, int source, std::size_t item_size, Tag tag);

// Waits for an irecv that must bring exactly `items` items from `source`.
void wait_message(const Comm& comm, Request& request, std::size_t items, int source);

// Nonblocking transfers posted together and completed together (Comm::isend, irecv,
// wait_all): the all-port algorithms' steps, in which a node talks to several neighbours at
// once. Each send is one message (even of 0 items); each receive expects exactly its items.
// The sends lend their buffers (SendMode::lent): they must stay in place and unchanged until
// wait(), so a batch is declared after the buffers it sends from; on the way out of an
// error the batch withdraws its sends before those buffers go.
class Batch {
 public:
  explicit Batch(const Comm& comm) : comm_(comm) {}
  Batch(const Batch&) = delete;
  Batch& operator=(const Batch&) = delete;
  ~Batch() { comm_.withdraw(requests_); }
  void send(const void* data, std::size_t items, std::size_t item_size, int dest, Tag tag);
  // send of one buffer to each of `dests`, in turn (Comm::isend_raw_each: with data, the
  // buffer is hashed once for all of them).
  void send_each(const void* data, std::size_t items, std::size_t item_size,
                 std::span<const int> dests, Tag tag);
  void recv(void* data, std::size_t items, std::size_t item_size, int source, Tag tag);
  // Room for `transfers` sends and receives in all before the next wait (a batch that knows
  // how many it posts makes its lists once).
  void reserve(std::size_t transfers);
  // Waits for every transfer posted since the last wait; a receive of another size than
  // expected is a UsageError naming the node, as for recv_message.
  void wait();

 private:
  const Comm& comm_;
  std::vector<Request> requests_;
  std::vector<std::size_t> expected_;  // items of each receive; kSend for sends
  std::vector<int> peers_;
};

}  // namespace vmc::internal
