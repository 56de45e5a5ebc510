// usemem's per-task records: runs[].tasks written and read back, and the report's placement
// section (pagesim/workload/usemem_result.h).
#include "pagesim/workload/usemem_result.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace pagesim::workload {

namespace {

using ojson = nlohmann::ordered_json;

ojson start_json(const TaskPlacement::Iteration::Start& s) {
  return {{"fork_node", s.fork_node},
          {"wake_node", s.wake_node},
          {"mmap_start_node", s.mmap_start_node},
          {"mmap_start_us", s.mmap_start_us},
          {"mmap_end_node", s.mmap_end_node},
          {"mmap_end_us", s.mmap_end_us},
          {"first_fault_node", s.first_fault_node},
          {"first_fault_us", s.first_fault_us},
          {"pass1_node", s.pass1_node},
          {"pass1_us", s.pass1_us},
          {"pass2_node", s.pass2_node},
          {"pass2_us", s.pass2_us},
          {"reserved_node_pages", s.reserved_node_pages},
          {"spin_zone_lock_us", s.spin_zone_lock_us},
          {"spin_hugetlb_lock_us", s.spin_hugetlb_lock_us}};
}

TaskPlacement::Iteration::Start start_from_json(const nlohmann::json& j) {
  TaskPlacement::Iteration::Start s;
  s.fork_node = j.at("fork_node").get<int>();
  s.wake_node = j.at("wake_node").get<int>();
  s.mmap_start_node = j.at("mmap_start_node").get<int>();
  s.mmap_start_us = j.at("mmap_start_us").get<int64_t>();
  s.mmap_end_node = j.at("mmap_end_node").get<int>();
  s.mmap_end_us = j.at("mmap_end_us").get<int64_t>();
  s.first_fault_node = j.at("first_fault_node").get<int>();
  s.first_fault_us = j.at("first_fault_us").get<int64_t>();
  s.pass1_node = j.at("pass1_node").get<int>();
  s.pass1_us = j.at("pass1_us").get<int64_t>();
  s.pass2_node = j.at("pass2_node").get<int>();
  s.pass2_us = j.at("pass2_us").get<int64_t>();
  s.reserved_node_pages = j.at("reserved_node_pages").get<std::vector<uint64_t>>();
  s.spin_zone_lock_us = j.at("spin_zone_lock_us").get<double>();
  s.spin_hugetlb_lock_us = j.at("spin_hugetlb_lock_us").get<double>();
  return s;
}

ojson tasks_array(const std::vector<TaskPlacement>& tasks) {
  ojson a = ojson::array();
  for (const TaskPlacement& t : tasks) {
    ojson timeline = ojson::array(), iterations = ojson::array();
    for (const TaskPlacement::Move& mv : t.timeline) timeline.push_back({{"at_ns", mv.at_ns}, {"cpu", mv.cpu}});
    for (const TaskPlacement::Iteration& it : t.iterations) {
      iterations.push_back({{"failed", it.failed},
                            {"reserve_node", it.reserve_node},
                            {"fault_node", it.fault_node},
                            {"fault_node_pages", it.fault_node_pages},
                            {"store_loop_node_s", it.store_loop_node_s},
                            {"remote_store_share_pct", it.remote_store_share_pct},
                            {"kbps", it.kbps}});
      if (it.start.fork_node >= 0) iterations.back()["start"] = start_json(it.start);
    }
    a.push_back({{"task", t.task}, {"timeline", std::move(timeline)}, {"iterations", std::move(iterations)}});
  }
  return a;
}

std::vector<TaskPlacement> tasks_from_json(const nlohmann::json& a) {
  std::vector<TaskPlacement> tasks;
  for (const auto& jt : a) {
    TaskPlacement t;
    t.task = jt.at("task").get<unsigned>();
    for (const auto& mv : jt.at("timeline")) t.timeline.push_back({mv.at("at_ns").get<uint64_t>(), mv.at("cpu").get<unsigned>()});
    for (const auto& ji : jt.at("iterations")) {
      TaskPlacement::Iteration it;
      it.failed = ji.at("failed").get<bool>();
      it.reserve_node = ji.at("reserve_node").get<unsigned>();
      it.fault_node = ji.at("fault_node").get<unsigned>();
      it.fault_node_pages = ji.at("fault_node_pages").get<std::vector<uint64_t>>();
      it.store_loop_node_s = ji.at("store_loop_node_s").get<std::vector<double>>();
      it.remote_store_share_pct = ji.at("remote_store_share_pct").get<double>();
      it.kbps = ji.value("kbps", 0.0);  // results saved before it was recorded have none
      if (ji.contains("start")) it.start = start_from_json(ji.at("start"));
      t.iterations.push_back(std::move(it));
    }
    tasks.push_back(std::move(t));
  }
  return tasks;
}

}  // namespace

ojson UsememResult::tasks_json() const { return tasks_array(tasks_); }

std::string UsememResult::human_section(unsigned repeat) const {
  if (tasks_.empty()) return {};
  std::map<std::string, unsigned> counts;
  bool loops = false;  // the engine followed the store loops (virtual)
  for (const TaskPlacement& t : tasks_)
    for (const TaskPlacement::Iteration& it : t.iterations) {
      const auto& loop = it.store_loop_node_s;
      loops |= !loop.empty();
      const std::string where = it.failed ? "failed"
                                : loop.empty()
                                    ? fmt::format("{}→{}", it.reserve_node, it.fault_node)
                                    : fmt::format("{}→{}→{}", it.reserve_node, it.fault_node,
                                                  std::max_element(loop.begin(), loop.end()) - loop.begin());
      counts[where]++;
    }
  std::string out = fmt::format("  placement (repeat {}, task-iterations by node of mmap → first fault{}):\n", repeat,
                                loops ? " → most of the store loop" : "");
  for (const auto& [where, n] : counts) out += fmt::format("    {:<10} {:>6}\n", where, n);
  return out;
}

std::shared_ptr<const run::WorkloadResult> read_usemem_result(const nlohmann::json& tasks) {
  return std::make_shared<const UsememResult>(tasks_from_json(tasks));
}

}  // namespace pagesim::workload
