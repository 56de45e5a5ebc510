// usemem's scenario parameters, resolved for a machine (LKP's sizing rules).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "pagesim/config/units.h"
#include "pagesim/error.h"
#include "pagesim/mm/hugetlb.h"
#include "pagesim/mm/machine.h"
#include "pagesim/vt/clear_pages.h"
#include "pagesim/workload/registry.h"
#include "pagesim/workload/usemem.h"

namespace pagesim::workload {

// workload.params.mempolicy's choices: the memory policy modes by the names numactl gives them.
inline constexpr std::pair<std::string_view, mm::MpolMode> kMempolicies[] = {
    {"local", mm::MpolMode::local}, {"bind", mm::MpolMode::bind}, {"preferred", mm::MpolMode::preferred}, {"interleave", mm::MpolMode::interleave}};
// workload.params.clear_huge_page's choices, by vt::clear_mode_name.
inline constexpr vt::ClearMode kClearModes[] = {vt::ClearMode::per_subpage, vt::ClearMode::multi_page};

// usemem's choice parameters, read once from the validated parameters into their enums.
struct UsememChoices {
  mm::MpolMode mempolicy = mm::MpolMode::local;
  vt::ClearMode clear_huge_page = vt::ClearMode::per_subpage;
};

// The names `choices` offer, for the parameters' declaration.
inline std::vector<std::string> mempolicy_names() {
  std::vector<std::string> names;
  for (const auto& [name, mode] : kMempolicies) names.emplace_back(name);
  return names;
}
inline std::vector<std::string> clear_mode_names() {
  std::vector<std::string> names;
  for (vt::ClearMode m : kClearModes) names.emplace_back(vt::clear_mode_name(m));
  return names;
}

// `p` was validated against the declaration, whose choices are the names above.
inline UsememChoices usemem_choices(const config::Params& p) {
  UsememChoices c;
  for (const auto& [name, mode] : kMempolicies)
    if (p.string("mempolicy") == name) c.mempolicy = mode;
  for (vt::ClearMode m : kClearModes)
    if (p.string("clear_huge_page") == vt::clear_mode_name(m)) c.clear_huge_page = m;
  return c;
}

struct UsememSetup {
  UsememParams task;
  unsigned nr_task = 1;          // usemem -n: tasks (LKP: nr_cpu)
  uint64_t iterations = 1;
  unsigned long overcommit = 0;  // nr_overcommit_hugepages
  uint64_t data_bytes = 0;       // per task, on this host
};

// A node list as numactl and the kernel's nodelist_parse() read it (config::parse_id_list):
// "0", "0,1", "0-3,6". The nodes as bits, or nothing with `why` set.
inline std::optional<uint64_t> parse_nodelist(const std::string& list, unsigned nr_nodes, std::string& why) {
  const auto refuse = [&](std::string_view what) {
    why = fmt::format("'{}' is not a list of nodes of this machine (0-{}): {}", list, nr_nodes - 1, what);
    return std::nullopt;
  };
  const auto ranges = config::parse_id_list(list);
  if (!ranges) return refuse("not numbers and ranges, comma separated");
  if (ranges->empty()) return refuse("no node");
  uint64_t bits = 0;
  for (const auto& [lo, hi] : *ranges) {
    if (hi >= nr_nodes) return refuse(fmt::format("node {} does not exist", hi));
    for (uint64_t n = lo; n <= hi; ++n) bits |= uint64_t{1} << n;
  }
  return bits;
}

// case-anon-w-rand-hugetlb: unit_size = MemTotal / 2, per-task SIZE = unit_size / nr_task;
// setup_hugetlb: nr_overcommit_hugepages = unit_size / 2M + nr_task + 1. nr_task defaults to
// the CPU count (hw_vars); only an engine that time-shares CPUs runs another count.
inline UsememSetup usemem_setup(const mm::Machine& m, const config::Params& p, const UsememChoices& choices, unsigned cpus,
                                uint64_t seed, bool short_mode, bool time_shares = false) {
  UsememSetup s;
  const int64_t want = p.integer("nr_task");
  if (want && static_cast<unsigned>(want) != cpus && !time_shares)
    throw InputError(fmt::format("workload.params.nr_task: {} tasks on {} CPUs; only the virtual engine runs a task "
                                 "count other than the CPU count",
                                 want, cpus));
  const unsigned tasks = want ? static_cast<unsigned>(want) : cpus;
  s.nr_task = tasks;
  uint64_t mem = 0;
  for (const mm::Zone* z : m.populated_zones()) mem += z->managed_pages * mm::PAGE_SIZE;
  const uint64_t unit_size = mem / 2;
  constexpr uint64_t kHuge = mm::pages_per_huge_page * mm::PAGE_SIZE;
  s.task.size = p.integer("size") ? static_cast<uint64_t>(p.integer("size")) : unit_size / tasks;
  s.task.size = (s.task.size + kHuge - 1) / kHuge * kHuge;
  if (short_mode) s.task.size = std::min<uint64_t>(s.task.size, 8 * kHuge);  // every path, 8 pages per task
  s.task.data_scale = static_cast<uint64_t>(p.integer("data_scale"));
  if (short_mode) s.task.data_scale = std::max<uint64_t>(s.task.data_scale, s.task.size / (4u << 20));
  s.task.seed = seed;
  s.task.surplus_policy = p.boolean("surplus_policy");
  s.task.clear_mode = choices.clear_huge_page;
  s.task.policy.mode = choices.mempolicy;
  if (const std::string& nodes = p.string("policy_nodes"); nodes != "all") {
    std::string why;
    const std::optional<uint64_t> bits = parse_nodelist(nodes, m.nr_nodes(), why);
    if (!bits) throw InputError(fmt::format("workload.params.policy_nodes: {}", why));
    s.task.policy.nodes.bits = *bits;
  }
  s.iterations = static_cast<uint64_t>(p.integer("iterations"));
  if (short_mode) s.iterations = 1;
  s.overcommit = p.integer("overcommit") ? static_cast<unsigned long>(p.integer("overcommit"))
                                         : static_cast<unsigned long>(unit_size / kHuge + tasks + 1);
  s.data_bytes = std::max<uint64_t>(s.task.size / s.task.data_scale, 4096);
  return s;
}

}  // namespace pagesim::workload
