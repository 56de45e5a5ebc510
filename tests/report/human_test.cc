// The human report's per-run sections.
#include <gtest/gtest.h>

#include "pagesim/report/report.h"
#include "pagesim/workload/usemem_result.h"
#include "report_test_util.h"

namespace pagesim::test {
namespace {

workload::TaskPlacement::Iteration at(unsigned reserve, unsigned fault, std::vector<double> loop, bool failed = false) {
  return {.failed = failed, .reserve_node = reserve, .fault_node = fault, .store_loop_node_s = std::move(loop)};
}

std::shared_ptr<const run::WorkloadResult> usemem(std::vector<workload::TaskPlacement> tasks) {
  return std::make_shared<const workload::UsememResult>(std::move(tasks));
}

// usemem task-iterations are counted by the node of their mmap, first fault and the node where
// their store loop ran longest; a failed one is counted apart.
TEST(HumanReport, PlacementCountsTaskIterationsByNode) {
  run::RunResult r = make_run("v5.17", 0, {{"throughput_kib_s", 1}});
  r.workload_result = usemem({{.task = 0, .iterations = {at(0, 0, {2.0, 1.0}), at(0, 0, {0.5, 1.5})}},
                              {.task = 1, .iterations = {at(1, 1, {0.0, 3.0}), at(0, 0, {1.0, 0.0}, true)}},
                              {.task = 2, .iterations = {at(0, 0, {0.1, 0.9}), at(1, 1, {0.0, 2.0})}}});
  const std::string text = report::human({}, {r}, true);
  EXPECT_NE(text.find("placement (repeat 0, task-iterations by node of mmap → first fault → most of the store loop):\n"
                      "    0→0→0           1\n"
                      "    0→0→1           2\n"
                      "    1→1→1           2\n"
                      "    failed          1\n"),
            std::string::npos)
      << text;
  // Engines that do not follow the loop show mmap → fault only; usemem without tasks and other
  // workloads (no records of their own) show nothing.
  r.workload_result = usemem({{.task = 0, .iterations = {at(1, 0, {})}}});
  EXPECT_NE(report::human({}, {r}, true).find("task-iterations by node of mmap → first fault):\n    1→0             1\n"),
            std::string::npos);
  r.workload_result = usemem({});
  EXPECT_EQ(report::human({}, {r}, true).find("placement"), std::string::npos);
  r.workload_result = nullptr;
  EXPECT_EQ(report::human({}, {r}, true).find("placement"), std::string::npos);
}

// The default view leads with the headline: a line per variant, the first Bad page report, and
// the comparison's changed rows (an unchanged counter left out); --verbose has the rest.
TEST(HumanReport, HeadlineSummarisesAndVerboseDetails) {
  std::vector<run::RunResult> runs = {make_run("v5.17", 0, {{"allocs", 10}}), make_run("v5.18", 0, {{"allocs", 12}})};
  for (run::RunResult& r : runs) {
    r.invariant_checks = 3;
    for (int i = 0; i < 5; ++i) r.bad_page_reports.push_back("BUG: Bad page state in process pagesim  pfn:" + std::to_string(i));
    r.cache.counters["struct_page_in_zone_lock"] = 7;
  }
  const std::string head = report::human({}, runs);
  EXPECT_NE(head.find("v5.17                        invariants: 3 checks, 0 violations; 5 \"Bad page state\" reports"),
            std::string::npos) << head;
  EXPECT_NE(head.find("pfn:0\n"), std::string::npos) << head;   // the first report
  EXPECT_EQ(head.find("pfn:1\n"), std::string::npos) << head;   // not all
  EXPECT_NE(head.find("pagesim.allocs"), std::string::npos) << head;
  EXPECT_EQ(head.find("cache.struct_page_in_zone_lock"), std::string::npos) << head;
  EXPECT_NE(head.find("(1 row unchanged within the noise: --all"), std::string::npos) << head;
  const std::string all = report::human({}, runs, true);
  EXPECT_NE(all.find("pfn:4\n"), std::string::npos);
  EXPECT_NE(all.find("cache.struct_page_in_zone_lock"), std::string::npos);
  EXPECT_NE(all.find("zones (repeat 0"), std::string::npos);
}

// --verbose lists each zone's pagesets, CPUs with equal values on one line; 6.x's high_min and
// high_max where the profile has them.
TEST(HumanReport, VerboseListsPagesetsPerZoneAndCpu) {
  run::RunResult r = make_run("v6.18", 0, {{"allocs", 1}});
  for (unsigned cpu = 0; cpu < 4; ++cpu)
    r.pcp.push_back(run::PcpSetting{.node = 0, .zone = mm::ZONE_NORMAL, .cpu = cpu, .count = 7, .high = cpu == 3 ? 900 : 500,
                                    .batch = 63, .high_min = 126, .high_max = 1000});
  r.pcp.push_back(run::PcpSetting{.node = 1, .zone = mm::ZONE_DMA32, .cpu = 0, .high = 0, .batch = 1});
  const std::string t = report::human({}, {r}, true);
  EXPECT_NE(t.find("  pagesets (repeat 0, at the end; pages):\n"
                   "    zone           cpus             high    batch high_min high_max\n"
                   "    node0/Normal   0-2               500       63      126     1000\n"
                   "    node0/Normal   3                 900       63      126     1000\n"
                   "    node1/DMA32    0                   0        1        -        -\n"),
            std::string::npos)
      << t;
  EXPECT_EQ(report::human({}, {r}).find("pagesets"), std::string::npos);
}

}  // namespace
}  // namespace pagesim::test
