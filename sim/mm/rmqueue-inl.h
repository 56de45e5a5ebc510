// rmqueue, the watermark checks and get_page_from_freelist.
// Included only by the engines' instantiate_mm.cc (sim/engine/*/), through hugetlb-inl.h.
#pragma once

#include "pcp-inl.h"

namespace pagesim::mm {

// zone_statistics: NUMA_HIT/MISS/FOREIGN and LOCAL/OTHER, per-cpu counters.
template <Exec E>
void Mm<E>::zone_statistics(Zone& preferred, Zone& z, long nr) {
  const auto n = static_cast<uint64_t>(nr);
  if (z.node == preferred.node) {
    count_event(z, NUMA_HIT, n);
  } else {
    count_event(z, NUMA_MISS, n);
    count_event(preferred, NUMA_FOREIGN, n);
  }
  count_event(z, z.node == ex_.node() ? NUMA_LOCAL : NUMA_OTHER, n);
}

// rmqueue_buddy: one block under zone->lock, checked under it (5.17) or after it (3313204c8ad5
// and 6.x). 5.17 inlines this in rmqueue; 6.x also comes here when the pcp path fails.
template <Exec E>
Page* Mm<E>::rmqueue_buddy(Zone& preferred, Zone& zone, unsigned order, unsigned alloc_flags, unsigned mt) {
  const long nr = long{1} << order;
  // 5.17 traces a HIGHATOMIC block here; 6.x traces it in __rmqueue_smallest.
  auto highatomic = [&]() -> Page* {
    if (!(order > 0 && (alloc_flags & ALLOC_HARDER))) return nullptr;
    Page* page = __rmqueue_smallest(zone, order, MIGRATE_HIGHATOMIC);
    if (page && !cfg_.behaviour.zone_locked_trace_in_rmqueue_smallest)
      trace(TracepointId::mm_page_alloc_zone_locked, page, order, static_cast<int>(mt), order == 0);
    return page;
  };
  Page* page = nullptr;
  m_.note_variant_read(VariantKnob::buddy_check);
  if (cfg_.buddy_check == BuddyCheck::under_lock) {
    IrqFlags f = spin_lock_irqsave(zone.lock, Site::rmqueue);
    for (;;) {
      page = highatomic();
      if (!page) page = __rmqueue(zone, order, mt, alloc_flags);
      if (!page || !check_new_pages(page, order)) break;
      // A bad block: already off the free list, abandoned. 5.17 never subtracts it.
      m_.note_variant_read(VariantKnob::leak_accounting);
      if (cfg_.leak_accounting == LeakAccounting::fixed) {
        __mod_zone_freepage_state(zone, -nr, get_pcppage_migratetype(page));
        leak_block(zone, page, order, false);
      } else {
        leak_block(zone, page, order, true);
      }
    }
    if (!page) {
      spin_unlock_irqrestore(zone.lock, f, Site::rmqueue);
      return nullptr;
    }
    __mod_zone_freepage_state(zone, -nr, get_pcppage_migratetype(page));
    spin_unlock_irqrestore(zone.lock, f, Site::rmqueue);
  } else {
    // Eric: subtract under the lock, check after it is dropped, retry on a bad block.
    for (;;) {
      IrqFlags f = spin_lock_irqsave(zone.lock, Site::rmqueue);
      page = highatomic();
      if (!page) page = __rmqueue(zone, order, mt, alloc_flags);
      if (!page) {
        spin_unlock_irqrestore(zone.lock, f, Site::rmqueue);
        return nullptr;
      }
      __mod_zone_freepage_state(zone, -nr, get_pcppage_migratetype(page));
      spin_unlock_irqrestore(zone.lock, f, Site::rmqueue);
      if (!check_new_pages(page, order)) break;
      leak_block(zone, page, order, false);  // already subtracted above
    }
  }
  count_event(zone, PGALLOC, static_cast<uint64_t>(nr));
  count_event(zone, BUDDY_ALLOC);
  zone_statistics(preferred, zone, 1);
  return page;
}

// rmqueue. 5.17 keeps MOVABLE requests without ALLOC_CMA off the pcp (CONFIG_CMA) and returns
// the pcp path's NULL; with the pcp spinlock a failed pcp path is retried in rmqueue_buddy.
template <Exec E>
Page* Mm<E>::rmqueue(Zone& preferred, Zone& zone, unsigned order, gfp_t gfp, unsigned alloc_flags, unsigned mt) {
  const KernelBehaviours& b = cfg_.behaviour;
  Page* page = nullptr;
  if (pcp_allowed_order(cfg_, order) &&
      (b.pcp_movable_ignores_alloc_cma || (alloc_flags & ALLOC_CMA) || mt != MIGRATE_MOVABLE)) {
    page = rmqueue_pcplist(preferred, zone, order, gfp, mt, alloc_flags);
    if (!page && b.pcp_spinlock) page = rmqueue_buddy(preferred, zone, order, alloc_flags, mt);
  } else {
    page = rmqueue_buddy(preferred, zone, order, alloc_flags, mt);
  }
  if (page && (zone.flags.load(std::memory_order_relaxed) & (1ul << ZONE_BOOSTED_WATERMARK))) {
    zone.flags.fetch_and(~(1ul << ZONE_BOOSTED_WATERMARK), std::memory_order_relaxed);
    count_event(zone, KSWAPD_WAKE);  // wakeup_kswapd: kswapd itself is not modelled
  }
  return page;
}

// __zone_watermark_unusable_free.
namespace detail {
inline long zone_watermark_unusable_free(const Zone& z, unsigned order, unsigned alloc_flags) {
  long unusable = (long{1} << order) - 1;
  if (!(alloc_flags & (ALLOC_HARDER | ALLOC_OOM))) unusable += static_cast<long>(z.nr_reserved_highatomic);
  if (!(alloc_flags & ALLOC_CMA)) unusable += z.zone_page_state(NR_FREE_CMA_PAGES);
  return unusable;
}
}  // namespace detail

// __zone_watermark_ok. Deferred (not yet materialised) pages count as MAX_ORDER-1 MOVABLE
// blocks, which is where the booted kernel would have them.
template <Exec E>
bool Mm<E>::__zone_watermark_ok(Zone& z, unsigned order, unsigned long mark, zone_type highest_zoneidx,
                                unsigned alloc_flags, long free_pages) {
  long min = static_cast<long>(mark);
  const bool alloc_harder = alloc_flags & (ALLOC_HARDER | ALLOC_OOM);
  free_pages -= detail::zone_watermark_unusable_free(z, order, alloc_flags);
  if (alloc_flags & ALLOC_HIGH) min -= min / 2;
  if (alloc_harder) min -= (alloc_flags & ALLOC_OOM) ? min / 2 : min / 4;
  if (free_pages <= min + z.lowmem_reserve[highest_zoneidx]) return false;
  if (!order) return true;
  if (READ_ONCE(z.deferred_pages) >= (uint64_t{1} << order)) return true;
  for (unsigned o = order; o < MAX_ORDER; ++o) {
    const FreeArea& area = z.free_area[o];
    touch(ex_, nr_free_line(z, o), AccessKind::load, Site::zone_watermark_fast);
    for (unsigned mt = 0; mt < MIGRATE_PCPTYPES; ++mt)
      if (READ_ONCE(area.nr_blocks[mt])) return true;
    if ((alloc_flags & ALLOC_CMA) && READ_ONCE(area.nr_blocks[MIGRATE_CMA])) return true;
    if (alloc_harder && READ_ONCE(area.nr_blocks[MIGRATE_HIGHATOMIC])) return true;
  }
  return false;
}

// zone_watermark_fast, with 5.17's unsigned comparison on the order-0 path.
template <Exec E>
bool Mm<E>::zone_watermark_fast(Zone& z, unsigned order, unsigned long mark, zone_type highest_zoneidx,
                                unsigned alloc_flags, gfp_t gfp) {
  touch(ex_, vm_stat_line(z, NR_FREE_PAGES), AccessKind::load, Site::zone_watermark_fast);
  touch(ex_, watermark_line(z), AccessKind::load, Site::zone_watermark_fast);
  const long free_pages = z.zone_page_state(NR_FREE_PAGES);
  if (!order) {
    const long fast_free = free_pages - detail::zone_watermark_unusable_free(z, 0, alloc_flags);
    // long > unsigned long: the comparison is unsigned, so a negative fast_free passes.
    if (static_cast<unsigned long>(fast_free) > mark + static_cast<unsigned long>(z.lowmem_reserve[highest_zoneidx]))
      return true;
  }
  if (__zone_watermark_ok(z, order, mark, highest_zoneidx, alloc_flags, free_pages)) return true;
  if (!order && (gfp & __GFP_ATOMIC) && READ_ONCE(z.watermark_boost) && (alloc_flags & ALLOC_WMARK_MASK) == WMARK_MIN)
    return __zone_watermark_ok(z, order, z._watermark[WMARK_MIN], highest_zoneidx, alloc_flags, free_pages);
  return false;
}

// get_page_from_freelist: walk the zonelist from the preferred zone.
template <Exec E>
Page* Mm<E>::get_page_from_freelist(gfp_t gfp, unsigned order, unsigned alloc_flags, Zone& preferred,
                                    zone_type highest_zoneidx, const NodeMask* nodemask, unsigned mt) {
  const Node& pref_node = m_.node(preferred.node);
  for (;;) {
    const bool no_fallback = alloc_flags & ALLOC_NOFRAGMENT;
    bool restarted = false;
    bool seen_preferred = false;
    for (Zone* zone : pref_node.zonelist) {
      if (!seen_preferred) {
        if (zone != &preferred) continue;
        seen_preferred = true;
      }
      if (zone->idx > highest_zoneidx || (nodemask && !nodemask->test(zone->node))) continue;
      if (no_fallback && m_.nr_nodes() > 1 && zone != &preferred && zone->node != preferred.node) {
        alloc_flags &= ~ALLOC_NOFRAGMENT;
        restarted = true;
        break;
      }
      // 6.x: note a zone below its high watermark, so that the free path shrinks pcp->high.
      if (cfg_.behaviour.pcp_high_autotune && !(zone->flags.load(std::memory_order_relaxed) & (1ul << ZONE_BELOW_HIGH)) &&
          !zone_watermark_fast(*zone, order, zone->high_wmark_pages(), highest_zoneidx, alloc_flags, gfp))
        zone->flags.fetch_or(1ul << ZONE_BELOW_HIGH, std::memory_order_relaxed);
      const unsigned long mark = zone->_watermark[alloc_flags & ALLOC_WMARK_MASK] + READ_ONCE(zone->watermark_boost);
      if (!zone_watermark_fast(*zone, order, mark, highest_zoneidx, alloc_flags, gfp) &&
          !(alloc_flags & ALLOC_NO_WATERMARKS))
        continue;  // node_reclaim is off (node_reclaim_mode 0)
      if (Page* page = rmqueue(preferred, *zone, order, gfp, alloc_flags, mt)) {
        prep_new_page(page, order, gfp, alloc_flags);
        acct(*zone).allocated += long{1} << order;
        return page;
      }
    }
    if (restarted) continue;
    if (no_fallback) {
      alloc_flags &= ~ALLOC_NOFRAGMENT;
      continue;
    }
    return nullptr;
  }
}

// __alloc_pages: prepare_alloc_pages, alloc_flags_nofragment, the fast path, and a minimal
// slow path (gfp_to_alloc_flags' min watermark, no reclaim/compaction/OOM).
template <Exec E>
Page* Mm<E>::__alloc_pages(gfp_t gfp, unsigned order, int preferred_nid, const NodeMask* nodemask) {
  if (order >= MAX_ORDER) return nullptr;  // WARN_ON_ONCE_GFP(order >= MAX_ORDER)
  if (preferred_nid < 0 || static_cast<unsigned>(preferred_nid) >= m_.nr_nodes())
    throw ModelError(fmt::format("__alloc_pages: node {} does not exist", preferred_nid));
  const zone_type highest = gfp_zone(gfp);
  const unsigned mt = gfp_migratetype(gfp);
  Zone* preferred = nullptr;
  for (Zone* z : m_.node(preferred_nid).zonelist)
    if (z->idx <= highest && (!nodemask || nodemask->test(z->node))) {
      preferred = z;
      break;
    }
  if (!preferred) return nullptr;
  unsigned alloc_flags = ALLOC_WMARK_LOW;
  if (mt == MIGRATE_MOVABLE) alloc_flags |= ALLOC_CMA;  // gfp_to_alloc_flags_cma
  alloc_flags |= gfp & __GFP_KSWAPD_RECLAIM;              // alloc_flags_nofragment
  if (preferred->idx == ZONE_NORMAL) {
    const Zone& dma32 = m_.node(preferred->node).zones[ZONE_DMA32];
    if (m_.nr_nodes() == 1 || dma32.populated()) alloc_flags |= ALLOC_NOFRAGMENT;
  }
  Page* page = get_page_from_freelist(gfp, order, alloc_flags, *preferred, highest, nodemask, mt);
  if (!page) {
    count_event(*preferred, ALLOC_SLOWPATH);
    unsigned slow_flags = ALLOC_WMARK_MIN | (gfp & __GFP_KSWAPD_RECLAIM);
    if (gfp & __GFP_HIGH) slow_flags |= ALLOC_HIGH;
    if (mt == MIGRATE_MOVABLE) slow_flags |= ALLOC_CMA;
    page = get_page_from_freelist(gfp, order, slow_flags, *preferred, highest, nodemask, mt);
  }
  if (!page) count_event(*preferred, ALLOC_FAIL);
  trace(TracepointId::mm_page_alloc, page, order, static_cast<int>(mt), false, gfp);
  return page;
}

// __free_pages_ok: orders that cannot use the pcp lists.
template <Exec E>
void Mm<E>::__free_pages_ok(Page* page, unsigned order, fpi_t fpi) {
  Zone& zone = m_.page_zone(page);
  // 5.17 always checks a block freed to buddy; 6.x only with check_pages_enabled.
  if (!free_pages_prepare(page, order, detail::free_checks_enabled(cfg_))) {
    leak_block(zone, page, order, false);
    return;
  }
  const pfn_t pfn = m_.page_to_pfn(page);
  const unsigned mt = m_.get_pageblock_migratetype(pfn);
  free_one_page(zone, page, pfn, order, mt, fpi);
  count_event(zone, PGFREE, uint64_t{1} << order);
}

// __free_pages -> put_page_testzero -> free_the_page.
template <Exec E>
void Mm<E>::__free_pages(Page* page, unsigned order) {
  if (put_page_testzero(page, order)) free_the_page(page, order, false);
}

template <Exec E>
void Mm<E>::free_unref_folio(Page* page, unsigned order) {
  if (put_page_testzero(page, order)) free_the_page(page, order, true);
}

// free_the_page: the pcp for the orders it takes, buddy for the rest.
template <Exec E>
void Mm<E>::free_the_page(Page* page, unsigned order, bool batched) {
  acct(m_.page_zone(page)).allocated -= long{1} << order;
  if (pcp_allowed_order(cfg_, order))
    free_unref_page(page, order, batched);
  else
    __free_pages_ok(page, order, FPI_NONE);
}

// put_page_testzero, after the checks the kernel would BUG on. True when this was the last
// reference.
template <Exec E>
bool Mm<E>::put_page_testzero(Page* page, unsigned order) {
  if (!m_.memmap().contains(page) || page_to_nid(page) >= m_.nr_nodes() ||
      !m_.page_zone(page).zone_spans_pfn(m_.page_to_pfn(page)))
    throw ModelError("__free_pages: the page is outside every zone");
  if (order >= MAX_ORDER) throw ModelError(fmt::format("__free_pages: order {} >= MAX_ORDER", order));
  const pfn_t pfn = m_.page_to_pfn(page);
  if (pfn & ((pfn_t{1} << order) - 1))
    throw ModelError(fmt::format("__free_pages: pfn {:#x} is not aligned to order {}", pfn, order));
  const int ref = page_ref_count(page);
  if (ref <= 0)
    throw ModelError(fmt::format("VM_BUG_ON_PAGE(page_ref_count(page) == 0): pfn {:#x} freed with refcount {} (double free?)", pfn, ref));
  touch(ex_, pline(page), AccessKind::rmw, Site::free_unref_page);
  set_page_count(page, ref - 1);
  return ref - 1 == 0;
}

}  // namespace pagesim::mm
