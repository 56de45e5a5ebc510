// The human report's per-run sections.
#include <gtest/gtest.h>

#include "pagesim/report/report.h"
#include "report_test_util.h"

namespace pagesim::test {
namespace {

run::TaskPlacement::Iteration at(unsigned reserve, unsigned fault, std::vector<double> loop, bool failed = false) {
  return {.failed = failed, .reserve_node = reserve, .fault_node = fault, .store_loop_node_s = std::move(loop)};
}

// usemem task-iterations are counted by the node of their mmap, first fault and the node where
// their store loop ran longest; a failed one is counted apart.
TEST(HumanReport, PlacementCountsTaskIterationsByNode) {
  run::RunResult r = make_run("v5.17", 0, {{"throughput_kib_s", 1}});
  r.tasks = {{.task = 0, .iterations = {at(0, 0, {2.0, 1.0}), at(0, 0, {0.5, 1.5})}},
             {.task = 1, .iterations = {at(1, 1, {0.0, 3.0}), at(0, 0, {1.0, 0.0}, true)}},
             {.task = 2, .iterations = {at(0, 0, {0.1, 0.9}), at(1, 1, {0.0, 2.0})}}};
  const std::string text = report::human({}, {r});
  EXPECT_NE(text.find("placement (repeat 0, task-iterations by node of mmap → first fault → most of the store loop):\n"
                      "    0→0→0           1\n"
                      "    0→0→1           2\n"
                      "    1→1→1           2\n"
                      "    failed          1\n"),
            std::string::npos)
      << text;
  // Engines that do not follow the loop show mmap → fault only; other workloads show nothing.
  r.tasks = {{.task = 0, .iterations = {at(1, 0, {})}}};
  EXPECT_NE(report::human({}, {r}).find("task-iterations by node of mmap → first fault):\n    1→0             1\n"),
            std::string::npos);
  r.tasks.clear();
  EXPECT_EQ(report::human({}, {r}).find("placement"), std::string::npos);
}

}  // namespace
}  // namespace pagesim::test
