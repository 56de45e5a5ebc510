// The shared body of page_fault1, page_fault2 and page_fault3 (pagesim/workload/page_fault.h):
// their parameters, their task bodies for the native and virtual engines, and the metrics
// they report in will-it-scale's terms. Each test's folder registers it with its mapping.
#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <optional>

#include "pagesim/workload/page_fault.h"
#include "pagesim/workload/program.h"

namespace pagesim::workload {

namespace {

constexpr run::Metric kWillItScaleWorkload{"will-it-scale.workload", "1/s", run::kThreadedEngines,
                                           "pages written per second, all tasks (the harness's total)", true};
constexpr run::Metric kWillItScalePerTaskOps{"will-it-scale.per_task_ops", "1/s", run::kThreadedEngines,
                                             "workload / tasks (LKP's per_process_ops, per_thread_ops)", true};
constexpr run::Metric kWillItScaleMinTaskOps{"will-it-scale.min_task_ops", "1/s", run::kThreadedEngines,
                                             "the slowest task's pages per second (the harness's min)", true};
constexpr run::Metric kWillItScaleMaxTaskOps{"will-it-scale.max_task_ops", "1/s", run::kThreadedEngines,
                                             "the fastest task's pages per second (the harness's max)", true};
constexpr run::Metric kTasks{"tasks", "", run::kThreadedEngines, "will-it-scale tasks run", false, true};
constexpr run::Metric kLoops{"loops", "", run::kThreadedEngines, "measured loops per task (after the tests' short mode)", false, true};
constexpr run::Metric kFaults{"faults", "", run::kThreadedEngines, "page faults (pages written) in the measured loops"};
constexpr run::Metric kDataAllocs{"data_allocs", "", run::kThreadedEngines,
                                  "anonymous pages allocated (page_fault1: zeroed; page_fault2: the COW copies)"};
constexpr run::Metric kCacheAllocs{"cache_allocs", "", run::kThreadedEngines,
                                   "page-cache pages allocated (first touch of the file; none once it is cached)"};
constexpr run::Metric kPtAllocs{"pt_allocs", "", run::kThreadedEngines, "PTE pages allocated (__pte_alloc, one per 512 pages)"};
constexpr run::Metric kPageFrees{"page_frees", "", run::kThreadedEngines, "pages freed by munmap (data and page tables)"};
constexpr run::Metric kFailedAllocs{"failed_allocs", "", run::kThreadedEngines, "allocations that returned no page"};
constexpr run::Metric kTlbIpis{"tlb_ipis", "", run::kThreadedEngines, "TLB-flush IPIs sent (thread mode: to the other threads' CPUs)"};
constexpr run::Metric kLoopPcpRefills{"loop_pcp_refills", "", run::kThreadedEngines,
                                      "pcp refills (rmqueue_bulk) in the measured loops; pcp_refills counts the warm-up too"};
constexpr run::Metric kLoopPcpDrains{"loop_pcp_drains", "", run::kThreadedEngines,
                                     "pcp drains (free_pcppages_bulk) in the measured loops; pcp_drains counts the warm-up too"};
constexpr run::Metric kSpinAllocPct{"spin_alloc_pct", "%", run::kVirtual,
                                    "zone->lock spinning on the allocation path (rmqueue_bulk, rmqueue), % of all vCPU time"};
constexpr run::Metric kSpinFreePct{"spin_free_pct", "%", run::kVirtual,
                                   "zone->lock spinning on the free path (free_pcppages_bulk, free_one_page), % of all vCPU time"};

}  // namespace

void PageFaultCounts::add(const PageFaultCounts& o) {
  faults += o.faults, data_allocs += o.data_allocs, cache_allocs += o.cache_allocs, pt_allocs += o.pt_allocs;
  frees += o.frees, failures += o.failures, tlb_flushes += o.tlb_flushes, tlb_ipis += o.tlb_ipis;
  pcp_refills += o.pcp_refills, pcp_drains += o.pcp_drains;
}

uint64_t cpu_events(const mm::Machine& m, unsigned cpu, mm::vm_event_item item) {
  uint64_t n = 0;
  for (const mm::Zone* z : m.populated_zones()) n += z->cpu[cpu].events[item];
  return n;
}

unsigned wis_cpu(unsigned i, unsigned nodes, unsigned cpus_per_node) {
  const unsigned cores_per_node = std::max(1u, cpus_per_node / 2), cores = cores_per_node * nodes;
  const unsigned core = i % cores, second = (i / cores) % 2;
  return core / cores_per_node * cpus_per_node + 2 * (core % cores_per_node) + second;
}

FaultCosts assumed_fault_costs(double clear_bytes_per_s, uint32_t freq_mhz) {
  const auto cycles_for = [&](double bytes) { return static_cast<uint32_t>(bytes / clear_bytes_per_s * freq_mhz * 1e6); };
  FaultCosts c;
  c.fault = 1000;     // assumed (docs/model.md)
  c.lru_memcg = 200;  // assumed
  c.clear = cycles_for(4096);
  c.copy = cycles_for(2 * 4096);  // assumed: a read and a write stream at the clear rate
  c.lookup = 300;     // assumed
  c.mkwrite = 300;    // assumed
  c.zap = 100;        // assumed
  c.ipi = 500;        // assumed
  return c;
}

namespace {

// One will-it-scale task's result: its counts in the measured loops and how long they took.
struct TaskOut {
  PageFaultCounts counts;
  double ns = 0;
  double spin_alloc_ps = 0, spin_free_ps = 0;  // virtual engine: zone->lock spinning by path
};

// zone->lock spinning of the measured loops by path: allocation (rmqueue_bulk's refills,
// rmqueue's buddy path) and free (free_pcppages_bulk's drains, free_one_page).
void record_spin(VirtualCpu& ex, TaskOut& o) {
  const auto at = [&](Site site) { return static_cast<double>(ex.spin_ps()[static_cast<unsigned>(site)]); };
  o.spin_alloc_ps = at(Site::rmqueue_bulk) + at(Site::rmqueue);
  o.spin_free_ps = at(Site::free_pcppages_bulk) + at(Site::free_one_page);
}

struct Setup {
  PageFaultParams p;
  FaultCosts costs;
  unsigned tasks = 0;
  uint64_t loops = 0, warmup = 0;
  std::vector<int> slot_of;  // per engine task (one per CPU): the will-it-scale task it runs, or -1
};

template <class D>
Setup setup(D& d, const config::Params& params, PfMapping mapping, uint64_t warmup) {
  Setup s;
  s.p.mapping = mapping;
  s.p.pages = static_cast<uint64_t>(params.integer("size")) / mm::PAGE_SIZE;
  s.p.threads = params.string("mode") == "thread";
  s.loops = static_cast<uint64_t>(params.integer("loops"));
  s.warmup = std::max<uint64_t>(1, warmup);
  if (d.short_mode()) s.loops = 1, s.warmup = 1, s.p.pages = std::min<uint64_t>(s.p.pages, 4 * kPtrsPerPte);
  const unsigned cpus = d.nr_cpus();
  const int64_t t = params.integer("tasks");  // at most the CPUs (tasks_problem)
  s.tasks = t == 0 ? cpus : static_cast<unsigned>(t);
  s.slot_of.assign(cpus, -1);
  const mm::Machine& m = d.machine();
  const unsigned per_node = cpus / m.nr_nodes();
  for (unsigned i = 0; i < s.tasks; ++i)
    s.slot_of[is_virtual<D> ? wis_cpu(i, m.nr_nodes(), per_node) : i] = static_cast<int>(i);
  if constexpr (is_virtual<D>) {
    const vt::MachineModel& model = d.model();
    s.costs = assumed_fault_costs(model.clear_bw_bytes_per_s, model.freq_mhz);
  }
  return s;
}

// Every CPU: the will-it-scale task pinned there (if any) runs the warm-up loops (the
// harness's discarded first seconds: the file's page cache is filled), then `loops` measured
// loops; its time is its own, as the harness's per-task counter rates are.
template <class D>
void task_body(D& d, typename D::Exec& ex, const Setup& s, std::vector<TaskOut>& out) {
  const int slot = s.slot_of[ex.task()];
  if (slot < 0) return;
  mm::Mm<typename D::Exec> mm(d.machine(), ex);
  // fork() runs on the CPU the child is pinned to (new_task_affinity): its mm is homed there;
  // the threads share the parent's, on node 0.
  const unsigned mm_id = s.p.threads ? 0 : static_cast<unsigned>(slot), mm_node = s.p.threads ? 0 : ex.node();
  auto task = std::make_unique<PageFaultTask<typename D::Exec>>(mm, ex, s.p, s.costs, mm_id, mm_node, s.p.threads ? s.tasks : 1);
  PageFaultCounts warm;
  d.barrier(ex);
  for (uint64_t i = 0; i < s.warmup; ++i) task->loop(warm);
  d.barrier(ex);
  ex.reset_stats();
  if (slot == 0) d.mark_start(d.now(ex));
  d.counters_start(ex);
  d.leave_start_barrier(ex, 0);
  TaskOut& o = out[static_cast<unsigned>(slot)];
  const double t0 = d.now_ns(ex);
  for (uint64_t i = 0; i < s.loops; ++i) {
    ex.sys_enter();
    task->loop(o.counts);
    ex.sys_exit();
    if (slot == 0) d.progress(d.now(ex), i + 1, s.loops, "loops");
  }
  o.ns = d.now_ns(ex) - t0;
  if constexpr (is_virtual<D>) record_spin(ex, o);
  d.counters_stop(ex);
  d.barrier(ex);
  if (slot == 0) d.mark_end(d.now(ex));
  // Nothing runs after the measured loops, so that the engine's profile and lock_stat cover
  // them alone: the pcp lists are not drained, and the file's page cache stays (the harness
  // is killed with it cached).
}

// The virtual engine's perf-profile split of zone->lock spinning by path, % of all vCPU time
// over the measured phase.
void add_spin_split(engine::VirtualDriver& d, const std::vector<TaskOut>& out) {
  double alloc = 0, free = 0;
  for (const TaskOut& o : out) alloc += o.spin_alloc_ps, free += o.spin_free_ps;
  const double all = static_cast<double>(d.phase_end() - d.phase_start()) * d.nr_cpus();
  auto& m = d.result().metrics;
  kSpinAllocPct.set(m, all > 0 ? 100 * alloc / all : 0);
  kSpinFreePct.set(m, all > 0 ? 100 * free / all : 0);
}

// will-it-scale's figures: each task's operations (pages written) per second, their sum (the
// harness's total, LKP's will-it-scale.workload), per task, min and max.
void add_rates(const Setup& s, const std::vector<TaskOut>& out, run::RunResult& r) {
  std::vector<double> rate;
  PageFaultCounts sum;
  for (const TaskOut& o : out) {
    rate.push_back(o.ns > 0 ? static_cast<double>(o.counts.faults) / (o.ns / 1e9) : 0);
    sum.add(o.counts);
  }
  auto& m = r.metrics;
  const double total = std::accumulate(rate.begin(), rate.end(), 0.0);
  kWillItScaleWorkload.set(m, total);
  kWillItScalePerTaskOps.set(m, rate.empty() ? 0 : total / static_cast<double>(rate.size()));
  kWillItScaleMinTaskOps.set(m, rate.empty() ? 0 : *std::min_element(rate.begin(), rate.end()));
  kWillItScaleMaxTaskOps.set(m, rate.empty() ? 0 : *std::max_element(rate.begin(), rate.end()));
  kTasks.set(m, s.tasks);
  kLoops.set(m, static_cast<double>(s.loops));
  kFaults.set(m, static_cast<double>(sum.faults));
  kDataAllocs.set(m, static_cast<double>(sum.data_allocs));
  kCacheAllocs.set(m, static_cast<double>(sum.cache_allocs));
  kPtAllocs.set(m, static_cast<double>(sum.pt_allocs));
  kPageFrees.set(m, static_cast<double>(sum.frees));
  kFailedAllocs.set(m, static_cast<double>(sum.failures));
  kTlbIpis.set(m, static_cast<double>(sum.tlb_ipis));
  kLoopPcpRefills.set(m, static_cast<double>(sum.pcp_refills));
  kLoopPcpDrains.set(m, static_cast<double>(sum.pcp_drains));
}

template <PfMapping Mapping>
class PageFault : public ProgramOf<PageFault<Mapping>> {
 public:
  using ProgramOf<PageFault<Mapping>>::ProgramOf;

  template <class D>
  void on(D& d) const {
    if constexpr (is_uniprocessor<D>) {
      throw InputError(fmt::format("{}: page fault tests run on the native and virtual engines", d.source()));
    } else {
      const Setup s = setup(d, this->params(), Mapping, this->warmup_ops());
      std::vector<TaskOut> out(s.tasks);
      d.run_tasks(d.nr_cpus(), [&](typename D::Exec& ex) { task_body(d, ex, s, out); });
      add_rates(s, out, d.result());
      if constexpr (is_virtual<D>) add_spin_split(d, out);
    }
  }
};

// will-it-scale pins one task per CPU at most here (the harness would double them up).
std::optional<ParamProblem> tasks_problem(const config::Params& p, const mm::MachineSpec& m) {
  if (static_cast<uint64_t>(p.integer("tasks")) <= m.nr_cpus()) return std::nullopt;
  return ParamProblem{"tasks", fmt::format("{} tasks on {} CPUs: at most one per CPU (0: every CPU)", p.integer("tasks"), m.nr_cpus())};
}

// Each test's name and description.
struct PageFaultTest {
  const char* name;
  const char* description;
};
constexpr PageFaultTest kTests[] = {
    {"page_fault1", "will-it-scale page_fault1: anonymous private 128M, a zeroed page allocated per write fault, freed at munmap"},
    {"page_fault2", "will-it-scale page_fault2: private mapping of a 128M tmp file, a page allocated and copied per write fault"},
    {"page_fault3", "will-it-scale page_fault3: shared mapping of a 128M tmp file, no allocation once it is cached but page tables"},
};

}  // namespace

WorkloadInfo page_fault_workload(PfMapping mapping) {
  const PageFaultTest& test = kTests[static_cast<unsigned>(mapping)];
  using config::ParamType;
  using run::kThreadedEngines;
  WorkloadInfo w{
      test.name,
      test.description,
      {
          {"mode", ParamType::choice, std::string("process"), {}, {}, {"process", "thread"}, "will-it-scale's _processes (an mm each) or _threads (one mm) binary"},
          {"tasks", ParamType::integer, int64_t{0}, 0, 4096, {}, "will-it-scale -t: tasks, one per core first (0: every CPU)"},
          {"size", ParamType::size, int64_t{128} << 20, 2 << 20, int64_t{1} << 40, {}, "bytes mapped per loop (MEMSIZE: 128M)"},
          {"loops", ParamType::integer, int64_t{2}, 1, 1e6, {}, "measured loops per task, after one warm-up loop"},
      },
      run::metric_infos(kWillItScaleWorkload, kWillItScalePerTaskOps, kWillItScaleMinTaskOps, kWillItScaleMaxTaskOps, kTasks, kLoops,
                        kFaults, kDataAllocs, kCacheAllocs, kPtAllocs, kPageFrees, kFailedAllocs, kTlbIpis, kLoopPcpRefills, kLoopPcpDrains,
                        kSpinAllocPct, kSpinFreePct),
      make_program<PageFault<PfMapping::anon_private>>,
  };
  if (mapping == PfMapping::file_private) w.make = make_program<PageFault<PfMapping::file_private>>;
  if (mapping == PfMapping::file_shared) w.make = make_program<PageFault<PfMapping::file_shared>>;
  w.engines = kThreadedEngines;
  w.check = [](const config::Params& p, const mm::MachineSpec& m, const std::string&, const std::string&) { return tasks_problem(p, m); };
  w.headline = "will-it-scale.workload";
  return w;
}

}  // namespace pagesim::workload
