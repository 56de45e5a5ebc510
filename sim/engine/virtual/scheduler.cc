// The virtual engine's scheduler: barriers, fork and the start pipe's wake-ups, per-vCPU run
// queues with dispatch and the balance tick (the policy decides where; sched.h).
#include <fmt/format.h>

#include <algorithm>

#include "pagesim/engine/virtual/virtual.h"
#include "pagesim/error.h"

namespace pagesim {

void VirtualEngine::block(VirtualCpu& t) { t.caller_ = std::move(t.caller_).resume(); }

void VirtualEngine::barrier(VirtualCpu& t, BarrierKind kind) {
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
  block(t);  // resumed on a CPU by release_barrier, a wake-up or dispatch
  sync(t);
}

// Every live task has arrived. A rendezvous gives each its CPU back at its own clock; a plain
// barrier wakes every task at the latest arrival where the policy's wake-up puts it; a start
// barrier forks them again, each child sleeping in poll() on the start pipe, and the parent's
// one write wakes them all.
void VirtualEngine::release_barrier() {
  ps_t t = 0;
  for (unsigned id : barrier_waiting_) t = std::max(t, tasks_[id]->clock_);
  std::vector<unsigned> waiting = std::move(barrier_waiting_);
  barrier_waiting_.clear();
  std::sort(waiting.begin(), waiting.end());
  switch (barrier_kind_) {
    case BarrierKind::rendezvous:
      std::sort(waiting.begin(), waiting.end(), [&](unsigned a, unsigned b) {
        return std::pair(tasks_[a]->clock_, a) < std::pair(tasks_[b]->clock_, b);
      });
      for (unsigned id : waiting)
        if (enqueue(*tasks_[id], tasks_[id]->clock_)) make_ready(*tasks_[id]);
      break;
    case BarrierKind::plain:
      for (unsigned id : waiting) {
        VirtualCpu& c = *tasks_[id];
        c.clock_ = t;
        rq_.task_asleep[id] = false;
        c.pending_cpu_ = -1;
        const unsigned cpu = policy_->wake(rq_, id, c.cpu_, c.cpu_, false, t);
        if (cpu != c.cpu_) c.place(cpu, t), c.nr_migrations_++;
        if (enqueue(c, t)) make_ready(c);
      }
      break;
    case BarrierKind::start:
      // pipe_write -> __wake_up_common: every poll() waiter's pollwake is a WF_SYNC
      // try_to_wake_up from the parent's CPU, in the wait queue's order, while the parent
      // still runs there (it sleeps in waitpid() after the write).
      rq_.parent_cpu = static_cast<int>(opt_.sched.parent_cpu);
      fork_all(waiting, t, /*children_sleep=*/true);
      for (unsigned id : waiting) wake_one(id, opt_.sched.parent_cpu, t);
      rq_.parent_cpu = -1;
      break;
  }
}

// The parent forks the tasks in order (sched_balance_fork). Children that will run at once
// count as running on their CPUs while their siblings are forked; children that sleep at once
// (usemem's ready(): a byte to the ready pipe, then poll()) leave their CPU idle, its
// idle_stamp the fork time. A new process starts with no CPU time.
void VirtualEngine::fork_all(const std::vector<unsigned>& ids, ps_t now, bool children_sleep) {
  rq_.forks_began = now;  // the parent's gettimeofday() before its fork loop
  for (unsigned id : ids) {
    VirtualCpu& c = *tasks_[id];
    c.place(policy_->fork(rq_, id, opt_.sched.parent_cpu, now), now);
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
    std::deque<unsigned>& q = rq_.cpus[tasks_[id]->cpu_].queued;
    q.erase(std::find(q.begin(), q.end(), id));
  }
}

// try_to_wake_up of a sleeping task from `waker_cpu` (a WF_SYNC pipe wake-up).
void VirtualEngine::wake_one(unsigned id, unsigned waker_cpu, ps_t now) {
  VirtualCpu& c = *tasks_[id];
  rq_.task_asleep[id] = false;
  const unsigned cpu = policy_->wake(rq_, id, c.cpu_, waker_cpu, true, now);
  if (cpu != c.cpu_) c.place(cpu, now), c.nr_migrations_++;
  c.clock_ = now + opt_.sched.switch_cost_ps;
  if (enqueue(c, c.clock_)) make_ready(c);
}

bool VirtualEngine::enqueue(VirtualCpu& t, ps_t now) {
  Runqueues::Cpu& c = rq_.cpus[t.cpu_];
  if (c.curr < 0) {
    c.curr = static_cast<int>(t.task_);
    c.curr_since = now;
    return true;
  }
  c.queued.push_back(t.task_);
  return false;
}

void VirtualEngine::enter_cpu(VirtualCpu& t) {
  if (!enqueue(t, t.clock_)) block(t);  // dispatch() resumes it with the CPU
}

void VirtualEngine::leave_cpu(VirtualCpu& t) {
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

ps_t VirtualEngine::busy_until(ps_t t) const {
  ps_t busy = 0;
  for (unsigned cpu = 0; cpu < rq_.nr_cpus(); ++cpu) {
    const Runqueues::Cpu& c = rq_.cpus[cpu];
    busy += cpu_busy_[cpu] + (c.curr >= 0 && t > c.curr_since ? t - c.curr_since : 0);
  }
  return busy;
}

// The CPU is free: its first queued task runs, after a context switch (and the migration, if
// a balancer moved it here while it waited).
void VirtualEngine::dispatch(unsigned cpu, ps_t now) {
  Runqueues::Cpu& c = rq_.cpus[cpu];
  if (c.curr >= 0 || c.queued.empty()) return;
  VirtualCpu& n = *tasks_[c.queued.front()];
  c.queued.pop_front();
  if (n.cpu_ != cpu) n.place(cpu, std::max(n.clock_, now)), n.nr_migrations_++;
  n.clock_ = std::max(n.clock_, now) + opt_.sched.switch_cost_ps;
  c.curr = static_cast<int>(n.task_);
  c.curr_since = n.clock_;
  make_ready(n);
}

void VirtualEngine::tick() {
  const ps_t now = next_tick_;
  next_tick_ += policy_->tick_period();
  migrations_.clear();
  policy_->tick(rq_, now, migrations_);
  for (const Migration& mg : migrations_) tasks_[mg.task]->pending_cpu_ = static_cast<int>(mg.cpu);
  for (unsigned c = 0; c < rq_.nr_cpus(); ++c) dispatch(c, now);
}

void VirtualEngine::finished(VirtualCpu& t) {
  t.done_ = true;
  live_--;
  leave_cpu(t);
  if (live_ && !barrier_waiting_.empty() && barrier_waiting_.size() == live_) {
    // The last task left while the others wait at a barrier: release them all.
    release_barrier();
  }
}

}  // namespace pagesim
