// The virtual engine's scheduler core, as the kernel's sched/core.c: the per-vCPU run queues
// (Runqueues) and each vCPU's busy time, the barriers, fork and the start pipe's wake-ups,
// dispatch, the scheduler events of a running task (a pending migration, the end of its
// slice) and the balance tick with the migrations it orders. Where a task goes the policy
// decides (SchedPolicy, sched.h, as fair.c); when a task runs the engine decides (VirtualEngine,
// virtual.h: the fibers and the causality loop), which the core asks through TaskSwitch only.
//
// Used by VirtualEngine (a run's start and end, the run loop's tick, a task's end) and by
// VirtualCpu (barrier, start_barrier, rendezvous, cond_resched and the slices of run_user).
//
// Invariants: a vCPU runs at most one task (Runqueues::Cpu::curr) and queues the others in
// FIFO order; a live task is current on its vCPU, queued on one, asleep, or waiting at the
// barrier (one kind at a time). A migration ordered by the tick is applied only at the task's
// next scheduler event or dispatch, never inside a spinlock or an IRQ-off region (VirtualCpu
// refuses those). next_tick() is the time of the next balance tick, max() under a policy
// without ticks. Times are virtual picoseconds.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "pagesim/engine/virtual/sched.h"

namespace pagesim {

class VirtualCpu;

// What the scheduler core asks of the engine that runs the tasks' fibers.
class TaskSwitch {
 public:
  virtual VirtualCpu& task(unsigned t) = 0;
  virtual void make_ready(VirtualCpu& t) = 0;  // runnable at its clock
  virtual void block(VirtualCpu& t) = 0;       // t's fiber switches away until it is made ready

 protected:
  ~TaskSwitch() = default;
};

class Scheduler {
 public:
  enum class BarrierKind { plain, rendezvous, start };

  Scheduler(TaskSwitch& tasks, const SchedParams& params, std::unique_ptr<SchedPolicy> policy)
      : tasks_(tasks), params_(params), policy_(std::move(policy)) {}

  // The machine, one vCPU at a time: its node and its SMT sibling (itself when it has none).
  void add_cpu(unsigned node, unsigned sibling);
  void add_task();  // one more task slot; tasks keep their slots across runs

  // A run of `nr_tasks` tasks starts at `start`: the parent forks them all, each runs at once
  // on the CPU the policy gives it or queues there (made ready in task order).
  void start_run(unsigned nr_tasks, ps_t start);
  // The run ended with tasks still blocked: every vCPU is free and nobody waits.
  void abandon();
  // The balance tick due at next_tick(): the policy's migrations become pending, and idle
  // vCPUs take their queued tasks.
  void tick();
  ps_t next_tick() const { return next_tick_; }

  // --- a task's scheduler events ---
  // t waits until every live task has arrived, then continues as `kind` says (virtual.h).
  void barrier(VirtualCpu& t, BarrierKind kind);
  // Applies a pending migration, or gives the CPU to a queued task once t's slice is used up
  // (an involuntary switch).
  void schedule_point(VirtualCpu& t);
  // How long t may run user-mode work on `cpu` before its next scheduler event: the policy's
  // slice or tick, or one tick (SchedParams::tick_ps) under a policy without ticks.
  ps_t user_slice(unsigned cpu) const;
  void finished(VirtualCpu& t);  // t returned: it leaves its CPU for good

  // --- observation ---
  const Runqueues& runqueues() const { return rq_; }
  SchedPolicy& policy() { return *policy_; }
  // The virtual time some task ran on a vCPU, summed over vCPUs, up to `t` (virtual.h).
  ps_t busy_until(ps_t t) const;

 private:
  void release_barrier();
  void fork_all(const std::vector<unsigned>& ids, ps_t now, bool children_sleep);
  void wake_one(unsigned id, unsigned waker_cpu, ps_t now);
  void place(VirtualCpu& t, unsigned cpu, ps_t at);  // at fork: t runs on `cpu` from `at`
  void move(VirtualCpu& t, unsigned cpu, ps_t at);   // a migration
  // Run queues: a task needs its CPU (it may queue and block), leaves it (the next queued
  // task is dispatched), or is put there by a wake-up or a balancer.
  void enter_cpu(VirtualCpu& t);
  void leave_cpu(VirtualCpu& t);
  bool enqueue(VirtualCpu& t, ps_t now);  // true: it got the CPU and is runnable
  void dispatch(unsigned cpu, ps_t now);

  TaskSwitch& tasks_;
  SchedParams params_;  // the engine's use: switch cost, parent CPU, tick (the policy has its own copy)
  std::unique_ptr<SchedPolicy> policy_;
  Runqueues rq_;
  std::vector<ps_t> cpu_busy_;
  ps_t next_tick_ = 0;
  std::vector<Migration> migrations_;  // scratch for tick()
  std::vector<unsigned> barrier_waiting_;
  BarrierKind barrier_kind_ = BarrierKind::plain;
  unsigned live_ = 0;
};

}  // namespace pagesim
