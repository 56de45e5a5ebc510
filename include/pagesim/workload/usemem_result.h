// usemem's own records of a run (RunResult::workload_result): each task's placement, where it
// ran (virtual engine) and, per iteration, where it reserved, faulted and ran its store loop.
// Written as runs[].tasks (docs/output.md), read back from it, and summed up in the verbose
// report's placement section. sim/workload/usemem/usemem_result.cc.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pagesim/result/workload_result.h"

namespace pagesim::workload {

struct TaskPlacement {
  struct Move {
    uint64_t at_ns = 0;  // virtual time
    unsigned cpu = 0;
    bool operator==(const Move&) const = default;
  };
  struct Iteration {
    bool failed = false;
    unsigned reserve_node = 0, fault_node = 0;
    std::vector<uint64_t> fault_node_pages;  // the task's huge pages by node
    std::vector<double> store_loop_node_s;   // store-loop time by node (virtual engine)
    double remote_store_share_pct = 0;
    double kbps = 0;  // usemem's rate line for the iteration (0 when it failed)
    // The iteration's start (virtual engine): where the task was at each step and when, in us
    // after the iteration's fork; -1: not reached.
    struct Start {
      int fork_node = -1, wake_node = -1, mmap_start_node = -1, mmap_end_node = -1, first_fault_node = -1;
      int pass1_node = -1, pass2_node = -1;  // NUMA balancing's first two scan passes
      int64_t mmap_start_us = -1, mmap_end_us = -1, first_fault_us = -1, pass1_us = -1, pass2_us = -1;
      std::vector<uint64_t> reserved_node_pages;   // surplus pages its mmap allocated, by node
      double spin_zone_lock_us = 0, spin_hugetlb_lock_us = 0;  // spinning inside its mmap
      bool operator==(const Start&) const = default;
    } start;
    bool operator==(const Iteration&) const = default;
  };
  unsigned task = 0;
  std::vector<Move> timeline;  // the fork placement, then every migration (virtual engine)
  std::vector<Iteration> iterations;
  bool operator==(const TaskPlacement&) const = default;
};

class UsememResult : public run::WorkloadResult {
 public:
  explicit UsememResult(std::vector<TaskPlacement> tasks) : tasks_(std::move(tasks)) {}
  const std::vector<TaskPlacement>& tasks() const { return tasks_; }
  nlohmann::ordered_json tasks_json() const override;
  // Task-iterations by the node of their mmap, of their first fault and where their store loop
  // ran longest (the last where the engine followed the loops); "" without tasks.
  std::string human_section(unsigned repeat) const override;

 private:
  std::vector<TaskPlacement> tasks_;
};

// The records of runs[].tasks as tasks_json() wrote them (WorkloadInfo::read_result); throws
// nlohmann::json::exception on a missing or mistyped key.
std::shared_ptr<const run::WorkloadResult> read_usemem_result(const nlohmann::json& tasks);

}  // namespace pagesim::workload
