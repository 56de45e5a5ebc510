// Bad input to replay(): a trace and a zoneinfo from different machines, a trace with nothing
// to replay. Each is an InputError naming the trace's line.
#include <gtest/gtest.h>

#include <sstream>

#include "pagesim/error.h"
#include "pagesim/replay/replay.h"

namespace pagesim::replay {
namespace {

// One Normal zone of 4096 pages at pfn 0x40000 (262144), pagesets for CPUs 0 and 1.
constexpr const char* kZoneinfo =
    "Node 0, zone   Normal\n  pages free     4000\n        min      16\n        low      20\n        high     24\n"
    "        spanned  4096\n        present  4096\n        managed  4096\n  pagesets\n"
    "    cpu: 0\n              count:    0\n              high:     8\n              batch:    2\n"
    "    cpu: 1\n              count:    0\n              high:     8\n              batch:    2\n"
    "  start_pfn:           262144\n";

constexpr const char* kHeader = "# tracer: nop\n# entries-in-buffer/entries-written: 2/2   #P:2\n";
constexpr const char* kAlloc =
    "  t-1 [000] .....   1.000001: mm_page_alloc: page=00000000deadbeef pfn=0x40100 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE\n";
constexpr const char* kFree = "  t-1 [000] .....   1.000002: mm_page_free: page=00000000deadbeef pfn=0x40100 order=0\n";

std::string error_of(const std::string& trace_text, const char* zoneinfo = kZoneinfo) {
  std::istringstream in(trace_text);
  const trace::Trace t = trace::parse_ftrace(in, "my.trace");
  const ZoneInfoFile zi = zoneinfo ? parse_zoneinfo(zoneinfo, "zi.txt") : ZoneInfoFile{};
  try {
    replay(t, zi, ReplayOptions{});
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(ReplayInput, GoodTraceReplays) { EXPECT_EQ(error_of(std::string(kHeader) + kAlloc + kFree), "(no error)"); }

// CPU 2 on a machine whose zoneinfo has pagesets for CPUs 0 and 1; without a zoneinfo, the
// header's #P:2 says the same.
TEST(ReplayInput, CpuBeyondTheMachinesIsRefusedAtItsLine) {
  std::string free2 = kFree;
  free2.replace(free2.find("[000]"), 5, "[002]");
  const std::string text = std::string(kHeader) + kAlloc + free2;
  EXPECT_EQ(error_of(text), "my.trace:4: CPU 2, but zi.txt:1 (zone Normal) has pagesets for 2 CPUs: the trace and the machine differ");
  EXPECT_EQ(error_of(text, nullptr), "my.trace:4: CPU 2, but its header says #P:2: the trace and the machine differ");
}

TEST(ReplayInput, TraceWithoutAllocationsIsRefused) {
  const std::string want = "my.trace: no successful mm_page_alloc: nothing to replay (was the kmem event enabled?)";
  EXPECT_EQ(error_of(std::string(kHeader) + kFree), want);
  EXPECT_EQ(error_of(kHeader), want);
  EXPECT_EQ(error_of(std::string(kHeader) + kFree, nullptr), want);
}

// A zoneinfo from another machine: the trace's second block lies in none of its zones.
TEST(ReplayInput, PfnOutsideEveryZoneIsRefusedAtItsLine) {
  std::string free_far = kFree;
  free_far.replace(free_far.find("0x40100"), 7, "0x90100");
  EXPECT_EQ(error_of(std::string(kHeader) + kAlloc + free_far),
            "my.trace:4: pfn=0x90100 lies in no zone of zi.txt: the zoneinfo is from another machine than the trace");
}

}  // namespace
}  // namespace pagesim::replay
