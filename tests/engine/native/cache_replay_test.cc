// The perf-c2c-style names of modelled lines: each region by its own name, .data above the
// vmemmap included (it used to print as a struct page far beyond the machine's memory).
#include <gtest/gtest.h>

#include "engine/native/cache_replay.h"
#include "pagesim/exec/line.h"

namespace pagesim::engine {
namespace {

TEST(NativeC2c, LinesAreNamedByTheirRegion) {
  EXPECT_EQ(line_name(GLOBAL_BASE >> 6), ".data+0x0 (vm_zone_stat/hstate/hugetlb_lock)");
  EXPECT_EQ(line_name((GLOBAL_BASE + 0x40) >> 6), ".data+0x40 (vm_zone_stat/hstate/hugetlb_lock)");
  EXPECT_EQ(line_name((VMEMMAP_BASE + 0x1200 * 64) >> 6), "struct page pfn 0x1200");
  EXPECT_EQ(line_name(PERCPU_BASE >> 6), "per-cpu area of cpu 0");
  EXPECT_EQ(line_name(ZONE_BASE >> 6).rfind("zone node0/DMA", 0), 0u) << line_name(ZONE_BASE >> 6);
}

}  // namespace
}  // namespace pagesim::engine
