// The exec interface: "current" and "this_cpu" for the model.
//
// The mm layer is a set of templates on an Exec type. An Exec is the CPU the code runs on and
// the task running there; engines implement it (sim/engine/uniprocessor, native and virtual,
// each behind its header in include/pagesim/engine/). Contract, as a C++20 concept:
//
//   E::tracks                        constexpr bool: whether access()/access_range() do
//                                    anything. Callers wrap every access in
//                                    `if constexpr (E::tracks)` (see touch() below), so an
//                                    untracked build costs nothing per line.
//   cpu(), node(), task()            this CPU, its node, the current task id.
//   lock(l, site) / unlock(l, site)  a modelled spinlock (zone->lock, hugetlb_lock).
//   local_irq_save(site) -> flags,   the 5.17 pcp protection (local_lock_irqsave on !RT):
//   local_irq_restore(flags, site)   never contended; the engine times IRQ-off per site.
//   cond_resched(site)               a scheduling point: the only place a task may migrate.
//   access(line, kind, site)         one cache line touched as the kernel touches it.
//   access_range(first, n, stride, kind, site)
//                                    n lines at first.addr + i*stride (a struct-page walk).
//   work(cycles, site)               modelled non-memory work, in core cycles.
//   hold(lines, site)                an artificial hold as long as `lines` line reads
//                                    (the "head-only plus equal hold" ablation).
#pragma once

#include <atomic>
#include <concepts>
#include <cstdint>

#include "pagesim/exec/line.h"
#include "pagesim/exec/site.h"

namespace pagesim {

enum class LockClass : uint8_t { zone_lock, hugetlb_lock, kCount };
std::string_view lock_class_name(LockClass c);  // "&zone->lock", "hugetlb_lock"

// A modelled spinlock. `val` is the lock word an engine may spin on; `id` indexes the engine's
// per-lock side tables (statistics, virtual-time queues). The model never looks inside.
struct spinlock_t {
  std::atomic<uint32_t> val{0};
  uint32_t id = 0;
  LockClass cls = LockClass::zone_lock;
  Line line;  // the lock word's cache line
};

// Lock ids index the engines' side tables: zone locks use zone ids (node * 4 + zone type),
// hugetlb_lock the id after the last possible zone.
inline constexpr uint32_t kHugetlbLockId = 64 * 4;
inline constexpr uint32_t kNrLockIds = kHugetlbLockId + 1;

struct IrqFlags {
  bool was_enabled = true;
};

template <class E>
concept Exec = requires(E& e, spinlock_t& l, Line ln, Site s, IrqFlags f) {
  { E::tracks } -> std::convertible_to<bool>;
  { e.cpu() } -> std::convertible_to<unsigned>;
  { e.node() } -> std::convertible_to<unsigned>;
  { e.task() } -> std::convertible_to<unsigned>;
  e.lock(l, s);
  e.unlock(l, s);
  { e.local_irq_save(s) } -> std::same_as<IrqFlags>;
  e.local_irq_restore(f, s);
  e.cond_resched(s);
  e.access(ln, AccessKind::load, s);
  e.access_range(ln, uint32_t{1}, uint32_t{64}, AccessKind::load, s);
  e.work(uint32_t{1}, s);
  e.hold(uint32_t{1}, s);
};

// touch(): the one way model code reports a line access.
template <class E>
inline void touch(E& ex, const Line& line, AccessKind kind, Site site) {
  if constexpr (E::tracks) ex.access(line, kind, site);
}

template <class E>
inline void touch_range(E& ex, const Line& first, uint32_t n, uint32_t stride, AccessKind kind,
                        Site site) {
  if constexpr (E::tracks) {
    if (n) ex.access_range(first, n, stride, kind, site);
  }
}

}  // namespace pagesim
