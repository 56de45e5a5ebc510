// The MESI protocol over the flat arrays. Invariants it keeps (checked by invariants.cc):
//   I1  a private E or M copy is the only copy in the machine (no other core, no LLC);
//   I2  a dirty (M) LLC copy is the only copy in the machine;
//   I3  each socket's snoop filter lists exactly the cores of that socket whose L2 holds
//       the line, and L2 holds every line of its L1 (inclusive);
//   I4  for a line in both, the L1 and L2 states are equal: a store that changes the L1 copy's
//       state changes the L2 copy's too, so an L1 victim needs no write-back into L2.
#include <bit>
#include <cassert>
#include <optional>
#include <string>
#include <utility>

#include "model_impl.h"
#include "pagesim/error.h"

namespace pagesim::cache {

using internal::TagEntry;

namespace {

// Impl::socket_sets: per set index, per socket, the LLC set, then the snoop-filter set (keys,
// then sharer bytes) from the next host line. A lookup of a line no cache holds reads the LLC
// tags and the snoop-filter keys, so it touches two whole host lines, both prefetchable; with
// up to 12 filter ways (the robot's box), a fill and an eviction of a line one core holds
// touch no other.
size_t round_to_lines(size_t bytes) { return (bytes + kLineBytes - 1) / kLineBytes * kLineBytes; }
size_t sf_offset_in_chunk(const CacheGeometry& g) { return round_to_lines(internal::LruArray<TagEntry>::set_bytes(g.llc)); }
size_t socket_chunk(const CacheGeometry& g) {
  return round_to_lines(sf_offset_in_chunk(g) + internal::SfArray::set_bytes(g.snoop_filter));
}
bool shares_socket_sets(const CacheGeometry& g) { return g.llc.sets == g.snoop_filter.sets; }

HugeRegion socket_sets_region(const CacheGeometry& g) {
  if (!shares_socket_sets(g)) return {};
  return HugeRegion(socket_chunk(g) * g.sockets * g.llc.sets, "cache model");
}

internal::SetPlacement socket_placement(const CacheGeometry& g, const HugeRegion& r, size_t offset) {
  if (!r.data()) return {};
  return {r.data() + offset, socket_chunk(g) * g.sockets, socket_chunk(g)};
}

}  // namespace

CacheModel::Impl::Impl(const CacheGeometry& geometry, PerLineContention per_line)
    : g(geometry),
      socket_sets(socket_sets_region(geometry)),
      l1(geometry.cores(), geometry.l1d, false),
      l2(geometry.cores(), geometry.l2, false),
      llc(geometry.sockets, geometry.llc, geometry.hash_shared_index,
          socket_placement(geometry, socket_sets, 0)),
      sf(geometry.sockets, geometry.snoop_filter, geometry.hash_shared_index,
         socket_placement(geometry, socket_sets, sf_offset_in_chunk(geometry))),
      // Both are built with hash_shared_index; equal set counts then give equal indices.
      same_socket_index(shares_socket_sets(geometry)),
      stats(per_line) {
  if (socket_sets.data()) socket_stride = socket_chunk(g), sf_offset = sf_offset_in_chunk(g);
  for (unsigned c = 0; c < g.cpus(); ++c) {
    const CpuPlace p = g.place(c);
    cpu_core.push_back(p.socket * g.cores_per_socket + p.core);
    cpu_socket.push_back(static_cast<uint16_t>(p.socket));
  }
}

// ---------------------------------------------------------------- private hierarchy

// L2 alone answers: it holds every line of L1 (I3), in the same state (I4).
LineState CacheModel::Impl::core_state(unsigned core, Ln ln) const {
  const TagEntry* s2 = l2.set(core, ln.line);
  const int w = l2.find(s2, ln.id);
  return w >= 0 ? s2[w].state() : LineState::I;
}

LineState CacheModel::Impl::drop_core(unsigned core, Ln ln) {
  LineState st = LineState::I;
  TagEntry* s1 = l1.set(core, ln.line);
  if (int w = l1.find(s1, ln.id); w >= 0) {
    st = s1[w].state();
    l1.erase(s1, w);
  }
  TagEntry* s2 = l2.set(core, ln.line);
  if (int w = l2.find(s2, ln.id); w >= 0) {
    if (st == LineState::I) st = s2[w].state();
    l2.erase(s2, w);
  }
  return st;
}

void CacheModel::Impl::share_core(unsigned core, Ln ln) {
  TagEntry* s1 = l1.set(core, ln.line);
  if (int w = l1.find(s1, ln.id); w >= 0) s1[w].set_state(LineState::S);
  TagEntry* s2 = l2.set(core, ln.line);
  if (int w = l2.find(s2, ln.id); w >= 0) s2[w].set_state(LineState::S);
}

inline void CacheModel::Impl::fill_l1(LineState st, Ln ln, TagEntry* s1) {
  // The L2 copy exists (inclusion) and has the victim's state (I4): nothing to write back.
  if (l1.insert(s1, TagEntry(ln.id, st)).valid()) ++stats.events.l1_evictions;
}

inline void CacheModel::Impl::fill_private(unsigned core, Ln ln, const Fetched& filled, TagEntry* s1, TagEntry* s2) {
  sf_add(core, ln, filled.sf_set, filled.sf_way);
  const TagEntry victim = l2.insert(s2, TagEntry(ln.id, filled.st));
  if (victim.valid()) evict_l2_victim(core, victim);
  fill_l1(filled.st, ln, s1);
}

inline void CacheModel::Impl::evict_l2_victim(unsigned core, TagEntry victim) {
  ++stats.events.l2_evictions;
  const Ln v = ln_of(victim.id());
  const LineState st = victim.state();  // the L1 copy's too (I4)
  // Inclusion: the L1 copy goes too.
  TagEntry* s1 = l1.set(core, v.line);
  if (int w = l1.find(s1, v.id); w >= 0) l1.erase(s1, w);
  const SocketIndex x = socket_index(v.line);
  sf_remove(core, v, x.sf);
  llc_insert(socket_of(core), v, x.llc, st == LineState::M);
}

// ---------------------------------------------------------------- socket structures

inline void CacheModel::Impl::find_holders(unsigned socket, Ln ln, SocketIndex x, Holders& h) {
  h.sharers = 0;
  h.owner_state = LineState::I;
  const SfArray::Set fs = h.sf_set = sf.set_at(socket, x.sf);
  if (const int w = h.sf_way = sf.find(fs, ln.id); w >= 0) {
    h.sharers = sf.sharers(fs, w);
    if (std::has_single_bit(h.sharers))
      h.owner_state = core_state(core_at(socket, std::countr_zero(h.sharers)), ln);
  }
  h.llc_set = llc.set_at(socket, x.llc);
  h.llc_way = llc.find(h.llc_set, ln.id);
}

inline void CacheModel::Impl::llc_insert(unsigned socket, Ln ln, uint32_t llc_index, bool dirty) {
  TagEntry* s = llc.set_at(socket, llc_index);
  if (int w = llc.find(s, ln.id); w >= 0) {
    if (dirty) s[w].set_state(LineState::M);
    llc.touch(s, w);
    return;
  }
  const TagEntry victim = llc.insert(s, TagEntry(ln.id, dirty ? LineState::M : LineState::S));
  if (!victim.valid()) return;
  ++stats.events.llc_evictions;
  if (victim.state() == LineState::M) ++stats.events.llc_writebacks;
}

inline void CacheModel::Impl::sf_add(unsigned core, Ln ln, const SfArray::Set& s, int w) {
  assert(w == sf.find(s, ln.id));
  if (w >= 0) {
    sf.set_sharers(s, w, sf.sharers(s, w) | bit(core));
    sf.touch(s, w);
    return;
  }
  const SfArray::Entry victim = sf.insert(s, ln.id, core % g.cores_per_socket);
  if (victim.valid()) back_invalidate(socket_of(core), victim);
}

inline void CacheModel::Impl::sf_remove(unsigned core, Ln ln, uint32_t sf_index) {
  const SfArray::Set s = sf.set_at(socket_of(core), sf_index);
  const int w = sf.find(s, ln.id);
  assert(w >= 0 && (sf.sharers(s, w) & bit(core)));
  if (w < 0) return;
  sf.retain(s, w, sf.sharers(s, w) & ~bit(core));
}

void CacheModel::Impl::back_invalidate(unsigned socket, const SfArray::Entry& victim) {
  ++stats.events.sf_evictions;
  const Ln v = ln_of(victim.id());
  bool dirty = false;
  for (uint64_t m = victim.sharers; m; m &= m - 1) {
    dirty |= drop_core(core_at(socket, std::countr_zero(m)), v) == LineState::M;
    ++stats.events.back_invalidations;
  }
  llc_insert(socket, v, llc.index(v.line), dirty);
}

// ---------------------------------------------------------------- protocol

inline Outcome CacheModel::Impl::access(unsigned core, unsigned socket, Ln ln, uint16_t home, bool write,
                                 const Attribution& attr) {
  TagEntry* s1 = l1.set(core, ln.line);
  const int w = l1.find(s1, ln.id);
  if (w < 0) return miss_l1(core, socket, ln, home, write, attr, s1);
  Outcome o = Outcome::l1;
  if (write && s1[w].state() != LineState::M) {
    // E -> M is silent; S -> M must invalidate the other copies first.
    if (s1[w].state() == LineState::S) o = upgrade(core, ln, attr);
    s1[w].set_state(LineState::M);
    // The L2 copy follows (I4): a lookup of the line's own L2 set, near the walk, instead of
    // the dirty L1 victim's at its eviction, far from it.
    TagEntry* s2 = l2.set(core, ln.line);
    const int w2 = l2.find(s2, ln.id);
    assert(w2 >= 0);
    s2[w2].set_state(LineState::M);
  }
  l1.touch(s1, w);
  return o;
}

Outcome CacheModel::Impl::miss_l1(unsigned core, unsigned socket, Ln ln, uint16_t home, bool write,
                                  const Attribution& attr, TagEntry* s1) {
  TagEntry* s2 = l2.set(core, ln.line);
  if (int w = l2.find(s2, ln.id); w >= 0) {
    LineState st = s2[w].state();
    Outcome o = Outcome::l2;
    if (write) {
      if (st == LineState::S) o = upgrade(core, ln, attr);
      st = LineState::M;
      s2[w].set_state(st);
    }
    l2.touch(s2, w);
    fill_l1(st, ln, s1);
    return o;
  }
  const Fetched f = fetch(core, socket, ln, home, write, attr);
  fill_private(core, ln, f, s1, s2);
  return f.o;
}

Outcome CacheModel::Impl::upgrade(unsigned core, Ln ln, const Attribution& attr) {
  ++stats.events.upgrades;
  const Killed k = invalidate_others(core, ln);
  count_killed(ln.line, attr, k);
  return k.remote ? Outcome::llc_remote : Outcome::llc_local;
}

inline CacheModel::Impl::Fetched CacheModel::Impl::fetch(unsigned core, unsigned socket, Ln ln, uint16_t home, bool write,
                                                  const Attribution& attr) {
  // Look at every socket, own first; the first one with a copy serves the line. If some
  // copy is Modified it is the only one (I1, I2), so "first" never hides a HITM.
  Holders h[kMaxSockets];
  unsigned src = kMaxSockets;
  bool elsewhere = false;  // a copy outside the requester's socket
  const SocketIndex x = socket_index(ln.line);
  for (unsigned i = 0, s = socket; i < g.sockets; ++i, s = s + 1 == g.sockets ? 0 : s + 1) {
    find_holders(s, ln, x, h[s]);
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

  const Holders& own = h[socket];
  if (write) {
    count_killed(ln.line, attr, invalidate_found(core, ln, h));
    return {o, LineState::M, own.sf_set, -1};  // the socket's entry went with its sharers
  }
  if (src == kMaxSockets) return {o, LineState::E, own.sf_set, own.sf_way};
  Holders& from = h[src];
  if (src == socket && from.sharers == 0 && !elsewhere) {
    // The socket's LLC holds the only copy: the core takes it over, dirty or not.
    const LineState st = from.llc() == LineState::M ? LineState::M : LineState::E;
    llc.erase(from.llc_set, from.llc_way);
    return {o, st, own.sf_set, own.sf_way};
  }
  // Shared from now on: demote an exclusive owner, or clean a dirty LLC copy.
  if (from.owner_state == LineState::E || from.owner_state == LineState::M) {
    share_core(core_at(src, std::countr_zero(from.sharers)), ln);
    ++stats.events.downgrades;
  }
  if (from.llc_way >= 0) {
    from.llc_set[from.llc_way].set_state(LineState::S);
    llc.touch(from.llc_set, from.llc_way);
  }
  return {o, LineState::S, own.sf_set, own.sf_way};
}

CacheModel::Impl::Killed CacheModel::Impl::invalidate_others(unsigned keep, Ln ln) {
  Killed k;
  const SocketIndex x = socket_index(ln.line);
  for (unsigned s = 0; s < g.sockets; ++s) {
    const SfArray::Set fs = sf.set_at(s, x.sf);
    TagEntry* ls = llc.set_at(s, x.llc);
    invalidate_in_socket(keep, s, ln, fs, sf.find(fs, ln.id), ls, llc.find(ls, ln.id), k);
  }
  return k;
}

CacheModel::Impl::Killed CacheModel::Impl::invalidate_found(unsigned keep, Ln ln, const Holders* h) {
  Killed k;
  for (unsigned s = 0; s < g.sockets; ++s)
    if (h[s].any()) invalidate_in_socket(keep, s, ln, h[s].sf_set, h[s].sf_way, h[s].llc_set, h[s].llc_way, k);
  return k;
}

// Dropping private copies changes L1s and L2s only, so the ways found for the socket's filter
// and LLC stay where they are until each is erased.
void CacheModel::Impl::invalidate_in_socket(unsigned keep, unsigned s, Ln ln, const SfArray::Set& fs, int sw,
                                            TagEntry* ls, int lw, Killed& k) {
  const bool own = keep != kNoCore && socket_of(keep) == s;
  if (sw >= 0) {
    const uint64_t sharers = sf.sharers(fs, sw);
    const uint64_t victims = sharers & ~(own ? bit(keep) : 0);
    for (uint64_t m = victims; m; m &= m - 1) drop_core(core_at(s, std::countr_zero(m)), ln);
    k.cores += std::popcount(victims);
    k.remote |= victims && !own;
    sf.retain(fs, sw, sharers & ~victims);
  }
  if (lw >= 0) {
    llc.erase(ls, lw);
    ++k.llcs;
    k.remote |= !own;
  }
}

void CacheModel::Impl::count_killed(uint64_t line, const Attribution& attr, const Killed& k) {
  stats.events.invalidations += k.cores;
  stats.events.llc_invalidations += k.llcs;
  stats.record_invalidations(line, attr, k.cores);
}

// ---------------------------------------------------------------- public API

CacheModel::CacheModel(const CacheGeometry& g, PerLineContention per_line) {
  if (std::string err = g.validate(); !err.empty()) throw InputError("cache geometry: " + err);
  impl_ = std::make_unique<Impl>(g, per_line);
}
CacheModel::~CacheModel() = default;
CacheModel::CacheModel(CacheModel&&) noexcept = default;
CacheModel& CacheModel::operator=(CacheModel&&) noexcept = default;

const CacheGeometry& CacheModel::geometry() const { return impl_->g; }

namespace {

// Out of line, so that its strings do not widen access()'s frame.
[[noreturn, gnu::cold, gnu::noinline]] void throw_out_of_range(unsigned cpu, uint16_t home_node, uint64_t line) {
  throw ModelError("cache access out of range: cpu " + std::to_string(cpu) + ", node " + std::to_string(home_node) +
                   ", line " + std::to_string(line));
}

}  // namespace

Outcome CacheModel::access(unsigned cpu, uint64_t line, uint16_t home_node, AccessKind kind,
                           const Attribution& attr) {
  Impl& m = *impl_;
  if (cpu >= m.cpu_core.size() || home_node >= m.g.sockets || (line >> 62)) [[unlikely]]
    throw_out_of_range(cpu, home_node, line);
  const unsigned socket = m.cpu_socket[cpu];
  const bool write = kind == AccessKind::store || kind == AccessKind::rmw;
  Outcome o = m.access(m.cpu_core[cpu], socket, {line, m.ids.id(line)}, home_node, write, attr);
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
  m.l1.prefetch_set(m.l1.set(core, line));
  m.l2.prefetch_set(m.l2.set(core, line));
  if (m.socket_sets.data()) {
    // One index computation: every socket's sets are in one block (Impl::socket_sets). A
    // lookup reads the LLC set and the snoop filter's keys, the first host line of its set.
    const char* block = reinterpret_cast<const char*>(m.llc.set(0, line));
    // The core's own socket gets its whole chunk: a fill writes the new entry's sharer byte,
    // beyond the keys' host line if the filter has more than 12 ways.
    const unsigned own = m.cpu_socket[cpu];
    for (unsigned s = 0; s < m.g.sockets; ++s)
      internal::prefetch_span(block + s * m.socket_stride, s == own ? m.socket_stride : m.sf_offset + kLineBytes);
    return;
  }
  for (unsigned s = 0; s < m.g.sockets; ++s) {
    __builtin_prefetch(m.sf.set(s, line).keys);
    __builtin_prefetch(m.llc.set(s, line));
  }
}

void CacheModel::prefetch_victim(unsigned cpu, uint64_t line) const {
  const Impl& m = *impl_;
  if (cpu >= m.cpu_core.size() || !m.socket_sets.data()) return;
  // The way an L2 fill would give up (LruArray::insert); it goes to this socket's snoop
  // filter (sf_remove) and LLC (llc_insert), whose sets share one block.
  const TagEntry victim = m.l2.victim_of(m.l2.set(m.cpu_core[cpu], line));
  if (!victim.valid()) return;
  // The whole socket chunk: the LLC set, the filter's keys and their sharer bytes.
  internal::prefetch_span(m.llc.set(m.cpu_socket[cpu], m.ids.line(victim.id())), m.socket_stride);
}

void CacheModel::flush_all() {
  impl_->l1.clear();
  impl_->l2.clear();
  impl_->llc.clear();
  impl_->sf.clear();
}

void CacheModel::evict_range(uint64_t first_line, uint64_t n) {
  for (uint64_t line = first_line; line < first_line + n; ++line)
    if (const std::optional<uint32_t> id = impl_->ids.find(line)) impl_->invalidate_others(Impl::kNoCore, {line, *id});
}

const CacheStats& CacheModel::stats() const { return impl_->stats; }

CacheStats CacheModel::take_stats() { return std::exchange(impl_->stats, CacheStats(impl_->stats.per_line())); }

// The introspection below answers "not cached" for a line whose region has no ids yet.

LineState CacheModel::private_state(unsigned cpu, uint64_t line) const {
  const unsigned core = impl_->cpu_core.at(cpu);
  const std::optional<uint32_t> id = impl_->ids.find(line);
  return id ? impl_->core_state(core, {line, *id}) : LineState::I;
}

bool CacheModel::in_l1(unsigned cpu, uint64_t line) const {
  const unsigned core = impl_->cpu_core.at(cpu);
  const std::optional<uint32_t> id = impl_->ids.find(line);
  return id && impl_->l1.find(impl_->l1.set(core, line), *id) >= 0;
}

bool CacheModel::in_l2(unsigned cpu, uint64_t line) const {
  const unsigned core = impl_->cpu_core.at(cpu);
  const std::optional<uint32_t> id = impl_->ids.find(line);
  return id && impl_->l2.find(impl_->l2.set(core, line), *id) >= 0;
}

LineState CacheModel::llc_state(unsigned socket, uint64_t line) const {
  const std::optional<uint32_t> id = impl_->ids.find(line);
  if (!id) return LineState::I;
  const TagEntry* s = impl_->llc.set(socket, line);
  const int w = impl_->llc.find(s, *id);
  return w < 0 ? LineState::I : s[w].state();
}

uint64_t CacheModel::sharers(unsigned socket, uint64_t line) const {
  const std::optional<uint32_t> id = impl_->ids.find(line);
  if (!id) return 0;
  const internal::SfArray::Set s = impl_->sf.set(socket, line);
  const int w = impl_->sf.find(s, *id);
  return w < 0 ? 0 : impl_->sf.sharers(s, w);
}

}  // namespace pagesim::cache
