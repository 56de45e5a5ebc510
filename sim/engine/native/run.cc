// The native engine's runs: one thread per simulated CPU with real locks, the workload run
// through its driver, then lock_stat, IRQ-off times, hardware counters and the access logs'
// replay through the cache model.
#include <fmt/format.h>

#include <memory>

#include "../summaries.h"
#include "cache_replay.h"
#include "pagesim/engine/engine_metrics.h"
#include "pagesim/engine/native/driver.h"
#include "pagesim/engine/registry.h"
#include "pagesim/error.h"

namespace pagesim::engine {

namespace {

constexpr run::Metric kThreads{"threads", "", run::kNative, "CPU threads", false, true};
constexpr run::Metric kHostCpus{"host_cpus", "", run::kNative, "the host's CPUs", false, true};

// The native engine's `engine:` options, as native_engine() declares them.
NativeOptions native_options(const config::Params& p, const std::string& source) {
  NativeOptions o;
  if (!parse_lock_impl(p.string("lock"), &o.lock_impl))
    throw InputError(fmt::format("{}: engine.lock: '{}' is not one of qspinlock|ticket|mutex", source, p.string("lock")));
  o.pin = p.boolean("pin");
  o.oversubscribe = p.boolean("oversubscribe");
  o.lock_stat = p.boolean("lock_stat");
  return o;
}

template <bool Track>
void run_native_t(const RunInput& in, const Program& program) {
  using E = NativeCpu<Track>;
  NativeOptions o = native_options(in.options, in.source);
  o.stop = in.stop;
  NativeEngine eng(in.machine, o);
  const unsigned n = eng.nr_cpus();
  std::vector<std::unique_ptr<E>> cpus;
  for (unsigned c = 0; c < n; ++c) cpus.push_back(std::make_unique<E>(eng, c));
  NativeDriver<Track> d(in, eng, cpus);
  program.run(d);

  run::RunResult& r = in.result;
  auto& m = r.metrics;
  kElapsedS.set(m, d.elapsed_s());
  kThreads.set(m, n);
  kHostCpus.set(m, NativeEngine::host_cpus());
  std::vector<const LockStatTable*> lock_tables;
  IrqOffStat irq;
  AccessCounters acc;
  double sys_ns = 0;
  for (unsigned c = 0; c < n; ++c) {
    lock_tables.push_back(&cpus[c]->lock_stats());
    irq.merge(cpus[c]->irq_off());
    acc += cpus[c]->accesses();
    sys_ns += static_cast<double>(cpus[c]->sys_ns());
    if (d.hw(c))
      for (const auto& [k, v] : d.hw(c)->read()) r.cache.hw[k] += v;
  }
  kSysS.set(m, sys_ns / 1e9);
  r.locks = summarize_locks(lock_tables);
  summarize_irq_off(irq, m);
  r.cache.model = "off (engine.track: false)";
  if (Track) {
    summarize_accesses(acc, r.cache);
    std::vector<const std::vector<LoggedAccess>*> logs;
    for (unsigned c = 0; c < n; ++c) logs.push_back(&cpus[c]->log());
    replay_native_logs(in.machine, logs, r.cache);
  }
  const std::optional<HwCounters>& hw0 = d.hw(0);
  r.cache.hw_available = hw0 && hw0->available();
  r.cache.hw_reason = r.cache.hw_available ? "" : hw0 ? hw0->reason() : "no task ran";
  if (!r.cache.hw_available) r.cache.hw.clear();
  r.notes.push_back(fmt::format("native engine: {} threads on {} host cores, lock {}; timings are host measurements",
                                n, NativeEngine::host_cpus(), lock_impl_name(eng.locks().impl())));
  if (eng.oversubscribed())
    r.notes.push_back("oversubscribed: more CPUs than host cores; a blocking mutex replaced spinning and the "
                      "contention figures include host scheduling");
}

}  // namespace

void run_native(const RunInput& in, const Program& program) {
  if (in.options.boolean("track"))
    run_native_t<true>(in, program);
  else
    run_native_t<false>(in, program);
}

std::vector<run::MetricInfo> native_metrics() { return run::metric_infos(kThreads, kHostCpus); }

EngineInfo native_engine() {
  using config::ParamType;
  EngineInfo e{
      "native",
      "one OS thread per CPU, real locks and memory; lock_stat, IRQ-off times, host timings",
      run::kNative,
      {
          {"lock", ParamType::choice, std::string("qspinlock"), {}, {}, {"qspinlock", "ticket", "mutex"}, "the zone and hugetlb locks' implementation"},
          {"pin", ParamType::boolean, false, {}, {}, {}, "pin CPU i's thread to host CPU i % host CPUs"},
          {"oversubscribe", ParamType::boolean, false, {}, {}, {}, "allow more CPUs than host cores (forces the mutex)"},
          {"track", ParamType::boolean, true, {}, {}, {}, "count and log cache-line accesses for the cache model"},
          {"lock_stat", ParamType::boolean, true, {}, {}, {}, "keep lock_stat and IRQ-off statistics (off: plain locks, no rdtsc)"},
      },
      run_native,
  };
  e.owns_host = true;
  // The CPUs against the host's cores.
  e.check = [](const mm::MachineSpec& spec, const config::Params& o, const vt::MachineModel*, const std::string& source) {
    NativeEngine::check_cpus(spec.nr_cpus(), native_options(o, source).oversubscribe);
  };
  // In every resolved scenario, whichever engine it names: the results' scenario.engine has
  // always carried them.
  e.resolves = [](const std::string&, const config::Params&, const std::string&) { return true; };
  return e;
}

}  // namespace pagesim::engine
