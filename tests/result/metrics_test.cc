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

constexpr Metric kAllocs{"allocs", "", kAllEngines, "blocks allocated"};
constexpr MetricPattern<1> kIrqOffCount{"irq_off_{site}_count", "", kThreadedEngines, "IRQ-off regions entered at a call site"};
constexpr MetricPattern<2> kLocalNs{"store_local_ns_node{n}_it{i}", "ns", kVirtual, "loaded latency"};

TEST(MetricHandles, WriteTheirDeclaredName) {
  Metrics m;
  kAllocs.set(m, 3);
  kIrqOffCount.at("rmqueue_bulk").set(m, 4);
  kLocalNs.at(1u, 0u).set(m, 5);
  EXPECT_EQ(m, (Metrics{{"allocs", 3}, {"irq_off_rmqueue_bulk_count", 4}, {"store_local_ns_node1_it0", 5}}));
  EXPECT_EQ(kAllocs.get(m), 3);
  EXPECT_TRUE(metric_matches(kLocalNs.info(), "store_local_ns_node1_it0"));
  EXPECT_EQ(kIrqOffCount.info().unit, "");
  EXPECT_EQ(kLocalNs.info().name, "store_local_ns_node{n}_it{i}");
}

// A part that would not read back as its place in the pattern is refused (the part count is
// checked when compiling: at() with one part on kLocalNs does not build).
TEST(MetricHandles, RefuseAPartThatDoesNotFit) {
  EXPECT_THROW(kIrqOffCount.at(""), std::invalid_argument);
  EXPECT_THROW(kIrqOffCount.at("rmqueue_count"), std::invalid_argument);  // "_count" follows the part
  EXPECT_THROW(kIrqOffCount.at("a{b}"), std::invalid_argument);
  EXPECT_THROW(kLocalNs.at("1_it2", 0), std::invalid_argument);
  EXPECT_NO_THROW(kLocalNs.at(12, 3));
}

TEST(MetricTableMarkdown, OneRowPerMetricWithItsMarks) {
  MetricInfo host = kIrqOffCount.info();
  host.owner = "engine";
  host.host_timed = true;
  MetricInfo setting = kAllocs.info();
  setting.owner = "churn";
  setting.setting = true;
  EXPECT_EQ(metrics_markdown({host, setting}),
            "| Metric | Unit | Engines | Declared by | Meaning |\n|---|---|---|---|---|\n"
            "| `irq_off_{site}_count` |  | native, virtual | engine | IRQ-off regions entered at a call site. Host-timed on the "
            "uniprocessor and native engines. |\n"
            "| `allocs` |  | uniprocessor, native, virtual | churn | blocks allocated. A setting, not plotted. |\n");
}

}  // namespace
}  // namespace pagesim::run
