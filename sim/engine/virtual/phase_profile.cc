// The measured phase's profile on the virtual engine, and its metrics (phase_profile.h).
#include "pagesim/engine/virtual/phase_profile.h"

#include <fmt/format.h>

#include <algorithm>

#include "pagesim/engine/virtual/metrics.h"
#include "pagesim/engine/virtual/virtual.h"

namespace pagesim::engine {

namespace {
// Reported for every workload on the virtual engine, over its measured phase
// (VirtualDriver::mark_start and mark_end take it).
constexpr run::Metric kUserTime{"time.user_time", "s", run::kVirtual,
                                "vm-scalability.time.user_time: user-mode work (usemem's store loops)"};
constexpr run::Metric kSystemTime{"time.system_time", "s", run::kVirtual,
                                  "vm-scalability.time.system_time: inside the syscalls (usemem: mmap, faults, clearing, munmap)"};
constexpr run::Metric kElapsedTime{"time.elapsed_time", "s", run::kVirtual,
                                   "vm-scalability.time.elapsed_time: the measured phase (usemem: first fork to the last task's end)"};
constexpr run::Metric kPercentOfCpu{"time.percent_of_cpu_this_job_got", "%", run::kVirtual, "(user + system) / elapsed"};
constexpr run::Metric kVoluntarySwitches{"time.voluntary_context_switches", "", run::kVirtual,
                                         "sleeps at barriers and the start pipe, and waits"};
constexpr run::Metric kInvoluntarySwitches{"time.involuntary_context_switches", "", run::kVirtual, "slices given up to a queued task"};
constexpr run::Metric kMigrations{"sched.migrations", "", run::kVirtual, "CPU changes: wake-ups, balancing, NUMA balancing"};
constexpr run::Metric kIdlePct{"idle_pct", "%", run::kVirtual, "mpstat.cpu.all.idle%: vCPU time with no task running"};
constexpr run::MetricPattern<1> kPerfSelf{
    "perf-profile.self.{function}", "%", run::kVirtual,
    "share of all vCPU time charged at a call site itself (its callees apart), each site that charged any; do_rw_once: "
    "the store loops; other: busy time no site was charged. With perf-profile.spin.* and idle_pct they add up to 100"};
constexpr run::MetricPattern<1> kPerfSpin{"perf-profile.spin.{lock}", "%", run::kVirtual,
                                          "share of all vCPU time spinning on zone_lock or hugetlb_lock"};
}  // namespace

std::vector<run::MetricInfo> phase_profile_metrics() {
  return run::metric_infos(kUserTime, kSystemTime, kElapsedTime, kPercentOfCpu, kVoluntarySwitches, kInvoluntarySwitches,
                           kMigrations, kIdlePct, kPerfSelf, kPerfSpin, kPerfChildren);
}

PhaseProfile take_phase_profile(VirtualEngine& eng, ps_t start, ps_t end, ps_t busy_at_start) {
  PhaseProfile p;
  p.elapsed = end - start;
  p.nr_cpus = eng.machine().nr_cpus();
  p.busy = eng.busy_until(end) - busy_at_start;
  for (unsigned t = 0; t < eng.nr_tasks(); ++t) {
    const VirtualCpu& ex = eng.task(t);
    for (unsigned i = 0; i < kNumSites; ++i) {
      p.site[i] += ex.site_ps()[i];
      p.spin[i] += ex.spin_ps()[i];
    }
    for (size_t c = 0; c < p.spin_cls.size(); ++c) p.spin_cls[c] += ex.spin_ps(static_cast<LockClass>(c));
    p.user += ex.user_ps();
    p.sys += ex.sys_ps();
    p.migrations += ex.migrations();
    p.involuntary_switches += ex.involuntary_switches();
    p.voluntary_switches += ex.voluntary_switches();
  }
  return p;
}

namespace {

double seconds(ps_t ps) { return static_cast<double>(ps) / 1e12; }

// time.*, sched.* and idle_pct as the robot's report shows them.
void add_scheduler_metrics(const PhaseProfile& p, std::map<std::string, double>& m) {
  const double user = seconds(p.user), sys = seconds(p.sys), elapsed = seconds(p.elapsed);
  const double cpu_time = static_cast<double>(p.elapsed) * p.nr_cpus;
  kUserTime.set(m, user);
  kSystemTime.set(m, sys);
  kElapsedTime.set(m, elapsed);
  kPercentOfCpu.set(m, p.elapsed ? 100 * (user + sys) / elapsed : 0);
  kInvoluntarySwitches.set(m, static_cast<double>(p.involuntary_switches));
  kVoluntarySwitches.set(m, static_cast<double>(p.voluntary_switches));
  kMigrations.set(m, static_cast<double>(p.migrations));
  kIdlePct.set(m, cpu_time > 0 ? std::max(0.0, 100 * (1 - static_cast<double>(p.busy) / cpu_time)) : 0);
}

// perf-profile.children.*: a function and its callees, as the robot's e-mail lists them.
void add_children(const PhaseProfile& p, double all, std::map<std::string, double>& m) {
  auto at = [&](Site s) { return static_cast<double>(p.site[static_cast<unsigned>(s)] + p.spin[static_cast<unsigned>(s)]); };
  ps_t spinning = 0;
  for (ps_t x : p.spin) spinning += x;
  const double bulk = at(Site::rmqueue_bulk) + at(Site::__rmqueue_smallest) + at(Site::expand) + at(Site::check_pcp_refill);
  kPerfChildren.at("rmqueue_bulk").set(m, 100 * bulk / all);
  kPerfChildren.at("native_queued_spin_lock_slowpath").set(m, 100 * static_cast<double>(spinning) / all);
  kPerfChildren.at("prep_compound_page").set(m, 100 * at(Site::prep_compound_page) / all);
  kPerfChildren.at("clear_huge_page").set(m, 100 * at(Site::clear_huge_page) / all);
  kPerfChildren.at("free_pcppages_bulk").set(m, 100 * (at(Site::free_pcppages_bulk) + at(Site::__free_one_page)) / all);
  kPerfChildren.at("do_rw_once").set(m, 100 * static_cast<double>(p.user) / all);
}

// The self shares, which partition the busy time: each site that charged time, the store
// loops, the spinning per lock class, and "other" (busy time no site was charged: the
// uncontended lock words' RMWs, analytic waits and the start spread). With idle_pct, 100%.
void add_self(const PhaseProfile& p, double all, std::map<std::string, double>& m) {
  ps_t charged = p.user;
  for (ps_t x : p.site) charged += x;
  for (ps_t x : p.spin_cls) charged += x;
  kPerfSelf.at("other").set(m, 100 * (static_cast<double>(p.busy) - static_cast<double>(charged)) / all);
  for (unsigned i = 0; i < kNumSites; ++i)
    if (p.site[i]) kPerfSelf.at(site_name(static_cast<Site>(i))).set(m, 100 * static_cast<double>(p.site[i]) / all);
  if (p.user) kPerfSelf.at("do_rw_once").set(m, 100 * static_cast<double>(p.user) / all);
  for (const auto& [cls, name] : {std::pair{LockClass::zone_lock, "zone_lock"}, std::pair{LockClass::hugetlb_lock, "hugetlb_lock"}})
    kPerfSpin.at(name).set(m, 100 * static_cast<double>(p.spin_cls[static_cast<size_t>(cls)]) / all);
}

}  // namespace

void add_phase_metrics(const PhaseProfile& p, std::map<std::string, double>& m) {
  add_scheduler_metrics(p, m);
  const double all = static_cast<double>(p.elapsed) * p.nr_cpus;
  if (all <= 0) return;
  add_children(p, all, m);
  add_self(p, all, m);
}

}  // namespace pagesim::engine
