// The model beside a scenario's reference figures (report::reference_table).
#include <gtest/gtest.h>

#include <sstream>

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

// The cells of the row named `name`, split at blanks: the reference's, the model's, how.
std::vector<std::string> cells(const std::string& table, const std::string& name) {
  std::istringstream in(row_of(table, name).substr(std::min(name.size(), row_of(table, name).size())));
  std::vector<std::string> out;
  for (std::string c; in >> c;) out.push_back(c);
  return out;
}
using Cells = std::vector<std::string>;

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

// A seed's form: the median and sample stddev (n - 1) of per-run seconds, host-timed on the
// uniprocessor engine, so "measured" (the pcp counts are the model's); here seed 003's own
// powernv runs, by hand: sorted 51.39 51.39 51.43 51.79 52.24, median 51.43; mean 51.648,
// squared deviations 0.55128, / 4 = 0.13782, sqrt 0.3712 (the population stddev: 0.3321).
TEST(ReferenceTable, MedianAndSampleStddevOverRepeats) {
  scenario::Scenario sc;
  scenario::Reference ref;
  ref.variants = {{"v5.17", "seed"}};
  ref.rows.push_back({.metric = "elapsed_s", .values = {{"v5.17", 51.432255}}, .label = "powernv", .stat = "median"});
  ref.rows.push_back({.metric = "elapsed_s", .values = {{"v5.17", 0.370835}}, .label = "powernv", .stat = "sample_stddev"});
  ref.rows.push_back({.metric = "pcp_refills", .stat = "median"});
  sc.reference = ref;
  std::vector<run::RunResult> runs;
  const double seconds[] = {51.39, 51.79, 52.24, 51.43, 51.39};
  for (unsigned i = 0; i < 5; ++i) runs.push_back(make_run("v5.17", i, {{"elapsed_s", seconds[i]}, {"pcp_refills", 10.0 + i}}));
  const std::string t = report::reference_table(sc, runs);
  EXPECT_EQ(cells(t, "powernv: pagesim.elapsed_s median"), (Cells{"51.43", "51.43", "measured"})) << t;
  EXPECT_EQ(cells(t, "powernv: pagesim.elapsed_s sample_stddev"), (Cells{"0.371", "0.371", "measured"})) << t;
  EXPECT_EQ(cells(t, "pagesim.pcp_refills median"), (Cells{"-", "12.00", "predicted"})) << t;
}

// With a sweep, a row's `at` picks its point (the swept key from each run's point, the rest
// from the resolved scenario); `relative_to` makes a ratio; a row taken where no run was says
// "not run"; notes follow the table.
TEST(ReferenceTable, RowsAtSweepPoints) {
  scenario::Scenario sc;
  sc.resolved = {{"workload", {{"params", {{"mode", "per_subpage"}, {"page_size", "2M"}}}}}};
  sc.sweep = {"workload.params.mode", "per_subpage"};
  scenario::Reference ref;
  ref.variants = {{"v5.17", "seed"}};
  ref.rows.push_back({.metric = "clear_gbs", .values = {{"v5.17", 12.24}}, .label = "Milan",
                      .at = {{"workload.params.mode", "per_subpage"}, {"workload.params.page_size", "2M"}}});
  ref.rows.push_back({.metric = "clear_gbs", .values = {{"v5.17", 17.54}}, .label = "Milan",
                      .at = {{"workload.params.mode", "multi_page"}, {"workload.params.page_size", "2M"}}});
  ref.rows.push_back({.metric = "clear_gbs", .values = {{"v5.17", 37.24}}, .label = "Milan",
                      .at = {{"workload.params.mode", "multi_page"}, {"workload.params.page_size", "1G"}}});
  ref.rows.push_back({.metric = "clear_gbs", .label = "ratio", .at = {{"workload.params.mode", "multi_page"}},
                      .relative_to = {{"workload.params.mode", "per_subpage"}}});
  ref.notes = {"+43.30% on Milan"};
  sc.reference = ref;
  const std::string k = "workload.params.mode";
  const std::vector<run::RunResult> runs = {
      make_run("v5.17", 0, {{"clear_gbs", 5}}, k, "per_subpage"), make_run("v5.17", 1, {{"clear_gbs", 7}}, k, "per_subpage"),
      make_run("v5.17", 0, {{"clear_gbs", 9}}, k, "multi_page"), make_run("v5.17", 1, {{"clear_gbs", 9}}, k, "multi_page")};
  const std::string t = report::reference_table(sc, runs);
  EXPECT_EQ(cells(t, "Milan @ per_subpage, 2M: pagesim.clear_gbs"), (Cells{"12.24", "6.00", "measured"})) << t;
  EXPECT_EQ(cells(t, "Milan @ multi_page, 2M: pagesim.clear_gbs"), (Cells{"17.54", "9.00", "measured"})) << t;
  EXPECT_EQ(cells(t, "Milan @ multi_page, 1G: pagesim.clear_gbs"), (Cells{"37.24", "-", "not", "run"})) << t;
  EXPECT_EQ(cells(t, "ratio @ multi_page / @ per_subpage: pagesim.clear_gbs"), (Cells{"-", "1.50", "measured"})) << t;
  EXPECT_NE(t.find("  note: +43.30% on Milan\n"), std::string::npos) << t;
}

TEST(ReferenceTable, NothingWithoutAReferenceOrItsVariants) {
  const std::vector<run::RunResult> runs = {make_run("v5.18", 0, {{"time.user_time", 1}})};
  EXPECT_EQ(report::reference_table(scenario::Scenario{}, runs), "");
  EXPECT_EQ(report::reference_table(with_reference(), runs), "");
}

}  // namespace
}  // namespace pagesim::test
