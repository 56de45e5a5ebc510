// The virtual-time engine's scheduler layer: which vCPU each task runs on, decided by a
// pluggable policy at the kernel's scheduler events (fork, wake-up, the periodic balance
// tick), never inside a spinlock or an IRQ-off region.
//
// The engine owns the run queues (Runqueues): per vCPU the running task and the tasks queued
// behind it. A policy reads them and answers with a CPU (fork, wake) or with migrations
// (tick). Policies are deterministic: no host time, no pointer or hash order.
//
// Registered policies (make_sched_policy):
//   pinned   task i on vCPU i mod nr_cpus, forever (usemem -b, taskset).
//   cfs      5.17 CFS placement: sched_balance_fork with allow_numa_imbalance, wake-ups through
//            wake_affine_idle + select_idle_sibling (WF_SYNC pipe wake-ups pull the wakee
//            toward the waker's LLC), idle balance pulling queued tasks, NUMA-domain balance
//            with active balance of running tasks, tick preemption among queued tasks.
//   numa     cfs plus NUMA balancing: after the scan delay, task_numa_migrate moves a task to
//            its preferred node. task_numa_work skips hugetlb VMAs, so the preferred node is
//            where its other memory (stack, heap, libc data) was first touched: the node it
//            ran on first.
//   trace    placements replayed from a file: lines "<time_ns> <task> <cpu>".
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "pagesim/vt/machine_model.h"

namespace pagesim {

using vt::ps_t;

// Scheduler constants; defaults are the 5.17 values for a 128-CPU, 2-node box
// (docs/machine-model.md, "Scheduler").
struct SchedParams {
  ps_t tick_ps = 1000000000;              // CONFIG_HZ=1000
  ps_t min_granularity_ps = 3000000000;   // sysctl_sched_min_granularity 0.75 ms x (1 + ilog2(8))
  ps_t llc_balance_ps = 64000000000;      // MC domain: sd->balance_interval = sd_weight ms (64 CPUs)
  ps_t numa_balance_ps = 128000000000;    // NUMA domain: sd_weight ms (128 CPUs)
  unsigned active_balance_after = 3;      // failed balances before a running task is pushed
                                          // (nr_balance_failed > cache_nice_tries + 2, NUMA: 1)
  ps_t numa_scan_delay_ps = 1000000000000;   // sysctl_numa_balancing_scan_delay 1000 ms
  ps_t numa_scan_period_ps = 1000000000000;  // sysctl_numa_balancing_scan_period_min 1000 ms
  ps_t switch_cost_ps = 5000000;          // a wake-up, context switch or migration: assumed 5 us
  unsigned parent_cpu = 0;                // where the workload's parent runs (fork, first wake)
  std::string trace_file;                 // trace policy: the placement file
};

// What a policy sees: the engine's run queues and the topology.
struct Runqueues {
  struct Cpu {
    int curr = -1;                 // the running task, -1 when idle
    std::deque<unsigned> queued;   // runnable, waiting for this CPU (FIFO)
    ps_t curr_since = 0;           // when curr got the CPU (for the slice)
    unsigned balance_failed = 0;   // consecutive NUMA balances that found only running tasks
  };
  std::vector<Cpu> cpus;
  std::vector<unsigned> cpu_node;  // vCPU -> node
  std::vector<unsigned> sibling;   // vCPU -> its SMT sibling (itself without SMT)
  std::vector<unsigned> task_cpu;  // task -> the vCPU it is on or queued on
  std::vector<unsigned> task_home; // task -> the node it first ran on after fork
  std::vector<ps_t> task_forked;   // task -> fork time
  std::vector<bool> task_asleep;   // task -> sleeping (barrier), on no queue

  unsigned nr_cpus() const { return static_cast<unsigned>(cpus.size()); }
  unsigned nr_running(unsigned c) const { return (cpus[c].curr >= 0) + static_cast<unsigned>(cpus[c].queued.size()); }
  bool idle(unsigned c) const { return nr_running(c) == 0; }
  unsigned node_running(unsigned node) const;
  // Moves a queued (runnable, not running) task to dst's queue; the engine dispatches it
  // there when dst is idle.
  void move_queued(unsigned task, unsigned dst);
  unsigned node_cpus(unsigned node) const;
};

// A policy's decision at a tick to move a running task (active balance, task_numa_migrate):
// it moves at its next scheduler event. Queued tasks move at once (Runqueues::move_queued).
struct Migration {
  unsigned task;
  unsigned cpu;
};

class SchedPolicy {
 public:
  virtual ~SchedPolicy() = default;
  virtual std::string_view name() const = 0;
  // sched_balance_fork (select_task_rq with SD_BALANCE_FORK), from the parent's CPU.
  virtual unsigned fork(const Runqueues& rq, unsigned task, unsigned parent_cpu, ps_t now) = 0;
  // try_to_wake_up -> select_task_rq: `waker_cpu` woke the task that last ran on `prev_cpu`;
  // `sync` is WF_SYNC (the waker is about to sleep or yield, as pipe writers are).
  virtual unsigned wake(const Runqueues& rq, unsigned task, unsigned prev_cpu, unsigned waker_cpu, bool sync, ps_t now) {
    (void)rq, (void)task, (void)waker_cpu, (void)sync, (void)now;
    return prev_cpu;
  }
  // newidle_balance: `cpu` just went idle; it may pull a queued task (Runqueues::move_queued).
  virtual void newidle(Runqueues& rq, unsigned cpu, ps_t now) { (void)rq, (void)cpu, (void)now; }
  // The periodic balance at virtual time `now` (every tick_period()): moves queued tasks
  // through `rq` and appends the running tasks to move.
  virtual void tick(Runqueues& rq, ps_t now, std::vector<Migration>& out) { (void)rq, (void)now, (void)out; }
  // 0: the policy never balances (no ticks, no preemption).
  virtual ps_t tick_period() const { return 0; }
  // The slice after which a running task yields to a queued one at its next scheduler event.
  virtual ps_t slice() const { return 0; }
};

// The registered policy names, in the order `pagesim list` shows them.
inline const std::vector<std::string>& sched_policy_names() {
  static const std::vector<std::string> kNames{"pinned", "cfs", "numa", "trace"};
  return kNames;
}
// Builds a policy by name. Throws InputError for an unknown name or an unreadable trace file
// (naming the file and line).
std::unique_ptr<SchedPolicy> make_sched_policy(const std::string& name, const SchedParams& params);

}  // namespace pagesim
