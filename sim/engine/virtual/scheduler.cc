// The virtual engine's scheduler core: barriers, fork and the start pipe's wake-ups, per-vCPU
// run queues with dispatch, a running task's scheduler events and the balance tick (the
// policy decides where; sched.h). scheduler.h has the contract.
#include "pagesim/engine/virtual/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "pagesim/engine/virtual/virtual.h"
#include "pagesim/error.h"

namespace pagesim {

void Scheduler::add_cpu(unsigned node, unsigned sibling) {
  rq_.cpus.emplace_back();
  rq_.cpu_node.push_back(node);
  rq_.sibling.push_back(sibling);
  cpu_busy_.push_back(0);
}

void Scheduler::add_task() {
  rq_.task_cpu.push_back(0), rq_.task_home.push_back(0), rq_.task_forked.push_back(0), rq_.task_asleep.push_back(false);
  rq_.task_runtime.push_back(0);
}

void Scheduler::start_run(unsigned nr_tasks, ps_t start) {
  live_ = nr_tasks;
  barrier_waiting_.clear();
  // No balance ticks: a next tick that never comes, so that sync() tests one clock.
  next_tick_ = policy_->tick_period() ? start + policy_->tick_period() : std::numeric_limits<ps_t>::max();
  std::vector<unsigned> ids(nr_tasks);
  for (unsigned i = 0; i < nr_tasks; ++i) ids[i] = i;
  fork_all(ids, start, /*children_sleep=*/false);
  for (unsigned i = 0; i < nr_tasks; ++i) {
    rq_.task_asleep[i] = false;
    if (enqueue(tasks_.task(i), start)) tasks_.make_ready(tasks_.task(i));
  }
}

void Scheduler::abandon() {
  for (Runqueues::Cpu& c : rq_.cpus) c.curr = -1, c.queued.clear();
  barrier_waiting_.clear();
}

void Scheduler::barrier(VirtualCpu& t, BarrierKind kind) {
  if (!barrier_waiting_.empty() && barrier_kind_ != kind)
    throw ModelError("virtual engine: tasks wait at two kinds of barrier at once");
  barrier_kind_ = kind;
  barrier_waiting_.push_back(t.task_);
  leave_cpu(t);
  if (kind != BarrierKind::rendezvous) {
    t.nr_vol_++;
    rq_.task_asleep[t.task_] = true;
  }
  if (barrier_waiting_.size() == live_) release_barrier();
  tasks_.block(t);  // resumed on a CPU by release_barrier, a wake-up or dispatch
}

// Every live task has arrived. A rendezvous gives each its CPU back at its own clock; a plain
// barrier wakes every task at the latest arrival where the policy's wake-up puts it; a start
// barrier forks them again, each child sleeping in poll() on the start pipe, and the parent's
// one write wakes them all.
void Scheduler::release_barrier() {
  ps_t t = 0;
  for (unsigned id : barrier_waiting_) t = std::max(t, tasks_.task(id).clock_);
  std::vector<unsigned> waiting = std::move(barrier_waiting_);
  barrier_waiting_.clear();
  std::sort(waiting.begin(), waiting.end());
  switch (barrier_kind_) {
    case BarrierKind::rendezvous:
      std::sort(waiting.begin(), waiting.end(), [&](unsigned a, unsigned b) {
        return std::pair(tasks_.task(a).clock_, a) < std::pair(tasks_.task(b).clock_, b);
      });
      for (unsigned id : waiting)
        if (enqueue(tasks_.task(id), tasks_.task(id).clock_)) tasks_.make_ready(tasks_.task(id));
      break;
    case BarrierKind::plain:
      for (unsigned id : waiting) {
        VirtualCpu& c = tasks_.task(id);
        c.clock_ = t;
        rq_.task_asleep[id] = false;
        c.pending_cpu_ = -1;
        const unsigned cpu = policy_->wake(rq_, id, c.cpu_, c.cpu_, false, t);
        if (cpu != c.cpu_) move(c, cpu, t);
        if (enqueue(c, t)) tasks_.make_ready(c);
      }
      break;
    case BarrierKind::start:
      // pipe_write -> __wake_up_common: every poll() waiter's pollwake is a WF_SYNC
      // try_to_wake_up from the parent's CPU, in the wait queue's order, while the parent
      // still runs there (it sleeps in waitpid() after the write).
      rq_.parent_cpu = static_cast<int>(params_.parent_cpu);
      fork_all(waiting, t, /*children_sleep=*/true);
      for (unsigned id : waiting) wake_one(id, params_.parent_cpu, t);
      rq_.parent_cpu = -1;
      break;
  }
}

// The parent forks the tasks in order (sched_balance_fork). Children that will run at once
// count as running on their CPUs while their siblings are forked; children that sleep at once
// (usemem's ready(): a byte to the ready pipe, then poll()) leave their CPU idle, its
// idle_stamp the fork time. A new process starts with no CPU time.
void Scheduler::fork_all(const std::vector<unsigned>& ids, ps_t now, bool children_sleep) {
  rq_.forks_began = now;  // the parent's gettimeofday() before its fork loop
  for (unsigned id : ids) {
    VirtualCpu& c = tasks_.task(id);
    place(c, policy_->fork(rq_, id, params_.parent_cpu, now), now);
    c.clock_ = now;
    c.pending_cpu_ = -1;
    rq_.task_home[id] = c.node_;
    rq_.task_forked[id] = now;
    rq_.task_asleep[id] = true;
    rq_.task_runtime[id] = 0;
    if (children_sleep)
      rq_.cpus[c.cpu_].idle_since = now;
    else
      rq_.cpus[c.cpu_].queued.push_back(id);
  }
  if (children_sleep) return;
  for (unsigned id : ids) {
    std::deque<unsigned>& q = rq_.cpus[tasks_.task(id).cpu_].queued;
    q.erase(std::find(q.begin(), q.end(), id));
  }
}

// try_to_wake_up of a sleeping task from `waker_cpu` (a WF_SYNC pipe wake-up).
void Scheduler::wake_one(unsigned id, unsigned waker_cpu, ps_t now) {
  VirtualCpu& c = tasks_.task(id);
  rq_.task_asleep[id] = false;
  const unsigned cpu = policy_->wake(rq_, id, c.cpu_, waker_cpu, true, now);
  if (cpu != c.cpu_) move(c, cpu, now);
  c.clock_ = now + params_.switch_cost_ps;
  if (enqueue(c, c.clock_)) tasks_.make_ready(c);
}

void Scheduler::place(VirtualCpu& t, unsigned cpu, ps_t at) {
  t.place(cpu, at);
  rq_.task_cpu[t.task_] = cpu;
}

void Scheduler::move(VirtualCpu& t, unsigned cpu, ps_t at) {
  place(t, cpu, at);
  t.nr_migrations_++;
}

bool Scheduler::enqueue(VirtualCpu& t, ps_t now) {
  Runqueues::Cpu& c = rq_.cpus[t.cpu_];
  if (c.curr < 0) {
    c.curr = static_cast<int>(t.task_);
    c.curr_since = now;
    return true;
  }
  c.queued.push_back(t.task_);
  return false;
}

void Scheduler::enter_cpu(VirtualCpu& t) {
  if (!enqueue(t, t.clock_)) tasks_.block(t);  // dispatch() resumes it with the CPU
}

void Scheduler::leave_cpu(VirtualCpu& t) {
  Runqueues::Cpu& c = rq_.cpus[t.cpu_];
  if (c.curr != static_cast<int>(t.task_)) throw ModelError(fmt::format("virtual engine: task {} leaves CPU {} it does not run on", t.task_, t.cpu_));
  const ps_t ran = t.clock_ > c.curr_since ? t.clock_ - c.curr_since : 0;
  cpu_busy_[t.cpu_] += ran;
  rq_.task_runtime[t.task_] += ran;
  c.curr = -1;
  c.idle_since = t.clock_;
  if (c.queued.empty()) policy_->newidle(rq_, t.cpu_, t.clock_);
  dispatch(t.cpu_, t.clock_);
}

ps_t Scheduler::busy_until(ps_t t) const {
  ps_t busy = 0;
  for (unsigned cpu = 0; cpu < rq_.nr_cpus(); ++cpu) {
    const Runqueues::Cpu& c = rq_.cpus[cpu];
    busy += cpu_busy_[cpu] + (c.curr >= 0 && t > c.curr_since ? t - c.curr_since : 0);
  }
  return busy;
}

// The CPU is free: its first queued task runs, after a context switch (and the migration, if
// a balancer moved it here while it waited).
void Scheduler::dispatch(unsigned cpu, ps_t now) {
  Runqueues::Cpu& c = rq_.cpus[cpu];
  if (c.curr >= 0 || c.queued.empty()) return;
  VirtualCpu& n = tasks_.task(c.queued.front());
  c.queued.pop_front();
  if (n.cpu_ != cpu) move(n, cpu, std::max(n.clock_, now));
  n.clock_ = std::max(n.clock_, now) + params_.switch_cost_ps;
  c.curr = static_cast<int>(n.task_);
  c.curr_since = n.clock_;
  tasks_.make_ready(n);
}

void Scheduler::tick() {
  const ps_t now = next_tick_;
  next_tick_ += policy_->tick_period();
  migrations_.clear();
  policy_->tick(rq_, now, migrations_);
  for (const Migration& mg : migrations_) tasks_.task(mg.task).pending_cpu_ = static_cast<int>(mg.cpu);
  for (unsigned c = 0; c < rq_.nr_cpus(); ++c) dispatch(c, now);
}

void Scheduler::schedule_point(VirtualCpu& t) {
  if (t.pending_cpu_ >= 0) {
    const auto to = static_cast<unsigned>(t.pending_cpu_);
    t.pending_cpu_ = -1;
    if (to == t.cpu_) return;
    leave_cpu(t);
    move(t, to, t.clock_);
    t.clock_ += params_.switch_cost_ps;
    enter_cpu(t);
    return;
  }
  Runqueues::Cpu& c = rq_.cpus[t.cpu_];
  const ps_t slice = policy_->slice(rq_.nr_running(t.cpu_));
  if (!slice || c.queued.empty() || t.clock_ - c.curr_since < slice) return;
  t.nr_invol_++;  // check_preempt_tick: the slice is used up and others wait
  leave_cpu(t);
  c.queued.push_back(t.task_);
  tasks_.block(t);  // dispatch() gives the CPU back
}

ps_t Scheduler::user_slice(unsigned cpu) const {
  const SchedPolicy& policy = *policy_;
  return policy.tick_period() ? std::max(policy.slice(rq_.nr_running(cpu)), policy.tick_period()) : params_.tick_ps;
}

void Scheduler::finished(VirtualCpu& t) {
  t.done_ = true;
  live_--;
  leave_cpu(t);
  if (live_ && !barrier_waiting_.empty() && barrier_waiting_.size() == live_) {
    // The last task left while the others wait at a barrier: release them all.
    release_barrier();
  }
}

}  // namespace pagesim
