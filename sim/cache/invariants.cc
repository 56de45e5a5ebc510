// CacheModel::check_invariants: the I1-I4 of cache_model.cc plus the array layout rules.
// Test-only speed; walks in index order so the first reported violation is deterministic.
#include <bit>
#include <map>
#include <string>
#include <vector>

#include "model_impl.h"

namespace pagesim::cache {

namespace {

using internal::TagEntry;

std::string hex(uint64_t v) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s;
  do {
    s.insert(s.begin(), kDigits[v & 15]);
    v >>= 4;
  } while (v);
  return "0x" + s;
}

// Every set: valid entries first, no line twice, every line in the set it indexes to.
template <class Array>
std::string check_layout(const char* name, const Array& a, const internal::LineIds& ids) {
  const unsigned ways = a.ways();
  for (size_t base = 0; base < a.size(); base += ways) {
    bool hole = false;
    for (unsigned w = 0; w < ways; ++w) {
      const auto e = a.at(base + w);
      if (!e.valid()) {
        hole = true;
        continue;
      }
      const std::string where = std::string(name) + " line " + hex(ids.line(e.id()));
      if (hole) return where + ": valid entry after an empty one";
      if (!a.in_set(base, ids.line(e.id()))) return where + ": in the wrong set";
      for (unsigned v = 0; v < w; ++v)
        if (a.at(base + v).id() == e.id()) return where + ": twice in one set";
    }
  }
  return {};
}

struct Copies {
  std::vector<std::pair<unsigned, LineState>> cores;  // (core, effective state)
  std::vector<std::pair<unsigned, LineState>> llcs;   // (socket, state)
};

}  // namespace

namespace internal {

std::string SfArray::check_set(size_t s) const {
  const Set set = raw(s);
  std::vector<bool> named(ways_);  // far slots named by a valid way
  bool near_named = false;
  for (unsigned w = 0; w < ways_; ++w) {
    const uint8_t b = set.who[w];
    if (!set.keys[w] && b >= kMaxCoresPerSocket) return "empty way " + std::to_string(w) + " names a slot";
    if (b < kMaxCoresPerSocket) continue;
    if (b == kNearSlot) {
      if (!near_ || near_named) return "way " + std::to_string(w) + " names the near slot wrongly";
      near_named = true;
      if (std::popcount(near_mask(set)) < 2) return "way " + std::to_string(w) + "'s near slot has fewer than two sharers";
      continue;
    }
    const unsigned k = b - kMaxCoresPerSocket;
    if (k >= ways_ || named[k]) return "way " + std::to_string(w) + " names slot " + std::to_string(k) + " wrongly";
    named[k] = true;
    if (std::popcount(set.masks[k]) < 2) return "way " + std::to_string(w) + "'s slot has fewer than two sharers";
  }
  for (unsigned k = 0; k < ways_; ++k)
    if (!named[k] && set.masks[k]) return "slot " + std::to_string(k) + " is named by no way but not free";
  if (near_ && !near_named && near_mask(set)) return "the near slot is named by no way but not free";
  return {};
}

}  // namespace internal

std::string CacheModel::check_invariants() const {
  const Impl& m = *impl_;
  // The sharer bytes first: the layout check reads entries through them.
  for (size_t s = 0; s < m.sf.size() / m.sf.ways(); ++s)
    if (std::string err = m.sf.check_set(s); !err.empty()) return "snoop filter set " + std::to_string(s) + ": " + err;
  for (std::string err : {check_layout("l1", m.l1, m.ids), check_layout("l2", m.l2, m.ids),
                          check_layout("llc", m.llc, m.ids), check_layout("snoop filter", m.sf, m.ids)})
    if (!err.empty()) return err;

  std::map<uint64_t, Copies> copies;
  const unsigned per_core_l1 = static_cast<unsigned>(m.l1.size() / m.g.cores());
  for (size_t i = 0; i < m.l1.size(); ++i) {
    const TagEntry& e = m.l1.at(i);
    if (!e.valid()) continue;
    const unsigned core = static_cast<unsigned>(i / per_core_l1);
    const TagEntry* s2 = m.l2.set(core, m.ids.line(e.id()));
    const int w = m.l2.find(s2, e.id());
    const std::string where = "core " + std::to_string(core) + " line " + hex(m.ids.line(e.id()));
    if (w < 0) return where + ": in L1 but not in L2 (inclusion)";
    if (e.state() != s2[w].state()) return where + ": L1 and L2 states disagree";
  }
  const unsigned per_core_l2 = static_cast<unsigned>(m.l2.size() / m.g.cores());
  for (size_t i = 0; i < m.l2.size(); ++i) {
    const TagEntry& e = m.l2.at(i);
    if (!e.valid()) continue;
    const unsigned core = static_cast<unsigned>(i / per_core_l2);
    const uint64_t line = m.ids.line(e.id());
    if (!(sharers(m.socket_of(core), line) & m.bit(core)))
      return "core " + std::to_string(core) + " line " + hex(line) + ": not in the snoop filter";
    copies[line].cores.push_back({core, m.core_state(core, m.ln_of(e.id()))});
  }
  uint64_t listed = 0, held = 0;
  for (size_t i = 0; i < m.sf.size(); ++i) listed += std::popcount(m.sf.at(i).sharers);
  for (const auto& [line, c] : copies) held += c.cores.size();
  if (listed != held) return "snoop filters list " + std::to_string(listed) + " copies, L2s hold " + std::to_string(held);

  const unsigned per_socket_llc = static_cast<unsigned>(m.llc.size() / m.g.sockets);
  for (size_t i = 0; i < m.llc.size(); ++i) {
    const TagEntry& e = m.llc.at(i);
    if (!e.valid()) continue;
    const uint64_t line = m.ids.line(e.id());
    if (e.state() != LineState::S && e.state() != LineState::M) return "llc line " + hex(line) + ": neither clean nor dirty";
    copies[line].llcs.push_back({static_cast<unsigned>(i / per_socket_llc), e.state()});
  }

  for (const auto& [line, c] : copies) {
    const size_t n = c.cores.size() + c.llcs.size();
    for (auto [core, st] : c.cores)
      if ((st == LineState::E || st == LineState::M) && n > 1)
        return "line " + hex(line) + ": exclusive in core " + std::to_string(core) + " but has " + std::to_string(n) + " copies";
    for (auto [socket, st] : c.llcs)
      if (st == LineState::M && n > 1)
        return "line " + hex(line) + ": dirty in LLC " + std::to_string(socket) + " but has " + std::to_string(n) + " copies";
  }
  return {};
}

}  // namespace pagesim::cache
