#include "pcp_lists.h"

#include <algorithm>

#include "pagesim/mm/page_alloc.h"

namespace pagesim::replay::detail {

using trace::EventKind;

bool pcp_order(unsigned order) { return order <= 3 || order == kThpOrder; }

unsigned list_of(unsigned mt, unsigned order) { return mm::order_to_pindex_v6(mt, order); }
unsigned list_order(unsigned pindex) { return mm::pindex_to_order(pindex); }
unsigned list_mt(unsigned pindex) { return pindex >= 12 ? (pindex == 13 ? 1u : 0u) : pindex % 3; }

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
