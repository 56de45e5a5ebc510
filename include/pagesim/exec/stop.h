// A stop request (SIGINT, SIGTERM) and the safe points that honour it.
//
// The kernel acts on a pending signal on the way back to user mode (exit_to_user_mode_loop),
// never inside a kernel function. The engines do the same: an Exec checks the request in
// sys_exit(), after an operation on the model is complete, and the virtual engine also between
// two resumptions of its tasks. A request found there throws Interrupted, which the runner
// turns into a partial run.
#pragma once

#include <atomic>

#include "pagesim/error.h"

namespace pagesim {

struct StopRequest {
  const std::atomic<bool>* flag = nullptr;  // set by a signal handler; may be null

  bool requested() const { return flag && flag->load(std::memory_order_relaxed); }
  void check() const {
    if (requested()) throw interrupted();
  }
  static Interrupted interrupted() { return Interrupted("stopped at a safe point by a signal"); }
};

}  // namespace pagesim
