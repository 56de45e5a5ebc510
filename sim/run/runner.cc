#include "pagesim/run/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <limits>
#include <mutex>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <thread>
#include <utility>

#include "pagesim/engine/registry.h"
#include "pagesim/engine/virtual/metrics.h"
#include "pagesim/error.h"
#include "pagesim/mm/invariants.h"
#include "pagesim/mm/memmap.h"
#include "pagesim/mm/page.h"
#include "pagesim/rng.h"
#include "pagesim/run/reuse.h"
#include "pagesim/workload/registry.h"

namespace pagesim::run {

namespace {

const engine::EngineInfo& engine_info(const scenario::Scenario& sc) {
  if (const engine::EngineInfo* e = engine::find_engine(sc.engine)) return *e;
  throw InputError(fmt::format("{}: engine '{}' is not available", sc.file, sc.engine));
}

// The scenario's machine model when its engine uses one (scenario::load loaded it), else null.
const vt::MachineModel* machine_model(const scenario::Scenario& sc, const engine::EngineInfo& e) {
  if (!e.uses_machine_model) return nullptr;
  if (!sc.machine_model) throw std::logic_error(fmt::format("{}: the {} engine needs Scenario::machine_model", sc.file, e.name));
  return sc.machine_model.get();
}

}  // namespace

std::vector<std::string> engine_names() {
  std::vector<std::string> names;
  for (const engine::EngineInfo& e : engine::registered_engines()) names.push_back(e.name);
  return names;
}

namespace {

// The metrics every run reports (collect_common, validity_flags).
constexpr Metric kPcpRefills{"pcp_refills", "", kAllEngines, "rmqueue_bulk calls that refilled a pcp list (vmstat pcp_refill)"};
constexpr Metric kPcpDrains{"pcp_drains", "", kAllEngines, "free_pcppages_bulk calls (vmstat pcp_drain)"};
constexpr Metric kBadPages{"bad_pages", "", kAllEngines, "bad_page() reports"};
constexpr Metric kLeakedPages{"leaked_pages", "", kAllEngines, "pages abandoned after a failed check"};
constexpr Metric kNrFreePagesDrift{"nr_free_pages_drift", "pages", kAllEngines,
                                   "leaked pages still counted in NR_FREE_PAGES (the v5.17 bug)"};
constexpr Metric kZoneBelowLowWmark{"valid.zone_below_low_wmark", "", kAllEngines,
                                    "1 if an allocation failed the low-watermark pass or a zone ends below it", false, true};
constexpr Metric kSlowpathEntered{"valid.slowpath_entered", "", kAllEngines, "__alloc_pages_slowpath entries", false, true};
constexpr Metric kRemoteFallback{"valid.remote_fallback", "", kAllEngines,
                                 "numa_miss: allocations served by another node than the preferred one", false, true};
constexpr Metric kCausalitySlack{"valid.causality_slack", "", kAllEngines, "accesses run ahead of the next clock (virtual engine)", false,
                                 true, true};
constexpr Metric kModelValid{"model_valid", "", kAllEngines, "1 when every valid.* flag is 0", false, true, true};

}  // namespace

const std::vector<MetricInfo>& metric_table() {
  static const std::vector<MetricInfo> kTable = [] {
    std::vector<MetricInfo> t = metric_infos(kPcpRefills, kPcpDrains, kBadPages, kLeakedPages, kNrFreePagesDrift, kZoneBelowLowWmark,
                                             kSlowpathEntered, kRemoteFallback, kCausalitySlack, kModelValid);
    for (MetricInfo& i : t) i.owner = "runner";
    for (const MetricInfo& i : engine::engine_metrics()) t.push_back(i);
    for (const workload::WorkloadInfo& w : workload::registered_workloads()) t.insert(t.end(), w.metrics.begin(), w.metrics.end());
    return t;
  }();
  return kTable;
}

const MetricInfo* find_metric(std::string_view name) {
  for (const MetricInfo& m : metric_table())
    if (metric_matches(m, name)) return &m;
  return nullptr;
}

namespace {

void add_warning(std::vector<Warning>& warnings, const char* name, std::string text) {
  for (const Warning& w : warnings)
    if (w.text == text) return;
  warnings.push_back(Warning{name, std::move(text)});
}

// The knobs a variant sets away from its preset's value that its profile never reads.
void ignored_knobs(const scenario::Scenario& sc, std::vector<Warning>& warnings) {
  for (const scenario::Variant& v : sc.variants) {
    const std::optional<mm::KernelConfig> preset = mm::preset_config(v.config.preset);
    const std::string profile = mm::get_knob(v.config, "profile");
    for (const mm::KnobInfo& k : mm::knob_infos())
      if (preset && k.ignored_by == profile && mm::get_knob(v.config, k.name) != mm::get_knob(*preset, k.name))
        add_warning(warnings, "ignored-knob",
                    fmt::format("{}: variant '{}' sets {}={}, but its kernel profile {} never reads it", sc.file, v.name, k.name,
                                mm::get_knob(v.config, k.name), profile));
  }
}

// The `engine:` options set away from their defaults that the chosen engine does not declare.
void ignored_engine_keys(const scenario::Scenario& sc, const engine::EngineInfo& chosen, std::vector<Warning>& warnings) {
  for (const engine::EngineInfo& other : engine::registered_engines()) {
    if (&other == &chosen) continue;
    for (const config::ParamSpec& o : other.options)
      if (sc.engine_options.values().at(o.name) != o.default_value)
        add_warning(warnings, "ignored-engine-key",
                    fmt::format("{}: engine.{} is set, but the {} engine ignores it", sc.file, o.name, chosen.name));
  }
}

}  // namespace

std::vector<Warning> preflight(const scenario::ScenarioSet& set) {
  std::vector<Warning> warnings;
  for (const scenario::Scenario& sc : set) {
    const engine::EngineInfo& e = engine_info(sc);
    try {
      // Without deferred struct-page init every section is built at boot (Machine).
      for (const scenario::Variant& v : sc.variants)
        if (!v.config.deferred_struct_page_init) mm::Memmap::check_fits(sc.machine.total_pages(), mm::HostMemory::probe());
      const vt::MachineModel* model = machine_model(sc, e);
      if (e.check) e.check(sc.machine, sc.engine_options, model, sc.file);
      const workload::WorkloadInfo* w = workload::find_workload(sc.workload);
      if (model) {
        if (w && w->check_model) w->check_model(sc.params, *model, sc.file);
        if (const engine::VirtualTopology t = engine::virtual_topology(sc.machine, *model); !t.warning.empty())
          add_warning(warnings, "topology-oversubscribed", fmt::format("{}: {}", sc.file, t.warning));
      }
    } catch (const InputError& err) {
      const std::string what = err.what();
      if (what.starts_with(sc.file)) throw;
      throw InputError(fmt::format("{}: {}", sc.file, what));  // name the scenario the check was for
    }
    ignored_engine_keys(sc, e, warnings);
    ignored_knobs(sc, warnings);
  }
  return warnings;
}

uint64_t repeat_seed(uint64_t seed, unsigned repeat) {
  uint64_t x = seed + repeat * 0x632be59bd9b4e019ull;
  return repeat == 0 ? seed : splitmix64(x);
}

namespace {

// The model's assumptions for reclaim-free, fallback-free, causally exact runs (docs/output.md,
// "Validity flags"):
// each flag is 0 when the assumption held; model_valid is 1 when all held.
void validity_flags(const mm::Machine& m, const uint64_t* ev, RunResult& r) {
  bool below_low = ev[mm::ALLOC_SLOWPATH] > 0;  // the low-watermark pass failed
  for (const mm::Zone* z : m.populated_zones())
    below_low |= mm::zone_census(*z).nr_free_pages < static_cast<long>(z->low_wmark_pages());
  const std::pair<const Metric*, double> flags[] = {
      {&kZoneBelowLowWmark, below_low ? 1 : 0},
      {&kSlowpathEntered, static_cast<double>(ev[mm::ALLOC_SLOWPATH])},
      {&kRemoteFallback, static_cast<double>(ev[mm::NUMA_MISS])},
      {&kCausalitySlack, engine::kCausalitySlackAccesses.get_or(r.metrics, 0)},
  };
  bool ok = true;
  for (const auto& [flag, value] : flags) {
    flag->set(r.metrics, value);
    if (value) {
      ok = false;
      r.notes.push_back(fmt::format("validity: {} = {} (outside the model's assumptions: no reclaim, no remote "
                                    "fallback, strict causality)",
                                    flag->name, value));
    }
  }
  kModelValid.set(r.metrics, ok ? 1 : 0);
}

// The counters every engine shares: zones, vmstat events, invariants, bad pages, backing.
void collect_common(const mm::Machine& m, RunResult& r) {
  uint64_t ev[mm::NR_VM_EVENT_ITEMS] = {};
  for (const mm::Zone* z : m.populated_zones()) {
    r.zones.push_back(mm::zone_census(*z));
    for (unsigned c = 0; c < m.nr_cpus(); ++c) {
      for (unsigned i = 0; i < mm::NR_VM_EVENT_ITEMS; ++i) ev[i] += z->cpu[c].events[i];
      const mm::PerCpuPages& p = z->pcp(c);
      r.pcp.push_back(PcpSetting{z->node, z->idx, c, p.count, p.high, p.batch, p.high_min, p.high_max});
    }
  }
  long nr_free = 0;
  for (const mm::ZoneCensus& c : r.zones) nr_free += c.nr_free_pages;
  r.vmstat["nr_free_pages"] = static_cast<uint64_t>(nr_free);
  for (unsigned i = 0; i < mm::NR_VM_EVENT_ITEMS; ++i) r.vmstat[std::string(mm::vm_event_name(i))] = ev[i];
  kPcpRefills.set(r.metrics, static_cast<double>(ev[mm::PCP_REFILL]));
  kPcpDrains.set(r.metrics, static_cast<double>(ev[mm::PCP_DRAIN]));
  kBadPages.set(r.metrics, static_cast<double>(ev[mm::BAD_PAGE]));
  kLeakedPages.set(r.metrics, static_cast<double>(ev[mm::LEAKED_PAGES]));
  long unaccounted = 0;
  for (const mm::ZoneCensus& c : r.zones) unaccounted += c.leaked_unaccounted;
  kNrFreePagesDrift.set(r.metrics, static_cast<double>(unaccounted));
  validity_flags(m, ev, r);
  run::check_invariants_into(m, r.invariant_checks, r.violations);
  for (const mm::BadPageReport& b : m.bad_page_reports())
    r.bad_page_reports.push_back(fmt::format("{}", fmt::join(b.kernel_log(), "\n")));
  if (m.bad_pages_suppressed())
    r.bad_page_reports.push_back(fmt::format("BUG: Bad page state: {} messages suppressed", m.bad_pages_suppressed()));
  r.variant_reads = m.variant_reads();
  r.memmap_backing = fmt::format("{}; {} MiB resident of {} MiB reserved", m.memmap().backing_note(),
                                 m.memmap().resident_bytes() >> 20, m.memmap().reserved_bytes() >> 20);
}

}  // namespace

RunResult run_one(const scenario::Scenario& sc, size_t variant_index, unsigned repeat, const RunOptions& opt) {
  const scenario::Variant& v = sc.variants.at(variant_index);
  const engine::EngineInfo* eng = &engine_info(sc);
  const workload::WorkloadInfo* w = workload::find_workload(sc.workload);
  if (!w) throw InputError(fmt::format("{}: workload '{}' is not registered", sc.file, sc.workload));
  RunResult r;
  r.variant = v.name;
  r.engine = sc.engine;
  r.repeat = repeat;
  r.seed = repeat_seed(sc.seed, repeat);
  r.sweep_key = sc.sweep.key;
  r.sweep_value = sc.sweep.value;
  const auto t0 = std::chrono::steady_clock::now();
  mm::Machine m(sc.machine, v.config);
  if (opt.progress) opt.progress(Progress{v.name, repeat, sc.repeats, "measure", 0});
  const std::unique_ptr<engine::Program> program = w->make(workload::Args{sc.params, sc.warmup_ops});
  engine::RunInput in{m, r.seed, opt.short_mode, sc.engine_options, machine_model(sc, *eng), sc.file, r, StopRequest{opt.interrupt}};
  if (w->check_model) in.check_model = [&](const vt::MachineModel& model) { w->check_model(sc.params, model, sc.file); };
  if (opt.progress)
    in.progress = [&](const engine::RunProgress& p) {
      opt.progress(Progress{v.name, repeat, sc.repeats, "measure", p.total ? static_cast<double>(p.done) / static_cast<double>(p.total) : 0,
                            std::string(p.what), p.done, p.total, p.virtual_s});
    };
  try {
    eng->run(in, *program);
  } catch (const Interrupted&) {
    // A partial run: the model stopped between two operations, but on the virtual engine other
    // tasks may be inside one, so neither invariants nor metrics of the whole run apply.
    r.interrupted = true;
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
  }
  collect_common(m, r);
  if (opt.capture) opt.capture(m, r);
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (opt.progress) opt.progress(Progress{v.name, repeat, sc.repeats, "done", 1});
  return r;
}

unsigned memory_jobs(const scenario::ScenarioSet& set) {
  uint64_t need = 0;
  for (const scenario::Scenario& sc : set)
    need = std::max<uint64_t>(need, sc.machine.total_pages() * sizeof(mm::Page) + (256u << 20));
  const uint64_t avail = mm::HostMemory::probe().mem_available_bytes;
  if (!avail || !need) return std::numeric_limits<unsigned>::max();
  return static_cast<unsigned>(std::clamp<uint64_t>(avail / need, 1, std::numeric_limits<unsigned>::max()));
}

size_t total_runs(const scenario::ScenarioSet& set) {
  size_t n = 0;
  for (const scenario::Scenario& sc : set) n += size_t{sc.repeats} * sc.variants.size();
  return n;
}

unsigned auto_jobs(const scenario::ScenarioSet& set) {
  const uint64_t runs = total_runs(set);
  const uint64_t jobs = std::min<uint64_t>({std::max(1u, std::thread::hardware_concurrency()), memory_jobs(set), runs});
  return static_cast<unsigned>(std::clamp<uint64_t>(jobs, 1, std::numeric_limits<unsigned>::max()));
}

std::vector<RunResult> run_all(const scenario::ScenarioSet& set, const RunOptions& opt) {
  using Job = ReusePlan::Job;  // scenario (in the set), variant, repeat
  std::vector<Job> jobs;
  size_t index = 0;
  for (size_t i = 0; i < set.size(); ++i)
    for (unsigned rep = 0; rep < set[i].repeats; ++rep)
      for (size_t v = 0; v < set[i].variants.size(); ++v)
        if (opt.shard.holds(index++)) jobs.push_back({i, v, rep});
  const bool owns_host = std::any_of(set.begin(), set.end(), [](const scenario::Scenario& sc) {
    const engine::EngineInfo* e = engine::find_engine(sc.engine);
    return e && e->owns_host;
  });
  // An explicit count is still held to what host memory holds: each run has its own memmap.
  const unsigned asked = opt.jobs ? std::min(opt.jobs, memory_jobs(set)) : auto_jobs(set);
  const unsigned workers = owns_host ? 1 : std::max(1u, std::min<unsigned>(asked, static_cast<unsigned>(jobs.size())));

  // The callbacks see one run at a time.
  std::mutex callbacks;
  RunOptions serial = opt;
  if (opt.progress)
    serial.progress = [&](const Progress& p) {
      std::lock_guard<std::mutex> g(callbacks);
      opt.progress(p);
    };
  if (opt.capture)
    serial.capture = [&](const mm::Machine& m, RunResult& r) {
      std::lock_guard<std::mutex> g(callbacks);
      opt.capture(m, r);
    };

  // Runs start variant by variant, the repeats of one side by side: they cost about the same,
  // so the workers finish together. Started in run order (repeat by repeat), the shipped
  // comparison's last run began while the other worker idled for 6.6 s of 39 (its variants
  // differ by a fifth). The results stay in run order.
  std::vector<size_t> order(jobs.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::pair(jobs[a].scenario, jobs[a].variant) < std::pair(jobs[b].scenario, jobs[b].variant);
  });

  std::vector<std::optional<RunResult>> done(jobs.size());
  std::vector<std::exception_ptr> errors(jobs.size());
  ReusePlan reuse(set, jobs, opt.reuse);  // twins are earlier variants: started first (the order above)
  auto stopped = [&] { return opt.interrupt && opt.interrupt->load(); };
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t k; (k = next.fetch_add(1)) < jobs.size();) {
      const size_t i = order[k];
      const Job& job = jobs[i];
      try {
        if (!stopped()) {
          if (std::optional<RunResult> r = reuse.take(i, done)) {
            done[i] = std::move(r);
            if (serial.progress) serial.progress(Progress{done[i]->variant, job.repeat, set[job.scenario].repeats, "done", 1});
          } else if (!stopped()) {
            done[i] = run_one(set[job.scenario], job.variant, job.repeat, serial);
          }
        }
      } catch (...) {
        errors[i] = std::current_exception();
        next = jobs.size();  // start nothing new
      }
      reuse.settle(i);  // a job waits only for earlier ones in `order`, all taken by now
      if (errors[i] || stopped()) return;
    }
  };
  std::vector<std::thread> threads;
  for (unsigned w = 1; w < workers; ++w) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();

  std::vector<RunResult> runs;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (errors[i]) std::rethrow_exception(errors[i]);  // the first failure in run order
    if (!done[i]) break;
    runs.push_back(std::move(*done[i]));
  }
  return runs;
}

}  // namespace pagesim::run
