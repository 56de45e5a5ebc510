#include "pagesim/exec/virtual.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <boost/context/protected_fixedsize_stack.hpp>

#include "pagesim/error.h"
#include "pagesim/vt/memory_model.h"

namespace pagesim {

namespace ctx = boost::context;

namespace {

constexpr size_t kStackBytes = 1u << 20;  // model code is shallow; ASan frames are large
constexpr uint64_t kHugePageBytes = 2u << 20;

bool clean_miss(cache::Outcome o) {
  return o == cache::Outcome::llc_local || o == cache::Outcome::llc_remote || o == cache::Outcome::dram_local ||
         o == cache::Outcome::dram_remote;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// VirtualCpu

VirtualCpu::VirtualCpu(VirtualEngine& eng, unsigned task) : eng_(&eng), task_(task), lockstat_(kNrLockIds) {}

void VirtualCpu::place(unsigned cpu, ps_t at) {
  placements_.push_back({at, cpu});
  cpu_ = cpu;
  node_ = eng_->machine().cpu_to_node(cpu);
  model_cpu_ = eng_->model_cpu(cpu);
  eng_->rq_.task_cpu[task_] = cpu;
}

LockContext VirtualCpu::context() const {
  if (depth_) return held_cls_[depth_ - 1] == LockClass::zone_lock ? LockContext::zone_lock : LockContext::hugetlb_lock;
  return irq_depth_ ? LockContext::irq_off : LockContext::none;
}

void VirtualCpu::sync() { eng_->sync(*this); }

cache::Outcome VirtualCpu::model_access(uint64_t line, uint16_t home, AccessKind kind, Site site, LineKind lk) {
  return model_access(line, home, kind, cache::Attribution{site, context(), lk});
}

cache::Outcome VirtualCpu::model_access(uint64_t line, uint16_t home, AccessKind kind, const cache::Attribution& attr) {
  model_accesses_++;
  return eng_->cache_.access(model_cpu_, line, home, kind, attr);
}

void VirtualCpu::record(const Line& first, AccessKind kind, Site site, uint32_t n, uint32_t stride) {
  for (uint32_t i = 0; i < n; ++i)
    stream_.push_back(AccessRecord::of(first.at(i, stride), site, kind));
}

void VirtualCpu::access(const Line& line, AccessKind kind, Site site) {
  sync();
  count(line, kind, site, context());
  const ps_t d = eng_->model_.latency(model_access(line.line(), line.node, kind, site, line.kind));
  clock_ += d;
  site_ps_[static_cast<unsigned>(site)] += d;
}

ps_t VirtualCpu::forked_at() const { return eng_->rq_.task_forked[task_]; }

void VirtualCpu::access_range(const Line& first, uint32_t n, uint32_t stride, AccessKind kind, Site site) {
  if (n == 1) return access(first, kind, site);
  const auto& overlapped = eng_->overlapped_ps_;
  const auto& streamed_ps = eng_->streamed_ps_;
  // The lock and IRQ context cannot change inside the walk (a yield leaves it as it is).
  const cache::Attribution attr{site, context(), first.kind};
  count(first, kind, site, attr.ctx, n, stride);
  const bool sequential = stride == cache::kLineBytes;
  uint64_t page = ~uint64_t{0};
  unsigned misses_in_page = 0;
  const ps_t t0 = clock_;
  // Host prefetch distances (the model's sets, not the line): the sets of the line kAhead on,
  // then, once its L2 set has arrived, the sets of the line its fill would evict. Both only
  // while the walk misses L1 and L2 (in the last kAhead accesses for the first, the last two
  // for the second): a walk of lines the core holds finds its sets in the host's caches and
  // evicts nothing, and the hints would be a fifth of its time.
  constexpr uint32_t kAhead = 8, kVictimAhead = 4;
  uint32_t since_fill = 0;
  for (uint32_t i = 0; i < n; ++i, ++since_fill) {
    if (i + kAhead < n && since_fill <= kAhead)
      eng_->cache_.prefetch_sets(model_cpu_, (first.addr + uint64_t{i + kAhead} * stride) >> 6);
    if (i + kVictimAhead < n && since_fill <= 2)
      eng_->cache_.prefetch_victim(model_cpu_, (first.addr + uint64_t{i + kVictimAhead} * stride) >> 6);
    sync();
    const uint64_t line = first.at(i, stride).line();
    const cache::Outcome o = model_access(line, first.node, kind, attr);
    if (o != cache::Outcome::l1 && o != cache::Outcome::l2) since_fill = 0;
    const auto oi = static_cast<unsigned>(o);
    ps_t lat = overlapped[oi];  // latency / mlp
    if (sequential) {
      if (line >> 6 != page) page = line >> 6, misses_in_page = 0;  // 64 lines = one 4 KiB page
      if (clean_miss(o)) {
        if (misses_in_page >= 2) lat = streamed_ps[oi];  // the L2 streamer: latency / stream_mlp
        misses_in_page++;
        // Adjacent-line prefetch: the miss brings the other half of its 128-byte pair.
        if (!(line & 1)) model_access(line | 1, first.node, AccessKind::prefetch, attr);
      }
    }
    clock_ += lat;
  }
  site_ps_[static_cast<unsigned>(site)] += clock_ - t0;
}

void VirtualCpu::work(uint32_t cycles, Site site) {
  const uint64_t num = uint64_t{cycles} * 1000000 + cycle_rem_;
  clock_ += num / eng_->model_.freq_mhz;
  site_ps_[static_cast<unsigned>(site)] += num / eng_->model_.freq_mhz;
  cycle_rem_ = num % eng_->model_.freq_mhz;
}

void VirtualCpu::hold(uint32_t lines, Site site) {
  access_.hold_lines += lines;
  const ps_t d = uint64_t{lines} * eng_->model_.latency(cache::Outcome::dram_local) / eng_->model_.stream_mlp;
  clock_ += d;
  site_ps_[static_cast<unsigned>(site)] += d;
}

void VirtualCpu::lock(spinlock_t& l, Site site) {
  if (depth_ == kMaxDepth) throw ModelError("virtual engine: spinlocks nested too deeply");
  sync();
  VirtualEngine::LockState& s = eng_->lock_state(l.id);
  LockStatCpu& st = lockstat_[l.id];
  const auto si = static_cast<unsigned>(site);
  st.acquisitions++;
  st.acquisition_points[si]++;
  if (!s.held) {
    s.held = true;
    work(eng_->model_.lock_uncontended_cycles / 2, site);  // half of the lock+unlock pair
    clock_ += eng_->model_.latency(model_access(l.line.line(), l.line.node, AccessKind::rmw, site, l.line.kind));
  } else {
    const ps_t arrival = clock_;
    s.waiters.push_back({task_, arrival});
    eng_->block(*this);  // resumed by unlock() with clock_ = the grant time; the lock is ours
    st.contentions++;
    st.contention_points[si]++;
    st.wait.add((clock_ - arrival) / 1000);
    spin_ps_[si] += clock_ - arrival;
    model_access(l.line.line(), l.line.node, AccessKind::rmw, site, l.line.kind);  // paid by the handoff
  }
  count(l.line, AccessKind::rmw, site, context());
  s.owner.acquired_by(cpu_, node_, st);
  held_cls_[depth_] = l.cls;
  held_t0_[depth_] = clock_;
  depth_++;
}

void VirtualCpu::unlock(spinlock_t& l, Site site) {
  if (!depth_) throw ModelError("virtual engine: unlock without lock");
  access(l.line, AccessKind::store, site);  // syncs first
  work(eng_->model_.lock_uncontended_cycles - eng_->model_.lock_uncontended_cycles / 2, site);
  --depth_;
  lockstat_[l.id].hold.add((clock_ - held_t0_[depth_]) / 1000);
  VirtualEngine::LockState& s = eng_->lock_state(l.id);
  if (s.waiters.empty()) {
    s.held = false;
    return;
  }
  const VirtualEngine::Waiter w = s.waiters.front();
  s.waiters.pop_front();
  VirtualCpu& next = *eng_->tasks_[w.task];
  next.clock_ = std::max(w.arrival, clock_) + eng_->model_.lock_handoff_ps(node_, next.node_);
  eng_->make_ready(next);
  sync();  // the waiter may now be the earliest task
}

IrqFlags VirtualCpu::local_irq_save(Site site) {
  if (irq_depth_++ == 0) {
    irq_t0_ = clock_;
    irq_site_ = site;
  }
  return IrqFlags{irq_depth_ == 1};
}

void VirtualCpu::local_irq_restore(IrqFlags f, Site site) {
  if (!irq_depth_) throw ModelError(fmt::format("virtual engine: local_irq_restore without save at {}", site_name(site)));
  if (--irq_depth_ == 0) irqoff_.by_site[static_cast<unsigned>(irq_site_)].add((clock_ - irq_t0_) / 1000);
  if (f.was_enabled != (irq_depth_ == 0))
    throw ModelError(fmt::format("virtual engine: unbalanced IRQ save/restore at {}", site_name(site)));
}

void VirtualCpu::check_may_schedule(const char* what) const {
  if (depth_ || irq_depth_)
    throw ModelError(fmt::format("virtual engine: {} on task {} with {}", what, task_,
                                 depth_ ? "a spinlock held" : "IRQs disabled"));
}

void VirtualCpu::cond_resched(Site) {
  check_may_schedule("cond_resched");
  sync();
  schedule_point();
}

void VirtualCpu::schedule_point() {
  if (pending_cpu_ >= 0) {
    const auto to = static_cast<unsigned>(pending_cpu_);
    pending_cpu_ = -1;
    if (to == cpu_) return;
    eng_->leave_cpu(*this);
    place(to, clock_);
    nr_migrations_++;
    clock_ += eng_->opt_.sched.switch_cost_ps;
    eng_->enter_cpu(*this);
    return;
  }
  Runqueues::Cpu& c = eng_->rq_.cpus[cpu_];
  const ps_t slice = eng_->policy_->slice();
  if (!slice || c.queued.empty() || clock_ - c.curr_since < slice) return;
  nr_invol_++;  // check_preempt_tick: the slice is used up and others wait
  eng_->leave_cpu(*this);
  c.queued.push_back(task_);
  eng_->block(*this);  // dispatch() gives the CPU back
}

std::vector<ps_t> VirtualCpu::run_user(uint64_t units, const std::vector<double>& ps_per_unit) {
  return run_user(units, [&ps_per_unit](unsigned node) { return ps_per_unit[node]; });
}

std::vector<ps_t> VirtualCpu::run_user(uint64_t units, const std::function<double(unsigned node)>& ps_per_unit) {
  std::vector<ps_t> on(eng_->machine().nr_nodes(), 0);
  const SchedPolicy& policy = *eng_->policy_;
  const ps_t chunk = policy.tick_period() ? std::max(policy.slice(), policy.tick_period()) : eng_->opt_.sched.tick_ps;
  double left = static_cast<double>(units);
  while (left > 0) {
    const double per = ps_per_unit(node_);
    const double all = left * per;
    ps_t dt = static_cast<ps_t>(std::ceil(all));
    if (chunk && dt > chunk) dt = chunk;
    left = per > 0 && dt < all ? left - static_cast<double>(dt) / per : 0;
    clock_ += dt;
    user_ps_ += dt;
    on[node_] += dt;
    if (left > 0) {
      sync();
      schedule_point();
    }
  }
  return on;
}

void VirtualCpu::barrier() {
  check_may_schedule("barrier");
  eng_->barrier(*this, VirtualEngine::BarrierKind::plain);
}

void VirtualCpu::start_barrier() {
  check_may_schedule("start_barrier");
  eng_->barrier(*this, VirtualEngine::BarrierKind::start);
}

void VirtualCpu::rendezvous() { eng_->barrier(*this, VirtualEngine::BarrierKind::rendezvous); }

void VirtualCpu::clear_huge_page(unsigned page_node) {
  sync();
  const unsigned sharers = eng_->active_clears(page_node, clock_) + 1;
  const ps_t d = vt::clear_time_ps(eng_->model_, kHugePageBytes, page_node, node_, sharers);
  eng_->clears_[page_node].push_back({clock_, clock_ + d});
  clock_ += d;
  site_ps_[static_cast<unsigned>(Site::clear_huge_page)] += d;
}

void VirtualCpu::reset_stats() {
  for (LockStatCpu& s : lockstat_) s = LockStatCpu{};
  irqoff_ = IrqOffStat{};
  access_ = AccessCounters{};
  sys_ps_ = 0;
  user_ps_ = 0;
  model_accesses_ = 0;
  site_ps_ = {};
  spin_ps_ = {};
  nr_migrations_ = nr_invol_ = nr_vol_ = 0;
}

// ---------------------------------------------------------------------------------------------
// VirtualEngine

namespace {

cache::CacheGeometry geometry_for(const mm::Machine& m, const vt::MachineModel& model) {
  cache::CacheGeometry g = model.geometry;
  unsigned per_node = 1;
  for (const mm::NodeSpec& n : m.spec().nodes) per_node = std::max(per_node, n.cpus);
  g.sockets = m.nr_nodes();
  g.cores_per_socket = (per_node + g.threads_per_core - 1) / g.threads_per_core;
  g.numbering = cache::CpuNumbering::socket_major;
  if (const std::string err = g.validate(); !err.empty())
    throw InputError(fmt::format("virtual engine: the machine ({} nodes, up to {} CPUs per node) does not fit the cache "
                                 "model with {} threads per core: {}",
                                 m.nr_nodes(), per_node, g.threads_per_core, err));
  return g;
}

}  // namespace

VirtualEngine::VirtualEngine(mm::Machine& m, vt::MachineModel model, VirtualOptions opt, std::unique_ptr<SchedPolicy> policy)
    : m_(m), model_(std::move(model)), opt_(opt), policy_(std::move(policy)),
      // The report reads the cache model's counts by outcome, kind, site and lock, never per line.
      cache_(geometry_for(m, model_), cache::PerLineContention::dropped),
      locks_(kNrLockIds), clears_(m.nr_nodes()) {
  for (unsigned o = 0; o < cache::kNumOutcomes; ++o) {
    overlapped_ps_[o] = model_.latency(static_cast<cache::Outcome>(o)) / model_.mlp;
    streamed_ps_[o] = model_.latency(static_cast<cache::Outcome>(o)) / model_.stream_mlp;
  }
  if (opt_.sched.parent_cpu >= m.nr_cpus())
    throw InputError(fmt::format("virtual engine: the parent CPU {} is not one of the {} vCPUs", opt_.sched.parent_cpu, m.nr_cpus()));
  // vCPU c of node n is the model's CPU n * (cores * threads) + its index within the node:
  // SMT siblings are adjacent, as socket_major numbering places them.
  const cache::CacheGeometry& g = cache_.geometry();
  std::vector<unsigned> seen(m.nr_nodes(), 0), first(m.nr_nodes(), 0);
  for (unsigned c = 0; c < m.nr_cpus(); ++c) {
    const unsigned n = m.cpu_to_node(c);
    if (!seen[n]) first[n] = c;
    model_cpu_.push_back(n * g.cores_per_socket * g.threads_per_core + seen[n]++);
  }
  rq_.cpus.resize(m.nr_cpus());
  cpu_busy_.assign(m.nr_cpus(), 0);
  for (unsigned c = 0; c < m.nr_cpus(); ++c) {
    const unsigned n = m.cpu_to_node(c), i = (model_cpu_[c] % (g.cores_per_socket * g.threads_per_core));
    rq_.cpu_node.push_back(n);
    const unsigned sib = g.threads_per_core == 2 ? (i ^ 1u) : i;  // adjacent SMT siblings
    rq_.sibling.push_back(sib < seen[n] ? first[n] + sib : c);
  }
}

VirtualEngine::~VirtualEngine() = default;

ps_t VirtualEngine::now() const {
  ps_t t = 0;
  for (const auto& c : tasks_) t = std::max(t, c->clock_);
  return t;
}

// sync() found a balance tick due or another task earlier than t.
void VirtualEngine::sync_slow(VirtualCpu& t) {
  if (next_tick_ <= t.clock_) return yield(t);  // a balance tick comes first
  const Key& next = ready_.top();
  if (opt_.slack_ps && next.first + opt_.slack_ps >= t.clock_) {
    slack_accesses_++;
    return;
  }
  causality_yields_++;
  yield(t);
}

void VirtualEngine::yield(VirtualCpu& t) {
  if (switch_to_earliest(t)) return;
  make_ready(t);
  block(t);
}

// What run()'s loop would do after make_ready(t) and block(t), in one heap operation and one
// fiber switch: the task resumed learns the scheduler's continuation from t (t holds it while
// it runs) and t's own continuation is kept for whoever resumes t next.
bool VirtualEngine::switch_to_earliest(VirtualCpu& t) {
  if (ready_.empty()) return false;
  const Key mine{t.clock_, t.task_};
  const Key& next = ready_.top();
  if (mine < next || next_tick_ <= next.first) return false;
  VirtualCpu& n = *tasks_[ready_.replace_top(mine).second];
  current_ = n.task_;
  ctx::fiber scheduler = std::move(t.caller_);
  t.caller_ = std::move(n.self_).resume_with([&t, &scheduler](ctx::fiber&& from) {
    t.self_ = std::move(from);
    return std::move(scheduler);
  });
  return true;
}

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
  if (kind == BarrierKind::start) wake_next(t);
  sync(t);
}

// Every live task has arrived. A rendezvous gives each its CPU back at its own clock; a plain
// barrier wakes every task at the latest arrival where the policy's wake-up puts it; a start
// barrier forks them again and lets the parent wake the first pipe reader.
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
      fork_all(waiting, t);
      pipe_readers_.assign(waiting.begin(), waiting.end());
      wake_one(pipe_readers_.front(), opt_.sched.parent_cpu, t);
      pipe_readers_.pop_front();
      break;
  }
}

// The parent forks the tasks in order. Children still count as running on their CPUs while
// their siblings are forked (they run ready() before sleeping on the pipe).
void VirtualEngine::fork_all(const std::vector<unsigned>& ids, ps_t now) {
  for (unsigned id : ids) {
    VirtualCpu& c = *tasks_[id];
    c.place(policy_->fork(rq_, id, opt_.sched.parent_cpu, now), now);
    c.clock_ = now;
    c.pending_cpu_ = -1;
    rq_.task_home[id] = c.node_;
    rq_.task_forked[id] = now;
    rq_.task_asleep[id] = true;
    rq_.cpus[c.cpu_].queued.push_back(id);
  }
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

void VirtualEngine::wake_next(VirtualCpu& waker) {
  if (pipe_readers_.empty()) return;
  const unsigned id = pipe_readers_.front();
  pipe_readers_.pop_front();
  wake_one(id, waker.cpu_, waker.clock_);
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
  cpu_busy_[t.cpu_] += t.clock_ > c.curr_since ? t.clock_ - c.curr_since : 0;
  c.curr = -1;
  if (c.queued.empty()) policy_->newidle(rq_, t.cpu_, t.clock_);
  dispatch(t.cpu_, t.clock_);
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

unsigned VirtualEngine::active_clears(unsigned node, ps_t now) {
  auto& v = clears_[node];
  std::erase_if(v, [&](const ClearInterval& c) { return c.end <= now; });
  unsigned n = 0;
  for (const ClearInterval& c : v) n += c.start <= now;
  return n;
}

void VirtualEngine::run(unsigned nr_tasks, const std::function<void(VirtualCpu&)>& fn) {
  while (tasks_.size() < nr_tasks) {
    tasks_.push_back(std::make_unique<VirtualCpu>(*this, static_cast<unsigned>(tasks_.size())));
    rq_.task_cpu.push_back(0), rq_.task_home.push_back(0), rq_.task_forked.push_back(0), rq_.task_asleep.push_back(false);
  }
  error_ = nullptr;
  live_ = nr_tasks;
  barrier_waiting_.clear();
  pipe_readers_.clear();
  // A new run starts together: every task at the latest clock so far, forked by the parent.
  const ps_t start = now();
  // No balance ticks: a next tick that never comes, so that sync() tests one clock.
  next_tick_ = policy_->tick_period() ? start + policy_->tick_period() : std::numeric_limits<ps_t>::max();
  std::vector<unsigned> ids(nr_tasks);
  for (unsigned i = 0; i < nr_tasks; ++i) ids[i] = i;
  fork_all(ids, start);
  for (unsigned i = 0; i < nr_tasks; ++i) {
    VirtualCpu& c = *tasks_[i];
    rq_.task_asleep[i] = false;
    c.done_ = false;
    c.self_ = ctx::fiber(std::allocator_arg, ctx::protected_fixedsize_stack(kStackBytes), [this, &c, &fn](ctx::fiber&& main) {
      c.caller_ = std::move(main);
      try {
        fn(c);
      } catch (const ctx::detail::forced_unwind&) {
        throw;
      } catch (...) {
        if (!error_) error_ = std::current_exception();
      }
      finished(c);
      return std::move(c.caller_);
    });
    if (enqueue(c, start)) make_ready(c);
  }
  while (!ready_.empty() && !error_) {
    if (next_tick_ <= ready_.top().first) {
      tick();
      continue;
    }
    current_ = ready_.top().second;
    ready_.pop();
    // The task that comes back may not be the one resumed (switch_to_earliest).
    ctx::fiber back = std::move(tasks_[current_]->self_).resume();
    tasks_[current_]->self_ = std::move(back);
  }
  // Unwind whatever is still suspended (after an error or a deadlock).
  std::vector<unsigned> stuck;
  for (unsigned i = 0; i < nr_tasks; ++i)
    if (!tasks_[i]->done_) stuck.push_back(i);
  ready_.clear();
  for (unsigned i : stuck) tasks_[i]->self_ = ctx::fiber();
  for (LockState& s : locks_) s.waiters.clear(), s.held = false;
  for (Runqueues::Cpu& c : rq_.cpus) c.curr = -1, c.queued.clear();
  barrier_waiting_.clear();
  if (error_) std::rethrow_exception(error_);
  if (!stuck.empty())
    throw ModelError(fmt::format("virtual engine: deadlock: {} tasks blocked forever (first: task {})", stuck.size(), stuck[0]));
}

}  // namespace pagesim
