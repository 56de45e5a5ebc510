// The cross-engine contract's workload: a fixed mix of allocations and frees of every pcp
// order and some buddy-path orders on CPU 0, and the allocator state it leaves.
#pragma once

#include <tuple>
#include <utility>
#include <vector>

#include "pagesim/mm/machine.h"
#include "pagesim/mm/page_alloc.h"
#include "pagesim/rng.h"

namespace pagesim::test {

// A fixed mix of allocations and frees of every pcp order and some buddy-path orders.
template <class E>
std::vector<mm::pfn_t> drive(mm::Machine& m, E& ex) {
  mm::Mm<E> mm(m, ex);
  Rng rng(99);
  std::vector<std::pair<mm::Page*, unsigned>> live;
  std::vector<mm::pfn_t> pfns;
  for (int i = 0; i < 3000; ++i) {
    if (!live.empty() && rng.below(2)) {
      const size_t k = rng.below(live.size());
      mm.__free_pages(live[k].first, live[k].second);
      live[k] = live.back();
      live.pop_back();
    } else {
      const unsigned order = static_cast<unsigned>(rng.below(11));
      if (mm::Page* p = mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE | mm::__GFP_COMP, order)) {
        live.push_back({p, order});
        pfns.push_back(m.page_to_pfn(p));
      }
    }
  }
  for (auto [p, o] : live) mm.__free_pages(p, o);
  mm.drain_local_pages();
  return pfns;
}

struct EngineState {
  std::vector<mm::pfn_t> pfns;
  std::vector<unsigned long> nr_free;
  std::vector<uint64_t> events;
  std::vector<std::tuple<uint64_t, Site, AccessKind>> stream;
  uint64_t zone_lock_acquisitions = 0;
};

EngineState collect(const mm::Machine& m, std::vector<mm::pfn_t> pfns) {
  EngineState s;
  s.pfns = std::move(pfns);
  for (const mm::Zone* z : m.populated_zones()) {
    for (unsigned o = 0; o < mm::MAX_ORDER; ++o) s.nr_free.push_back(z->free_area[o].nr_free);
    for (unsigned e = 0; e < mm::NR_VM_EVENT_ITEMS; ++e) s.events.push_back(z->cpu[0].events[e]);
  }
  return s;
}

}  // namespace pagesim::test
