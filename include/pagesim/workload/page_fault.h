// will-it-scale's page fault tests (tests/page_fault1.c, page_fault2.c, page_fault3.c) as the
// model runs them: every task loops { mmap 128 MiB; write one byte to every 4 KiB page; munmap },
// and counts one operation per page written. The three differ in the mapping:
//
//   page_fault1  MAP_PRIVATE|MAP_ANONYMOUS: every fault allocates and clears a page
//                (do_anonymous_page); munmap frees them all (zap_pte_range -> release_pages).
//   page_fault2  MAP_PRIVATE of the task's own 128 MiB tmp file: every write fault allocates a
//                page and copies the file page into it (do_cow_fault); the file's page cache
//                is filled on the first loop and stays; munmap frees the copies.
//   page_fault3  MAP_SHARED of the task's own tmp file: a write fault maps the page-cache page
//                and dirties it (do_shared_fault); after the first loop nothing but page tables
//                is allocated.
//
// Every mode: one PTE page per 512 pages (__pte_alloc), freed by free_pgtables at munmap. The
// mmap_lock is taken for read around every fault (do_user_addr_fault) and for write by munmap:
// in process mode each task has its own mm (its own mmap_lock line), in thread mode every task
// shares one, so the line bounces between the threads' CPUs; munmap's TLB flushes then
// interrupt every other thread (flush_tlb_mm_range). What else the kernel does per fault is
// charged as work of a stated cost (FaultCosts, docs/model.md "will-it-scale page faults").
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "pagesim/engine/virtual/virtual.h"
#include "pagesim/exec/exec.h"
#include "pagesim/mm/page_alloc.h"
#include "pagesim/workload/registry.h"

namespace pagesim::workload {

enum class PfMapping : uint8_t { anon_private, file_private, file_shared };  // page_fault1, 2, 3

inline constexpr uint64_t kPtrsPerPte = 512;           // PTRS_PER_PTE: pages per PTE page
inline constexpr uint64_t kTaskRssEventsThresh = 64;   // TASK_RSS_EVENTS_THRESH (SPLIT_RSS_COUNTING)
// Pages an mmu_gather holds before tlb_flush_mmu: MMU_GATHER_BUNDLE (8) in the on-stack batch
// plus MAX_GATHER_BATCH_COUNT (10000 / 510 = 19) batches of MAX_GATHER_BATCH (510 pointers).
inline constexpr uint64_t kGatherPages = 8 + 19 * 510;

// Modelled non-allocator work, in core cycles, charged on the virtual engine (the native
// engine does the clear and copy for real and nothing else). docs/model.md lists each cost's
// source; clear and copy come from the machine file.
struct FaultCosts {
  uint32_t fault = 0;     // exception entry/exit, find_vma, handle_mm_fault walk, set_pte_at
  uint32_t lru_memcg = 0; // lru_cache_add (per-CPU pagevec) and the memcg charge, per new page
  uint32_t clear = 0;     // clear_page of 4 KiB
  uint32_t copy = 0;      // copy_user_highpage of 4 KiB
  uint32_t lookup = 0;    // the page-cache lookup of a file fault (filemap_fault / shmem_fault)
  uint32_t mkwrite = 0;   // a shared write fault's dirtying (fault_dirty_shared_page)
  uint32_t zap = 0;       // zap_pte_range per present PTE (rmap, rss, the gather)
  uint32_t ipi = 0;       // a TLB-flush IPI to one other CPU, the sender's share
};

// Assumed costs (docs/model.md); clear and copy filled in from the machine file.
FaultCosts assumed_fault_costs(double clear_bytes_per_s, uint32_t freq_mhz);

struct PageFaultParams {
  PfMapping mapping = PfMapping::anon_private;
  uint64_t pages = 32768;  // MEMSIZE (128 MiB) / 4 KiB
  bool threads = false;    // the _threads binary: one mm for every task
};

// What one task did, counted per event (the hand-worked tests check them).
struct PageFaultCounts {
  uint64_t faults = 0, data_allocs = 0, cache_allocs = 0, pt_allocs = 0, frees = 0, failures = 0;
  uint64_t tlb_flushes = 0, tlb_ipis = 0;
  uint64_t pcp_refills = 0, pcp_drains = 0;  // on this task's CPU (vmstat pcp_refill, pcp_drain)
  void add(const PageFaultCounts& o);
};

// The events `item` counted so far on `cpu`, over every populated zone.
uint64_t cpu_events(const mm::Machine& m, unsigned cpu, mm::vm_event_item item);

// A task's mm_struct lines: mmap_lock's count and owner, and rss_stat. Process mode: one mm per
// task, allocated by fork on the node the task was pinned to; thread mode: the parent's.
inline Line mm_lock_line(unsigned mm_id, unsigned node) { return {MM_BASE + uint64_t{mm_id} * 1024, static_cast<uint16_t>(node), LineKind::lock_word}; }
inline Line mm_rss_line(unsigned mm_id, unsigned node) { return {MM_BASE + uint64_t{mm_id} * 1024 + 128, static_cast<uint16_t>(node), LineKind::counter}; }

// The CPU of will-it-scale's task `i`: hwloc's core i % cores (sockets in order, the cores of a
// socket in order), whose first SMT thread is vCPU 2k of its node (docs/machine-model.md);
// tasks past the core count take the second threads. cpus_per_node / 2 cores per node.
unsigned wis_cpu(unsigned i, unsigned nodes, unsigned cpus_per_node);

// One task of a page fault test on Exec E.
template <class E>
class PageFaultTask {
 public:
  // sharers: the tasks of the mm (1 in process mode): a TLB flush interrupts the others.
  PageFaultTask(mm::Mm<E>& mm, E& ex, const PageFaultParams& p, const FaultCosts& c, unsigned mm_id, unsigned mm_node,
                unsigned sharers)
      : mm_(mm), ex_(ex), p_(p), c_(c), lock_(mm_lock_line(mm_id, mm_node)), rss_(mm_rss_line(mm_id, mm_node)), sharers_(sharers) {
    data_.reserve(p.pages);
    ptes_.reserve(p.pages / kPtrsPerPte + 1);
    if (p.mapping != PfMapping::anon_private) cache_.assign(p.pages, nullptr);
  }
  PageFaultTask(const PageFaultTask&) = delete;
  PageFaultTask& operator=(const PageFaultTask&) = delete;

  // One of the test's loops: mmap, one write per page, munmap.
  void loop(PageFaultCounts& n) {
    const uint64_t refills = cpu_events(mm_.machine(), ex_.cpu(), mm::PCP_REFILL);
    const uint64_t drains = cpu_events(mm_.machine(), ex_.cpu(), mm::PCP_DRAIN);
    for (uint64_t i = 0; i < p_.pages; ++i) fault(i, n);
    munmap(n);
    n.pcp_refills += cpu_events(mm_.machine(), ex_.cpu(), mm::PCP_REFILL) - refills;
    n.pcp_drains += cpu_events(mm_.machine(), ex_.cpu(), mm::PCP_DRAIN) - drains;
  }

 private:
  mm::Page* alloc(mm::gfp_t gfp, uint64_t& count, PageFaultCounts& n) {
    mm::Page* page = mm_.alloc_pages_node(static_cast<int>(ex_.node()), gfp, 0);
    if (page) count++;
    else n.failures++;
    return page;
  }

  // A write fault at page i (do_user_addr_fault -> handle_mm_fault -> handle_pte_fault).
  void fault(uint64_t i, PageFaultCounts& n) {
    n.faults++;
    touch(ex_, lock_, AccessKind::rmw, Site::do_user_addr_fault);  // mmap_read_trylock
    charge(c_.fault, Site::do_user_addr_fault);
    // __pte_alloc -> pte_alloc_one: GFP_PGTABLE_USER (GFP_KERNEL | __GFP_ZERO, unmovable).
    if (i % kPtrsPerPte == 0) {
      if (mm::Page* pt = alloc(mm::GFP_KERNEL, n.pt_allocs, n)) ptes_.push_back(pt);
      clear(Site::__pte_alloc);
    }
    if (p_.mapping == PfMapping::anon_private) {
      // do_anonymous_page: alloc_zeroed_user_highpage_movable.
      if (mm::Page* page = alloc(mm::GFP_HIGHUSER_MOVABLE, n.data_allocs, n)) data_.push_back(page);
      clear(Site::clear_page);
      charge(c_.lru_memcg, Site::do_user_addr_fault);
    } else {
      if (p_.mapping == PfMapping::file_private) {
        // do_cow_fault: the copy is allocated before the file page is looked up.
        if (mm::Page* page = alloc(mm::GFP_HIGHUSER_MOVABLE, n.data_allocs, n)) data_.push_back(page);
      }
      file_page(i, n);
      if (p_.mapping == PfMapping::file_private) {
        copy();
        charge(c_.lru_memcg, Site::do_user_addr_fault);
      } else {
        charge(c_.mkwrite, Site::filemap_fault);  // do_shared_fault -> fault_dirty_shared_page
      }
    }
    // check_sync_rss_stat: the task's split rss counters go to the mm every 66th fault.
    if (rss_events_++ > kTaskRssEventsThresh) {
      rss_events_ = 0;
      touch(ex_, rss_, AccessKind::rmw, Site::do_user_addr_fault);  // sync_mm_rss
    }
    touch(ex_, lock_, AccessKind::rmw, Site::do_user_addr_fault);  // mmap_read_unlock
  }

  // __do_fault -> filemap_fault / shmem_fault: the page-cache page, allocated (mapping_gfp_mask,
  // GFP_HIGHUSER_MOVABLE) and zeroed the first time the file's hole at i is read.
  void file_page(uint64_t i, PageFaultCounts& n) {
    charge(c_.lookup, Site::filemap_fault);
    if (cache_[i]) return;
    cache_[i] = alloc(mm::GFP_HIGHUSER_MOVABLE, n.cache_allocs, n);
    clear(Site::filemap_fault);
    charge(c_.lru_memcg, Site::filemap_fault);
  }

  // __do_munmap -> unmap_region: zap_pte_range gathers the anonymous pages, tlb_flush_mmu
  // flushes (IPIs to the mm's other CPUs) and release_pages frees each batch through the pcp
  // (free_unref_page_list); free_pgtables then frees the PTE pages.
  void munmap(PageFaultCounts& n) {
    touch(ex_, lock_, AccessKind::rmw, Site::zap_pte_range);  // mmap_write_lock_killable
    for (uint64_t done = 0; done < p_.pages;) {
      const uint64_t end = std::min<uint64_t>(done + kGatherPages, p_.pages);
      for (uint64_t i = done; i < end; ++i) charge(c_.zap, Site::zap_pte_range);
      tlb_flush(n);
      const uint64_t first = std::min<uint64_t>(done, data_.size()), last = std::min<uint64_t>(end, data_.size());
      for (uint64_t i = first; i < last; ++i) mm_.free_unref_folio(data_[i], 0);
      n.frees += last - first;
      done = end;
    }
    data_.clear();
    touch(ex_, rss_, AccessKind::rmw, Site::zap_pte_range);  // add_mm_rss_vec
    tlb_flush(n);  // free_pgtables' flush before the tables go
    for (mm::Page* pt : ptes_) mm_.__free_pages(pt, 0);
    n.frees += ptes_.size();
    ptes_.clear();
    touch(ex_, lock_, AccessKind::rmw, Site::zap_pte_range);  // mmap_write_unlock
  }

  // flush_tlb_mm_range: the other CPUs of the mm get an IPI each and the sender waits.
  void tlb_flush(PageFaultCounts& n) {
    n.tlb_flushes++;
    n.tlb_ipis += sharers_ - 1;
    charge(c_.ipi * (sharers_ - 1), Site::flush_tlb_mm_range);
  }

  void charge(uint32_t cycles, Site site) {
    if constexpr (std::is_same_v<E, VirtualCpu>) {
      if (cycles) ex_.work(cycles, site);
    }
  }
  void clear(Site site) {
    if constexpr (std::is_same_v<E, VirtualCpu>) charge(c_.clear, site);
    else host_done(std::memset(host_page_, 0, sizeof host_page_));
  }
  void copy() {
    if constexpr (std::is_same_v<E, VirtualCpu>) charge(c_.copy, Site::copy_page);
    else host_done(std::memcpy(host_copy_, host_page_, sizeof host_page_));
  }
  static void host_done(void* p) { asm volatile("" : : "r"(p) : "memory"); }  // keeps the store

  mm::Mm<E>& mm_;
  E& ex_;
  const PageFaultParams p_;
  const FaultCosts c_;
  const Line lock_, rss_;
  const unsigned sharers_;
  std::vector<mm::Page*> data_, ptes_, cache_;
  // The native engine's real clear and copy (the modelled pages have no data).
  alignas(4096) char host_page_[4096] = {};
  alignas(4096) char host_copy_[4096] = {};
  uint64_t rss_events_ = 0;  // current->rss_stat.events
};

// The WorkloadInfo of page_fault1, 2 or 3 (sim/workload/page_fault/).
WorkloadInfo page_fault_workload(PfMapping mapping);

}  // namespace pagesim::workload
