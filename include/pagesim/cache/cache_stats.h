// Counters of the software cache model: outcomes by level x line kind x call site x lock
// context x home (local/remote), coherence events, and per-line contention for a perf-c2c
// style "top contended lines" table.
//
// Deterministic: counts live in dense arrays; the per-line map is only ever read through
// top_lines(), which sorts by a total order, or merged (addition commutes).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "pagesim/cache/outcome.h"
#include "pagesim/exec/access_counters.h"
#include "pagesim/exec/line.h"
#include "pagesim/exec/site.h"

namespace pagesim::cache {

// What an access is charged to. The model's behaviour never depends on it.
struct Attribution {
  Site site = Site::unknown;
  LockContext ctx = LockContext::none;
  LineKind line_kind = LineKind::data;
};

// Whether the line's home node is the accessing CPU's socket.
enum class Home : uint8_t { local, remote, kCount };
inline constexpr unsigned kNumHomes = static_cast<unsigned>(Home::kCount);

// Machine-wide coherence and replacement events.
struct CoherenceEvents {
  uint64_t invalidations = 0;       // private copies (per core) killed by another core's write
  uint64_t llc_invalidations = 0;   // LLC copies killed by a write
  uint64_t upgrades = 0;            // writes to a line the core held Shared
  uint64_t downgrades = 0;          // E/M private copies demoted to Shared by another's load
  uint64_t l1_evictions = 0;
  uint64_t l2_evictions = 0;        // each goes to the socket's LLC (victim fill)
  uint64_t llc_evictions = 0;
  uint64_t llc_writebacks = 0;      // dirty LLC evictions (to memory)
  uint64_t sf_evictions = 0;        // snoop-filter entries evicted for capacity
  uint64_t back_invalidations = 0;  // private copies killed by those evictions
  uint64_t prefetch_served[kNumDemandOutcomes] = {};  // where prefetches found their line

  CoherenceEvents& operator+=(const CoherenceEvents& o);
  friend bool operator==(const CoherenceEvents&, const CoherenceEvents&) = default;
};

// Contention on one line, perf c2c style.
struct LineContention {
  uint64_t hitm_local = 0;
  uint64_t hitm_remote = 0;
  uint64_t invalidations = 0;  // private copies its writes killed
  LineKind line_kind = LineKind::data;

  uint64_t total() const { return hitm_local + hitm_remote + invalidations; }
  friend bool operator==(const LineContention&, const LineContention&) = default;
};

struct ContendedLine {
  uint64_t line = 0;
  std::string name;  // from the caller's namer
  LineContention counts;
};

// Gives a line a symbolic name ("struct page pfn 0x1200 (node 0)", "zone Normal lock").
using LineNamer = std::function<std::string(uint64_t line)>;

// A selection of the outcome tensor; an unset field sums over that axis.
struct Slice {
  std::optional<Outcome> outcome;
  std::optional<LineKind> line_kind;
  std::optional<Site> site;
  std::optional<LockContext> ctx;
  std::optional<Home> home;
};

// Whether a CacheStats keeps per-line contention (top_lines(), contention()). Keeping it costs a
// hash-map update per HITM and invalidation, in a map that grows to millions of lines at 128
// CPUs; a caller that never reads it per line turns it off.
enum class PerLineContention : uint8_t { kept, dropped };

class CacheStats {
 public:
  explicit CacheStats(PerLineContention per_line = PerLineContention::kept);

  // Counts one access that ended in `o`.
  void record(Outcome o, const Attribution& a, Home h) { ++cells_[index(o, a.line_kind, a.site, a.ctx, h)]; }
  // `n` private copies of `line` invalidated by a write charged to `a`. Counted per line only
  // while per-line contention is kept; so is record_hitm().
  void record_invalidations(uint64_t line, const Attribution& a, uint64_t n);
  // A HITM (o is hitm_local or hitm_remote) on `line`.
  void record_hitm(uint64_t line, LineKind kind, Outcome o);

  uint64_t count(Outcome o, LineKind k, Site s, LockContext c, Home h) const {
    return cells_[index(o, k, s, c, h)];
  }
  // Sum of the accesses in `s` (all of them by default).
  uint64_t sum(const Slice& s = {}) const;
  // Private copies invalidated by writes in `s`; s.outcome and s.home must be unset.
  uint64_t invalidations_sent(const Slice& s = {}) const;

  // Visits every non-zero outcome cell in a fixed order (outcome, kind, site, ctx, home).
  void for_each(const std::function<void(Outcome, LineKind, Site, LockContext, Home, uint64_t)>& fn) const;

  // The n lines with most HITMs + invalidations, ordered by that total descending, then by
  // line ascending. Calls `namer` once per returned line (if set). Empty, and contention()
  // null, when per-line contention is dropped.
  std::vector<ContendedLine> top_lines(size_t n, const LineNamer& namer = {}) const;
  const LineContention* contention(uint64_t line) const;

  CoherenceEvents events;

  PerLineContention per_line() const { return per_line_; }

  // Adds o's counts to these (o's per-line counts only if these keep them).
  CacheStats& merge(const CacheStats& o);
  CacheStats& operator+=(const CacheStats& o) { return merge(o); }
  friend bool operator==(const CacheStats&, const CacheStats&);

 private:
  static size_t index(Outcome o, LineKind k, Site s, LockContext c, Home h) {
    return (((static_cast<size_t>(o) * kNumLineKinds + static_cast<size_t>(k)) * kNumSites +
             static_cast<size_t>(s)) * kNumLockContexts + static_cast<size_t>(c)) * kNumHomes +
           static_cast<size_t>(h);
  }
  static size_t inv_index(LineKind k, Site s, LockContext c) {
    return (static_cast<size_t>(k) * kNumSites + static_cast<size_t>(s)) * kNumLockContexts +
           static_cast<size_t>(c);
  }

  std::vector<uint64_t> cells_;         // kNumOutcomes x kinds x sites x contexts x homes
  std::vector<uint64_t> inv_sent_;      // kinds x sites x contexts
  PerLineContention per_line_;
  absl::flat_hash_map<uint64_t, LineContention> lines_;  // never iterated for output
};

}  // namespace pagesim::cache
