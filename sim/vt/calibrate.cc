// Measuring this host for `pagesim calibrate`: pointer chases, clear bandwidth, an uncontended
// lock and the core clock, each the median of several runs. The figures one process on one
// socket cannot measure get fallbacks in calibrate_fallbacks.cc.
#include "pagesim/vt/calibrate.h"

#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <barrier>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <new>
#include <stdexcept>
#include <thread>

#include "calibrate_fallbacks.h"
#include "pagesim/huge_region.h"
#include "pagesim/rng.h"
#include "pagesim/config/units.h"
#include "pagesim/vt/clear_pages.h"

namespace pagesim::vt {

namespace {

using Clock = std::chrono::steady_clock;

double ns_since(Clock::time_point t0) { return std::chrono::duration<double, std::nano>(Clock::now() - t0).count(); }

// The loads and stores being timed must happen: the optimiser sees `p` and memory escape here.
inline void keep(const void* p) { asm volatile("" : : "r"(p) : "memory"); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

template <class Fn>
double median_of(unsigned runs, Fn once) {
  std::vector<double> v;
  for (unsigned r = 0; r < std::max(runs, 1u); ++r) v.push_back(once(r));
  return median(std::move(v));
}

std::string size_text(uint64_t bytes) { return config::format_size(static_cast<int64_t>(bytes)); }

// The chase buffer is a HugeRegion: with THP a random walk over it rarely misses the TLB, so
// the chase times the memory, not page walks.
using Buffer = HugeRegion;

// --------------------------------------------------------------- latency: pointer chase

struct alignas(64) ChaseNode {
  const ChaseNode* next;
  uint64_t to;  // Sattolo's permutation, before it becomes `next`
};
static_assert(sizeof(ChaseNode) == 64, "one node per cache line");

// Median ns per dependent load over a random cyclic permutation of the 64-byte lines of a
// `bytes` buffer. Sattolo's algorithm makes one cycle through every line, so a lap touches each
// once, in an order no prefetcher can follow.
double chase_ns(uint64_t bytes, const CalibrateOptions& opt) {
  const uint64_t n = std::max<uint64_t>(2, bytes / sizeof(ChaseNode));
  Buffer buf(n * sizeof(ChaseNode), "calibrate");
  ChaseNode* nodes = reinterpret_cast<ChaseNode*>(buf.data());
  for (uint64_t i = 0; i < n; ++i) ::new (nodes + i) ChaseNode{nullptr, i};
  Rng rng(opt.seed, /*stream=*/n);
  for (uint64_t i = n - 1; i > 0; --i) std::swap(nodes[i].to, nodes[rng.below(i)].to);
  for (uint64_t i = 0; i < n; ++i) nodes[i].next = nodes + nodes[i].to;

  const ChaseNode* p = nodes;
  const auto walk = [&p](uint64_t steps) {
    for (uint64_t i = 0; i < steps; i += 8) {  // unrolled: the loop's own work stays off the chain
      p = p->next; p = p->next; p = p->next; p = p->next;
      p = p->next; p = p->next; p = p->next; p = p->next;
    }
    keep(p);
  };
  const uint64_t steps = std::max<uint64_t>(8, opt.chase_steps / 8 * 8);
  walk(std::min(n, steps));  // warm: a small buffer is then in its cache level
  return median_of(opt.runs, [&](unsigned) {
    const Clock::time_point t0 = Clock::now();
    walk(steps);
    return ns_since(t0) / static_cast<double>(steps);
  });
}

// --------------------------------------------------------------- bandwidth: clearing

// Median GB/s of `threads` threads clearing their shares of `bytes` at once, 2 MiB pages the
// way clear_huge_page does in `mode` (vt/clear_pages.h: `rep stosb` per 4 KiB subpage, or over
// the page): all bytes cleared over the span from the first start to the last finish.
double clear_gbs(unsigned threads, uint64_t bytes, unsigned runs, ClearMode mode) {
  constexpr uint64_t kHuge = 2ull << 20;
  runs = std::max(runs, 1u);
  const uint64_t share = std::max(kHuge, bytes / threads / kHuge * kHuge);
  Buffer buf(share * threads, "calibrate");
  std::vector<Clock::time_point> start(size_t{threads} * runs), end(size_t{threads} * runs);
  std::barrier sync(threads);
  const auto body = [&](unsigned t) {
    char* mine = buf.data() + t * share;
    for (unsigned r = 0; r < runs; ++r) {
      // Untimed: faults the pages in (first run), and makes every timed clear write zeroes over
      // non-zero bytes, as a fault's clear does over a page's old contents.
      std::memset(mine, 0xa5, share);
      sync.arrive_and_wait();
      start[r * threads + t] = Clock::now();
      clear_extent(mine, share, kHuge, mode);
      end[r * threads + t] = Clock::now();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(body, t);
  for (std::thread& th : pool) th.join();
  return median_of(runs, [&](unsigned r) {
    const auto first = std::min_element(start.begin() + r * threads, start.begin() + (r + 1) * threads);
    const auto last = std::max_element(end.begin() + r * threads, end.begin() + (r + 1) * threads);
    const double ns = std::chrono::duration<double, std::nano>(*last - *first).count();
    return static_cast<double>(share * threads) / ns;  // bytes per ns == GB/s
  });
}

// --------------------------------------------------------------- lock and clock

// Median ns per uncontended lock+unlock pair, taken as the kernel's queued_spin_lock fast path
// takes it: a test-and-set by compare-exchange 0 -> 1, then a release store of 0.
double lock_pair_ns(uint64_t pairs, unsigned runs) {
  alignas(64) std::atomic<uint32_t> word{0};
  keep(&word);
  pairs = std::max<uint64_t>(pairs, 1);
  return median_of(runs, [&](unsigned) {
    const Clock::time_point t0 = Clock::now();
    for (uint64_t i = 0; i < pairs; ++i) {
      uint32_t expected = 0;
      word.compare_exchange_strong(expected, 1, std::memory_order_acquire, std::memory_order_relaxed);
      word.store(0, std::memory_order_release);
    }
    return ns_since(t0) / static_cast<double>(pairs);
  });
}

// GHz of this core: a chain of dependent adds retires one per cycle on every x86-64 core. The
// addend is a register, not an immediate, so the chain cannot be folded at rename. The fastest
// run counts: preemption only ever slows a run, and an undisturbed one is exact. 0 on other
// architectures.
double clock_ghz(uint64_t adds, unsigned runs) {
#if defined(__x86_64__)
  const uint64_t loops = std::max<uint64_t>(1, adds / 256);
  double best = 0;
  for (unsigned r = 0; r < runs; ++r) {
    uint64_t x = 0;
    const uint64_t one = 1;
    const Clock::time_point t0 = Clock::now();
    for (uint64_t i = 0; i < loops; ++i) asm volatile(".rept 256\n\tadd %1, %0\n\t.endr" : "+r"(x) : "r"(one));
    best = std::max(best, static_cast<double>(loops * 256) / ns_since(t0));
  }
  return best;
#else
  (void)adds;
  (void)runs;
  return 0;
#endif
}

ps_t ns_to_ps(double ns) { return static_cast<ps_t>(std::llround(ns * 10)) * 100; }  // 0.1 ns: all a VM resolves
double round2(double v) { return std::round(v * 100) / 100; }

// A measured figure and how, told in the file's comments.
using Note = std::function<void(std::string key, std::string how)>;

void measure_clock(Calibration& c, const CalibrateOptions& opt) {
  c.clock_ghz = clock_ghz(opt.clock_adds, opt.runs);
  if (c.clock_ghz <= 0) return frequency_fallback(c);
  c.model.freq_mhz = static_cast<uint32_t>(std::llround(c.clock_ghz * 1000));
  c.measured.push_back({"frequency_ghz", fmt::format("a chain of {} dependent register adds, one per cycle; fastest of {} runs "
                                                     "(/proc/cpuinfo: {} MHz)", opt.clock_adds, opt.runs, c.host.cpuinfo_mhz)});
}

// caches.llc when /sys lists none: the knee of a chase curve from 2x the L2 to
// llc_curve_max_bytes, doubling. Its ways are not visible to a chase: 16, said so.
void measure_llc_knee(Calibration& c, const CalibrateOptions& opt) {
  cache::CacheGeometry& g = c.model.geometry;
  for (uint64_t bytes = 2 * g.l2.bytes(); bytes <= std::max(opt.llc_curve_max_bytes, 4 * g.l2.bytes()); bytes *= 2) {
    if (opt.progress) opt.progress(fmt::format("LLC search: pointer chase over {}", size_text(bytes)));
    c.llc_curve.push_back({bytes, chase_ns(bytes, opt)});
  }
  std::string curve;
  for (const ChasePoint& p : c.llc_curve) curve += fmt::format("{}{} {:.1f} ns", curve.empty() ? "" : ", ", size_text(p.bytes), p.ns);
  constexpr uint32_t kWays = 16;
  if (const uint64_t knee = chase_knee(c.llc_curve); knee >= cache::kLineBytes * kWays) {
    g.llc = cache::CacheLevel::of_size(knee / (cache::kLineBytes * kWays) * (cache::kLineBytes * kWays), kWays);
    c.measured.push_back({"caches.llc", fmt::format("/sys lists no L3 for cpu0: size from the knee of a pointer-chase curve ({}); "
                                                    "ways: {} assumed, a chase does not show them", curve, kWays)});
    return;
  }
  g.llc = g.l2;
  c.llc_is_l2 = true;
  c.not_measured.push_back({"caches.llc", fmt::format("/sys lists no L3 for cpu0 and the pointer-chase curve shows no level between "
                                                      "the L2 and DRAM ({})", curve),
                            "the L2 again: the model needs a last level"});
}

void measure_latencies(Calibration& c, const CalibrateOptions& opt, const Note& note) {
  MachineModel& m = c.model;
  const double ghz = m.freq_mhz / 1000.0;
  const uint64_t l1 = m.geometry.l1d.bytes(), l2 = m.geometry.l2.bytes(), llc = m.geometry.llc.bytes();
  // The LLC chase: four L2s, at most half the LLC. A VM's share of a shared L3 can be far
  // below what /sys reports (the development VM's 32 MiB L3 behaves like 4-8 MiB); a quarter
  // of the loads may hit the L2 instead.
  const uint64_t llc_chase = std::min(4 * l2, llc / 2);
  const uint64_t dram_chase = std::max(opt.dram_chase_bytes, opt.dram_min_llc_multiple * llc);
  const auto chase = [&](const char* level, uint64_t bytes) {
    if (opt.progress) opt.progress(fmt::format("{} pointer chase over {}", level, size_text(bytes)));
    return chase_ns(bytes, opt);
  };
  c.l1_ns = chase("L1d", l1 / 2);
  c.l2_ns = chase("L2", l2 / 2);
  c.llc_ns = c.llc_is_l2 ? c.l2_ns : chase("LLC", llc_chase);
  c.dram_ns = chase("DRAM", dram_chase);
  using cache::Outcome;
  const auto set = [&](Outcome o, ps_t ps) { m.latency_ps[static_cast<unsigned>(o)] = ps; };
  const auto cycles = [&](double ns) { return static_cast<uint64_t>(std::max<int64_t>(1, std::llround(ns * ghz))); };
  set(Outcome::l1, m.cycles_to_ps(cycles(c.l1_ns)));
  set(Outcome::l2, m.cycles_to_ps(cycles(c.l2_ns)));
  set(Outcome::llc_local, ns_to_ps(c.llc_ns));
  set(Outcome::dram_local, ns_to_ps(c.dram_ns));
  set(Outcome::prefetch, 0);
  const uint64_t steps = std::max<uint64_t>(8, opt.chase_steps / 8 * 8);
  note("latency.l1_cycles", fmt::format("{:.2f} ns x {} GHz; chase over {} (half the L1d), {} loads", c.l1_ns, ghz, size_text(l1 / 2), steps));
  note("latency.l2_cycles", fmt::format("{:.2f} ns x {} GHz; chase over {} (half the L2), {} loads", c.l2_ns, ghz, size_text(l2 / 2), steps));
  if (c.llc_is_l2)
    c.not_measured.push_back({"latency.llc_local_ns", "no cache level between the L2 and DRAM (caches.llc)",
                              "the L2's measured latency; the HITM and lock-line fallbacks built on it are lower bounds"});
  else
    note("latency.llc_local_ns", fmt::format("chase over {} (4x the L2, at most half the LLC), {} loads", size_text(llc_chase), steps));
  note("latency.dram_local_ns", fmt::format("chase over {}, {} loads", size_text(dram_chase), steps));
}

void measure_lock(Calibration& c, const CalibrateOptions& opt, const Note& note) {
  if (opt.progress) opt.progress("uncontended lock+unlock");
  const double ghz = c.model.freq_mhz / 1000.0;
  c.lock_pair_ns = lock_pair_ns(opt.lock_pairs, opt.runs);
  c.model.lock_uncontended_cycles = static_cast<uint32_t>(std::llround(c.lock_pair_ns * ghz));
  note("locks.uncontended_cycles", fmt::format("{:.2f} ns x {} GHz per lock+unlock pair (compare-exchange 0 -> 1, release store of 0: "
                                               "the qspinlock fast path), {} pairs", c.lock_pair_ns, ghz, opt.lock_pairs));
}

void measure_bandwidth(Calibration& c, const CalibrateOptions& opt, const Note& note) {
  MachineModel& m = c.model;
  const unsigned cpus = c.host.cpus, sockets = m.geometry.sockets;
  const uint64_t bytes = std::max(opt.clear_bytes, opt.dram_min_llc_multiple * m.geometry.llc.bytes());
  if (opt.progress) opt.progress(fmt::format("clear of {} per subpage by one thread", size_text(bytes)));
  c.clear_gbs_one = clear_gbs(1, bytes, opt.runs, ClearMode::per_subpage);
  if (opt.progress) opt.progress(fmt::format("clear of {} per 2 MiB page by one thread", size_text(bytes)));
  c.clear_gbs_multi_page = clear_gbs(1, bytes, opt.runs, ClearMode::multi_page);
  if (opt.progress) opt.progress(fmt::format("clear of {} per subpage by {} threads at once", size_text(bytes), cpus));
  c.clear_gbs_all = clear_gbs(cpus, bytes, opt.runs, ClearMode::per_subpage);
  m.clear_bw_bytes_per_s = round2(c.clear_gbs_one) * 1e9;
  m.clear_multi_page_bw_bytes_per_s = round2(c.clear_gbs_multi_page) * 1e9;
  m.dram_bw_bytes_per_s = round2(c.clear_gbs_all / sockets) * 1e9;
  note("memory.clear_bandwidth_per_thread_gbs",
       fmt::format("one thread clears {} as v5.17's clear_huge_page does: `rep stosb` per 4 KiB subpage, in "
                   "process_huge_page's order",
                   size_text(bytes)));
  note("memory.clear_bandwidth_multi_page_per_thread_gbs",
       fmt::format("one thread clears {} as seed 000's x86 series does: one `rep stosb` per 2 MiB page", size_text(bytes)));
  note("memory.dram_bandwidth_per_socket_gbs",
       fmt::format("{} threads, one per online CPU, clear their shares of {} per subpage at once (first start to last finish) / {} socket(s); "
                   "bytes written, a lower bound on DRAM traffic (read-for-ownership can double it)", cpus, size_text(bytes), sockets));
}

}  // namespace

CalibrateOptions CalibrateOptions::quick() {
  CalibrateOptions o;
  o.dram_chase_bytes = 32ull << 20;
  o.dram_min_llc_multiple = 0;
  o.chase_steps = 200'000;
  o.clear_bytes = 32ull << 20;
  o.lock_pairs = 200'000;
  o.clock_adds = 4'000'000;
  o.llc_curve_max_bytes = 64ull << 20;
  o.runs = 3;
  return o;
}

uint64_t chase_knee(const std::vector<ChasePoint>& curve) {
  if (curve.size() < 2) return 0;
  const double plateau = curve.front().ns, dram = curve.back().ns;
  if (!(dram > 1.5 * plateau)) return 0;
  const double half_way = plateau + (dram - plateau) / 2;
  for (size_t i = 1; i < curve.size(); ++i)
    if (curve[i].ns >= half_way) {
      // Below half-way at the point before, so more than half of its loads hit: C lies
      // between half of each point, and holds the plateau's whole buffer.
      const double hit = std::clamp((dram - curve[i].ns) / (dram - plateau), 0.0, 1.0);
      const uint64_t low = std::max(curve[i - 1].bytes / 2, curve.front().bytes);
      return std::clamp<uint64_t>(static_cast<uint64_t>(static_cast<double>(curve[i].bytes) * hit), low, std::max(low, curve[i].bytes / 2));
    }
  return 0;  // unreachable: the last point is DRAM itself
}

Calibration calibrate(const CalibrateOptions& options) { return calibrate(options, read_host_topology()); }

Calibration calibrate(const CalibrateOptions& options, const HostTopology& host) {
  CalibrateOptions opt = options;
  opt.runs = std::max(opt.runs, 1u);
  Calibration c;
  c.host = host;
  c.model.name = "host";
  // Geometry and caches from c.host, with fallbacks for what /sys lacks; an LLC it lacks is
  // sought in the chase curve.
  if (!describe_topology(c)) measure_llc_knee(c, opt);
  const Note note = [&](std::string key, std::string how) {
    c.measured.push_back({std::move(key), fmt::format("{}; median of {} runs", how, opt.runs)});
  };
  if (opt.progress) opt.progress("core clock (dependent adds)");
  measure_clock(c, opt);  // first: the cycle figures below are converted with it
  measure_latencies(c, opt, note);
  measure_lock(c, opt, note);
  measure_bandwidth(c, opt, note);
  apply_fallbacks(c);
  return c;
}

}  // namespace pagesim::vt
