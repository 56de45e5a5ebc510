// A workload's own part of a run's result, which the result and report libraries do not know:
// usemem's per-task placements, for one (include/pagesim/workload/usemem_result.h). The
// workload that sets RunResult::workload_result defines the type; the JSON writer puts its
// records under runs[].tasks ([] for a run without one) and the verbose human report prints its
// section. Reading a result file back, the report asks the run's workload to rebuild it
// (WorkloadInfo::read_result).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace pagesim::run {

class WorkloadResult {
 public:
  virtual ~WorkloadResult() = default;
  // runs[].tasks: one entry per task.
  virtual nlohmann::ordered_json tasks_json() const = 0;
  // The verbose report's section for the run's `repeat`, its lines ending in '\n'; "" for none.
  virtual std::string human_section(unsigned repeat) const = 0;
};

}  // namespace pagesim::run
