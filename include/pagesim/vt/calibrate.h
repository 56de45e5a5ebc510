// `pagesim calibrate`: a machine file for THIS host, from what one process can measure on it
// (pointer-chase latencies, clear bandwidth, an uncontended lock, the core clock) and what
// Linux reports (topology and caches from /sys). Everything it cannot measure gets a fallback
// value that is written down with the reason, never a silent copy of the shipped machine.
//
// Host figures are measurements on a possibly shared, virtualised box: they vary from run to
// run. docs/machine-model.md ("pagesim calibrate") describes each measurement and fallback.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "pagesim/vt/machine_model.h"

namespace pagesim::vt {

// What Linux says about this host: online CPUs and their placement, and the caches cpu0 sees.
struct HostTopology {
  unsigned cpus = 1;  // sysconf(_SC_NPROCESSORS_ONLN) == sockets * cores_per_socket * threads_per_core
  unsigned sockets = 1, cores_per_socket = 1, threads_per_core = 1;
  // Size in bytes and associativity; bytes == 0 when /sys does not list the level.
  struct Cache {
    uint64_t bytes = 0;
    uint32_t ways = 0;
  };
  Cache l1d, l2, llc;  // the LLC is the L3 instance cpu0 uses (one CCX on multi-CCX parts)
  std::string cpu_model;  // /proc/cpuinfo "model name", "" if absent
  double cpuinfo_mhz = 0;  // /proc/cpuinfo "cpu MHz" of the first CPU, 0 if absent
  bool from_sysfs = true;  // false: /sys topology was unreadable, 1 socket x cpus cores assumed
};

// Reads /sys/devices/system/cpu and /proc/cpuinfo. Never throws: what it cannot read stays at
// the defaults above (and from_sysfs says whether the placement was read).
HostTopology read_host_topology();

// How long and how big the measurements are. The defaults are the real run; quick() is for
// tests and smoke checks (figures then are indicative only: the DRAM buffer may fit the LLC).
struct CalibrateOptions {
  uint64_t dram_chase_bytes = 512ull << 20;  // the DRAM pointer chase's buffer
  uint64_t clear_bytes = 512ull << 20;       // the clear buffer, split across the threads
  unsigned dram_min_llc_multiple = 4;        // both buffers at least this many LLCs (0: no floor)
  uint64_t chase_steps = 2'000'000;          // dependent loads timed per run
  uint64_t lock_pairs = 10'000'000;          // lock+unlock pairs timed per run
  uint64_t clock_adds = 64'000'000;          // dependent adds timed per run (core clock)
  uint64_t llc_curve_max_bytes = 1ull << 30; // the LLC knee's chase curve ends here (/sys lists no LLC)
  unsigned runs = 5;                         // timed figures: the median of this many runs (the clock: the fastest)
  uint64_t seed = 1;                         // the chase permutations' RNG seed
  // Told what is being measured next, e.g. for a progress line; may be empty.
  std::function<void(const std::string&)> progress;

  static CalibrateOptions quick();
};

// A figure of the machine file that was not measured: its dotted key ("latency.dram_remote_ns"),
// why not, and why the value written instead was chosen.
struct NotMeasured {
  std::string key;
  std::string reason;
  std::string why_value;
};

// A figure that was measured (or read from the OS), and how.
struct Measured {
  std::string key;
  std::string how;
};

// One point of a pointer-chase curve: ns per dependent load over a buffer of `bytes`.
struct ChasePoint {
  uint64_t bytes = 0;
  double ns = 0;
};

// The last-level cache's capacity from the knee of a chase curve that starts past the L2 (its
// first point is the plateau of the level being sought) and ends in DRAM (its last point),
// sorted by size; 0 when the curve shows no level between them (DRAM under 1.5x the plateau,
// or the first point already half-way to DRAM). A random chase over S bytes hits a cache of C
// bytes C/S of the time, so the latency is plateau + (dram - plateau)(1 - C/S) past C; the
// first point past half-way gives C = S (dram - ns) / (dram - plateau), at least the plateau's
// buffer.
uint64_t chase_knee(const std::vector<ChasePoint>& curve);

struct Calibration {
  HostTopology host;
  // The raw measurements: ns per dependent load at each level, core clock, clear GB/s by one
  // thread (per subpage, multi-page) and by all CPUs at once (per subpage), ns per uncontended
  // lock+unlock pair.
  double l1_ns = 0, l2_ns = 0, llc_ns = 0, dram_ns = 0;
  double clock_ghz = 0;  // 0: not timed (not x86-64)
  double clear_gbs_one = 0, clear_gbs_multi_page = 0, clear_gbs_all = 0;
  double lock_pair_ns = 0;
  // The chase curve, 2x the L2 to llc_curve_max_bytes, when /sys lists no LLC (chase_knee).
  std::vector<ChasePoint> llc_curve;
  // No level showed between the L2 and DRAM: caches.llc is the L2 again and its latency the
  // L2's, both listed as not measured.
  bool llc_is_l2 = false;
  // Every value of the machine file, measured or fallback; name "host" until the caller
  // names it.
  MachineModel model;
  // Every key of machine_file_values() but "name" is in exactly one of these two lists.
  std::vector<Measured> measured;
  std::vector<NotMeasured> not_measured;
};

// Measures this host (seconds with the defaults; the process should be otherwise idle) and
// fills in the fallbacks. Throws std::runtime_error when a buffer cannot be mapped or a thread
// cannot be started.
Calibration calibrate(const CalibrateOptions& opt = {});
// The same over a given topology instead of this host's /sys (tests: a host whose /sys lists
// no caches).
Calibration calibrate(const CalibrateOptions& opt, const HostTopology& host);

// The machine file of `c`: a comment block (host, how each value was measured, then one
// "# not measured: <key>: <reason>; value written: <v> (assumed, <why>)" line per fallback)
// over render_machine_model(c.model). It loads with parse_machine_model.
std::string render_calibration(const Calibration& c);

// For the terminal: every measured key with its value and how, then the not-measured list in
// the file's words.
std::string calibration_summary(const Calibration& c);

// Throws InputError when `out` resolves (symlinks, "..", relative to the working directory) to
// the shipped machines directory (that of default_machine_file()) or a path inside it:
// calibration output never replaces or adds to the source tree's machine files.
void refuse_shipped_machines_dir(const std::string& out);

}  // namespace pagesim::vt
