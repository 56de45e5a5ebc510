// Replay of a kernel kmem trace through the model, and the fidelity of the model's answer.
//
// The input side of a trace is what the workload asked for: mm_page_alloc, mm_page_free and
// mm_page_free_batched, per CPU, in time order. The kernel's answer is what its pcp lists did
// with that: mm_page_alloc_zone_locked (a block taken from buddy under zone->lock; with
// percpu_refill=1, onto a pcp list) and mm_page_pcpu_drain (a block sent back). replay() sizes
// a machine from the zoneinfo, feeds it the input events on the same CPUs, fires the model's
// own tracepoints, and counts both answers the same way: one event is one block.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "pagesim/replay/zoneinfo.h"
#include "pagesim/trace/ftrace.h"

namespace pagesim::replay {

// Where the pcp lists stood when tracing began. The zoneinfo is one snapshot, taken before or
// after the trace; the events give each CPU's count only up to a constant.
enum class Anchor : uint8_t {
  automatic,  // the first of start, end and fit whose counts the events allow, else min
  start,      // the zoneinfo's pcp counts are those at the first event
  end,        // ... at the last event
  fit,        // each CPU's zoneinfo count at the first event, moved into what the events allow
  min,        // the least counts the events allow (no list ever goes negative)
};
std::string_view anchor_name(Anchor a);

// When 6.x's vmstat_update runs decay_pcp_high on a CPU. The kmem events do not show it; a
// trace that also enables workqueue_execute_start (docs/replay.md) does.
enum class Decay : uint8_t {
  automatic,  // `trace` when the trace has vmstat_update events, else `timer`
  trace,      // at the trace's vmstat_update events, on their CPUs
  timer,      // its deferrable per-CPU work: due at whole seconds, run when the CPU is next awake
  off,        // never (as if every CPU's work were idle-stopped for the whole trace)
};
std::string_view decay_name(Decay d);

struct ReplayOptions {
  std::string preset = "v6.18";  // the kernel profile the model runs
  Anchor anchor = Anchor::automatic;
  Decay decay = Decay::automatic;
  int series_cpu = -1;           // the CPU whose pcp count is traced over time (-1: the busiest)
  bool keep_model_trace = false; // ReplayResult::model_trace (for --emit-trace)
};

// The fidelity table's event kinds, in kernel units (one event, one block).
enum class Kind : uint8_t { alloc, free, refill, buddy, drain, kCount };
std::string_view kind_name(Kind k);  // "alloc", "free", "refill", "buddy", "drain"
inline constexpr unsigned kOrders = 11;  // MAX_ORDER

struct Counts {
  std::array<std::array<uint64_t, kOrders>, static_cast<size_t>(Kind::kCount)> n{};
  uint64_t& at(Kind k, unsigned order) { return n[static_cast<size_t>(k)][order]; }
  uint64_t at(Kind k, unsigned order) const { return n[static_cast<size_t>(k)][order]; }
  uint64_t total(Kind k) const;
};

struct SeriesPoint {
  double ts;
  long kernel;  // reconstructed from the events, offset by the anchor
  long model;   // the model's pcp->count
};

struct ReplayResult {
  std::string preset;
  Anchor anchor = Anchor::automatic;  // the anchor used (never automatic)
  Decay decay = Decay::timer;         // the one used (never automatic)
  uint64_t decays = 0;                // decay_pcp_high calls
  std::string anchor_reason;
  std::string zone;                   // the zone replayed ("Normal")
  uint64_t managed_pages = 0;
  unsigned nr_cpus = 0;
  std::vector<long> initial_pcp_count;  // per CPU, base pages, as set before the first event
  int batch = 0;
  std::vector<long> high, high_min, high_max;  // per CPU, as set before the first event

  uint64_t allocs = 0, frees = 0;  // replayed
  uint64_t pretrace_frees = 0;     // frees of blocks allocated before the trace began
  uint64_t failed_allocs = 0;      // the kernel's failed allocations: not replayed
  uint64_t other_zone_events = 0;  // events outside the replayed zone: not replayed
  uint64_t model_alloc_failures = 0;

  Counts kernel, model;
  unsigned series_cpu = 0;
  std::vector<SeriesPoint> series;
  trace::Trace model_trace;  // when ReplayOptions::keep_model_trace
};

// Throws InputError when the trace has no events the zoneinfo places in a zone, or names a
// preset that does not exist.
ReplayResult replay(const trace::Trace& t, const ZoneInfoFile& zi, const ReplayOptions& o);

}  // namespace pagesim::replay
