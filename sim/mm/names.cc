// Names of the mm enums (migratetypes, zones, vm events, memmap backing), as the kernel prints them.
#include <array>
#include <string_view>

#include "pagesim/mm/memmap.h"
#include "pagesim/mm/types.h"

namespace pagesim::mm {

std::string_view migratetype_name(unsigned mt) {
  static constexpr std::array<std::string_view, MIGRATE_TYPES> kNames = {
      "Unmovable", "Movable", "Reclaimable", "HighAtomic", "CMA", "Isolate"};
  return mt < MIGRATE_TYPES ? kNames[mt] : "?";
}

std::string_view zone_name(unsigned zt) {
  static constexpr std::array<std::string_view, MAX_NR_ZONES> kNames = {"DMA", "DMA32", "Normal", "Movable"};
  return zt < MAX_NR_ZONES ? kNames[zt] : "?";
}

std::string_view vm_event_name(unsigned item) {
  static constexpr std::array<std::string_view, NR_VM_EVENT_ITEMS> kNames = {
      "pgalloc", "pgfree", "pcp_refill", "pcp_refill_blocks", "pcp_drain", "pcp_drain_pages",
      "buddy_alloc", "alloc_slowpath", "alloc_fail", "kswapd_wake", "bad_page", "bad_page_suppressed",
      "leaked_blocks", "leaked_pages", "fallback_steal", "pageblock_retype", "deferred_grow",
      "numa_hit", "numa_miss", "numa_foreign", "numa_local", "numa_other",
      "htlb_buddy_alloc_success", "htlb_buddy_alloc_fail"};
  return item < NR_VM_EVENT_ITEMS ? kNames[item] : "?";
}

bool vm_event_in_kernel(unsigned item) {
  return item == PGALLOC || item == PGFREE || (item >= NUMA_HIT && item <= NUMA_OTHER) || item == HTLB_BUDDY_PGALLOC ||
         item == HTLB_BUDDY_PGALLOC_FAIL;
}

std::string_view vm_event_description(unsigned item) {
  static constexpr std::array<std::string_view, NR_VM_EVENT_ITEMS> kText = {
      "allocations counted as 5.17 counts them (1 per pcp allocation, 2^order on the buddy path)",
      "frees counted as 5.17 counts them (1 per pcp free)",
      "rmqueue_bulk calls (pcp refills)",
      "blocks rmqueue_bulk took from buddy, leaked ones included",
      "free_pcppages_bulk calls (pcp flushes and drains)",
      "base pages free_pcppages_bulk handed back",
      "allocations that took the buddy path of rmqueue",
      "allocations that entered the (minimal) slow path",
      "allocations that failed",
      "kswapd wakeups for a boosted watermark",
      "bad_page() calls",
      "bad_page() reports suppressed by the rate limit",
      "blocks leaked after a failed check",
      "base pages leaked after a failed check",
      "__rmqueue_fallback steals",
      "pageblocks re-typed by a steal",
      "deferred struct-page sections handed to buddy",
      "allocations from the preferred node",
      "allocations from another node than preferred",
      "allocations preferred here but served elsewhere",
      "allocations on the allocating CPU's node",
      "allocations on another node than the CPU's",
      "order-9 buddy allocations for the hugetlb pool",
      "failed order-9 buddy allocations for the hugetlb pool"};
  return item < NR_VM_EVENT_ITEMS ? kText[item] : "?";
}

std::string_view memmap_backing_name(MemmapBacking b) {
  switch (b) {
    case MemmapBacking::hugetlb: return "hugetlb";
    case MemmapBacking::thp: return "thp";
    case MemmapBacking::small_pages: return "4k";
  }
  return "?";
}

}  // namespace pagesim::mm
