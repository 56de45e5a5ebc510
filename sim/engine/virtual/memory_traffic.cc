// The memory traffic the virtual engine times by its own clock: the clears that run at a
// moment, in the same closed loop as the store loops (vt::MemoryTraffic), and the queueing
// delay that loop gives every other miss homed on a node.
#include <algorithm>
#include <limits>

#include "pagesim/engine/virtual/virtual.h"

namespace pagesim {

// A clear counts from its start to its end. Tasks ask at their own clocks, which the
// causality check keeps nearly in order, so a clear that started after `now` is left out
// until a task's clock reaches it, and one that ended is taken out for good.
vt::MemoryTraffic& VirtualEngine::traffic_at(ps_t now) {
  if (now >= clears_from_ && now < clears_until_) return traffic_;
  clears_from_ = 0, clears_until_ = std::numeric_limits<ps_t>::max();
  for (ClearInterval& c : clears_) {
    const bool active = c.start <= now && now < c.end;
    if (active != c.counted) {
      if (active)
        traffic_.add_clear(c.cpu_node, c.page_node, c.lines_in_flight);
      else
        traffic_.remove_clear(c.cpu_node, c.page_node, c.lines_in_flight);
      c.counted = active;
    }
    if (c.start > now)
      clears_until_ = std::min(clears_until_, c.start);
    else if (active)
      clears_from_ = std::max(clears_from_, c.start), clears_until_ = std::min(clears_until_, c.end);
    else
      clears_from_ = std::max(clears_from_, c.end);
  }
  std::erase_if(clears_, [&](const ClearInterval& c) { return c.end <= now; });
  return traffic_;
}

ps_t VirtualEngine::dram_extra_ps(unsigned node, ps_t now) {
  return static_cast<ps_t>(traffic_at(now).wait_ps(node));
}

}  // namespace pagesim
