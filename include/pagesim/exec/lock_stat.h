// lock_stat-style statistics, kept per CPU per lock and merged after a run (no shared atomics).
// Times are nanoseconds; histograms have log2(ns) buckets.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

#include "pagesim/exec/site.h"

namespace pagesim {

inline constexpr unsigned kLockHistBuckets = 40;

inline unsigned log2_bucket(uint64_t ns) {
  unsigned b = 0;
  while (ns > 1 && b + 1 < kLockHistBuckets) ns >>= 1, ++b;
  return b;
}

struct TimeStat {
  uint64_t count = 0, total = 0, min = std::numeric_limits<uint64_t>::max(), max = 0;
  uint64_t hist[kLockHistBuckets] = {};
  void add(uint64_t ns) {
    count++;
    total += ns;
    min = std::min(min, ns);
    max = std::max(max, ns);
    hist[log2_bucket(ns)]++;
  }
  void merge(const TimeStat& o) {
    count += o.count;
    total += o.total;
    min = std::min(min, o.min);
    max = std::max(max, o.max);
    for (unsigned i = 0; i < kLockHistBuckets; ++i) hist[i] += o.hist[i];
  }
};

struct LockStatCpu {
  uint64_t acquisitions = 0, contentions = 0;
  uint64_t bounces = 0, bounces_remote = 0;  // acquired by another CPU (node) than the last holder
  TimeStat wait, hold;                         // wait: contended acquisitions only, as lock_stat
  uint64_t contention_points[kNumSites] = {};
  uint64_t acquisition_points[kNumSites] = {};
  void merge(const LockStatCpu& o) {
    acquisitions += o.acquisitions;
    contentions += o.contentions;
    bounces += o.bounces;
    bounces_remote += o.bounces_remote;
    wait.merge(o.wait);
    hold.merge(o.hold);
    for (unsigned i = 0; i < kNumSites; ++i)
      contention_points[i] += o.contention_points[i], acquisition_points[i] += o.acquisition_points[i];
  }
};

// Who last held a lock, for lock_stat's bounces: written and read only by the holder.
struct LockOwner {
  int last_cpu = -1;
  unsigned last_node = 0;
  // Counts an acquisition by `cpu` on `node` as a bounce when another CPU (node) held it last.
  void acquired_by(unsigned cpu, unsigned node, LockStatCpu& st) {
    if (last_cpu >= 0 && static_cast<unsigned>(last_cpu) != cpu) {
      st.bounces++;
      if (last_node != node) st.bounces_remote++;
    }
    last_cpu = static_cast<int>(cpu);
    last_node = node;
  }
};

// IRQ-off time per call site (what the kernel's irqsoff tracer would attribute).
struct IrqOffStat {
  TimeStat by_site[kNumSites];
  void merge(const IrqOffStat& o) {
    for (unsigned i = 0; i < kNumSites; ++i) by_site[i].merge(o.by_site[i]);
  }
};

}  // namespace pagesim
