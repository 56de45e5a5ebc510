// The native engine: one OS thread per simulated CPU, real locks, real memory, host time.
//
// NativeEngine owns what the CPUs share: the lock implementation's side tables, the start and
// phase barrier, and the host-core policy. NativeCpu<Track> is one CPU's exec (the Exec concept
// of exec.h); each thread uses only its own NativeCpu, and every statistic it keeps (lock_stat,
// IRQ-off time, system time, the access log) is private to it and merged after the threads join,
// so the instrumentation adds no shared writes.
//
// Native timings are host measurements on this machine, never predictions for a big box.
#pragma once

#include <absl/synchronization/mutex.h>

#include <atomic>
#include <barrier>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "pagesim/error.h"
#include "pagesim/exec/access_counters.h"
#include "pagesim/exec/exec.h"
#include "pagesim/exec/lock_stat_table.h"
#include "pagesim/exec/stop.h"
#include "pagesim/exec/tsc.h"
#include "pagesim/mm/machine.h"
#include "pagesim/result/metrics.h"

namespace pagesim {

enum class LockImpl : uint8_t { qspinlock, ticket, mutex };
std::string_view lock_impl_name(LockImpl l);
bool parse_lock_impl(std::string_view s, LockImpl* out);

// A queue node of the MCS-style queued spinlock; one per CPU per nesting level.
struct alignas(64) McsNode {
  std::atomic<McsNode*> next{nullptr};
  std::atomic<uint32_t> locked{0};
};

// The lock implementations. Each lock id has a side-table entry; the model's spinlock_t::val
// is the ticket lock's word. `owner` is written and read only by the holder.
class NativeLocks {
 public:
  explicit NativeLocks(LockImpl impl);
  LockImpl impl() const { return impl_; }
  // Acquires; returns true when the caller had to wait (a contention in lock_stat terms).
  bool acquire(spinlock_t& l, McsNode* node);
  void release(spinlock_t& l, McsNode* node);

  struct alignas(64) State {
    std::atomic<McsNode*> tail{nullptr};
    absl::Mutex mu;
    LockOwner owner;  // protected by the lock itself
    std::atomic<int> waiting{0};  // CPUs in the slow path (touched only when contended)
  };
  State& state(uint32_t id) { return states_[id]; }
  // Whether some CPU is waiting for lock `id` right now (for tests that build a known pattern).
  bool has_waiters(uint32_t id) const { return states_[id].waiting.load(std::memory_order_acquire) > 0; }

 private:
  LockImpl impl_;
  std::unique_ptr<State[]> states_;
};

struct NativeOptions {
  LockImpl lock_impl = LockImpl::qspinlock;
  bool pin = false;            // pin CPU i's thread to host CPU i % host_cpus
  bool oversubscribe = false;  // allow more CPUs than host cores (forces the mutex)
  bool lock_stat = true;       // keep lock_stat and IRQ-off statistics (off: plain locks, no rdtsc)
  StopRequest stop;            // honoured in sys_exit()
};

class NativeEngine {
 public:
  // Throws InputError when the machine has more CPUs than the host has cores and
  // oversubscription was not asked for.
  NativeEngine(mm::Machine& m, NativeOptions opt);
  mm::Machine& machine() { return m_; }
  NativeLocks& locks() { return locks_; }
  const NativeOptions& options() const { return opt_; }
  unsigned nr_cpus() const { return m_.nr_cpus(); }
  bool oversubscribed() const { return oversubscribed_; }
  static unsigned host_cpus();
  // Throws InputError when nr_cpus threads would oversubscribe the host's cores and that was not
  // asked for (engine.oversubscribe).
  static void check_cpus(unsigned nr_cpus, bool oversubscribe);

  // Runs fn(cpu) on one thread per simulated CPU and joins them. Exceptions thrown by a
  // thread are rethrown here (the first one).
  template <class Fn>
  void run(Fn&& fn);
  // A barrier across all CPU threads (the workload's start and phase barrier).
  void barrier() { barrier_->arrive_and_wait(); }

 private:
  void pin_self(unsigned cpu) const;

  mm::Machine& m_;
  NativeOptions opt_;
  NativeLocks locks_;
  bool oversubscribed_ = false;
  std::unique_ptr<std::barrier<>> barrier_;
};

// One record of the access log: a range of lines touched at one site. `epoch` is the TSC of
// this CPU's last lock or IRQ event, so that a replay merges CPUs in an order consistent with
// every lock handoff without reading the TSC per access.
struct LoggedAccess {
  uint64_t epoch;
  uint64_t addr;
  uint32_t n;
  uint32_t stride;
  uint16_t node;
  AccessKind kind;
  Site site;
  LockContext ctx;
  LineKind line_kind;
};

template <bool Track>
class NativeCpu {
 public:
  static constexpr bool tracks = Track;

  NativeCpu(NativeEngine& eng, unsigned cpu)
      : eng_(&eng), cpu_(cpu), node_(eng.machine().cpu_to_node(cpu)), stats_(eng.options().lock_stat) {}

  unsigned cpu() const { return cpu_; }
  unsigned node() const { return node_; }
  unsigned task() const { return cpu_; }

  void lock(spinlock_t& l, Site site);
  void unlock(spinlock_t& l, Site site);
  IrqFlags local_irq_save(Site site) {
    if (irq_depth_++ == 0 && stats_) {
      irq_t0_ = rdtsc();
      irq_site_ = site;
      epoch_ = irq_t0_;
    }
    return IrqFlags{irq_depth_ == 1};
  }
  void local_irq_restore(IrqFlags, Site) {
    if (--irq_depth_ == 0 && stats_) {
      const uint64_t t = rdtsc();
      irqoff_.by_site[static_cast<unsigned>(irq_site_)].add(tsc_to_ns(t - irq_t0_));
      epoch_ = t;
    }
  }
  void cond_resched(Site) {}  // one task per CPU thread: nothing to migrate
  void work(uint32_t, Site) {}  // the real code does the work
  // The ablation's hold: re-read a line `lines` times (an L1-hot walk of that length).
  void hold(uint32_t lines, Site) {
    volatile uint64_t sink = 0;
    for (uint32_t i = 0; i < lines; ++i) sink = sink + hold_word_;
    access_.hold_lines += lines;
  }
  void access(const Line& line, AccessKind kind, Site site) { access_range(line, 1, 64, kind, site); }
  void access_range(const Line& first, uint32_t n, uint32_t stride, AccessKind kind, Site site) {
    const LockContext ctx = context();
    access_.add(first, kind, site, ctx, n);
    log_.push_back(LoggedAccess{epoch_, first.addr, n, stride, first.node, kind, site, ctx, first.kind});
  }

  // Workload-side bracketing of calls into the model (LKP's system vs user time).
  void sys_enter() { sys_t0_ = rdtsc(); }
  void sys_exit() {
    sys_ticks_ += rdtsc() - sys_t0_;
    eng_->options().stop.check();  // a safe point: the operation is complete
  }
  void barrier() { eng_->barrier(); }

  // --- results, read after the threads joined ---
  const LockStatTable& lock_stats() const { return lockstat_; }
  const IrqOffStat& irq_off() const { return irqoff_; }
  const AccessCounters& accesses() const { return access_; }
  const std::vector<LoggedAccess>& log() const { return log_; }
  uint64_t sys_ns() const { return tsc_to_ns(sys_ticks_); }
  // Drops everything counted so far (end of a warm-up phase).
  void reset_stats();

 private:
  LockContext context() const {
    if (depth_) return held_cls_[depth_ - 1] == LockClass::zone_lock ? LockContext::zone_lock : LockContext::hugetlb_lock;
    return irq_depth_ ? LockContext::irq_off : LockContext::none;
  }

  static constexpr unsigned kMaxDepth = 4;  // as the kernel's per-CPU qnodes
  NativeEngine* eng_;
  unsigned cpu_, node_;
  bool stats_;  // NativeOptions::lock_stat
  unsigned depth_ = 0;
  McsNode mcs_[kMaxDepth];
  LockClass held_cls_[kMaxDepth] = {};
  uint64_t held_t0_[kMaxDepth] = {};
  unsigned irq_depth_ = 0;
  uint64_t irq_t0_ = 0;
  Site irq_site_ = Site::unknown;
  uint64_t epoch_ = 0;
  uint64_t sys_t0_ = 0, sys_ticks_ = 0;
  uint64_t hold_word_ = 1;
  LockStatTable lockstat_;
  IrqOffStat irqoff_;
  AccessCounters access_;
  std::vector<LoggedAccess> log_;
};

extern template class NativeCpu<false>;
extern template class NativeCpu<true>;

template <class Fn>
void NativeEngine::run(Fn&& fn) {
  const unsigned n = nr_cpus();
  barrier_ = std::make_unique<std::barrier<>>(static_cast<std::ptrdiff_t>(n));
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(n);
  for (unsigned cpu = 0; cpu < n; ++cpu) {
    threads.emplace_back([&, cpu] {
      if (opt_.pin) pin_self(cpu);
      try {
        fn(cpu);
      } catch (...) {
        errors[cpu] = std::current_exception();
        barrier_->arrive_and_drop();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

namespace engine {
// The metrics the native engine's runs report (native/run.cc), beside elapsed_s and sys_s.
std::vector<run::MetricInfo> native_metrics();
}  // namespace engine

}  // namespace pagesim
