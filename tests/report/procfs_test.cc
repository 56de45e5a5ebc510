// The kernel procfs formats: golden files for a fixed machine and workload, and the
// cross-file consistency a parser relies on.
#include "pagesim/report/procfs.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <regex>
#include <sstream>

#include "pagesim/engine/uniprocessor/uniprocessor.h"
#include "pagesim/mm/page_alloc.h"
#include "report_test_util.h"

namespace pagesim::test {
namespace {

using Exec = UniprocessorExec<false>;

// Two nodes x 2 CPUs x 64 MiB, v5.17, after a deterministic mix of order-0, order-3 and
// order-9 allocations on both nodes and a few frees (some to the pcp lists, some to buddy).
class ProcfsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    m_ = std::make_unique<mm::Machine>(mm::MachineSpec::uniform(2, 2, 64ull << 20), *mm::preset_config("v5.17"),
                                       mm::HostMemory{});
    for (unsigned cpu = 0; cpu < m_->nr_cpus(); ++cpu) {
      Exec ex(*m_, cpu);
      mm::Mm<Exec> k(*m_, ex);
      std::vector<std::pair<mm::Page*, unsigned>> pages;
      for (unsigned i = 0; i < 40; ++i) {
        const unsigned order = i % 5 == 0 ? 9 : (i % 3 == 0 ? 3 : 0);
        const mm::gfp_t gfp = order == 9 ? mm::GFP_TRANSHUGE : (i % 2 ? mm::GFP_KERNEL : mm::GFP_HIGHUSER_MOVABLE);
        if (mm::Page* p = k.alloc_pages_node(static_cast<int>(ex.node()), gfp, order)) pages.emplace_back(p, order);
      }
      for (size_t i = 0; i < pages.size(); i += 3) k.__free_pages(pages[i].first, pages[i].second);
    }
    locks_.push_back(run::LockStat{.name = "&zone->lock", .instance = "node0/Normal", .acquisitions = 120,
                                   .contentions = 7, .wait_ns_total = 35'004, .wait_ns_min = 994, .wait_ns_max = 12'345,
                                   .hold_ns_total = 480'000, .hold_ns_min = 1'200, .hold_ns_max = 30'999,
                                   .bounces = 40, .contention_points = {{"rmqueue_bulk", 5}, {"free_pcppages_bulk", 2}}});
    locks_.push_back(run::LockStat{.name = "&zone->lock", .instance = "node1/Normal", .acquisitions = 80,
                                   .contentions = 3, .wait_ns_total = 9'000, .wait_ns_min = 700, .wait_ns_max = 4'000,
                                   .hold_ns_total = 200'000, .hold_ns_min = 900, .hold_ns_max = 20'000,
                                   .bounces = 10, .contention_points = {{"rmqueue_bulk", 3}}});
    locks_.push_back(run::LockStat{.name = "hugetlb_lock", .instance = "all", .acquisitions = 16,
                                   .hold_ns_total = 16'000, .hold_ns_min = 1'000, .hold_ns_max = 1'000});
  }

  std::unique_ptr<mm::Machine> m_;
  std::vector<run::LockStat> locks_;
};

TEST_F(ProcfsTest, BuddyinfoGolden) { expect_golden("buddyinfo", report::buddyinfo(*m_)); }
TEST_F(ProcfsTest, ZoneinfoGolden) { expect_golden("zoneinfo", report::zoneinfo(*m_)); }

// 6.7 and later print each pageset's high_min and high_max, the labels padded to them, as
// zoneinfo_show_print does; 5.17's pagesets have count, high and batch only.
TEST(Procfs, V618ZoneinfoPrintsHighMinAndHighMax) {
  const mm::Machine m(mm::MachineSpec::uniform(1, 2, 64ull << 20), *mm::preset_config("v6.18"), mm::HostMemory{});
  const mm::PerCpuPages& pcp = m.populated_zones().back()->pcp(1);
  const std::string z = report::zoneinfo(m);
  const std::string cpu1 = fmt::format(
      "\n    cpu: 1\n              count:    {}\n              high:     {}\n              batch:    {}"
      "\n              high_min: {}\n              high_max: {}\n  vm stats threshold: ",
      pcp.count, pcp.high, pcp.batch, pcp.high_min, pcp.high_max);
  EXPECT_NE(z.find(cpu1), std::string::npos) << z;
  EXPECT_GT(pcp.high_max, pcp.high_min);
  EXPECT_EQ(report::zoneinfo(*std::make_unique<mm::Machine>(mm::MachineSpec::uniform(1, 2, 64ull << 20), *mm::preset_config("v5.17"),
                                                            mm::HostMemory{})).find("high_min"),
            std::string::npos);
}
TEST_F(ProcfsTest, VmstatGolden) { expect_golden("vmstat", report::vmstat(*m_)); }
TEST_F(ProcfsTest, PagetypeinfoGolden) { expect_golden("pagetypeinfo", report::pagetypeinfo(*m_)); }
TEST_F(ProcfsTest, LockStatGolden) { expect_golden("lock_stat", report::lock_stat(locks_)); }

TEST_F(ProcfsTest, SnapshotHoldsEveryFile) {
  const run::ProcSnapshot s = report::snapshot(*m_, locks_);
  EXPECT_EQ(s.buddyinfo, report::buddyinfo(*m_));
  EXPECT_EQ(s.zoneinfo, report::zoneinfo(*m_));
  EXPECT_EQ(s.vmstat, report::vmstat(*m_));
  EXPECT_EQ(s.pagetypeinfo, report::pagetypeinfo(*m_));
  EXPECT_EQ(s.lock_stat, report::lock_stat(locks_));
}

// Every zone of every node is listed (4 zone types x 2 nodes), populated ones with pagesets
// for every CPU, in the line shapes scripts match on.
TEST_F(ProcfsTest, ZoneinfoListsEveryZoneAndCpu) {
  const std::string z = report::zoneinfo(*m_);
  const std::regex header(R"(^Node (\d+), zone +(\w+)$)");
  std::istringstream in(z);
  std::string line;
  int zones = 0, cpus = 0, start_pfns = 0;
  while (std::getline(in, line)) {
    if (std::regex_match(line, header)) zones++;
    if (line.starts_with("    cpu: ")) cpus++;
    if (line.starts_with("  start_pfn:           ")) start_pfns++;
  }
  EXPECT_EQ(zones, 2 * mm::MAX_NR_ZONES);
  EXPECT_EQ(start_pfns, 2);       // only populated zones get the tail
  EXPECT_EQ(cpus, 2 * 4);         // 2 populated zones x 4 CPUs
  EXPECT_NE(z.find("Node 0, zone   Normal\n  pages free     "), std::string::npos);
  EXPECT_NE(z.find("\n              count: "), std::string::npos);
  EXPECT_NE(z.find("\n              high:  "), std::string::npos);
  EXPECT_NE(z.find("\n              batch: "), std::string::npos);
  EXPECT_NE(z.find("\n        protection: (0, 0, 0, 0)\n"), std::string::npos);
}

// A parser's cross-checks: the free counts of pagetypeinfo add up to buddyinfo per order, and
// the pages-free line of zoneinfo equals nr_free_pages of vmstat summed over zones.
TEST_F(ProcfsTest, FilesAgreeWithEachOther) {
  for (const mm::Zone* z : m_->populated_zones())
    for (unsigned o = 0; o < mm::MAX_ORDER; ++o) {
      unsigned long sum = 0;
      for (unsigned mt = 0; mt < mm::MIGRATE_TYPES; ++mt) sum += z->free_area[o].nr_blocks[mt];
      EXPECT_EQ(sum, z->free_area[o].nr_free) << "order " << o;
    }
  const std::regex pages_free(R"(\n  pages free     (\d+))");
  const std::string z = report::zoneinfo(*m_);
  uint64_t total = 0;
  for (auto it = std::sregex_iterator(z.begin(), z.end(), pages_free); it != std::sregex_iterator(); ++it)
    total += std::stoull((*it)[1]);
  const auto items = report::vmstat_items(*m_);
  ASSERT_EQ(items.front().first, "nr_free_pages");
  EXPECT_EQ(items.front().second, total);
  EXPECT_GT(total, 0u);
}

// The simulator's own events are marked as such: pagesim_ before the name, after every kernel item.
TEST_F(ProcfsTest, VmstatMarksTheSimulatorsOwnCounters) {
  const std::string v = report::vmstat(*m_);
  EXPECT_NE(v.find("\npagesim_pcp_refill "), std::string::npos) << v;
  EXPECT_EQ(v.find("\npcp_refill "), std::string::npos) << v;
  EXPECT_LT(v.find("\npgfree "), v.find("\npagesim_")) << v;
  EXPECT_NE(v.find("\nhtlb_buddy_alloc_success "), std::string::npos) << v;
}

TEST_F(ProcfsTest, VmstatCountsAllocationsPerZone) {
  uint64_t pgalloc_normal = 0, pgalloc_dma = 1;
  for (const auto& [name, v] : report::vmstat_items(*m_)) {
    if (name == "pgalloc_normal") pgalloc_normal = v;
    if (name == "pgalloc_dma") pgalloc_dma = v;
  }
  EXPECT_GT(pgalloc_normal, 0u);
  EXPECT_EQ(pgalloc_dma, 0u);  // no DMA zone on this machine
}

// Instances of one class merge into one row: contentions add up, min and max span both.
TEST(LockStatTest, MergesInstancesPerClassAndSortsByContentions) {
  std::vector<run::LockStat> locks = {
      {.name = "quiet", .instance = "a", .acquisitions = 5, .hold_ns_total = 5000, .hold_ns_min = 1000, .hold_ns_max = 1000},
      {.name = "busy", .instance = "a", .acquisitions = 10, .contentions = 2, .wait_ns_total = 3000, .wait_ns_min = 1000,
       .wait_ns_max = 2000, .hold_ns_total = 10'000, .hold_ns_min = 500, .hold_ns_max = 2000,
       .contention_points = {{"rmqueue_bulk", 2}}},
      {.name = "busy", .instance = "b", .acquisitions = 10, .contentions = 1, .wait_ns_total = 6000, .wait_ns_min = 6000,
       .wait_ns_max = 6000, .hold_ns_total = 10'000, .hold_ns_min = 800, .hold_ns_max = 4000,
       .contention_points = {{"rmqueue_bulk", 1}}},
  };
  const std::string s = report::lock_stat(locks);
  // The kernel's own printf formats (seq_stats, seq_lock_time, snprint_time).
  char busy[512], quiet[512], point[256];
  std::snprintf(busy, sizeof busy, "%40s:%14lu %14lu %14s %14s %14s %14s %14lu %14lu %14s %14s %14s %14s\n", "busy", 3ul,
                3ul, "1.00", "6.00", "9.00", "3.00", 0ul, 20ul, "0.50", "4.00", "20.00", "1.00");
  std::snprintf(quiet, sizeof quiet, "%40s:%14lu %14lu %14s %14s %14s %14s %14lu %14lu %14s %14s %14s %14s\n", "quiet",
                0ul, 0ul, "0.00", "0.00", "0.00", "0.00", 0ul, 5ul, "1.00", "1.00", "5.00", "1.00");
  std::snprintf(point, sizeof point, "%40s %14lu %29s %s\n", "busy", 3ul, "[<0000000000000000>]", "rmqueue_bulk+0x0/0x0");
  const size_t b = s.find(busy), q = s.find(quiet), p = s.find(point);
  ASSERT_NE(b, std::string::npos) << s;
  ASSERT_NE(q, std::string::npos) << s;
  ASSERT_NE(p, std::string::npos) << s;
  EXPECT_LT(b, p);  // contention points follow their class row,
  EXPECT_LT(p, q);  // and the most contended class comes first
  EXPECT_TRUE(s.starts_with("lock_stat version 0.4\n" + std::string(221, '-') + "\n")) << s;
}

}  // namespace
}  // namespace pagesim::test
