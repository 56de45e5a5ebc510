// Whole runs on the virtual engine through the runner: determinism, invariants for every
// preset and workload, and 128 tasks on 128 vCPUs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "pagesim/mm/config.h"
#include "pagesim/report/report.h"
#include "pagesim/run/runner.h"
#include "pagesim/vt/machine_model.h"
#include "pagesim/workload/registry.h"
#include "pagesim/workload/usemem_result.h"

namespace pagesim {
namespace {

scenario::Scenario make_scenario(const std::string& workload, const std::string& preset, unsigned cpus_per_node,
                                 unsigned nodes = 2, uint64_t bytes_per_node = 512ull << 20) {
  scenario::Scenario sc;
  sc.file = "test";
  sc.machine = mm::MachineSpec::uniform(nodes, cpus_per_node, bytes_per_node);
  sc.variants.push_back({preset, *mm::preset_config(preset)});
  sc.workload = workload;
  std::map<std::string, config::ParamValue> values;
  for (const config::ParamSpec& p : workload::find_workload(workload)->params) values[p.name] = p.default_value;
  if (workload == "random_mixed") {
    values["ops"] = int64_t{20000};
    values["fault_rate"] = 0.002;
    values["check_every"] = int64_t{5000};
  } else if (workload == "usemem") {
    values["iterations"] = int64_t{2};
  } else {
    values["iterations"] = int64_t{10};
  }
  sc.params = config::Params(values);
  sc.engine = "virtual";
  sc.machine_model = std::make_shared<const vt::MachineModel>(vt::load_machine_model(vt::default_machine_file()));
  return sc;
}

nlohmann::ordered_json json_without_wall_clock(const run::RunResult& r) {
  nlohmann::ordered_json j = report::run_to_json(r);
  j.erase("wall_s");
  return j;
}

TEST(VirtualRuns, SameSeedSameJsonAnotherSeedDiffers) {
  for (const char* w : {"thp_alloc", "usemem", "random_mixed"}) {
    scenario::Scenario sc = make_scenario(w, "v5.17+mel", 4);
    const auto a = json_without_wall_clock(run::run_one(sc, 0, 0, {}));
    const auto b = json_without_wall_clock(run::run_one(sc, 0, 0, {}));
    EXPECT_EQ(a, b) << w;
    const auto c = json_without_wall_clock(run::run_one(sc, 0, 1, {}));  // repeat 1: a derived seed
    EXPECT_NE(a["metrics"], c["metrics"]) << w;
  }
}

// The scheduler policies that balance and migrate (ticks, wake chains, NUMA balancing) keep the
// runs bit-identical for a seed, with more tasks than vCPUs too.
TEST(VirtualRuns, BalancingPoliciesAreDeterministic) {
  for (const char* policy : {"cfs", "numa"})
    for (int64_t tasks : {0, 16}) {
      scenario::Scenario sc = make_scenario("usemem", "v5.17+mel", 4);
      sc.engine_options = sc.engine_options.with("sched", std::string(policy));
      std::map<std::string, config::ParamValue> values = sc.params.values();
      values["nr_task"] = tasks;
      sc.params = config::Params(values);
      const auto a = json_without_wall_clock(run::run_one(sc, 0, 0, {}));
      const auto b = json_without_wall_clock(run::run_one(sc, 0, 0, {}));
      EXPECT_EQ(a, b) << policy << " " << tasks;
      EXPECT_TRUE(a["invariants"]["violations"].empty()) << policy << " " << tasks;
      const auto c = json_without_wall_clock(run::run_one(sc, 0, 1, {}));
      EXPECT_NE(a["metrics"], c["metrics"]) << policy << " " << tasks;
    }
}

// Runs on two host threads give the results of one thread, in the same order.
TEST(VirtualRuns, ParallelRunsGiveTheSerialResultsInOrder) {
  scenario::Scenario sc = make_scenario("usemem", "v5.17", 2);
  sc.variants.push_back({"v5.17+mel", *mm::preset_config("v5.17+mel")});
  sc.engine_options = sc.engine_options.with("sched", std::string("cfs"));
  sc.repeats = 2;
  const scenario::ScenarioSet set{sc};
  run::RunOptions one, two;
  two.jobs = 2;
  unsigned progress_calls = 0;
  two.progress = [&](const run::Progress&) { ++progress_calls; };  // never concurrent
  const std::vector<run::RunResult> a = run::run_all(set, one), b = run::run_all(set, two);
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), 4u);
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].variant, b[i].variant);
    EXPECT_EQ(json_without_wall_clock(a[i]), json_without_wall_clock(b[i])) << i;
  }
  EXPECT_GT(progress_calls, 0u);
}

class VirtualPresets : public ::testing::TestWithParam<std::string> {};

TEST_P(VirtualPresets, EveryWorkloadKeepsInvariants) {
  for (const char* w : {"random_mixed", "thp_alloc", "pcp_churn", "usemem"}) {
    const run::RunResult r = run::run_one(make_scenario(w, GetParam(), 2), 0, 0, {});
    EXPECT_TRUE(r.violations.empty()) << w << ": " << r.violations.front();
    EXPECT_GT(r.invariant_checks, 0u) << w;
    EXPECT_GT(r.metrics.at("elapsed_s"), 0) << w;
    EXPECT_GT(r.metrics.at("model_accesses"), 0) << w;
    EXPECT_EQ(r.metrics.at("causality_slack_accesses"), 0) << w;
    // Tasks that all touch the model take turns in clock order.
    EXPECT_GT(r.metrics.at("causality_yields"), 0) << w;
    EXPECT_LT(r.metrics.at("causality_yields"), r.metrics.at("model_accesses")) << w;
  }
}

TEST(VirtualRuns, OneTaskNeverYieldsForCausality) {
  const run::RunResult r = run::run_one(make_scenario("thp_alloc", "v5.17", 1, 1), 0, 0, {});
  EXPECT_GT(r.metrics.at("model_accesses"), 0);
  EXPECT_EQ(r.metrics.at("causality_yields"), 0);
}

TEST(VirtualRuns, ReportsTheCacheModelsEvents) {
  const run::RunResult r = run::run_one(make_scenario("usemem", "v5.17", 2), 0, 0, {});
  const auto& c = r.cache.counters;
  // Walks of 512 struct pages overflow a 48K L1 and fill L2 from memory.
  EXPECT_GT(c.at("model_event_l1_evictions"), 0u);
  EXPECT_GT(c.at("model_dram_local") + c.at("model_dram_remote"), 0u);
  EXPECT_LE(c.at("model_event_llc_writebacks"), c.at("model_event_llc_evictions"));
  // A snoop-filter entry is evicted only while some core holds the line.
  EXPECT_GE(c.at("model_event_back_invalidations"), c.at("model_event_sf_evictions"));
}

// Struct-page misses by the lock held: each is one of that context's struct-page accesses, and
// Mel's all-subpage walk under zone->lock (rmqueue_bulk -> check_new_pages) adds misses there.
TEST(VirtualRuns, ReportsStructPageMissesInsideEachLock) {
  uint64_t in_zone_lock[2];
  for (int mel = 0; mel < 2; ++mel) {
    const run::RunResult r = run::run_one(make_scenario("usemem", mel ? "v5.17+mel" : "v5.17", 2), 0, 0, {});
    const auto& c = r.cache.counters;
    for (const char* ctx : {"in_zone_lock", "in_hugetlb_lock", "irq_off", "outside_locks"})
      EXPECT_LE(c.at(std::string("model_struct_page_misses_") + ctx), c.at(std::string("struct_page_") + ctx)) << ctx;
    in_zone_lock[mel] = c.at("model_struct_page_misses_in_zone_lock");
  }
  EXPECT_GT(in_zone_lock[0], 0u);
  EXPECT_GT(in_zone_lock[1], in_zone_lock[0]);
}

INSTANTIATE_TEST_SUITE_P(All, VirtualPresets, ::testing::ValuesIn(mm::preset_names()),
                         [](const auto& info) {
                           std::string s = info.param;
                           for (char& c : s)
                             if (c == '.' || c == '+') c = '_';
                           return s;
                         });

TEST(VirtualRuns, UsememCharacteristics) {
  const run::RunResult r = run::run_one(make_scenario("usemem", "v5.17", 2), 0, 0, {});
  const auto& m = r.metrics;
  EXPECT_EQ(m.at("tasks_failed"), 0);
  EXPECT_GT(m.at("throughput_kib_s"), 0);
  EXPECT_GT(m.at("sys_s"), 0);
  EXPECT_GT(m.at("user_s"), m.at("sys_s"));  // the store loop dominates
  EXPECT_GE(m.at("remote_store_share_pct"), 0);
  bool hugetlb_lock = false;
  for (const run::LockStat& l : r.locks) hugetlb_lock = hugetlb_lock || l.name == "hugetlb_lock";
  EXPECT_TRUE(hugetlb_lock);
}

// usemem's clear_huge_page: multi_page: each fault clears its 2 MiB at the machine file's
// multi-page rate (11.39 GB/s) instead of 7.95. Four tasks never share a node's DRAM or the UPI
// below that rate, so the fault loop shortens by exactly pages x 2 MiB x (1/7.95 - 1/11.39) ns.
TEST(VirtualRuns, UsememMultiPageClearingShortensTheFaultLoop) {
  double fault_s[2], pages = 0;
  for (int multi = 0; multi < 2; ++multi) {
    scenario::Scenario sc = make_scenario("usemem", "v5.17", 2);
    std::map<std::string, config::ParamValue> values = sc.params.values();
    values["clear_huge_page"] = std::string(multi ? "multi_page" : "per_subpage");
    sc.params = config::Params(values);
    const run::RunResult r = run::run_one(sc, 0, 0, {});
    EXPECT_EQ(r.metrics.at("tasks_failed"), 0);
    fault_s[multi] = r.metrics.at("fault_time_s");
    const double task_iterations = sc.machine.nr_cpus() * static_cast<double>(sc.params.integer("iterations"));
    pages = (r.metrics.at("fault_pages_node0") + r.metrics.at("fault_pages_node1")) / task_iterations;
  }
  const double saved = pages * (2u << 20) * (1 / 7.95e9 - 1 / 11.39e9);
  EXPECT_NEAR(fault_s[0] - fault_s[1], saved, saved * 0.02);
}

// The per-task placement in the result agrees with the scheduler's counters and with the
// aggregate placement metrics: 16 tasks time-sharing 8 vCPUs under NUMA balancing.
TEST(VirtualRuns, TaskPlacementsAgreeWithTheSchedulerAndTheMetrics) {
  scenario::Scenario sc = make_scenario("usemem", "v5.17", 4);
  sc.engine_options = sc.engine_options.with("sched", std::string("numa"));
  std::map<std::string, config::ParamValue> values = sc.params.values();
  values["nr_task"] = int64_t{16};
  sc.params = config::Params(values);
  const run::RunResult r = run::run_one(sc, 0, 0, {});
  const auto& m = r.metrics;
  const auto* usemem = dynamic_cast<const workload::UsememResult*>(r.workload_result.get());
  ASSERT_NE(usemem, nullptr);
  const std::vector<workload::TaskPlacement>& tasks = usemem->tasks();
  ASSERT_EQ(tasks.size(), 16u);
  double moves = 0, reserve_node0 = 0, fault_node1 = 0, remote_pct_sum = 0;
  // The measured phase: from the first iteration's fork (every task's second placement) for
  // elapsed_s; the metrics count what happens in it (a migration while the tasks drain their
  // pcp lists afterwards is not).
  ASSERT_GE(tasks[0].timeline.size(), 2u);
  const uint64_t phase_end_ns = tasks[0].timeline[1].at_ns + static_cast<uint64_t>(std::llround(m.at("elapsed_s") * 1e9));
  for (size_t t = 0; t < tasks.size(); ++t) {
    const workload::TaskPlacement& p = tasks[t];
    EXPECT_EQ(p.task, t);
    ASSERT_EQ(p.iterations.size(), 2u);
    ASSERT_FALSE(p.timeline.empty());
    for (size_t i = 0; i < p.timeline.size(); ++i) {
      EXPECT_LT(p.timeline[i].cpu, 8u);
      if (i) {
        EXPECT_LE(p.timeline[i - 1].at_ns, p.timeline[i].at_ns) << "task " << t;
      }
    }
    moves += static_cast<double>(std::count_if(p.timeline.begin(), p.timeline.end(),
                                               [&](const workload::TaskPlacement::Move& mv) { return mv.at_ns <= phase_end_ns; }));
    for (const workload::TaskPlacement::Iteration& it : p.iterations) {
      EXPECT_FALSE(it.failed);
      reserve_node0 += it.reserve_node == 0;
      fault_node1 += it.fault_node == 1;
      ASSERT_EQ(it.store_loop_node_s.size(), 2u);
      EXPECT_GT(it.store_loop_node_s[0] + it.store_loop_node_s[1], 0);
      EXPECT_EQ(it.fault_node_pages.size(), 2u);
      remote_pct_sum += it.remote_store_share_pct;
    }
  }
  // Every placement is a fork (the engine's start, then each iteration's) or a migration.
  EXPECT_EQ(moves, m.at("sched.migrations") + 16 * (1 + 2));
  EXPECT_EQ(reserve_node0, m.at("reserve_tasks_node0"));
  EXPECT_EQ(fault_node1, m.at("fault_tasks_node1"));
  EXPECT_GT(remote_pct_sum, 0);
}

TEST(VirtualRuns, HundredTwentyEightTasksOnHundredTwentyEightVcpus) {
  scenario::Scenario sc = make_scenario("usemem", "v5.17+mel", 64, 2, 1ull << 30);
  const run::RunResult r = run::run_one(sc, 0, 0, {});
  EXPECT_TRUE(r.violations.empty()) << r.violations.front();
  EXPECT_EQ(r.metrics.at("vcpus"), 128);
  EXPECT_EQ(r.metrics.at("tasks_failed"), 0);
  EXPECT_GT(r.metrics.at("throughput_kib_s"), 0);
  uint64_t contentions = 0;
  for (const run::LockStat& l : r.locks) contentions += l.contentions;
  EXPECT_GT(contentions, 0u);  // 128 tasks reserving at once contend
}

}  // namespace
}  // namespace pagesim
