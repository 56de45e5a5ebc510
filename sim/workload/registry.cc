// The registered workloads (workloads.def), sorted by name.
#include "pagesim/workload/registry.h"

#include <algorithm>

namespace pagesim::workload {

#define PAGESIM_WORKLOAD(name) WorkloadInfo name##_workload();
#include "workloads.def"
#undef PAGESIM_WORKLOAD

namespace {
std::vector<WorkloadInfo> build() {
  std::vector<WorkloadInfo> w = {
#define PAGESIM_WORKLOAD(name) name##_workload(),
#include "workloads.def"
#undef PAGESIM_WORKLOAD
  };
  std::sort(w.begin(), w.end(), [](const WorkloadInfo& a, const WorkloadInfo& b) { return a.name < b.name; });
  for (WorkloadInfo& info : w)
    for (run::MetricInfo& m : info.metrics) m.owner = info.name;
  return w;
}
}  // namespace

const std::vector<WorkloadInfo>& registered_workloads() {
  static const std::vector<WorkloadInfo> kWorkloads = build();
  return kWorkloads;
}

const WorkloadInfo* find_workload(const std::string& name) {
  for (const WorkloadInfo& w : registered_workloads())
    if (w.name == name) return &w;
  return nullptr;
}

}  // namespace pagesim::workload
