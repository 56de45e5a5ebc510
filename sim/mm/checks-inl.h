// Page state checks (check_new_page(s), check_pcp_refill, check_new_pcp, free_pages_prepare),
// bad_page(), and post-allocation preparation. Included only by the engines'
// instantiate_mm.cc (sim/engine/*/), through hugetlb-inl.h.
#pragma once

#include <fmt/format.h>

#include "free_list-inl.h"
#include "pagesim/error.h"

namespace pagesim::mm {

namespace detail {
// page_expected_state.
inline bool page_expected_state(const Page* p, uint64_t check_flags) {
  if (READ_ONCE(p->_mapcount) != -1) return false;
  if ((page_mapping(p) | static_cast<uintptr_t>(page_ref_count(p)) | p->memcg_data) != 0) return false;
  return (page_flags(p) & check_flags) == 0;
}

// page_bad_reason: the last matching reason wins, as in the kernel.
inline const char* page_bad_reason(const Page* p, uint64_t flags) {
  const char* reason = "unknown";
  if (READ_ONCE(p->_mapcount) != -1) reason = "nonzero mapcount";
  if (page_mapping(p) != 0) reason = "non-NULL mapping";
  if (page_ref_count(p) != 0) reason = "nonzero _refcount";
  if (page_flags(p) & flags)
    reason = flags == PAGE_FLAGS_CHECK_AT_PREP ? "PAGE_FLAGS_CHECK_AT_PREP flag(s) set"
                                               : "PAGE_FLAGS_CHECK_AT_FREE flag(s) set";
  if (p->memcg_data) reason = "page still charged to cgroup";
  return reason;
}

// The 5.17 config matrix (mm/page_alloc.c, #ifdef CONFIG_DEBUG_VM around check_pcp_refill and
// bulkfree_pcp_prepare). With checks_only_when_enabled there is no refill or bulk-free check;
// each allocation is checked when check_pages_enabled, which DEBUG_VM and debug_pagealloc turn
// on (init_on_alloc/free too in the kernel; not modelled).
inline bool check_pages_enabled(const KernelConfig& c) { return c.debug_vm || c.debug_pagealloc; }
// check_pcp_refill and bulkfree_pcp_prepare: unless DEBUG_VM without debug_pagealloc.
inline bool deferred_checks_enabled(const KernelConfig& c) {
  return !c.behaviour.checks_only_when_enabled && (!c.debug_vm || c.debug_pagealloc);
}
// free_pages_prepare's checks of a block freed to buddy and of its tails: always, or only with
// check_pages_enabled (free_page_is_bad, 8666925c4986).
inline bool free_checks_enabled(const KernelConfig& c) {
  return !c.behaviour.checks_only_when_enabled || check_pages_enabled(c);
}
inline bool new_pcp_check_enabled(const KernelConfig& c) { return check_pages_enabled(c); }
}  // namespace detail

// bad_page: report (rate limited), reset _mapcount, taint. The caller leaks the block.
template <Exec E>
void Mm<E>::bad_page(Page* page, const char* reason) {
  const bool shown = m_.record_bad_page(BadPageReport::of(m_, page, reason, ex_.cpu()));
  Zone& z = m_.page_zone(page);
  count_event(z, BAD_PAGE);
  if (!shown) count_event(z, BAD_PAGE_SUPPRESSED);
  page_mapcount_reset(page);
  touch(ex_, pline(page), AccessKind::store, Site::bad_page);
}

// check_new_page: true when the page is bad. HWPoison pages are dropped without a report.
template <Exec E>
bool Mm<E>::check_new_page(Page* page) {
  if (detail::page_expected_state(page, PAGE_FLAGS_CHECK_AT_PREP | bit(PG_hwpoison))) return false;
  if (PageHWPoison(page)) {
    page_mapcount_reset(page);
    return true;
  }
  bad_page(page, detail::page_bad_reason(page, PAGE_FLAGS_CHECK_AT_PREP));
  return true;
}

// check_new_pages: every struct page of the block, stopping at the first bad one.
template <Exec E>
bool Mm<E>::check_new_pages(Page* page, unsigned order) {
  if (cfg_.behaviour.checks_only_when_enabled && !check_pages_enabled()) return false;  // 700d2e9a36b9
  const uint64_t n = uint64_t{1} << order;
  for (uint64_t i = 0; i < n; ++i) {
    if (check_new_page(page + i)) {
      touch_range(ex_, pline(page), static_cast<uint32_t>(i + 1), sizeof(Page), AccessKind::load, Site::check_new_pages);
      return true;
    }
  }
  touch_range(ex_, pline(page), static_cast<uint32_t>(n), sizeof(Page), AccessKind::load, Site::check_new_pages);
  return false;
}

namespace detail {
// The pcp check as configured: head only (5.17), or every subpage (77fe7f136a73) with its
// ablations. Returns true when the block is bad.
template <class MmT, class Ex>
bool pcp_check(MmT& mm, Ex& ex, const KernelConfig& cfg, Page* page, unsigned order, Site site) {
  if (order > 0) mm.machine().note_variant_read(VariantKnob::pcp_check_scope);  // order 0: one page either way
  if (cfg.pcp_check_scope == PcpCheckScope::head || order == 0) {
    touch(ex, mm.machine().page_line(page), AccessKind::load, site);
    const bool bad = mm.check_new_page(page);
    if (cfg.artificial_hold && order > 0) ex.hold((1u << order) - 1, Site::artificial_hold);
    return bad;
  }
  if (cfg.mel_walk == MelWalk::zero_cost) {  // the walk is done but costs nothing
    touch(ex, mm.machine().page_line(page), AccessKind::load, site);
    for (uint64_t i = 0; i < (uint64_t{1} << order); ++i)
      if (mm.check_new_page(page + i)) return true;
    return false;
  }
  return mm.check_new_pages(page, order);
}
}  // namespace detail

// check_pcp_refill (rmqueue_bulk, zone->lock held unless the 6.4 placement is on).
template <Exec E>
bool Mm<E>::check_pcp_refill(Page* page, unsigned order) {
  if (!detail::deferred_checks_enabled(cfg_)) return false;
  return detail::pcp_check(*this, ex_, cfg_, page, order, Site::check_pcp_refill);
}

// check_new_pcp (__rmqueue_pcplist, IRQs off, no zone->lock).
template <Exec E>
bool Mm<E>::check_new_pcp(Page* page, unsigned order) {
  if (!detail::new_pcp_check_enabled(cfg_)) return false;
  return detail::pcp_check(*this, ex_, cfg_, page, order, Site::check_new_pcp);
}

template <Exec E>
bool Mm<E>::check_pages_enabled() const {
  return detail::check_pages_enabled(cfg_);
}

// post_alloc_hook: private = 0, refcount 1 (set_page_refcounted).
template <Exec E>
void Mm<E>::post_alloc_hook(Page* page, unsigned) {
  set_page_private(page, 0);
  set_page_count(page, 1);
  touch(ex_, pline(page), AccessKind::store, Site::post_alloc_hook);
}

// prep_compound_page (5b24eeef0670 split): tails first, then H+1 and H+2 fields.
template <Exec E>
void Mm<E>::prep_compound_page(Page* page, unsigned order) {
  const uint64_t nr = uint64_t{1} << order;
  __set_page_flag(page, PG_head);
  for (uint64_t i = 1; i < nr; ++i) {
    Page* p = page + i;
    set_page_mapping(p, TAIL_MAPPING);
    WRITE_ONCE(p->tail.compound_head, reinterpret_cast<uintptr_t>(page) | 1);
  }
  touch_range(ex_, pline(page), static_cast<uint32_t>(nr), sizeof(Page), AccessKind::store, Site::prep_compound_page);
  page[1].tail.compound_dtor = COMPOUND_PAGE_DTOR;
  page[1].tail.compound_order = static_cast<uint8_t>(order);
  page[1].compound_nr = static_cast<uint32_t>(nr);
  page[1].tail.compound_mapcount = -1;
  touch(ex_, pline(page + 1), AccessKind::store, Site::prep_compound_page);
  if (order > 1) {
    page[2].tail.hpage_pinned_refcount = 0;
    touch(ex_, pline(page + 2), AccessKind::store, Site::prep_compound_page);
  }
}

// prep_new_page.
template <Exec E>
void Mm<E>::prep_new_page(Page* page, unsigned order, gfp_t gfp, unsigned alloc_flags) {
  post_alloc_hook(page, order);
  if (order && (gfp & __GFP_COMP)) prep_compound_page(page, order);
  // set/clear_page_pfmemalloc: the head's lru.next.
  WRITE_ONCE(page->tail.compound_head, (alloc_flags & ALLOC_NO_WATERMARKS) ? uintptr_t{2} : uintptr_t{0});
  touch(ex_, pline(page), AccessKind::store, Site::prep_new_page);
}

// check_free_page: true when bad (reported).
template <Exec E>
bool Mm<E>::check_free_page(Page* page) {
  if (detail::page_expected_state(page, PAGE_FLAGS_CHECK_AT_FREE)) return false;
  bad_page(page, detail::page_bad_reason(page, PAGE_FLAGS_CHECK_AT_FREE));
  return true;
}

// free_tail_pages_check: DEBUG_VM checks of a tail; always clears mapping and compound_head.
template <Exec E>
bool Mm<E>::free_tail_pages_check(Page* head, Page* page) {
  bool bad = false;
  if (cfg_.debug_vm) {
    const auto i = page - head;
    const char* reason = nullptr;
    if (i == 1) {
      if (page->tail.compound_mapcount + 1 != 0) reason = "nonzero compound_mapcount";
    } else if (i != 2 && page_mapping(page) != TAIL_MAPPING) {
      reason = "corrupted mapping in tail page";
    }
    if (!reason && !PageTail(page)) reason = "PageTail not set";
    if (!reason && (READ_ONCE(page->tail.compound_head) & ~uintptr_t{1}) != reinterpret_cast<uintptr_t>(head))
      reason = "compound_head not consistent";
    if (reason) {
      bad_page(page, reason);
      bad = true;
    }
  }
  set_page_mapping(page, 0);
  WRITE_ONCE(page->tail.compound_head, uintptr_t{0});
  return bad;
}

// free_pages_prepare: every tail is visited, whatever check_free says. Returns false when the
// block is bad and must be leaked.
template <Exec E>
bool Mm<E>::free_pages_prepare(Page* page, unsigned order, bool check_free) {
  if (PageTail(page)) throw ModelError(fmt::format("VM_BUG_ON_PAGE(PageTail(page)): freeing tail pfn {:#x}", m_.page_to_pfn(page)));
  touch(ex_, pline(page), AccessKind::rmw, Site::free_pages_prepare);
  trace(TracepointId::mm_page_free, page, order);
  if (PageHWPoison(page) && order == 0) return false;
  int bad = 0;
  if (order) {
    const bool compound = PageHead(page);
    if (compound && page[1].tail.compound_order != order)
      throw ModelError(fmt::format("VM_BUG_ON_PAGE(compound_order(page) != order): pfn {:#x} is order {}, freed as {}",
                                   m_.page_to_pfn(page), page[1].tail.compound_order, order));
    if (compound) clear_page_flags(page + 1, bit(PG_double_map) | bit(PG_has_hwpoisoned));
    const uint64_t nr = uint64_t{1} << order;
    const bool tail_checks = detail::free_checks_enabled(cfg_);
    for (uint64_t i = 1; i < nr; ++i) {
      if (compound) bad += free_tail_pages_check(page, page + i);
      if (tail_checks && check_free_page(page + i)) {
        bad++;
        continue;
      }
      clear_page_flags(page + i, PAGE_FLAGS_CHECK_AT_PREP);
    }
    touch_range(ex_, pline(page + 1), static_cast<uint32_t>(nr - 1), sizeof(Page), AccessKind::rmw, Site::free_pages_prepare);
  }
  if (page_mapping(page) & (PAGE_MAPPING_ANON | PAGE_MAPPING_MOVABLE)) set_page_mapping(page, 0);
  if (check_free) bad += check_free_page(page);
  if (bad) return false;
  clear_page_flags(page, PAGE_FLAGS_CHECK_AT_PREP);
  return true;
}

}  // namespace pagesim::mm
