// The hugetlb pool (mm/hugetlb.c, v5.17), and through rmqueue-inl.h every definition of Mm<E>.
// Included only by the engines' instantiate_mm.cc (sim/engine/*/).
#pragma once

#include "pagesim/mm/hugetlb.h"
#include "rmqueue-inl.h"

namespace pagesim::mm {

namespace detail {
inline uint64_t& hpage_flags(Page* p) { return p->private_; }  // hugetlb_page_flags in H->private
inline gfp_t htlb_alloc_mask() { return GFP_HIGHUSER_MOVABLE; }  // 2 MiB pages support migration
}  // namespace detail

template <Exec E>
void Hugetlb<E>::lock(Site s) {  // spin_lock_irq(&hugetlb_lock)
  irq_ = ex_.local_irq_save(s);
  ex_.lock(h_.hugetlb_lock, s);
}

template <Exec E>
void Hugetlb<E>::unlock(Site s) {
  ex_.unlock(h_.hugetlb_lock, s);
  ex_.local_irq_restore(irq_, s);
}

template <Exec E>
void Hugetlb<E>::set_overcommit(unsigned long n) {
  lock(Site::unknown);
  h_.nr_overcommit_huge_pages = n;
  unlock(Site::unknown);
}

// enqueue_huge_page: list_move to the node's free list (LIFO), HPageFreed.
template <Exec E>
void Hugetlb<E>::enqueue_huge_page(Page* page) {
  const unsigned nid = page_to_nid(page);
  touch(ex_, hstate_freelist_line(nid), AccessKind::rmw, Site::free_huge_page);
  if (!h_.hugepage_freelists[nid].empty()) touch(ex_, pl(&h_.hugepage_freelists[nid].front()), AccessKind::store, Site::free_huge_page);
  h_.hugepage_freelists[nid].push_front(*page);
  touch(ex_, pl(page), AccessKind::rmw, Site::free_huge_page);
  h_.free_huge_pages++;
  h_.free_huge_pages_node[nid]++;
  touch(ex_, hstate_counter_line(), AccessKind::rmw, Site::free_huge_page);
  touch(ex_, hstate_counter_line(nid), AccessKind::rmw, Site::free_huge_page);
  detail::hpage_flags(page) |= HPG_freed;
}

// dequeue_huge_page_node_exact: the first non-HWPoison page of the node's list.
template <Exec E>
Page* Hugetlb<E>::dequeue_huge_page_node_exact(unsigned nid) {
  touch(ex_, hstate_freelist_line(nid), AccessKind::load, Site::dequeue_huge_page_node);
  for (Page& p : h_.hugepage_freelists[nid]) {
    touch(ex_, pl(&p), AccessKind::load, Site::dequeue_huge_page_node);
    if (PageHWPoison(&p)) continue;
    h_.hugepage_freelists[nid].erase(h_.hugepage_freelists[nid].iterator_to(p));
    h_.hugepage_activelist.push_front(p);
    set_page_count(&p, 1);
    detail::hpage_flags(&p) &= ~uint64_t{HPG_freed};
    touch(ex_, pl(&p), AccessKind::rmw, Site::dequeue_huge_page_node);
    h_.free_huge_pages--;
    h_.free_huge_pages_node[nid]--;
    touch(ex_, hstate_counter_line(), AccessKind::rmw, Site::dequeue_huge_page_node);
    touch(ex_, hstate_counter_line(nid), AccessKind::rmw, Site::dequeue_huge_page_node);
    return &p;
  }
  return nullptr;
}

// remove_hugetlb_page: off the pool's lists and counts; refcounted for __free_pages.
template <Exec E>
void Hugetlb<E>::remove_hugetlb_page(Page* page, bool adjust_surplus) {
  const unsigned nid = page_to_nid(page);
  touch(ex_, pl(page), AccessKind::rmw, Site::free_huge_page);
  PageList::node_algorithms::unlink(PageList::value_traits::to_node_ptr(*page));
  if (detail::hpage_flags(page) & HPG_freed) {
    h_.free_huge_pages--;
    h_.free_huge_pages_node[nid]--;
  }
  if (adjust_surplus) {
    h_.surplus_huge_pages--;
    h_.surplus_huge_pages_node[nid]--;
  }
  set_page_count(page, 1);
  page[1].tail.compound_dtor = COMPOUND_PAGE_DTOR;
  touch(ex_, pl(page + 1), AccessKind::store, Site::free_huge_page);
  h_.nr_huge_pages--;
  h_.nr_huge_pages_node[nid]--;
  touch(ex_, hstate_counter_line(), AccessKind::rmw, Site::free_huge_page);
  touch(ex_, hstate_counter_line(nid), AccessKind::rmw, Site::free_huge_page);
}

// __update_and_free_page: clear flags on every subpage (a 512-line loop), then
// __free_pages(H, 9), whose free_pages_prepare walks every tail again.
template <Exec E>
void Hugetlb<E>::__update_and_free_page(Page* page) {
  constexpr uint64_t kClear = bit(PG_locked) | bit(PG_error) | bit(PG_referenced) | bit(PG_dirty) | bit(PG_active) |
                              bit(PG_private) | bit(PG_writeback);
  for (uint64_t i = 0; i < pages_per_huge_page; ++i) clear_page_flags(page + i, kClear);
  touch_range(ex_, pl(page), static_cast<uint32_t>(pages_per_huge_page), sizeof(Page), AccessKind::rmw,
              Site::__update_and_free_page);
  mm_.__free_pages(page, HUGETLB_PAGE_ORDER);
}

// update_and_free_page: synchronous (no vmemmap optimisation, so never deferred).
template <Exec E>
void Hugetlb<E>::update_and_free_page(Page* page) {
  __update_and_free_page(page);
}

// free_huge_page: the compound destructor on the last put.
template <Exec E>
void Hugetlb<E>::free_huge_page(Page* page) {
  const unsigned nid = page_to_nid(page);
  set_page_private(page + 1, 0);  // hugetlb_set_page_subpool(page, NULL)
  set_page_mapping(page, 0);
  const bool restore_reserve = detail::hpage_flags(page) & HPG_restore_reserve;
  detail::hpage_flags(page) &= ~uint64_t{HPG_restore_reserve};
  touch(ex_, pl(page), AccessKind::rmw, Site::free_huge_page);
  lock(Site::free_huge_page);
  detail::hpage_flags(page) &= ~uint64_t{HPG_migratable};
  if (restore_reserve) h_.resv_huge_pages++;
  if (detail::hpage_flags(page) & HPG_temporary) {
    remove_hugetlb_page(page, false);
    unlock(Site::free_huge_page);
    update_and_free_page(page);
  } else if (h_.surplus_huge_pages_node[nid]) {
    remove_hugetlb_page(page, true);
    unlock(Site::free_huge_page);
    update_and_free_page(page);
  } else {
    enqueue_huge_page(page);
    unlock(Site::free_huge_page);
  }
}

template <Exec E>
void Hugetlb<E>::hugepage_add_new_anon_rmap(Page* page) {
  detail::hpage_flags(page) &= ~uint64_t{HPG_restore_reserve};
  set_page_mapping(page, PAGE_MAPPING_ANON);
  page[1].tail.compound_mapcount = 0;  // atomic_set(compound_mapcount_ptr(page), 0)
  touch(ex_, pl(page), AccessKind::store, Site::workload);
  touch(ex_, pl(page + 1), AccessKind::store, Site::workload);
}

template <Exec E>
void Hugetlb<E>::unmap_and_put(Page* page) {
  page[1].tail.compound_mapcount--;  // page_remove_rmap(page, vma, true)
  touch(ex_, pl(page + 1), AccessKind::rmw, Site::workload);
  const int ref = page_ref_count(page) - 1;  // put_page -> put_page_testzero
  set_page_count(page, ref);
  touch(ex_, pl(page), AccessKind::rmw, Site::workload);
  if (ref == 0) free_huge_page(page);
}

// prep_new_huge_page: H lru, H+1 dtor and subpool, H+2/H+3 cgroup pointers, then the count.
template <Exec E>
void Hugetlb<E>::prep_new_huge_page(Page* page, unsigned nid) {
  INIT_LIST_HEAD(page);
  touch(ex_, pl(page), AccessKind::store, Site::alloc_surplus_huge_page);
  page[1].tail.compound_dtor = HUGETLB_PAGE_DTOR;
  set_page_private(page + 1, 0);
  set_page_private(page + 2, 0);
  set_page_private(page + 3, 0);
  touch_range(ex_, pl(page + 1), 3, sizeof(Page), AccessKind::store, Site::alloc_surplus_huge_page);
  lock(Site::alloc_surplus_huge_page);
  h_.nr_huge_pages++;
  h_.nr_huge_pages_node[nid]++;
  detail::hpage_flags(page) &= ~uint64_t{HPG_freed};
  touch(ex_, hstate_counter_line(), AccessKind::rmw, Site::alloc_surplus_huge_page);
  touch(ex_, hstate_counter_line(nid), AccessKind::rmw, Site::alloc_surplus_huge_page);
  unlock(Site::alloc_surplus_huge_page);
}

// alloc_fresh_huge_page -> alloc_buddy_huge_page: an order-9 __GFP_COMP allocation.
template <Exec E>
Page* Hugetlb<E>::alloc_fresh_huge_page(gfp_t gfp, int nid, const NodeMask* nmask) {
  gfp |= __GFP_COMP | __GFP_NOWARN | __GFP_RETRY_MAYFAIL;
  if (nid < 0) nid = static_cast<int>(ex_.node());  // numa_mem_id()
  Page* page = mm_.__alloc_pages(gfp, HUGETLB_PAGE_ORDER, nid, nmask);
  Zone& counted = page ? m_.page_zone(page) : m_.node(static_cast<unsigned>(nid)).zones[ZONE_NORMAL];
  mm_.count_event(counted, page ? HTLB_BUDDY_PGALLOC : HTLB_BUDDY_PGALLOC_FAIL);
  if (page) prep_new_huge_page(page, page_to_nid(page));
  return page;
}

// alloc_surplus_huge_page: within nr_overcommit_hugepages, checked before and after.
template <Exec E>
Page* Hugetlb<E>::alloc_surplus_huge_page(gfp_t gfp, int nid, const NodeMask* nmask, bool zero_ref) {
  lock(Site::alloc_surplus_huge_page);
  touch(ex_, hstate_counter_line(), AccessKind::load, Site::alloc_surplus_huge_page);
  if (h_.surplus_huge_pages >= h_.nr_overcommit_huge_pages) {
    unlock(Site::alloc_surplus_huge_page);
    return nullptr;
  }
  unlock(Site::alloc_surplus_huge_page);
  Page* page = alloc_fresh_huge_page(gfp, nid, nmask);
  if (!page) return nullptr;
  lock(Site::alloc_surplus_huge_page);
  if (h_.surplus_huge_pages >= h_.nr_overcommit_huge_pages) {  // raced: give it back
    detail::hpage_flags(page) |= HPG_temporary;
    unlock(Site::alloc_surplus_huge_page);
    set_page_count(page, 0);  // put_page -> free_huge_page
    free_huge_page(page);
    return nullptr;
  }
  if (zero_ref) set_page_count(page, 0);  // the reservation path keeps no reference
  h_.surplus_huge_pages++;
  h_.surplus_huge_pages_node[page_to_nid(page)]++;
  surplus_allocated_[page_to_nid(page)]++;
  touch(ex_, hstate_counter_line(), AccessKind::rmw, Site::alloc_surplus_huge_page);
  touch(ex_, hstate_counter_line(page_to_nid(page)), AccessKind::rmw, Site::alloc_surplus_huge_page);
  unlock(Site::alloc_surplus_huge_page);
  return page;
}

// gather_surplus_pages: called and returns with hugetlb_lock held, dropping it to allocate.
template <Exec E>
int Hugetlb<E>::gather_surplus_pages(long delta) {
  long needed = static_cast<long>(h_.resv_huge_pages) + delta - static_cast<long>(h_.free_huge_pages);
  if (needed <= 0) {
    h_.resv_huge_pages += static_cast<unsigned long>(delta);
    return 0;
  }
  PageList surplus;
  long allocated = 0;
  bool alloc_ok = true;
  int ret = -12;  // -ENOMEM
  for (;;) {
    unlock(Site::gather_surplus_pages);
    long i;
    for (i = 0; i < needed; ++i) {
      const int nid = surplus_pol_ ? static_cast<int>(surplus_pol_->preferred_node(ex_.node(), static_cast<uint64_t>(allocated + i))) : -1;
      Page* page = alloc_surplus_huge_page(detail::htlb_alloc_mask(), nid, surplus_pol_ ? surplus_pol_->nodemask() : nullptr, true);
      if (!page) {
        alloc_ok = false;
        break;
      }
      surplus.push_front(*page);
      ex_.cond_resched(Site::gather_surplus_pages);
    }
    allocated += i;
    lock(Site::gather_surplus_pages);
    touch(ex_, hstate_counter_line(), AccessKind::load, Site::gather_surplus_pages);
    needed = static_cast<long>(h_.resv_huge_pages) + delta - (static_cast<long>(h_.free_huge_pages) + allocated);
    if (needed > 0 && alloc_ok) continue;
    if (needed <= 0) {
      needed += allocated;
      h_.resv_huge_pages += static_cast<unsigned long>(delta);
      ret = 0;
      while (!surplus.empty() && needed-- > 0) {
        Page* page = &surplus.front();
        surplus.pop_front();
        enqueue_huge_page(page);
      }
    }
    break;
  }
  unlock(Site::gather_surplus_pages);
  while (!surplus.empty()) {  // free the extras (or everything, on failure) to buddy
    Page* page = &surplus.front();
    surplus.pop_front();
    free_huge_page(page);
  }
  lock(Site::gather_surplus_pages);
  return ret;
}

// remove_pool_huge_page: round robin over nodes (hstate_next_node_to_free).
template <Exec E>
Page* Hugetlb<E>::remove_pool_huge_page(bool acct_surplus) {
  const unsigned nr = m_.nr_nodes();
  for (unsigned k = 0; k < nr; ++k) {
    const unsigned node = h_.next_nid_to_free;
    h_.next_nid_to_free = (h_.next_nid_to_free + 1) % nr;
    if ((!acct_surplus || h_.surplus_huge_pages_node[node]) && !h_.hugepage_freelists[node].empty()) {
      Page* page = &h_.hugepage_freelists[node].front();
      remove_hugetlb_page(page, acct_surplus);
      return page;
    }
  }
  return nullptr;
}

// return_unused_surplus_pages: called and returns with hugetlb_lock held.
template <Exec E>
void Hugetlb<E>::return_unused_surplus_pages(unsigned long unused) {
  h_.resv_huge_pages -= unused;
  unsigned long nr_pages = std::min(unused, h_.surplus_huge_pages);
  PageList list;
  while (nr_pages--) {
    Page* page = remove_pool_huge_page(true);
    if (!page) break;
    list.push_back(*page);
  }
  unlock(Site::return_unused_surplus_pages);
  while (!list.empty()) {  // update_and_free_pages_bulk
    Page* page = &list.front();
    list.pop_front();
    update_and_free_page(page);
    ex_.cond_resched(Site::return_unused_surplus_pages);
  }
  lock(Site::return_unused_surplus_pages);
}

template <Exec E>
int Hugetlb<E>::hugetlb_acct_memory(long delta) {
  int ret = -12;
  lock(Site::gather_surplus_pages);
  if (delta > 0) {
    if (gather_surplus_pages(delta) < 0) goto out;
    if (static_cast<unsigned long>(delta) > h_.free_huge_pages) {  // allowed_mems_nr: every node allowed
      return_unused_surplus_pages(static_cast<unsigned long>(delta));
      goto out;
    }
  }
  ret = 0;
  if (delta < 0) return_unused_surplus_pages(static_cast<unsigned long>(-delta));
out:
  unlock(Site::gather_surplus_pages);
  return ret;
}

// alloc_huge_page with a reservation: dequeue_huge_page_vma, node by node in the preferred
// node's zonelist order, within the policy's node mask.
template <Exec E>
Page* Hugetlb<E>::alloc_huge_page(const MemPolicy& pol, uint64_t ilx) {
  const unsigned nid = pol.preferred_node(ex_.node(), ilx);
  const NodeMask* mask = pol.nodemask();
  lock(Site::dequeue_huge_page_node);
  Page* page = nullptr;
  int last = -1;
  for (Zone* z : m_.node(nid).zonelist) {
    if (static_cast<int>(z->node) == last || (mask && !mask->test(z->node))) continue;
    last = static_cast<int>(z->node);
    if ((page = dequeue_huge_page_node_exact(z->node))) break;
  }
  if (page) {
    detail::hpage_flags(page) |= HPG_restore_reserve;
    h_.resv_huge_pages--;
  }
  unlock(Site::dequeue_huge_page_node);
  return page;
}

}  // namespace pagesim::mm
