// Erasure from a table of linear probing by backward shift, shared by the tables that need
// one (the discrete-event pass's match queues, runtime/simulator.cpp; a mailbox's far keys,
// runtime/node.hpp).
#pragma once

#include <cstddef>

namespace vmc::detail {

// After the entry at slot `hole` of a table of linear probing over a power of two of slots
// (`mask`: their number less one) is removed, the entries after it in its run move back
// into the hole unless their home slot lies (cyclically) after the hole, where a probe from
// it would stop at the hole; so no tombstone lengthens a later probe. occupied(i): whether
// slot i holds an entry; home(i): the home slot of slot i's entry; move(from, to): slot
// from's entry goes to the free slot `to`, leaving `from` free.
template <class Occupied, class Home, class Move>
void shift_back(std::size_t hole, std::size_t mask, const Occupied& occupied, const Home& home,
                const Move& move) {
  for (std::size_t j = (hole + 1) & mask; occupied(j); j = (j + 1) & mask) {
    if (((j - home(j)) & mask) >= ((j - hole) & mask)) {
      move(j, hole);
      hole = j;
    }
  }
}

}  // namespace vmc::detail
