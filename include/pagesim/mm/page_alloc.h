// The page allocator (v5.17, and v6.18 where KernelConfig::behaviour says so), as a class
// template on the exec interface.
//
// Mm<E> is "the kernel running on the CPU that E represents". Its member functions carry the
// names of their mm/page_alloc.c counterparts so that one grep finds both. It holds no state of
// its own beyond references: all allocator state is in the Machine. Construct one per CPU (or
// per task switch) and call it from that CPU only.
//
// Explicit instantiations live in each engine's folder (sim/engine/*/instantiate_mm.cc, one
// per Exec); the definitions are in sim/mm/*-inl.h and are included only there.
#pragma once

#include <cstdint>

#include "pagesim/exec/exec.h"
#include "pagesim/mm/machine.h"

namespace pagesim::mm {

struct NodeMask {
  uint64_t bits = ~uint64_t{0};
  bool test(unsigned nid) const { return bits >> nid & 1; }
  static NodeMask only(unsigned nid) { return NodeMask{uint64_t{1} << nid}; }
};

// FPI flags (mm/page_alloc.c).
using fpi_t = unsigned;
inline constexpr fpi_t FPI_NONE = 0;
inline constexpr fpi_t FPI_TO_TAIL = 1u << 1;

// pcp_allowed_order, honouring the high_order_pcp and thp knobs.
inline bool pcp_allowed_order(const KernelConfig& cfg, unsigned order) {
  if (order == 0) return true;
  if (!cfg.high_order_pcp) return false;  // before 44042b449872 (5.13): order 0 only
  if (order <= PAGE_ALLOC_COSTLY_ORDER) return true;
  return cfg.thp && order == pageblock_order;
}
// order_to_pindex / pindex_to_order (5.17, THP=y).
inline unsigned order_to_pindex(unsigned mt, unsigned order) {
  const unsigned base = order > PAGE_ALLOC_COSTLY_ORDER ? PAGE_ALLOC_COSTLY_ORDER + 1 : order;
  return MIGRATE_PCPTYPES * base + mt;
}
// order_to_pindex (6.x, THP=y): THP blocks on two lists, 12 (unmovable, reclaimable) and 13
// (movable); pindex_to_order reads both numberings.
inline unsigned order_to_pindex_v6(unsigned mt, unsigned order) {
  if (order > PAGE_ALLOC_COSTLY_ORDER) return MIGRATE_PCPTYPES * (PAGE_ALLOC_COSTLY_ORDER + 1) + (mt == MIGRATE_MOVABLE);
  return MIGRATE_PCPTYPES * order + mt;
}
inline unsigned pindex_to_order(unsigned pindex) {
  const unsigned order = pindex / MIGRATE_PCPTYPES;
  return order > PAGE_ALLOC_COSTLY_ORDER ? pageblock_order : order;
}
// gfp_migratetype.
inline unsigned gfp_migratetype(gfp_t gfp) {
  if (gfp & __GFP_MOVABLE) return MIGRATE_MOVABLE;
  if (gfp & __GFP_RECLAIMABLE) return MIGRATE_RECLAIMABLE;
  return MIGRATE_UNMOVABLE;
}
// gfp_zone: the highest zone the request may use.
inline zone_type gfp_zone(gfp_t gfp) {
  if (gfp & __GFP_DMA) return ZONE_DMA;
  if (gfp & __GFP_DMA32) return ZONE_DMA32;
  if ((gfp & (__GFP_HIGHMEM | __GFP_MOVABLE)) == (__GFP_HIGHMEM | __GFP_MOVABLE)) return ZONE_MOVABLE;
  return ZONE_NORMAL;
}

template <Exec E>
class Mm {
 public:
  Mm(Machine& m, E& ex) : m_(m), ex_(ex), cfg_(m.config()) {}

  // --- entry points (include/linux/gfp.h) ---
  // __alloc_pages: fast path, plus a minimal slow path (min watermark retry; no reclaim).
  // Returns nullptr for order >= MAX_ORDER (after a warning) or when memory is exhausted.
  Page* __alloc_pages(gfp_t gfp, unsigned order, int preferred_nid, const NodeMask* nodemask = nullptr);
  Page* alloc_pages_node(int nid, gfp_t gfp, unsigned order) { return __alloc_pages(gfp, order, nid); }
  // __free_pages. Throws ModelError on misuse the kernel would BUG on (refcount already 0,
  // a tail page, a compound page freed with the wrong order, a page outside every zone).
  void __free_pages(Page* page, unsigned order);
  // One page of a folio batch (folios_put_refs -> free_unref_folios): the last reference
  // dropped, then the batched free path. Orders the pcp does not take go to buddy.
  void free_unref_folio(Page* page, unsigned order);
  // drain_local_pages(zone): flush this CPU's pcp lists of `zone` (all zones if null).
  void drain_local_pages(Zone* zone = nullptr);

  // --- allocation internals, exposed for tests and workloads ---
  Page* get_page_from_freelist(gfp_t gfp, unsigned order, unsigned alloc_flags, Zone& preferred,
                               zone_type highest_zoneidx, const NodeMask* nodemask, unsigned mt);
  Page* rmqueue(Zone& preferred, Zone& zone, unsigned order, gfp_t gfp, unsigned alloc_flags, unsigned mt);
  Page* rmqueue_pcplist(Zone& preferred, Zone& zone, unsigned order, gfp_t gfp, unsigned mt, unsigned alloc_flags);
  Page* __rmqueue_pcplist(Zone& zone, unsigned order, unsigned mt, unsigned alloc_flags, PerCpuPages& pcp, PageList& list);
  int rmqueue_bulk(Zone& zone, unsigned order, unsigned long count, PageList& list, unsigned mt, unsigned alloc_flags);
  Page* __rmqueue(Zone& zone, unsigned order, unsigned mt, unsigned alloc_flags);
  // traced = false: a block the 6.x fallback takes without a zone_locked event.
  Page* __rmqueue_smallest(Zone& zone, unsigned order, unsigned mt, bool traced = true);
  // *claimed (optional): whether 6.x would have claimed the block below pageblock order.
  bool __rmqueue_fallback(Zone& zone, int order, unsigned start_mt, unsigned alloc_flags, bool* claimed = nullptr);
  bool zone_watermark_fast(Zone& z, unsigned order, unsigned long mark, zone_type highest_zoneidx,
                           unsigned alloc_flags, gfp_t gfp);
  bool __zone_watermark_ok(Zone& z, unsigned order, unsigned long mark, zone_type highest_zoneidx,
                           unsigned alloc_flags, long free_pages);
  void prep_new_page(Page* page, unsigned order, gfp_t gfp, unsigned alloc_flags);

  // --- checks ---
  bool check_new_page(Page* page);                     // true = bad
  bool check_new_pages(Page* page, unsigned order);    // true = bad
  bool check_pcp_refill(Page* page, unsigned order);   // per config matrix and pcp scope
  bool check_new_pcp(Page* page, unsigned order);
  void bad_page(Page* page, const char* reason);
  bool free_pages_prepare(Page* page, unsigned order, bool check_free);  // false = leaked

  // --- free internals ---
  // batched: the page comes from a folio batch (5.17 free_unref_page_list, 6.x
  // free_unref_folios), which fires mm_page_free_batched before the pcp commit.
  void free_unref_page(Page* page, unsigned order, bool batched = false);
  void free_unref_page_commit(Page* page, unsigned mt, unsigned order);
  void free_pcppages_bulk(Zone& zone, int count, PerCpuPages& pcp, unsigned pindex);
  void __free_one_page(Page* page, pfn_t pfn, Zone& zone, unsigned order, unsigned mt, fpi_t fpi);
  void free_one_page(Zone& zone, Page* page, pfn_t pfn, unsigned order, unsigned mt, fpi_t fpi);
  void __free_pages_ok(Page* page, unsigned order, fpi_t fpi);
  void drain_pages_zone(Zone& zone);
  // decay_pcp_high (6.x, from vmstat_update about once a second): lowers this CPU's pcp->high
  // by an eighth toward high_min and drains what is above it. Returns whether work remains.
  bool decay_pcp_high(Zone& zone);

  // --- vmstat ---
  void __mod_zone_page_state(Zone& z, zone_stat_item item, long delta);
  void __mod_zone_freepage_state(Zone& z, long nr_pages, unsigned mt);
  void count_event(Zone& z, vm_event_item item, uint64_t n = 1) { z.cpu[ex_.cpu()].events[item] += n; }
  ZoneAcct& acct(Zone& z) { return z.cpu[ex_.cpu()].acct; }

  E& exec() { return ex_; }
  Machine& machine() { return m_; }

 private:
  // free-list helpers (include/linux/mmzone.h, mm/page_alloc.c)
  void add_to_free_list(Page* page, Zone& zone, unsigned order, unsigned mt, bool tail);
  void move_to_free_list(Page* page, Zone& zone, unsigned order, unsigned mt);
  void del_page_from_free_list(Page* page, Zone& zone, unsigned order);
  void unlink_populated(Page* page, Zone& zone, unsigned order, unsigned mt);
  void expand(Zone& zone, Page* page, unsigned low, unsigned high, unsigned mt);
  bool page_is_buddy(Page* page, Page* buddy, unsigned order);
  bool buddy_merge_likely(pfn_t pfn, pfn_t buddy_pfn, Page* page, unsigned order);
  void steal_suitable_fallback(Zone& zone, Page* page, unsigned alloc_flags, unsigned start_type, bool whole_block);
  int move_freepages_block(Zone& zone, Page* page, unsigned mt, int* num_movable);
  bool boost_watermark(Zone& zone);
  void zone_statistics(Zone& preferred, Zone& z, long nr);
  bool put_page_testzero(Page* page, unsigned order);
  void free_the_page(Page* page, unsigned order, bool batched);
  Page* __rmqueue_blocks(Zone& zone, unsigned order, unsigned mt, unsigned alloc_flags);
  Page* rmqueue_buddy(Zone& preferred, Zone& zone, unsigned order, unsigned alloc_flags, unsigned mt);
  int nr_pcp_alloc(PerCpuPages& pcp, Zone& zone, unsigned order);
  void free_frozen_page_commit(Zone& zone, PerCpuPages& pcp, Page* page, unsigned mt, unsigned order);
  bool check_pages_enabled() const;
  unsigned pcp_pindex(unsigned mt, unsigned order) const;
  uint64_t pcp_events(unsigned order) const;
  void free_pcppages_bulk_v5_17(Zone& zone, int count, PerCpuPages& pcp);
  void free_pcppages_bulk_v5_18(Zone& zone, int count, PerCpuPages& pcp, unsigned just_freed_pindex);
  Page* pcp_list_take_last(Zone& zone, PerCpuPages& pcp, unsigned pindex);
  bool bulkfree_pcp_prepare(Zone& zone, Page* page, unsigned order);
  void check_pcp_list_refill(Zone& zone, PageList& list, unsigned order, int& allocated);
  void leak_block(Zone& zone, Page* page, unsigned order, bool still_counted_free);
  void post_alloc_hook(Page* page, unsigned order);
  void prep_compound_page(Page* page, unsigned order);
  bool check_free_page(Page* page);
  bool free_tail_pages_check(Page* head, Page* page);
  void pcp_list_add(PerCpuPages& pcp, Zone& zone, unsigned pindex, Page* page, bool tail);
  void pcp_list_del(PerCpuPages& pcp, Zone& zone, unsigned pindex, Page* page);
  void touch_list_neighbours(Page* page, AccessKind kind, Site site);
  IrqFlags spin_lock_irqsave(spinlock_t& lock, Site site);
  void spin_unlock_irqrestore(spinlock_t& lock, IrqFlags flags, Site site);

  // trace_mm_page_*: one event to the Machine's sink, when tracing is on.
  void trace(TracepointId id, const Page* page, unsigned order, int mt = -1, bool percpu_refill = false, gfp_t gfp = 0) {
    if (TraceSink* sink = m_.tracer(); sink) [[unlikely]]
      sink->emit(Tracepoint{id, ex_.cpu(), page ? m_.page_to_pfn(page) : kNoPfn, static_cast<uint8_t>(order),
                            static_cast<int8_t>(mt), percpu_refill, gfp});
  }

  Line pline(const Page* p) const { return m_.page_line(p); }
  unsigned cpu_node() const { return ex_.node(); }

  Machine& m_;
  E& ex_;
  const KernelConfig& cfg_;
};

}  // namespace pagesim::mm
