// Per-cpu page lists: rmqueue_pcplist, rmqueue_bulk, free_unref_page, free_pcppages_bulk.
// Included only by sim/mm/instantiate_*.cc. The pcp of a CPU is touched only by that CPU,
// with IRQs off (local_lock_irqsave in 5.17).
#pragma once

#include <algorithm>

#include "buddy-inl.h"
#include "checks-inl.h"

namespace pagesim::mm {

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
  ex_.lock(zone.lock, Site::rmqueue_bulk);  // IRQs already off (local_lock_irqsave)
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
      if (batch > 1) batch = std::max(batch >> order, 2);
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
  IrqFlags flags = ex_.local_irq_save(Site::rmqueue_pcplist);  // local_lock_irqsave(&pagesets.lock)
  PerCpuPages& pcp = zone.pcp(ex_.cpu());
  touch(ex_, pcp_meta_line(ex_.cpu(), cpu_node(), zone), AccessKind::rmw, Site::rmqueue_pcplist);
  pcp.free_factor >>= 1;
  const unsigned pindex = cfg_.high_order_pcp ? order_to_pindex(mt, order) : mt;
  Page* page = __rmqueue_pcplist(zone, order, mt, alloc_flags, pcp, pcp.lists[pindex]);
  ex_.local_irq_restore(flags, Site::rmqueue_pcplist);
  if (page) {
    count_event(zone, PGALLOC, 1);  // 5.17 quirk: 1, not 1 << order (fixed by 15cd90049d59)
    zone_statistics(preferred, zone, 1);
  }
  return page;
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
}  // namespace detail

// free_unref_page_commit (IRQs off).
template <Exec E>
void Mm<E>::free_unref_page_commit(Page* page, unsigned mt, unsigned order) {
  Zone& zone = m_.page_zone(page);
  count_event(zone, PGFREE, 1);  // 5.17 quirk: 1 regardless of order
  PerCpuPages& pcp = zone.pcp(ex_.cpu());
  const unsigned pindex = cfg_.high_order_pcp ? order_to_pindex(mt, order) : mt;
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
void Mm<E>::free_unref_page(Page* page, unsigned order) {
  // free_pcp_prepare: DEBUG_VM or debug_pagealloc check the head here.
  if (!free_pages_prepare(page, order, cfg_.debug_vm || cfg_.debug_pagealloc)) {
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
  IrqFlags flags = ex_.local_irq_save(Site::free_unref_page);
  free_unref_page_commit(page, mt, order);
  ex_.local_irq_restore(flags, Site::free_unref_page);
}

// free_pcppages_bulk: 5.17 (two phases, round robin from list 1, prefetch of order-0 buddies)
// or 5.18 (one pass under the lock, starting with the just-freed list).
template <Exec E>
void Mm<E>::free_pcppages_bulk(Zone& zone, int count, PerCpuPages& pcp, unsigned just_freed_pindex) {
  // bulkfree_pcp_prepare: the head check runs unless DEBUG_VM without debug_pagealloc.
  const bool bulk_check = !cfg_.debug_vm || cfg_.debug_pagealloc;
  count = std::min(pcp.count, count);
  count_event(zone, PCP_DRAIN);
  count_event(zone, PCP_DRAIN_PAGES, static_cast<uint64_t>(count));
  const unsigned cpu = ex_.cpu();
  auto take_last = [&](unsigned pindex) {
    Page* page = &pcp.lists[pindex].back();
    touch(ex_, pcp_list_line(cpu, cpu_node(), zone, pindex), AccessKind::store, Site::free_pcppages_bulk);
    touch_list_neighbours(page, AccessKind::store, Site::free_pcppages_bulk);
    pcp.lists[pindex].pop_back();
    touch(ex_, pline(page), AccessKind::rmw, Site::free_pcppages_bulk);
    return page;
  };
  auto bad = [&](Page* page, unsigned order) {
    if (bulk_check && check_free_page(page)) {
      leak_block(zone, page, order, false);
      return true;
    }
    return false;
  };

  if (cfg_.free_pcppages_bulk == FreeBulk::v5_18) {
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
        Page* page = take_last(static_cast<unsigned>(pindex));
        const unsigned mt = get_pcppage_migratetype(page);
        count -= nr_pages;
        pcp.count -= nr_pages;
        if (bad(page, order)) continue;
        __free_one_page(page, m_.page_to_pfn(page), zone, order, mt, FPI_NONE);
      } while (count > 0 && !pcp.lists[pindex].empty());
    }
    ex_.unlock(zone.lock, Site::free_pcppages_bulk);
    return;
  }

  // 5.17 phase 1, without zone->lock: pick blocks round robin onto a local list.
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
      Page* page = take_last(pindex);
      nr_freed += 1 << order;
      count -= 1 << order;
      if (bad(page, order)) continue;
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
  }
  ex_.unlock(zone.lock, Site::free_pcppages_bulk);
}

// drain_pages_zone: this CPU only (5.17: remote pcps are drained by work on their own CPU).
template <Exec E>
void Mm<E>::drain_pages_zone(Zone& zone) {
  IrqFlags flags = ex_.local_irq_save(Site::drain_pages_zone);
  PerCpuPages& pcp = zone.pcp(ex_.cpu());
  if (pcp.count) free_pcppages_bulk(zone, pcp.count, pcp, 0);
  ex_.local_irq_restore(flags, Site::drain_pages_zone);
}

template <Exec E>
void Mm<E>::drain_local_pages(Zone* zone) {
  if (zone) return drain_pages_zone(*zone);
  for (Zone* z : m_.populated_zones()) drain_pages_zone(*z);
}

}  // namespace pagesim::mm
