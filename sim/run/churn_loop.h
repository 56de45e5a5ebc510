// The per-CPU pcp_churn / thp_alloc loop of the threaded engines (native, virtual): a warm-up,
// a statistics reset, then timed iterations. Only the clock and the phase start differ.
#pragma once

#include <vector>

#include "pagesim/scenario/scenario.h"
#include "pagesim/workload/churn.h"
#include "workload_params.h"

namespace pagesim::run {

// `barrier()` synchronises all CPUs; `start()` opens the measured phase after the reset;
// `now_ns()` is the engine's clock. Each iteration's duration goes to `iter_ns`.
template <class E, class Barrier, class Start, class Now>
void churn_loop(const scenario::Scenario& sc, bool short_mode, E& ex, mm::Mm<E>& mm, Barrier&& barrier, Start&& start,
                Now&& now_ns, workload::ChurnCounts& counts, std::vector<double>& iter_ns) {
  const workload::ChurnParams p = churn_params(sc, short_mode);
  std::vector<mm::Page*> scratch;
  workload::ChurnCounts warm;
  barrier();
  for (uint64_t i = 0; i < sc.warmup_ops; ++i) workload::churn_iteration(mm, ex, p, scratch, warm);
  barrier();
  ex.reset_stats();
  start();
  for (uint64_t i = 0; i < p.iterations; ++i) {
    const double t = now_ns();
    ex.sys_enter();
    workload::churn_iteration(mm, ex, p, scratch, counts);
    ex.sys_exit();
    iter_ns.push_back(now_ns() - t);
  }
}

}  // namespace pagesim::run
