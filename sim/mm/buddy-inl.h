// The buddy allocator proper: __rmqueue*, expand, fallback stealing and __free_one_page.
// Included only by the engines' instantiate_mm.cc (sim/engine/*/), through hugetlb-inl.h.
// Every function here runs under zone->lock.
#pragma once

#include <algorithm>

#include "free_list-inl.h"
#include "pagesim/error.h"

namespace pagesim::mm {

namespace detail {
// fallbacks[] (mm/page_alloc.c, 5.17).
inline constexpr unsigned kFallbacks[MIGRATE_PCPTYPES][2] = {
    {MIGRATE_RECLAIMABLE, MIGRATE_MOVABLE},    // UNMOVABLE
    {MIGRATE_RECLAIMABLE, MIGRATE_UNMOVABLE},  // MOVABLE
    {MIGRATE_UNMOVABLE, MIGRATE_MOVABLE},      // RECLAIMABLE
};

// can_steal_fallback (page_group_by_mobility_disabled is never set: no tiny machines).
inline bool can_steal_fallback(unsigned order, unsigned start_mt) {
  if (order >= pageblock_order) return true;
  return order >= pageblock_order / 2 || start_mt == MIGRATE_RECLAIMABLE || start_mt == MIGRATE_UNMOVABLE;
}

// find_suitable_fallback(area, order, mt, only_stealable = false, &can_steal).
inline int find_suitable_fallback(const FreeArea& area, unsigned order, unsigned mt, bool* can_steal) {
  *can_steal = false;
  if (area.nr_free == 0 || mt >= MIGRATE_PCPTYPES) return -1;
  for (unsigned fallback_mt : kFallbacks[mt]) {
    if (area.list_empty(fallback_mt)) continue;
    if (can_steal_fallback(order, mt)) *can_steal = true;
    return static_cast<int>(fallback_mt);
  }
  return -1;
}
}  // namespace detail

// expand(): split a block from order `high` down to `low`, freeing the upper halves.
template <Exec E>
void Mm<E>::expand(Zone& zone, Page* page, unsigned low, unsigned high, unsigned mt) {
  uint64_t size = uint64_t{1} << high;
  while (high > low) {
    high--;
    size >>= 1;
    // set_page_guard() never applies: debug_guardpage_minorder is 0 by default.
    add_to_free_list(page + size, zone, high, mt, /*tail=*/false);
  }
}

// __rmqueue_smallest: the first block of the smallest order >= `order` on `mt`'s lists.
// 6.x fires mm_page_alloc_zone_locked here, for the list searched (5.17: in __rmqueue).
template <Exec E>
Page* Mm<E>::__rmqueue_smallest(Zone& zone, unsigned order, unsigned mt, bool traced) {
  for (unsigned o = order; o < MAX_ORDER; ++o) {
    PageList& list = zone.free_area[o].free_list[mt];
    touch(ex_, free_list_line(zone, o, mt), AccessKind::load, Site::__rmqueue_smallest);
    if (list.empty() && !m_.populate_free_list(zone, o, mt)) continue;
    Page* page = &list.front();
    del_page_from_free_list(page, zone, o);
    expand(zone, page, order, o, mt);
    set_pcppage_migratetype(page, mt);
    if (cfg_.behaviour.zone_locked_trace_in_rmqueue_smallest && traced)
      trace(TracepointId::mm_page_alloc_zone_locked, page, order, static_cast<int>(mt),
            pcp_allowed_order(cfg_, order) && mt < MIGRATE_PCPTYPES);
    return page;
  }
  return nullptr;
}

// boost_watermark.
template <Exec E>
bool Mm<E>::boost_watermark(Zone& zone) {
  if (!cfg_.watermark_boost_factor) return false;
  if (pageblock_nr_pages * 4 > zone.managed_pages) return false;
  unsigned long max_boost = zone._watermark[WMARK_HIGH] * cfg_.watermark_boost_factor / 10000;
  if (!max_boost) return false;
  max_boost = std::max<unsigned long>(pageblock_nr_pages, max_boost);
  WRITE_ONCE(zone.watermark_boost, std::min<unsigned long>(zone.watermark_boost + pageblock_nr_pages, max_boost));
  touch(ex_, watermark_line(zone), AccessKind::rmw, Site::__rmqueue_fallback);
  return true;
}

// move_freepages_block -> move_freepages: move every free block of the pageblock to `mt`,
// counting in-use pages that look movable (PageLRU or __PageMovable).
template <Exec E>
int Mm<E>::move_freepages_block(Zone& zone, Page* page, unsigned mt, int* num_movable) {
  *num_movable = 0;
  const pfn_t pfn = m_.page_to_pfn(page);
  pfn_t start_pfn = pfn & ~(pageblock_nr_pages - 1);
  const pfn_t end_pfn = start_pfn + pageblock_nr_pages - 1;
  if (!zone.zone_spans_pfn(start_pfn)) start_pfn = pfn;
  if (!zone.zone_spans_pfn(end_pfn)) return 0;
  int pages_moved = 0;
  for (pfn_t p = start_pfn; p <= end_pfn;) {
    Page* pg = m_.pfn_to_page(p);
    touch(ex_, pline(pg), AccessKind::load, Site::move_freepages_block);
    if (!PageBuddy(pg)) {
      const uintptr_t mapping = page_mapping(pg);
      if (test_page_flag(pg, PG_lru) || (mapping & 3) == PAGE_MAPPING_MOVABLE) (*num_movable)++;
      p++;
      continue;
    }
    const unsigned order = static_cast<unsigned>(buddy_order(pg));
    move_to_free_list(pg, zone, order, mt);
    p += uint64_t{1} << order;
    pages_moved += 1 << order;
  }
  return pages_moved;
}

// steal_suitable_fallback.
template <Exec E>
void Mm<E>::steal_suitable_fallback(Zone& zone, Page* page, unsigned alloc_flags, unsigned start_type,
                                    bool whole_block) {
  const unsigned current_order = static_cast<unsigned>(buddy_order(page));
  const pfn_t pfn = m_.page_to_pfn(page);
  const unsigned old_block_type = m_.get_pageblock_migratetype(pfn);
  count_event(zone, FALLBACK_STEAL);
  if (old_block_type == MIGRATE_HIGHATOMIC) {
    move_to_free_list(page, zone, current_order, start_type);
    return;
  }
  if (current_order >= pageblock_order) {  // change_pageblock_range
    for (uint64_t i = 0; i < (uint64_t{1} << (current_order - pageblock_order)); ++i)
      m_.set_pageblock_migratetype(pfn + i * pageblock_nr_pages, start_type);
    count_event(zone, PAGEBLOCK_RETYPE);
    move_to_free_list(page, zone, current_order, start_type);
    return;
  }
  if (boost_watermark(zone) && (alloc_flags & ALLOC_KSWAPD))
    zone.flags.fetch_or(1ul << ZONE_BOOSTED_WATERMARK, std::memory_order_relaxed);
  if (!whole_block) {
    move_to_free_list(page, zone, current_order, start_type);
    return;
  }
  int movable_pages = 0;
  const int free_pages = move_freepages_block(zone, page, start_type, &movable_pages);
  if (!free_pages) {
    move_to_free_list(page, zone, current_order, start_type);
    return;
  }
  int alike_pages = 0;
  if (start_type == MIGRATE_MOVABLE)
    alike_pages = movable_pages;
  else if (old_block_type == MIGRATE_MOVABLE)
    alike_pages = static_cast<int>(pageblock_nr_pages) - (free_pages + movable_pages);
  if (free_pages + alike_pages >= (1 << (pageblock_order - 1))) {
    m_.set_pageblock_migratetype(pfn, start_type);
    count_event(zone, PAGEBLOCK_RETYPE);
  }
}

// __rmqueue_fallback: steal from another migratetype, largest block first.
template <Exec E>
bool Mm<E>::__rmqueue_fallback(Zone& zone, int order, unsigned start_mt, unsigned alloc_flags, bool* claimed) {
  const int min_order = (alloc_flags & ALLOC_NOFRAGMENT) ? static_cast<int>(pageblock_order) : order;
  bool can_steal = false;
  int fallback_mt = -1;
  int current_order;
  for (current_order = MAX_ORDER - 1; current_order >= min_order; --current_order) {
    touch(ex_, nr_free_line(zone, current_order), AccessKind::load, Site::__rmqueue_fallback);
    fallback_mt = detail::find_suitable_fallback(zone.free_area[current_order], current_order, start_mt, &can_steal);
    if (fallback_mt == -1) continue;
    // Stealing a large movable block for a small movable request fragments: take the smallest.
    if (!can_steal && start_mt == MIGRATE_MOVABLE && current_order > order) {
      for (current_order = order; current_order < static_cast<int>(MAX_ORDER); ++current_order) {
        fallback_mt = detail::find_suitable_fallback(zone.free_area[current_order], current_order, start_mt, &can_steal);
        if (fallback_mt != -1) break;
      }
    }
    break;
  }
  if (fallback_mt == -1 || current_order < min_order) return false;
  PageList& list = zone.free_area[current_order].free_list[fallback_mt];
  if (list.empty()) m_.populate_free_list(zone, static_cast<unsigned>(current_order), static_cast<unsigned>(fallback_mt));
  Page* page = &list.front();
  touch(ex_, pline(page), AccessKind::load, Site::__rmqueue_fallback);
  steal_suitable_fallback(zone, page, alloc_flags, start_mt, can_steal);
  // 6.x's try_to_claim_block hands a claimed block below pageblock order to
  // __rmqueue_smallest, which traces it; larger claims and __rmqueue_steal do not.
  if (claimed) *claimed = can_steal && current_order < static_cast<int>(pageblock_order);
  return true;
}

// __rmqueue. Deferred sections are handed to buddy before falling back, because on the booted
// kernel they would already be on the MOVABLE lists (docs/model.md).
template <Exec E>
Page* Mm<E>::__rmqueue(Zone& zone, unsigned order, unsigned mt, unsigned alloc_flags) {
  Page* page = __rmqueue_blocks(zone, order, mt, alloc_flags);
  // 5.17 fires mm_page_alloc_zone_locked for every block __rmqueue returns, steals included,
  // with the requested migratetype; its percpu_refill field prints order == 0.
  if (page && !cfg_.behaviour.zone_locked_trace_in_rmqueue_smallest)
    trace(TracepointId::mm_page_alloc_zone_locked, page, order, static_cast<int>(mt), order == 0);
  return page;
}

template <Exec E>
Page* Mm<E>::__rmqueue_blocks(Zone& zone, unsigned order, unsigned mt, unsigned alloc_flags) {
  bool traced = true;
  for (;;) {
    if ((alloc_flags & ALLOC_CMA) &&
        zone.zone_page_state(NR_FREE_CMA_PAGES) > zone.zone_page_state(NR_FREE_PAGES) / 2) {
      if (Page* page = __rmqueue_smallest(zone, order, MIGRATE_CMA)) return page;
    }
    if (Page* page = __rmqueue_smallest(zone, order, mt, traced)) return page;
    if (alloc_flags & ALLOC_CMA) {
      if (Page* page = __rmqueue_smallest(zone, order, MIGRATE_CMA)) return page;
    }
    if (m_.deferred_grow_zone(zone)) {
      count_event(zone, DEFERRED_GROW);
      continue;
    }
    if (!__rmqueue_fallback(zone, static_cast<int>(order), mt, alloc_flags, &traced)) return nullptr;
  }
}

// page_is_buddy.
template <Exec E>
bool Mm<E>::page_is_buddy(Page* page, Page* buddy, unsigned order) {
  touch(ex_, pline(buddy), AccessKind::load, Site::__free_one_page);
  if (!PageBuddy(buddy)) return false;  // guard pages never exist (debug_guardpage_minorder 0)
  if (buddy_order(buddy) != order) return false;
  if (page_zonenum(page) != page_zonenum(buddy) || page_to_nid(page) != page_to_nid(buddy)) return false;
  return true;
}

// buddy_merge_likely: is the order+1 buddy free, so that this block is likely to merge soon?
template <Exec E>
bool Mm<E>::buddy_merge_likely(pfn_t pfn, pfn_t buddy_pfn, Page* page, unsigned order) {
  if (order >= MAX_ORDER - 2) return false;
  const pfn_t combined_pfn = buddy_pfn & pfn;
  Page* higher_page = page + (static_cast<int64_t>(combined_pfn) - static_cast<int64_t>(pfn));  // may step back
  const pfn_t higher_buddy_pfn = combined_pfn ^ (pfn_t{1} << (order + 1));
  Page* higher_buddy = higher_page + (static_cast<int64_t>(higher_buddy_pfn) - static_cast<int64_t>(combined_pfn));
  return page_is_buddy(higher_page, higher_buddy, order + 1);
}

// __free_one_page: merge with free buddies up to pageblock order, then once more (9+9 -> 10).
template <Exec E>
void Mm<E>::__free_one_page(Page* page, pfn_t pfn, Zone& zone, unsigned order, unsigned mt, fpi_t fpi) {
  unsigned max_order = std::min(MAX_ORDER - 1, pageblock_order);
  touch(ex_, pline(page), AccessKind::load, Site::__free_one_page);
  if (mt != MIGRATE_ISOLATE) __mod_zone_freepage_state(zone, long{1} << order, mt);
  pfn_t buddy_pfn = pfn ^ (pfn_t{1} << order);
  for (;;) {
    while (order < max_order) {
      buddy_pfn = pfn ^ (pfn_t{1} << order);
      Page* buddy = page + (static_cast<int64_t>(buddy_pfn) - static_cast<int64_t>(pfn));
      if (!page_is_buddy(page, buddy, order)) goto done_merging;
      del_page_from_free_list(buddy, zone, order);
      const pfn_t combined_pfn = buddy_pfn & pfn;
      page = page + (static_cast<int64_t>(combined_pfn) - static_cast<int64_t>(pfn));
      pfn = combined_pfn;
      order++;
    }
    if (order < MAX_ORDER - 1 && max_order < order + 1) {
      // Isolated pageblocks are not modelled, so the isolate check never stops the merge.
      max_order = order + 1;
      continue;
    }
    break;
  }
done_merging:
  bool to_tail;
  if (fpi & FPI_TO_TAIL)
    to_tail = true;
  else
    to_tail = buddy_merge_likely(pfn, buddy_pfn, page, order);
  add_to_free_list(page, zone, order, mt, to_tail);
}

// free_one_page.
template <Exec E>
void Mm<E>::free_one_page(Zone& zone, Page* page, pfn_t pfn, unsigned order, unsigned mt, fpi_t fpi) {
  IrqFlags f = spin_lock_irqsave(zone.lock, Site::free_one_page);
  if (mt == MIGRATE_ISOLATE) mt = m_.get_pageblock_migratetype(pfn);
  __free_one_page(page, pfn, zone, order, mt, fpi);
  spin_unlock_irqrestore(zone.lock, f, Site::free_one_page);
}

}  // namespace pagesim::mm
