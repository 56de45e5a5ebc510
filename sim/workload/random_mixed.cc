#include "pagesim/workload/random_mixed.h"

#include <fmt/format.h>

#include "pagesim/mm/invariants.h"
#include "pagesim/mm/page_alloc.h"
#include "pagesim/rng.h"

namespace pagesim::workload {

namespace {
struct Live {
  mm::Page* page;
  unsigned order;
};

// Orders as a page-allocator mix sees them: mostly order 0, some pcp high orders and THP.
unsigned pick_order(Rng& rng) {
  const uint64_t r = rng.below(100);
  if (r < 50) return 0;
  if (r < 75) return 1 + static_cast<unsigned>(rng.below(3));
  if (r < 88) return mm::pageblock_order;
  return 4 + static_cast<unsigned>(rng.below(7));  // 4..10 (9 included again, rarely)
}

mm::gfp_t pick_gfp(Rng& rng, unsigned order) {
  const uint64_t r = rng.below(10);
  mm::gfp_t gfp = r < 7 ? mm::GFP_HIGHUSER_MOVABLE : r < 9 ? mm::GFP_KERNEL : (mm::GFP_KERNEL | mm::__GFP_RECLAIMABLE);
  if (order > 0 && rng.below(2)) gfp |= mm::__GFP_COMP;
  return gfp;
}
}  // namespace

template <bool Track>
RandomMixedResult run_random_mixed(mm::Machine& m, UniprocessorExec<Track>& ex, const RandomMixedParams& p) {
  RandomMixedResult res;
  Rng rng(p.seed, /*stream=*/0x72616e64);
  Rng fault_rng(p.seed, /*stream=*/0x6661756c);
  mm::Mm<UniprocessorExec<Track>> mm(m, ex);
  const uint64_t cap = p.max_live_pages ? p.max_live_pages : m.spec().total_pages() / 2;
  std::vector<Live> live;
  uint64_t live_pages = 0;
  auto check = [&](uint64_t op) {
    const mm::InvariantReport r = mm::check_invariants(m);
    res.invariant_checks++;
    for (const std::string& v : r.violations)
      if (res.violations.size() < 32) res.violations.push_back(fmt::format("after op {}: {}", op, v));
  };
  for (uint64_t op = 1; op <= p.ops; ++op) {
    ex.set_cpu(static_cast<unsigned>(rng.below(m.nr_cpus())));
    const bool do_free = !live.empty() && (live_pages >= cap || rng.chance(p.free_fraction));
    if (do_free) {
      const size_t i = rng.below(live.size());
      const Live l = live[i];
      live[i] = live.back();
      live.pop_back();
      live_pages -= uint64_t{1} << l.order;
      mm.__free_pages(l.page, l.order);
      res.frees++;
    } else {
      const unsigned order = pick_order(rng);
      if (live_pages + (uint64_t{1} << order) <= cap) {
        mm::Page* page = mm.alloc_pages_node(static_cast<int>(ex.node()), pick_gfp(rng, order), order);
        if (page) {
          live.push_back({page, order});
          live_pages += uint64_t{1} << order;
          res.allocs++;
        } else {
          res.alloc_failures++;
        }
      }
    }
    if (p.fault_rate > 0 && fault_rng.chance(p.fault_rate)) {
      mm::FaultSpec spec = p.fault;
      spec.where = fault_rng.chance(p.fault_on_pcp) ? mm::FaultWhere::pcp : mm::FaultWhere::buddy;
      if (mm::inject_fault(m, spec, fault_rng)) res.faults_injected++;
    }
    if (p.check_every && op % p.check_every == 0) check(op);
  }
  if (p.drain_at_end) {
    for (const Live& l : live) mm.__free_pages(l.page, l.order);
    res.frees += live.size();
    for (unsigned cpu = 0; cpu < m.nr_cpus(); ++cpu) {
      ex.set_cpu(cpu);
      mm.drain_local_pages();
    }
  }
  check(p.ops);
  return res;
}

template RandomMixedResult run_random_mixed<false>(mm::Machine&, UniprocessorExec<false>&, const RandomMixedParams&);
template RandomMixedResult run_random_mixed<true>(mm::Machine&, UniprocessorExec<true>&, const RandomMixedParams&);

}  // namespace pagesim::workload
