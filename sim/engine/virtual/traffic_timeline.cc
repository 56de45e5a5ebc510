// TrafficTimeline: the clears that run at a moment of virtual time, in the same closed loop as
// the store loops (vt::MemoryTraffic), and the queueing delay that loop gives every other miss
// homed on a node (traffic_timeline.h).
#include "pagesim/engine/virtual/traffic_timeline.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pagesim {

using vt::ps_t;

vt::MemoryTraffic& TrafficTimeline::at(ps_t now) {
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

ps_t TrafficTimeline::dram_extra_ps(unsigned node, ps_t now) { return static_cast<ps_t>(at(now).wait_ps(node)); }

ps_t TrafficTimeline::clear(ps_t now, unsigned cpu_node, unsigned page_node, double lines_in_flight, uint64_t bytes) {
  vt::MemoryTraffic& traffic = at(now);
  traffic.add_clear(cpu_node, page_node, lines_in_flight);
  const double rate = traffic.clear_bytes_per_s(cpu_node, page_node, lines_in_flight);
  const auto d = static_cast<ps_t>(std::llround(static_cast<double>(bytes) / rate * 1e12));
  clears_.push_back({now, now + d, cpu_node, page_node, lines_in_flight, true});
  clears_until_ = 0;  // the clears changed
  return d;
}

}  // namespace pagesim
