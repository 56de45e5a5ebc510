// Per-cpu page lists: rmqueue_pcplist, rmqueue_bulk, free_unref_page, free_pcppages_bulk, and
// the auto-tuned pcp's nr_pcp_alloc, free_frozen_page_commit and decay_pcp_high.
// Included only by the engines' instantiate_mm.cc (sim/engine/*/), through hugetlb-inl.h.
// The pcp of a CPU is touched only by that CPU, with IRQs off (local_lock_irqsave in 5.17).
// 6.x's pcp->lock (behaviour.pcp_spinlock) is taken the same way: the model has neither
// remote drains nor IRQ re-entry, the only ways its trylock fails.
#pragma once

#include <algorithm>

#include "buddy-inl.h"
#include "checks-inl.h"

namespace pagesim::mm {

namespace detail {
// The kernel's clamp(): min(max(v, lo), hi), defined even when lo > hi.
inline int kclamp(int v, int lo, int hi) { return std::min(std::max(v, lo), hi); }
}  // namespace detail

template <Exec E>
void Mm<E>::leak_block(Zone& zone, Page*, unsigned order, bool still_counted_free) {
  ZoneAcct& a = acct(zone);
  a.leaked += long{1} << order;
  if (still_counted_free) a.leaked_unaccounted += long{1} << order;
  count_event(zone, LEAKED_BLOCKS);
  count_event(zone, LEAKED_PAGES, uint64_t{1} << order);
}

// The refill check after zone->lock is dropped: Halbuer's 6.4 placement, and the "Mel's walk
// outside the lock" ablation. Bad blocks leave the list and are leaked.
template <Exec E>
void Mm<E>::check_pcp_list_refill(Zone& zone, PageList& list, unsigned order, int& allocated) {
  for (auto it = list.begin(); it != list.end();) {
    Page* page = &*it;
    ++it;
    if (!check_pcp_refill(page, order)) continue;
    touch_list_neighbours(page, AccessKind::store, Site::rmqueue_bulk);
    list.erase(list.iterator_to(*page));
    leak_block(zone, page, order, false);
    allocated--;
  }
}

// rmqueue_bulk: take `count` blocks from buddy under zone->lock onto a pcp list. Leaked
// blocks still count in i, so NR_FREE_PAGES drops by i << order.
template <Exec E>
int Mm<E>::rmqueue_bulk(Zone& zone, unsigned order, unsigned long count, PageList& list, unsigned mt,
                        unsigned alloc_flags) {
  const bool check_after_unlock = cfg_.refill_check_after_unlock || cfg_.mel_walk == MelWalk::outside_lock;
  int allocated = 0;
  unsigned long i;
  // 5.17: spin_lock, IRQs already off (local_lock_irqsave); pcp spinlock: spin_lock_irqsave.
  const bool irqsave = cfg_.behaviour.pcp_spinlock;
  IrqFlags irq{};
  if (irqsave) irq = ex_.local_irq_save(Site::rmqueue_bulk);
  ex_.lock(zone.lock, Site::rmqueue_bulk);
  count_event(zone, PCP_REFILL);
  for (i = 0; i < count; ++i) {
    Page* page = __rmqueue(zone, order, mt, alloc_flags);
    if (!page) break;
    if (!check_after_unlock && check_pcp_refill(page, order)) {
      leak_block(zone, page, order, false);
      continue;
    }
    touch(ex_, pline(page), AccessKind::store, Site::rmqueue_bulk);
    if (!list.empty()) touch(ex_, pline(&list.back()), AccessKind::store, Site::rmqueue_bulk);
    list.push_back(*page);  // list_add_tail keeps the split order ascending
    allocated++;
    if (get_pcppage_migratetype(page) == MIGRATE_CMA) __mod_zone_page_state(zone, NR_FREE_CMA_PAGES, -(long{1} << order));
  }
  count_event(zone, PCP_REFILL_BLOCKS, i);
  __mod_zone_page_state(zone, NR_FREE_PAGES, -static_cast<long>(i << order));
  ex_.unlock(zone.lock, Site::rmqueue_bulk);
  if (irqsave) ex_.local_irq_restore(irq, Site::rmqueue_bulk);
  if (check_after_unlock) check_pcp_list_refill(zone, list, order, allocated);
  return allocated;
}

// __rmqueue_pcplist: refill an empty list, take the hot end, check (config matrix).
template <Exec E>
Page* Mm<E>::__rmqueue_pcplist(Zone& zone, unsigned order, unsigned mt, unsigned alloc_flags, PerCpuPages& pcp,
                               PageList& list) {
  const unsigned pindex = static_cast<unsigned>(&list - pcp.lists);
  Page* page;
  do {
    touch(ex_, pcp_list_line(ex_.cpu(), cpu_node(), zone, pindex), AccessKind::load, Site::__rmqueue_pcplist);
    if (list.empty()) {
      int batch = READ_ONCE(pcp.batch);
      if (cfg_.behaviour.pcp_high_autotune) batch = nr_pcp_alloc(pcp, zone, order);
      else if (batch > 1) batch = std::max(batch >> order, 2);
      const int alloced = rmqueue_bulk(zone, order, static_cast<unsigned long>(batch), list, mt, alloc_flags);
      pcp.count += alloced << order;
      if (list.empty()) return nullptr;
    }
    page = &list.front();
    pcp_list_del(pcp, zone, pindex, page);
    pcp.count -= 1 << order;
    if (!check_new_pcp(page, order)) break;
    leak_block(zone, page, order, false);
  } while (true);
  return page;
}

// rmqueue_pcplist.
template <Exec E>
Page* Mm<E>::rmqueue_pcplist(Zone& preferred, Zone& zone, unsigned order, gfp_t, unsigned mt, unsigned alloc_flags) {
  // 5.17: local_lock_irqsave(&pagesets.lock); 6.x: pcp_spin_trylock.
  IrqFlags flags = ex_.local_irq_save(Site::rmqueue_pcplist);
  PerCpuPages& pcp = zone.pcp(ex_.cpu());
  touch(ex_, pcp_meta_line(ex_.cpu(), cpu_node(), zone), AccessKind::rmw, Site::rmqueue_pcplist);
  if (cfg_.behaviour.pcp_high_autotune)
    pcp.free_count >>= 1;  // halved, not reset: a few allocations do not end a run of frees
  else
    pcp.free_factor >>= 1;
  Page* page = __rmqueue_pcplist(zone, order, mt, alloc_flags, pcp, pcp.lists[pcp_pindex(mt, order)]);
  ex_.local_irq_restore(flags, Site::rmqueue_pcplist);
  if (page) {
    count_event(zone, PGALLOC, pcp_events(order));
    zone_statistics(preferred, zone, 1);
  }
  return page;
}

// order_to_pindex: 5.17 gives THP blocks one list per migratetype (12-14), 6.x two (12:
// unmovable and reclaimable, 13: movable); without high_order_pcp, one list per migratetype.
template <Exec E>
unsigned Mm<E>::pcp_pindex(unsigned mt, unsigned order) const {
  if (!cfg_.high_order_pcp) return mt;
  return cfg_.behaviour.thp_pcp_lists_by_movability ? order_to_pindex_v6(mt, order) : order_to_pindex(mt, order);
}

// PGALLOC and PGFREE on the pcp paths: 5.17 counts 1 per block, whatever its order (the quirk
// 15cd90049d59 fixed).
template <Exec E>
uint64_t Mm<E>::pcp_events(unsigned order) const {
  return cfg_.behaviour.pcp_events_count_pages ? uint64_t{1} << order : 1;
}

// nr_pcp_alloc (6.x): the refill size. Each refill raises pcp->high by the batch it takes
// (unless the zone is below its high watermark), and an order-0 refill doubles the next one
// (alloc_factor) while the pcp has room; a free halves alloc_factor again.
template <Exec E>
int Mm<E>::nr_pcp_alloc(PerCpuPages& pcp, Zone& zone, unsigned order) {
  const int base_batch = READ_ONCE(pcp.batch);
  const int high_min = READ_ONCE(pcp.high_min), high_max = READ_ONCE(pcp.high_max);
  int high = pcp.high = detail::kclamp(pcp.high, high_min, high_max);
  if (high < base_batch) return 1;  // a disabled or boot pageset
  int batch = order ? base_batch : base_batch << pcp.alloc_factor;
  if (high_min != high_max && !(zone.flags.load(std::memory_order_relaxed) & (1ul << ZONE_BELOW_HIGH)))
    high = pcp.high = std::min(high + batch, high_max);
  if (!order) {
    const int max_nr_alloc = std::max(high - pcp.count - base_batch, base_batch);
    if (batch <= max_nr_alloc && pcp.alloc_factor < cfg_.pcp_batch_scale_max) pcp.alloc_factor++;
    batch = std::min(batch, max_nr_alloc);
  }
  if (batch > 1) batch = std::max(batch >> order, 2);
  return batch;
}

// nr_pcp_high / nr_pcp_free (5.14-5.18), with 5.18's free_high when that knob is on.
namespace detail {
inline int nr_pcp_high(const PerCpuPages& pcp, const Zone& zone, bool free_high) {
  const int high = READ_ONCE(pcp.high);
  if (!high || free_high) return 0;
  if (!(zone.flags.load(std::memory_order_relaxed) & (1ul << ZONE_RECLAIM_ACTIVE))) return high;
  return std::min(READ_ONCE(pcp.batch) << 2, high);
}
// 5.18 tests free_high first: nr_pcp_high returned 0 for it, which the high < batch test (a
// disabled or boot pageset) would otherwise take for a pcp that frees one page at a time.
inline int nr_pcp_free(PerCpuPages& pcp, int high, int batch, bool free_high) {
  if (free_high) return pcp.count;
  if (high < batch) return 1;
  const int min_nr_free = batch;
  const int max_nr_free = high - batch;
  batch <<= pcp.free_factor;
  if (batch < max_nr_free) pcp.free_factor++;
  return std::clamp(batch, min_nr_free, max_nr_free);
}

// nr_pcp_high (6.x): the drain threshold, and pcp->high's tuning on the free side. free_high
// drains at once and lowers high; a zone under reclaim or below its high watermark shrinks
// high by the recent frees; otherwise a pcp that reaches high while freeing gets room for its
// recent frees plus a batch, from the next free on.
inline int nr_pcp_high_v6(PerCpuPages& pcp, const Zone& zone, int batch, bool free_high, unsigned scale_max) {
  const int high_min = READ_ONCE(pcp.high_min), high_max = READ_ONCE(pcp.high_max);
  const int high = pcp.high = kclamp(pcp.high, high_min, high_max);
  if (!high) return 0;
  if (free_high) {
    pcp.high = std::max(high - (batch << scale_max), high_min);
    return 0;
  }
  const unsigned long flags = zone.flags.load(std::memory_order_relaxed);
  if (flags & (1ul << ZONE_RECLAIM_ACTIVE)) {
    pcp.high = std::max(high - std::max<int>(pcp.free_count, batch), high_min);
    return std::min(batch << 2, pcp.high);
  }
  if (high_min == high_max) return high;
  if (flags & (1ul << ZONE_BELOW_HIGH)) {
    pcp.high = std::max(high - std::max<int>(pcp.free_count, batch), high_min);
    return std::max(pcp.count, high_min);
  }
  if (pcp.count >= high) {
    const int need_high = pcp.free_count + batch;
    if (pcp.high < need_high) pcp.high = kclamp(need_high, high_min, high_max);
  }
  return high;
}

// nr_pcp_free (6.x): drain what was recently freed, at least a batch, leaving at least one.
inline int nr_pcp_free_v6(const PerCpuPages& pcp, int batch, int high, bool free_high, unsigned scale_max) {
  if (free_high) return std::min(pcp.count, batch << scale_max);
  if (high < batch) return 1;
  return kclamp(pcp.free_count, batch, high - batch);
}
}  // namespace detail

// free_unref_page_commit (5.17; IRQs off).
template <Exec E>
void Mm<E>::free_unref_page_commit(Page* page, unsigned mt, unsigned order) {
  Zone& zone = m_.page_zone(page);
  count_event(zone, PGFREE, pcp_events(order));
  PerCpuPages& pcp = zone.pcp(ex_.cpu());
  const unsigned pindex = pcp_pindex(mt, order);
  pcp_list_add(pcp, zone, pindex, page, /*tail=*/false);
  pcp.count += 1 << order;
  touch(ex_, pcp_meta_line(ex_.cpu(), cpu_node(), zone), AccessKind::rmw, Site::free_unref_page_commit);
  const bool free_high = cfg_.free_pcppages_bulk == FreeBulk::v5_18 && pcp.free_factor && order &&
                         order <= PAGE_ALLOC_COSTLY_ORDER;
  const int high = detail::nr_pcp_high(pcp, zone, free_high);
  if (pcp.count >= high) {
    const int batch = READ_ONCE(pcp.batch);
    free_pcppages_bulk(zone, detail::nr_pcp_free(pcp, high, batch, free_high), pcp, pindex);
  }
}

// free_unref_page: prepare with IRQs on, commit under local_lock_irqsave.
template <Exec E>
void Mm<E>::free_unref_page(Page* page, unsigned order, bool batched) {
  // free_pcp_prepare: DEBUG_VM or debug_pagealloc check the head here (6.x: check_pages_enabled).
  if (!free_pages_prepare(page, order, check_pages_enabled())) {
    leak_block(m_.page_zone(page), page, order, false);
    return;
  }
  const pfn_t pfn = m_.page_to_pfn(page);
  unsigned mt = m_.get_pageblock_migratetype(pfn);
  set_pcppage_migratetype(page, mt);
  if (mt >= MIGRATE_PCPTYPES) {
    if (mt == MIGRATE_ISOLATE) {
      free_one_page(m_.page_zone(page), page, pfn, order, mt, FPI_NONE);
      return;
    }
    mt = MIGRATE_MOVABLE;
  }
  IrqFlags flags = ex_.local_irq_save(Site::free_unref_page);  // 6.x: pcp_spin_trylock
  if (batched) trace(TracepointId::mm_page_free_batched, page, 0);  // prints order=0 always
  if (cfg_.behaviour.pcp_high_autotune) {
    Zone& zone = m_.page_zone(page);
    free_frozen_page_commit(zone, zone.pcp(ex_.cpu()), page, mt, order);
  } else {
    free_unref_page_commit(page, mt, order);
  }
  ex_.local_irq_restore(flags, Site::free_unref_page);
}

// free_frozen_page_commit (6.18: the auto-tuned pcp).
template <Exec E>
void Mm<E>::free_frozen_page_commit(Zone& zone, PerCpuPages& pcp, Page* page, unsigned mt, unsigned order) {
  const unsigned scale_max = cfg_.pcp_batch_scale_max;
  pcp.alloc_factor >>= 1;
  count_event(zone, PGFREE, uint64_t{1} << order);
  const unsigned pindex = pcp_pindex(mt, order);
  pcp_list_add(pcp, zone, pindex, page, /*tail=*/false);
  pcp.count += 1 << order;
  touch(ex_, pcp_meta_line(ex_.cpu(), cpu_node(), zone), AccessKind::rmw, Site::free_frozen_page_commit);
  const int batch = READ_ONCE(pcp.batch);
  // free_high: a second order 1-3 free in a row, after a run of frees, drains at once so that
  // a CPU freeing high-order pages does not hoard them (nor, with FREE_HIGH_BATCH, its last batch).
  bool free_high = false;
  if (order && order <= PAGE_ALLOC_COSTLY_ORDER) {
    free_high = pcp.free_count >= batch + pcp.high_min / 2 && (pcp.flags & PCPF_PREV_FREE_HIGH_ORDER) &&
                (!(pcp.flags & PCPF_FREE_HIGH_BATCH) || pcp.count >= batch);
    pcp.flags |= PCPF_PREV_FREE_HIGH_ORDER;
  } else if (pcp.flags & PCPF_PREV_FREE_HIGH_ORDER) {
    pcp.flags &= static_cast<uint8_t>(~PCPF_PREV_FREE_HIGH_ORDER);
  }
  if (pcp.free_count < (batch << scale_max)) pcp.free_count = static_cast<short>(pcp.free_count + (1 << order));
  const int high = detail::nr_pcp_high_v6(pcp, zone, batch, free_high, scale_max);
  if (pcp.count < high) return;
  free_pcppages_bulk(zone, detail::nr_pcp_free_v6(pcp, batch, high, free_high, scale_max), pcp, pindex);
  if ((zone.flags.load(std::memory_order_relaxed) & (1ul << ZONE_BELOW_HIGH)) &&
      __zone_watermark_ok(zone, 0, zone.high_wmark_pages(), ZONE_MOVABLE, 0, zone.zone_page_state(NR_FREE_PAGES)))
    zone.flags.fetch_and(~(1ul << ZONE_BELOW_HIGH), std::memory_order_relaxed);
}

// free_pcppages_bulk: 5.17's two phases, or the one pass of 5.18 and later (knob
// free_pcppages_bulk; the v6.18 profile fixes it to v5.18).
template <Exec E>
void Mm<E>::free_pcppages_bulk(Zone& zone, int count, PerCpuPages& pcp, unsigned just_freed_pindex) {
  count = std::min(pcp.count, count);
  count_event(zone, PCP_DRAIN);
  count_event(zone, PCP_DRAIN_PAGES, static_cast<uint64_t>(count));
  if (cfg_.free_pcppages_bulk == FreeBulk::v5_17) free_pcppages_bulk_v5_17(zone, count, pcp);
  else free_pcppages_bulk_v5_18(zone, count, pcp, just_freed_pindex);
}

// The last (coldest) block of a pcp list, unlinked: list_last_entry + list_del.
template <Exec E>
Page* Mm<E>::pcp_list_take_last(Zone& zone, PerCpuPages& pcp, unsigned pindex) {
  Page* page = &pcp.lists[pindex].back();
  touch(ex_, pcp_list_line(ex_.cpu(), cpu_node(), zone, pindex), AccessKind::store, Site::free_pcppages_bulk);
  touch_list_neighbours(page, AccessKind::store, Site::free_pcppages_bulk);
  pcp.lists[pindex].pop_back();
  touch(ex_, pline(page), AccessKind::rmw, Site::free_pcppages_bulk);
  return page;
}

// bulkfree_pcp_prepare: the head check, unless DEBUG_VM without debug_pagealloc (none with
// checks_only_when_enabled, which checks at free time). True when the block is bad (leaked).
template <Exec E>
bool Mm<E>::bulkfree_pcp_prepare(Zone& zone, Page* page, unsigned order) {
  if (!detail::deferred_checks_enabled(cfg_) || !check_free_page(page)) return false;
  leak_block(zone, page, order, false);
  return true;
}

// free_pcppages_bulk, 5.18 to 6.18 (8391e0a7e172 "mm/page_alloc: free pages in a single pass
// during bulk free"): one pass under zone->lock, starting with the list after the just-freed
// one, each list emptied before the next.
template <Exec E>
void Mm<E>::free_pcppages_bulk_v5_18(Zone& zone, int count, PerCpuPages& pcp, unsigned just_freed_pindex) {
  int min_pindex = 0, max_pindex = NR_PCP_LISTS - 1;
  int pindex = static_cast<int>(just_freed_pindex) - 1;
  ex_.lock(zone.lock, Site::free_pcppages_bulk);
  while (count > 0) {
    for (;;) {
      if (++pindex > max_pindex) pindex = min_pindex;
      if (!pcp.lists[pindex].empty()) break;
      if (pindex == max_pindex) max_pindex--;
      if (pindex == min_pindex) min_pindex++;
    }
    const unsigned order = pindex_to_order(static_cast<unsigned>(pindex));
    const int nr_pages = 1 << order;
    do {
      Page* page = pcp_list_take_last(zone, pcp, static_cast<unsigned>(pindex));
      const pfn_t pfn = m_.page_to_pfn(page);
      const unsigned mt = cfg_.behaviour.free_to_pageblock_type ? m_.get_pageblock_migratetype(pfn)
                                                                : get_pcppage_migratetype(page);
      count -= nr_pages;
      pcp.count -= nr_pages;
      if (bulkfree_pcp_prepare(zone, page, order)) continue;
      __free_one_page(page, pfn, zone, order, mt, FPI_NONE);
      trace(TracepointId::mm_page_pcpu_drain, page, order, static_cast<int>(mt));
    } while (count > 0 && !pcp.lists[pindex].empty());
  }
  ex_.unlock(zone.lock, Site::free_pcppages_bulk);
}

// free_pcppages_bulk, 5.17: phase 1 picks blocks round robin from list 1 onto a local list
// without zone->lock, prefetching order-0 buddies; phase 2 frees them under it.
template <Exec E>
void Mm<E>::free_pcppages_bulk_v5_17(Zone& zone, int count, PerCpuPages& pcp) {
  PageList head;
  unsigned pindex = 0;
  int batch_free = 0, nr_freed = 0;
  int prefetch_nr = READ_ONCE(pcp.batch);
  while (count > 0) {
    do {
      batch_free++;
      if (++pindex == NR_PCP_LISTS) pindex = 0;
    } while (pcp.lists[pindex].empty());
    if (batch_free == static_cast<int>(NR_PCP_LISTS)) batch_free = count;
    const unsigned order = pindex_to_order(pindex);
    do {
      Page* page = pcp_list_take_last(zone, pcp, pindex);
      nr_freed += 1 << order;
      count -= 1 << order;
      if (bulkfree_pcp_prepare(zone, page, order)) continue;
      page->index = (page->index << 8) | order;  // NR_PCP_ORDER_WIDTH
      if (!head.empty()) touch(ex_, pline(&head.back()), AccessKind::store, Site::free_pcppages_bulk);
      head.push_back(*page);
      if (prefetch_nr) {  // prefetch_buddy: the order-0 buddy, even for high orders
        touch(ex_, pline(m_.pfn_to_page(m_.page_to_pfn(page) ^ 1)), AccessKind::prefetch, Site::free_pcppages_bulk);
        prefetch_nr--;
      }
    } while (count > 0 && --batch_free && !pcp.lists[pindex].empty());
  }
  pcp.count -= nr_freed;

  // Phase 2, under zone->lock.
  ex_.lock(zone.lock, Site::free_pcppages_bulk);
  while (!head.empty()) {
    Page* page = &head.front();
    head.pop_front();
    const unsigned mt = static_cast<unsigned>(page->index >> 8);
    const unsigned order = static_cast<unsigned>(page->index & 0xff);
    __free_one_page(page, m_.page_to_pfn(page), zone, order, mt, FPI_NONE);
    trace(TracepointId::mm_page_pcpu_drain, page, order, static_cast<int>(mt));
  }
  ex_.unlock(zone.lock, Site::free_pcppages_bulk);
}

// drain_pages_zone: this CPU only (5.17: remote pcps are drained by work on their own CPU).
// With pcp_drain_in_chunks, in chunks of batch << CONFIG_PCP_BATCH_SCALE_MAX, retaking the pcp
// lock each time.
template <Exec E>
void Mm<E>::drain_pages_zone(Zone& zone) {
  PerCpuPages& pcp = zone.pcp(ex_.cpu());
  const int chunk = cfg_.behaviour.pcp_drain_in_chunks ? READ_ONCE(pcp.batch) << cfg_.pcp_batch_scale_max : INT32_MAX;
  do {
    IrqFlags flags = ex_.local_irq_save(Site::drain_pages_zone);
    if (pcp.count) free_pcppages_bulk(zone, std::min(pcp.count, chunk), pcp, 0);
    ex_.local_irq_restore(flags, Site::drain_pages_zone);
  } while (pcp.count > 0);
}

// decay_pcp_high, as 6.18.y has it since the stable backport of "batch page freeing in
// decay_pcp_high" (6.18.7): the excess over the new high goes in free_pcppages_bulk calls of a
// batch each. Each call frees whole blocks, so one that meets the THP list frees 512 pages for
// its batch: a CPU holding THP blocks drains up to excess / batch of them (the kernel's traces
// show 63 order-0 pages, 15 order-2 and 31 order-9 blocks for an excess of ~2016 pages).
template <Exec E>
bool Mm<E>::decay_pcp_high(Zone& zone) {
  if (!cfg_.behaviour.pcp_high_autotune) return false;
  IrqFlags flags = ex_.local_irq_save(Site::decay_pcp_high);  // pcp_spin_lock_maybe_irqsave
  PerCpuPages& pcp = zone.pcp(ex_.cpu());
  touch(ex_, pcp_meta_line(ex_.cpu(), cpu_node(), zone), AccessKind::rmw, Site::decay_pcp_high);
  const int high_min = READ_ONCE(pcp.high_min), batch = READ_ONCE(pcp.batch);
  bool todo = false;
  if (pcp.high > high_min) {
    pcp.high = std::max({pcp.count - (batch << cfg_.pcp_batch_scale_max), pcp.high - (pcp.high >> 3), high_min});
    if (pcp.high > high_min) todo = true;
  }
  for (int to_drain = pcp.count - pcp.high; to_drain > 0; to_drain -= std::min(to_drain, batch)) {
    free_pcppages_bulk(zone, std::min(to_drain, batch), pcp, 0);
    todo = true;
  }
  ex_.local_irq_restore(flags, Site::decay_pcp_high);
  return todo;
}

template <Exec E>
void Mm<E>::drain_local_pages(Zone* zone) {
  if (zone) return drain_pages_zone(*zone);
  for (Zone* z : m_.populated_zones()) drain_pages_zone(*z);
}

}  // namespace pagesim::mm
