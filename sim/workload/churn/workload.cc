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

constexpr run::Metric kIterations{"iterations", "", run::kAllEngines, "loops run per CPU (after the tests' short mode)", false, true};
constexpr run::Metric kAllocs{"allocs", "", run::kAllEngines, "blocks allocated in the measured iterations"};
constexpr run::Metric kAllocFailures{"alloc_failures", "", run::kAllEngines, "allocations that returned no page"};
constexpr run::Metric kAllocsPerS{"allocs_per_s", "1/s", run::kThreadedEngines, "allocs / elapsed_s", true};
constexpr run::Metric kIterationMedianNs{"iteration_median_ns", "ns", run::kThreadedEngines,
                                         "LKP's upper median of the per-CPU iteration times", true};
constexpr run::Metric kIterationStddevPct{"iteration_stddev_pct", "%", run::kThreadedEngines,
                                          "population stddev of the iteration times, % of their mean", true};

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
    if (ex.task() == 0) d.progress(d.now(ex), i + 1, p.iterations, "iterations");
  }
  d.counters_stop(ex);
  d.barrier(ex);
  if (ex.task() == 0) d.mark_end(d.now(ex));
  mm.drain_local_pages();
}

// Thp: thp_alloc (order-9 blocks, `batch` per loop), else pcp_churn (order 0, `pages` per loop).
template <bool Thp>
class Churn : public ProgramOf<Churn<Thp>> {
 public:
  using ProgramOf<Churn<Thp>>::ProgramOf;

  template <class D>
  void on(D& d) const {
    const config::Params& params = this->params();
    uint64_t iterations = static_cast<uint64_t>(params.integer("iterations"));
    if (d.short_mode()) iterations = std::min<uint64_t>(iterations, 20);
    const ChurnParams p = Thp ? thp_alloc_params(iterations, static_cast<uint32_t>(params.integer("batch")))
                              : pcp_churn_params(iterations, static_cast<uint32_t>(params.integer("pages")));
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
      d.run_tasks(n, [&](typename D::Exec& ex) { task_body(d, ex, p, this->warmup_ops(), counts[ex.task()], iter[ex.task()]); });
      std::vector<double> iter_ns;
      for (unsigned t = 0; t < n; ++t) {
        c.allocs += counts[t].allocs;
        c.failures += counts[t].failures;
        iter_ns.insert(iter_ns.end(), iter[t].begin(), iter[t].end());
      }
      const double elapsed = d.elapsed_s();
      kAllocsPerS.set(m, elapsed > 0 ? static_cast<double>(c.allocs) / elapsed : 0);
      kIterationMedianNs.set(m, run::median_of(iter_ns));
      kIterationStddevPct.set(m, run::stddev_pct_of(iter_ns));
    }
    kIterations.set(m, static_cast<double>(p.iterations));  // per_iteration reference rows divide by it
    kAllocs.set(m, static_cast<double>(c.allocs));
    kAllocFailures.set(m, static_cast<double>(c.failures));
  }
};

// Both loops: `iterations` per CPU (by default `loops`) of `per_loop` blocks.
WorkloadInfo churn_workload(std::string name, std::string description, int64_t loops, config::ParamSpec per_loop,
                            std::function<std::unique_ptr<engine::Program>(const Args&)> make) {
  WorkloadInfo w{
      std::move(name),
      std::move(description),
      {{"iterations", config::ParamType::integer, loops, 1, 1e9, {}, "loops per CPU"},
       std::move(per_loop)},
      run::metric_infos(kIterations, kAllocs, kAllocFailures, kAllocsPerS, kIterationMedianNs, kIterationStddevPct),
      std::move(make),
  };
  w.headline = "allocs_per_s";
  return w;
}

}  // namespace

WorkloadInfo pcp_churn_workload() {
  return churn_workload(
      "pcp_churn",
      "seed 003's mmap/touch/munmap loop as order-0 allocations and frees through the pcp; per-iteration median and stdev",
      200, {"pages", config::ParamType::integer, int64_t{2048}, 1, 1 << 24, {}, "pages touched (allocated) per loop"},
      make_program<Churn<false>>);
}

WorkloadInfo thp_alloc_workload() {
  return churn_workload("thp_alloc", "order-9 THP allocation and free through pcp list 13 (rmqueue_bulk refills of 2 blocks)",
                        2000, {"batch", config::ParamType::integer, int64_t{1}, 1, 1 << 16, {}, "THP blocks allocated, then freed, per loop"},
                        make_program<Churn<true>>);
}

}  // namespace pagesim::workload
