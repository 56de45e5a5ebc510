// NUMA balancing of single-threaded processes (include/pagesim/engine/virtual/numa_balancing.h).
#include "pagesim/engine/virtual/numa_balancing.h"

#include <algorithm>

namespace pagesim {

namespace {

constexpr unsigned kPeriodSlots = 10;     // NUMA_PERIOD_SLOTS
constexpr unsigned kPeriodThreshold = 7;  // NUMA_PERIOD_THRESHOLD
constexpr unsigned kMigrateEarlySeq = 4;  // should_numa_migrate_memory: "two full passes"

}  // namespace

// init_numa_balancing: numa_scan_period = sysctl_numa_balancing_scan_delay, node_stamp = 0,
// no preferred node, no fault statistics.
void NumaBalancing::fork(unsigned task, unsigned node, unsigned nr_nodes) {
  if (tasks_.size() <= task) tasks_.resize(task + 1);
  Task& t = tasks_[task];
  const unsigned forks = t.forks + 1;
  t = Task{};
  t.forks = forks;
  t.scan_period = p_.numa_scan_delay_ps;
  t.pages_node = node;
  t.faults.assign(nr_nodes, 0);
  t.buf.assign(nr_nodes, 0);
}

// task_tick_numa + task_numa_work (change_prot_numa over the task's non-hugetlb VMAs).
bool NumaBalancing::tick(unsigned task, unsigned node, ps_t runtime, ps_t now) {
  Task& t = tasks_[task];
  if (runtime <= t.node_stamp + t.scan_period) return false;
  if (!t.node_stamp) t.scan_period = p_.numa_scan_period_ps;  // task_scan_start: one scan window
  t.node_stamp += t.scan_period;
  t.mm_seq++;  // task_numa_work: mm->numa_scan_seq
  stats_.scans++;
  // change_pte_range: a single-threaded mm's pages on the scanning CPU's node stay unmarked.
  const uint32_t marked = t.pages_node == node ? 0 : p_.numa_hot_pages;
  stats_.pte_updates += marked;
  if (t.mm_seq <= 2) stats_.passes.push_back({task, t.forks - 1, t.mm_seq, now, node, marked});
  bool migrate = false;
  if (marked) faults(t, node, now, migrate);
  return migrate;
}

// do_numa_page for the marked pages, touched at once from `node`, then task_numa_fault.
void NumaBalancing::faults(Task& t, unsigned node, ps_t now, bool& migrate) {
  const uint64_t n = p_.numa_hot_pages;
  stats_.hint_faults += n;
  const bool local = t.pages_node == node;  // TNF_FAULT_LOCAL
  if (local) stats_.hint_faults_local += n;
  // should_numa_migrate_memory (private faults: the pages are the task's own).
  bool move = false;
  if (!local) {
    if (t.preferred < 0 || t.seq <= kMigrateEarlySeq)
      move = true;
    else
      move = t.last_fault_node < 0 || t.last_fault_node == static_cast<int>(node);  // two-stage filter
  }
  t.last_fault_node = static_cast<int>(node);  // page_cpupid_xchg_last
  if (move) {
    t.pages_node = node;
    stats_.pages_migrated += n;
  }
  // task_numa_fault: placement and the retry to move to the preferred node come before the
  // fault is recorded.
  if (now > t.migrate_retry) {
    placement(t);
    if (t.preferred >= 0) {  // numa_migrate_preferred
      t.migrate_retry = now + std::min<ps_t>(1000000000000, t.scan_period / 16);
      migrate = t.preferred != static_cast<int>(node);
    }
  }
  t.buf[t.pages_node] += n;  // NUMA_MEMBUF at mem_node (the page's node after migration)
  (local ? t.local : t.remote) += n;
}

// task_numa_placement: once per scan sequence, decay the statistics, add the new faults, prefer
// the node with the most; then update_task_scan_period.
void NumaBalancing::placement(Task& t) {
  if (t.seq == t.mm_seq) return;
  t.seq = t.mm_seq;
  uint64_t max_faults = 0;
  int max_nid = -1;
  for (unsigned nid = 0; nid < t.faults.size(); ++nid) {
    t.faults[nid] = t.faults[nid] - t.faults[nid] / 2 + t.buf[nid];
    t.buf[nid] = 0;
    if (t.faults[nid] > max_faults) max_faults = t.faults[nid], max_nid = static_cast<int>(nid);
  }
  if (max_faults) t.preferred = max_nid;  // sched_setnuma
  // update_task_scan_period: the faults are private; no local one means scan slower.
  if (t.local == 0) {
    t.scan_period = std::min(p_.numa_scan_period_max_ps, t.scan_period * 2);
  } else {
    const ps_t slot = (t.scan_period + kPeriodSlots - 1) / kPeriodSlots;
    const unsigned lr = static_cast<unsigned>(t.local * kPeriodSlots / (t.local + t.remote));
    // Mostly local: slow down by the excess; mostly remote private faults: ps_ratio (all
    // private) is above the threshold as well, so the period grows by its excess (3 slots).
    const unsigned slots = lr >= kPeriodThreshold ? std::max(1u, lr - kPeriodThreshold) : kPeriodSlots - kPeriodThreshold;
    t.scan_period = std::clamp(t.scan_period + slots * slot, p_.numa_scan_period_ps, p_.numa_scan_period_max_ps);
  }
  t.local = t.remote = 0;
}

}  // namespace pagesim
