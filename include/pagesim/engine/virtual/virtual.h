// The virtual-time engine: tasks are fibers on one host thread, placed on virtual CPUs by a
// scheduling policy, with time an integer count of picoseconds that only the machine model
// advances (never the host clock).
//
// Causality: a task runs only while its clock is the smallest. Before every modelled access,
// lock acquire and unlock it peeks at the smallest clock of the other runnable tasks (a heap
// keyed on (clock, task id), so ties break deterministically) and yields if it has passed it
// by more than the slack (default 0). The cache model therefore sees accesses in virtual-time
// order, and the same inputs give the same result bit for bit.
//
// Causality yields keep the task on its vCPU and are allowed anywhere. Scheduler events
// (cond_resched, the wake after a barrier) may move a task; they throw ModelError inside a
// spinlock or an IRQ-off region.
//
// Locks are queued spinlocks: waiters are granted in FIFO order of virtual arrival, a waiter's
// grant time is max(arrival, release) + the machine file's handoff (lock-line transfer plus
// the next MCS node write, same or cross socket). Spinning is busy time: it stays in the
// task's clock, so it counts as system time inside sys_enter/sys_exit.
//
// The engine keeps the fibers, the causality check and the run loop; its parts have their own
// contracts: the scheduler core (scheduler.h), the lock queues (lock_queues.h) and the memory
// traffic along virtual time (traffic_timeline.h). VirtualCpu reaches each part directly.
//
// Example:
//   VirtualEngine eng(machine, vt::load_machine_model(vt::default_machine_file()));
//   eng.run(machine.nr_cpus(), [&](VirtualCpu& ex) {
//     mm::Mm<VirtualCpu> mm(machine, ex);
//     ...
//   });
#pragma once

#include <boost/context/fiber.hpp>

#include <array>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "pagesim/cache/cache_model.h"
#include "pagesim/exec/access_counters.h"
#include "pagesim/exec/exec.h"
#include "pagesim/exec/stop.h"
#include "pagesim/exec/lock_stat_table.h"
#include "pagesim/engine/virtual/lock_queues.h"
#include "pagesim/engine/virtual/ready_queue.h"
#include "pagesim/engine/virtual/sched.h"
#include "pagesim/engine/virtual/scheduler.h"
#include "pagesim/engine/virtual/traffic_timeline.h"
#include "pagesim/mm/machine.h"
#include "pagesim/vt/machine_model.h"

namespace pagesim {

using vt::ps_t;

struct VirtualOptions {
  ps_t slack_ps = 0;  // a task may run this far past the next clock before it yields
  SchedParams sched;  // the engine's use: switch cost, parent CPU (the policy has its own copy)
  StopRequest stop;   // honoured in sys_exit() and between two resumptions of the run loop
};

class VirtualEngine;
class FiberStackPool;  // sim/engine/virtual/fiber_stack.h

// What access_range charges per line, by outcome: the machine model's latency / mlp, and
// / stream_mlp under the L2 streamer (the same integer quotients, without a division per access).
struct RangePrices {
  explicit RangePrices(const vt::MachineModel& model);
  std::array<ps_t, cache::kNumOutcomes> overlapped{}, streamed{};
};

// One task and the vCPU it runs on: the Exec of the model code that the task executes.
class VirtualCpu {
 public:
  static constexpr bool tracks = true;

  VirtualCpu(VirtualEngine& eng, unsigned task);

  unsigned cpu() const { return cpu_; }
  unsigned node() const { return node_; }
  unsigned task() const { return task_; }

  void lock(spinlock_t& l, Site site);
  void unlock(spinlock_t& l, Site site);
  IrqFlags local_irq_save(Site site);
  void local_irq_restore(IrqFlags f, Site site);
  void cond_resched(Site site);
  void access(const Line& line, AccessKind kind, Site site);
  // Independent lines: they overlap up to the machine's MLP; a stride-64 walk also gets the
  // adjacent-line prefetch and, after two misses in a 4 KiB page, the L2 streamer
  // (docs/machine-model.md, "access_range").
  void access_range(const Line& first, uint32_t n, uint32_t stride, AccessKind kind, Site site);
  void work(uint32_t cycles, Site site);
  // As long as a cold sequential walk of `lines` lines (the equal-hold ablation).
  void hold(uint32_t lines, Site site);

  // Workload side.
  void sys_enter() { sys_t0_ = clock_; }
  void sys_exit();
  // Every live task sleeps until the last arrives; all continue at the latest arrival, each
  // where the policy's wake-up puts it.
  void barrier();
  // A workload's start as usemem does it: the parent forks every task (the policy's fork
  // placement, in task order), each child sleeps in poll() on the start pipe, and the
  // parent's one write wakes them all from its CPU (pollwake, WF_SYNC, in task order).
  void start_barrier();
  // Waits until every live task has arrived, without changing any clock: a bookkeeping point
  // for analytic phases that need every task's state (the usemem store loop).
  void rendezvous();
  // clear_huge_page of a 2 MiB page homed on `page_node`, in `mode` (per subpage in v5.17),
  // charged by the memory model (bandwidth shared with the tasks clearing on that node now).
  void clear_huge_page(unsigned page_node, vt::ClearMode mode = vt::ClearMode::per_subpage);
  // Advances the clock by `ps` of work that touches no shared state (analytic phases).
  void advance(ps_t ps) { clock_ += ps; }
  // User-mode work of `units` units whose cost per unit (picoseconds, fractional) depends on
  // the node the task runs on and may change while it runs: ps_per_unit(node) is asked again
  // at every slice. Runs in slices (the policy's slice or tick; one tick, tick_ps, for a
  // policy without ticks); between slices the task may be preempted or migrated, so the node
  // can change along the way. Returns the time spent on each node.
  std::vector<ps_t> run_user(uint64_t units, const std::function<double(unsigned node)>& ps_per_unit);
  // The same at a fixed cost per node.
  std::vector<ps_t> run_user(uint64_t units, const std::vector<double>& ps_per_unit);
  void sync();  // the causality check (public for workloads that compute analytically)

  // --- observation ---
  ps_t clock() const { return clock_; }
  ps_t sys_ps() const { return sys_ps_; }
  const LockStatTable& lock_stats() const { return lockstat_; }
  const IrqOffStat& irq_off() const { return irqoff_; }
  const AccessCounters& accesses() const { return access_; }
  // While on, every counted line access is also appended to stream(), in program order (the
  // cross-engine contract compares it with the uniprocessor engine's at one CPU).
  void record_stream(bool on) { record_ = on; }
  const std::vector<AccessRecord>& stream() const { return stream_; }
  uint64_t model_accesses() const { return model_accesses_; }
  ps_t user_ps() const { return user_ps_; }
  // Virtual time charged at each call site (accesses, work, clearing) and spent spinning for
  // a lock, by the site that waited: the model's perf-profile.
  const std::array<ps_t, kNumSites>& site_ps() const { return site_ps_; }
  const std::array<ps_t, kNumSites>& spin_ps() const { return spin_ps_; }
  // Virtual time spent spinning on locks of class `c` (zone->lock, hugetlb_lock).
  ps_t spin_ps(LockClass c) const { return spin_cls_ps_[static_cast<size_t>(c)]; }
  // When the task was last forked (usemem's start_time is taken before the fork).
  ps_t forked_at() const;
  // When the parent began the fork loop that forked this task: usemem's start_time, which
  // every child's rate is timed from. A fork costs the model nothing, so it equals
  // forked_at() today; the rates use it so that a fork cost would count.
  ps_t parent_start_time() const;
  // Where the task ran: the CPU it was placed on at each fork and migration, in time order.
  struct Placement {
    ps_t at = 0;
    unsigned cpu = 0;
  };
  const std::vector<Placement>& placements() const { return placements_; }
  uint64_t migrations() const { return nr_migrations_; }       // se.nr_migrations
  uint64_t involuntary_switches() const { return nr_invol_; }  // nr_involuntary_switches
  uint64_t voluntary_switches() const { return nr_vol_; }
  void reset_stats();
  // Restarts only the times that reset_stats restarts (system, user, per site, spinning): the
  // measured phase's start restarts them in every task (VirtualDriver::mark_start), the event
  // counts and lock_stat it leaves to the workload.
  void reset_times();

 private:
  friend class VirtualEngine;
  friend class Scheduler;  // places, wakes and times the task at its scheduler events
  LockContext context() const;
  // Counts n lines from `first`, `stride` bytes apart, in access_ (and stream_ while recording).
  void count(const Line& first, AccessKind kind, Site site, LockContext ctx, uint32_t n = 1,
             uint32_t stride = cache::kLineBytes) {
    access_.add(first, kind, site, ctx, n);
    if (record_) [[unlikely]] record(first, kind, site, n, stride);
  }
  void record(const Line& first, AccessKind kind, Site site, uint32_t n, uint32_t stride);
  cache::Outcome model_access(uint64_t line, uint16_t home, AccessKind kind, Site site, LineKind lk);
  cache::Outcome model_access(uint64_t line, uint16_t home, AccessKind kind, const cache::Attribution& attr);
  void place(unsigned cpu, ps_t at);  // at: the virtual time of the move, for placements()
  void check_may_schedule(const char* what) const;

  static constexpr unsigned kMaxDepth = 4;
  // The engine's parts a task uses: the fibers and causality (eng_), the scheduler core, the
  // machine model and the prices derived from it, the cache model, the lock queues, the memory
  // traffic.
  VirtualEngine* eng_;
  Scheduler& sched_;
  const vt::MachineModel& model_;
  const RangePrices& prices_;
  cache::CacheModel& cache_;
  LockQueues& locks_;
  TrafficTimeline& traffic_;
  unsigned task_;
  unsigned cpu_ = 0, node_ = 0, model_cpu_ = 0;
  ps_t clock_ = 0;
  uint64_t cycle_rem_ = 0;  // sub-picosecond remainder of work(), carried for exactness
  unsigned depth_ = 0;
  LockClass held_cls_[kMaxDepth] = {};
  ps_t held_t0_[kMaxDepth] = {};
  unsigned irq_depth_ = 0;
  ps_t irq_t0_ = 0;
  Site irq_site_ = Site::unknown;
  ps_t sys_t0_ = 0, sys_ps_ = 0;
  uint64_t model_accesses_ = 0;
  ps_t user_ps_ = 0;
  std::array<ps_t, kNumSites> site_ps_{}, spin_ps_{};
  std::array<ps_t, static_cast<size_t>(LockClass::kCount)> spin_cls_ps_{};
  uint64_t nr_migrations_ = 0, nr_invol_ = 0, nr_vol_ = 0;
  int pending_cpu_ = -1;  // a balancer's migration, applied at the next scheduler event
  std::vector<Placement> placements_;
  LockStatTable lockstat_;
  IrqOffStat irqoff_;
  AccessCounters access_;
  bool record_ = false;
  std::vector<AccessRecord> stream_;
  boost::context::fiber self_, caller_;
  char* stack_lowest_ = nullptr;  // the fiber stack's lowest address (fiber_stack.h)
  bool done_ = false;
};

class VirtualEngine final : private TaskSwitch {
 public:
  // Throws InputError when the machine's shape does not fit the cache model (more sockets
  // or CPUs per node than it holds) or the machine file (more nodes than sockets): geometry_for.
  VirtualEngine(mm::Machine& m, vt::MachineModel model, VirtualOptions opt = {},
                std::unique_ptr<SchedPolicy> policy = make_sched_policy("pinned", {}));
  ~VirtualEngine();
  VirtualEngine(const VirtualEngine&) = delete;
  VirtualEngine& operator=(const VirtualEngine&) = delete;

  // Runs fn(task) for `nr_tasks` tasks, each a fiber, until all return. More tasks than
  // vCPUs time-share them (policies with a tick preempt; pinned ones queue until the CPU is
  // free). Tasks keep their clocks and statistics across runs (a later run continues the
  // virtual timeline). The first exception a task throws is rethrown here; a deadlock (tasks
  // blocked forever) throws ModelError.
  void run(unsigned nr_tasks, const std::function<void(VirtualCpu&)>& fn);

  // The cache geometry of a machine on a machine file; throws InputError when it does not fit.
  static cache::CacheGeometry geometry_for(const mm::MachineSpec& spec, const vt::MachineModel& model);

  mm::Machine& machine() { return m_; }
  const vt::MachineModel& model() const { return model_; }
  // The memory model's requesters at `now`; workloads add their store loops to it.
  vt::MemoryTraffic& memory(ps_t now) { return traffic_.at(now); }
  cache::CacheModel& cache() { return cache_; }
  SchedPolicy& policy() { return sched_.policy(); }
  const VirtualOptions& options() const { return opt_; }
  unsigned nr_tasks() const { return static_cast<unsigned>(tasks_.size()); }
  VirtualCpu& task(unsigned t) override { return *tasks_[t]; }
  // The latest clock of any task: the virtual elapsed time of everything run so far.
  ps_t now() const;
  // Accesses executed while a task was ahead of the next clock (slack > 0 only).
  uint64_t slack_accesses() const { return slack_accesses_; }
  // Switches to another task because this one's clock passed the next one's: how finely the
  // tasks' accesses interleave on the host, and so how much of the model's state each switch
  // finds cold in the host's caches.
  uint64_t causality_yields() const { return causality_yields_; }
  // Fiber stacks mapped so far: the most tasks of any run, since later runs reuse them.
  size_t fiber_stacks_mapped() const;
  // The cache model's CPU of vCPU c (its node's socket, its index within the node).
  unsigned model_cpu(unsigned c) const { return model_cpu_[c]; }
  const Runqueues& runqueues() const { return sched_.runqueues(); }
  // The virtual time some task ran on a vCPU, summed over vCPUs, up to `t`: the runs that
  // ended and the current runs' parts before t. Exact when no run has ended after t, as at a
  // barrier (where workloads mark their measured phase).
  ps_t busy_until(ps_t t) const { return sched_.busy_until(t); }

 private:
  friend class VirtualCpu;
  using Key = ReadyQueue::Key;  // (clock, task id)

  void make_ready(VirtualCpu& t) override { ready_.push({t.clock_, t.task_}); }
  // The causality check: returns at once while t is still the earliest task (inline: it runs
  // before every access), else sync_slow decides between a slack access and a yield.
  void sync(VirtualCpu& t) {
    if (t.clock_ < sched_.next_tick() && (ready_.empty() || !(ready_.top() < Key{t.clock_, t.task_}))) return;
    sync_slow(t);
  }
  void sync_slow(VirtualCpu& t);  // only from sync(), once its fast test has failed
  void block(VirtualCpu& t) override;  // switch to the run loop without being runnable
  // A task blocked on a lock gets it at `at` (LockQueues::release): runnable from then on.
  void grant(const LockQueues::Grant& g) {
    tasks_[g.task]->clock_ = g.at;
    make_ready(*tasks_[g.task]);
  }
  void yield(VirtualCpu& t);  // runnable again at its clock
  // yield() without the scheduler fiber: t goes back in the queue and the earliest task is
  // resumed straight from t's stack. Only when the scheduler would do just that (no tick due).
  bool switch_to_earliest(VirtualCpu& t);

  mm::Machine& m_;
  vt::MachineModel model_;
  RangePrices prices_;
  VirtualOptions opt_;
  Scheduler sched_;  // run queues, barriers, fork and wake-ups, the balance tick (scheduler.h)
  cache::CacheModel cache_;
  std::vector<unsigned> model_cpu_;
  std::unique_ptr<FiberStackPool> stacks_;  // before tasks_: their fibers give their stacks back
  std::vector<std::unique_ptr<VirtualCpu>> tasks_;
  ReadyQueue ready_;
  unsigned current_ = 0;  // the running task: whose continuation a switch back to run() returns
  LockQueues locks_;
  uint64_t slack_accesses_ = 0;
  uint64_t causality_yields_ = 0;
  TrafficTimeline traffic_;  // store loops and clears, in one closed loop per node
  std::exception_ptr error_;
};

}  // namespace pagesim
