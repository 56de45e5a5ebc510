// The declared-metric vocabulary: a pattern matches what it stands for and nothing else (the
// assembled table and the metrics every workload reports: tests/run/metrics_test.cc).
#include <gtest/gtest.h>

#include "pagesim/result/metrics.h"

namespace pagesim::run {
namespace {

TEST(MetricPatterns, MatchWhatTheyStandFor) {
  const MetricInfo irq{"irq_off_{site}_count"};
  EXPECT_TRUE(metric_matches(irq, "irq_off_rmqueue_bulk_count"));
  EXPECT_FALSE(metric_matches(irq, "irq_off__count"));
  EXPECT_FALSE(metric_matches(irq, "irq_off_rmqueue_bulk_max_ns"));
  const MetricInfo two{"store_local_ns_node{n}_it{i}"};
  EXPECT_TRUE(metric_matches(two, "store_local_ns_node1_it0"));
  EXPECT_FALSE(metric_matches(two, "store_local_ns_node1"));
  EXPECT_TRUE(metric_matches(MetricInfo{"allocs"}, "allocs"));
  EXPECT_FALSE(metric_matches(MetricInfo{"allocs"}, "allocs_per_s"));
  EXPECT_EQ(engine_mask_names(kNative | kVirtual), "native, virtual");
}

}  // namespace
}  // namespace pagesim::run
