// pair_events(): a trace's requests, paired (pagesim/trace/pairing.h).
#include "pagesim/trace/pairing.h"

#include <absl/container/flat_hash_map.h>

#include "pagesim/trace/gfp_names.h"

namespace pagesim::trace {

Pairing pair_events(const Trace& t, const std::vector<bool>& in_zone) {
  const size_t n = t.events.size();
  Pairing p;
  p.in_zone = in_zone;
  p.free_of_batched.assign(n, -1);
  p.deferred.assign(n, false);
  p.pretrace_free.assign(n, false);
  p.free_mt.assign(n, -1);
  // Backwards: each free's next drain of the same block, before the block is allocated again.
  absl::flat_hash_map<uint64_t, int8_t> next_drain_mt;
  for (size_t i = n; i-- > 0;) {
    if (!in_zone[i]) continue;
    const Event& e = t.events[i];
    if (e.kind == EventKind::mm_page_pcpu_drain && e.migratetype >= 0 && e.migratetype <= 2) next_drain_mt[e.pfn] = e.migratetype;
    if (e.kind == EventKind::mm_page_alloc) next_drain_mt.erase(e.pfn);
    if (e.kind == EventKind::mm_page_free)
      if (auto it = next_drain_mt.find(e.pfn); it != next_drain_mt.end()) p.free_mt[i] = it->second;
  }
  auto settle = [&](size_t i, int8_t alloc_mt) {
    if (p.free_mt[i] < 0) p.free_mt[i] = alloc_mt >= 0 && alloc_mt <= 2 ? alloc_mt : int8_t{1};
  };
  absl::flat_hash_map<uint64_t, size_t> last_free;  // pfn -> its latest mm_page_free
  absl::flat_hash_map<uint64_t, int8_t> live;       // pfn allocated in the trace, not yet freed -> its type
  for (size_t i = 0; i < n; ++i) {
    if (!in_zone[i]) continue;
    const Event& e = t.events[i];
    switch (e.kind) {
      case EventKind::mm_page_alloc:
        if (!e.failed) live[e.pfn] = e.migratetype;
        last_free.erase(e.pfn);
        break;
      case EventKind::mm_page_free:
        if (auto it = live.find(e.pfn); it == live.end()) {
          settle(i, -1);
          p.pretrace_free[i] = true;
          if (e.order < mm::MAX_ORDER) p.pretrace[e.order][static_cast<size_t>(p.free_mt[i])]++;
        } else {
          settle(i, it->second);
          live.erase(it);
        }
        last_free[e.pfn] = i;
        break;
      case EventKind::mm_page_free_batched:
        if (auto it = last_free.find(e.pfn); it != last_free.end() && t.events[it->second].cpu == e.cpu) {
          p.free_of_batched[i] = static_cast<int64_t>(it->second);
          p.deferred[it->second] = true;
          last_free.erase(it);
        }
        break;
      default:
        break;
    }
  }
  return p;
}

mm::gfp_t alloc_gfp(const Trace& t, const Event& e) {
  mm::gfp_t gfp = gfp_from_text(t.gfp_text(e)) & ~(mm::__GFP_MOVABLE | mm::__GFP_RECLAIMABLE);
  if (e.migratetype == 1) gfp |= mm::__GFP_MOVABLE;
  if (e.migratetype == 2) gfp |= mm::__GFP_RECLAIMABLE;
  return gfp;
}

}  // namespace pagesim::trace
