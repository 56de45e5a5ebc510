// pcp_churn and thp_alloc: per-CPU loops over the pcp fast paths (pagesim/workload/churn.h).
// Their parameters, their bodies for every engine and the metrics they report.
#include <algorithm>
#include <vector>

#include "pagesim/result/samples.h"
#include "pagesim/workload/churn.h"
#include "pagesim/workload/program.h"
#include "pagesim/workload/registry.h"

namespace pagesim::workload {

namespace {

// Every CPU: a warm-up, a statistics reset, then timed iterations.
template <class D>
void task_body(D& d, typename D::Exec& ex, const ChurnParams& p, uint64_t warmup, ChurnCounts& counts,
               std::vector<double>& iter_ns) {
  mm::Mm<typename D::Exec> mm(d.machine(), ex);
  std::vector<mm::Page*> scratch;
  ChurnCounts warm;
  d.barrier(ex);
  for (uint64_t i = 0; i < warmup; ++i) churn_iteration(mm, ex, p, scratch, warm);
  d.barrier(ex);
  ex.reset_stats();
  if (ex.task() == 0) d.mark_start(d.now(ex));
  d.counters_start(ex);
  d.leave_start_barrier(ex, 0);
  for (uint64_t i = 0; i < p.iterations; ++i) {
    const double t = d.now_ns(ex);
    ex.sys_enter();
    churn_iteration(mm, ex, p, scratch, counts);
    ex.sys_exit();
    iter_ns.push_back(d.now_ns(ex) - t);
  }
  d.counters_stop(ex);
  d.barrier(ex);
  if (ex.task() == 0) d.mark_end(d.now(ex));
  mm.drain_local_pages();
}

class Churn : public ProgramOf<Churn> {
 public:
  Churn(const Args& a, bool thp) : params_(a.params), warmup_(a.warmup_ops), thp_(thp) {}

  template <class D>
  void on(D& d) const {
    uint64_t iterations = static_cast<uint64_t>(params_.integer("iterations"));
    if (d.short_mode()) iterations = std::min<uint64_t>(iterations, 20);
    const ChurnParams p = thp_ ? thp_alloc_params(iterations, static_cast<uint32_t>(params_.integer("batch")))
                               : pcp_churn_params(iterations, static_cast<uint32_t>(params_.integer("pages")));
    auto& m = d.result().metrics;
    ChurnCounts c;
    if constexpr (is_uniprocessor<D>) {
      // Every CPU in turn runs one iteration; no warm-up, and no per-iteration timing.
      auto& ex = d.exec();
      mm::Mm<typename D::Exec> mm(d.machine(), ex);
      std::vector<mm::Page*> scratch;
      d.mark_start(d.now());
      for (uint64_t i = 0; i < p.iterations; ++i)
        for (unsigned cpu = 0; cpu < d.nr_cpus(); ++cpu) {
          ex.set_cpu(cpu);
          churn_iteration(mm, ex, p, scratch, c);
        }
      for (unsigned cpu = 0; cpu < d.nr_cpus(); ++cpu) {
        ex.set_cpu(cpu);
        mm.drain_local_pages();
      }
      d.mark_end(d.now());
    } else {
      const unsigned n = d.nr_cpus();
      std::vector<ChurnCounts> counts(n);
      std::vector<std::vector<double>> iter(n);
      d.run_tasks(n, [&](typename D::Exec& ex) { task_body(d, ex, p, warmup_, counts[ex.task()], iter[ex.task()]); });
      std::vector<double> iter_ns;
      for (unsigned t = 0; t < n; ++t) {
        c.allocs += counts[t].allocs;
        c.failures += counts[t].failures;
        iter_ns.insert(iter_ns.end(), iter[t].begin(), iter[t].end());
      }
      const double elapsed = d.elapsed_s();
      m["allocs_per_s"] = elapsed > 0 ? static_cast<double>(c.allocs) / elapsed : 0;
      m["iteration_median_ns"] = run::median_of(iter_ns);
      m["iteration_stddev_pct"] = run::stddev_pct_of(iter_ns);
    }
    m["allocs"] = static_cast<double>(c.allocs);
    m["alloc_failures"] = static_cast<double>(c.failures);
  }

 private:
  const config::Params& params_;
  uint64_t warmup_;
  bool thp_;
};

std::vector<run::MetricInfo> churn_metrics() {
  return {
      {"allocs", "", run::kAllEngines, "blocks allocated in the measured iterations"},
      {"alloc_failures", "", run::kAllEngines, "allocations that returned no page"},
      {"allocs_per_s", "1/s", run::kThreadedEngines, "allocs / elapsed_s", true},
      {"iteration_median_ns", "ns", run::kThreadedEngines, "LKP's upper median of the per-CPU iteration times", true},
      {"iteration_stddev_pct", "%", run::kThreadedEngines, "population stddev of the iteration times, % of their mean", true},
  };
}

}  // namespace

WorkloadInfo pcp_churn_workload() {
  using config::ParamType;
  return {
      "pcp_churn",
      "seed 003's mmap/touch/munmap loop as order-0 allocations and frees through the pcp; per-iteration median and stdev",
      {
          {"iterations", ParamType::integer, int64_t{200}, 1, 1e9, {}, "loops per CPU"},
          {"pages", ParamType::integer, int64_t{2048}, 1, 1 << 24, {}, "pages touched (allocated) per loop"},
      },
      churn_metrics(),
      [](const Args& a) { return std::make_unique<Churn>(a, false); },
  };
}

WorkloadInfo thp_alloc_workload() {
  using config::ParamType;
  return {
      "thp_alloc",
      "order-9 THP allocation and free through pcp list 13 (rmqueue_bulk refills of 2 blocks)",
      {
          {"iterations", ParamType::integer, int64_t{2000}, 1, 1e9, {}, "loops per CPU"},
          {"batch", ParamType::integer, int64_t{1}, 1, 1 << 16, {}, "THP blocks allocated, then freed, per loop"},
      },
      churn_metrics(),
      [](const Args& a) { return std::make_unique<Churn>(a, true); },
  };
}

}  // namespace pagesim::workload
