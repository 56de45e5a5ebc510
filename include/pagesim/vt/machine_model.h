// The machine file of the virtual-time engine: what one access, one lock handoff and one byte
// of memory traffic cost on a modelled box (machines/*.yaml; docs/machine-model.md cites every
// number of machines/icx-8358-2s.yaml).
//
// Times are integer picoseconds once loaded, so that the engine never accumulates floating
// point. The load-dependent terms (the controllers' queueing, the UPI curve) are evaluated by
// the closed-loop memory model (memory_traffic.h), never per access.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "pagesim/cache/geometry.h"
#include "pagesim/cache/outcome.h"
#include "pagesim/vt/clear_pages.h"
#include "pagesim/vt/dram.h"

namespace pagesim::vt {

using ps_t = uint64_t;  // virtual time and durations, picoseconds

// One point of a loaded-latency curve: at `utilisation` (demand / peak bandwidth) the access
// costs `extra_ps` more than idle. Points ascend in utilisation; the curve is the piecewise
// linear interpolation of the points, flat beyond the last one.
struct LoadPoint {
  double utilisation = 0;
  ps_t extra_ps = 0;
};

struct MachineModel {
  std::string name;
  std::string file;  // where it was loaded from ("" when built in code)

  // Topology and caches: per-core L1d/L2 shared by SMT siblings, per-socket LLC.
  cache::CacheGeometry geometry;
  uint32_t freq_mhz = 2600;  // core clock: work(cycles) and the cycle-valued latencies

  // Latency of a demand access served at each level (cache::Outcome order), idle machine.
  std::array<ps_t, cache::kNumOutcomes> latency_ps{};

  // Memory-level parallelism: independent lines in flight per thread (access_range walks),
  // and lines in flight once the L2 streamer has locked on to a sequential walk.
  uint32_t mlp = 10;
  uint32_t stream_mlp = 16;

  // Each socket's DIMMs (memory.dram; channels 0 when the file gives none) and its bandwidth.
  DramSpec dram;
  double dram_bw_bytes_per_s = 175.7e9;
  // Each socket's memory controller: from the DIMMs' timings, or, for a file without them (a
  // measured host), one channel at the socket's bandwidth.
  DramController controller() const {
    return dram.channels ? DramController::from_spec(dram) : DramController::from_bandwidth(dram_bw_bytes_per_s);
  }
  // A remote RFO of an uncached line writes the directory bits at its home (SKX, ICX).
  bool directory_writes = false;
  // The cross-socket (UPI) bandwidth in each direction and the curve that turns its
  // utilisation into extra latency.
  double upi_bw_bytes_per_s = 55.7e9;
  std::vector<LoadPoint> loaded_latency;
  // clear_huge_page by one thread (rep stosb) on an idle machine, bytes/s. Per subpage
  // (clear_page per 4 KiB, v5.17) and multi-page (one clear_pages over the extent, the x86
  // series of seed 000); 0: the file gives no multi-page rate.
  double clear_bw_bytes_per_s = 7.95e9;
  double clear_multi_page_bw_bytes_per_s = 0;
  // One thread's clear rate in `mode` (bytes/s): multi_page at the multi-page rate (0 when the
  // file gives none), every other mode per subpage.
  double clear_rate(ClearMode mode) const {
    return mode == ClearMode::multi_page ? clear_multi_page_bw_bytes_per_s : clear_bw_bytes_per_s;
  }

  // One transfer of a lock word's line between cores, same socket or across sockets; the
  // uncontended lock+unlock pair in cycles.
  ps_t lock_line_same_ps = 0, lock_line_cross_ps = 0;
  uint32_t lock_uncontended_cycles = 33;

  ps_t cycles_to_ps(uint64_t cycles) const { return cycles * 1000000 / freq_mhz; }
  ps_t latency(cache::Outcome o) const { return latency_ps[static_cast<unsigned>(o)]; }
  ps_t lock_line_ps(unsigned from, unsigned to) const { return from == to ? lock_line_same_ps : lock_line_cross_ps; }
  // The handoff of a queued spinlock (queued_spin_lock_slowpath, queued_spin_unlock) whose
  // word was last written on socket `owner`, from the holder on `holder` to the queue's head
  // on `head`: the unlock's store takes the line (owner -> holder), the head's spinning read
  // gets it back (holder -> head), and the head's set_locked() upgrades it, invalidating the
  // holder's copy (holder <-> head). The next MCS node's write comes after, inside the new
  // holder's critical section.
  ps_t lock_handoff_ps(unsigned owner, unsigned holder, unsigned head) const {
    return lock_line_ps(owner, holder) + 2 * lock_line_ps(holder, head);
  }
  // The UPI link's loaded-latency curve at `utilisation` (extra picoseconds over idle).
  double extra_latency_ps(double utilisation) const;
};

// Loads a machine file. Throws InputError naming FILE:LINE:COL and the key for unknown,
// duplicate, missing or out-of-range keys, and for a geometry the cache model refuses.
MachineModel load_machine_model(const std::string& path);
MachineModel parse_machine_model(const std::string& yaml, const std::string& name);

// Throws an InputError naming m's file and the missing key when m has no rate for `mode`;
// `who` (a key, perhaps after its file) is what asked for the mode.
void require_clear_rate(const MachineModel& m, ClearMode mode, const std::string& who);

// The shipped machine file of the kernel test robot's box (config::shipped_dir("machines")).
std::string default_machine_file();

// The values of `m` as the machine file writes them, in file order, one per line of the file,
// keyed by dotted path: "name", "topology.sockets", "caches.l1d" ("{size: 48K, ways: 12}"),
// "memory.loaded_latency" (a flow list), ... Nanoseconds keep three decimals (exact for
// picoseconds), bandwidths and utilisations six.
std::vector<std::pair<std::string, std::string>> machine_file_values(const MachineModel& m);
// The machine file of `m` (no comments). The inverse of parse_machine_model for files whose
// bandwidths and utilisations have at most six decimals (the shipped ones): parsing the text
// gives back the model that was rendered.
std::string render_machine_model(const MachineModel& m);

}  // namespace pagesim::vt
