// usemem's own records (UsememResult): runs[].tasks written and read back equal, and the
// registry hands the report its reader.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "pagesim/workload/registry.h"
#include "pagesim/workload/usemem_result.h"

namespace pagesim::workload {
namespace {

std::vector<TaskPlacement> two_tasks() {
  TaskPlacement::Iteration started{.reserve_node = 1, .fault_node = 0, .fault_node_pages = {3, 1},
                                   .store_loop_node_s = {0.25, 0.5}, .remote_store_share_pct = 12.5, .kbps = 1024};
  started.start = {.fork_node = 1, .wake_node = 0, .mmap_start_node = 0, .mmap_end_node = 0, .first_fault_node = 0,
                   .pass1_node = 1, .pass2_node = -1, .mmap_start_us = 2, .mmap_end_us = 40, .first_fault_us = 41,
                   .pass1_us = 900, .pass2_us = -1, .reserved_node_pages = {4, 0}, .spin_zone_lock_us = 0.5,
                   .spin_hugetlb_lock_us = 1.25};
  return {{.task = 0, .timeline = {{.at_ns = 0, .cpu = 2}, {.at_ns = 5000, .cpu = 9}}, .iterations = {started}},
          {.task = 1, .iterations = {{.failed = true, .reserve_node = 1, .fault_node = 1}}}};
}

TEST(UsememResult, TasksRoundTripThroughJson) {
  const UsememResult written(two_tasks());
  const nlohmann::json json = nlohmann::json::parse(written.tasks_json().dump());
  ASSERT_EQ(json.size(), 2u);
  EXPECT_EQ(json[0]["iterations"][0]["start"]["pass1_us"], 900);
  EXPECT_FALSE(json[1]["iterations"][0].contains("start"));  // never forked on the virtual engine
  const auto read = read_usemem_result(json);
  const auto* back = dynamic_cast<const UsememResult*>(read.get());
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(back->tasks(), written.tasks());
  EXPECT_EQ(back->tasks_json().dump(), written.tasks_json().dump());
  EXPECT_THROW(read_usemem_result(nlohmann::json::parse(R"([{"task": 0}])")), nlohmann::json::exception);
}

TEST(UsememResult, OnlyUsememRegistersAReader) {
  for (const WorkloadInfo& w : registered_workloads()) EXPECT_EQ(static_cast<bool>(w.read_result), w.name == "usemem") << w.name;
}

}  // namespace
}  // namespace pagesim::workload
