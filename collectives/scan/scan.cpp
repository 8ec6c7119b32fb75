// The scan front door: the item-by-item combining operations' checks and dispatch.
#include "collectives/scan/scan.hpp"

#include "collectives/dispatch/dispatch.hpp"

namespace vmc::detail {

void scan_bytes(const Comm& comm, const void* send, std::size_t send_items, void* recv,
                std::size_t recv_items, std::size_t item_size, const Op& op,
                const Options& options) {
  dispatch_itemwise(Operation::scan, comm, send, send_items, recv, recv_items, item_size, op,
                    options);
}

}  // namespace vmc::detail
