// The metrics the engines themselves report (their workloads' are declared with the workloads).
#include "pagesim/engine/engine.h"

namespace pagesim::engine {

std::vector<run::MetricInfo> engine_metrics() {
  using run::kAllEngines, run::kNative, run::kVirtual, run::kThreadedEngines;
  std::vector<run::MetricInfo> m = {
      {"elapsed_s", "s", kAllEngines, "the measured phase (virtual time on the virtual engine)", true},
      {"sys_s", "s", kThreadedEngines, "time inside the allocator's syscalls, summed over CPUs (lock spinning included)", true},
      {"threads", "", kNative, "CPU threads", false, true},
      {"host_cpus", "", kNative, "the host's CPUs", false, true},
      {"vcpus", "", kVirtual, "tasks run (one per vCPU unless usemem's nr_task says otherwise)", false, true},
      {"model_accesses", "", kVirtual, "cache-model calls of all tasks", false, false, true},
      {"causality_yields", "", kVirtual, "switches because a task's clock passed the next one's", false, false, true},
      {"causality_slack_accesses", "", kVirtual, "accesses run ahead of the next clock under engine.slack_ns", false, false, true},
      {"irq_off_{site}_count", "", kThreadedEngines, "IRQ-off regions entered at a call site"},
      {"irq_off_{site}_avg_ns", "ns", kThreadedEngines, "their mean length", true},
      {"irq_off_{site}_max_ns", "ns", kThreadedEngines, "their longest", true},
      // Reported for every workload on the virtual engine, over its measured phase
      // (VirtualDriver::mark_start and mark_end take it; phase_profile.h).
      {"time.user_time", "s", kVirtual, "vm-scalability.time.user_time: user-mode work (usemem's store loops)"},
      {"time.system_time", "s", kVirtual, "vm-scalability.time.system_time: inside the syscalls (usemem: mmap, faults, clearing, munmap)"},
      {"time.elapsed_time", "s", kVirtual, "vm-scalability.time.elapsed_time: the measured phase (usemem: first fork to the last task's end)"},
      {"time.percent_of_cpu_this_job_got", "%", kVirtual, "(user + system) / elapsed"},
      {"time.voluntary_context_switches", "", kVirtual, "sleeps at barriers and the start pipe, and waits"},
      {"time.involuntary_context_switches", "", kVirtual, "slices given up to a queued task"},
      {"sched.migrations", "", kVirtual, "CPU changes: wake-ups, balancing, NUMA balancing"},
      {"idle_pct", "%", kVirtual, "mpstat.cpu.all.idle%: vCPU time with no task running"},
      {"perf-profile.self.{function}", "%", kVirtual,
       "share of all vCPU time charged at a call site itself (its callees apart), each site that charged any; do_rw_once: "
       "the store loops; other: busy time no site was charged. With perf-profile.spin.* and idle_pct they add up to 100"},
      {"perf-profile.spin.{lock}", "%", kVirtual, "share of all vCPU time spinning on zone_lock or hugetlb_lock"},
      {"perf-profile.children.{function}", "%", kVirtual,
       "share of all vCPU time in a function and its callees: rmqueue_bulk, native_queued_spin_lock_slowpath, "
       "prep_compound_page, clear_huge_page, free_pcppages_bulk, do_rw_once; usemem: __mmap"},
      // Reported on the virtual engine under engine.sched: numa, over the whole run.
      {"proc-vmstat.numa_{counter}", "", kVirtual,
       "NUMA balancing (engine.sched: numa): pte_updates, hint_faults, hint_faults_local, pages_migrated"},
      {"sched.numa_{event}", "", kVirtual,
       "NUMA balancing: scans (task_numa_work passes), task_moves (to an idle CPU), swaps (migrate_swap)"},
  };
  for (run::MetricInfo& i : m) i.owner = "engine";
  return m;
}

}  // namespace pagesim::engine
