// Free-list and pcp-list primitives, vmstat updates and lock helpers of Mm<E>.
// Included only by the engines' instantiate_mm.cc (sim/engine/*/), through hugetlb-inl.h.
#pragma once

#include <cstdlib>

#include "pagesim/mm/page_alloc.h"

namespace pagesim::mm {

namespace detail {
using NodeTraits = PageList::node_traits;
using ValueTraits = PageList::value_traits;

// The struct page that owns a list node, or nullptr when the node is a list head (in struct
// zone or struct per_cpu_pages, which are not struct pages).
inline Page* node_page(const Memmap& mm, NodeTraits::node_ptr n) {
  Page* p = reinterpret_cast<Page*>(reinterpret_cast<char*>(n) - offsetof(Page, lru));
  return mm.contains(p) ? p : nullptr;
}
}  // namespace detail

template <Exec E>
IrqFlags Mm<E>::spin_lock_irqsave(spinlock_t& lock, Site site) {
  IrqFlags f = ex_.local_irq_save(site);
  ex_.lock(lock, site);
  return f;
}

template <Exec E>
void Mm<E>::spin_unlock_irqrestore(spinlock_t& lock, IrqFlags flags, Site site) {
  ex_.unlock(lock, site);
  ex_.local_irq_restore(flags, site);
}

// list_add/list_del write the neighbours' lru; when a neighbour is a struct page its line is
// touched (a list head in struct zone or the pcp is accounted by the caller).
template <Exec E>
void Mm<E>::touch_list_neighbours(Page* page, AccessKind kind, Site site) {
  if constexpr (E::tracks) {
    auto n = detail::ValueTraits::to_node_ptr(*page);
    if (Page* next = detail::node_page(m_.memmap(), detail::NodeTraits::get_next(n))) touch(ex_, pline(next), kind, site);
    if (Page* prev = detail::node_page(m_.memmap(), detail::NodeTraits::get_previous(n))) touch(ex_, pline(prev), kind, site);
  }
}

// Before a free block leaves its list: the last linked block's successor on the kernel's list
// may be an unpopulated one (FreeArea::nr_unpopulated), whose line list_del writes.
template <Exec E>
void Mm<E>::unlink_populated(Page* page, Zone& zone, unsigned order, unsigned mt) {
  const FreeArea& area = zone.free_area[order];
  if (area.nr_unpopulated && &area.free_list[mt].back() == page) m_.populate_free_list(zone, order, mt);
}

// add_to_free_list / add_to_free_list_tail (mm/page_alloc.c); sets the buddy order and type
// as set_buddy_order does, which every caller does right after.
template <Exec E>
void Mm<E>::add_to_free_list(Page* page, Zone& zone, unsigned order, unsigned mt, bool tail) {
  FreeArea& area = zone.free_area[order];
  PageList& list = area.free_list[mt];
  // The neighbour written may be an unpopulated block; a tail add goes behind all of them.
  if (tail || list.empty()) m_.populate_free_list(zone, order, mt, /*all=*/tail);
  touch(ex_, free_list_line(zone, order, mt), AccessKind::rmw, Site::__free_one_page);
  if (!list.empty()) touch(ex_, pline(tail ? &list.back() : &list.front()), AccessKind::store, Site::__free_one_page);
  if (tail) list.push_back(*page); else list.push_front(*page);
  page->index = mt;  // free_list_mt(): the list this block is on
  set_page_private(page, order);
  __SetPageBuddy(page);
  touch(ex_, pline(page), AccessKind::store, Site::__free_one_page);
  area.nr_free++;
  WRITE_ONCE(area.nr_blocks[mt], area.nr_blocks[mt] + 1);
  touch(ex_, nr_free_line(zone, order), AccessKind::rmw, Site::__free_one_page);
}

// move_to_free_list: list_move_tail between migratetype lists; nr_free unchanged.
template <Exec E>
void Mm<E>::move_to_free_list(Page* page, Zone& zone, unsigned order, unsigned mt) {
  FreeArea& area = zone.free_area[order];
  const unsigned old_mt = free_list_mt(page);
  unlink_populated(page, zone, order, old_mt);
  touch_list_neighbours(page, AccessKind::store, Site::move_freepages_block);
  area.free_list[old_mt].erase(area.free_list[old_mt].iterator_to(*page));
  WRITE_ONCE(area.nr_blocks[old_mt], area.nr_blocks[old_mt] - 1);
  PageList& dst = area.free_list[mt];
  m_.populate_free_list(zone, order, mt, /*all=*/true);  // list_move_tail goes behind them
  if (!dst.empty()) touch(ex_, pline(&dst.back()), AccessKind::store, Site::move_freepages_block);
  dst.push_back(*page);
  page->index = mt;
  WRITE_ONCE(area.nr_blocks[mt], area.nr_blocks[mt] + 1);
  touch(ex_, free_list_line(zone, order, mt), AccessKind::rmw, Site::move_freepages_block);
  touch(ex_, pline(page), AccessKind::store, Site::move_freepages_block);
}

// del_page_from_free_list: clear PG_reported, unlink, clear PageBuddy and the order.
template <Exec E>
void Mm<E>::del_page_from_free_list(Page* page, Zone& zone, unsigned order) {
  FreeArea& area = zone.free_area[order];
  const unsigned mt = free_list_mt(page);
  if (test_page_flag(page, PG_reported)) __clear_page_flag(page, PG_reported);
  unlink_populated(page, zone, order, mt);
  touch_list_neighbours(page, AccessKind::store, Site::__rmqueue_smallest);
  area.free_list[mt].erase(area.free_list[mt].iterator_to(*page));
  WRITE_ONCE(area.nr_blocks[mt], area.nr_blocks[mt] - 1);
  __ClearPageBuddy(page);
  set_page_private(page, 0);
  touch(ex_, pline(page), AccessKind::rmw, Site::__rmqueue_smallest);
  area.nr_free--;
  touch(ex_, nr_free_line(zone, order), AccessKind::rmw, Site::__rmqueue_smallest);
}

template <Exec E>
void Mm<E>::pcp_list_add(PerCpuPages& pcp, Zone& zone, unsigned pindex, Page* page, bool tail) {
  PageList& list = pcp.lists[pindex];
  touch(ex_, pcp_list_line(ex_.cpu(), cpu_node(), zone, pindex), AccessKind::store, Site::free_unref_page_commit);
  if (!list.empty()) touch(ex_, pline(tail ? &list.back() : &list.front()), AccessKind::store, Site::free_unref_page_commit);
  if (tail) list.push_back(*page); else list.push_front(*page);
  touch(ex_, pline(page), AccessKind::store, Site::free_unref_page_commit);
}

template <Exec E>
void Mm<E>::pcp_list_del(PerCpuPages& pcp, Zone& zone, unsigned pindex, Page* page) {
  touch(ex_, pcp_list_line(ex_.cpu(), cpu_node(), zone, pindex), AccessKind::store, Site::__rmqueue_pcplist);
  touch_list_neighbours(page, AccessKind::store, Site::__rmqueue_pcplist);
  pcp.lists[pindex].erase(pcp.lists[pindex].iterator_to(*page));
  touch(ex_, pline(page), AccessKind::rmw, Site::__rmqueue_pcplist);
}

// __mod_zone_page_state (mm/vmstat.c): per-cpu diff, folded past stat_threshold.
template <Exec E>
void Mm<E>::__mod_zone_page_state(Zone& z, zone_stat_item item, long delta) {
  ZoneCpu& c = z.cpu[ex_.cpu()];
  touch(ex_, vm_stat_diff_line(ex_.cpu(), cpu_node(), z), AccessKind::rmw, Site::mod_zone_page_state);
  long x = c.vm_stat_diff[item] + delta;
  if (std::labs(x) > c.stat_threshold) {
    z.vm_stat[item].fetch_add(x, std::memory_order_relaxed);
    touch(ex_, vm_stat_line(z, item), AccessKind::rmw, Site::mod_zone_page_state);
    m_.vm_zone_stat[item].fetch_add(x, std::memory_order_relaxed);
    touch(ex_, global_vm_stat_line(item), AccessKind::rmw, Site::mod_zone_page_state);
    x = 0;
  }
  c.vm_stat_diff[item] = static_cast<int8_t>(x);
}

// __mod_zone_freepage_state (include/linux/vmstat.h).
template <Exec E>
void Mm<E>::__mod_zone_freepage_state(Zone& z, long nr_pages, unsigned mt) {
  __mod_zone_page_state(z, NR_FREE_PAGES, nr_pages);
  if (mt == MIGRATE_CMA) __mod_zone_page_state(z, NR_FREE_CMA_PAGES, nr_pages);
}

}  // namespace pagesim::mm
