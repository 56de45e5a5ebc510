// Machine: the simulated NUMA machine's memory-management state (pglist_data, zones, memmap,
// pageblock bits, per-CPU state), built from a MachineSpec and a KernelConfig as the kernel
// builds it at boot: free_area_init, setup_per_zone_wmarks, zone_pcp_update.
//
// A Machine knows nothing of threads or time; the allocator code (mm/page_alloc.h) runs on it
// through an Exec.
#pragma once

#include <absl/synchronization/mutex.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pagesim/mm/config.h"
#include "pagesim/mm/hstate.h"
#include "pagesim/mm/machine_spec.h"
#include "pagesim/mm/memmap.h"
#include "pagesim/mm/tracepoint.h"
#include "pagesim/mm/zone.h"

namespace pagesim::mm {

struct Node {  // pglist_data
  unsigned node_id = 0;
  pfn_t node_start_pfn = 0;
  uint64_t node_spanned_pages = 0;
  Zone zones[MAX_NR_ZONES];
  std::vector<Zone*> zonelist;  // ZONELIST_FALLBACK: this node's zones high to low, then others
};

class Machine;

// One "Bad page state" report (bad_page()), with what dump_page() prints of the page and, for
// a page of a compound block, of its head: the fields as they were when the check failed.
struct BadPageReport {
  struct Fields {
    pfn_t pfn = 0;
    uint64_t flags = 0;
    int refcount = 0, mapcount = -1;  // _refcount, _mapcount (-1: unmapped)
    uintptr_t mapping = 0;
    uint64_t index = 0, memcg_data = 0;
  };
  pfn_t pfn = 0;
  std::string reason;
  unsigned cpu = 0;
  Fields page, head;      // head == page unless the page is a tail
  bool compound = false;  // PageHead or PageTail
  unsigned order = 0;     // the compound order (compound only)
  int compound_mapcount = -1, compound_pincount = 0;  // H+1, H+2 (compound only)
  // The struct page's eight words as the kernel's vmemmap holds them, for dump_page's hex dump:
  // a pointer into the memmap as its vmemmap address, a list head outside it as PAGE_OFFSET.
  using Words = std::array<uint64_t, sizeof(Page) / sizeof(uint64_t)>;
  Words raw{}, head_raw{};

  // The page as bad_page() finds it (`cpu` is the reporting CPU).
  static BadPageReport of(const Machine& m, const Page* page, std::string reason, unsigned cpu);
  // The kernel log lines of the report, as v5.17's bad_page() and dump_page() print them:
  // "BUG: Bad page state in process pagesim  pfn:...", "page:... refcount:...", the head line
  // of a compound page, "memcg:...", "flags: ...(...)", the "raw: " hex dump (and "head: " for
  // a tail page), "page dumped because: REASON".
  std::vector<std::string> kernel_log() const;
};

class Machine {
 public:
  // Builds the machine. Throws InputError for a spec that is invalid or, with deferred
  // struct-page init off (every section built now), whose memmap does not fit the host.
  Machine(const MachineSpec& spec, const KernelConfig& cfg, const HostMemory& host = HostMemory::probe());
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  const MachineSpec& spec() const { return spec_; }
  const KernelConfig& config() const { return cfg_; }
  // The variant knobs whose value this run's allocator acted on (mm::VariantKnob). Atomic:
  // every CPU notes; after a knob's first note its bit is only read.
  void note_variant_read(VariantKnob k) {
    const VariantKnobs bit = variant_bit(k);
    if (!(variant_reads_.load(std::memory_order_relaxed) & bit)) variant_reads_.fetch_or(bit, std::memory_order_relaxed);
  }
  VariantKnobs variant_reads() const { return variant_reads_.load(std::memory_order_relaxed); }
  unsigned nr_nodes() const { return static_cast<unsigned>(nodes_.size()); }
  unsigned nr_cpus() const { return nr_cpus_; }
  unsigned cpu_to_node(unsigned cpu) const { return cpu_node_[cpu]; }
  Node& node(unsigned nid) { return *nodes_[nid]; }
  const Node& node(unsigned nid) const { return *nodes_[nid]; }
  uint64_t min_free_kbytes() const { return min_free_kbytes_; }
  // vm_zone_stat[]: the global zone counters, folded from per-cpu diffs like zone->vm_stat.
  std::atomic<long> vm_zone_stat[NR_VM_ZONE_STAT_ITEMS] = {};

  Hstate& hstate() { return hstate_; }
  const Hstate& hstate() const { return hstate_; }
  Memmap& memmap() { return *memmap_; }
  const Memmap& memmap() const { return *memmap_; }
  Page* pfn_to_page(pfn_t pfn) const { return memmap_->pfn_to_page(pfn); }
  pfn_t page_to_pfn(const Page* p) const { return memmap_->page_to_pfn(p); }
  // The zone spanning pfn, or nullptr.
  Zone* pfn_zone(pfn_t pfn);
  Zone& page_zone(const Page* p) { return nodes_[page_to_nid(p)]->zones[page_zonenum(p)]; }
  Line page_line(const Page* p) const {
    return Line{VMEMMAP_BASE + page_to_pfn(p) * sizeof(Page), static_cast<uint16_t>(page_to_nid(p)),
                LineKind::struct_page};
  }

  // Populated zones in node order then zone order (for reports and the checker).
  const std::vector<Zone*>& populated_zones() const { return populated_; }

  // get_pfnblock_migratetype / set_pageblock_migratetype. The bits live in the usemap, not in
  // struct page, so reading them touches no struct-page line.
  unsigned get_pageblock_migratetype(pfn_t pfn) const {
    return pageblock_mt_[pfn >> pageblock_order].load(std::memory_order_relaxed);
  }
  void set_pageblock_migratetype(pfn_t pfn, unsigned mt) {
    pageblock_mt_[pfn >> pageblock_order].store(static_cast<uint8_t>(mt), std::memory_order_relaxed);
  }

  // Constructs struct pages in [start, end) that are not constructed yet (__init_single_page).
  // Caller: single-threaded setup, or zone->lock for sections wholly inside that zone.
  void init_struct_pages(pfn_t start, pfn_t end);

  // bad_page() bookkeeping: rate limited to cfg.bad_page_ratelimit_burst reports.
  // Returns true if this report is shown (not suppressed).
  bool record_bad_page(BadPageReport report);
  std::vector<BadPageReport> bad_page_reports() const;
  uint64_t bad_pages_suppressed() const { return bad_suppressed_.load(std::memory_order_relaxed); }

  // _deferred_grow_zone: hands the next not-yet-initialised section of `zone` to buddy as
  // MAX_ORDER-1 blocks at the tail of the MOVABLE lists. The pages were already counted in
  // NR_FREE_PAGES (see docs/model.md, "deferred struct-page init"). A whole section is only
  // counted on the list (FreeArea::nr_unpopulated); its struct pages are initialised when
  // populate_free_list reaches it. Caller holds zone->lock. Returns false when the zone has no
  // deferred pages left.
  bool deferred_grow_zone(Zone& zone);
  // Links the first unpopulated section of free_area[order].free_list[mt] (every one with
  // `all`), initialising its struct pages, so that the list's tail can be read or appended
  // to. Returns false when that list has none. Caller holds zone->lock (or the machine is
  // quiescent).
  // The gate is inline: every tail add and last-block removal on every free list asks.
  bool populate_free_list(Zone& zone, unsigned order, unsigned mt, bool all = false) {
    if (order != MAX_ORDER - 1 || mt != MIGRATE_MOVABLE || !zone.free_area[order].nr_unpopulated) return false;
    populate_sections(zone, all);
    return true;
  }

  // Recomputes watermarks and pcp high/batch (setup_per_zone_wmarks -> zone_pcp_update).
  void setup_per_zone_wmarks();
  // One CPU's pageset as pageset_update writes it: 5.17 sets high; 6.x sets high_min and
  // high_max. A replay uses it to give the pcp the values a real zoneinfo shows.
  void set_pageset(PerCpuPages& pcp, int high, int high_max, int batch) const;

  // The kmem tracepoints' sink (mm/tracepoint.h): nullptr, the default, is tracing off. Set it
  // before any CPU runs the model, as tracefs is enabled before the workload starts.
  TraceSink* tracer() const { return tracer_; }
  void set_tracer(TraceSink* sink) { tracer_ = sink; }

 private:
  void build_nodes();
  void init_free_memory();
  uint64_t calculate_min_free_kbytes() const;
  void setup_per_zone_lowmem_reserve();
  void zone_pcp_update(Zone& z, int cpu_online);
  void build_zonelists();
  void populate_sections(Zone& zone, bool all);
  void link_free_block(Zone& zone, Page* page, unsigned order, unsigned mt);
  void free_range_to_buddy(Zone& zone, pfn_t start, pfn_t end);

  MachineSpec spec_;
  KernelConfig cfg_;
  unsigned nr_cpus_ = 0;
  std::vector<unsigned> cpu_node_;
  std::unique_ptr<Memmap> memmap_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<Zone*> populated_;
  std::unique_ptr<std::atomic<uint8_t>[]> pageblock_mt_;
  uint64_t min_free_kbytes_ = 0;
  Hstate hstate_;
  TraceSink* tracer_ = nullptr;
  std::atomic<VariantKnobs> variant_reads_{0};

  mutable absl::Mutex bad_mu_;
  std::vector<BadPageReport> bad_reports_ ABSL_GUARDED_BY(bad_mu_);
  std::atomic<uint64_t> bad_shown_{0};
  std::atomic<uint64_t> bad_suppressed_{0};
};

// Pure formulas of mm/page_alloc.c, exposed for tests and reports.
int zone_batchsize(uint64_t managed_pages, uint64_t cap_bytes = 1024 * 1024);  // zone_batchsize
int zone_highsize(const Zone& z, int batch, int cpu_online, unsigned cpus_in_node,
                  uint32_t high_fraction);                                    // zone_highsize
int calculate_stat_threshold(uint64_t managed_pages, unsigned online_cpus);  // calculate_normal_threshold
uint64_t int_sqrt(uint64_t x);

}  // namespace pagesim::mm
