// usemem: vm-scalability's case-anon-w-rand-hugetlb (pagesim/workload/usemem.h). Its
// parameters, its bodies for every engine and the metrics it reports.
#include <fmt/format.h>

#include <memory>
#include <optional>

#include "pagesim/engine/virtual/metrics.h"
#include "pagesim/engine/virtual/numa_balancing.h"
#include "pagesim/mm/hugetlb.h"
#include "pagesim/vt/memory_traffic.h"
#include "pagesim/vt/memory_model.h"
#include "pagesim/workload/program.h"
#include "pagesim/workload/registry.h"
#include "usemem_metrics.h"
#include "usemem_params.h"

namespace pagesim::workload {

namespace {

// The metrics its engine bodies count here; usemem_metrics() counts the rest.
constexpr run::Metric kDataScale{"data_scale", "", run::kUniprocessor | run::kNative, "the host data region is SIZE / data_scale", false,
                                 true};
constexpr run::Metric kSizeBytes{"size_bytes", "B", run::kAllEngines, "per-task SIZE", false, true};
constexpr run::Metric kNrTask{"nr_task", "", run::kVirtual, "usemem -n", false, true};
constexpr run::MetricPattern<2> kStoreDramUtilNodeIt{"store_dram_util_node{n}_it{i}", "", run::kVirtual,
                                                     "node n's memory controller utilisation (busiest station) with iteration i's store "
                                                     "loops all running"};
constexpr run::MetricPattern<2> kStoreDramTransactionsNodeIt{"store_dram_transactions_node{n}_it{i}", "1/s", run::kVirtual,
                                                             "DRAM transactions homed on node n, same fixed point"};
constexpr run::MetricPattern<2> kStoreDirectoryWritesNodeIt{"store_directory_writes_node{n}_it{i}", "1/s", run::kVirtual,
                                                            "directory writes among them (remote RFOs on a machine with "
                                                            "directory_writes), same fixed point"};
constexpr run::MetricPattern<2> kStoreLocalNsNodeIt{"store_local_ns_node{n}_it{i}", "ns", run::kVirtual,
                                                    "loaded latency of a local miss on node n, iteration i"};
constexpr run::MetricPattern<2> kStoreRemoteNsNodeIt{"store_remote_ns_node{n}_it{i}", "ns", run::kVirtual,
                                                     "loaded latency of a remote miss to node n, iteration i"};
constexpr run::MetricPattern<2> kHugepagesSurpNodeIt{"hugepages_surp_node{n}_it{i}", "pages", run::kVirtual,
                                                     "HugePages_Surp of node n once every task of iteration i faulted"};
constexpr run::MetricPattern<2> kHugepagesSurpAfterMmapNodeIt{"hugepages_surp_after_mmap_node{n}_it{i}", "pages", run::kVirtual,
                                                              "HugePages_Surp of node n when iteration i's last mmap (reservation) "
                                                              "returned"};
constexpr run::Metric kMemoryModelSolves{"memory_model_solves", "", run::kVirtual,
                                         "re-solves of the memory model as loops and clears start, move and end"};

// The seed of task t's iteration `it`.
uint64_t task_seed(const UsememSetup& s, uint64_t it, unsigned t) { return s.task.seed + it * 1000003 + t; }

// munmap, timed with the host clock into free_usecs (the uniprocessor and native engines).
template <class E>
void timed_munmap(UsememTask<E>& task) {
  const uint64_t f0 = now_ns();
  task.munmap();
  task.result().free_usecs = (now_ns() - f0) / 1000;
}

// The uniprocessor engine: the tasks' phases interleave as on a big box: every task mmaps
// (reserves), then every task faults, stores and unmaps, one CPU after the other.
void run_interleaved(engine::UniprocessorDriver& d, const config::Params& params, const UsememChoices& choices) {
  using E = engine::UniprocessorDriver::Exec;
  E& ex = d.exec();
  const unsigned n = d.nr_cpus();
  const UsememSetup s = usemem_setup(d.machine(), params, choices, n, d.seed(), d.short_mode());
  d.mark_start(d.now());
  mm::Mm<E> mm(d.machine(), ex);
  mm::Hugetlb<E> h(mm);
  h.set_overcommit(s.overcommit);
  if (s.task.surplus_policy) h.set_surplus_policy(&s.task.policy);
  std::vector<std::unique_ptr<DataRegion>> data;
  for (unsigned t = 0; t < n; ++t) data.push_back(std::make_unique<DataRegion>(s.data_bytes));
  std::vector<std::vector<UsememTaskResult>> results;
  run::RunResult& r = d.result();
  for (uint64_t it = 0; it < s.iterations; ++it) {
    std::vector<UsememParams> params_of(n, s.task);
    std::vector<std::unique_ptr<UsememTask<E>>> tasks;
    const uint64_t t_start = now_ns();
    for (unsigned t = 0; t < n; ++t) {
      params_of[t].seed = task_seed(s, it, t);
      tasks.push_back(std::make_unique<UsememTask<E>>(h, ex, params_of[t], *data[t]));
    }
    auto each = [&](auto&& fn) {
      for (unsigned t = 0; t < n; ++t) {
        ex.set_cpu(t);
        ex.set_task(t);
        fn(*tasks[t]);
      }
    };
    each([](auto& task) { task.mmap(); });
    each([](auto& task) { task.fault_all(); });
    each([&](auto& task) {
      task.store_loop();
      usemem_finish(task.result(), now_ns() - t_start);
    });
    each([](auto& task) { timed_munmap(task); });
    results.emplace_back();
    for (auto& task : tasks) results.back().push_back(task->result());
    run::check_invariants_into(d.machine(), r.invariant_checks, r.violations);
    d.progress(d.now(), it + 1, s.iterations, "iterations");
  }
  for (unsigned cpu = 0; cpu < n; ++cpu) {
    ex.set_cpu(cpu);
    mm.drain_local_pages();
  }
  usemem_metrics(results, d.machine().nr_nodes(), r);
  r.workload_result = std::make_shared<const UsememResult>(usemem_placements(results));
  kDataScale.set(r.metrics, static_cast<double>(s.task.data_scale));
  kSizeBytes.set(r.metrics, static_cast<double>(s.task.size));
  d.mark_end(d.now());
}

// The native engine: one task per CPU thread, usemem's start barrier before every iteration,
// real stores into a host data region.
template <bool Track>
void run_native(engine::NativeDriver<Track>& d, const config::Params& params, const UsememChoices& choices) {
  using E = typename engine::NativeDriver<Track>::Exec;
  const unsigned n = d.nr_cpus();
  const UsememSetup s = usemem_setup(d.machine(), params, choices, n, d.seed(), d.short_mode());
  run::RunResult& r = d.result();
  std::vector<std::vector<UsememTaskResult>> results(s.iterations, std::vector<UsememTaskResult>(n));
  d.run_tasks(n, [&](E& ex) {
    mm::Mm<E> mm(d.machine(), ex);
    mm::Hugetlb<E> h(mm);
    if (s.task.surplus_policy) h.set_surplus_policy(&s.task.policy);
    if (ex.task() == 0) h.set_overcommit(s.overcommit);
    DataRegion data(s.data_bytes);
    for (uint64_t it = 0; it < s.iterations; ++it) {
      UsememParams p = s.task;
      p.seed = task_seed(s, it, ex.task());
      d.barrier(ex);  // usemem's start barrier: every task mmaps at once
      const uint64_t t_start = now_ns();
      if (ex.task() == 0 && it == 0) d.mark_start(d.now(ex));
      d.counters_start(ex);
      UsememTask<E> task(h, ex, p, data);
      task.mmap();
      task.fault_all();
      task.store_loop();
      UsememTaskResult& tr = task.result();
      usemem_finish(tr, now_ns() - t_start);
      timed_munmap(task);
      results[it][ex.task()] = tr;
      d.counters_stop(ex);
      d.barrier(ex);
      if (ex.task() == 0) {
        run::check_invariants_into(d.machine(), r.invariant_checks, r.violations);  // quiescent
        d.progress(d.now(ex), it + 1, s.iterations, "iterations");
      }
      d.barrier(ex);
    }
    if (ex.task() == 0) d.mark_end(d.now(ex));
    mm.drain_local_pages();
  });
  usemem_metrics(results, d.machine().nr_nodes(), r);
  r.workload_result = std::make_shared<const UsememResult>(usemem_placements(results));
  kDataScale.set(r.metrics, static_cast<double>(s.task.data_scale));
  kSizeBytes.set(r.metrics, static_cast<double>(s.task.size));
  if (s.task.data_scale > 1)
    r.notes.push_back(fmt::format("usemem data region scaled down {}x: {} MiB per task on this host", s.task.data_scale,
                                  s.data_bytes >> 20));
}

// The analytic store loops of one usemem iteration on the virtual engine. `result`: the
// memory model solved once every task has faulted, from where each task runs then and how many
// tasks share its CPU (reported). What is charged is the engine's memory traffic, re-solved as
// the loops run, move and end, beside the clears still running.
struct StoreLoops {
  std::vector<vt::StoreLoopTask> tasks;
  std::optional<vt::StoreLoopResult> result;
  std::vector<unsigned long> surplus_node;  // HugePages_Surp per node once every task faulted
};

// Where the task was when its start pipe's wake-up put it: its last placement at or before
// the fork (the fork and the wake-up happen at the same virtual time).
int wake_node(VirtualCpu& ex, ps_t forked, const mm::Machine& machine) {
  const auto& pl = ex.placements();
  for (size_t i = pl.size(); i-- > 0;)
    if (pl[i].at <= forked) return static_cast<int>(machine.cpu_to_node(pl[i].cpu));
  return -1;
}

int64_t us_after(ps_t t, ps_t since) { return static_cast<int64_t>((t - since) / 1000000); }

// mmap (the reservation), recorded into the task's start record: where it ran and when, the
// surplus pages it allocated per node and its spinning per lock class.
void recorded_mmap(VirtualCpu& ex, mm::Hugetlb<VirtualCpu>& h, UsememTask<VirtualCpu>& task, ps_t forked) {
  UsememTaskResult& tr = task.result();
  auto& st = tr.start;
  const ps_t spin_zone = ex.spin_ps(LockClass::zone_lock), spin_hugetlb = ex.spin_ps(LockClass::hugetlb_lock);
  const std::vector<unsigned long> surplus0 = h.surplus_allocated_node();
  const ps_t m0 = ex.clock();
  st.mmap_start_node = static_cast<int>(ex.node()), st.mmap_start_us = us_after(m0, forked);
  task.mmap();
  st.mmap_end_node = static_cast<int>(ex.node()), st.mmap_end_us = us_after(ex.clock(), forked);
  tr.reserve_ns = (ex.clock() - m0) / 1000;
  st.spin_zone_lock_us = static_cast<double>(ex.spin_ps(LockClass::zone_lock) - spin_zone) / 1e6;
  st.spin_hugetlb_lock_us = static_cast<double>(ex.spin_ps(LockClass::hugetlb_lock) - spin_hugetlb) / 1e6;
  for (size_t node = 0; node < surplus0.size(); ++node) st.reserved_node_pages.push_back(h.surplus_allocated_node()[node] - surplus0[node]);
}

// NUMA balancing's first two passes of each iteration's task into its start record.
void add_numa_passes(const NumaBalancingStats& nb, const std::vector<std::vector<ps_t>>& forked,
                     std::vector<std::vector<UsememTaskResult>>& results) {
  for (const NumaBalancingStats::Pass& p : nb.passes) {
    if (p.fork == 0 || p.fork > results.size() || p.task >= results[p.fork - 1].size()) continue;  // fork 0: the engine's own
    auto& st = results[p.fork - 1][p.task].start;
    const int64_t at = us_after(p.at, forked[p.fork - 1][p.task]);
    (p.pass == 1 ? st.pass1_node : st.pass2_node) = static_cast<int>(p.node);
    (p.pass == 1 ? st.pass1_us : st.pass2_us) = at;
  }
}

// The virtual engine: usemem's fork and start pipe, the reservation and faults through the
// model, clearing and the store loop charged analytically (the memory model), munmap.
void run_virtual(engine::VirtualDriver& d, const config::Params& params, const UsememChoices& choices) {
  using E = VirtualCpu;
  mm::Machine& machine = d.machine();
  const UsememSetup s = usemem_setup(machine, params, choices, d.nr_cpus(), d.seed(), d.short_mode(), true);
  const unsigned n = s.nr_task, nodes = machine.nr_nodes();
  std::vector<StoreLoops> loops(s.iterations);
  for (StoreLoops& l : loops) l.tasks.resize(n);
  run::RunResult& r = d.result();
  std::vector<std::vector<UsememTaskResult>> results(s.iterations, std::vector<UsememTaskResult>(n));
  std::vector<std::vector<ps_t>> forked(s.iterations, std::vector<ps_t>(n));
  std::vector<unsigned> mmaps_done(s.iterations, 0);
  std::vector<std::vector<unsigned long>> surp_after_mmap(s.iterations);
  d.run_tasks(n, [&](E& ex) {
    mm::Mm<E> mm(machine, ex);
    mm::Hugetlb<E> h(mm);
    if (s.task.surplus_policy) h.set_surplus_policy(&s.task.policy);
    if (ex.task() == 0) h.set_overcommit(s.overcommit);
    DataRegion data(4096);  // never written: clearing and stores are charged analytically
    for (uint64_t it = 0; it < s.iterations; ++it) {
      UsememParams p = s.task;
      p.seed = task_seed(s, it, ex.task());
      ex.start_barrier();  // fork, ready(), the start pipe's wake-ups
      const ps_t t_start = ex.parent_start_time();  // usemem's start_time, taken before the forks
      if (it == 0) d.mark_start(t_start);
      d.leave_start_barrier(ex, it);
      UsememTask<E> task(h, ex, p, data);
      UsememTaskResult& tr = task.result();
      auto& st = tr.start;
      forked[it][ex.task()] = t_start;
      st.fork_node = static_cast<int>(d.runqueues().task_home[ex.task()]);
      st.wake_node = wake_node(ex, t_start, machine);
      recorded_mmap(ex, h, task, t_start);
      const ps_t f0 = ex.clock();
      if (++mmaps_done[it] == n)  // the last reservation of the iteration has returned
        for (unsigned node = 0; node < nodes; ++node) surp_after_mmap[it].push_back(machine.hstate().surplus_huge_pages_node[node]);
      st.first_fault_node = static_cast<int>(ex.node()), st.first_fault_us = us_after(f0, t_start);
      // Task 0's faults tell the progress line how far the run has come.
      task.fault_all([&](uint64_t faulted) {
        if (ex.task() == 0) d.progress(ex.clock(), it * task.npages() + faulted, s.iterations * task.npages(), "faults");
      });
      tr.fault_ns = (ex.clock() - f0) / 1000;
      StoreLoops& L = loops[it];
      vt::StoreLoopTask& mine = L.tasks[ex.task()];
      if (!tr.failed) {
        mine.stores = s.task.size / 8;  // do_rw_once, random: SIZE/8 8-byte stores
        mine.pages_per_node = tr.fault_node_pages;
        mine.node = ex.node();  // where it runs now; the loop itself may move it
        mine.cpu_share = 1.0 / d.runqueues().nr_running(ex.cpu());
      }
      ex.rendezvous();  // every task has faulted; clocks are untouched
      if (!L.result) {
        L.result = vt::store_loop(d.model(), L.tasks);
        d.flush_caches();  // the 63 GiB random footprint flushes every cache
        for (unsigned node = 0; node < nodes; ++node) L.surplus_node.push_back(machine.hstate().surplus_huge_pages_node[node]);
      }
      if (!tr.failed) {
        // do_rw_once, each slice at the latencies of where every loop runs at that moment.
        tr.store_node_ps = ex.run_user(mine.stores, [&](unsigned node) {
          vt::MemoryTraffic& mem = d.memory(ex.clock());
          mem.set_loop(ex.task(), node, 1.0 / std::max(1u, d.runqueues().nr_running(ex.cpu())), tr.fault_node_pages);
          return mem.store_ps(ex.task());
        });
        d.memory(ex.clock()).leave_loop(ex.task());
        ps_t loop = 0;
        double remote = 0;
        for (unsigned node = 0; node < nodes; ++node) loop += tr.store_node_ps[node];
        for (unsigned node = 0; node < nodes && loop; ++node)
          remote += static_cast<double>(tr.store_node_ps[node]) / static_cast<double>(loop) *
                    (1 - static_cast<double>(tr.fault_node_pages[node]) / static_cast<double>(tr.pages));
        tr.remote_store_share = remote;
        tr.stores = mine.stores;
        tr.unit_bytes = s.task.size / 8 + 8 * tr.stores;
        tr.user_ns = loop / 1000;
      }
      usemem_finish(tr, (ex.clock() - t_start) / 1000);
      const ps_t u0 = ex.clock();
      ex.sys_enter();
      task.munmap();
      ex.sys_exit();
      tr.free_usecs = (ex.clock() - u0) / 1000000;
      tr.sys_ns = ex.sys_ps() / 1000;
      results[it][ex.task()] = tr;
      ex.barrier();  // the parent's waitpid
      if (ex.task() == 0) run::check_invariants_into(machine, r.invariant_checks, r.violations);  // quiescent
      ex.barrier();
    }
    if (ex.task() == 0) d.mark_end(ex.clock());
    mm.drain_local_pages();
  });

  auto& m = r.metrics;
  if (const NumaBalancingStats* nb = d.numa_stats()) add_numa_passes(*nb, forked, results);
  usemem_metrics(results, nodes, r, true);
  std::vector<TaskPlacement> tasks = usemem_placements(results);
  for (unsigned t = 0; t < n && t < tasks.size(); ++t)
    for (const VirtualCpu::Placement& p : d.placements(t)) tasks[t].timeline.push_back({p.at / 1000, p.cpu});
  r.workload_result = std::make_shared<const UsememResult>(std::move(tasks));
  kSizeBytes.set(m, static_cast<double>(s.task.size));
  kNrTask.set(m, n);
  for (size_t it = 0; it < loops.size(); ++it)
    if (loops[it].result)
      for (unsigned node = 0; node < nodes; ++node) {
        kStoreDramUtilNodeIt.at(node, it).set(m, loops[it].result->dram_utilisation[node]);
        kStoreDramTransactionsNodeIt.at(node, it).set(m, loops[it].result->transactions_per_s[node]);
        kStoreDirectoryWritesNodeIt.at(node, it).set(m, loops[it].result->directory_writes_per_s[node]);
        kStoreLocalNsNodeIt.at(node, it).set(m, loops[it].result->local_ns[node]);
        kStoreRemoteNsNodeIt.at(node, it).set(m, loops[it].result->remote_ns[node]);
        kHugepagesSurpNodeIt.at(node, it).set(m, static_cast<double>(loops[it].surplus_node[node]));
      }
  for (size_t it = 0; it < surp_after_mmap.size(); ++it)
    for (size_t node = 0; node < surp_after_mmap[it].size(); ++node)
      kHugepagesSurpAfterMmapNodeIt.at(node, it).set(m, static_cast<double>(surp_after_mmap[it][node]));
  kMemoryModelSolves.set(m, static_cast<double>(d.memory(d.latest_clock()).solves()));
  // perf-profile's __mmap: the reservations' share of all vCPU time (spinning included); the
  // engine reports the rest of the profile.
  double mmap_s = 0;
  for (const auto& iteration : results)
    for (const UsememTaskResult& t : iteration) mmap_s += static_cast<double>(t.reserve_ns) / 1e9;
  if (const double all = d.elapsed_s() * machine.nr_cpus(); all > 0) engine::kPerfChildren.at("__mmap").set(m, 100 * mmap_s / all);
}

// usemem_metrics()'s, then those its engine bodies count here.
std::vector<run::MetricInfo> metric_infos() {
  std::vector<run::MetricInfo> m = usemem_metric_infos();
  for (run::MetricInfo& i : run::metric_infos(kDataScale, kSizeBytes, kNrTask, kStoreDramUtilNodeIt, kStoreDramTransactionsNodeIt,
                                              kStoreDirectoryWritesNodeIt, kStoreLocalNsNodeIt, kStoreRemoteNsNodeIt,
                                              kHugepagesSurpNodeIt, kHugepagesSurpAfterMmapNodeIt, kMemoryModelSolves))
    m.push_back(std::move(i));
  return m;
}

class Usemem : public ProgramOf<Usemem> {
 public:
  explicit Usemem(const Args& a) : ProgramOf(a), choices_(usemem_choices(a.params)) {}

  template <class D>
  void on(D& d) const {
    if constexpr (is_uniprocessor<D>)
      run_interleaved(d, params(), choices_);
    else if constexpr (is_virtual<D>)
      run_virtual(d, params(), choices_);
    else
      run_native(d, params(), choices_);
  }

 private:
  UsememChoices choices_;
};

}  // namespace

WorkloadInfo usemem_workload() {
  using config::ParamType;
  WorkloadInfo w{
      "usemem",
      "vm-scalability case-anon-w-rand-hugetlb: per task mmap MAP_HUGETLB (surplus reservation), fault every 2 MiB "
      "page, SIZE/8 random 8-byte stores, munmap; LKP's throughput, median and free_time",
      {
          {"size", ParamType::size, int64_t{0}, 0, 1e15, {}, "per-task SIZE (0: MemTotal / 2 / tasks, as LKP)"},
          {"nr_task", ParamType::integer, int64_t{0}, 0, 4096, {}, "usemem -n (0: one per CPU, as LKP's hw_vars; other counts: virtual engine)"},
          {"data_scale", ParamType::integer, int64_t{1}, 1, 1 << 20, {}, "host data region = SIZE / data_scale"},
          {"iterations", ParamType::integer, int64_t{1}, 1, 1000, {}, "case iterations, state carried over (LKP runs 16)"},
          {"mempolicy", ParamType::choice, std::string("local"), {}, {}, mempolicy_names(),
           "the tasks' memory policy at fault time"},
          {"policy_nodes", ParamType::string, std::string("all"), {}, {}, {}, "node list for bind/preferred/interleave, as numactl reads it: 0,1 or 0-3,6 (all: every node)"},
          {"surplus_policy", ParamType::boolean, false, {}, {}, {}, "also apply the policy to the reservation's order-9 allocations (not 5.17)"},
          {"overcommit", ParamType::integer, int64_t{0}, 0, 1e12, {}, "nr_overcommit_hugepages (0: LKP's unit_size/2M + tasks + 1)"},
          {"clear_huge_page", ParamType::choice, std::string("per_subpage"), {}, {}, clear_mode_names(),
           "how a fault clears its 2 MiB page: clear_page per subpage (v5.17) or one clear_pages over it (seed 000's x86 "
           "series); virtual engine: at the machine file's rate for that mode"},
      },
      metric_infos(),
      make_program<Usemem>,
      run::kAllEngines,
      {},
      [](const config::Params& p, const vt::MachineModel& m, const std::string& source) {
        vt::require_clear_rate(m, usemem_choices(p).clear_huge_page, source + ": workload.params.clear_huge_page");
      },
  };
  w.check = [](const config::Params& p, const mm::MachineSpec& m, const std::string&,
                const std::string&) -> std::optional<ParamProblem> {
    std::string why;
    if (p.string("policy_nodes") != "all" && !parse_nodelist(p.string("policy_nodes"), static_cast<unsigned>(m.nodes.size()), why))
      return ParamProblem{"policy_nodes", why};
    return std::nullopt;
  };
  w.read_result = read_usemem_result;
  w.headline = "throughput_kib_s";  // vm-scalability.throughput
  return w;
}

}  // namespace pagesim::workload
