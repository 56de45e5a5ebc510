#include "pagesim/engine/native/native.h"

#include <fmt/format.h>
#include <pthread.h>
#include <sched.h>

#include <chrono>

#include "pagesim/exec/tsan.h"

namespace pagesim {

double tsc_ns_per_tick() {
  static const double kNsPerTick = [] {
    const auto c0 = std::chrono::steady_clock::now();
    const uint64_t t0 = rdtsc();
    while (std::chrono::steady_clock::now() - c0 < std::chrono::milliseconds(20)) {
    }
    const uint64_t t1 = rdtsc();
    const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - c0).count();
    return t1 > t0 ? ns / static_cast<double>(t1 - t0) : 1.0;
  }();
  return kNsPerTick;
}

std::string_view lock_impl_name(LockImpl l) {
  switch (l) {
    case LockImpl::qspinlock: return "qspinlock";
    case LockImpl::ticket: return "ticket";
    case LockImpl::mutex: return "mutex";
  }
  return "?";
}

bool parse_lock_impl(std::string_view s, LockImpl* out) {
  for (LockImpl l : {LockImpl::qspinlock, LockImpl::ticket, LockImpl::mutex})
    if (lock_impl_name(l) == s) {
      *out = l;
      return true;
    }
  return false;
}

NativeLocks::NativeLocks(LockImpl impl) : impl_(impl), states_(std::make_unique<State[]>(kNrLockIds)) {}

// The queued spinlock is an MCS lock: each waiter spins on its own node, and the holder hands
// over by writing the next node, as the kernel's qspinlock slow path does. (The kernel first
// tries a pending bit on the lock word; this model queues every waiter.)
bool NativeLocks::acquire(spinlock_t& l, McsNode* node) {
  switch (impl_) {
    case LockImpl::qspinlock: {
      State& s = states_[l.id];
      node->next.store(nullptr, std::memory_order_relaxed);
      node->locked.store(1, std::memory_order_relaxed);
      McsNode* prev = s.tail.exchange(node, std::memory_order_acq_rel);
      if (!prev) return false;
      s.waiting.fetch_add(1, std::memory_order_acq_rel);
      prev->next.store(node, std::memory_order_release);
      while (node->locked.load(std::memory_order_acquire)) cpu_relax();
      s.waiting.fetch_sub(1, std::memory_order_acq_rel);
      return true;
    }
    case LockImpl::ticket: {
      // val: next ticket in the high half, owner in the low half.
      const uint32_t ticket = l.val.fetch_add(1u << 16, std::memory_order_acquire) >> 16;
      if ((l.val.load(std::memory_order_acquire) & 0xffff) == (ticket & 0xffff)) return false;
      State& s = states_[l.id];
      s.waiting.fetch_add(1, std::memory_order_acq_rel);
      while ((l.val.load(std::memory_order_acquire) & 0xffff) != (ticket & 0xffff)) cpu_relax();
      s.waiting.fetch_sub(1, std::memory_order_acq_rel);
      return true;
    }
    case LockImpl::mutex: {
      State& s = states_[l.id];
      if (s.mu.TryLock()) {
        PAGESIM_TSAN_ACQUIRE(&s.mu);
        return false;
      }
      s.waiting.fetch_add(1, std::memory_order_acq_rel);
      s.mu.Lock();
      PAGESIM_TSAN_ACQUIRE(&s.mu);
      s.waiting.fetch_sub(1, std::memory_order_acq_rel);
      return true;
    }
  }
  return false;
}

void NativeLocks::release(spinlock_t& l, McsNode* node) {
  switch (impl_) {
    case LockImpl::qspinlock: {
      State& s = states_[l.id];
      McsNode* next = node->next.load(std::memory_order_acquire);
      if (!next) {
        McsNode* expected = node;
        if (s.tail.compare_exchange_strong(expected, nullptr, std::memory_order_acq_rel)) return;
        while (!(next = node->next.load(std::memory_order_acquire))) cpu_relax();
      }
      next->locked.store(0, std::memory_order_release);
      return;
    }
    case LockImpl::ticket: {
      uint32_t v = l.val.load(std::memory_order_relaxed);
      while (!l.val.compare_exchange_weak(v, (v & 0xffff0000u) | ((v + 1) & 0xffffu), std::memory_order_release)) {
      }
      return;
    }
    case LockImpl::mutex:
      PAGESIM_TSAN_RELEASE(&states_[l.id].mu);
      states_[l.id].mu.Unlock();
      return;
  }
}

unsigned NativeEngine::host_cpus() {
  const unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

void NativeEngine::check_cpus(unsigned nr_cpus, bool oversubscribe) {
  if (nr_cpus > host_cpus() && !oversubscribe)
    throw InputError(fmt::format(
        "engine: the native engine runs one thread per CPU; the machine has {} CPUs but this host has {} cores "
        "(set engine.oversubscribe: true to run them anyway, with a blocking lock)",
        nr_cpus, host_cpus()));
}

NativeEngine::NativeEngine(mm::Machine& m, NativeOptions opt)
    : m_(m), opt_(opt), locks_(opt.oversubscribe && m.nr_cpus() > host_cpus() ? LockImpl::mutex : opt.lock_impl) {
  check_cpus(m.nr_cpus(), opt.oversubscribe);
  oversubscribed_ = m.nr_cpus() > host_cpus();
}

void NativeEngine::pin_self(unsigned cpu) const {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu % host_cpus(), &set);
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

template <bool Track>
void NativeCpu<Track>::lock(spinlock_t& l, Site site) {
  if (depth_ == kMaxDepth) throw ModelError("native engine: spinlocks nested too deeply");
  if (!stats_) {
    eng_->locks().acquire(l, &mcs_[depth_]);
    held_cls_[depth_++] = l.cls;
    if constexpr (Track) access(l.line, AccessKind::rmw, site);
    return;
  }
  const uint64_t t0 = rdtsc();
  const bool contended = eng_->locks().acquire(l, &mcs_[depth_]);
  const uint64_t t1 = rdtsc();
  LockStatCpu& st = lockstat_[l.id];
  const auto s = static_cast<unsigned>(site);
  st.acquisitions++;
  st.acquisition_points[s]++;
  if (contended) {
    st.contentions++;
    st.contention_points[s]++;
    st.wait.add(tsc_to_ns(t1 - t0));
  }
  NativeLocks::State& ls = eng_->locks().state(l.id);
  ls.owner.acquired_by(cpu_, node_, st);
  held_cls_[depth_] = l.cls;
  held_t0_[depth_] = t1;
  depth_++;
  epoch_ = t1;
  if constexpr (Track) access(l.line, AccessKind::rmw, site);
}

template <bool Track>
void NativeCpu<Track>::unlock(spinlock_t& l, Site site) {
  if (!depth_) throw ModelError("native engine: unlock without lock");
  if constexpr (Track) access(l.line, AccessKind::store, site);
  --depth_;
  if (!stats_) {
    eng_->locks().release(l, &mcs_[depth_]);
    return;
  }
  const uint64_t t = rdtsc();
  lockstat_[l.id].hold.add(tsc_to_ns(t - held_t0_[depth_]));
  eng_->locks().release(l, &mcs_[depth_]);
  epoch_ = t;
}

template <bool Track>
void NativeCpu<Track>::reset_stats() {
  lockstat_.clear();
  irqoff_ = IrqOffStat{};
  access_ = AccessCounters{};
  log_.clear();
  sys_ticks_ = 0;
}

template class NativeCpu<false>;
template class NativeCpu<true>;

}  // namespace pagesim
