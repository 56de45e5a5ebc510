// The uniprocessor exec's lockdep in miniature.
#include "pagesim/error.h"
#include "mm/test_util.h"

namespace pagesim::test {
namespace {

TEST(Exec, RecursiveZoneLockIsABug) {
  auto m = machine(1, 2, 64ull << 20);
  UniprocessorExec<false> ex(*m);
  spinlock_t& l = normal(*m).lock;
  IrqFlags f = ex.local_irq_save(Site::unknown);
  ex.lock(l, Site::unknown);
  EXPECT_THROW(ex.lock(l, Site::unknown), ModelError);
  ex.unlock(l, Site::unknown);
  EXPECT_THROW(ex.unlock(l, Site::unknown), ModelError);
  ex.local_irq_restore(f, Site::unknown);
}

TEST(Exec, ZoneLockNeedsIrqsOff) {
  auto m = machine(1, 1, 64ull << 20);
  UniprocessorExec<false> ex(*m);
  EXPECT_THROW(ex.lock(normal(*m).lock, Site::unknown), ModelError);
}

TEST(Exec, NoMigrationInsideAnAtomicRegion) {
  auto m = machine(1, 2, 64ull << 20);
  UniprocessorExec<false> ex(*m);
  IrqFlags f = ex.local_irq_save(Site::unknown);
  EXPECT_THROW(ex.set_cpu(1), ModelError);
  EXPECT_THROW(ex.cond_resched(Site::unknown), ModelError);
  ex.local_irq_restore(f, Site::unknown);
  EXPECT_NO_THROW(ex.set_cpu(1));
  EXPECT_EQ(ex.cpu(), 1u);
  EXPECT_THROW(ex.set_cpu(2), ModelError);
}

TEST(Exec, AllocatorLeavesNoLockHeldAndCountsIrqOffPerSite) {
  auto m = machine(1, 1, 64ull << 20);
  Cpu cpu(*m);
  mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0);
  cpu.mm.__free_pages(p, 0);
  EXPECT_FALSE(cpu.ex.holds_any_lock());
  EXPECT_FALSE(cpu.ex.irqs_disabled());
  EXPECT_EQ(cpu.ex.irq_off_regions(Site::rmqueue_pcplist), 1u);
  EXPECT_EQ(cpu.ex.irq_off_regions(Site::free_unref_page), 1u);
  EXPECT_EQ(cpu.ex.lock_counters(LockClass::zone_lock).by_site[static_cast<unsigned>(Site::rmqueue_bulk)], 1u);
}

TEST(Exec, UntrackedAndTrackedEnginesAgreeOnState) {
  auto a = machine(1, 2, 256ull << 20);
  auto b = machine(1, 2, 256ull << 20);
  UniprocessorExec<false> ea(*a);
  UniprocessorExec<true> eb(*b);
  mm::Mm<UniprocessorExec<false>> ma(*a, ea);
  mm::Mm<UniprocessorExec<true>> mb(*b, eb);
  Rng r1(3), r2(3);
  for (int i = 0; i < 500; ++i) {
    const unsigned o1 = static_cast<unsigned>(r1.below(11)), o2 = static_cast<unsigned>(r2.below(11));
    mm::Page* x = ma.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, o1);
    mm::Page* y = mb.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, o2);
    ASSERT_EQ(a->page_to_pfn(x), b->page_to_pfn(y));
    if (i % 3 == 0) {
      ma.__free_pages(x, o1);
      mb.__free_pages(y, o2);
    }
  }
  EXPECT_GT(eb.accesses().total, 0u);
}

}  // namespace
}  // namespace pagesim::test
