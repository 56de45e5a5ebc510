// pcp_churn and thp_alloc: per-CPU loops over the pcp fast paths.
//
// pcp_churn is seed 003's loop (mmap 128M, touch 2048 pages, munmap) as the allocator sees it:
// `pages` order-0 movable allocations (one per first touch), then their release at munmap.
// thp_alloc allocates and frees `batch` order-9 THP blocks per iteration: pcp list 13, refills
// of 2 blocks through rmqueue_bulk, and (when pcp->high < 512) a flush on every free.
#pragma once

#include <cstdint>
#include <vector>

#include "pagesim/mm/page_alloc.h"

namespace pagesim::workload {

struct ChurnParams {
  uint64_t iterations = 100;
  uint32_t pages = 2048;  // blocks per iteration
  unsigned order = 0;
  mm::gfp_t gfp = mm::GFP_HIGHUSER_MOVABLE;
};

struct ChurnCounts {
  uint64_t allocs = 0, failures = 0;
};

// One iteration: allocate `pages` blocks on this CPU's node, then free them in order.
template <class E>
void churn_iteration(mm::Mm<E>& mm, E& ex, const ChurnParams& p, std::vector<mm::Page*>& scratch, ChurnCounts& c) {
  scratch.clear();
  for (uint32_t i = 0; i < p.pages; ++i) {
    if (mm::Page* page = mm.alloc_pages_node(static_cast<int>(ex.node()), p.gfp, p.order)) {
      scratch.push_back(page);
      c.allocs++;
    } else {
      c.failures++;
    }
  }
  for (mm::Page* page : scratch) mm.__free_pages(page, p.order);
}

inline ChurnParams pcp_churn_params(uint64_t iterations, uint32_t pages) {
  return ChurnParams{iterations, pages, 0, mm::GFP_HIGHUSER_MOVABLE};
}
inline ChurnParams thp_alloc_params(uint64_t iterations, uint32_t batch) {
  return ChurnParams{iterations, batch, mm::pageblock_order, mm::GFP_TRANSHUGE};
}

}  // namespace pagesim::workload
