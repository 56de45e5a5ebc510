// The negative control (docs/model.md, "Variants"): with high-order pcp lists, order-9 allocations never take the
// buddy path, so Eric's patch changes nothing for an order-9 workload: same state, counters and
// access stream as v5.17.
#include <vector>

#include "pagesim/report/procfs.h"
#include "test_util.h"

namespace pagesim::test {
namespace {

struct Outcome {
  std::vector<AccessRecord> stream;
  std::vector<uint64_t> events;
  std::vector<unsigned long> nr_free;
  std::vector<mm::pfn_t> pfns;
};

Outcome run_thp_workload(const std::string& p) {
  auto m = machine(2, 2, 512ull << 20, preset(p));
  UniprocessorExec<true> ex(*m);
  ex.record_stream(true);
  mm::Mm<UniprocessorExec<true>> mm(*m, ex);
  Rng rng(42);
  Outcome out;
  std::vector<mm::Page*> live;
  for (int i = 0; i < 2000; ++i) {
    ex.set_cpu(static_cast<unsigned>(rng.below(m->nr_cpus())));
    if (!live.empty() && (live.size() > 300 || rng.below(2))) {
      const size_t k = rng.below(live.size());
      mm.__free_pages(live[k], 9);
      live[k] = live.back();
      live.pop_back();
    } else if (mm::Page* pg = mm.alloc_pages_node(static_cast<int>(ex.node()), kThp, 9)) {
      live.push_back(pg);
      out.pfns.push_back(m->page_to_pfn(pg));
    }
  }
  out.stream = ex.stream();
  for (unsigned e = 0; e < mm::NR_VM_EVENT_ITEMS; ++e) out.events.push_back(events(*m, static_cast<mm::vm_event_item>(e)));
  for (const mm::Zone* z : m->populated_zones())
    for (unsigned o = 0; o < mm::MAX_ORDER; ++o) out.nr_free.push_back(z->free_area[o].nr_free);
  EXPECT_EQ(events(*m, mm::BUDDY_ALLOC), 0u) << p << ": an order-9 allocation took the buddy path";
  expect_invariants(*m);
  return out;
}

TEST(NegativeControl, EricEqualsV517ForOrderNine) {
  const Outcome base = run_thp_workload("v5.17");
  const Outcome eric = run_thp_workload("v5.17+eric");
  ASSERT_GT(base.stream.size(), 100000u);
  EXPECT_EQ(base.pfns, eric.pfns);
  EXPECT_EQ(base.events, eric.events);
  EXPECT_EQ(base.nr_free, eric.nr_free);
  EXPECT_TRUE(base.stream == eric.stream) << "access streams differ";
}

TEST(NegativeControl, MelDiffersForOrderNine) {
  const Outcome base = run_thp_workload("v5.17");
  const Outcome mel = run_thp_workload("v5.17+mel");
  EXPECT_EQ(base.pfns, mel.pfns) << "no corruption: same placement";
  EXPECT_GT(mel.stream.size(), base.stream.size()) << "the subpage walk adds struct-page reads";
}

}  // namespace
}  // namespace pagesim::test
