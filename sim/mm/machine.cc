// Machine construction: the boot-time parts of mm/page_alloc.c (free_area_init, memmap init,
// setup_per_zone_wmarks, setup_per_zone_lowmem_reserve, zone_pcp_update) and mm/vmstat.c.
#include "pagesim/mm/machine.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>

#include "pagesim/error.h"
#include "pagesim/exec/tsan.h"

namespace pagesim::mm {

uint64_t int_sqrt(uint64_t x) {
  uint64_t r = 0;
  for (uint64_t b = uint64_t{1} << 62; b; b >>= 2) {
    if (x >= r + b) {
      x -= r + b;
      r = (r >> 1) + b;
    } else {
      r >>= 1;
    }
  }
  return r;
}

// zone_batchsize (MMU): managed/1024 pages, capped at cap_bytes of pages (1 MiB since
// d8a759b57035, 512 KiB before), a quarter of that, rounded to 2^n - 1.
int zone_batchsize(uint64_t managed_pages, uint64_t cap_bytes) {
  uint64_t batch = std::min<uint64_t>(managed_pages >> 10, cap_bytes / PAGE_SIZE);
  batch /= 4;
  if (batch < 1) batch = 1;
  batch = std::bit_floor(batch + batch / 2) - 1;
  return static_cast<int>(batch);
}

// zone_highsize.
int zone_highsize(const Zone& z, int batch, int cpu_online, unsigned cpus_in_node, uint32_t high_fraction) {
  const uint64_t total = high_fraction ? z.managed_pages / high_fraction : z.low_wmark_pages();
  unsigned nr_split_cpus = cpus_in_node + static_cast<unsigned>(cpu_online);
  if (!nr_split_cpus) nr_split_cpus = z.nr_cpus;
  const int high = static_cast<int>(total / nr_split_cpus);
  return std::max(high, batch << 2);
}

// calculate_normal_threshold (mm/vmstat.c).
int calculate_stat_threshold(uint64_t managed_pages, unsigned online_cpus) {
  const uint64_t mem = managed_pages >> (27 - PAGE_SHIFT);
  const int threshold = 2 * std::bit_width(online_cpus) * (1 + std::bit_width(mem));
  return std::min(125, threshold);
}

std::string Zone::name() const { return std::string(zone_name(idx)); }

Machine::Machine(const MachineSpec& spec, const KernelConfig& cfg, const HostMemory& host)
    : spec_(spec), cfg_(cfg) {
  if (std::string err = spec_.validate(); !err.empty()) throw InputError(err);
  nr_cpus_ = spec_.nr_cpus();
  for (unsigned n = 0; n < spec_.nodes.size(); ++n)
    for (unsigned c = 0; c < spec_.nodes[n].cpus; ++c) cpu_node_.push_back(n);
  if (!cfg_.deferred_struct_page_init) Memmap::check_fits(spec_.total_pages(), host);  // all built now
  memmap_ = std::make_unique<Memmap>(spec_.total_pages(), host);
  const uint64_t nr_pageblocks = spec_.total_pages() >> pageblock_order;
  pageblock_mt_ = std::make_unique<std::atomic<uint8_t>[]>(nr_pageblocks);
  for (uint64_t i = 0; i < nr_pageblocks; ++i) pageblock_mt_[i].store(MIGRATE_MOVABLE);  // memmap_init_range
  build_nodes();
  build_zonelists();
  init_free_memory();
  // init_per_zone_wmark_min, then khugepaged's set_recommended_min_free_kbytes.
  min_free_kbytes_ = cfg_.min_free_kbytes ? *cfg_.min_free_kbytes : calculate_min_free_kbytes();
  setup_per_zone_wmarks();
  setup_per_zone_lowmem_reserve();
  if (!cfg_.min_free_kbytes && cfg_.thp && cfg_.khugepaged) {
    unsigned nr_zones = 0;
    uint64_t buffer_pages = 0;  // nr_free_buffer_pages: managed - high watermark, zones <= NORMAL
    for (Zone* z : populated_)
      if (z->idx <= ZONE_NORMAL) {
        nr_zones++;
        buffer_pages += z->managed_pages - std::min<uint64_t>(z->managed_pages, z->high_wmark_pages());
      }
    uint64_t recommended = pageblock_nr_pages * nr_zones * (2 + MIGRATE_PCPTYPES * MIGRATE_PCPTYPES);
    recommended = std::min(recommended, buffer_pages / 20) << (PAGE_SHIFT - 10);
    if (recommended > min_free_kbytes_) min_free_kbytes_ = recommended;
    setup_per_zone_wmarks();
  }
}

void Machine::build_nodes() {
  pfn_t pfn = 0;
  for (unsigned n = 0; n < spec_.nodes.size(); ++n) {
    auto node = std::make_unique<Node>();
    node->node_id = n;
    node->node_start_pfn = pfn;
    const unsigned cpus_in_node = spec_.nodes[n].cpus;
    for (unsigned zt = 0; zt < MAX_NR_ZONES; ++zt) {
      Zone& z = node->zones[zt];
      z.node = n;
      z.idx = static_cast<zone_type>(zt);
      z.zone_pgdat = node.get();
      z.id = n * MAX_NR_ZONES + zt;
      z.nr_cpus = nr_cpus_;
      z.cpu = std::make_unique<ZoneCpu[]>(nr_cpus_);
      z.lock.id = z.id;
      z.lock.cls = LockClass::zone_lock;
      z.lock.line = zone_line(z, kZoneLockOff, LineKind::lock_word);
      z.zone_start_pfn = pfn;
      (void)cpus_in_node;
    }
    Zone* highest = nullptr;
    for (const ZoneSpec& zs : spec_.nodes[n].zones) {
      Zone& z = node->zones[zs.type];
      z.zone_start_pfn = pfn;
      z.spanned_pages = z.present_pages = z.managed_pages = zs.pages;
      pfn += zs.pages;
      if (zs.pages) highest = &z;
    }
    // sparse_init / memblock_alloc_node: the node's memmap, a struct page per present page,
    // comes from its own memory, top-down; memblock_free_all never frees it to buddy.
    if (highest && cfg_.memmap_reserved) {
      const uint64_t present = pfn - node->node_start_pfn;
      const uint64_t memmap = (present * sizeof(Page) + PAGE_SIZE - 1) / PAGE_SIZE;
      highest->managed_pages -= std::min(memmap, highest->managed_pages);
    }
    node->node_spanned_pages = pfn - node->node_start_pfn;
    nodes_.push_back(std::move(node));
  }
  for (auto& node : nodes_)
    for (Zone& z : node->zones)
      if (z.populated()) populated_.push_back(&z);
}

// build_zonelists (ZONELIST_FALLBACK): own node first, then the others in distance order;
// within a node, the highest zone first.
void Machine::build_zonelists() {
  const unsigned nr = nr_nodes();
  for (unsigned n = 0; n < nr; ++n) {
    for (unsigned k = 0; k < nr; ++k) {
      Node& other = *nodes_[(n + k) % nr];
      for (int zt = MAX_NR_ZONES - 1; zt >= 0; --zt)
        if (other.zones[zt].populated()) nodes_[n]->zonelist.push_back(&other.zones[zt]);
    }
  }
}

Zone* Machine::pfn_zone(pfn_t pfn) {
  for (auto& node : nodes_) {
    if (pfn < node->node_start_pfn || pfn >= node->node_start_pfn + node->node_spanned_pages) continue;
    for (Zone& z : node->zones)
      if (z.populated() && z.zone_spans_pfn(pfn)) return &z;
  }
  return nullptr;
}

// __init_single_page for whole sections: node and zone ids in flags, _mapcount -1, refcount 0
// (as __free_pages_core leaves it).
void Machine::init_struct_pages(pfn_t start, pfn_t end) {
  for (uint64_t s = start / PAGES_PER_SECTION; s * PAGES_PER_SECTION < end; ++s) {
    if (memmap_->section_initialised(s)) continue;
    const Zone* z = nullptr;  // the previous pfn's: a section rarely spans two zones
    memmap_->init_section(s, [this, &z](Page* p, pfn_t pfn) {
      if (!z || !z->zone_spans_pfn(pfn)) z = pfn_zone(pfn);
      init_single_page(p, z ? z->node : 0, z ? z->idx : 0);  // a hole: flags 0
    });
  }
}

// Links a block at the list's tail (__free_pages_core frees with FPI_TO_TAIL); the caller counts it.
void Machine::link_free_block(Zone& zone, Page* page, unsigned order, unsigned mt) {
  zone.free_area[order].free_list[mt].push_back(*page);
  page->index = mt;
  set_page_private(page, order);
  __SetPageBuddy(page);
}

void Machine::free_range_to_buddy(Zone& zone, pfn_t start, pfn_t end) {
  for (pfn_t pfn = start; pfn < end;) {
    unsigned order = MAX_ORDER - 1;
    while ((pfn & ((pfn_t{1} << order) - 1)) || pfn + (pfn_t{1} << order) > end) order--;
    const unsigned mt = get_pageblock_migratetype(pfn);
    FreeArea& area = zone.free_area[order];
    link_free_block(zone, pfn_to_page(pfn), order, mt);
    area.nr_free++;
    WRITE_ONCE(area.nr_blocks[mt], area.nr_blocks[mt] + 1);
    pfn += pfn_t{1} << order;
  }
}

// memmap init and memblock_free_all. With deferred struct-page init only the first section of
// each node's highest zone is initialised now (defer_init); the rest waits for
// deferred_grow_zone. Sections shared by two zones are initialised here, single-threaded.
void Machine::init_free_memory() {
  for (auto& node : nodes_) {
    Zone* highest = nullptr;
    for (Zone& z : node->zones)
      if (z.populated()) highest = &z;
    for (Zone& z : node->zones) {
      if (!z.populated()) continue;
      const pfn_t start = z.zone_start_pfn, end = z.free_end_pfn();
      pfn_t eager_end = end;
      if (cfg_.deferred_struct_page_init && &z == highest) {
        eager_end = std::min(end, (start / PAGES_PER_SECTION + 1) * PAGES_PER_SECTION);
        // A last section that ends mid-way may be shared with the next node's first zone:
        // initialise it now, single-threaded, rather than under one zone's lock later.
        if (z.zone_end_pfn() % PAGES_PER_SECTION) init_struct_pages(std::max(eager_end, z.zone_end_pfn() - 1), z.zone_end_pfn());
      }
      init_struct_pages(start, eager_end);
      free_range_to_buddy(z, start, eager_end);
      z.first_deferred_pfn = eager_end;
      z.deferred_pages = end - eager_end;
      z.vm_stat[NR_FREE_PAGES].store(static_cast<long>(z.managed_pages));  // deferred count as free
      vm_zone_stat[NR_FREE_PAGES].fetch_add(static_cast<long>(z.managed_pages));
    }
  }
}

bool Machine::deferred_grow_zone(Zone& zone) {
  if (zone.deferred_pages == 0) return false;
  const pfn_t start = zone.first_deferred_pfn;
  const pfn_t end = std::min(zone.free_end_pfn(), (start / PAGES_PER_SECTION + 1) * PAGES_PER_SECTION);
  if (end - start == PAGES_PER_SECTION) {
    // Whole MAX_ORDER-1 MOVABLE blocks behind those already there: count them on the list now,
    // touch the memmap only when the list reaches them. A request that never finds its type
    // grows every section (__rmqueue_blocks), and the host would otherwise pay for all of them.
    FreeArea& area = zone.free_area[MAX_ORDER - 1];
    const unsigned long blocks = PAGES_PER_SECTION >> (MAX_ORDER - 1);
    area.nr_unpopulated += blocks;
    area.nr_free += blocks;
    WRITE_ONCE(area.nr_blocks[MIGRATE_MOVABLE], area.nr_blocks[MIGRATE_MOVABLE] + blocks);
  } else {
    populate_free_list(zone, MAX_ORDER - 1, MIGRATE_MOVABLE, /*all=*/true);  // keep the list's order
    init_struct_pages(start, end);
    free_range_to_buddy(zone, start, end);
  }
  zone.first_deferred_pfn = end;
  WRITE_ONCE(zone.deferred_pages, zone.deferred_pages - (end - start));
  return true;
}

void Machine::populate_sections(Zone& zone, bool all) {
  FreeArea& area = zone.free_area[MAX_ORDER - 1];
  do {
    // The unpopulated blocks are whole sections just below first_deferred_pfn, in pfn order.
    const pfn_t start = zone.first_deferred_pfn - (pfn_t{area.nr_unpopulated} << (MAX_ORDER - 1));
    const pfn_t end = start + PAGES_PER_SECTION;
    init_struct_pages(start, end);
    for (pfn_t pfn = start; pfn < end; pfn += pfn_t{1} << (MAX_ORDER - 1))
      link_free_block(zone, pfn_to_page(pfn), MAX_ORDER - 1, MIGRATE_MOVABLE);
    area.nr_unpopulated -= PAGES_PER_SECTION >> (MAX_ORDER - 1);
  } while (all && area.nr_unpopulated);
}

// calculate_min_free_kbytes: int_sqrt(lowmem_kbytes * 16) clamped to [128, 262144].
uint64_t Machine::calculate_min_free_kbytes() const {
  uint64_t lowmem_pages = 0;
  for (Zone* z : populated_)
    if (z->idx <= ZONE_NORMAL) lowmem_pages += z->managed_pages;
  const uint64_t lowmem_kbytes = lowmem_pages * (PAGE_SIZE >> 10);
  return std::clamp<uint64_t>(int_sqrt(lowmem_kbytes * 16), 128, 262144);
}

// setup_per_zone_wmarks -> __setup_per_zone_wmarks, then zone_pcp_update and the vmstat
// thresholds. No ZONE_HIGHMEM on x86-64, so every zone is lowmem.
void Machine::setup_per_zone_wmarks() {
  const uint64_t pages_min = min_free_kbytes_ >> (PAGE_SHIFT - 10);
  uint64_t lowmem_pages = 0;
  for (Zone* z : populated_) lowmem_pages += z->managed_pages;
  for (Zone* z : populated_) {
    const uint64_t min = pages_min * z->managed_pages / lowmem_pages;
    z->_watermark[WMARK_MIN] = min;
    const uint64_t tmp = std::max<uint64_t>(min >> 2, z->managed_pages * cfg_.watermark_scale_factor / 10000);
    z->watermark_boost = 0;
    z->_watermark[WMARK_LOW] = min + tmp;
    z->_watermark[WMARK_HIGH] = min + tmp * 2;
  }
  for (Zone* z : populated_) zone_pcp_update(*z, 0);
  for (Zone* z : populated_) {
    const int t = calculate_stat_threshold(z->managed_pages, nr_cpus_);
    for (unsigned c = 0; c < nr_cpus_; ++c) z->cpu[c].stat_threshold = static_cast<int8_t>(t);
  }
}

// setup_per_zone_lowmem_reserve with the default sysctl_lowmem_reserve_ratio.
void Machine::setup_per_zone_lowmem_reserve() {
  static constexpr int kRatio[MAX_NR_ZONES] = {256, 256, 32, 0};
  for (auto& node : nodes_) {
    for (unsigned i = 0; i + 1 < MAX_NR_ZONES; ++i) {
      Zone& z = node->zones[i];
      const bool clear = !kRatio[i] || !z.managed_pages;
      uint64_t managed = 0;
      for (unsigned j = i + 1; j < MAX_NR_ZONES; ++j) {
        managed += node->zones[j].managed_pages;
        z.lowmem_reserve[j] = clear ? 0 : static_cast<long>(managed / kRatio[i]);
      }
    }
  }
}

// zone_pcp_update -> zone_set_pageset_high_and_batch.
// pcp_high_autotune: high_min from the low watermark, high_max from managed/8, unless the
// sysctl pins both; pageset_update leaves pcp->high to be clamped into them on first use.
void Machine::zone_pcp_update(Zone& z, int cpu_online) {
  const uint64_t cap = cfg_.zone_batchsize == BatchCap::kib512 ? 512 * 1024 : 1024 * 1024;
  const int batch = std::max(1, zone_batchsize(z.managed_pages, cap));
  const unsigned cpus = spec_.nodes[z.node].cpus;
  const uint32_t fraction = cfg_.percpu_pagelist_high_fraction;
  const int high = zone_highsize(z, batch, cpu_online, cpus, fraction);
  const int high_max = cfg_.behaviour.pcp_high_autotune && !fraction ? zone_highsize(z, batch, cpu_online, cpus, 8) : high;
  if (z.pageset_high == high && z.pageset_high_max == high_max && z.pageset_batch == batch) return;
  z.pageset_high = high;
  z.pageset_high_max = high_max;
  z.pageset_batch = batch;
  for (unsigned c = 0; c < nr_cpus_; ++c) set_pageset(z.pcp(c), high, high_max, batch);
}

// pageset_update (5.17 writes high; the auto-tuned pcp high_min/high_max) and, with it,
// zone_pcp_update_cacheinfo's PCPF_FREE_HIGH_BATCH.
void Machine::set_pageset(PerCpuPages& pcp, int high, int high_max, int batch) const {
  WRITE_ONCE(pcp.batch, batch);
  if (!cfg_.behaviour.pcp_high_autotune) {
    WRITE_ONCE(pcp.high, high);
    return;
  }
  WRITE_ONCE(pcp.high_min, high);
  WRITE_ONCE(pcp.high_max, high_max);
  if (cfg_.pcp_free_high_batch) pcp.flags |= PCPF_FREE_HIGH_BATCH;
  else pcp.flags &= static_cast<uint8_t>(~PCPF_FREE_HIGH_BATCH);
}

bool Machine::record_bad_page(BadPageReport report) {
  if (bad_shown_.fetch_add(1, std::memory_order_relaxed) >= cfg_.bad_page_ratelimit_burst) {
    bad_suppressed_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  TsanMutexLock l(&bad_mu_);
  bad_reports_.push_back(std::move(report));
  return true;
}

std::vector<BadPageReport> Machine::bad_page_reports() const {
  TsanMutexLock l(&bad_mu_);
  return bad_reports_;
}

}  // namespace pagesim::mm
