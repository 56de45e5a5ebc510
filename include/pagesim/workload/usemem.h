// usemem, as vm-scalability's case-anon-w-rand-hugetlb runs it (usemem -n N -O -U --random SIZE):
// each task mmaps SIZE of MAP_HUGETLB memory (the reservation: gather_surplus_pages and its
// order-9 allocations), faults every 2 MiB page (dequeue from the pool, local node first, then
// clear_huge_page), does SIZE/8 random 8-byte stores, and munmaps (surplus pages back to buddy).
//
// The data region is real host memory: SIZE / data_scale bytes per task. Clearing and the
// store loop run on it; the scale is reported with the results. A task reports LKP's line
// "<bytes> bytes / <usecs> usecs = <KB/s> KB/s" figures and its munmap time.
#pragma once

#include <sys/mman.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <vector>

#include "pagesim/error.h"
#include "pagesim/huge_region.h"
#include "pagesim/mm/hugetlb.h"
#include "pagesim/result/run_result.h"
#include "pagesim/rng.h"
#include "pagesim/vt/clear_pages.h"
#include "pagesim/workload/usemem_result.h"

namespace pagesim::workload {

struct UsememParams {
  uint64_t size = 0;        // per-task SIZE in bytes (a multiple of 2 MiB after rounding up)
  uint64_t data_scale = 1;  // host data region = size / data_scale
  mm::MemPolicy policy;     // the task's mempolicy at fault time
  bool surplus_policy = false;  // also apply the policy to the reservation's buddy allocations
  vt::ClearMode clear_mode = vt::ClearMode::per_subpage;  // clear_huge_page: v5.17's, or multi-page
  uint64_t seed = 1;
};

struct UsememTaskResult {
  bool failed = false;        // mmap returned ENOMEM, or a fault found no page (SIGBUS)
  uint64_t unit_bytes = 0;    // usemem's "bytes": SIZE/8 + 8 per store (over the scaled region)
  uint64_t usecs = 0;         // from the start barrier to the end of the store loop
  uint64_t free_usecs = 0;    // munmap
  double kbps = 0;            // ((unit_bytes * 10^6) >> 10) / usecs
  uint64_t stores = 0;
  uint64_t pages = 0;
  uint64_t remote_pages = 0;  // faulted pages on another node than the task's CPU
  unsigned reserve_node = 0;  // the CPU's node at mmap (where gather_surplus_pages allocated)
  unsigned fault_node = 0;    // the CPU's node at the first fault
  std::vector<uint64_t> fault_node_pages;  // pages per node
  // The share of the stores that went to another node than the CPU's, when the engine knows
  // where the task ran during the loop (virtual); < 0: use remote_pages / pages.
  double remote_store_share = -1;
  std::vector<uint64_t> store_node_ps;  // virtual: store-loop time spent on each node
  uint64_t sys_ns = 0, user_ns = 0;
  uint64_t reserve_ns = 0, fault_ns = 0;  // virtual: mmap (the reservation) and the fault loop
  TaskPlacement::Iteration::Start start;  // virtual: the first steps, for the timeline
};

// The per-task data region (real memory, THP-advised).
class DataRegion {
 public:
  explicit DataRegion(uint64_t bytes);
  uint64_t* words() { return reinterpret_cast<uint64_t*>(region_.data()); }
  uint64_t bytes() const { return region_.bytes(); }

 private:
  HugeRegion region_;
};

// Host monotonic time in ns (usemem's gettimeofday).
uint64_t now_ns();

template <class E>
class UsememTask {
 public:
  UsememTask(mm::Hugetlb<E>& hugetlb, E& ex, const UsememParams& p, DataRegion& data)
      : h_(hugetlb), ex_(ex), p_(p), data_(data),
        npages_((p.size + mm::pages_per_huge_page * mm::PAGE_SIZE - 1) / (mm::pages_per_huge_page * mm::PAGE_SIZE)) {
    r_.fault_node_pages.assign(h_.machine().nr_nodes(), 0);
  }

  uint64_t npages() const { return npages_; }  // 2 MiB pages of the mapping

  // mmap(MAP_HUGETLB): hugetlb_reserve_pages -> hugetlb_acct_memory(+npages).
  bool mmap() {
    r_.reserve_node = ex_.node();
    ex_.sys_enter();
    const int rc = h_.hugetlb_acct_memory(static_cast<long>(npages_));
    ex_.sys_exit();
    if (rc) r_.failed = true;
    mapped_ = !rc;
    return !rc;
  }

  // First touch of every 2 MiB page: hugetlb_fault -> alloc_huge_page, clear_huge_page.
  // `faulted` (may be empty) hears the count after each fault.
  void fault_all(const std::function<void(uint64_t faulted)>& faulted = {}) {
    if (r_.failed) return;
    const uint64_t chunk = data_.bytes() / npages_;
    pages_.reserve(npages_);
    r_.fault_node = ex_.node();
    for (uint64_t i = 0; i < npages_; ++i) {
      ex_.sys_enter();
      mm::Page* page = h_.alloc_huge_page(p_.policy, i);
      if (!page) {
        ex_.sys_exit();
        r_.failed = true;  // SIGBUS: the reservation was not honoured
        return;
      }
      // clear_huge_page: an engine that models the clearing (the virtual-time engine) charges
      // it; the others clear real memory, the page's share of the scaled region, in the mode.
      if constexpr (requires { ex_.clear_huge_page(0u, p_.clear_mode); })
        ex_.clear_huge_page(mm::page_to_nid(page), p_.clear_mode);
      else
        vt::clear_extent(reinterpret_cast<char*>(data_.words()) + i * chunk, chunk, chunk, p_.clear_mode);
      h_.hugepage_add_new_anon_rmap(page);
      ex_.sys_exit();
      ex_.cond_resched(Site::clear_huge_page);  // clear_huge_page's cond_resched per subpage
      pages_.push_back(page);
      const unsigned nid = mm::page_to_nid(page);
      r_.fault_node_pages[nid]++;
      if (nid != ex_.node()) r_.remote_pages++;
      if (faulted) faulted(i + 1);
    }
    r_.pages = npages_;
  }

  // do_rw_once in random mode: m = bytes/8 words, m stores to uniform indices in [0, m-2].
  void store_loop() {
    if (r_.failed) return;
    const uint64_t m = data_.bytes() / 8;
    uint64_t* w = data_.words();
    Rng rng(p_.seed, 0x7573656d00000000ull + ex_.task());
    const uint64_t t0 = now_ns();
    for (uint64_t i = 0; i < m; ++i) {
      const uint64_t idx = m > 1 ? rng.below(m - 1) : 0;
      reinterpret_cast<volatile uint64_t*>(w)[idx] = idx;
    }
    r_.user_ns += ns_since(t0);
    r_.stores = m;
    r_.unit_bytes = data_.bytes() / 8 + 8 * m;
  }

  // munmap: unmap and put every page (free_huge_page sends surplus pages to buddy), then
  // release what is left of the reservation.
  void munmap() {
    ex_.sys_enter();
    for (mm::Page* page : pages_) h_.unmap_and_put(page);
    // hugetlb_vm_op_close: give back the reservation the faults did not consume.
    if (mapped_) h_.hugetlb_acct_memory(-static_cast<long>(npages_ - pages_.size()));
    mapped_ = false;
    ex_.sys_exit();
    pages_.clear();
  }

  UsememTaskResult& result() { return r_; }

 private:
  static uint64_t ns_since(uint64_t t0) { return now_ns() - t0; }

  mm::Hugetlb<E>& h_;
  E& ex_;
  const UsememParams& p_;
  DataRegion& data_;
  uint64_t npages_;
  std::vector<mm::Page*> pages_;
  bool mapped_ = false;  // mmap succeeded: the reservation is ours to give back
  UsememTaskResult r_;
};

// LKP's parse of one iteration's task lines: throughput = sum of KB/s, median = the upper
// median, free_time = mean munmap seconds.
struct LkpSample {
  double throughput = 0, median = 0, free_time = 0;
  uint64_t tasks_failed = 0;
};
LkpSample lkp_parse(const std::vector<UsememTaskResult>& tasks);

}  // namespace pagesim::workload
