// The result of one run (variant x repeat x sweep point), as reports and JSON consume it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pagesim/mm/invariants.h"
#include "pagesim/mm/machine.h"
#include "pagesim/result/workload_result.h"

namespace pagesim::run {

struct LockStat {
  std::string name;            // lock class, "&zone->lock"
  std::string instance;        // "node0/Normal"
  uint64_t acquisitions = 0;
  uint64_t contentions = 0;
  uint64_t wait_ns_total = 0, wait_ns_min = 0, wait_ns_max = 0;
  uint64_t hold_ns_total = 0, hold_ns_min = 0, hold_ns_max = 0;
  uint64_t bounces = 0, bounces_remote = 0;
  std::vector<uint64_t> wait_hist, hold_hist;        // log2(ns) buckets
  std::map<std::string, uint64_t> contention_points;  // call site -> contentions
  std::map<std::string, uint64_t> acquisition_points; // call site -> acquisitions
};

struct CacheSummary {
  // The software cache model (or, for the uniprocessor engine, line-access counts only).
  std::string model;                                  // e.g. "access counts (no cache model)"
  std::map<std::string, uint64_t> counters;           // named counts, e.g. struct_page_in_zone_lock
  bool hw_available = false;
  std::string hw_reason;                              // why hardware counters are unavailable
  std::map<std::string, uint64_t> hw;                 // perf counters when available
};

struct ProcSnapshot {  // kernel-format text, captured at the end of the run
  std::string buddyinfo, zoneinfo, vmstat, pagetypeinfo, lock_stat;
};

// One CPU's pageset of one zone at the end of a run, as zoneinfo prints it (--verbose). 5.17's
// pagesets have no high_min and high_max (0).
struct PcpSetting {
  unsigned node = 0;
  mm::zone_type zone = mm::ZONE_NORMAL;
  unsigned cpu = 0;
  int count = 0, high = 0, batch = 0, high_min = 0, high_max = 0;
};

// A run's result taken from the same seed's run of variant `from`, which never acted on
// `knobs`, the only knobs in which the two variants' configs differ (run/reuse.h).
struct Reused {
  std::string from;
  mm::VariantKnobs knobs = 0;
};

struct RunResult {
  std::string variant;
  std::string engine;
  unsigned repeat = 0;
  uint64_t seed = 0;
  std::string sweep_key, sweep_value;
  bool interrupted = false;
  std::map<std::string, double> metrics;  // names carry units: throughput_kib_s, elapsed_s, ...
  std::vector<mm::ZoneCensus> zones;
  std::vector<PcpSetting> pcp;  // every populated zone's pagesets, CPU by CPU (not in the JSON)
  std::vector<LockStat> locks;
  CacheSummary cache;
  uint64_t invariant_checks = 0;
  std::vector<std::string> violations;
  std::map<std::string, uint64_t> vmstat;  // events and counters, by /proc/vmstat name
  std::string memmap_backing;
  std::vector<std::string> bad_page_reports;  // "Bad page state" lines, first ones
  ProcSnapshot proc;
  std::shared_ptr<const WorkloadResult> workload_result;  // the workload's own records, if it keeps any
  std::vector<std::string> notes;  // caveats the reader must see, e.g. oversubscribed host
  double wall_s = 0;  // host wall time of the run (excluded from determinism checks)
  // The variant knobs whose value the allocator acted on (mm::VariantKnob; not in the JSON).
  mm::VariantKnobs variant_reads = 0;
  // Set when the runner gave this run the result of the same seed's run of another variant,
  // which it would have repeated exactly (run/reuse.h). wall_s is then 0.
  std::optional<Reused> reused;
};

// Runs the invariant checker at a quiescent point and adds its outcome to a run's counts.
void check_invariants_into(const mm::Machine& m, uint64_t& checks, std::vector<std::string>& violations);

}  // namespace pagesim::run
