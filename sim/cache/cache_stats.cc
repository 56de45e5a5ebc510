#include "pagesim/cache/cache_stats.h"

#include <algorithm>

namespace pagesim::cache {

namespace {
template <class E>
bool matches(const std::optional<E>& want, unsigned i) {
  return !want || static_cast<unsigned>(*want) == i;
}
}  // namespace

CoherenceEvents& CoherenceEvents::operator+=(const CoherenceEvents& o) {
  invalidations += o.invalidations;
  llc_invalidations += o.llc_invalidations;
  upgrades += o.upgrades;
  downgrades += o.downgrades;
  l1_evictions += o.l1_evictions;
  l2_evictions += o.l2_evictions;
  llc_evictions += o.llc_evictions;
  llc_writebacks += o.llc_writebacks;
  sf_evictions += o.sf_evictions;
  back_invalidations += o.back_invalidations;
  for (unsigned i = 0; i < kNumDemandOutcomes; ++i) prefetch_served[i] += o.prefetch_served[i];
  return *this;
}

CacheStats::CacheStats(PerLineContention per_line)
    : cells_(size_t{kNumOutcomes} * kNumLineKinds * kNumSites * kNumLockContexts * kNumHomes),
      inv_sent_(size_t{kNumLineKinds} * kNumSites * kNumLockContexts),
      per_line_(per_line) {}

void CacheStats::record_invalidations(uint64_t line, const Attribution& a, uint64_t n) {
  if (!n) return;
  inv_sent_[inv_index(a.line_kind, a.site, a.ctx)] += n;
  if (per_line_ == PerLineContention::dropped) return;
  LineContention& c = lines_[line];
  c.line_kind = a.line_kind;
  c.invalidations += n;
}

void CacheStats::record_hitm(uint64_t line, LineKind kind, Outcome o) {
  if (per_line_ == PerLineContention::dropped) return;
  LineContention& c = lines_[line];
  c.line_kind = kind;
  (o == Outcome::hitm_local ? c.hitm_local : c.hitm_remote) += 1;
}

uint64_t CacheStats::sum(const Slice& s) const {
  uint64_t total = 0;
  for_each([&](Outcome o, LineKind k, Site site, LockContext c, Home h, uint64_t n) {
    if (matches(s.outcome, static_cast<unsigned>(o)) && matches(s.line_kind, static_cast<unsigned>(k)) &&
        matches(s.site, static_cast<unsigned>(site)) && matches(s.ctx, static_cast<unsigned>(c)) &&
        matches(s.home, static_cast<unsigned>(h)))
      total += n;
  });
  return total;
}

uint64_t CacheStats::invalidations_sent(const Slice& s) const {
  uint64_t total = 0;
  for (unsigned k = 0; k < kNumLineKinds; ++k)
    for (unsigned site = 0; site < kNumSites; ++site)
      for (unsigned c = 0; c < kNumLockContexts; ++c)
        if (matches(s.line_kind, k) && matches(s.site, site) && matches(s.ctx, c))
          total += inv_sent_[(size_t{k} * kNumSites + site) * kNumLockContexts + c];
  return total;
}

void CacheStats::for_each(
    const std::function<void(Outcome, LineKind, Site, LockContext, Home, uint64_t)>& fn) const {
  size_t i = 0;
  for (unsigned o = 0; o < kNumOutcomes; ++o)
    for (unsigned k = 0; k < kNumLineKinds; ++k)
      for (unsigned s = 0; s < kNumSites; ++s)
        for (unsigned c = 0; c < kNumLockContexts; ++c)
          for (unsigned h = 0; h < kNumHomes; ++h, ++i)
            if (cells_[i])
              fn(static_cast<Outcome>(o), static_cast<LineKind>(k), static_cast<Site>(s),
                 static_cast<LockContext>(c), static_cast<Home>(h), cells_[i]);
}

std::vector<ContendedLine> CacheStats::top_lines(size_t n, const LineNamer& namer) const {
  std::vector<ContendedLine> all;
  all.reserve(lines_.size());
  for (const auto& [line, counts] : lines_) all.push_back({line, {}, counts});
  // A total order, so the hash map's seeded iteration order never shows.
  auto before = [](const ContendedLine& a, const ContendedLine& b) {
    if (a.counts.total() != b.counts.total()) return a.counts.total() > b.counts.total();
    return a.line < b.line;
  };
  n = std::min(n, all.size());
  std::partial_sort(all.begin(), all.begin() + n, all.end(), before);
  all.resize(n);
  if (namer)
    for (ContendedLine& c : all) c.name = namer(c.line);
  return all;
}

const LineContention* CacheStats::contention(uint64_t line) const {
  auto it = lines_.find(line);
  return it == lines_.end() ? nullptr : &it->second;
}

CacheStats& CacheStats::merge(const CacheStats& o) {
  for (size_t i = 0; i < cells_.size(); ++i) cells_[i] += o.cells_[i];
  for (size_t i = 0; i < inv_sent_.size(); ++i) inv_sent_[i] += o.inv_sent_[i];
  events += o.events;
  if (per_line_ == PerLineContention::dropped) return *this;
  // Addition commutes, so the iteration order of o.lines_ does not matter here.
  for (const auto& [line, c] : o.lines_) {
    LineContention& mine = lines_[line];
    mine.line_kind = c.line_kind;
    mine.hitm_local += c.hitm_local;
    mine.hitm_remote += c.hitm_remote;
    mine.invalidations += c.invalidations;
  }
  return *this;
}

bool operator==(const CacheStats& a, const CacheStats& b) {
  return a.cells_ == b.cells_ && a.inv_sent_ == b.inv_sent_ && a.events == b.events &&
         a.lines_ == b.lines_;
}

}  // namespace pagesim::cache
