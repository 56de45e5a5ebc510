// One logged line access, as the native engine's per-thread buffers record it for replay.
//
// Kept apart from the model so that a logger can include it without the model.
#pragma once

#include <cstdint>

#include "pagesim/exec/access_counters.h"
#include "pagesim/exec/line.h"
#include "pagesim/exec/site.h"

namespace pagesim::cache {

struct TimedAccess {
  uint64_t tsc = 0;   // when it happened on its CPU (any monotonic per-CPU clock)
  uint64_t line = 0;  // line number: byte address >> 6
  uint16_t node = 0;  // the line's home node
  AccessKind kind = AccessKind::load;
  Site site = Site::unknown;
  LockContext ctx = LockContext::none;
  LineKind line_kind = LineKind::data;
  friend bool operator==(const TimedAccess&, const TimedAccess&) = default;
};

}  // namespace pagesim::cache
