// hstate lines, memory policies and the pool invariants.
#include <fmt/format.h>

#include "pagesim/mm/hugetlb.h"

namespace pagesim::mm {

Hstate::Hstate() {
  hugetlb_lock.id = kHugetlbLockId;
  hugetlb_lock.cls = LockClass::hugetlb_lock;
  hugetlb_lock.line = Line{GLOBAL_BASE + 0x10000, 0, LineKind::lock_word};
}

Line hstate_counter_line(unsigned nid) {
  // struct hstate: global counters on one line, the per-node arrays after it (8 nodes a line).
  const uint64_t off = nid >= MAX_NUMNODES ? 0 : 64 + (nid / 8) * 64;
  return Line{GLOBAL_BASE + 0x11000 + off, 0, LineKind::counter};
}

Line hstate_freelist_line(unsigned nid) { return Line{GLOBAL_BASE + 0x12000 + nid * 16, 0, LineKind::list_head}; }

unsigned MemPolicy::preferred_node(unsigned cpu_node, uint64_t ilx) const {
  auto nth = [&](uint64_t k) {
    unsigned count = 0;
    for (unsigned n = 0; n < MAX_NUMNODES; ++n) count += nodes.test(n);
    k %= count ? count : 1;
    for (unsigned n = 0; n < MAX_NUMNODES; ++n)
      if (nodes.test(n) && k-- == 0) return n;
    return cpu_node;
  };
  switch (mode) {
    case MpolMode::local: return cpu_node;
    case MpolMode::bind: return nodes.test(cpu_node) ? cpu_node : nth(0);
    case MpolMode::preferred: return nth(0);
    case MpolMode::interleave: return nth(ilx);
  }
  return cpu_node;
}

void check_hugetlb_invariants(const Machine& m, std::vector<std::string>& v, uint64_t& checks) {
  const Hstate& h = m.hstate();
  auto expect = [&](bool ok, std::string msg) {
    checks++;
    if (!ok && v.size() < 64) v.push_back(std::move(msg));
  };
  unsigned long nr = 0, free = 0, surplus = 0, listed = 0;
  for (unsigned n = 0; n < m.nr_nodes(); ++n) {
    unsigned long on_list = 0;
    for (const Page& p : h.hugepage_freelists[n]) {
      on_list++;
      expect(page_to_nid(&p) == n, fmt::format("hugetlb: free page pfn {:#x} on node {}'s list", m.page_to_pfn(&p), n));
      expect(page_ref_count(&p) == 0, fmt::format("hugetlb: free page pfn {:#x} has refcount {}", m.page_to_pfn(&p), page_ref_count(&p)));
      expect(PageHead(&p), fmt::format("hugetlb: free page pfn {:#x} is not a compound head", m.page_to_pfn(&p)));
    }
    expect(on_list == h.free_huge_pages_node[n],
           fmt::format("hugetlb: node {} free list holds {} pages, free_huge_pages_node says {}", n, on_list, h.free_huge_pages_node[n]));
    nr += h.nr_huge_pages_node[n];
    free += h.free_huge_pages_node[n];
    surplus += h.surplus_huge_pages_node[n];
    listed += on_list;
  }
  unsigned long active = 0;
  for (auto it = h.hugepage_activelist.begin(); it != h.hugepage_activelist.end(); ++it) active++;
  expect(nr == h.nr_huge_pages, fmt::format("hugetlb: nr_huge_pages {} != per-node sum {}", h.nr_huge_pages, nr));
  expect(free == h.free_huge_pages, fmt::format("hugetlb: free_huge_pages {} != per-node sum {}", h.free_huge_pages, free));
  expect(surplus == h.surplus_huge_pages, fmt::format("hugetlb: surplus_huge_pages {} != per-node sum {}", h.surplus_huge_pages, surplus));
  expect(listed + active == h.nr_huge_pages,
         fmt::format("hugetlb: {} free + {} active pages on lists, nr_huge_pages {}", listed, active, h.nr_huge_pages));
  expect(h.resv_huge_pages <= h.free_huge_pages,
         fmt::format("hugetlb: resv_huge_pages {} exceeds free_huge_pages {}", h.resv_huge_pages, h.free_huge_pages));
  expect(h.surplus_huge_pages <= h.nr_huge_pages, "hugetlb: more surplus pages than pages");
  expect(h.surplus_huge_pages <= h.nr_overcommit_huge_pages,
         fmt::format("hugetlb: surplus {} above nr_overcommit_hugepages {}", h.surplus_huge_pages, h.nr_overcommit_huge_pages));
}

}  // namespace pagesim::mm
