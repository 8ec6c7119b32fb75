// A replay of programs of blocking sends and receives in virtual time, for cost functions
// whose schedules let nodes drift apart so far that no closed form holds (the mesh_dopl
// broadcast and reductions with k_alt > 1).
//
// It applies the simulator's rules (runtime/simulator.cpp header) to such programs, under
// eager sends with duplex or all-port nodes, on routes that never hold a message up (the
// caller shows that no two messages share a link, or claims no more than a lower bound): a
// send is requested when its node reaches it and starts as soon as its receiver's in-port
// is free (duplex; at once under all-port), holding it for alpha + n beta; the sender goes
// on and the receiver has the data at its end; a receive completes at max(time posted, end
// of its message), the k-th receive from a source taking the k-th message it sent. Requests
// waiting for one in-port are served as the simulator serves them: first those whose
// receive is posted, then the others, oldest first (request time, sender rank, send order).
// A node's local work (a combine) holds it for its duration, its in-port free meanwhile.
// At one instant: message ends and ends of work, then node steps, then grants.
#pragma once

#include <cstddef>
#include <vector>

#include "runtime/model.hpp"

namespace vmc::internal {

class BlockingReplay {
 public:
  explicit BlockingReplay(int p) : programs_(p) {}
  void send(int from, int to, Picos duration) { programs_[from].push_back({true, to, duration}); }
  void recv(int at, int from) { programs_[at].push_back({false, from, 0}); }
  void work(int at, Picos duration) { programs_[at].push_back({false, -1, duration}); }

  struct Result {
    Picos time = 0;       // when the last node ends its program
    bool waited = false;  // some message waited for a busy in-port
  };
  // Throws std::logic_error when the programs do not match (a receive without its send) or
  // cannot end (deadlock).
  Result run(bool all_port) const;

 private:
  struct Op {
    bool send = false;
    int peer = -1;  // -1: local work
    Picos duration = 0;
  };
  std::vector<std::vector<Op>> programs_;
};

}  // namespace vmc::internal
