// The software cache model: per-core L1d and L2 (shared by SMT siblings), a per-socket
// non-inclusive LLC, and a per-socket sparse snoop filter, kept coherent with MESI.
//
// It answers "which level served this access" and counts the answers. It has no notion of
// time: latencies belong to the machine file, and the engines charge them. Two users:
//   - the virtual-time engine calls access() online, in virtual-time order;
//   - the native engine records per-CPU logs and replay()s them after each phase.
// docs/cache-model.md describes the states, transitions and what is not modelled.
//
// Contract summary:
//   - Lines are 64-byte line numbers (byte address >> 6), below 2^62. The lines of one model
//     may span at most 15 aligned regions of 2^26 lines (access() throws ModelError on a
//     16th): kernel-like layouts use five (vmemmap, zones, per-cpu, .data, user data).
//   - A line's home node is its socket (node == socket).
//   - Deterministic: the same sequence of calls gives the same outcomes and statistics.
//   - Not thread-safe: one model per engine thread.
//
// Example:
//   CacheModel m(CacheGeometry::icelake_8358());
//   Outcome o = m.access(cpu, addr >> 6, node, AccessKind::store,
//                        {Site::rmqueue_bulk, LockContext::zone_lock, LineKind::struct_page});
//   latency_ps = machine.latency(o);
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "pagesim/cache/cache_stats.h"
#include "pagesim/cache/geometry.h"
#include "pagesim/cache/outcome.h"
#include "pagesim/cache/timed_access.h"
#include "pagesim/exec/line.h"

namespace pagesim::cache {

// MESI state of a line in one cache. In an LLC only S (clean) and M (dirty) occur.
enum class LineState : uint8_t { I, S, E, M };

class CacheModel {
 public:
  // Throws InputError if g.validate() reports a problem. `per_line` says whether stats()
  // keeps per-line contention (CacheStats::top_lines).
  explicit CacheModel(const CacheGeometry& g, PerLineContention per_line = PerLineContention::kept);
  ~CacheModel();
  CacheModel(CacheModel&&) noexcept;
  CacheModel& operator=(CacheModel&&) noexcept;

  const CacheGeometry& geometry() const;

  // A host-side hint, no model effect: starts loading the sets an access by `cpu` to `line`
  // will look at (its core's L1 and L2 sets, every socket's snoop-filter and LLC sets, and the
  // sharer masks of its own socket's set, which a fill writes), so that a walk can overlap the
  // model's own memory misses. Out-of-range arguments are ignored.
  void prefetch_sets(unsigned cpu, uint64_t line) const;

  // The second stage of that hint, also without model effect: reads the core's L2 set of
  // `line` (call it a few accesses after prefetch_sets for the same line, so that the set
  // has arrived) and starts loading the snoop-filter and LLC sets of the line an L2 fill there
  // would evict. Out-of-range arguments are ignored; so are geometries whose LLC and snoop
  // filter differ in sets (no shared socket block to prefetch).
  void prefetch_victim(unsigned cpu, uint64_t line) const;

  // Models one access by `cpu` to `line`, homed on node `home_node`, and returns the level
  // that served it (Outcome::prefetch for a prefetch, which otherwise fills like a load).
  // Stores and RMWs leave the line Modified in the core and invalidate every other copy; a
  // load of a line Modified elsewhere is a HITM and demotes that copy to Shared. The access
  // is counted in stats() under `attr`.
  // Throws ModelError if cpu >= geometry().cpus(), home_node >= sockets, line >= 2^62, or the
  // line is in a 16th region of 2^26 lines.
  Outcome access(unsigned cpu, uint64_t line, uint16_t home_node, AccessKind kind,
                 const Attribution& attr = {});

  // Replays per-CPU logs (logs[c] is CPU c's accesses in program order) through access(),
  // merged by (tsc, cpu): the earliest tsc first, ties to the lower CPU. A log whose tsc goes
  // backwards keeps its own order (program order wins). Deterministic given the logs.
  // Throws ModelError if there are more logs than CPUs.
  void replay(std::span<const std::vector<TimedAccess>> logs);

  // Empties every cache and snoop filter (dirty data is dropped, not counted). Statistics
  // are kept. The virtual engine flushes after each usemem store loop (docs/machine-model.md,
  // "Memory model (analytic)").
  void flush_all();
  // Drops lines [first_line, first_line + n) from every cache, without counting anything:
  // a bulk eviction, e.g. of a buffer that the workload overwrote outside the model.
  void evict_range(uint64_t first_line, uint64_t n);

  const CacheStats& stats() const;
  // Returns the statistics gathered so far and starts afresh (cache contents and the
  // per-line setting are kept).
  CacheStats take_stats();

  // Introspection, for tests and debugging. O(ways) each.
  LineState private_state(unsigned cpu, uint64_t line) const;  // the core's (L1 and L2 agree)
  bool in_l1(unsigned cpu, uint64_t line) const;
  bool in_l2(unsigned cpu, uint64_t line) const;
  LineState llc_state(unsigned socket, uint64_t line) const;
  // Cores of `socket` (bit i = core i of the socket) that the snoop filter lists for `line`.
  uint64_t sharers(unsigned socket, uint64_t line) const;

  // Walks every cache and checks the coherence invariants (docs/cache-model.md); returns
  // the first violation, or empty. Slow: O(total cache lines).
  std::string check_invariants() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pagesim::cache
