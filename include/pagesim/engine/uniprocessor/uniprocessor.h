// UniprocessorExec: the exec interface for one thread that plays any CPU, one at a time.
//
// It runs the model deterministically on the calling thread: tests, the soak, and the single
// CPU reference of the cross-engine contract. Locks are checked, not contended: taking a held
// lock, unlocking a free one, taking zone->lock with IRQs on, or moving to another CPU inside a
// lock or IRQ-off region throws ModelError (a lockdep in miniature). With Track = true every
// access is counted, and optionally recorded as a stream.
#pragma once

#include <cstdint>
#include <vector>

#include "pagesim/error.h"
#include "pagesim/exec/access_counters.h"
#include "pagesim/exec/exec.h"
#include "pagesim/exec/stop.h"
#include "pagesim/mm/machine.h"

namespace pagesim {

struct LockCounters {
  uint64_t acquisitions = 0;
  uint64_t by_site[kNumSites] = {};
};

template <bool Track>
class UniprocessorExec {
 public:
  static constexpr bool tracks = Track;

  explicit UniprocessorExec(const mm::Machine& m, unsigned cpu = 0) : m_(m) { set_cpu(cpu); }

  unsigned cpu() const { return cpu_; }
  unsigned node() const { return node_; }
  unsigned task() const { return task_; }
  void set_task(unsigned t) { task_ = t; }
  // Run as another CPU from now on; only at a point where a migration is legal.
  void set_cpu(unsigned cpu);

  void lock(spinlock_t& l, Site site);
  void unlock(spinlock_t& l, Site site);
  IrqFlags local_irq_save(Site site) {
    IrqFlags f{irq_depth_ == 0};
    if (irq_depth_++ == 0) irq_off_[static_cast<unsigned>(site)]++;
    return f;
  }
  void local_irq_restore(IrqFlags f, Site site) {
    if (!irq_depth_) irq_bug(site, "local_irq_restore without save");
    --irq_depth_;
    if (f.was_enabled != (irq_depth_ == 0)) irq_bug(site, "unbalanced IRQ save/restore");
  }
  void cond_resched(Site) { check_may_schedule("cond_resched"); }
  void work(uint32_t, Site) {}
  void hold(uint32_t lines, Site) { access_.hold_lines += lines; }
  void sys_enter() {}  // no time model: system time is not measured here
  void sys_exit() { stop_.check(); }  // a safe point: the operation is complete
  void set_stop(StopRequest s) { stop_ = s; }

  void access(const Line& line, AccessKind kind, Site site) {
    access_.add(line, kind, site, context());
    if (record_) stream_.push_back(AccessRecord::of(line, site, kind));
  }
  void access_range(const Line& first, uint32_t n, uint32_t stride, AccessKind kind, Site site) {
    for (uint32_t i = 0; i < n; ++i) access(first.at(i, stride), kind, site);
  }

  // --- observation ---
  const AccessCounters& accesses() const { return access_; }
  void reset_accesses() { access_ = AccessCounters{}; stream_.clear(); }
  void record_stream(bool on) { record_ = on; }
  const std::vector<AccessRecord>& stream() const { return stream_; }
  const LockCounters& lock_counters(LockClass c) const { return locks_[static_cast<unsigned>(c)]; }
  uint64_t irq_off_regions(Site s) const { return irq_off_[static_cast<unsigned>(s)]; }
  bool irqs_disabled() const { return irq_depth_ > 0; }
  bool holds_any_lock() const { return !held_.empty(); }

 private:
  LockContext context() const;
  [[noreturn]] static void irq_bug(Site site, const char* what);
  void check_may_schedule(const char* what) const;

  const mm::Machine& m_;
  unsigned cpu_ = 0, node_ = 0, task_ = 0;
  unsigned irq_depth_ = 0;
  std::vector<const spinlock_t*> held_;
  AccessCounters access_;
  bool record_ = false;
  std::vector<AccessRecord> stream_;
  LockCounters locks_[static_cast<unsigned>(LockClass::kCount)];
  uint64_t irq_off_[kNumSites] = {};
  StopRequest stop_;
};

extern template class UniprocessorExec<false>;
extern template class UniprocessorExec<true>;

}  // namespace pagesim
