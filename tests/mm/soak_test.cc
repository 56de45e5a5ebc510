// A randomized soak: 1M mixed-order operations with injected bad pages per preset, invariants
// verified every 10 000 operations. A kernel that checks pages only when check_pages_enabled
// (6.x) runs with DEBUG_VM, so that it finds them.
#include "pagesim/workload/random_mixed.h"
#include "test_util.h"
#include "common/preset_name.h"

namespace pagesim::test {
namespace {

class Soak : public ::testing::TestWithParam<std::string> {};

TEST_P(Soak, MillionOpsWithBadPages) {
  mm::KernelConfig cfg = preset(GetParam());
  cfg.debug_vm = cfg.behaviour.checks_only_when_enabled;
  auto m = machine(2, 2, 512ull << 20, cfg);
  UniprocessorExec<false> ex(*m);
  workload::RandomMixedParams p;
  p.ops = 1000000;
  p.seed = 2022;
  p.fault_rate = 0.001;
  p.fault.subpage = -1;
  p.check_every = 10000;
  p.max_live_pages = m->spec().total_pages() / 3;
  for (int f = 0; f < 5; ++f) {
    p.fault.field = static_cast<mm::FaultField>(f);
    p.ops = 200000;
    p.seed = 2022 + f;
    const workload::RandomMixedResult r = workload::run_random_mixed(*m, ex, p);
    EXPECT_TRUE(r.violations.empty()) << r.violations.front();
    EXPECT_EQ(r.invariant_checks, 21u);
    EXPECT_GT(r.faults_injected, 100u);
    EXPECT_GT(r.allocs, 90000u);
  }
  EXPECT_GT(events(*m, mm::BAD_PAGE), 0u);
  EXPECT_GT(events(*m, mm::LEAKED_PAGES), 0u);
}

INSTANTIATE_TEST_SUITE_P(Presets, Soak, ::testing::ValuesIn(mm::preset_names()), preset_test_name);

}  // namespace
}  // namespace pagesim::test
