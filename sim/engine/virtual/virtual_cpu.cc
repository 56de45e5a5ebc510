// VirtualCpu: the exec interface of a task on its vCPU, priced by the cache and machine models,
// with a causality check before every shared access (virtual.h).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "pagesim/engine/virtual/virtual.h"
#include "pagesim/error.h"
#include "pagesim/vt/memory_traffic.h"

namespace pagesim {

namespace {

constexpr uint64_t kHugePageBytes = 2u << 20;

bool dram(cache::Outcome o) { return o == cache::Outcome::dram_local || o == cache::Outcome::dram_remote; }

bool clean_miss(cache::Outcome o) {
  return o == cache::Outcome::llc_local || o == cache::Outcome::llc_remote || o == cache::Outcome::dram_local ||
         o == cache::Outcome::dram_remote;
}

}  // namespace

VirtualCpu::VirtualCpu(VirtualEngine& eng, unsigned task)
    : eng_(&eng), sched_(eng.sched_), model_(eng.model_), prices_(eng.prices_), cache_(eng.cache_), locks_(eng.locks_), traffic_(eng.traffic_),
      task_(task) {}

void VirtualCpu::place(unsigned cpu, ps_t at) {
  placements_.push_back({at, cpu});
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
  return model_access(line, home, kind, cache::Attribution{site, context(), lk});
}

cache::Outcome VirtualCpu::model_access(uint64_t line, uint16_t home, AccessKind kind, const cache::Attribution& attr) {
  model_accesses_++;
  return cache_.access(model_cpu_, line, home, kind, attr);
}

void VirtualCpu::record(const Line& first, AccessKind kind, Site site, uint32_t n, uint32_t stride) {
  for (uint32_t i = 0; i < n; ++i)
    stream_.push_back(AccessRecord::of(first.at(i, stride), site, kind));
}

void VirtualCpu::access(const Line& line, AccessKind kind, Site site) {
  sync();
  count(line, kind, site, context());
  const cache::Outcome o = model_access(line.line(), line.node, kind, site, line.kind);
  // A miss to DRAM pays the loaded latency of the memory it goes to.
  const ps_t d = model_.latency(o) + (dram(o) ? traffic_.dram_extra_ps(line.node, clock_) : 0);
  clock_ += d;
  site_ps_[static_cast<unsigned>(site)] += d;
}

ps_t VirtualCpu::forked_at() const { return sched_.runqueues().task_forked[task_]; }

ps_t VirtualCpu::parent_start_time() const { return sched_.runqueues().forks_began; }

void VirtualCpu::access_range(const Line& first, uint32_t n, uint32_t stride, AccessKind kind, Site site) {
  if (n == 1) return access(first, kind, site);
  const auto& overlapped = prices_.overlapped;
  const auto& streamed_ps = prices_.streamed;
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
  // The walk is short (microseconds): the DRAM load at its start holds for all of it.
  const ps_t loaded = traffic_.dram_extra_ps(first.node, clock_);
  for (uint32_t i = 0; i < n; ++i, ++since_fill) {
    if (i + kAhead < n && since_fill <= kAhead)
      cache_.prefetch_sets(model_cpu_, (first.addr + uint64_t{i + kAhead} * stride) >> 6);
    if (i + kVictimAhead < n && since_fill <= 2)
      cache_.prefetch_victim(model_cpu_, (first.addr + uint64_t{i + kVictimAhead} * stride) >> 6);
    sync();
    const uint64_t line = first.at(i, stride).line();
    const cache::Outcome o = model_access(line, first.node, kind, attr);
    if (o != cache::Outcome::l1 && o != cache::Outcome::l2) since_fill = 0;
    const auto oi = static_cast<unsigned>(o);
    ps_t lat = overlapped[oi];  // latency / mlp
    bool streamed = false;
    if (sequential) {
      if (line >> 6 != page) page = line >> 6, misses_in_page = 0;  // 64 lines = one 4 KiB page
      if (clean_miss(o)) {
        if (misses_in_page >= 2) lat = streamed_ps[oi], streamed = true;  // the L2 streamer: latency / stream_mlp
        misses_in_page++;
        // Adjacent-line prefetch: the miss brings the other half of its 128-byte pair.
        if (!(line & 1)) model_access(line | 1, first.node, AccessKind::prefetch, attr);
      }
    }
    if (loaded && dram(o)) lat += loaded / (streamed ? model_.stream_mlp : model_.mlp);
    clock_ += lat;
  }
  site_ps_[static_cast<unsigned>(site)] += clock_ - t0;
}

void VirtualCpu::work(uint32_t cycles, Site site) {
  const uint64_t num = uint64_t{cycles} * 1000000 + cycle_rem_;
  clock_ += num / model_.freq_mhz;
  site_ps_[static_cast<unsigned>(site)] += num / model_.freq_mhz;
  cycle_rem_ = num % model_.freq_mhz;
}

void VirtualCpu::hold(uint32_t lines, Site site) {
  access_.hold_lines += lines;
  const ps_t d = uint64_t{lines} * model_.latency(cache::Outcome::dram_local) / model_.stream_mlp;
  clock_ += d;
  site_ps_[static_cast<unsigned>(site)] += d;
}

void VirtualCpu::lock(spinlock_t& l, Site site) {
  if (depth_ == kMaxDepth) throw ModelError("virtual engine: spinlocks nested too deeply");
  sync();
  LockStatCpu& st = lockstat_[l.id];
  const auto si = static_cast<unsigned>(site);
  st.acquisitions++;
  st.acquisition_points[si]++;
  if (locks_.try_acquire(l.id, node_)) {
    work(model_.lock_uncontended_cycles / 2, site);  // half of the lock+unlock pair
    clock_ += model_.latency(model_access(l.line.line(), l.line.node, AccessKind::rmw, site, l.line.kind));
  } else {
    const ps_t arrival = clock_;
    locks_.arrive(l.id, task_, node_, arrival);
    eng_->block(*this);  // resumed by unlock() with clock_ = the grant time; the lock is ours
    st.contentions++;
    st.contention_points[si]++;
    st.wait.add((clock_ - arrival) / 1000);
    spin_ps_[si] += clock_ - arrival;
    spin_cls_ps_[static_cast<unsigned>(l.cls)] += clock_ - arrival;
    model_access(l.line.line(), l.line.node, AccessKind::rmw, site, l.line.kind);  // paid by the handoff
  }
  count(l.line, AccessKind::rmw, site, context());
  locks_.owner(l.id).acquired_by(cpu_, node_, st);
  held_cls_[depth_] = l.cls;
  held_t0_[depth_] = clock_;
  depth_++;
}

void VirtualCpu::unlock(spinlock_t& l, Site site) {
  if (!depth_) throw ModelError("virtual engine: unlock without lock");
  access(l.line, AccessKind::store, site);  // syncs first
  work(model_.lock_uncontended_cycles - model_.lock_uncontended_cycles / 2, site);
  --depth_;
  lockstat_[l.id].hold.add((clock_ - held_t0_[depth_]) / 1000);
  const std::optional<LockQueues::Grant> g = locks_.release(l.id, node_, clock_);
  if (!g) return;
  eng_->grant(*g);
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

void VirtualCpu::sys_exit() {
  sys_ps_ += clock_ - sys_t0_;
  eng_->options().stop.check();  // a safe point: the operation is complete
}

void VirtualCpu::cond_resched(Site) {
  check_may_schedule("cond_resched");
  sync();
  sched_.schedule_point(*this);
}

std::vector<ps_t> VirtualCpu::run_user(uint64_t units, const std::vector<double>& ps_per_unit) {
  return run_user(units, [&ps_per_unit](unsigned node) { return ps_per_unit[node]; });
}

std::vector<ps_t> VirtualCpu::run_user(uint64_t units, const std::function<double(unsigned node)>& ps_per_unit) {
  std::vector<ps_t> on(eng_->machine().nr_nodes(), 0);
  double left = static_cast<double>(units);
  while (left > 0) {
    const ps_t chunk = sched_.user_slice(cpu_);
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
      sched_.schedule_point(*this);
    }
  }
  return on;
}

void VirtualCpu::barrier() {
  check_may_schedule("barrier");
  sched_.barrier(*this, Scheduler::BarrierKind::plain);
  sync();
}

void VirtualCpu::start_barrier() {
  check_may_schedule("start_barrier");
  sched_.barrier(*this, Scheduler::BarrierKind::start);
  sync();
}

void VirtualCpu::rendezvous() {
  sched_.barrier(*this, Scheduler::BarrierKind::rendezvous);
  sync();
}

void VirtualCpu::clear_huge_page(unsigned page_node, vt::ClearMode mode) {
  sync();
  // A clearing thread keeps its lines in flight; its rate is what the node's controller and,
  // for a remote page, the link leave it once it joins the others (fixed for the clear).
  const double lines = vt::clear_lines_in_flight(model_, model_.clear_rate(mode));
  const ps_t d = traffic_.clear(clock_, node_, page_node, lines, kHugePageBytes);
  clock_ += d;
  site_ps_[static_cast<unsigned>(Site::clear_huge_page)] += d;
}

void VirtualCpu::reset_stats() {
  lockstat_.clear();
  irqoff_ = IrqOffStat{};
  access_ = AccessCounters{};
  model_accesses_ = 0;
  nr_migrations_ = nr_invol_ = nr_vol_ = 0;
  reset_times();
}

void VirtualCpu::reset_times() {
  sys_ps_ = 0;
  user_ps_ = 0;
  site_ps_ = {};
  spin_ps_ = {};
  spin_cls_ps_ = {};
}
}  // namespace pagesim
