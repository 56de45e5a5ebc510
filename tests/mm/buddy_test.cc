// The buddy allocator: split, merge, alignment, fallback stealing, exhaustion and recovery.
#include <vector>

#include "test_util.h"

namespace pagesim::test {
namespace {

using mm::MAX_ORDER;

std::vector<unsigned long> nr_free(const mm::Zone& z) {
  std::vector<unsigned long> v;
  for (unsigned o = 0; o < MAX_ORDER; ++o) v.push_back(z.free_area[o].nr_free);
  return v;
}

// The buddy tests start from a zone that is managed whole (no memmap reservation at its top).
mm::KernelConfig whole_zone(mm::KernelConfig cfg = preset("v5.17")) {
  cfg.memmap_reserved = false;
  return cfg;
}

TEST(Buddy, FreshZoneIsAllMaxOrderBlocks) {
  auto m = machine(1, 1, 64ull << 20, whole_zone());
  const mm::Zone& z = normal(*m);
  EXPECT_EQ(z.free_area[MAX_ORDER - 1].nr_free, 16u);  // 64 MiB / 4 MiB
  for (unsigned o = 0; o + 1 < MAX_ORDER; ++o) EXPECT_EQ(z.free_area[o].nr_free, 0u);
  expect_invariants(*m);
}

TEST(Buddy, SplitAndMergeAtEveryOrder) {
  auto m = machine(1, 1, 64ull << 20);
  Cpu cpu(*m);
  const auto before = nr_free(normal(*m));
  for (unsigned order = 0; order < MAX_ORDER; ++order) {
    mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, order);
    ASSERT_NE(p, nullptr) << "order " << order;
    const mm::pfn_t pfn = m->page_to_pfn(p);
    EXPECT_EQ(pfn & ((mm::pfn_t{1} << order) - 1), 0u) << "order " << order << " misaligned";
    EXPECT_EQ(mm::page_ref_count(p), 1);
    EXPECT_FALSE(mm::PageBuddy(p));
    expect_invariants(*m);
    cpu.mm.__free_pages(p, order);
    cpu.mm.drain_local_pages();
    EXPECT_EQ(nr_free(normal(*m)), before) << "order " << order << " did not merge back";
  }
  expect_invariants(*m);
}

TEST(Buddy, ExpandLeavesOneBuddyPerLowerOrder) {
  auto m = machine(1, 1, 64ull << 20, whole_zone());
  Cpu cpu(*m);
  // Order 4 is not a pcp order: the buddy path splits one order-10 block.
  mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 4);
  ASSERT_NE(p, nullptr);
  const mm::Zone& z = normal(*m);
  EXPECT_EQ(z.free_area[10].nr_free, 15u);
  for (unsigned o = 4; o < 10; ++o) EXPECT_EQ(z.free_area[o].nr_free, 1u) << o;
  for (unsigned o = 0; o < 4; ++o) EXPECT_EQ(z.free_area[o].nr_free, 0u) << o;
  EXPECT_EQ(events(*m, mm::BUDDY_ALLOC), 1u);
  EXPECT_EQ(events(*m, mm::PGALLOC), 16u);  // the buddy path counts 1 << order
  expect_invariants(*m);
}

TEST(Buddy, MergeAcrossOrderNineGivesOrderTen) {
  // Two order-9 buddies through the buddy path (THP off keeps order 9 off the pcp).
  mm::KernelConfig cfg = preset("v5.17");
  cfg.thp = false;
  cfg.memmap_reserved = false;
  auto m2 = machine(1, 1, 64ull << 20, cfg);
  Cpu c2(*m2);
  mm::Page* a = c2.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 9);
  mm::Page* b = c2.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 9);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(m2->page_to_pfn(a) ^ m2->page_to_pfn(b), 512u) << "the two halves of one order-10 block";
  c2.mm.__free_pages(a, 9);
  c2.mm.__free_pages(b, 9);
  EXPECT_EQ(normal(*m2).free_area[10].nr_free, 16u);
  EXPECT_EQ(normal(*m2).free_area[9].nr_free, 0u);
  expect_invariants(*m2);
}

// buddy_merge_likely: a freed block whose buddy is in use goes to the tail of its free list
// when the buddy of the combined block is free at order + 1 (it will likely merge soon), else
// to the head; the next allocation of that order takes the head. At order o (blocks of
// B = 2^o pages): blocks 0, B, ..., 7B are allocated in ascending order; 0 is freed first (its
// order-(o+1) buddy 2B is in use: head), then 6B and 7B merge into a free order-(o+1) block.
// Freeing 4B (buddy 5B in use) finds 6B free at order o + 1, so 4B goes behind 0 and the next
// order-o block is 0. Order 4 takes the buddy path; order 8 is the highest that looks above
// (order < MAX_ORDER - 2).
class BuddyMergeLikely : public ::testing::TestWithParam<unsigned> {};

TEST_P(BuddyMergeLikely, FreedBlockGoesToTheTailWhenItsHigherBuddyIsFree) {
  const unsigned order = GetParam();
  const uint64_t block = uint64_t{1} << order;
  auto m = machine(1, 1, 64ull << 20, whole_zone());
  Cpu cpu(*m);
  std::vector<mm::Page*> a;
  for (unsigned i = 0; i < 8; ++i) {
    a.push_back(cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, order));
    ASSERT_EQ(m->page_to_pfn(a.back()), block * i);
  }
  cpu.mm.__free_pages(a[0], order);
  cpu.mm.__free_pages(a[6], order);
  cpu.mm.__free_pages(a[7], order);
  const mm::FreeArea& area = normal(*m).free_area[order];
  ASSERT_EQ(area.nr_free, 1u);
  ASSERT_EQ(normal(*m).free_area[order + 1].nr_free, 1u);
  cpu.mm.__free_pages(a[4], order);
  ASSERT_EQ(area.nr_free, 2u);
  EXPECT_EQ(m->page_to_pfn(&area.free_list[mm::MIGRATE_MOVABLE].front()), 0u);
  EXPECT_EQ(m->page_to_pfn(&area.free_list[mm::MIGRATE_MOVABLE].back()), 4 * block) << "to the tail: 6B is free one order up";
  EXPECT_EQ(m->page_to_pfn(cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, order)), 0u);
  expect_invariants(*m);
}

INSTANTIATE_TEST_SUITE_P(Orders, BuddyMergeLikely, ::testing::Values(4u, 8u));

TEST(Buddy, UnmovableFallbackStealsAndRetypesPageblocks) {
  auto m = machine(1, 1, 64ull << 20);
  Cpu cpu(*m);
  // All memory starts MOVABLE; an unmovable request must steal.
  mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_KERNEL, 0);
  ASSERT_NE(p, nullptr);
  EXPECT_GE(events(*m, mm::FALLBACK_STEAL), 1u);
  EXPECT_EQ(m->get_pageblock_migratetype(m->page_to_pfn(p)), mm::MIGRATE_UNMOVABLE);
  // The whole order-10 block was taken (ALLOC_NOFRAGMENT on a one-node machine), so both of
  // its pageblocks changed type.
  const mm::pfn_t block = m->page_to_pfn(p) & ~mm::pfn_t{1023};
  EXPECT_EQ(m->get_pageblock_migratetype(block), mm::MIGRATE_UNMOVABLE);
  EXPECT_EQ(m->get_pageblock_migratetype(block + 512), mm::MIGRATE_UNMOVABLE);
  cpu.mm.__free_pages(p, 0);
  cpu.mm.drain_local_pages();
  expect_invariants(*m);
}

TEST(Buddy, ExhaustionAndRecovery) {
  auto m = machine(1, 1, 64ull << 20);
  Cpu cpu(*m);
  const auto before = nr_free(normal(*m));
  std::vector<mm::Page*> pages;
  while (mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0)) pages.push_back(p);
  // Allocation stops at the min watermark (the slow path retries there, without reclaim).
  const mm::Zone& z = normal(*m);
  EXPECT_GT(pages.size(), 16384u - z._watermark[mm::WMARK_LOW] - 64);
  EXPECT_GE(events(*m, mm::ALLOC_SLOWPATH), 1u);
  EXPECT_GE(events(*m, mm::ALLOC_FAIL), 1u);
  expect_invariants(*m);
  for (mm::Page* p : pages) cpu.mm.__free_pages(p, 0);
  cpu.mm.drain_local_pages();
  EXPECT_EQ(nr_free(normal(*m)), before);
  expect_invariants(*m);
}

TEST(Buddy, ZonelistFallsBackToTheOtherNode) {
  auto m = machine(2, 1, 32ull << 20);
  Cpu cpu(*m);
  std::vector<mm::Page*> pages;
  unsigned remote = 0;
  for (int i = 0; i < 3 * 8192 / 2; ++i) {
    mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0);
    ASSERT_NE(p, nullptr);
    remote += mm::page_to_nid(p) == 1;
    pages.push_back(p);
  }
  EXPECT_GT(remote, 0u);
  EXPECT_EQ(events(*m, mm::NUMA_MISS), remote);
  for (mm::Page* p : pages) cpu.mm.__free_pages(p, 0);
  expect_invariants(*m);
}

}  // namespace
}  // namespace pagesim::test
