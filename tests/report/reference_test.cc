// The model beside a scenario's reference figures (report::reference_table).
#include <gtest/gtest.h>

#include "pagesim/report/report.h"
#include "pagesim/scenario/scenario.h"
#include "report_test_util.h"

namespace pagesim::test {
namespace {

scenario::Scenario with_reference() {
  scenario::Scenario sc;
  scenario::Reference ref;
  ref.source = "the robot";
  ref.iterations = 16;
  ref.calibrated = {"v5.17"};
  ref.variants = {{"v5.17", "rc7"}, {"v5.17+mel", "8212a964ee"}};
  ref.rows.push_back({"time.user_time", true, true, "", {{"v5.17", 1600}, {"v5.17+mel", 1200}}});
  ref.rows.push_back({"remote_store_share_pct", false, false, "", {{"v5.17", 25}, {"v5.17+mel", 15}}});
  sc.reference = ref;
  return sc;
}

std::string row_of(const std::string& table, const std::string& name) {
  const size_t at = table.find(name);
  if (at == std::string::npos) return "";
  return table.substr(at, table.find('\n', at) - at);
}

// Per-iteration rows divide the reference's totals by its iterations and the model's by its
// own; percent metrics change by points; each model cell says calibrated or predicted.
TEST(ReferenceTable, PutsTheModelBesideTheReferencePerIteration) {
  const std::vector<run::RunResult> runs = {
      make_run("v5.17", 0, {{"time.user_time", 200}, {"iterations", 2}, {"remote_store_share_pct", 30}}),
      make_run("v5.17", 1, {{"time.user_time", 220}, {"iterations", 2}, {"remote_store_share_pct", 32}}),
      make_run("v5.17+mel", 0, {{"time.user_time", 180}, {"iterations", 2}, {"remote_store_share_pct", 20}}),
  };
  const std::string t = report::reference_table(with_reference(), runs);
  const std::string user = row_of(t, "vm-scalability.time.user_time /it");
  EXPECT_NE(user.find("100.0"), std::string::npos) << t;  // 1600 / 16
  EXPECT_NE(user.find("75.00"), std::string::npos) << t;  // 1200 / 16
  EXPECT_NE(user.find("-25.0%"), std::string::npos) << t;
  EXPECT_NE(user.find("105.0"), std::string::npos) << t;  // (200 + 220) / 2 repeats / 2 iterations
  EXPECT_NE(user.find("90.00"), std::string::npos) << t;
  EXPECT_NE(user.find("calibrated | predicted"), std::string::npos) << t;
  const std::string remote = row_of(t, "perf-stat.overall.node-store-miss-rate%");
  EXPECT_NE(remote.find("-10.0"), std::string::npos) << t;  // points, not a percentage
  EXPECT_NE(remote.find("-11.0"), std::string::npos) << t;
  EXPECT_NE(remote.find("predicted | predicted"), std::string::npos) << t << ": not a calibration target";
}

TEST(ReferenceTable, NothingWithoutAReferenceOrItsVariants) {
  const std::vector<run::RunResult> runs = {make_run("v5.18", 0, {{"time.user_time", 1}})};
  EXPECT_EQ(report::reference_table(scenario::Scenario{}, runs), "");
  EXPECT_EQ(report::reference_table(with_reference(), runs), "");
}

}  // namespace
}  // namespace pagesim::test
