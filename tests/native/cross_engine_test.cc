// The cross-engine contract at one CPU: the uniprocessor and native engines run the same model
// code, so the same operations give the same allocator state, counters and access stream.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "pagesim/exec/native.h"
#include "pagesim/exec/uniprocessor.h"
#include "pagesim/mm/config.h"
#include "pagesim/mm/page_alloc.h"
#include "pagesim/rng.h"

namespace pagesim {
namespace {

using Access = std::tuple<uint64_t, Site, AccessKind>;

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

struct State {
  std::vector<mm::pfn_t> pfns;
  std::vector<unsigned long> nr_free;
  std::vector<uint64_t> events;
  std::vector<Access> stream;
  uint64_t zone_lock_acquisitions = 0;
};

State collect(const mm::Machine& m, std::vector<mm::pfn_t> pfns) {
  State s;
  s.pfns = std::move(pfns);
  for (const mm::Zone* z : m.populated_zones()) {
    for (unsigned o = 0; o < mm::MAX_ORDER; ++o) s.nr_free.push_back(z->free_area[o].nr_free);
    for (unsigned e = 0; e < mm::NR_VM_EVENT_ITEMS; ++e) s.events.push_back(z->cpu[0].events[e]);
  }
  return s;
}

TEST(CrossEngine, OneCpuGivesTheSameStateCountersAndAccessStream) {
  const mm::KernelConfig cfg = *mm::preset_config("v5.17+mel");
  const mm::MachineSpec spec = mm::MachineSpec::uniform(1, 1, 256ull << 20);

  mm::Machine mu(spec, cfg, mm::HostMemory{});
  UniprocessorExec<true> ue(mu);
  ue.record_stream(true);
  State a = collect(mu, drive(mu, ue));
  for (const AccessRecord& r : ue.stream()) a.stream.emplace_back(r.line, r.site, r.kind);
  a.zone_lock_acquisitions = ue.lock_counters(LockClass::zone_lock).acquisitions;

  mm::Machine mn(spec, cfg, mm::HostMemory{});
  NativeEngine eng(mn, NativeOptions{});
  NativeCpu<true> ne(eng, 0);
  std::vector<mm::pfn_t> pfns;
  eng.run([&](unsigned) { pfns = drive(mn, ne); });
  State b = collect(mn, std::move(pfns));
  for (const LoggedAccess& r : ne.log())
    for (uint32_t i = 0; i < r.n; ++i) b.stream.emplace_back((r.addr + uint64_t{i} * r.stride) >> 6, r.site, r.kind);
  for (const LockStatCpu& l : ne.lock_stats()) b.zone_lock_acquisitions += l.acquisitions;

  ASSERT_GT(a.stream.size(), 100000u);
  EXPECT_EQ(a.pfns, b.pfns);
  EXPECT_EQ(a.nr_free, b.nr_free);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.zone_lock_acquisitions, b.zone_lock_acquisitions);
  EXPECT_EQ(a.stream.size(), b.stream.size());
  EXPECT_TRUE(a.stream == b.stream) << "access streams differ";
}

}  // namespace
}  // namespace pagesim
