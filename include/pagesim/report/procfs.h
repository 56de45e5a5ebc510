// Kernel procfs formats, laid out as the v5.17 kernel prints them, so that existing parsers work.
//
// Every function reads a quiescent Machine (no CPU inside the allocator) and never changes it.
// Zone counters are shown with the per-cpu vmstat diffs folded in, as the kernel shows them
// after vmstat_update / `echo 1 > /proc/sys/vm/stat_refresh`. docs/output.md lists, per file,
// which lines are modelled and which the model leaves out (rather than printing a made-up 0).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "pagesim/mm/machine.h"
#include "pagesim/result/run_result.h"

namespace pagesim::report {

// /proc/buddyinfo (mm/vmstat.c frag_show_print): populated zones, free blocks per order.
std::string buddyinfo(const mm::Machine& m);

// /proc/zoneinfo (zoneinfo_show_print): every zone of every node, populated or not; watermarks,
// spans, protection, zone stat items, NUMA events, pagesets per CPU, start_pfn. The per-node
// stats block is left out (the model keeps no LRU or file state).
std::string zoneinfo(const mm::Machine& m);

// The /proc/vmstat items the model keeps, in the kernel's order (zone items, NUMA events,
// vm events with pgalloc_<zone>), then the simulator's own events (mm::vm_event_in_kernel is
// false: pcp_refill, bad_page, ...), marked as such by the kSimulatorOnly prefix on their
// mm::vm_event_name: "pagesim_pcp_refill".
inline constexpr const char* kSimulatorOnly = "pagesim_";
std::vector<std::pair<std::string, uint64_t>> vmstat_items(const mm::Machine& m);
// /proc/vmstat: vmstat_items as "name value" lines.
std::string vmstat(const mm::Machine& m);

// /proc/pagetypeinfo (pagetypeinfo_show), per node: the header, free blocks per order per
// migratetype per populated zone (capped at ">100000" like the kernel), and the number of
// pageblocks of each migratetype.
std::string pagetypeinfo(const mm::Machine& m);

// /proc/lock_stat, version 0.4 (kernel/locking/lockdep_proc.c). Instances of one lock class
// are merged into one row per class, as lockdep keys statistics by class; classes are sorted by
// contentions, most first. Times are printed in microseconds with two decimals.
std::string lock_stat(const std::vector<run::LockStat>& locks);

// All five files at once, for the runner's capture hook (run::RunOptions::capture).
run::ProcSnapshot snapshot(const mm::Machine& m, const std::vector<run::LockStat>& locks);

}  // namespace pagesim::report
