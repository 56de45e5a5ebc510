// The memory traffic the virtual engine times by its own clock: clear_huge_page's bandwidth
// shared on a node, and the loaded DRAM latency that traffic gives every other miss homed there.
#include <algorithm>
#include <limits>

#include "pagesim/engine/virtual/virtual.h"

namespace pagesim {

unsigned VirtualEngine::active_clears(unsigned node, ps_t now) {
  auto& v = clears_[node];
  std::erase_if(v, [&](const ClearInterval& c) { return c.end <= now; });
  unsigned n = 0;
  for (const ClearInterval& c : v) n += c.start <= now;
  return n;
}

// The machine file's loaded-latency curve at the utilisation of `node`'s DRAM by the clears
// running on it at `now` (each streams at its thread's clear rate). The value holds until the
// next clear starts or ends, so it is kept per node for that span.
ps_t VirtualEngine::dram_extra_ps(unsigned node, ps_t now) {
  DramLoad& d = dram_load_[node];
  if (now >= d.from && now < d.until) return d.extra;
  unsigned running = 0;
  double demand = 0;  // bytes/s
  ps_t from = 0, until = std::numeric_limits<ps_t>::max();
  for (const ClearInterval& c : clears_[node]) {
    if (c.start <= now && now < c.end) {
      running++;
      demand += c.rate;
      from = std::max(from, c.start), until = std::min(until, c.end);
    } else if (c.start > now) {
      until = std::min(until, c.start);
    } else {
      from = std::max(from, c.end);
    }
  }
  const double u = std::min(1.0, demand / model_.dram_bw_bytes_per_s);
  d = {from, until, running ? static_cast<ps_t>(model_.extra_latency_ps(u)) : 0};
  return d.extra;
}

}  // namespace pagesim
