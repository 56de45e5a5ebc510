// Per-cpu page lists: batch and high, refill sizes per order, free_factor, drain, list 13.
#include <vector>

#include "test_util.h"

namespace pagesim::test {
namespace {

TEST(Pcp, ZoneBatchsizeThresholds) {
  // zone_batchsize: 63 from 688 MiB of managed memory, then 31, 15, 7, 3, 1.
  constexpr uint64_t MiB = 256;  // pages
  EXPECT_EQ(mm::zone_batchsize(688 * MiB), 63);
  EXPECT_EQ(mm::zone_batchsize(687 * MiB), 31);
  EXPECT_EQ(mm::zone_batchsize(1024 * MiB), 63);
  EXPECT_EQ(mm::zone_batchsize(512 * MiB), 31);
  EXPECT_EQ(mm::zone_batchsize(256 * MiB), 15);
  EXPECT_EQ(mm::zone_batchsize(128 * MiB), 7);
  EXPECT_EQ(mm::zone_batchsize(64 * MiB), 3);
  EXPECT_EQ(mm::zone_batchsize(4000), 0);  // a DMA zone: the caller's max(1, ...) makes it 1
}

// The older cap (512 KiB of pages, before d8a759b57035): batch 31 on any zone of 512 MiB or
// more, the same as the 1 MiB cap below it; knob zone_batchsize: 512K sets every pcp's batch.
TEST(Pcp, ZoneBatchsizeOlderCap) {
  constexpr uint64_t MiB = 256;  // pages
  EXPECT_EQ(mm::zone_batchsize(64 * 1024 * MiB, 512 * 1024), 31);
  EXPECT_EQ(mm::zone_batchsize(512 * MiB, 512 * 1024), 31);
  EXPECT_EQ(mm::zone_batchsize(256 * MiB, 512 * 1024), 15);
  mm::KernelConfig cfg = preset("v5.17");
  ASSERT_EQ(mm::set_knob(cfg, "zone_batchsize", "512K"), "");
  EXPECT_EQ(mm::get_knob(cfg, "zone_batchsize"), "512K");
  EXPECT_NE(mm::set_knob(cfg, "zone_batchsize", "2M"), "");
  auto m = machine(1, 2, 1ull << 30, cfg);
  EXPECT_EQ(normal(*m).pcp(0).batch, 31);
  EXPECT_EQ(normal(*m).pageset_batch, 31);
  EXPECT_EQ(normal(*machine(1, 2, 1ull << 30)).pcp(0).batch, 63);
}

// The first allocation on an empty pcp list pulls max(batch >> order, 2) blocks.
class RefillTest : public ::testing::TestWithParam<std::pair<unsigned, unsigned>> {};

TEST_P(RefillTest, RefillBatchPerOrder) {
  const auto [order, expected] = GetParam();
  auto m = machine(1, 1, 1ull << 30);
  ASSERT_EQ(normal(*m).pcp(0).batch, 63);
  Cpu cpu(*m);
  mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE | (order ? mm::__GFP_COMP : 0), order);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(events(*m, mm::PCP_REFILL), 1u);
  EXPECT_EQ(events(*m, mm::PCP_REFILL_BLOCKS), expected);
  EXPECT_EQ(normal(*m).pcp(0).count, static_cast<int>((expected - 1) << order));
  EXPECT_EQ(events(*m, mm::PGALLOC), 1u) << "5.17 counts one PGALLOC per pcp allocation, whatever the order";
  expect_invariants(*m);
}

INSTANTIATE_TEST_SUITE_P(Orders, RefillTest,
                         ::testing::Values(std::pair{0u, 63u}, std::pair{1u, 31u}, std::pair{2u, 15u},
                                           std::pair{3u, 7u}, std::pair{9u, 2u}));

TEST(Pcp, OrderNineBlocksLiveOnList13) {
  auto m = machine(1, 1, 1ull << 30);
  Cpu cpu(*m);
  mm::Page* p = cpu.mm.alloc_pages_node(0, kThp, 9);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(mm::order_to_pindex(mm::MIGRATE_MOVABLE, 9), 13u);
  const mm::PerCpuPages& pcp = normal(*m).pcp(0);
  EXPECT_EQ(pcp.count, 512);
  for (unsigned i = 0; i < mm::NR_PCP_LISTS; ++i) EXPECT_EQ(pcp.lists[i].size(), i == 13 ? 1u : 0u) << i;
  EXPECT_TRUE(mm::PageHead(p));
  EXPECT_EQ(p[1].tail.compound_order, 9);
  cpu.mm.__free_pages(p, 9);
  expect_invariants(*m);
}

TEST(Pcp, HighComesFromTheLowWatermark) {
  auto m = machine(1, 4, 1ull << 30);
  const mm::Zone& z = normal(*m);
  // zone_highsize: low watermark split over the node's CPUs, at least 4 * batch.
  const int expected = std::max<int>(static_cast<int>(z.low_wmark_pages() / 4), 4 * 63);
  EXPECT_EQ(z.pcp(0).high, expected);
  EXPECT_EQ(z.pageset_high, expected);
  EXPECT_EQ(z.pageset_batch, 63);
}

TEST(Pcp, FreeFactorDoublesTheFlushUpToHighMinusBatch) {
  auto m = machine(1, 1, 1ull << 30);
  Cpu cpu(*m);
  std::vector<mm::Page*> pages;
  for (int i = 0; i < 4000; ++i) pages.push_back(cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0));
  cpu.mm.drain_local_pages();
  mm::PerCpuPages& pcp = normal(*m).pcp(0);
  pcp.high = 1020;  // the example of the spec: high 1020, batch 63
  pcp.batch = 63;
  pcp.free_factor = 0;
  std::vector<uint64_t> flushes;
  uint64_t drained = events(*m, mm::PCP_DRAIN_PAGES);
  for (mm::Page* p : pages) {
    cpu.mm.__free_pages(p, 0);
    const uint64_t now = events(*m, mm::PCP_DRAIN_PAGES);
    if (now != drained) flushes.push_back(now - drained);
    drained = now;
    if (flushes.size() == 6) break;
  }
  EXPECT_EQ(flushes, (std::vector<uint64_t>{63, 126, 252, 504, 957, 957}));
  EXPECT_EQ(pcp.free_factor, 4);
  // An allocation halves free_factor.
  mm::Page* p = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0);
  EXPECT_EQ(pcp.free_factor, 2);
  cpu.mm.__free_pages(p, 0);
}

TEST(Pcp, EveryOrderNineFreeFlushesWhenHighIsBelow512) {
  // On a big box pcp->high is ~340-430, below one order-9 block: each free flushes it.
  auto m = machine(1, 1, 1ull << 30);
  Cpu cpu(*m);
  mm::PerCpuPages& pcp = normal(*m).pcp(0);
  pcp.high = 400;
  mm::Page* p = cpu.mm.alloc_pages_node(0, kThp, 9);
  const uint64_t drains = events(*m, mm::PCP_DRAIN);
  cpu.mm.__free_pages(p, 9);
  EXPECT_EQ(events(*m, mm::PCP_DRAIN), drains + 1);
  expect_invariants(*m);
}

TEST(Pcp, DrainReturnsEverythingToBuddy) {
  auto m = machine(2, 2, 256ull << 20);
  std::vector<std::pair<mm::Page*, unsigned>> pages;
  for (unsigned c = 0; c < m->nr_cpus(); ++c) {
    Cpu cpu(*m, c);
    for (unsigned order : {0u, 1u, 2u, 3u, 9u}) {
      mm::Page* p = cpu.mm.alloc_pages_node(static_cast<int>(cpu.ex.node()), mm::GFP_HIGHUSER_MOVABLE | mm::__GFP_COMP, order);
      ASSERT_NE(p, nullptr);
      cpu.mm.__free_pages(p, order);
    }
  }
  uint64_t pcp_pages = 0;
  for (const mm::Zone* z : m->populated_zones()) pcp_pages += mm::zone_census(*z).pcp_pages;
  EXPECT_GT(pcp_pages, 0u);
  for (unsigned c = 0; c < m->nr_cpus(); ++c) {
    Cpu cpu(*m, c);
    cpu.mm.drain_local_pages();
  }
  for (const mm::Zone* z : m->populated_zones()) {
    EXPECT_EQ(mm::zone_census(*z).pcp_pages, 0u);
    const mm::ZoneCensus c = mm::zone_census(*z);
    EXPECT_EQ(z->free_area[10].nr_free << 10, c.free_list_pages) << "everything merged back";
    EXPECT_EQ(c.free_list_pages + c.deferred_pages, c.managed_pages);
  }
  expect_invariants(*m);
}

// free_pcppages_bulk (5.17) prefetches the order-0 buddy of only the first pcp->batch blocks
// it frees (prefetch_nr): draining 252 order-0 pages with batch 63 issues 63 prefetches.
TEST(Pcp, DrainPrefetchesTheBuddiesOfTheFirstBatchOnly) {
  auto m = machine(1, 1, 1ull << 30);
  Cpu cpu(*m);
  mm::PerCpuPages& pcp = normal(*m).pcp(0);
  pcp.high = 1 << 20;  // no flush on free: only the drain frees to buddy
  std::vector<mm::Page*> pages;
  for (int i = 0; i < 200; ++i) pages.push_back(cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0));
  for (mm::Page* p : pages) cpu.mm.__free_pages(p, 0);
  ASSERT_EQ(pcp.count, 4 * 63) << "four refills of 63, all back on the list";
  cpu.ex.reset_accesses();
  const uint64_t drained = events(*m, mm::PCP_DRAIN_PAGES);
  cpu.mm.drain_local_pages();
  EXPECT_EQ(events(*m, mm::PCP_DRAIN_PAGES) - drained, 252u);
  EXPECT_EQ(cpu.ex.accesses().by_kind[static_cast<unsigned>(AccessKind::prefetch)], 63u);
  expect_invariants(*m);
}

// free_pcppages_bulk (5.17) walks the lists round robin from list 1, and batch_free (one more
// for each list it steps over, empty or not) is how many blocks it takes from a list before
// moving on. With order-0 pages on list 1 and order-1 blocks on list 4, a flush of 5 pages
// takes 1 page from list 1 (batch_free 1), then steps over lists 2 and 3 to list 4
// (batch_free 3) and takes two order-1 blocks, which make the count.
TEST(Pcp, FreePcppagesBulkV517TakesBatchFreeBlocksPerList) {
  auto m = machine(1, 1, 1ull << 30);
  Cpu cpu(*m);
  mm::PerCpuPages& pcp = normal(*m).pcp(0);
  pcp.high = 1 << 20;
  std::vector<mm::Page*> small, pairs;
  for (int i = 0; i < 10; ++i) small.push_back(cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0));
  for (int i = 0; i < 10; ++i) pairs.push_back(cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 1));
  cpu.mm.drain_local_pages();
  for (mm::Page* p : small) cpu.mm.__free_pages(p, 0);
  for (mm::Page* p : pairs) cpu.mm.__free_pages(p, 1);
  const unsigned l0 = mm::order_to_pindex(mm::MIGRATE_MOVABLE, 0), l1 = mm::order_to_pindex(mm::MIGRATE_MOVABLE, 1);
  ASSERT_EQ(l0, 1u);
  ASSERT_EQ(l1, 4u);
  ASSERT_EQ(pcp.lists[l0].size(), 10u);
  ASSERT_EQ(pcp.lists[l1].size(), 10u);
  const IrqFlags f = cpu.ex.local_irq_save(Site::free_unref_page);  // as free_unref_page_commit calls it
  cpu.mm.free_pcppages_bulk(normal(*m), 5, pcp, l0);
  cpu.ex.local_irq_restore(f, Site::free_unref_page);
  EXPECT_EQ(pcp.lists[l0].size(), 9u);
  EXPECT_EQ(pcp.lists[l1].size(), 8u);
  EXPECT_EQ(pcp.count, 30 - 5);
  expect_invariants(*m);
}

// v5.17 with 5.18's free_pcppages_bulk and nr_pcp_free.
mm::KernelConfig free_bulk_v518() {
  mm::KernelConfig cfg = preset("v5.17");
  cfg.free_pcppages_bulk = mm::FreeBulk::v5_18;
  return cfg;
}

TEST(Pcp, FreePcppagesBulkV518StartsWithTheJustFreedList) {
  auto m = machine(1, 1, 1ull << 30, free_bulk_v518());
  Cpu cpu(*m);
  std::vector<mm::Page*> small;
  for (int i = 0; i < 10; ++i) small.push_back(cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0));
  mm::Page* thp = cpu.mm.alloc_pages_node(0, kThp, 9);
  for (mm::Page* p : small) cpu.mm.__free_pages(p, 0);
  mm::PerCpuPages& pcp = normal(*m).pcp(0);
  const size_t order0 = pcp.lists[1].size();
  pcp.high = 600;
  cpu.mm.__free_pages(thp, 9);  // count goes over high: flush, starting at list 13
  EXPECT_EQ(pcp.lists[1].size(), order0) << "the order-0 list is untouched";
  expect_invariants(*m);
}

// 5.18's free_high: once a flush has raised free_factor, freeing a high-order page up to
// PAGE_ALLOC_COSTLY_ORDER flushes the whole pcp (nr_pcp_free returns pcp->count before its
// high < batch test, which nr_pcp_high's 0 would otherwise meet with a one-page flush).
TEST(Pcp, FreeHighFlushesTheWholePcpOnAHighOrderFree) {
  auto m = machine(1, 1, 1ull << 30, free_bulk_v518());
  Cpu cpu(*m);
  std::vector<mm::Page*> small;
  for (int i = 0; i < 200; ++i) small.push_back(cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 0));
  mm::Page* order2 = cpu.mm.alloc_pages_node(0, mm::GFP_HIGHUSER_MOVABLE, 2);
  cpu.mm.drain_local_pages();
  mm::PerCpuPages& pcp = normal(*m).pcp(0);
  pcp.high = 100;
  pcp.batch = 20;
  pcp.free_factor = 0;
  for (int i = 0; i < 101; ++i) cpu.mm.__free_pages(small[i], 0);  // the 100th free flushes
  ASSERT_GT(pcp.free_factor, 0);
  for (int i = 101; i < 150; ++i) cpu.mm.__free_pages(small[i], 0);
  const uint64_t before = events(*m, mm::PCP_DRAIN_PAGES);
  const int count = pcp.count;
  cpu.mm.__free_pages(order2, 2);
  EXPECT_EQ(events(*m, mm::PCP_DRAIN_PAGES) - before, static_cast<uint64_t>(count + 4)) << "everything, not one page";
  EXPECT_EQ(pcp.count, 0);
  for (int i = 150; i < 200; ++i) cpu.mm.__free_pages(small[i], 0);
  expect_invariants(*m);
}

}  // namespace
}  // namespace pagesim::test
