// The uniprocessor engine's runs: the whole workload on the calling thread, deterministic;
// accesses are counted (no cache model, no time model: timings are host wall time).
#include <string>

#include "../summaries.h"
#include "pagesim/engine/engine_metrics.h"
#include "pagesim/engine/registry.h"
#include "pagesim/engine/uniprocessor/driver.h"

namespace pagesim::engine {

namespace {

void fill_locks(const UniprocessorExec<true>& ex, run::RunResult& r) {
  for (LockClass cls : {LockClass::zone_lock, LockClass::hugetlb_lock}) {
    const LockCounters& lc = ex.lock_counters(cls);
    if (!lc.acquisitions) continue;
    run::LockStat ls;
    ls.name = std::string(lock_class_name(cls));
    ls.instance = "all";
    ls.acquisitions = lc.acquisitions;
    for (unsigned s = 0; s < kNumSites; ++s)
      if (lc.by_site[s]) ls.acquisition_points[std::string(site_name(static_cast<Site>(s)))] = lc.by_site[s];
    r.locks.push_back(std::move(ls));
  }
}

}  // namespace

void run_uniprocessor(const RunInput& in, const Program& program) {
  UniprocessorExec<true> ex(in.machine);
  ex.set_stop(in.stop);
  UniprocessorDriver d(in, ex);
  program.run(d);
  run::RunResult& r = in.result;
  kElapsedS.set(r.metrics, d.elapsed_s());
  r.cache.model = "line-access counts (uniprocessor engine: no cache model)";
  r.cache.hw_reason = "not read by the uniprocessor engine";
  summarize_accesses(ex.accesses(), r.cache);
  fill_locks(ex, r);
}

EngineInfo uniprocessor_engine() {
  return {"uniprocessor", "one host thread plays every CPU in turn; deterministic; access counts, no timing model",
          run::kUniprocessor, {}, run_uniprocessor};
}

}  // namespace pagesim::engine
