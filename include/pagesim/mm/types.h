// Kernel constants and small enums of the modelled v5.17 x86-64 page allocator.
//
// Values follow include/linux/mmzone.h, gfp.h, page-flags.h and mm/internal.h of v5.17
// (4 KiB pages, MAX_ORDER 11, pageblock_order 9, CONFIG_TRANSPARENT_HUGEPAGE=y).
#pragma once

#include <cstdint>
#include <string_view>

namespace pagesim::mm {

inline constexpr unsigned PAGE_SHIFT = 12;
inline constexpr uint64_t PAGE_SIZE = uint64_t{1} << PAGE_SHIFT;
inline constexpr unsigned MAX_ORDER = 11;          // orders 0..10
inline constexpr unsigned pageblock_order = 9;     // HUGETLB_PAGE_ORDER on x86-64
inline constexpr uint64_t pageblock_nr_pages = uint64_t{1} << pageblock_order;
inline constexpr unsigned PAGE_ALLOC_COSTLY_ORDER = 3;
inline constexpr unsigned SECTION_SIZE_BITS = 27;  // 128 MiB sections (SPARSEMEM_VMEMMAP)
inline constexpr uint64_t PAGES_PER_SECTION = uint64_t{1} << (SECTION_SIZE_BITS - PAGE_SHIFT);
inline constexpr unsigned MAX_NUMNODES = 64;

using pfn_t = uint64_t;

// enum migratetype (include/linux/mmzone.h), CONFIG_CMA and CONFIG_MEMORY_ISOLATION on.
enum migratetype : uint8_t {
  MIGRATE_UNMOVABLE = 0,
  MIGRATE_MOVABLE = 1,
  MIGRATE_RECLAIMABLE = 2,
  MIGRATE_PCPTYPES = 3,
  MIGRATE_HIGHATOMIC = MIGRATE_PCPTYPES,
  MIGRATE_CMA = 4,
  MIGRATE_ISOLATE = 5,
  MIGRATE_TYPES = 6,
};
std::string_view migratetype_name(unsigned mt);

// NR_PCP_LISTS = MIGRATE_PCPTYPES * (PAGE_ALLOC_COSTLY_ORDER + 1 + NR_PCP_THP) with THP.
inline constexpr unsigned NR_PCP_THP = 1;
inline constexpr unsigned NR_PCP_LISTS = MIGRATE_PCPTYPES * (PAGE_ALLOC_COSTLY_ORDER + 1 + NR_PCP_THP);

enum zone_type : uint8_t { ZONE_DMA = 0, ZONE_DMA32, ZONE_NORMAL, ZONE_MOVABLE, MAX_NR_ZONES };
std::string_view zone_name(unsigned zt);

// gfp_t bits that the model interprets (include/linux/gfp.h).
using gfp_t = uint32_t;
inline constexpr gfp_t __GFP_DMA = 0x01u;
inline constexpr gfp_t __GFP_HIGHMEM = 0x02u;
inline constexpr gfp_t __GFP_DMA32 = 0x04u;
inline constexpr gfp_t __GFP_MOVABLE = 0x08u;
inline constexpr gfp_t __GFP_RECLAIMABLE = 0x10u;
inline constexpr gfp_t __GFP_HIGH = 0x20u;
inline constexpr gfp_t __GFP_ATOMIC = 0x200u;
inline constexpr gfp_t __GFP_KSWAPD_RECLAIM = 0x800u;
inline constexpr gfp_t __GFP_NOWARN = 0x2000u;
inline constexpr gfp_t __GFP_RETRY_MAYFAIL = 0x4000u;
inline constexpr gfp_t __GFP_COMP = 0x40000u;
inline constexpr gfp_t __GFP_THISNODE = 0x200000u;
inline constexpr gfp_t GFP_KERNEL = __GFP_KSWAPD_RECLAIM | 0x400u /*__GFP_DIRECT_RECLAIM*/ | 0x40u | 0x80u;
inline constexpr gfp_t GFP_HIGHUSER_MOVABLE = GFP_KERNEL | __GFP_HIGHMEM | __GFP_MOVABLE | 0x100000u;
inline constexpr gfp_t GFP_TRANSHUGE = GFP_HIGHUSER_MOVABLE | __GFP_COMP;

// ALLOC_* flags (mm/internal.h, checked against v5.17).
inline constexpr unsigned ALLOC_WMARK_MIN = 0;
inline constexpr unsigned ALLOC_WMARK_LOW = 1;
inline constexpr unsigned ALLOC_WMARK_HIGH = 2;
inline constexpr unsigned ALLOC_NO_WATERMARKS = 0x04;
inline constexpr unsigned ALLOC_WMARK_MASK = ALLOC_NO_WATERMARKS - 1;
inline constexpr unsigned ALLOC_OOM = 0x08;
inline constexpr unsigned ALLOC_HARDER = 0x10;
inline constexpr unsigned ALLOC_HIGH = 0x20;
inline constexpr unsigned ALLOC_CPUSET = 0x40;
inline constexpr unsigned ALLOC_CMA = 0x80;
inline constexpr unsigned ALLOC_NOFRAGMENT = 0x100;
inline constexpr unsigned ALLOC_KSWAPD = 0x800;

enum zone_watermarks : uint8_t { WMARK_MIN = 0, WMARK_LOW, WMARK_HIGH, NR_WMARK };

// enum zone_stat_item, the subset that the allocator maintains.
enum zone_stat_item : uint8_t { NR_FREE_PAGES = 0, NR_FREE_CMA_PAGES, NR_VM_ZONE_STAT_ITEMS };

// vm_event_item and simulator events, counted per CPU (count_vm_event).
enum vm_event_item : uint8_t {
  PGALLOC,           // __count_zid_vm_events(PGALLOC, ...): 1 per pcp alloc in 5.17 (quirk)
  PGFREE,            // __count_vm_event(PGFREE): 1 per pcp free in 5.17 (quirk)
  PCP_REFILL,        // rmqueue_bulk calls
  PCP_REFILL_BLOCKS, // blocks taken from buddy by rmqueue_bulk (leaked ones included)
  PCP_DRAIN,         // free_pcppages_bulk calls
  PCP_DRAIN_PAGES,   // base pages handed back by free_pcppages_bulk
  BUDDY_ALLOC,       // rmqueue buddy-path successes
  ALLOC_SLOWPATH,    // __alloc_pages_slowpath entered (a validity flag)
  ALLOC_FAIL,        // __alloc_pages returning NULL
  KSWAPD_WAKE,       // wakeup_kswapd from a boosted watermark (kswapd itself is not modelled)
  BAD_PAGE,          // bad_page() calls, reported or suppressed
  BAD_PAGE_SUPPRESSED,
  LEAKED_BLOCKS,     // blocks abandoned after a failed check
  LEAKED_PAGES,
  FALLBACK_STEAL,    // __rmqueue_fallback moved a block (a steal event)
  PAGEBLOCK_RETYPE,  // set_pageblock_migratetype on steal
  DEFERRED_GROW,     // _deferred_grow_zone calls that initialised a section
  NUMA_HIT, NUMA_MISS, NUMA_FOREIGN, NUMA_LOCAL, NUMA_OTHER,
  HTLB_BUDDY_PGALLOC, HTLB_BUDDY_PGALLOC_FAIL,
  NR_VM_EVENT_ITEMS
};
std::string_view vm_event_name(unsigned item);
std::string_view vm_event_description(unsigned item);
// Whether the kernel's /proc/vmstat has the event (pgalloc, pgfree, numa_*, htlb_buddy_*); the
// others are the simulator's own counts, which no kernel keeps.
bool vm_event_in_kernel(unsigned item);

}  // namespace pagesim::mm
