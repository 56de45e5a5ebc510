// mmap_churn: seed 003's loop on this host, as the seed ran it (a modified powerpc mmap_bench):
// `iterations` times mmap SIZE of anonymous memory, touch `touches` pages spread over it (one
// write each: a page fault that allocates and clears a page), munmap. Host memory and the host
// kernel's allocator: the model's counterpart is pcp_churn. Host engines only: every CPU of the
// native engine runs its own loop; the uniprocessor engine runs one.
#include <fmt/format.h>
#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <vector>

#include "pagesim/error.h"
#include "pagesim/result/samples.h"
#include "pagesim/workload/host_cpus.h"
#include "pagesim/workload/registry.h"

namespace pagesim::workload {

namespace {

constexpr run::Metric kLoopS{"loop_s", "s", run::kUniprocessor | run::kNative,
                             "the loop's wall time, the seed's figure (all CPUs, first start to last end)", true};
constexpr run::Metric kLoopMedianNs{"loop_median_ns", "ns", run::kUniprocessor | run::kNative,
                                    "LKP's upper median of the loop's iteration times", true};
constexpr run::Metric kLoopStddevPct{"loop_stddev_pct", "%", run::kUniprocessor | run::kNative,
                                     "population stddev of the loop's iteration times, % of their mean", true};
constexpr run::Metric kTouches{"touches", "", run::kUniprocessor | run::kNative, "pages written, over all loops and CPUs", false, true};

struct MmapChurnParams {
  uint64_t iterations, bytes, touches;
  bool thp;
};

using HostClock = std::chrono::steady_clock;

// One CPU's loop; the per-iteration times in ns.
std::vector<double> churn_loop(const MmapChurnParams& p) {
  std::vector<double> ns;
  ns.reserve(p.iterations);
  const uint64_t stride = p.bytes / p.touches;
  for (uint64_t i = 0; i < p.iterations; ++i) {
    const HostClock::time_point t0 = HostClock::now();
    void* m = ::mmap(nullptr, p.bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) throw InputError(fmt::format("mmap_churn: mmap of {} MiB failed: {}", p.bytes >> 20, std::strerror(errno)));
    if (p.thp) (void)::madvise(m, p.bytes, MADV_HUGEPAGE);
    volatile char* c = static_cast<volatile char*>(m);
    for (uint64_t t = 0; t < p.touches; ++t) c[t * stride] = 1;
    ::munmap(m, p.bytes);
    ns.push_back(std::chrono::duration<double, std::nano>(HostClock::now() - t0).count());
  }
  return ns;
}

class MmapChurn : public ProgramOf<MmapChurn> {
 public:
  using ProgramOf::ProgramOf;

  template <class D>
  void on(D& d) const {
    MmapChurnParams p{static_cast<uint64_t>(params().integer("iterations")), static_cast<uint64_t>(params().integer("size")),
                      static_cast<uint64_t>(params().integer("touches")), params().string("page") == "thp"};
    if (d.short_mode()) p.iterations = std::min<uint64_t>(p.iterations, 20);
    if (p.touches > p.bytes / 4096)
      throw InputError(fmt::format("{}: workload.params.touches: {} pages do not fit in {} MiB", d.source(), p.touches, p.bytes >> 20));
    const unsigned cpus = is_uniprocessor<D> ? 1 : d.nr_cpus();
    std::vector<std::vector<double>> per_cpu(cpus);
    on_host_cpus(d, [&](unsigned cpu, unsigned) { per_cpu[cpu] = churn_loop(p); });
    std::vector<double> ns;
    for (const auto& v : per_cpu) ns.insert(ns.end(), v.begin(), v.end());
    auto& m = d.result().metrics;
    kLoopS.set(m, d.elapsed_s());
    kLoopMedianNs.set(m, run::median_of(ns));
    kLoopStddevPct.set(m, run::stddev_pct_of(ns));
    kTouches.set(m, static_cast<double>(p.iterations * p.touches * cpus));
  }
};

}  // namespace

WorkloadInfo mmap_churn_workload() {
  using config::ParamType;
  using run::kNative, run::kUniprocessor;
  WorkloadInfo w{
      "mmap_churn",
      "seed 003's loop on this host: mmap SIZE, touch pages spread over it, munmap, per CPU (host engines only)",
      {
          {"iterations", ParamType::integer, int64_t{5000}, 1, 1e9, {}, "loops per CPU (the seed: 5000)"},
          {"size", ParamType::size, int64_t{128} << 20, 4096, 1e12, {}, "bytes mapped per loop (the seed: 128M)"},
          {"touches", ParamType::integer, int64_t{2048}, 1, 1e9, {}, "pages written per loop, spread evenly (the seed: 2048)"},
          {"page", ParamType::choice, std::string("4K"), {}, {}, {"4K", "thp"}, "base pages, or THP asked with madvise"},
      },
      run::metric_infos(kLoopS, kLoopMedianNs, kLoopStddevPct, kTouches),
      make_program<MmapChurn>,
  };
  w.engines = kUniprocessor | kNative;
  w.headline = "loop_s";
  return w;
}

}  // namespace pagesim::workload
