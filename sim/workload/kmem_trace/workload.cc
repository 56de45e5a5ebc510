// kmem_trace: a kernel kmem trace's allocations and frees issued as requests on the CPUs of the
// scenario's machine (pagesim/workload/kmem_trace.h), at their traced times or back to back.
// Its parameters, its bodies for the native and virtual engines, and the metrics it reports.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "pagesim/error.h"
#include "pagesim/exec/tsc.h"
#include "pagesim/mm/page_alloc.h"
#include "pagesim/result/samples.h"
#include "pagesim/workload/program.h"
#include "pagesim/workload/registry.h"
#include "request_cache.h"

namespace pagesim::workload {

namespace {

constexpr uint8_t kBoth = run::kNative | run::kVirtual;
constexpr run::Metric kRequests{"requests", "", kBoth, "allocations and frees issued, over every CPU"};
constexpr run::Metric kAllocs{"allocs", "", kBoth, "allocations that found a page"};
constexpr run::Metric kFrees{"frees", "", kBoth, "frees issued"};
constexpr run::Metric kAllocFailures{"alloc_failures", "", kBoth, "allocations that found no page (their frees are skipped)"};
constexpr run::Metric kPretraceFrees{"pretrace_frees", "", kBoth, "frees of blocks allocated before the trace began: skipped"};
constexpr run::Metric kTracedFailedAllocs{"traced_failed_allocs", "", kBoth, "allocations that failed in the kernel: skipped"};
constexpr run::Metric kLateRequests{"late_requests", "", kBoth, "timing traced: requests issued after their time, their CPU still busy"};
constexpr run::Metric kFreeWaits{"free_waits", "", kBoth, "frees that waited for another CPU to allocate their block"};
constexpr run::Metric kTraceSpanS{"trace_span_s", "s", kBoth, "the trace's first request to its last", false, true};
constexpr run::Metric kRequestsPerS{"requests_per_s", "1/s", kBoth, "requests / elapsed_s", true};
constexpr run::Metric kLatencyMeanNs{"latency_mean_ns", "ns", kBoth, "a request's time in the allocator, mean over every request", true};
constexpr run::Metric kLatencyP50Ns{"latency_p50_ns", "ns", kBoth, "its 50th percentile (LKP's upper median)", true};
constexpr run::Metric kLatencyP90Ns{"latency_p90_ns", "ns", kBoth, "its 90th percentile", true};
constexpr run::Metric kLatencyP99Ns{"latency_p99_ns", "ns", kBoth, "its 99th percentile", true};
constexpr run::Metric kLatencyP999Ns{"latency_p999_ns", "ns", kBoth, "its 99.9th percentile", true};
constexpr run::Metric kLatencyMaxNs{"latency_max_ns", "ns", kBoth, "the longest request", true};

// A block's state in the table the CPUs share: not yet allocated (nullptr), the model's page,
// or one of these.
mm::Page* const kModelFailed = reinterpret_cast<mm::Page*>(uintptr_t{1});  // the model found no page
mm::Page* const kFreed = reinterpret_cast<mm::Page*>(uintptr_t{2});

struct CpuOut {
  uint64_t allocs = 0, frees = 0, alloc_failures = 0, late = 0, free_waits = 0;
  std::vector<double> latency_ns;
};

// How long a free waits, on the virtual engine, between two looks at its block: the CPU that
// allocates it is behind this one, and runs before it looks again.
constexpr vt::ps_t kWaitStepPs = 100'000;  // 100 ns

template <class D>
class Issuer {
 public:
  using E = typename D::Exec;
  // abandoned: set when another CPU's run has thrown; a free waiting for that CPU gives up.
  Issuer(D& d, E& ex, std::vector<std::atomic<mm::Page*>>& blocks, const std::atomic<bool>& abandoned, bool traced, CpuOut& out)
      : d_(d), ex_(ex), mm_(d.machine(), ex), blocks_(blocks), abandoned_(abandoned), traced_(traced), out_(out) {}

  void run(const std::vector<KmemRequest>& stream) {
    out_.latency_ns.reserve(stream.size());
    d_.barrier(ex_);
    ex_.reset_stats();
    start_ = d_.now(ex_);
    if (ex_.task() == 0) d_.mark_start(start_);
    d_.counters_start(ex_);
    for (size_t i = 0; i < stream.size(); ++i) {
      issue(stream[i]);
      if (ex_.task() == 0) d_.progress(d_.now(ex_), i + 1, stream.size(), "requests");
    }
    d_.counters_stop(ex_);
    d_.barrier(ex_);
    if (ex_.task() == 0) d_.mark_end(d_.now(ex_));
    // What the trace left allocated goes back, outside the measured phase.
    for (const KmemRequest& q : stream)
      if (q.op == KmemRequest::Op::alloc)
        if (mm::Page* p = blocks_[q.slot].load(std::memory_order_relaxed); p && p != kModelFailed && p != kFreed) {
          mm_.__free_pages(p, q.order);
          blocks_[q.slot].store(kFreed, std::memory_order_relaxed);
        }
    mm_.drain_local_pages();
  }

 private:
  void issue(const KmemRequest& q) {
    if (traced_) wait_until(q.at_s);
    mm::Page* page = nullptr;
    if (q.op != KmemRequest::Op::alloc) {
      page = allocated(q.slot);
      if (page == kModelFailed) return;
    }
    const double t0 = d_.now_ns(ex_);
    ex_.sys_enter();
    switch (q.op) {
      case KmemRequest::Op::alloc:
        page = mm_.alloc_pages_node(static_cast<int>(ex_.node()), q.gfp, q.order);
        blocks_[q.slot].store(page ? page : kModelFailed, std::memory_order_release);
        break;
      case KmemRequest::Op::free: mm_.__free_pages(page, q.order); break;
      case KmemRequest::Op::free_folio: mm_.free_unref_folio(page, q.order); break;
    }
    ex_.sys_exit();
    out_.latency_ns.push_back(d_.now_ns(ex_) - t0);
    if (q.op != KmemRequest::Op::alloc) {
      blocks_[q.slot].store(kFreed, std::memory_order_relaxed);
      out_.frees++;
    } else if (page) {
      out_.allocs++;
    } else {
      out_.alloc_failures++;
    }
  }

  // timing: traced. The request is due `at_s` after this CPU's start; a CPU still busy with
  // earlier requests issues it late.
  void wait_until(double at_s) {
    if constexpr (is_virtual<D>) {
      const vt::ps_t due = start_ + static_cast<vt::ps_t>(at_s * 1e12 + 0.5);
      if (ex_.clock() < due) ex_.advance(due - ex_.clock());
      else if (ex_.clock() > due) out_.late++;
    } else {
      using Clock = std::chrono::steady_clock;
      const Clock::time_point due = start_ + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(at_s));
      Clock::time_point now = Clock::now();
      if (now > due) {
        out_.late++;
        return;
      }
      if (due - now > std::chrono::microseconds(200)) std::this_thread::sleep_until(due - std::chrono::microseconds(100));
      while (Clock::now() < due) cpu_relax();
    }
  }

  // A free's block, once the CPU that allocates it has (in the trace, the allocation came first);
  // kModelFailed when that CPU's run has thrown (the run's error is what the engine reports).
  mm::Page* allocated(uint32_t slot) {
    if constexpr (is_virtual<D>) ex_.sync();  // every CPU behind this one runs first
    mm::Page* p = blocks_[slot].load(std::memory_order_acquire);
    if (!p) out_.free_waits++;
    while (!p) {
      if (abandoned_.load(std::memory_order_relaxed)) return kModelFailed;
      if constexpr (is_virtual<D>) {
        ex_.advance(kWaitStepPs);
        ex_.sync();
      } else {
        std::this_thread::yield();
      }
      p = blocks_[slot].load(std::memory_order_acquire);
    }
    return p;
  }

  D& d_;
  E& ex_;
  mm::Mm<E> mm_;
  std::vector<std::atomic<mm::Page*>>& blocks_;
  const std::atomic<bool>& abandoned_;
  bool traced_;
  CpuOut& out_;
  typename D::Time start_{};
};

// The requests of the trace `p` names, for a machine of `cpus` CPUs. Throws InputError saying
// why they cannot be issued there (no trace, no such file, a bad line, too few CPUs).
std::shared_ptr<const KmemRequests> requests_for(const config::Params& p, const std::string& source, unsigned cpus,
                                                 uint64_t max_requests) {
  if (p.string("trace").empty())
    throw InputError("name the kmem trace to issue (docs/replay.md, \"What-if on your own workload\")");
  const std::string path = engine::input_path(source, p.string("trace"));
  if (std::error_code ec; !std::filesystem::is_regular_file(path, ec))
    throw InputError(fmt::format("{}: no such file, from the working directory or beside the scenario", path));
  const auto replicate = static_cast<unsigned>(p.integer("replicate"));
  std::shared_ptr<const KmemRequests> rq = kmem::cached_requests(path, replicate, max_requests);
  if (rq->cpus.size() > cpus) {
    const unsigned top = rq->traced_cpus - 1;
    throw InputError(fmt::format("{}:{}: the trace issues requests on CPU {}, so {} CPUs{} are needed, but the machine has {}",
                                 path, rq->first_line[top], top, rq->cpus.size(),
                                 replicate > 1 ? fmt::format(" ({} x replicate {})", rq->traced_cpus, replicate) : "", cpus));
  }
  return rq;
}

class KmemTrace : public ProgramOf<KmemTrace> {
 public:
  using ProgramOf::ProgramOf;

  template <class D>
  void on(D& d) const {
    if constexpr (is_uniprocessor<D>) {
      throw InputError(fmt::format("{}: kmem_trace runs on the native and virtual engines", d.source()));
    } else {
      run(d);
    }
  }

 private:
  template <class D>
  void run(D& d) const {
    auto max_requests = static_cast<uint64_t>(params().integer("max_requests"));
    if (d.short_mode()) max_requests = max_requests ? std::min<uint64_t>(max_requests, 20000) : 20000;
    std::shared_ptr<const KmemRequests> rq;
    try {
      rq = requests_for(params(), d.source(), d.nr_cpus(), max_requests);
    } catch (const InputError& e) {
      throw InputError(fmt::format("{}: workload.params.trace: {}", d.source(), e.what()));
    }
    const unsigned n = d.nr_cpus();
    std::vector<std::atomic<mm::Page*>> blocks(rq->slots);
    std::vector<CpuOut> outs(n);
    const bool traced = params().string("timing") == "traced";
    static const std::vector<KmemRequest> kNone;
    std::atomic<bool> abandoned{false};
    d.run_tasks(n, [&](typename D::Exec& ex) {
      const unsigned t = ex.task();
      try {
        Issuer<D>(d, ex, blocks, abandoned, traced, outs[t]).run(t < rq->cpus.size() ? rq->cpus[t] : kNone);
      } catch (...) {
        abandoned.store(true);  // no CPU waits forever for a block this one will not allocate
        throw;
      }
    });
    report(d, *rq, outs);
  }

  template <class D>
  static void report(D& d, const KmemRequests& rq, const std::vector<CpuOut>& outs) {
    CpuOut all;
    for (const CpuOut& o : outs) {
      all.allocs += o.allocs;
      all.frees += o.frees;
      all.alloc_failures += o.alloc_failures;
      all.late += o.late;
      all.free_waits += o.free_waits;
      all.latency_ns.insert(all.latency_ns.end(), o.latency_ns.begin(), o.latency_ns.end());
    }
    std::sort(all.latency_ns.begin(), all.latency_ns.end());
    auto& m = d.result().metrics;
    const double elapsed = d.elapsed_s();
    const uint64_t requests = all.latency_ns.size();
    kRequests.set(m, static_cast<double>(requests));
    kAllocs.set(m, static_cast<double>(all.allocs));
    kFrees.set(m, static_cast<double>(all.frees));
    kAllocFailures.set(m, static_cast<double>(all.alloc_failures));
    kPretraceFrees.set(m, static_cast<double>(rq.pretrace_frees * rq.replicate));
    kTracedFailedAllocs.set(m, static_cast<double>(rq.failed_allocs * rq.replicate));
    kLateRequests.set(m, static_cast<double>(all.late));
    kFreeWaits.set(m, static_cast<double>(all.free_waits));
    kTraceSpanS.set(m, rq.span_s);
    kRequestsPerS.set(m, elapsed > 0 ? static_cast<double>(requests) / elapsed : 0);
    double sum = 0;
    for (double v : all.latency_ns) sum += v;
    kLatencyMeanNs.set(m, requests ? sum / static_cast<double>(requests) : 0);
    for (const auto& [metric, q] : {std::pair{&kLatencyP50Ns, 0.5}, {&kLatencyP90Ns, 0.9}, {&kLatencyP99Ns, 0.99},
                                    {&kLatencyP999Ns, 0.999}, {&kLatencyMaxNs, 1.0}})
      metric->set(m, run::quantile_of_sorted(all.latency_ns, q));
  }
};

}  // namespace

WorkloadInfo kmem_trace_workload() {
  using config::ParamType;
  WorkloadInfo w{
      "kmem_trace",
      "a kernel kmem trace's allocations and frees as requests, each traced CPU a CPU of the machine (docs/replay.md)",
      {
          {"trace", ParamType::string, std::string(""), {}, {}, {},
           "the kmem ftrace text (plain or .xz) to issue: absolute, from the working directory, else next to the scenario"},
          {"timing", ParamType::choice, std::string("traced"), {}, {}, {"traced", "flood"},
           "issue each request at its traced time, or each CPU's back to back"},
          {"replicate", ParamType::integer, int64_t{1}, 1, 256, {}, "copies of each traced CPU's stream, each on its own CPU and pfns"},
          {"max_requests", ParamType::integer, int64_t{0}, 0, 1e12, {}, "issue only the trace's first N requests (0: all)"},
      },
      run::metric_infos(kRequests, kAllocs, kFrees, kAllocFailures, kPretraceFrees, kTracedFailedAllocs, kLateRequests, kFreeWaits,
                        kTraceSpanS, kRequestsPerS, kLatencyMeanNs, kLatencyP50Ns, kLatencyP90Ns, kLatencyP99Ns, kLatencyP999Ns,
                        kLatencyMaxNs),
      make_program<KmemTrace>,
  };
  w.engines = kBoth;
  // At load, so that `pagesim validate` stops on a trace the machine cannot issue (the run then
  // finds it parsed in the request cache).
  w.check = [](const config::Params& p, const mm::MachineSpec& m, const std::string&, const std::string& source)
      -> std::optional<ParamProblem> {
    try {
      requests_for(p, source, m.nr_cpus(), static_cast<uint64_t>(p.integer("max_requests")));
    } catch (const InputError& e) {
      return ParamProblem{"trace", e.what()};
    }
    return std::nullopt;
  };
  w.headline = "requests_per_s";
  return w;
}

}  // namespace pagesim::workload
