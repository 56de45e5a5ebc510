// The invariant checker. Every condition names the kernel rule it stands for.
#include "pagesim/mm/invariants.h"

#include "pagesim/mm/hugetlb.h"

#include <fmt/format.h>

#include <absl/container/flat_hash_set.h>

namespace pagesim::mm {

ZoneCensus zone_census(const Zone& z) {
  ZoneCensus c;
  c.node = z.node;
  c.zone = z.idx;
  c.managed_pages = z.managed_pages;
  c.nr_free_pages = z.zone_page_state(NR_FREE_PAGES);
  for (unsigned cpu = 0; cpu < z.nr_cpus; ++cpu) {
    const ZoneCpu& zc = z.cpu[cpu];
    c.nr_free_pages += zc.vm_stat_diff[NR_FREE_PAGES];
    c.pcp_pages += static_cast<uint64_t>(zc.pcp.count);
    c.allocated_pages += zc.acct.allocated;
    c.leaked_pages += zc.acct.leaked;
    c.leaked_unaccounted += zc.acct.leaked_unaccounted;
  }
  c.free_list_pages += z.free_area_pages();
  c.deferred_pages = z.deferred_pages;
  return c;
}

namespace {

class Checker {
 public:
  explicit Checker(const Machine& m) : m_(m) {}

  template <class... A>
  void expect(bool cond, InvariantReport& r, fmt::string_view f, const A&... a) {
    r.checks++;
    if (!cond && r.violations.size() < 64) r.violations.push_back(fmt::vformat(f, fmt::make_format_args(a...)));
  }

  void check_zone(const Zone& z, InvariantReport& r) {
    const std::string zn = fmt::format("node {} zone {}", z.node, z.name());
    const ZoneCensus c = zone_census(z);
    // Free lists: nr_free = list lengths; every block a buddy head of its order, aligned, in
    // the zone, on one list only.
    for (unsigned o = 0; o < MAX_ORDER; ++o) {
      const FreeArea& area = z.free_area[o];
      uint64_t blocks = 0;
      for (unsigned mt = 0; mt < MIGRATE_TYPES; ++mt) {
        uint64_t on_list = 0;
        for (const Page& p : area.free_list[mt]) {
          const pfn_t pfn = m_.page_to_pfn(&p);
          on_list++;
          expect(PageBuddy(&p), r, "{}: pfn {:#x} on free_area[{}] is not PageBuddy", zn, pfn, o);
          expect(buddy_order(&p) == o, r, "{}: pfn {:#x} on free_area[{}] has order {}", zn, pfn, o, buddy_order(&p));
          expect((pfn & ((pfn_t{1} << o) - 1)) == 0, r, "{}: pfn {:#x} misaligned for order {}", zn, pfn, o);
          expect(z.zone_spans_pfn(pfn) && z.zone_spans_pfn(pfn + (pfn_t{1} << o) - 1), r,
                 "{}: free block pfn {:#x} order {} outside the zone", zn, pfn, o);
          expect(seen_.insert(&p).second, r, "{}: pfn {:#x} is on two lists", zn, pfn);
          // No two free buddies of one order left unmerged below the merge limit (order 10).
          if (o < MAX_ORDER - 1) {
            const Page* buddy = m_.pfn_to_page(pfn ^ (pfn_t{1} << o));
            expect(!(PageBuddy(buddy) && buddy_order(buddy) == o), r,
                   "{}: free buddies pfn {:#x} and {:#x} of order {} are not merged", zn, pfn, pfn ^ (pfn_t{1} << o), o);
          }
        }
        if (o == MAX_ORDER - 1 && mt == MIGRATE_MOVABLE && area.nr_unpopulated) {
          on_list += area.nr_unpopulated;
          check_unpopulated(z, area.nr_unpopulated, zn, r);
        }
        expect(on_list == area.nr_blocks[mt], r, "{}: free_area[{}] list {} holds {} blocks, count says {}", zn, o,
               migratetype_name(mt), on_list, area.nr_blocks[mt]);
        blocks += on_list;
      }
      expect(blocks == area.nr_free, r, "{}: free_area[{}].nr_free = {} but the lists hold {}", zn, o, area.nr_free, blocks);
    }
    // pcp: count = pages on its lists; pages are not buddies and sit on one list.
    for (unsigned cpu = 0; cpu < z.nr_cpus; ++cpu) {
      const PerCpuPages& pcp = z.pcp(cpu);
      uint64_t pages = 0;
      for (unsigned pindex = 0; pindex < NR_PCP_LISTS; ++pindex) {
        const unsigned order = m_.config().high_order_pcp ? (pindex / MIGRATE_PCPTYPES > PAGE_ALLOC_COSTLY_ORDER ? pageblock_order : pindex / MIGRATE_PCPTYPES) : 0;
        for (const Page& p : pcp.lists[pindex]) {
          pages += uint64_t{1} << order;
          expect(!PageBuddy(&p), r, "{}: pcp page pfn {:#x} (cpu {}) is marked buddy", zn, m_.page_to_pfn(&p), cpu);
          expect(seen_.insert(&p).second, r, "{}: pfn {:#x} is on two lists", zn, m_.page_to_pfn(&p));
        }
      }
      expect(pages == static_cast<uint64_t>(pcp.count), r, "{}: cpu {} pcp->count = {} but its lists hold {} pages",
             zn, cpu, pcp.count, pages);
    }
    // Accounting.
    const long accounted = static_cast<long>(c.free_list_pages + c.deferred_pages + c.pcp_pages) + c.allocated_pages + c.leaked_pages;
    expect(accounted == static_cast<long>(c.managed_pages), r,
           "{}: managed {} != free {} + deferred {} + pcp {} + allocated {} + leaked {}", zn, c.managed_pages,
           c.free_list_pages, c.deferred_pages, c.pcp_pages, c.allocated_pages, c.leaked_pages);
    const long drift = c.nr_free_pages - static_cast<long>(c.free_list_pages + c.deferred_pages);
    expect(drift == c.leaked_unaccounted, r,
           "{}: NR_FREE_PAGES {} - free-list pages {} - deferred {} = drift {}, but only {} leaked pages may be unaccounted",
           zn, c.nr_free_pages, c.free_list_pages, c.deferred_pages, drift, c.leaked_unaccounted);
    expect(c.leaked_unaccounted == 0 || m_.config().leak_accounting == LeakAccounting::v5_17_bug, r,
           "{}: {} leaked pages unaccounted with leak accounting fixed", zn, c.leaked_unaccounted);
  }

 private:
  // The unlinked tail of MAX_ORDER-1 MOVABLE (FreeArea::nr_unpopulated): whole sections just
  // below first_deferred_pfn, inside the zone, whose struct pages nothing has initialised.
  void check_unpopulated(const Zone& z, uint64_t blocks, const std::string& zn, InvariantReport& r) {
    const uint64_t pages = blocks << (MAX_ORDER - 1);
    const pfn_t start = z.first_deferred_pfn - std::min<pfn_t>(pages, z.first_deferred_pfn);
    expect(pages % PAGES_PER_SECTION == 0 && start % PAGES_PER_SECTION == 0 && start >= z.zone_start_pfn &&
               z.first_deferred_pfn <= z.free_end_pfn(),
           r, "{}: {} unpopulated blocks below pfn {:#x} are not whole sections of the zone", zn, blocks,
           z.first_deferred_pfn);
    for (pfn_t pfn = start; pfn < z.first_deferred_pfn; pfn += PAGES_PER_SECTION)
      expect(!m_.memmap().section_initialised(pfn / PAGES_PER_SECTION), r,
             "{}: unpopulated free block pfn {:#x} has initialised struct pages", zn, pfn);
  }

  const Machine& m_;
  absl::flat_hash_set<const Page*> seen_;  // membership only; never iterated
};

}  // namespace

InvariantReport check_invariants(const Machine& m) {
  InvariantReport r;
  Checker ck(m);
  for (const Zone* z : m.populated_zones()) ck.check_zone(*z, r);
  long global = 0, zones = 0;
  for (const Zone* z : m.populated_zones()) zones += z->zone_page_state(NR_FREE_PAGES);
  global = m.vm_zone_stat[NR_FREE_PAGES].load();
  ck.expect(global == zones, r, "vm_zone_stat[NR_FREE_PAGES] {} != sum of zone counters {}", global, zones);
  check_hugetlb_invariants(m, r.violations, r.checks);
  return r;
}

}  // namespace pagesim::mm
