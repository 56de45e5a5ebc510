// The cross-engine contract at one CPU: the uniprocessor and native engines run the same model
// code, so the same operations give the same allocator state, counters and access stream.
#include <gtest/gtest.h>

#include <tuple>
#include <vector>

#include "pagesim/engine/native/native.h"
#include "pagesim/engine/uniprocessor/uniprocessor.h"
#include "pagesim/mm/config.h"
#include "pagesim/mm/page_alloc.h"
#include "common/cross_engine_drive.h"

namespace pagesim {
namespace {

TEST(CrossEngine, OneCpuGivesTheSameStateCountersAndAccessStream) {
  const mm::KernelConfig cfg = *mm::preset_config("v5.17+mel");
  const mm::MachineSpec spec = mm::MachineSpec::uniform(1, 1, 256ull << 20);

  mm::Machine mu(spec, cfg, mm::HostMemory{});
  UniprocessorExec<true> ue(mu);
  ue.record_stream(true);
  test::EngineState a = test::collect(mu, test::drive(mu, ue));
  for (const AccessRecord& r : ue.stream()) a.stream.emplace_back(r.line, r.site, r.kind);
  a.zone_lock_acquisitions = ue.lock_counters(LockClass::zone_lock).acquisitions;

  mm::Machine mn(spec, cfg, mm::HostMemory{});
  NativeEngine eng(mn, NativeOptions{});
  NativeCpu<true> ne(eng, 0);
  std::vector<mm::pfn_t> pfns;
  eng.run([&](unsigned) { pfns = test::drive(mn, ne); });
  test::EngineState b = test::collect(mn, std::move(pfns));
  for (const LoggedAccess& r : ne.log())
    for (uint32_t i = 0; i < r.n; ++i) b.stream.emplace_back((r.addr + uint64_t{i} * r.stride) >> 6, r.site, r.kind);
  for (const LockStatTable::Record& l : ne.lock_stats()) b.zone_lock_acquisitions += l.stat.acquisitions;

  ASSERT_GT(a.stream.size(), 100000u);
  EXPECT_EQ(a.pfns, b.pfns);
  EXPECT_EQ(a.nr_free, b.nr_free);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.zone_lock_acquisitions, b.zone_lock_acquisitions);
  EXPECT_EQ(a.stream.size(), b.stream.size());
  EXPECT_TRUE(a.stream == b.stream) << "access streams differ";
}

}  // namespace
}  // namespace pagesim
