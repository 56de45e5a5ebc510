#include "pagesim/exec/virtual.h"

#include <fmt/format.h>

#include <algorithm>
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

VirtualCpu::VirtualCpu(VirtualEngine& eng, unsigned task) : eng_(&eng), task_(task), lockstat_(kNrLockIds) {
  place(eng.policy().initial_cpu(task, eng.machine().nr_cpus()));
}

void VirtualCpu::place(unsigned cpu) {
  cpu_ = cpu;
  node_ = eng_->machine().cpu_to_node(cpu);
  model_cpu_ = eng_->model_cpu(cpu);
}

LockContext VirtualCpu::context() const {
  if (depth_) return held_cls_[depth_ - 1] == LockClass::zone_lock ? LockContext::zone_lock : LockContext::hugetlb_lock;
  return irq_depth_ ? LockContext::irq_off : LockContext::none;
}

void VirtualCpu::sync() { eng_->sync(*this); }

cache::Outcome VirtualCpu::model_access(uint64_t line, uint16_t home, AccessKind kind, Site site, LineKind lk) {
  model_accesses_++;
  return eng_->cache_.access(model_cpu_, line, home, kind, cache::Attribution{site, context(), lk});
}

void VirtualCpu::access(const Line& line, AccessKind kind, Site site) {
  sync();
  access_.add(line, kind, site, context());
  clock_ += eng_->model_.latency(model_access(line.line(), line.node, kind, site, line.kind));
}

void VirtualCpu::access_range(const Line& first, uint32_t n, uint32_t stride, AccessKind kind, Site site) {
  if (n == 1) return access(first, kind, site);
  const vt::MachineModel& mm = eng_->model_;
  access_.add(first, kind, site, context(), n);
  const bool sequential = stride == cache::kLineBytes;
  uint64_t page = ~uint64_t{0};
  unsigned misses_in_page = 0;
  for (uint32_t i = 0; i < n; ++i) {
    sync();
    const uint64_t line = (first.addr + uint64_t{i} * stride) >> 6;
    const cache::Outcome o = model_access(line, first.node, kind, site, first.kind);
    ps_t lat = mm.latency(o);
    if (sequential) {
      if (line >> 6 != page) page = line >> 6, misses_in_page = 0;  // 64 lines = one 4 KiB page
      const bool streamed = clean_miss(o) && misses_in_page >= 2;
      if (clean_miss(o)) {
        misses_in_page++;
        // Adjacent-line prefetch: the miss brings the other half of its 128-byte pair.
        if (!(line & 1)) model_access(line | 1, first.node, AccessKind::prefetch, site, first.kind);
      }
      lat /= streamed ? mm.stream_mlp : mm.mlp;
    } else {
      lat /= mm.mlp;
    }
    clock_ += lat;
  }
}

void VirtualCpu::work(uint32_t cycles, Site) {
  const uint64_t num = uint64_t{cycles} * 1000000 + cycle_rem_;
  clock_ += num / eng_->model_.freq_mhz;
  cycle_rem_ = num % eng_->model_.freq_mhz;
}

void VirtualCpu::hold(uint32_t lines, Site) {
  access_.hold_lines += lines;
  clock_ += uint64_t{lines} * eng_->model_.latency(cache::Outcome::dram_local) / eng_->model_.stream_mlp;
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
    model_access(l.line.line(), l.line.node, AccessKind::rmw, site, l.line.kind);  // paid by the handoff
  }
  access_.add(l.line, AccessKind::rmw, site, context());
  if (s.last_cpu >= 0 && static_cast<unsigned>(s.last_cpu) != cpu_) {
    st.bounces++;
    if (s.last_node != node_) st.bounces_remote++;
  }
  s.last_cpu = static_cast<int>(cpu_);
  s.last_node = node_;
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
  const unsigned cpu = eng_->policy_->at_event(task_, cpu_, clock_);
  if (cpu != cpu_) place(cpu);
}

void VirtualCpu::barrier() {
  check_may_schedule("barrier");
  eng_->barrier(*this, true);
  const unsigned cpu = eng_->policy_->at_event(task_, cpu_, clock_);
  if (cpu != cpu_) place(cpu);
}

void VirtualCpu::rendezvous() { eng_->barrier(*this, false); }

void VirtualCpu::clear_huge_page(unsigned page_node) {
  sync();
  const unsigned sharers = eng_->active_clears(page_node, clock_) + 1;
  const ps_t d = vt::clear_time_ps(eng_->model_, kHugePageBytes, page_node, node_, sharers);
  eng_->clears_[page_node].push_back({clock_, clock_ + d});
  clock_ += d;
}

void VirtualCpu::reset_stats() {
  for (LockStatCpu& s : lockstat_) s = LockStatCpu{};
  irqoff_ = IrqOffStat{};
  access_ = AccessCounters{};
  sys_ps_ = 0;
  model_accesses_ = 0;
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
    : m_(m), model_(std::move(model)), opt_(opt), policy_(std::move(policy)), cache_(geometry_for(m, model_)),
      locks_(kNrLockIds), clears_(m.nr_nodes()) {
  // vCPU c of node n is the model's CPU n * (cores * threads) + its index within the node:
  // SMT siblings are adjacent, as socket_major numbering places them.
  const cache::CacheGeometry& g = cache_.geometry();
  std::vector<unsigned> seen(m.nr_nodes(), 0);
  for (unsigned c = 0; c < m.nr_cpus(); ++c) {
    const unsigned n = m.cpu_to_node(c);
    model_cpu_.push_back(n * g.cores_per_socket * g.threads_per_core + seen[n]++);
  }
}

VirtualEngine::~VirtualEngine() = default;

ps_t VirtualEngine::now() const {
  ps_t t = 0;
  for (const auto& c : tasks_) t = std::max(t, c->clock_);
  return t;
}

void VirtualEngine::sync(VirtualCpu& t) {
  if (ready_.empty()) return;
  const Key& next = ready_.top();
  const Key mine{t.clock_, t.task_};
  if (next >= mine) return;
  if (next.first + opt_.slack_ps >= t.clock_ && opt_.slack_ps) {
    slack_accesses_++;
    return;
  }
  yield(t);
}

void VirtualEngine::yield(VirtualCpu& t) {
  make_ready(t);
  block(t);
}

void VirtualEngine::block(VirtualCpu& t) { t.caller_ = std::move(t.caller_).resume(); }

void VirtualEngine::barrier(VirtualCpu& t, bool same_clock) {
  if (!barrier_waiting_.empty() && barrier_same_clock_ != same_clock)
    throw ModelError("virtual engine: tasks wait at a barrier and a rendezvous at once");
  barrier_same_clock_ = same_clock;
  barrier_waiting_.push_back(t.task_);
  if (barrier_waiting_.size() < live_) return block(t);
  release_barrier(same_clock, &t);
  sync(t);
}

// Every live task has arrived. A barrier continues them all at the latest arrival (the pipe
// barrier's wake cost is not modelled); a rendezvous leaves the clocks alone. The caller, the
// last to arrive (null when a task's exit released it), is still running and is not queued.
void VirtualEngine::release_barrier(bool same_clock, const VirtualCpu* caller) {
  ps_t t = 0;
  for (unsigned id : barrier_waiting_) t = std::max(t, tasks_[id]->clock_);
  const std::vector<unsigned> waiting = std::move(barrier_waiting_);
  barrier_waiting_.clear();
  for (size_t i = 0; i < waiting.size(); ++i) {
    VirtualCpu& c = *tasks_[waiting[i]];
    if (same_clock) c.clock_ = t;
    if (&c != caller) make_ready(c);
  }
}

void VirtualEngine::finished(VirtualCpu& t) {
  t.done_ = true;
  live_--;
  if (live_ && !barrier_waiting_.empty() && barrier_waiting_.size() == live_) {
    // The last task left while the others wait at a barrier: release them all.
    release_barrier(barrier_same_clock_, nullptr);
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
  if (nr_tasks > m_.nr_cpus())
    throw InputError(fmt::format("virtual engine: {} tasks on {} vCPUs; more tasks than vCPUs needs a time-sharing "
                                 "scheduler policy, which is not implemented yet",
                                 nr_tasks, m_.nr_cpus()));
  while (tasks_.size() < nr_tasks) tasks_.push_back(std::make_unique<VirtualCpu>(*this, static_cast<unsigned>(tasks_.size())));
  error_ = nullptr;
  live_ = nr_tasks;
  barrier_waiting_.clear();
  // A new run starts together: every task at the latest clock so far.
  const ps_t start = now();
  for (unsigned i = 0; i < nr_tasks; ++i) {
    VirtualCpu& c = *tasks_[i];
    c.clock_ = start;
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
    make_ready(c);
  }
  while (!ready_.empty() && !error_) {
    const unsigned id = ready_.top().second;
    ready_.pop();
    VirtualCpu& c = *tasks_[id];
    c.self_ = std::move(c.self_).resume();
  }
  // Unwind whatever is still suspended (after an error or a deadlock).
  std::vector<unsigned> stuck;
  for (unsigned i = 0; i < nr_tasks; ++i)
    if (!tasks_[i]->done_) stuck.push_back(i);
  while (!ready_.empty()) ready_.pop();
  for (unsigned i : stuck) tasks_[i]->self_ = ctx::fiber();
  for (LockState& s : locks_) s.waiters.clear(), s.held = false;
  barrier_waiting_.clear();
  if (error_) std::rethrow_exception(error_);
  if (!stuck.empty())
    throw ModelError(fmt::format("virtual engine: deadlock: {} tasks blocked forever (first: task {})", stuck.size(), stuck[0]));
}

}  // namespace pagesim
