// The native engine: real threads and locks. Behaviour only; nothing here depends on timing.
#include <gtest/gtest.h>

#include <atomic>

#include "pagesim/error.h"
#include "pagesim/engine/native/native.h"
#include "pagesim/mm/config.h"
#include "pagesim/run/runner.h"
#include "pagesim/workload/registry.h"
#include "common/preset_name.h"

namespace pagesim {
namespace {

scenario::Scenario make_scenario(const std::string& workload, const std::string& preset, unsigned cpus_per_node,
                                 unsigned nodes = 1) {
  scenario::Scenario sc;
  sc.file = "test";
  sc.machine = mm::MachineSpec::uniform(nodes, cpus_per_node, 512ull << 20);
  sc.variants.push_back({preset, *mm::preset_config(preset)});
  sc.workload = workload;
  std::map<std::string, config::ParamValue> values;
  for (const config::ParamSpec& p : workload::find_workload(workload)->params) values[p.name] = p.default_value;
  if (workload == "random_mixed") {
    values["ops"] = int64_t{60000};
    values["fault_rate"] = 0.002;
    values["check_every"] = int64_t{5000};
  } else if (workload == "usemem") {
    values["data_scale"] = int64_t{16};
    values["iterations"] = int64_t{2};
  } else {
    values["iterations"] = int64_t{30};
  }
  sc.params = config::Params(values);
  sc.engine = "native";
  return sc;
}

class NativePresets : public ::testing::TestWithParam<std::string> {};

TEST_P(NativePresets, RandomMixedKeepsInvariantsOnTwoThreads) {
  const scenario::Scenario sc = make_scenario("random_mixed", GetParam(), 1, 2);
  const run::RunResult r = run::run_one(sc, 0, 0, {});
  EXPECT_TRUE(r.violations.empty()) << r.violations.front();
  EXPECT_GT(r.invariant_checks, 10u);
  EXPECT_GT(r.metrics.at("allocs"), 20000);
  EXPECT_GT(r.metrics.at("faults_injected"), 10);
  ASSERT_FALSE(r.locks.empty());
  EXPECT_EQ(r.locks[0].name, "&zone->lock");
}

TEST_P(NativePresets, ThpAllocAndPcpChurnKeepInvariants) {
  for (const char* w : {"thp_alloc", "pcp_churn"}) {
    const scenario::Scenario sc = make_scenario(w, GetParam(), 2);
    const run::RunResult r = run::run_one(sc, 0, 0, {});
    EXPECT_TRUE(r.violations.empty()) << w << ": " << r.violations.front();
    EXPECT_EQ(r.metrics.at("alloc_failures"), 0) << w;
    EXPECT_GT(r.metrics.at("iteration_median_ns"), 0) << w;
    EXPECT_GT(r.metrics.count("irq_off_rmqueue_pcplist_max_ns"), 0u) << w;
    EXPECT_FALSE(r.cache.hw_available && !r.cache.hw_reason.empty());
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, NativePresets, ::testing::ValuesIn(mm::preset_names()), test::preset_test_name);

TEST_P(NativePresets, UsememKeepsPoolAndZoneInvariants) {
  const scenario::Scenario sc = make_scenario("usemem", GetParam(), 1, 2);
  const run::RunResult r = run::run_one(sc, 0, 0, {});
  EXPECT_TRUE(r.violations.empty()) << r.violations.front();
  EXPECT_EQ(r.metrics.at("tasks_failed"), 0);
  EXPECT_GT(r.metrics.at("throughput_kib_s"), 0);
  EXPECT_EQ(r.metrics.at("remote_store_share_pct"), 0) << "each task reserved and faulted on its own node";
  bool hugetlb_lock = false;
  for (const run::LockStat& l : r.locks) hugetlb_lock |= l.name == "hugetlb_lock" && l.acquisitions > 0;
  EXPECT_TRUE(hugetlb_lock);
}

TEST(Native, UsememWithTooSmallAnOvercommitFailsCleanly) {
  scenario::Scenario sc = make_scenario("usemem", "v5.17", 1, 2);
  std::map<std::string, config::ParamValue> values = sc.params.values();
  values["overcommit"] = int64_t{1};
  sc.params = config::Params(values);
  const run::RunResult r = run::run_one(sc, 0, 0, {});
  EXPECT_TRUE(r.violations.empty()) << r.violations.front();
  EXPECT_EQ(r.metrics.at("tasks_failed"), 4) << "mmap fails with ENOMEM for both tasks in both iterations";
}

TEST(Native, AllSubpageRefillWalkIsInsideTheZoneLock) {
  uint64_t in_lock[2];
  int i = 0;
  for (const char* p : {"v5.17", "v5.17+mel"}) {
    const run::RunResult r = run::run_one(make_scenario("thp_alloc", p, 2), 0, 0, {});
    in_lock[i++] = r.cache.counters.at("struct_page_in_zone_lock");
  }
  EXPECT_GT(in_lock[1], in_lock[0] + 1000) << "Mel's walk reads 511 tails per block under zone->lock";
}

class LockPattern : public ::testing::TestWithParam<LockImpl> {};

// CPU 0 takes the lock; CPU 1 tries and must wait; CPU 0 releases only once it sees CPU 1
// waiting. Exactly one contention, at CPU 1's site, and one bounce.
TEST_P(LockPattern, KnownContention) {
  mm::Machine m(mm::MachineSpec::uniform(1, 2, 64ull << 20), *mm::preset_config("v5.17"), mm::HostMemory{});
  NativeEngine eng(m, NativeOptions{GetParam(), false, false});
  NativeCpu<false> c0(eng, 0), c1(eng, 1);
  spinlock_t& l = m.node(0).zones[mm::ZONE_NORMAL].lock;
  std::atomic<bool> held{false};
  eng.run([&](unsigned cpu) {
    if (cpu == 0) {
      c0.lock(l, Site::rmqueue);
      held.store(true);
      while (!eng.locks().has_waiters(l.id)) cpu_relax();
      c0.unlock(l, Site::rmqueue);
    } else {
      while (!held.load()) cpu_relax();
      c1.lock(l, Site::rmqueue_bulk);
      c1.unlock(l, Site::rmqueue_bulk);
    }
  });
  const LockStatCpu& s0 = c0.lock_stats()[l.id];
  const LockStatCpu& s1 = c1.lock_stats()[l.id];
  EXPECT_EQ(s0.acquisitions, 1u);
  EXPECT_EQ(s0.contentions, 0u);
  EXPECT_EQ(s1.acquisitions, 1u);
  EXPECT_EQ(s1.contentions, 1u);
  EXPECT_EQ(s1.contention_points[static_cast<unsigned>(Site::rmqueue_bulk)], 1u);
  EXPECT_EQ(s1.wait.count, 1u);
  EXPECT_EQ(s0.bounces + s1.bounces, 1u) << "CPU 1 took the lock after CPU 0";
  EXPECT_EQ(s0.hold.count + s1.hold.count, 2u);
}

INSTANTIATE_TEST_SUITE_P(Impls, LockPattern, ::testing::Values(LockImpl::qspinlock, LockImpl::ticket, LockImpl::mutex),
                         [](const auto& info) { return std::string(lock_impl_name(info.param)); });

TEST(Native, MoreCpusThanHostCoresNeedsOversubscribe) {
  const unsigned too_many = NativeEngine::host_cpus() + 1;
  scenario::Scenario sc = make_scenario("thp_alloc", "v5.17", too_many);
  EXPECT_THROW(run::run_one(sc, 0, 0, {}), InputError);
  sc.engine_options = sc.engine_options.with("oversubscribe", true);
  const run::RunResult r = run::run_one(sc, 0, 0, {});
  EXPECT_TRUE(r.violations.empty());
  bool noted = false;
  for (const std::string& n : r.notes) noted |= n.find("oversubscribed") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(Native, HardwareCountersSayWhyTheyAreMissing) {
  const run::RunResult r = run::run_one(make_scenario("thp_alloc", "v5.17", 1), 0, 0, {});
  if (!r.cache.hw_available) {
    EXPECT_NE(r.cache.hw_reason.find("perf_event_open"), std::string::npos);
  }
}

}  // namespace
}  // namespace pagesim
