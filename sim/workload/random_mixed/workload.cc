// random_mixed: mixed-order alloc/free with injected bad pages, invariants checked as it runs.
// Its parameters, its bodies for every engine and the metrics it reports.
#include <algorithm>

#include "pagesim/workload/program.h"
#include "pagesim/workload/random_mixed.h"
#include "pagesim/workload/registry.h"

namespace pagesim::workload {

namespace {

constexpr run::Metric kOps{"ops", "", run::kUniprocessor, "the ops parameter (after the tests' short mode)", false, true};
constexpr run::Metric kAllocs{"allocs", "", run::kAllEngines, "blocks allocated"};
constexpr run::Metric kFrees{"frees", "", run::kAllEngines, "blocks freed, those released at the end included"};
constexpr run::Metric kAllocFailures{"alloc_failures", "", run::kAllEngines, "allocations that returned no page"};
constexpr run::Metric kFaultsInjected{"faults_injected", "", run::kAllEngines, "struct pages corrupted by fault injection"};
constexpr run::Metric kOpsPerS{"ops_per_s", "1/s", run::kAllEngines, "(allocs + frees) / elapsed_s", true};

RandomMixedParams read_params(const config::Params& p, uint64_t seed, bool short_mode) {
  RandomMixedParams r;
  r.ops = static_cast<uint64_t>(p.integer("ops"));
  if (short_mode) r.ops = std::min<uint64_t>(r.ops, 5000);
  r.seed = seed;
  r.free_fraction = p.number("free_fraction");
  r.max_live_pages = static_cast<uint64_t>(p.integer("max_live")) / mm::PAGE_SIZE;
  r.fault_rate = p.number("fault_rate");
  r.fault.field = *mm::parse_fault_field(p.string("fault_field"));
  r.fault.subpage = static_cast<int>(p.integer("fault_subpage"));
  r.fault_on_pcp = p.number("fault_on_pcp");
  r.check_every = static_cast<uint64_t>(p.integer("check_every"));
  return r;
}

constexpr uint64_t kSysBracket = 1024;

// One task per CPU: chunks of operations between two barriers, where task 0 injects the faults
// due and checks invariants while the others wait (a quiescent point).
template <class D>
void task_body(D& d, typename D::Exec& ex, const RandomMixedParams& p, unsigned n, RandomMixedResult& out) {
  using E = typename D::Exec;
  mm::Machine& m = d.machine();
  mm::Mm<E> mm(m, ex);
  const unsigned self = ex.task();
  const uint64_t cap = (p.max_live_pages ? p.max_live_pages : m.spec().total_pages() / 2) / n;
  const uint64_t per_cpu = p.ops / n;
  const uint64_t chunk = p.check_every ? std::max<uint64_t>(1, p.check_every / n) : per_cpu;
  RandomMixedWorker<E> w(p, self, cap);
  Rng fault_rng(p.seed, 0x6661756c00000000ull);
  d.barrier(ex);
  if (self == 0) d.mark_start(d.now(ex));
  d.counters_start(ex);
  for (uint64_t done = 0; done < per_cpu;) {
    const uint64_t k = std::min(chunk, per_cpu - done);
    // System time in brackets of at most kSysBracket steps: each sys_exit is a safe point.
    for (uint64_t i = 0; i < k;) {
      const uint64_t end = std::min(k, i + kSysBracket);
      ex.sys_enter();
      for (; i < end; ++i) w.step(mm, ex, out);
      ex.sys_exit();
      if (self == 0) d.progress(d.now(ex), (done + i) * n, per_cpu * n, "ops");
    }
    done += k;
    d.barrier(ex);
    if (self == 0) {
      out.faults_injected += random_mixed_inject(m, p, fault_rng, k * n);
      if (p.check_every) random_mixed_check(m, done * n, out);
    }
    d.barrier(ex);
  }
  if (self == 0) d.mark_end(d.now(ex));
  d.counters_stop(ex);
  w.release_all(mm, out);
  mm.drain_local_pages();
}

class RandomMixed : public ProgramOf<RandomMixed> {
 public:
  using ProgramOf::ProgramOf;

  template <class D>
  void on(D& d) const {
    const RandomMixedParams p = read_params(params(), d.seed(), d.short_mode());
    RandomMixedResult total;
    if constexpr (is_uniprocessor<D>) {
      // One task that picks a random CPU for every operation.
      d.mark_start(d.now());
      total = run_random_mixed(d.machine(), d.exec(), p, [&](uint64_t done) { d.progress(d.now(), done, p.ops, "ops"); });
      d.mark_end(d.now());
    } else {
      const unsigned n = d.nr_cpus();
      std::vector<RandomMixedResult> outs(n);
      d.run_tasks(n, [&](typename D::Exec& ex) { task_body(d, ex, p, n, outs[ex.task()]); });
      for (const RandomMixedResult& o : outs) total += o;
    }
    run::RunResult& r = d.result();
    auto& m = r.metrics;
    const double elapsed = d.elapsed_s();
    if constexpr (is_uniprocessor<D>) kOps.set(m, static_cast<double>(p.ops));
    kAllocs.set(m, static_cast<double>(total.allocs));
    kFrees.set(m, static_cast<double>(total.frees));
    kAllocFailures.set(m, static_cast<double>(total.alloc_failures));
    kFaultsInjected.set(m, static_cast<double>(total.faults_injected));
    kOpsPerS.set(m, elapsed > 0 ? static_cast<double>(total.allocs + total.frees) / elapsed : 0);
    r.invariant_checks += total.invariant_checks;
    r.violations.insert(r.violations.end(), total.violations.begin(), total.violations.end());
  }
};

}  // namespace

WorkloadInfo random_mixed_workload() {
  using config::ParamType;
  WorkloadInfo w{
      "random_mixed",
      "mixed-order alloc/free on random CPUs with injected bad pages; invariants checked as it runs",
      {
          {"ops", ParamType::integer, int64_t{200000}, 1, 1e12, {}, "allocation or free operations"},
          {"free_fraction", ParamType::number, 0.5, 0, 1, {}, "probability that an operation frees a live block"},
          {"max_live", ParamType::size, int64_t{0}, 0, 1e18, {}, "cap on live allocated memory (0: half the machine)"},
          {"fault_rate", ParamType::number, 0.0, 0, 1, {}, "bad pages injected per operation"},
          {"fault_field", ParamType::choice, std::string("refcount"), {}, {},
           {"refcount", "mapcount", "mapping", "flags", "memcg"}, "struct page field to corrupt"},
          {"fault_subpage", ParamType::integer, int64_t{-1}, -1, 1023, {}, "page of the block to corrupt: 0 head, k tail k, -1 random"},
          {"fault_on_pcp", ParamType::number, 0.3, 0, 1, {}, "share of faults aimed at pcp lists rather than buddy lists"},
          {"check_every", ParamType::integer, int64_t{10000}, 0, 1e12, {}, "operations between invariant checks (0: at the end)"},
      },
      run::metric_infos(kOps, kAllocs, kFrees, kAllocFailures, kFaultsInjected, kOpsPerS),
      make_program<RandomMixed>,
  };
  w.headline = "ops_per_s";
  return w;
}

}  // namespace pagesim::workload
