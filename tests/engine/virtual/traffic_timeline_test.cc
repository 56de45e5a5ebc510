// TrafficTimeline: a clear loads its page's memory controller from its start to its end (end
// exclusive), whatever order the tasks' clocks ask in, and is taken out for good once a
// question comes at or after its end.
#include <gtest/gtest.h>

#include "pagesim/engine/virtual/traffic_timeline.h"

namespace pagesim {
namespace {

constexpr uint64_t kHugePageBytes = 2u << 20;

struct Fixture {
  vt::MachineModel m = vt::load_machine_model(vt::default_machine_file());
  double lines = vt::clear_lines_in_flight(m, m.clear_rate(vt::ClearMode::per_subpage));
};

TEST(TrafficTimeline, AClearLoadsItsNodeFromItsStartToItsEnd) {
  Fixture f;
  TrafficTimeline idle(f.m), t(f.m);
  const vt::ps_t quiet = idle.dram_extra_ps(1, 0);
  const vt::ps_t d = t.clear(1000, 0, 1, f.lines, kHugePageBytes);
  ASSERT_GT(d, 2u);
  EXPECT_EQ(t.nr_clears(), 1u);
  EXPECT_GT(t.dram_extra_ps(1, 1000 + d / 2), quiet);   // running: node 1's controller queues
  EXPECT_EQ(t.dram_extra_ps(1, 1000 + d - 1), t.dram_extra_ps(1, 1000 + d / 2));
  EXPECT_EQ(t.dram_extra_ps(1, 1000 + d), quiet);       // ended: out of the loop
  EXPECT_EQ(t.nr_clears(), 0u);
  EXPECT_EQ(t.dram_extra_ps(1, 1000 + d / 2), quiet);   // and out for good
}

TEST(TrafficTimeline, AClearThatStartsLaterCountsOnlyOnceAClockReachesIt) {
  Fixture f;
  TrafficTimeline idle(f.m), t(f.m);
  const vt::ps_t quiet = idle.dram_extra_ps(0, 0);
  const vt::ps_t d = t.clear(5000, 0, 0, f.lines, kHugePageBytes);
  EXPECT_EQ(t.dram_extra_ps(0, 4000), quiet);  // a task behind the clear's start
  EXPECT_EQ(t.nr_clears(), 1u);
  EXPECT_GT(t.dram_extra_ps(0, 5000), quiet);
  EXPECT_EQ(t.dram_extra_ps(0, 4999), quiet);
  EXPECT_GT(t.dram_extra_ps(0, 5000 + d - 1), quiet);
}

TEST(TrafficTimeline, ClearsRunningTogetherShareTheBandwidth) {
  Fixture f;
  TrafficTimeline t(f.m);
  const vt::ps_t alone = t.clear(0, 0, 0, f.lines, kHugePageBytes);
  TrafficTimeline u(f.m);
  for (int i = 0; i < 32; ++i) u.clear(0, 0, 0, f.lines, kHugePageBytes);
  EXPECT_GT(u.clear(0, 0, 0, f.lines, kHugePageBytes), alone);
  EXPECT_EQ(u.nr_clears(), 33u);
}

}  // namespace
}  // namespace pagesim
