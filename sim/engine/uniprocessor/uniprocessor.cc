#include "pagesim/engine/uniprocessor/uniprocessor.h"

#include <fmt/format.h>

#include <algorithm>

namespace pagesim {

template <bool Track>
void UniprocessorExec<Track>::set_cpu(unsigned cpu) {
  if (cpu >= m_.nr_cpus()) throw ModelError(fmt::format("cpu {} does not exist ({} CPUs)", cpu, m_.nr_cpus()));
  check_may_schedule("a CPU switch");
  cpu_ = cpu;
  node_ = m_.cpu_to_node(cpu);
}

template <bool Track>
void UniprocessorExec<Track>::check_may_schedule(const char* what) const {
  if (irq_depth_ || !held_.empty())
    throw ModelError(fmt::format("BUG: {} inside an atomic region (IRQs off or a spinlock held)", what));
}

template <bool Track>
void UniprocessorExec<Track>::lock(spinlock_t& l, Site site) {
  if (std::find(held_.begin(), held_.end(), &l) != held_.end())
    throw ModelError(fmt::format("BUG: recursive locking of {} at {}", lock_class_name(l.cls), site_name(site)));
  if (l.cls == LockClass::zone_lock && !irq_depth_)
    throw ModelError(fmt::format("BUG: &zone->lock taken with IRQs on at {}", site_name(site)));
  held_.push_back(&l);
  auto& c = locks_[static_cast<unsigned>(l.cls)];
  c.acquisitions++;
  c.by_site[static_cast<unsigned>(site)]++;
  if constexpr (Track) access(l.line, AccessKind::rmw, site);
}

template <bool Track>
void UniprocessorExec<Track>::unlock(spinlock_t& l, Site site) {
  auto it = std::find(held_.begin(), held_.end(), &l);
  if (it == held_.end()) throw ModelError(fmt::format("BUG: unlocking a free {} at {}", lock_class_name(l.cls), site_name(site)));
  if constexpr (Track) access(l.line, AccessKind::store, site);
  held_.erase(it);
}

template <bool Track>
void UniprocessorExec<Track>::irq_bug(Site site, const char* what) {
  throw ModelError(fmt::format("BUG: {} at {}", what, site_name(site)));
}

template <bool Track>
LockContext UniprocessorExec<Track>::context() const {
  if (!held_.empty())
    return held_.back()->cls == LockClass::zone_lock ? LockContext::zone_lock : LockContext::hugetlb_lock;
  return irq_depth_ ? LockContext::irq_off : LockContext::none;
}

template class UniprocessorExec<false>;
template class UniprocessorExec<true>;

AccessCounters& AccessCounters::operator+=(const AccessCounters& o) {
  total += o.total;
  for (unsigned i = 0; i < kNumSites; ++i) by_site[i] += o.by_site[i], struct_page_by_site[i] += o.struct_page_by_site[i];
  for (unsigned i = 0; i < 4; ++i) by_kind[i] += o.by_kind[i];
  for (unsigned i = 0; i < kNumLineKinds; ++i) by_line_kind[i] += o.by_line_kind[i];
  for (unsigned i = 0; i < kNumLockContexts; ++i) struct_page_by_context[i] += o.struct_page_by_context[i];
  hold_lines += o.hold_lines;
  return *this;
}

std::string_view lock_context_name(LockContext c) {
  switch (c) {
    case LockContext::none: return "outside any lock";
    case LockContext::zone_lock: return "inside zone->lock";
    case LockContext::hugetlb_lock: return "inside hugetlb_lock";
    case LockContext::irq_off: return "IRQs off (pcp)";
    default: return "?";
  }
}

}  // namespace pagesim
