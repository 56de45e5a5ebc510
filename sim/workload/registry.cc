// The registered workloads and their typed parameters.
#include "pagesim/workload/registry.h"

#include <algorithm>

#include "pagesim/error.h"

namespace pagesim::workload {

namespace {
template <class T>
const T& get(const std::map<std::string, ParamValue>& values, const std::string& name) {
  auto it = values.find(name);
  if (it == values.end()) throw ModelError("workload parameter '" + name + "' was not declared");
  if (!std::holds_alternative<T>(it->second)) throw ModelError("workload parameter '" + name + "' has another type");
  return std::get<T>(it->second);
}

std::vector<WorkloadInfo> build() {
  std::vector<WorkloadInfo> w;
  w.push_back(WorkloadInfo{
      "random_mixed",
      "mixed-order alloc/free on random CPUs with injected bad pages; invariants checked as it runs",
      {
          {"ops", ParamType::integer, int64_t{200000}, 1, 1e12, {}, "allocation or free operations"},
          {"free_fraction", ParamType::number, 0.5, 0, 1, {}, "probability that an operation frees a live block"},
          {"max_live", ParamType::size, int64_t{0}, 0, 1e18, {}, "cap on live allocated memory (0: half the machine)"},
          {"fault_rate", ParamType::number, 0.0, 0, 1, {}, "bad pages injected per operation"},
          {"fault_field", ParamType::choice, std::string("refcount"), {}, {},
           {"refcount", "mapcount", "mapping", "flags", "memcg"}, "struct page field to corrupt"},
          {"fault_subpage", ParamType::integer, int64_t{-1}, -1, 1023, {}, "page of the block to corrupt: 0 head, k tail k, -1 random"},
          {"fault_on_pcp", ParamType::number, 0.3, 0, 1, {}, "share of faults aimed at pcp lists rather than buddy lists"},
          {"check_every", ParamType::integer, int64_t{10000}, 0, 1e12, {}, "operations between invariant checks (0: at the end)"},
      }});
  w.push_back(WorkloadInfo{
      "pcp_churn",
      "seed 003's mmap/touch/munmap loop as order-0 allocations and frees through the pcp; per-iteration median and stdev",
      {
          {"iterations", ParamType::integer, int64_t{200}, 1, 1e9, {}, "loops per CPU"},
          {"pages", ParamType::integer, int64_t{2048}, 1, 1 << 24, {}, "pages touched (allocated) per loop"},
      }});
  w.push_back(WorkloadInfo{
      "thp_alloc",
      "order-9 THP allocation and free through pcp list 13 (rmqueue_bulk refills of 2 blocks)",
      {
          {"iterations", ParamType::integer, int64_t{2000}, 1, 1e9, {}, "loops per CPU"},
          {"batch", ParamType::integer, int64_t{1}, 1, 1 << 16, {}, "THP blocks allocated, then freed, per loop"},
      }});
  w.push_back(WorkloadInfo{
      "usemem",
      "vm-scalability case-anon-w-rand-hugetlb: per task mmap MAP_HUGETLB (surplus reservation), fault every 2 MiB "
      "page, SIZE/8 random 8-byte stores, munmap; LKP's throughput, median and free_time",
      {
          {"size", ParamType::size, int64_t{0}, 0, 1e15, {}, "per-task SIZE (0: MemTotal / 2 / tasks, as LKP)"},
          {"nr_task", ParamType::integer, int64_t{0}, 0, 4096, {}, "usemem -n (0: one per CPU, as LKP's hw_vars; other counts: virtual engine)"},
          {"data_scale", ParamType::integer, int64_t{1}, 1, 1 << 20, {}, "host data region = SIZE / data_scale"},
          {"iterations", ParamType::integer, int64_t{1}, 1, 1000, {}, "case iterations, state carried over (LKP runs 16)"},
          {"mempolicy", ParamType::choice, std::string("local"), {}, {}, {"local", "bind", "preferred", "interleave"},
           "the tasks' memory policy at fault time"},
          {"policy_nodes", ParamType::string, std::string("all"), {}, {}, {}, "node list for bind/preferred/interleave, e.g. 0,1"},
          {"surplus_policy", ParamType::boolean, false, {}, {}, {}, "also apply the policy to the reservation's order-9 allocations (not 5.17)"},
          {"overcommit", ParamType::integer, int64_t{0}, 0, 1e12, {}, "nr_overcommit_hugepages (0: LKP's unit_size/2M + tasks + 1)"},
      }});
  std::sort(w.begin(), w.end(), [](const WorkloadInfo& a, const WorkloadInfo& b) { return a.name < b.name; });
  return w;
}
}  // namespace

int64_t Params::integer(const std::string& name) const { return get<int64_t>(values_, name); }
double Params::number(const std::string& name) const { return get<double>(values_, name); }
bool Params::boolean(const std::string& name) const { return get<bool>(values_, name); }
const std::string& Params::string(const std::string& name) const { return get<std::string>(values_, name); }

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
