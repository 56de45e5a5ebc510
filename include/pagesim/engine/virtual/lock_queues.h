// The virtual engine's queued spinlocks, one per lock id (exec.h's kNrLockIds): whether the
// lock is held, its owner for lock_stat, the waiters in FIFO order of virtual arrival and the
// lock word's cache line, which the arrivals' RMWs and the handoffs take one at a time.
//
// Used by VirtualCpu::lock and unlock (virtual_cpu.cc), which price the accesses and block or
// wake the tasks; the queues only decide who gets the lock and when. VirtualEngine owns them
// and abandons them after a run that ended in an error or a deadlock.
//
// Invariants: a lock with waiters is held; waiters are granted in arrival order; a grant comes
// no earlier than the waiter's arrival, and no earlier than the release plus the handoff
// (lock-line transfer and the next MCS node write, vt::MachineModel::lock_handoff_ps) after
// the line is back from the arrivals' RMWs queued before it. A waiter keeps its vCPU while it
// spins, so the node it arrived on is its node at the grant. Times are virtual picoseconds.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "pagesim/exec/exec.h"
#include "pagesim/exec/lock_stat.h"
#include "pagesim/vt/machine_model.h"

namespace pagesim {

class LockQueues {
 public:
  using ps_t = vt::ps_t;
  // The lock goes to `task` at `at`.
  struct Grant {
    unsigned task;
    ps_t at;
  };

  explicit LockQueues(const vt::MachineModel& model) : model_(model), locks_(kNrLockIds) {}

  // Takes lock `id` if it is free (true), its line then written from `node`: the uncontended
  // path, which the caller prices.
  bool try_acquire(uint32_t id, unsigned node) {
    LockState& s = locks_[id];
    if (s.held) return false;
    s.held = true;
    s.line_node = static_cast<int>(node);
    return true;
  }
  // `task` on `node` finds lock `id` held at `arrival` and queues (queued_spin_lock_slowpath):
  // its pending-bit and xchg_tail RMWs take the lock word's line from its last writer,
  // between the holder's and the head's transfers.
  void arrive(uint32_t id, unsigned task, unsigned node, ps_t arrival) {
    LockState& s = locks_[id];
    s.line_free = std::max(arrival, s.line_free) + model_.lock_line_ps(s.line_owner(node), node);
    s.line_node = static_cast<int>(node);
    s.waiters.push_back({task, node, arrival});
  }
  // The holder on `node` releases lock `id` at `now`: the first waiter gets it, once the
  // arrivals' RMWs have the line back and the handoff is done. Without waiters the lock is
  // free and nullopt comes back.
  std::optional<Grant> release(uint32_t id, unsigned node, ps_t now) {
    LockState& s = locks_[id];
    if (s.waiters.empty()) {
      s.held = false;
      s.line_node = static_cast<int>(node);
      return std::nullopt;
    }
    const Waiter w = s.waiters.front();
    s.waiters.pop_front();
    const ps_t start = std::max(now, s.line_free);
    s.line_free = std::max(w.arrival, start + model_.lock_handoff_ps(s.line_owner(node), node, w.node));
    s.line_node = static_cast<int>(w.node);
    return Grant{w.task, s.line_free};
  }
  LockOwner& owner(uint32_t id) { return locks_[id].owner; }
  bool held(uint32_t id) const { return locks_[id].held; }
  size_t nr_waiting(uint32_t id) const { return locks_[id].waiters.size(); }
  // A run ended with tasks still blocked: nobody holds or waits for any lock (the line's
  // history and the owners stay, as the next run's timeline continues).
  void abandon() {
    for (LockState& s : locks_) s.waiters.clear(), s.held = false;
  }

 private:
  struct Waiter {
    unsigned task;
    unsigned node;
    ps_t arrival;
  };
  struct LockState {
    bool held = false;
    LockOwner owner;
    std::deque<Waiter> waiters;  // FIFO in virtual arrival order
    // The lock word's line: free for the next transfer at `line_free`, last written on socket
    // `line_node` (-1: nobody yet).
    ps_t line_free = 0;
    int line_node = -1;
    unsigned line_owner(unsigned otherwise) const { return line_node < 0 ? otherwise : static_cast<unsigned>(line_node); }
  };

  const vt::MachineModel& model_;
  std::vector<LockState> locks_;
};

}  // namespace pagesim
