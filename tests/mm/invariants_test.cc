// The invariant checker finds what it is meant to find.
#include "test_util.h"

namespace pagesim::test {
namespace {

TEST(Invariants, CleanMachinePasses) {
  auto m = machine(2, 2, 256ull << 20);
  const mm::InvariantReport r = mm::check_invariants(*m);
  EXPECT_TRUE(r.ok());
  EXPECT_GT(r.checks, 100u);
}

TEST(Invariants, DetectsNrFreeMismatch) {
  auto m = machine(1, 1, 64ull << 20);
  normal(*m).free_area[10].nr_free++;
  EXPECT_FALSE(mm::check_invariants(*m).ok());
}

TEST(Invariants, DetectsCounterDrift) {
  auto m = machine(1, 1, 64ull << 20);
  normal(*m).vm_stat[mm::NR_FREE_PAGES] += 8;
  m->vm_zone_stat[mm::NR_FREE_PAGES] += 8;
  const mm::InvariantReport r = mm::check_invariants(*m);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.violations.front().find("drift"), std::string::npos) << r.violations.front();
}

TEST(Invariants, DetectsPcpCountMismatch) {
  auto m = machine(1, 1, 64ull << 20);
  Cpu cpu(*m);
  cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0);
  normal(*m).pcp(0).count++;
  EXPECT_FALSE(mm::check_invariants(*m).ok());
}

TEST(Invariants, DetectsUnmergedBuddies) {
  auto m = machine(1, 1, 64ull << 20);
  mm::Zone& z = normal(*m);
  // Split the first order-10 block into two free order-9 halves without merging them.
  mm::Page* head = &z.free_area[10].free_list[mm::MIGRATE_MOVABLE].front();
  z.free_area[10].free_list[mm::MIGRATE_MOVABLE].pop_front();
  z.free_area[10].nr_free--;
  z.free_area[10].nr_blocks[mm::MIGRATE_MOVABLE]--;
  for (mm::Page* p : {head, head + 512}) {
    z.free_area[9].free_list[mm::MIGRATE_MOVABLE].push_back(*p);
    z.free_area[9].nr_free++;
    z.free_area[9].nr_blocks[mm::MIGRATE_MOVABLE]++;
    mm::set_page_private(p, 9);
    mm::__SetPageBuddy(p);
  }
  const mm::InvariantReport r = mm::check_invariants(*m);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.violations.front().find("not merged"), std::string::npos) << r.violations.front();
}

TEST(Invariants, DetectsLostPages) {
  auto m = machine(1, 1, 64ull << 20);
  Cpu cpu(*m);
  mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0);
  ASSERT_NE(p, nullptr);
  normal(*m).cpu[0].acct.allocated--;  // as if a page vanished
  EXPECT_FALSE(mm::check_invariants(*m).ok());
}

}  // namespace
}  // namespace pagesim::test
