// NR_FREE_PAGES accounting of leaked bad pages, per preset and per path (docs/model.md, "Variants" and "Accounting and invariants").
// Under v5.17 a bad block leaked on the buddy path stays counted as free (the drift equals the
// leaked pages); every other preset/path combination leaves no drift.
#include "pagesim/mm/fault_inject.h"
#include "test_util.h"
#include "common/preset_name.h"

namespace pagesim::test {
namespace {

long drift(const mm::Machine& m) {
  const mm::ZoneCensus c = mm::zone_census(m.node(0).zones[mm::ZONE_NORMAL]);
  return c.nr_free_pages - static_cast<long>(c.free_list_pages + c.deferred_pages);
}

class LeakAccounting : public ::testing::TestWithParam<std::string> {
 protected:
  // One node, one CPU, 1 GiB: batch 63; the free lists start as ascending order-10 blocks, so
  // the first blocks allocated are predictable (pfn 0 upwards).
  std::unique_ptr<mm::Machine> make(bool debug_vm = false) {
    mm::KernelConfig cfg = preset(GetParam());
    cfg.debug_vm = debug_vm;
    return machine(1, 1, 1ull << 30, cfg);
  }
};

// A kernel that checks pages only when check_pages_enabled (6.x) runs with DEBUG_VM here.
TEST_P(LeakAccounting, BuddyPath) {
  auto m = make(preset(GetParam()).behaviour.checks_only_when_enabled);
  Cpu cpu(*m);
  mm::corrupt_page(m->pfn_to_page(5), mm::FaultField::refcount);  // inside the first order-4 block
  mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 4);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(m->page_to_pfn(p), 16u) << "the bad block 0-15 is leaked, its buddy is returned";
  EXPECT_EQ(events(*m, mm::BAD_PAGE), 1u);
  EXPECT_EQ(events(*m, mm::LEAKED_PAGES), 16u);
  const bool bug = GetParam() == "v5.17" || GetParam() == "v5.17+mel";
  EXPECT_EQ(drift(*m), bug ? 16 : 0) << "drift = leaked blocks x 2^order only under the v5.17 accounting";
  expect_invariants(*m);
  cpu.mm.__free_pages(p, 4);
  expect_invariants(*m);
}

// 5.x checks the refill; with checks_only_when_enabled there is no refill check, even with
// DEBUG_VM, and the bad page waits on the pcp list for the allocation that takes it.
TEST_P(LeakAccounting, PcpRefill) {
  const bool refill_checked = !preset(GetParam()).behaviour.checks_only_when_enabled;
  auto m = make(!refill_checked);
  Cpu cpu(*m);
  mm::corrupt_page(m->pfn_to_page(5), mm::FaultField::flags);  // pulled by the 63-page refill
  mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(events(*m, mm::PCP_REFILL_BLOCKS), 63u);
  EXPECT_EQ(normal(*m).pcp(0).count, refill_checked ? 61 : 62) << "63 taken, 1 leaked (5.x), 1 returned";
  EXPECT_EQ(events(*m, mm::LEAKED_PAGES), refill_checked ? 1u : 0u);
  EXPECT_EQ(drift(*m), 0) << "rmqueue_bulk subtracts i << order, leaks included";
  expect_invariants(*m);
}

TEST_P(LeakAccounting, PcpAllocation) {
  auto m = make(/*debug_vm=*/true);  // DEBUG_VM: the check runs in __rmqueue_pcplist
  Cpu cpu(*m);
  mm::Page* first = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0);
  ASSERT_EQ(m->page_to_pfn(first), 0u);
  mm::corrupt_page(m->pfn_to_page(3), mm::FaultField::mapping);  // now on the pcp list
  std::vector<mm::pfn_t> got;
  for (int i = 0; i < 3; ++i) got.push_back(m->page_to_pfn(cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0)));
  EXPECT_EQ(got, (std::vector<mm::pfn_t>{1, 2, 4}));
  EXPECT_EQ(events(*m, mm::LEAKED_PAGES), 1u);
  EXPECT_EQ(drift(*m), 0);
  expect_invariants(*m);
}

TEST_P(LeakAccounting, ManagedPagesAreAlwaysAccountedFor) {
  auto m = make();
  Cpu cpu(*m);
  Rng rng(7);
  std::vector<std::pair<mm::Page*, unsigned>> live;
  for (int i = 0; i < 3000; ++i) {
    if (i % 50 == 0) {
      mm::FaultSpec f;
      f.subpage = -1;
      f.field = static_cast<mm::FaultField>(rng.below(5));
      mm::inject_fault(*m, f, rng);
    }
    if (!live.empty() && rng.below(2)) {
      auto [p, o] = live.back();
      live.pop_back();
      cpu.mm.__free_pages(p, o);
    } else {
      const unsigned order = static_cast<unsigned>(rng.below(11));
      if (mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE | mm::__GFP_COMP, order)) live.push_back({p, order});
    }
  }
  expect_invariants(*m);  // managed = free + deferred + pcp + allocated + leaked, drift = unaccounted
  for (auto [p, o] : live) cpu.mm.__free_pages(p, o);
  cpu.mm.drain_local_pages();
  expect_invariants(*m);
}

// A knob combination no preset has: leak_accounting=fixed with the 5.17 check under
// zone->lock (buddy_check=under_lock). rmqueue then subtracts the leaked block from
// NR_FREE_PAGES itself (__mod_zone_freepage_state, as 3313204c8ad5 does), so the zone's free
// count drops by the 16 leaked pages plus the 16 handed out, and no drift is left.
TEST(LeakAccountingKnobs, FixedAccountingWithTheCheckUnderTheLock) {
  mm::KernelConfig cfg = preset("v5.17");
  cfg.leak_accounting = mm::LeakAccounting::fixed;
  ASSERT_EQ(cfg.buddy_check, mm::BuddyCheck::under_lock);
  auto m = machine(1, 1, 1ull << 30, cfg);
  Cpu cpu(*m);
  const long free_before = mm::zone_census(normal(*m)).nr_free_pages;
  mm::corrupt_page(m->pfn_to_page(5), mm::FaultField::refcount);
  mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 4);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(m->page_to_pfn(p), 16u);
  EXPECT_EQ(events(*m, mm::LEAKED_PAGES), 16u);
  EXPECT_EQ(mm::zone_census(normal(*m)).nr_free_pages, free_before - 32);
  EXPECT_EQ(drift(*m), 0);
  expect_invariants(*m);
}

INSTANTIATE_TEST_SUITE_P(Presets, LeakAccounting, ::testing::ValuesIn(mm::preset_names()), preset_test_name);

}  // namespace
}  // namespace pagesim::test
