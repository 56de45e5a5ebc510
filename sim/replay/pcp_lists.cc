#include "pcp_lists.h"

#include <algorithm>

#include "pagesim/mm/page_alloc.h"

namespace pagesim::replay::detail {

using trace::EventKind;

bool pcp_order(unsigned order) { return order <= 3 || order == kThpOrder; }

unsigned list_of(unsigned mt, unsigned order) { return mm::order_to_pindex_v6(mt, order); }
unsigned list_order(unsigned pindex) { return mm::pindex_to_order(pindex); }
unsigned list_mt(unsigned pindex) { return pindex >= 12 ? (pindex == 13 ? 1u : 0u) : pindex % 3; }

Pairing pair_events(const trace::Trace& t, const std::vector<bool>& in_zone) {
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
    const trace::Event& e = t.events[i];
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
    const trace::Event& e = t.events[i];
    switch (e.kind) {
      case EventKind::mm_page_alloc:
        if (!e.failed) live[e.pfn] = e.migratetype;
        last_free.erase(e.pfn);
        break;
      case EventKind::mm_page_free:
        if (auto it = live.find(e.pfn); it == live.end()) {
          settle(i, -1);
          p.pretrace_free[i] = true;
          if (e.order < kOrders) p.pretrace[e.order][static_cast<size_t>(p.free_mt[i])]++;
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

void KernelLists::move(unsigned cpu, unsigned list, int blocks) {
  if (cpu >= cpus_.size()) return;
  ListHistory& h = cpus_[cpu];
  h.blocks[list] += blocks;
  h.min_blocks[list] = std::min(h.min_blocks[list], h.blocks[list]);
  h.pages += static_cast<long>(blocks) << list_order(list);
  h.min_pages = std::min(h.min_pages, h.pages);
  h.max_pages = std::max(h.max_pages, h.pages);
}

KernelLists::KernelLists(unsigned nr_cpus, const trace::Trace& t, const Pairing& p) : cpus_(nr_cpus), t_(t), p_(p) {
  for (size_t i = 0; i < t.events.size(); ++i)
    if (p.in_zone[i] && t.events[i].kind == EventKind::mm_page_alloc_zone_locked) refilled_.insert(t.events[i].pfn);
}

bool KernelLists::untraced_claim(uint64_t pfn, unsigned order) const {
  return pfn % (uint64_t{1} << kThpOrder) == 0 && !on_lists_.contains(pfn) &&
         refilled_.contains(pfn + (uint64_t{1} << order));
}

int KernelLists::apply(size_t i) {
  if (!p_.in_zone[i]) return -1;
  const trace::Event& e = t_.events[i];
  const unsigned order = e.order;
  switch (e.kind) {
    case EventKind::mm_page_alloc:
      if (e.failed) return -1;
      if (!pcp_order(order) || e.migratetype < 0 || e.migratetype > 2) return -1;
      if (untraced_claim(e.pfn, order)) return -1;
      on_lists_.erase(e.pfn);
      move(e.cpu, list_of(static_cast<unsigned>(e.migratetype), order), -1);
      return static_cast<int>(e.cpu);
    case EventKind::mm_page_alloc_zone_locked:
      // 6.x prints percpu_refill=1 for every pcp order and type; a block taken straight from
      // buddy (a failed pcp trylock) is rare enough to count as a refill.
      if (!pcp_order(order) || e.migratetype < 0 || e.migratetype > 2) return -1;
      on_lists_.insert(e.pfn);
      move(e.cpu, list_of(static_cast<unsigned>(e.migratetype), order), +1);
      return static_cast<int>(e.cpu);
    case EventKind::mm_page_pcpu_drain:
      if (!pcp_order(order)) return -1;
      on_lists_.erase(e.pfn);
      move(e.cpu, list_of(e.migratetype >= 0 && e.migratetype <= 2 ? static_cast<unsigned>(e.migratetype) : 1u, order), -1);
      return static_cast<int>(e.cpu);
    case EventKind::vmstat_update:
      return -1;
    case EventKind::mm_page_free:
    case EventKind::mm_page_free_batched: {
      const trace::Event* f = &e;
      if (e.kind == EventKind::mm_page_free_batched) {
        if (p_.free_of_batched[i] < 0) return -1;
        f = &t_.events[static_cast<size_t>(p_.free_of_batched[i])];
      } else if (p_.deferred[i]) {
        return -1;
      }
      if (!pcp_order(f->order)) return -1;
      const size_t fi = e.kind == EventKind::mm_page_free_batched ? static_cast<size_t>(p_.free_of_batched[i]) : i;
      on_lists_.insert(f->pfn);
      move(e.cpu, list_of(static_cast<unsigned>(p_.free_mt[fi]), f->order), +1);
      return static_cast<int>(e.cpu);
    }
  }
  return -1;
}

}  // namespace pagesim::replay::detail
