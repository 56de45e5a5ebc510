// The MESI protocol over the flat arrays. Invariants it keeps (checked by invariants.cc):
//   I1  a private E or M copy is the only copy in the machine (no other core, no LLC);
//   I2  a dirty (M) LLC copy is the only copy in the machine;
//   I3  each socket's snoop filter lists exactly the cores of that socket whose L2 holds
//       the line, and L2 holds every line of its L1 (inclusive);
//   I4  for a line in both, the L1 state equals the L2 state or is M (L1 is authoritative).
#include <bit>
#include <cassert>
#include <string>
#include <utility>

#include "model_impl.h"
#include "pagesim/error.h"

namespace pagesim::cache {

using internal::SfEntry;
using internal::TagEntry;

CacheModel::Impl::Impl(const CacheGeometry& geometry)
    : g(geometry),
      l1(geometry.cores(), geometry.l1d, false),
      l2(geometry.cores(), geometry.l2, false),
      llc(geometry.sockets, geometry.llc, geometry.hash_shared_index),
      sf(geometry.sockets, geometry.snoop_filter, geometry.hash_shared_index) {
  for (unsigned c = 0; c < g.cpus(); ++c) {
    const CpuPlace p = g.place(c);
    cpu_core.push_back(p.socket * g.cores_per_socket + p.core);
    cpu_socket.push_back(static_cast<uint16_t>(p.socket));
  }
}

// ---------------------------------------------------------------- private hierarchy

LineState CacheModel::Impl::core_state(unsigned core, uint64_t line) const {
  const TagEntry* s1 = l1.set(core, line);
  if (int w = l1.find(s1, line); w >= 0) return s1[w].state();
  const TagEntry* s2 = l2.set(core, line);
  if (int w = l2.find(s2, line); w >= 0) return s2[w].state();
  return LineState::I;
}

LineState CacheModel::Impl::drop_core(unsigned core, uint64_t line) {
  LineState st = LineState::I;
  TagEntry* s1 = l1.set(core, line);
  if (int w = l1.find(s1, line); w >= 0) {
    st = s1[w].state();
    l1.erase(s1, w);
  }
  TagEntry* s2 = l2.set(core, line);
  if (int w = l2.find(s2, line); w >= 0) {
    if (st == LineState::I) st = s2[w].state();
    l2.erase(s2, w);
  }
  return st;
}

void CacheModel::Impl::share_core(unsigned core, uint64_t line) {
  TagEntry* s1 = l1.set(core, line);
  if (int w = l1.find(s1, line); w >= 0) s1[w].set_state(LineState::S);
  TagEntry* s2 = l2.set(core, line);
  if (int w = l2.find(s2, line); w >= 0) s2[w].set_state(LineState::S);
}

void CacheModel::Impl::fill_l1(unsigned core, uint64_t line, LineState st) {
  const TagEntry victim = l1.insert(l1.set(core, line), TagEntry(line, st));
  if (!victim.valid()) return;
  ++stats.events.l1_evictions;
  // The L2 copy exists (inclusion); a dirty L1 victim writes its state back there.
  if (victim.state() == LineState::M) {
    TagEntry* s2 = l2.set(core, victim.line());
    const int w = l2.find(s2, victim.line());
    assert(w >= 0);
    s2[w].set_state(LineState::M);
  }
}

void CacheModel::Impl::fill_private(unsigned core, uint64_t line, LineState st) {
  sf_add(core, line);
  const TagEntry victim = l2.insert(l2.set(core, line), TagEntry(line, st));
  if (victim.valid()) evict_l2_victim(core, victim);
  fill_l1(core, line, st);
}

void CacheModel::Impl::evict_l2_victim(unsigned core, TagEntry victim) {
  ++stats.events.l2_evictions;
  LineState st = victim.state();
  // Inclusion: the L1 copy goes too, and its state is the up-to-date one.
  TagEntry* s1 = l1.set(core, victim.line());
  if (int w = l1.find(s1, victim.line()); w >= 0) {
    st = s1[w].state();
    l1.erase(s1, w);
  }
  sf_remove(core, victim.line());
  llc_insert(socket_of(core), victim.line(), st == LineState::M);
}

// ---------------------------------------------------------------- socket structures

CacheModel::Impl::Holders CacheModel::Impl::holders(unsigned socket, uint64_t line) {
  Holders h;
  const SfEntry* fs = sf.set(socket, line);
  if (int w = sf.find(fs, line); w >= 0) {
    h.sharers = fs[w].sharers;
    if (std::has_single_bit(h.sharers))
      h.owner_state = core_state(core_at(socket, std::countr_zero(h.sharers)), line);
  }
  h.llc_set = llc.set(socket, line);
  h.llc_way = llc.find(h.llc_set, line);
  return h;
}

void CacheModel::Impl::llc_insert(unsigned socket, uint64_t line, bool dirty) {
  TagEntry* s = llc.set(socket, line);
  if (int w = llc.find(s, line); w >= 0) {
    if (dirty) s[w].set_state(LineState::M);
    llc.touch(s, w);
    return;
  }
  const TagEntry victim = llc.insert(s, TagEntry(line, dirty ? LineState::M : LineState::S));
  if (!victim.valid()) return;
  ++stats.events.llc_evictions;
  if (victim.state() == LineState::M) ++stats.events.llc_writebacks;
}

void CacheModel::Impl::sf_add(unsigned core, uint64_t line) {
  const unsigned socket = socket_of(core);
  SfEntry* s = sf.set(socket, line);
  if (int w = sf.find(s, line); w >= 0) {
    s[w].sharers |= bit(core);
    sf.touch(s, w);
    return;
  }
  const SfEntry victim = sf.insert(s, SfEntry{line, bit(core)});
  if (victim.valid()) back_invalidate(socket, victim);
}

void CacheModel::Impl::sf_remove(unsigned core, uint64_t line) {
  SfEntry* s = sf.set(socket_of(core), line);
  const int w = sf.find(s, line);
  assert(w >= 0 && (s[w].sharers & bit(core)));
  if (w < 0) return;
  s[w].sharers &= ~bit(core);
  if (!s[w].sharers) sf.erase(s, w);
}

void CacheModel::Impl::back_invalidate(unsigned socket, const SfEntry& victim) {
  ++stats.events.sf_evictions;
  bool dirty = false;
  for (uint64_t m = victim.sharers; m; m &= m - 1) {
    dirty |= drop_core(core_at(socket, std::countr_zero(m)), victim.line()) == LineState::M;
    ++stats.events.back_invalidations;
  }
  llc_insert(socket, victim.line(), dirty);
}

// ---------------------------------------------------------------- protocol

Outcome CacheModel::Impl::access(unsigned core, unsigned socket, uint64_t line, uint16_t home,
                                 bool write, const Attribution& attr) {
  TagEntry* s1 = l1.set(core, line);
  const int w = l1.find(s1, line);
  if (w < 0) return miss_l1(core, socket, line, home, write, attr);
  Outcome o = Outcome::l1;
  if (write) {
    // E -> M is silent; S -> M must invalidate the other copies first.
    if (s1[w].state() == LineState::S) o = upgrade(core, line, attr);
    s1[w].set_state(LineState::M);
  }
  l1.touch(s1, w);
  return o;
}

Outcome CacheModel::Impl::miss_l1(unsigned core, unsigned socket, uint64_t line, uint16_t home,
                                  bool write, const Attribution& attr) {
  TagEntry* s2 = l2.set(core, line);
  if (int w = l2.find(s2, line); w >= 0) {
    LineState st = s2[w].state();
    Outcome o = Outcome::l2;
    if (write) {
      if (st == LineState::S) o = upgrade(core, line, attr);
      st = LineState::M;
      s2[w].set_state(st);
    }
    l2.touch(s2, w);
    fill_l1(core, line, st);
    return o;
  }
  LineState st;
  const Outcome o = fetch(core, socket, line, home, write, attr, &st);
  fill_private(core, line, st);
  return o;
}

Outcome CacheModel::Impl::upgrade(unsigned core, uint64_t line, const Attribution& attr) {
  ++stats.events.upgrades;
  const Killed k = invalidate_others(core, line);
  count_killed(line, attr, k);
  return k.remote ? Outcome::llc_remote : Outcome::llc_local;
}

Outcome CacheModel::Impl::fetch(unsigned core, unsigned socket, uint64_t line, uint16_t home,
                                bool write, const Attribution& attr, LineState* filled) {
  // Look at every socket, own first; the first one with a copy serves the line. If some
  // copy is Modified it is the only one (I1, I2), so "first" never hides a HITM.
  Holders h[kMaxSockets];
  unsigned src = kMaxSockets;
  bool elsewhere = false;  // a copy outside the requester's socket
  for (unsigned i = 0; i < g.sockets; ++i) {
    const unsigned s = (socket + i) % g.sockets;
    h[s] = holders(s, line);
    if (!h[s].any()) continue;
    if (src == kMaxSockets) src = s;
    if (s != socket) elsewhere = true;
  }

  Outcome o;
  if (src == kMaxSockets)
    o = home == socket ? Outcome::dram_local : Outcome::dram_remote;
  else if (src == socket)
    o = h[src].owner_state == LineState::M ? Outcome::hitm_local : Outcome::llc_local;
  else
    o = h[src].modified() ? Outcome::hitm_remote : Outcome::llc_remote;

  if (write) {
    count_killed(line, attr, invalidate_others(core, line));
    *filled = LineState::M;
    return o;
  }
  if (src == kMaxSockets) {
    *filled = LineState::E;
    return o;
  }
  Holders& from = h[src];
  if (src == socket && from.sharers == 0 && !elsewhere) {
    // The socket's LLC holds the only copy: the core takes it over, dirty or not.
    *filled = from.llc() == LineState::M ? LineState::M : LineState::E;
    llc.erase(from.llc_set, from.llc_way);
    return o;
  }
  // Shared from now on: demote an exclusive owner, or clean a dirty LLC copy.
  if (from.owner_state == LineState::E || from.owner_state == LineState::M) {
    share_core(core_at(src, std::countr_zero(from.sharers)), line);
    ++stats.events.downgrades;
  }
  if (from.llc_way >= 0) {
    from.llc_set[from.llc_way].set_state(LineState::S);
    llc.touch(from.llc_set, from.llc_way);
  }
  *filled = LineState::S;
  return o;
}

CacheModel::Impl::Killed CacheModel::Impl::invalidate_others(unsigned keep, uint64_t line) {
  Killed k;
  for (unsigned s = 0; s < g.sockets; ++s) {
    const bool own = keep != kNoCore && socket_of(keep) == s;
    SfEntry* fs = sf.set(s, line);
    if (int w = sf.find(fs, line); w >= 0) {
      const uint64_t victims = fs[w].sharers & ~(own ? bit(keep) : 0);
      for (uint64_t m = victims; m; m &= m - 1) drop_core(core_at(s, std::countr_zero(m)), line);
      k.cores += std::popcount(victims);
      k.remote |= victims && !own;
      fs[w].sharers &= ~victims;
      if (!fs[w].sharers) sf.erase(fs, w);
    }
    TagEntry* ls = llc.set(s, line);
    if (int w = llc.find(ls, line); w >= 0) {
      llc.erase(ls, w);
      ++k.llcs;
      k.remote |= !own;
    }
  }
  return k;
}

void CacheModel::Impl::count_killed(uint64_t line, const Attribution& attr, const Killed& k) {
  stats.events.invalidations += k.cores;
  stats.events.llc_invalidations += k.llcs;
  stats.record_invalidations(line, attr, k.cores);
}

// ---------------------------------------------------------------- public API

CacheModel::CacheModel(const CacheGeometry& g) {
  if (std::string err = g.validate(); !err.empty()) throw InputError("cache geometry: " + err);
  impl_ = std::make_unique<Impl>(g);
}
CacheModel::~CacheModel() = default;
CacheModel::CacheModel(CacheModel&&) noexcept = default;
CacheModel& CacheModel::operator=(CacheModel&&) noexcept = default;

const CacheGeometry& CacheModel::geometry() const { return impl_->g; }

Outcome CacheModel::access(unsigned cpu, uint64_t line, uint16_t home_node, AccessKind kind,
                           const Attribution& attr) {
  Impl& m = *impl_;
  if (cpu >= m.cpu_core.size() || home_node >= m.g.sockets || (line >> 62))
    throw ModelError("cache access out of range: cpu " + std::to_string(cpu) + ", node " +
                     std::to_string(home_node) + ", line " + std::to_string(line));
  const unsigned socket = m.cpu_socket[cpu];
  const bool write = kind == AccessKind::store || kind == AccessKind::rmw;
  Outcome o = m.access(m.cpu_core[cpu], socket, line, home_node, write, attr);
  if (kind == AccessKind::prefetch) {
    ++m.stats.events.prefetch_served[static_cast<unsigned>(o)];
    o = Outcome::prefetch;
  } else if (is_hitm(o)) {
    m.stats.record_hitm(line, attr.line_kind, o);
  }
  m.stats.record(o, attr, home_node == socket ? Home::local : Home::remote);
  return o;
}

void CacheModel::prefetch_sets(unsigned cpu, uint64_t line) const {
  const Impl& m = *impl_;
  if (cpu >= m.cpu_core.size()) return;
  const unsigned core = m.cpu_core[cpu];
  __builtin_prefetch(m.l1.set(core, line));
  __builtin_prefetch(m.l2.set(core, line));
  for (unsigned s = 0; s < m.g.sockets; ++s) {
    __builtin_prefetch(m.sf.set(s, line));
    __builtin_prefetch(m.llc.set(s, line));
  }
}

void CacheModel::flush_all() {
  impl_->l1.clear();
  impl_->l2.clear();
  impl_->llc.clear();
  impl_->sf.clear();
}

void CacheModel::evict_range(uint64_t first_line, uint64_t n) {
  for (uint64_t line = first_line; line < first_line + n; ++line)
    impl_->invalidate_others(Impl::kNoCore, line);
}

const CacheStats& CacheModel::stats() const { return impl_->stats; }

CacheStats CacheModel::take_stats() { return std::exchange(impl_->stats, CacheStats{}); }

LineState CacheModel::private_state(unsigned cpu, uint64_t line) const {
  return impl_->core_state(impl_->cpu_core.at(cpu), line);
}

bool CacheModel::in_l1(unsigned cpu, uint64_t line) const {
  const unsigned core = impl_->cpu_core.at(cpu);
  return impl_->l1.find(impl_->l1.set(core, line), line) >= 0;
}

bool CacheModel::in_l2(unsigned cpu, uint64_t line) const {
  const unsigned core = impl_->cpu_core.at(cpu);
  return impl_->l2.find(impl_->l2.set(core, line), line) >= 0;
}

LineState CacheModel::llc_state(unsigned socket, uint64_t line) const {
  const TagEntry* s = impl_->llc.set(socket, line);
  const int w = impl_->llc.find(s, line);
  return w < 0 ? LineState::I : s[w].state();
}

uint64_t CacheModel::sharers(unsigned socket, uint64_t line) const {
  const SfEntry* s = impl_->sf.set(socket, line);
  const int w = impl_->sf.find(s, line);
  return w < 0 ? 0 : s[w].sharers;
}

}  // namespace pagesim::cache
