// NUMA balancing of single-threaded processes, by 5.17's rules: what a usemem child's scan
// passes mark, which hinting faults follow, where its small pages migrate and which node it
// comes to prefer.
//
// - task_tick_numa: a pass when the task's sum_exec_runtime passes node_stamp + scan period;
//   the first comes after sysctl_numa_balancing_scan_delay of the task's own CPU time.
// - task_numa_work skips hugetlb VMAs, and change_pte_range skips pages already on the
//   scanning CPU's node (single-threaded mm), so a pass marks only the task's small pages that
//   are away from where it runs (numa_pte_updates). It touches them microseconds later: a
//   hinting fault per page (do_numa_page), local when the page is on the faulting CPU's node.
// - should_numa_migrate_memory: private faults migrate the page to the faulting node while the
//   task has no preferred node or numa_scan_seq <= 4; later only when the page's last fault
//   came from that node too (the two-stage filter).
// - task_numa_fault runs task_numa_placement before recording the fault, and placement only
//   acts when the scan sequence changed: the preferred node is first set from pass-1 faults,
//   at pass 2. update_task_scan_period doubles the period while the task has no local faults.
//
// The hot pages move together (they are faulted by one task from one CPU), so the model
// keeps one group per task: its node and the node of its last fault (last_cpupid).
#pragma once

#include <cstdint>
#include <vector>

#include "pagesim/engine/virtual/sched.h"

namespace pagesim {

// /proc/vmstat's NUMA balancing counters, and the task moves it made.
struct NumaBalancingStats {
  uint64_t scans = 0;              // task_numa_work passes
  uint64_t pte_updates = 0;        // numa_pte_updates
  uint64_t hint_faults = 0;        // numa_hint_faults
  uint64_t hint_faults_local = 0;  // numa_hint_faults_local
  uint64_t pages_migrated = 0;     // numa_pages_migrated
  uint64_t task_moves = 0;         // task_numa_migrate to an idle CPU (migrate_task_to)
  uint64_t swaps = 0;              // task_numa_migrate swaps (migrate_swap)
  // A task's first two passes after each fork, for the timeline.
  struct Pass {
    unsigned task = 0, fork = 0, pass = 0;  // fork: how many times the task was forked before
    ps_t at = 0;
    unsigned node = 0;      // where it ran
    uint32_t marked = 0;    // pages the pass marked
  };
  std::vector<Pass> passes;
};

class NumaBalancing {
 public:
  explicit NumaBalancing(const SchedParams& p) : p_(p) {}

  // A new process (fork): fresh numa state, its small pages on the node it was forked on,
  // where ready() first wrote them.
  void fork(unsigned task, unsigned node, unsigned nr_nodes);
  // task_tick_numa for `task`, running on `node` at `now` with `runtime` of CPU time: a scan
  // pass when due, then its hinting faults. True when the faults asked to move the task to
  // its preferred node (numa_migrate_preferred).
  bool tick(unsigned task, unsigned node, ps_t runtime, ps_t now);
  int preferred(unsigned task) const { return tasks_[task].preferred; }
  NumaBalancingStats& stats() { return stats_; }
  const NumaBalancingStats& stats() const { return stats_; }

 private:
  struct Task {
    unsigned forks = 0;
    ps_t node_stamp = 0, scan_period = 0, migrate_retry = 0;
    unsigned mm_seq = 0, seq = 0;     // mm->numa_scan_seq, p->numa_scan_seq
    int preferred = -1;               // p->numa_preferred_nid
    unsigned pages_node = 0;          // where the hot pages are
    int last_fault_node = -1;         // the pages' last_cpupid node (-1: unset)
    std::vector<uint64_t> faults, buf;  // p->numa_faults: the decayed statistics, the new faults
    uint64_t local = 0, remote = 0;   // p->numa_faults_locality since the last placement
  };
  void faults(Task& t, unsigned node, ps_t now, bool& migrate);
  void placement(Task& t);

  SchedParams p_;
  std::vector<Task> tasks_;
  NumaBalancingStats stats_;
};

}  // namespace pagesim
