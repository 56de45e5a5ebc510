// struct zone, struct free_area, struct per_cpu_pages and the per-cpu vmstat diffs.
//
// Locking:
//  - free_area[] (nr_unpopulated included), first_deferred_pfn, deferred_pages and the
//    pageblock bits' writers: zone->lock.
//  - pcp(cpu) and stat(cpu): only that CPU, with IRQs off (5.17 local_lock_irqsave).
//  - vm_stat[]: atomic; readers see only folded values (zone_page_state).
//  - _watermark, watermark_boost, pageset_high/batch: written at setup and under zone->lock
//    (boost); read without a lock, as the kernel does.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "pagesim/exec/exec.h"
#include "pagesim/mm/page.h"
#include "pagesim/mm/types.h"

namespace pagesim::mm {

struct Node;

struct FreeArea {  // struct free_area
  PageList free_list[MIGRATE_TYPES];
  unsigned long nr_free = 0;  // blocks of this order, all migratetypes
  // Blocks per list. The kernel peeks list_empty() without zone->lock (__zone_watermark_ok);
  // this count stands in for that racy peek so that it can be read with READ_ONCE.
  unsigned long nr_blocks[MIGRATE_TYPES] = {};
  // Blocks handed to buddy by deferred_grow_zone and counted in nr_free and nr_blocks, whose
  // struct pages are not initialised yet: the unlinked tail of free_list[MIGRATE_MOVABLE]
  // (MAX_ORDER-1 only), linked by Machine::populate_free_list when the list reaches them.
  unsigned long nr_unpopulated = 0;
  // list_empty() of the list as the kernel would hold it, unlinked tail included.
  bool list_empty(unsigned mt) const { return free_list[mt].empty() && !(mt == MIGRATE_MOVABLE && nr_unpopulated); }
};

// PCPF_* (6.x pcp->flags).
inline constexpr uint8_t PCPF_PREV_FREE_HIGH_ORDER = 1u << 0;  // the last free was of order 1-3
inline constexpr uint8_t PCPF_FREE_HIGH_BATCH = 1u << 1;       // free_high keeps a batch on the pcp

struct PerCpuPages {  // struct per_cpu_pages: 5.14-5.18, plus the 6.x fields
  int count = 0;      // base pages on all lists
  int high = 0;       // BOOT_PAGESET_HIGH; 6.x: tuned within [high_min, high_max]
  int batch = 1;      // BOOT_PAGESET_BATCH
  short free_factor = 0;  // 5.17: drain batch scaling (nr_pcp_free)
  short expire = 0;
  // 6.x (v6.18 profile).
  int high_min = 0, high_max = 0;
  uint8_t flags = 0;         // PCPF_*
  uint8_t alloc_factor = 0;  // refill batch scaling (nr_pcp_alloc)
  short free_count = 0;      // pages freed since the last allocations halved it
  PageList lists[NR_PCP_LISTS];
};

// The model's own accounting, per CPU so that no shared line is written for it.
struct ZoneAcct {
  long allocated = 0;             // base pages handed out and not yet freed back
  long leaked = 0;                // base pages abandoned by a failed check (bad_page)
  long leaked_unaccounted = 0;    // of those, still counted in NR_FREE_PAGES (the 5.17 bug)
};

struct alignas(128) ZoneCpu {  // one CPU's share of a zone, apart from other CPUs' lines
  PerCpuPages pcp;
  int8_t vm_stat_diff[NR_VM_ZONE_STAT_ITEMS] = {};  // struct per_cpu_zonestat
  int8_t stat_threshold = 0;
  ZoneAcct acct;
  uint64_t events[NR_VM_EVENT_ITEMS] = {};  // __count_zid_vm_events, zone_statistics
};

enum zone_flags : unsigned { ZONE_BOOSTED_WATERMARK = 0, ZONE_RECLAIM_ACTIVE = 1, ZONE_BELOW_HIGH = 2 };

struct Zone {
  // --- read-mostly ---
  unsigned long _watermark[NR_WMARK] = {};
  unsigned long watermark_boost = 0;  // zone->lock
  unsigned long nr_reserved_highatomic = 0;
  long lowmem_reserve[MAX_NR_ZONES] = {};
  unsigned node = 0;
  zone_type idx = ZONE_NORMAL;
  Node* zone_pgdat = nullptr;
  unsigned id = 0;  // node * MAX_NR_ZONES + idx: indexes line addresses and lock tables
  pfn_t zone_start_pfn = 0;
  uint64_t spanned_pages = 0;
  uint64_t present_pages = 0;
  uint64_t managed_pages = 0;
  int pageset_high = 0;      // 5.17's high; 6.x's high_min
  int pageset_high_max = 0;  // 6.x
  int pageset_batch = 0;
  std::unique_ptr<ZoneCpu[]> cpu;  // [nr_cpus]
  unsigned nr_cpus = 0;

  // --- write-intensive, zone->lock ---
  FreeArea free_area[MAX_ORDER];
  std::atomic<unsigned long> flags{0};
  spinlock_t lock;
  pfn_t first_deferred_pfn = 0;  // sections from here up are not yet handed to buddy
  uint64_t deferred_pages = 0;   // managed pages not yet handed to buddy

  // --- statistics ---
  std::atomic<long> vm_stat[NR_VM_ZONE_STAT_ITEMS] = {};

  bool populated() const { return present_pages != 0; }
  // Base pages on the buddy free lists (unpopulated sections included), from nr_free.
  uint64_t free_area_pages() const {
    uint64_t n = 0;
    for (unsigned o = 0; o < MAX_ORDER; ++o) n += free_area[o].nr_free << o;
    return n;
  }
  pfn_t zone_end_pfn() const { return zone_start_pfn + spanned_pages; }
  // Where the pages buddy ever sees end: memblock's reservations (the node's memmap) sit at
  // the top of its highest zone and are never freed (managed = present - reserved).
  pfn_t free_end_pfn() const { return zone_end_pfn() - (present_pages - managed_pages); }
  bool zone_spans_pfn(pfn_t pfn) const { return pfn >= zone_start_pfn && pfn < zone_end_pfn(); }
  PerCpuPages& pcp(unsigned c) { return cpu[c].pcp; }
  const PerCpuPages& pcp(unsigned c) const { return cpu[c].pcp; }
  std::string name() const;  // "Normal"
  unsigned long low_wmark_pages() const { return _watermark[WMARK_LOW] + READ_ONCE(watermark_boost); }
  unsigned long min_wmark_pages() const { return _watermark[WMARK_MIN] + READ_ONCE(watermark_boost); }
  unsigned long high_wmark_pages() const { return _watermark[WMARK_HIGH] + READ_ONCE(watermark_boost); }
  long zone_page_state(zone_stat_item item) const { return vm_stat[item].load(std::memory_order_relaxed); }
};

// --- cache-line identities of zone and pcp fields (v5.17 offsets; docs/model.md) ---
inline constexpr uint64_t kZoneStride = 4096;
inline constexpr uint64_t kZoneWatermarkOff = 0;
inline constexpr uint64_t kZoneFreeAreaOff = 256;      // ZONE_PADDING-aligned group
inline constexpr uint64_t kFreeAreaSize = 104;         // 6 list heads + nr_free
inline constexpr uint64_t kZoneLockOff = kZoneFreeAreaOff + kFreeAreaSize * MAX_ORDER + 8;  // after flags
inline constexpr uint64_t kZoneVmStatOff = 1600;
inline constexpr uint64_t kPcpStride = 256;            // sizeof(struct per_cpu_pages), not aligned in 5.17
inline constexpr uint64_t kPercpuAreaStride = 1 << 20;

inline Line zone_line(const Zone& z, uint64_t off, LineKind kind) {
  return Line{ZONE_BASE + z.id * kZoneStride + off, static_cast<uint16_t>(z.node), kind};
}
inline Line free_list_line(const Zone& z, unsigned order, unsigned mt) {
  return zone_line(z, kZoneFreeAreaOff + order * kFreeAreaSize + 16 * mt, LineKind::list_head);
}
inline Line nr_free_line(const Zone& z, unsigned order) {
  return zone_line(z, kZoneFreeAreaOff + order * kFreeAreaSize + 96, LineKind::list_head);
}
inline Line vm_stat_line(const Zone& z, unsigned item) {
  return zone_line(z, kZoneVmStatOff + 8 * item, LineKind::counter);
}
inline Line watermark_line(const Zone& z) { return zone_line(z, kZoneWatermarkOff, LineKind::zone_meta); }
inline Line zone_flags_line(const Zone& z) { return zone_line(z, kZoneLockOff - 8, LineKind::zone_meta); }

// pcp lines live in the CPU's per-cpu area, on the CPU's node.
inline Line pcp_line(unsigned cpu, unsigned cpu_node, const Zone& z, uint64_t off, LineKind kind) {
  return Line{PERCPU_BASE + cpu * kPercpuAreaStride + z.id * kPcpStride + off,
              static_cast<uint16_t>(cpu_node), kind};
}
inline Line pcp_meta_line(unsigned cpu, unsigned cpu_node, const Zone& z) {
  return pcp_line(cpu, cpu_node, z, 0, LineKind::pcp_meta);
}
inline Line pcp_list_line(unsigned cpu, unsigned cpu_node, const Zone& z, unsigned pindex) {
  return pcp_line(cpu, cpu_node, z, 16 + 16 * pindex, LineKind::list_head);
}
inline Line vm_stat_diff_line(unsigned cpu, unsigned cpu_node, const Zone& z) {
  return Line{PERCPU_BASE + cpu * kPercpuAreaStride + (1 << 19) + z.id * 64,
              static_cast<uint16_t>(cpu_node), LineKind::counter};
}
inline Line global_vm_stat_line(unsigned item) {
  return Line{GLOBAL_BASE + 8 * item, 0, LineKind::counter};
}

}  // namespace pagesim::mm
