// Misuse of the model API gives a clear error or a reported bad page, never memory corruption
// (the ASan/UBSan build runs these too).
#include "pagesim/error.h"
#include "test_util.h"

namespace pagesim::test {
namespace {

TEST(Misuse, OrderAtOrAboveMaxOrderFailsTheAllocation) {
  auto m = machine(1, 1, 64ull << 20);
  Cpu cpu(*m);
  EXPECT_EQ(cpu.mm.alloc_pages_node(0, mm::GFP_KERNEL, mm::MAX_ORDER), nullptr);
  EXPECT_EQ(cpu.mm.alloc_pages_node(0, mm::GFP_KERNEL, 40), nullptr);
  expect_invariants(*m);
}

TEST(Misuse, FreeingWithOrderAtOrAboveMaxOrderThrows) {
  auto m = machine(1, 1, 64ull << 20);
  Cpu cpu(*m);
  mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_KERNEL, 0);
  EXPECT_THROW(cpu.mm.__free_pages(p, mm::MAX_ORDER), ModelError);
}

TEST(Misuse, DoubleFreeThrows) {
  auto m = machine(1, 1, 64ull << 20);
  Cpu cpu(*m);
  mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_KERNEL, 0);
  cpu.mm.__free_pages(p, 0);
  try {
    cpu.mm.__free_pages(p, 0);
    FAIL() << "no error";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("double free"), std::string::npos) << e.what();
  }
  expect_invariants(*m);
}

TEST(Misuse, CompoundPageFreedWithTheWrongOrderThrows) {
  auto m = machine(1, 1, 64ull << 20);
  Cpu cpu(*m);
  mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_KERNEL | mm::__GFP_COMP, 2);
  try {
    cpu.mm.__free_pages(p, 3);
    FAIL() << "no error";
  } catch (const ModelError& e) {
    EXPECT_NE(std::string(e.what()).find("compound_order"), std::string::npos) << e.what();
  }
}

TEST(Misuse, FreeingATailPageThrows) {
  auto m = machine(1, 1, 64ull << 20);
  Cpu cpu(*m);
  mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_KERNEL | mm::__GFP_COMP, 2);
  mm::set_page_count(p + 1, 1);
  EXPECT_THROW(cpu.mm.__free_pages(p + 1, 0), ModelError);
}

TEST(Misuse, PageOutsideEveryZoneThrows) {
  auto m = machine(1, 1, 64ull << 20);
  Cpu cpu(*m);
  mm::Page stray;
  stray._refcount = 1;
  EXPECT_THROW(cpu.mm.__free_pages(&stray, 0), ModelError);
  EXPECT_THROW(cpu.mm.__free_pages(m->pfn_to_page(0) + m->memmap().nr_pages(), 0), ModelError);
}

TEST(Misuse, MisalignedFreeThrows) {
  auto m = machine(1, 1, 64ull << 20);
  Cpu cpu(*m);
  mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_KERNEL, 2);
  EXPECT_THROW(cpu.mm.__free_pages(p + 1, 1), ModelError);
}

TEST(Misuse, FreeingMoreThanWasAllocatedIsAReportedBadPage) {
  mm::KernelConfig cfg = preset("v5.17");
  cfg.high_order_pcp = false;  // order 1 takes the buddy path: its order-1 buddy stays free
  auto m = machine(1, 1, 64ull << 20, cfg);
  Cpu cpu(*m);
  // Non-compound order 1 freed as order 2: the upper half is a free buddy, which
  // free_pages_prepare's tail checks report; the block is leaked, nothing is corrupted.
  mm::Page* q = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 1);
  ASSERT_NE(q, nullptr);
  const uint64_t before = events(*m, mm::BAD_PAGE);
  EXPECT_NO_THROW(cpu.mm.__free_pages(q, 2));
  EXPECT_GT(events(*m, mm::BAD_PAGE), before);
  ASSERT_FALSE(m->bad_page_reports().empty());
}

TEST(Misuse, NodeThatDoesNotExistThrows) {
  auto m = machine(1, 1, 64ull << 20);
  Cpu cpu(*m);
  EXPECT_THROW(cpu.mm.alloc_pages_node(3, mm::GFP_KERNEL, 0), ModelError);
}

}  // namespace
}  // namespace pagesim::test
