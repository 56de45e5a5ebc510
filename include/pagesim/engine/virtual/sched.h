// The virtual-time engine's scheduler layer: which vCPU each task runs on, decided by a
// pluggable policy at the kernel's scheduler events (fork, wake-up, the periodic balance
// tick), never inside a spinlock or an IRQ-off region.
//
// The scheduler core owns the run queues (Runqueues, scheduler.h): per vCPU the running task
// and the tasks queued behind it. A policy reads them and answers with a CPU (fork, wake) or with migrations
// (tick). Policies are deterministic: no host time, no pointer or hash order.
//
// Registered policies (make_sched_policy):
//   pinned   task i on vCPU i mod nr_cpus, forever (usemem -b, taskset).
//   cfs      5.17 CFS placement: sched_balance_fork with allow_numa_imbalance (sleeping
//            children do not count), wake-ups through wake_affine (wake_affine_idle, then
//            wake_affine_weight) and select_idle_sibling, idle balancing per domain
//            (should_we_balance, up to sysctl_sched_nr_migrate tasks a pull, the balance
//            interval doubling on failure), active balance, sched_slice preemption.
//   numa     cfs plus NUMA balancing (numa_balancing.h). SchedParams::numa_home chooses the
//            rule: kernel (scan passes on the task's runtime, hinting faults on its small
//            pages, pass-1 migration of the pages to the task, the preferred node from the
//            fault statistics), fork_node (the task is sent back to the node it was forked on
//            after the scan delay: an ablation, not a kernel rule) or none.
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
  ps_t latency_ps = 24000000000;          // sysctl_sched_latency 6 ms x (1 + ilog2(8))
  // sd_init: min_interval = sd_weight ms, max_interval = 2 x sd_weight ms, per domain; the
  // sd_weight is the machine's (MC: a node's CPUs, NUMA: all CPUs), set by the engine.
  unsigned nr_migrate = 32;               // sysctl_sched_nr_migrate: tasks a pull detaches at most
  unsigned cache_nice_tries = 2;          // sd_init, NUMA domains: active balance after
                                          // nr_balance_failed > cache_nice_tries + 2
  unsigned imbalance_pct = 117;           // sd_init, MC and NUMA domains (wake_affine_weight)
  ps_t numa_scan_delay_ps = 1000000000000;   // sysctl_numa_balancing_scan_delay 1000 ms
  ps_t numa_scan_period_ps = 1000000000000;  // sysctl_numa_balancing_scan_period_min 1000 ms
  ps_t numa_scan_period_max_ps = 60000000000000;  // sysctl_numa_balancing_scan_period_max 60 s
  // When each idle CPU's balances first fall due after a parent begins forking (each fork
  // batch, so each LKP iteration): at a phase drawn in [0, window) per CPU and domain. 0: the
  // domain's max_interval, 2 x sd_weight ms, where an idle box's failed balances leave it.
  ps_t balance_window_ps = 0;
  uint64_t seed = 1;                      // the phases' draw (the run's seed)
  std::string numa_home = "kernel";       // numa policy: kernel | fork_node | none
  unsigned numa_hot_pages = 8;            // small pages a usemem child keeps touching (its
                                          // stack, RNG state, .data/.bss; usemem.c): assumed
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
    ps_t idle_since = 0;           // rq->idle_stamp: when it last went idle
  };
  std::vector<Cpu> cpus;
  std::vector<unsigned> cpu_node;  // vCPU -> node
  std::vector<unsigned> sibling;   // vCPU -> its SMT sibling (itself without SMT)
  std::vector<unsigned> task_cpu;  // task -> the vCPU it is on or queued on
  std::vector<unsigned> task_home; // task -> the node it was forked on (where ready() ran)
  std::vector<ps_t> task_forked;   // task -> fork time
  ps_t forks_began = 0;            // when the parent began forking the last set of tasks
  std::vector<bool> task_asleep;   // task -> sleeping (barrier), on no queue
  std::vector<ps_t> task_runtime;  // task -> se.sum_exec_runtime, up to its last stint's start
  int parent_cpu = -1;             // the workload's parent, running there (fork and wake loops)

  unsigned nr_cpus() const { return static_cast<unsigned>(cpus.size()); }
  unsigned nr_running(unsigned c) const {
    return (cpus[c].curr >= 0) + static_cast<unsigned>(cpus[c].queued.size()) + (parent_cpu == static_cast<int>(c));
  }
  // sum_exec_runtime of `task` at `now`, its current stint included.
  ps_t runtime(unsigned task, ps_t now) const;
  bool idle(unsigned c) const { return nr_running(c) == 0; }
  unsigned node_running(unsigned node) const;
  // Moves a queued (runnable, not running) task to dst's queue; the engine dispatches it
  // there when dst is idle.
  void move_queued(unsigned task, unsigned dst);
  unsigned node_cpus(unsigned node) const;
  // The node's CPUs left over by its runnable tasks (idle CPUs, when no CPU runs two).
  unsigned node_spare(unsigned node) const;
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
  // The slice after which a running task yields to a queued one at its next scheduler event,
  // with `nr_running` tasks on its CPU; 0: never.
  virtual ps_t slice(unsigned nr_running) const { (void)nr_running; return 0; }
  // NUMA balancing's counters (numa_balancing.h); nullptr when the policy has none.
  virtual const struct NumaBalancingStats* numa_stats() const { return nullptr; }
};

// The registered policy names, in the order `pagesim list` shows them.
inline const std::vector<std::string>& sched_policy_names() {
  static const std::vector<std::string> kNames{"pinned", "cfs", "numa", "trace"};
  return kNames;
}
// The numa policy's rules for where a task belongs (SchedParams::numa_home).
inline const std::vector<std::string>& numa_home_names() {
  static const std::vector<std::string> kNames{"kernel", "fork_node", "none"};
  return kNames;
}
// Builds a policy by name. Throws InputError for an unknown name or an unreadable trace file
// (naming the file and line).
std::unique_ptr<SchedPolicy> make_sched_policy(const std::string& name, const SchedParams& params);

}  // namespace pagesim
