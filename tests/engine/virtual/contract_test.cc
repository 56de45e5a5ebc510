// The cross-engine contract, virtual side (docs/architecture.md): at one CPU the virtual engine
// and the uniprocessor engine leave the same allocator state and counters and make the same
// accesses in the same order (the same access stream); at two CPUs the virtual and native
// engines keep the same invariants and make the same accesses per operation. Timings are never
// compared.
#include <gtest/gtest.h>

#include "common/cross_engine_drive.h"
#include "mm/test_util.h"
#include "pagesim/engine/uniprocessor/uniprocessor.h"
#include "pagesim/engine/virtual/virtual.h"
#include "pagesim/mm/config.h"
#include "pagesim/run/runner.h"
#include "pagesim/vt/machine_model.h"
#include "pagesim/workload/registry.h"

namespace pagesim {
namespace {

void expect_same_counters(const AccessCounters& a, const AccessCounters& b) {
  EXPECT_EQ(a.total, b.total);
  for (unsigned i = 0; i < kNumSites; ++i) {
    EXPECT_EQ(a.by_site[i], b.by_site[i]) << site_name(static_cast<Site>(i));
    EXPECT_EQ(a.struct_page_by_site[i], b.struct_page_by_site[i]) << site_name(static_cast<Site>(i));
  }
  for (unsigned i = 0; i < 4; ++i) EXPECT_EQ(a.by_kind[i], b.by_kind[i]);
  for (unsigned i = 0; i < kNumLineKinds; ++i) EXPECT_EQ(a.by_line_kind[i], b.by_line_kind[i]);
  for (unsigned i = 0; i < kNumLockContexts; ++i) EXPECT_EQ(a.struct_page_by_context[i], b.struct_page_by_context[i]);
}

TEST(VirtualContract, OneVcpuGivesTheUniprocessorStateCountersAndAccessStream) {
  const mm::KernelConfig cfg = *mm::preset_config("v5.17+mel");
  const mm::MachineSpec spec = mm::MachineSpec::uniform(1, 1, 256ull << 20);

  mm::Machine mu(spec, cfg, mm::HostMemory{});
  UniprocessorExec<true> ue(mu);
  ue.record_stream(true);
  const test::EngineState a = test::collect(mu, test::drive(mu, ue));

  mm::Machine mv(spec, cfg, mm::HostMemory{});
  VirtualEngine eng(mv, vt::load_machine_model(vt::default_machine_file()));
  std::vector<mm::pfn_t> pfns;
  eng.run(1, [&](VirtualCpu& ex) {
    ex.record_stream(true);
    pfns = test::drive(mv, ex);
  });
  const test::EngineState b = test::collect(mv, std::move(pfns));

  ASSERT_GT(a.pfns.size(), 1000u);
  EXPECT_EQ(a.pfns, b.pfns);
  EXPECT_EQ(a.nr_free, b.nr_free);
  EXPECT_EQ(a.events, b.events);
  uint64_t virtual_zone_lock = 0;
  for (const LockStatTable::Record& l : eng.task(0).lock_stats()) virtual_zone_lock += l.stat.acquisitions;
  EXPECT_EQ(ue.lock_counters(LockClass::zone_lock).acquisitions, virtual_zone_lock);
  expect_same_counters(ue.accesses(), eng.task(0).accesses());
  ASSERT_GT(ue.stream().size(), 100000u);
  EXPECT_EQ(ue.stream().size(), eng.task(0).stream().size());
  EXPECT_TRUE(ue.stream() == eng.task(0).stream()) << "access streams differ";
}

scenario::Scenario thp_scenario(const std::string& engine, const std::string& preset) {
  scenario::Scenario sc;
  sc.file = "test";
  sc.machine = mm::MachineSpec::uniform(1, 2, 512ull << 20);
  sc.variants.push_back({preset, *mm::preset_config(preset)});
  sc.workload = "thp_alloc";
  std::map<std::string, config::ParamValue> values;
  for (const config::ParamSpec& p : workload::find_workload("thp_alloc")->params) values[p.name] = p.default_value;
  values["iterations"] = int64_t{50};
  values["batch"] = int64_t{4};
  sc.params = config::Params(values);
  sc.engine = engine;
  if (engine == "virtual")
    sc.machine_model = std::make_shared<const vt::MachineModel>(vt::load_machine_model(vt::default_machine_file()));
  return sc;
}

// Two CPUs: interleavings differ, so totals may too; what one refill, one allocation and one
// free touch may not.
TEST(VirtualContract, TwoCpusKeepInvariantsAndPerOperationAccessesAcrossEngines) {
  for (const char* preset : {"v5.17", "v5.17+mel"}) {
    const run::RunResult n = run::run_one(thp_scenario("native", preset), 0, 0, {});
    const run::RunResult v = run::run_one(thp_scenario("virtual", preset), 0, 0, {});
    for (const run::RunResult* r : {&n, &v}) {
      EXPECT_TRUE(r->violations.empty()) << r->engine << " " << preset << ": " << r->violations.front();
      EXPECT_GT(r->invariant_checks, 0u);
    }
    const auto per = [](const run::RunResult& r, const std::string& counter, const std::string& op) {
      return static_cast<double>(r.cache.counters.at(counter)) / static_cast<double>(r.vmstat.at(op));
    };
    EXPECT_EQ(per(n, "struct_page_at_prep_compound_page", "pgalloc"), per(v, "struct_page_at_prep_compound_page", "pgalloc"))
        << preset;
    EXPECT_EQ(per(n, "struct_page_at_free_pages_prepare", "pgfree"), per(v, "struct_page_at_free_pages_prepare", "pgfree"))
        << preset;
    const std::string walk = std::string(preset) == "v5.17" ? "struct_page_at_check_pcp_refill" : "struct_page_at_check_new_pages";
    EXPECT_EQ(per(n, walk, "pcp_refill_blocks"), per(v, walk, "pcp_refill_blocks")) << preset;
  }
}

}  // namespace
}  // namespace pagesim
