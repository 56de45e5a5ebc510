// The kernel test robot's comparison table, from hand-made results.
#include <gtest/gtest.h>

#include <cstdio>

#include "pagesim/error.h"
#include "pagesim/report/report.h"
#include "report_test_util.h"

namespace pagesim::test {
namespace {

// Three repeats of two kernels, shaped after the robot's e-mail (seed 001): throughput
// 6352467 ±2% -> 8293110 ±2% (+30.5%), free_time 1 ms ±5% (-7.4%), and rows that exercise
// every rule: no stddev at or under 2%, absolute change for a '%' or '_pct' name, "%.4g" over
// 1e8, three significant digits under 1, and no percentage over a base of 0.
std::vector<run::RunResult> robot_runs() {
  const double tput_a[] = {6157963, 6352467, 6546971}, tput_b[] = {8039188, 8293110, 8547032};
  const double free_a[] = {0.00095, 0.001, 0.00105}, free_b[] = {0.00089, 0.000926, 0.000962};
  const double idle_a[] = {11.51, 11.51, 11.51}, idle_b[] = {16.05, 16.05, 16.05};
  const double insn_a[] = {5.665e10, 5.665e10, 5.665e10}, insn_b[] = {6.911e10, 6.911e10, 6.911e10};
  std::vector<run::RunResult> runs;
  for (unsigned rep = 0; rep < 3; ++rep) {
    runs.push_back(make_run("v5.17-rc7", rep,
                            {{"throughput_kib_s", tput_a[rep]}, {"free_time_s", free_a[rep]}, {"idle%", idle_a[rep]},
                             {"instructions", insn_a[rep]}, {"slowpath_entries", 0}, {"elapsed_s", 218.97},
                             {"iteration_stddev_pct", 5.6}}));
    runs.push_back(make_run("8212a964ee", rep,
                            {{"throughput_kib_s", tput_b[rep]}, {"free_time_s", free_b[rep]}, {"idle%", idle_b[rep]},
                             {"instructions", insn_b[rep]}, {"slowpath_entries", 0.8}, {"elapsed_s", 177.98},
                             {"iteration_stddev_pct", 8.46}}));
  }
  for (run::RunResult& r : runs) r.engine = "virtual";  // modelled times: every change is shown
  runs[0].vmstat["pgalloc_normal"] = 1599893;
  runs[2].vmstat["pgalloc_normal"] = 1424527;
  runs[0].vmstat["pcp_drain"] = 0;  // zero everywhere: not shown
  return runs;
}

// robot_runs with the rows the ordering rules sort: an unchanged count (+0.5%, under the 1%
// floor), an unchanged setting, a change inside the noise, the model's bookkeeping, and the
// allocation checks' struct-page reads counted under two function names.
std::vector<run::RunResult> ordered_runs() {
  std::vector<run::RunResult> runs = robot_runs();
  for (size_t i = 0; i < runs.size(); ++i) {
    const bool base = i % 2 == 0;
    const unsigned rep = runs[i].repeat;
    runs[i].metrics["allocs"] = base ? 2000 : 2010;
    runs[i].metrics["vcpus"] = 128;
    runs[i].metrics["pcp_refills"] = (base ? 1000 : 1050) * (rep == 1 ? 1.0 : rep == 0 ? 0.9 : 1.1);  // +5% in ±8%
    runs[i].metrics["causality_yields"] = base ? 5000 : 9000;
    runs[i].metrics["model_accesses"] = 1e6;
    runs[i].cache.counters[base ? "struct_page_at_check_pcp_refill" : "struct_page_at_check_new_pages"] = base ? 4000 : 2048000;
    runs[i].cache.counters["struct_page_at_rmqueue_bulk"] = 100;
  }
  return runs;
}

report::CompareOptions all_rows() {
  report::CompareOptions o;
  o.all = true;
  return o;
}

report::CompareOptions headline(const std::string& metric) {
  report::CompareOptions o;
  o.headline = metric;
  return o;
}

TEST(CompareTableTest, Golden) { expect_golden("compare_table", report::compare_table(robot_runs(), all_rows())); }

// The default view: the headline first, then the rows that changed beyond the noise, a line
// counting the rest; --all: the rest after them, then the model's bookkeeping apart.
TEST(CompareTableTest, GoldenOrdered) {
  expect_golden("compare_table_changed", report::compare_table(ordered_runs(), headline("throughput_kib_s")));
  report::CompareOptions o = headline("throughput_kib_s");
  o.all = true;
  expect_golden("compare_table_all", report::compare_table(ordered_runs(), o));
}

size_t row_at(const std::string& t, const std::string& stat) {
  const size_t at = t.find("  " + stat);
  return at == std::string::npos ? at : t.rfind('\n', at);
}

TEST(CompareTableTest, HeadlineFirstWhereverItSortsAndWhetherItChangedOrNot) {
  const std::string t = report::compare_table(ordered_runs(), headline("allocs"));  // +0.5%: unchanged
  const size_t first = t.find("\\  \n") + 4;
  EXPECT_EQ(t.find("      2000            +0.5%       2010        pagesim.allocs\n"), first) << t;
  const std::string tput = report::compare_table(ordered_runs(), headline("throughput_kib_s"));
  EXPECT_LT(row_at(tput, "vm-scalability.throughput"), row_at(tput, "vm-scalability.free_time")) << tput;
}

TEST(CompareTableTest, OnlyChangesBeyondTheNoiseUnlessAll) {
  const std::string t = report::compare_table(ordered_runs());
  EXPECT_NE(row_at(t, "pagesim.elapsed_s"), std::string::npos) << t;           // -18.7%
  EXPECT_NE(row_at(t, "pagesim.idle%"), std::string::npos) << t;               // +4.5 points
  EXPECT_NE(row_at(t, "pagesim.slowpath_entries"), std::string::npos) << t;    // from 0
  EXPECT_EQ(row_at(t, "pagesim.allocs"), std::string::npos) << t;              // +0.5%: under 1%
  EXPECT_EQ(row_at(t, "pagesim.vcpus"), std::string::npos) << t;               // equal
  EXPECT_EQ(row_at(t, "pagesim.pcp_refills"), std::string::npos) << t;         // +5% inside ±8% + ±8%
  EXPECT_EQ(row_at(t, "cache.struct_page_at_rmqueue_bulk"), std::string::npos) << t;
  EXPECT_NE(t.find("  (4 rows unchanged within the noise, 2 of the model's bookkeeping: --all; --rows REGEX selects rows)\n"),
            std::string::npos)
      << t;
  const std::string all = report::compare_table(ordered_runs(), all_rows());
  for (const char* stat : {"pagesim.allocs", "pagesim.vcpus", "pagesim.pcp_refills", "cache.struct_page_at_rmqueue_bulk"})
    EXPECT_NE(row_at(all, stat), std::string::npos) << stat << "\n" << all;
  EXPECT_EQ(all.find("rows unchanged"), std::string::npos) << all;
}

// perf-profile rows are shares of cycles: LKP prints their change in points
// ("60.28 +4.7 64.98 perf-profile.children.cycles-pp.do_rw_once").
TEST(CompareTableTest, PerfProfileChangesInPoints) {
  std::vector<run::RunResult> runs;
  for (unsigned rep = 0; rep < 3; ++rep) {
    runs.push_back(make_run("v5.17-rc7", rep, {{"perf-profile.children.do_rw_once", 60.28}, {"perf-profile.self.other", 0.5}}));
    runs.push_back(make_run("8212a964ee", rep, {{"perf-profile.children.do_rw_once", 64.98}, {"perf-profile.self.other", 0.25}}));
  }
  for (run::RunResult& r : runs) r.engine = "virtual";
  const std::string t = report::compare_table(runs, all_rows());
  EXPECT_NE(t.find("     60.28            +4.7       64.98        perf-profile.children.cycles-pp.do_rw_once\n"), std::string::npos) << t;
  EXPECT_NE(t.find("       0.5            -0.2        0.25        perf-profile.self.cycles-pp.other\n"), std::string::npos) << t;
}

TEST(CompareTableTest, BookkeepingInASectionOfItsOwn) {
  const std::string t = report::compare_table(ordered_runs(), all_rows());
  const size_t section = t.find("\n  the model's own bookkeeping (not a kernel quantity):\n");
  ASSERT_NE(section, std::string::npos) << t;
  EXPECT_GT(row_at(t, "pagesim.causality_yields"), section) << t;
  EXPECT_GT(row_at(t, "pagesim.model_accesses"), section) << t;
  EXPECT_LT(row_at(t, "proc-vmstat.pgalloc_normal"), section) << t;
  EXPECT_EQ(report::compare_table(ordered_runs()).find("causality_yields"), std::string::npos);
}

TEST(CompareTableTest, RowsRegexSelectsChangedOrNot) {
  report::CompareOptions o;
  o.rows = "allocs$|yields";
  const std::string t = report::compare_table(ordered_runs(), o);
  EXPECT_NE(row_at(t, "pagesim.allocs"), std::string::npos) << t;
  EXPECT_NE(row_at(t, "pagesim.causality_yields"), std::string::npos) << t;
  EXPECT_EQ(row_at(t, "vm-scalability.throughput"), std::string::npos) << t;
  EXPECT_EQ(row_at(t, "pagesim.elapsed_s"), std::string::npos) << t;
  EXPECT_EQ(t.find("rows unchanged"), std::string::npos) << t;
  // A label matches too: the functions of a quantity's row.
  o.rows = "check_pcp_refill";
  EXPECT_NE(row_at(report::compare_table(ordered_runs(), o), "cache.struct_page_at_alloc_checks"), std::string::npos);
  o.rows = "allocs(";
  try {
    report::compare_table(ordered_runs(), o);
    ADD_FAILURE() << "a bad --rows was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("--rows allocs(:"), std::string::npos) << e.what();
  }
}

// 5.17's head-only refill check reads struct pages at check_pcp_refill, Mel's every-subpage walk
// at check_new_pages: one quantity, one row, keyed by what it counts, the functions beside it.
TEST(CompareTableTest, OneQuantityOneRowUnderEitherFunctionName) {
  const std::string t = report::compare_table(ordered_runs());
  EXPECT_NE(t.find("      4000        +51100.0%    2048000        cache.struct_page_at_alloc_checks (check_new_pages, check_pcp_refill)\n"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("cache.struct_page_at_check_"), std::string::npos) << t;
  const nlohmann::ordered_json j = report::compare_json(ordered_runs());
  bool seen = false;
  for (const auto& row : j)
    if (row["metric"] == "cache.struct_page_at_alloc_checks") {
      seen = true;
      EXPECT_EQ(row["label"], "check_new_pages, check_pcp_refill");
    } else {
      EXPECT_EQ(row["bookkeeping"], row["metric"] == "pagesim.causality_yields" || row["metric"] == "pagesim.model_accesses")
          << row["metric"];
    }
  EXPECT_TRUE(seen);
}

// The headline row in exactly the robot's layout, built from lib/compare.rb's printf formats:
// "%10d" avg, " ±%3d%%" stddev, "%+10.1f%% " change.
TEST(CompareTableTest, ThroughputRowMatchesTheRobot) {
  char line[256];
  std::snprintf(line, sizeof line, "%10d \u00b1%3d%%%+10.1f%% %10d \u00b1%3d%%  %s\n", 6352467, 2, 30.5, 8293110, 2,
                "vm-scalability.throughput");
  EXPECT_NE(report::compare_table(robot_runs(), all_rows()).find(line), std::string::npos) << report::compare_table(robot_runs(), all_rows());
  EXPECT_EQ(std::string(line), "   6352467 \u00b1  2%     +30.5%    8293110 \u00b1  2%  vm-scalability.throughput\n");
}

TEST(CompareTableTest, LkpFormattingRules) {
  const std::string t = report::compare_table(robot_runs(), all_rows());
  // Under 1: three significant digits, never 0.00 for a non-zero value; stddev above 2%
  // shown even for a tiny average.
  EXPECT_NE(t.find("     0.001 \u00b1  4%      -7.4%   0.000926 \u00b1  3%  vm-scalability.free_time\n"), std::string::npos) << t;
  // A '%' or '_pct' stat changes by an absolute amount in points, without '%'; no stddev
  // column at 0%.
  EXPECT_NE(t.find("     11.51            +4.5       16.05        pagesim.idle%\n"), std::string::npos) << t;
  EXPECT_NE(t.find("      5.60            +2.9        8.46        pagesim.iteration_stddev_pct\n"), std::string::npos) << t;
  // Over 1e8: %.4g.
  EXPECT_NE(t.find(" 5.665e+10           +22.0%  6.911e+10        pagesim.instructions\n"), std::string::npos) << t;
  // 0 -> non-zero: no percentage (LKP would print its 1e-100 guard's +8e+101%), the new value
  // alone.
  EXPECT_NE(t.find("      0.00                         0.8        pagesim.slowpath_entries\n"), std::string::npos) << t;
  EXPECT_EQ(t.find("e+10"), t.find("e+10 ")) << "no exponent in a change column";
  // A counter only some runs carry (missing samples count 0, as LKP fills them); an all-zero
  // counter is not shown.
  EXPECT_NE(t.find("proc-vmstat.pgalloc_normal"), std::string::npos);
  EXPECT_EQ(t.find("proc-vmstat.pcp_drain"), std::string::npos);
  // Header: names in 16- and 27-wide columns, then the %stddev/%change header lines.
  EXPECT_NE(t.find("       v5.17-rc7                  8212a964ee \n---------------- --------------------------- \n"
                   "         %stddev     %change         %stddev\n             \\          |                \\  \n"),
            std::string::npos)
      << t;
}

TEST(CompareTableTest, OneBlockPerSweepPointAndBaseFirst) {
  std::vector<run::RunResult> runs;
  for (const char* cpus : {"1", "2"})
    for (unsigned rep = 0; rep < 2; ++rep)
      for (const char* v : {"v5.17", "v5.17+mel"})
        runs.push_back(make_run(v, rep, {{"ops_per_s", std::string(v) == "v5.17" ? 100.0 : 150.0}}, "machine.cpus", cpus));
  for (run::RunResult& r : runs) r.engine = "virtual";
  const std::string t = report::compare_table(runs, all_rows());
  EXPECT_NE(t.find("engine/repeats/machine.cpus:\n  virtual/2/1\n"), std::string::npos) << t;
  EXPECT_NE(t.find("engine/repeats/machine.cpus:\n  virtual/2/2\n"), std::string::npos) << t;
  EXPECT_LT(t.find("virtual/2/1"), t.find("virtual/2/2"));
  EXPECT_NE(t.find("    100.00           +50.0%     150.00        pagesim.ops_per_s\n"), std::string::npos) << t;

  const nlohmann::ordered_json j = report::compare_json(runs);
  ASSERT_EQ(j.size(), 2u);
  EXPECT_EQ(j[0]["sweep"]["value"], "1");
  EXPECT_EQ(j[0]["base"], "v5.17");
  EXPECT_EQ(j[0]["values"][0]["change"], nullptr);
  EXPECT_DOUBLE_EQ(j[0]["values"][1]["change"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(j[0]["values"][1]["stddev_pct"].get<double>(), 0.0);
}

// show_perf_change prints an average between 1000 and 1e8 with "%10d", which Ruby truncates:
// 1234.75 shows as 1234, not 1235. A stat that is 0 in every run is left out, the test's own
// (pagesim.*) as well as a monitor's (proc-vmstat).
TEST(CompareTableTest, MidRangeAveragesTruncateAndZeroStatsGo) {
  std::vector<run::RunResult> runs;
  for (unsigned rep = 0; rep < 2; ++rep) {
    runs.push_back(make_run("v5.17", rep, {{"ops_per_s", rep ? 1235.0 : 1234.5}, {"slowpath_entries", 0}}));
    runs.push_back(make_run("v5.18", rep, {{"ops_per_s", 2469.5}, {"slowpath_entries", 0}}));
  }
  for (run::RunResult& r : runs) {
    r.engine = "virtual";
    r.vmstat["pcp_drain"] = 0;
  }
  const std::string t = report::compare_table(runs, all_rows());
  EXPECT_NE(t.find("\n      1234          +100.0%       2469        pagesim.ops_per_s\n"), std::string::npos) << t;
  EXPECT_EQ(t.find("pagesim.slowpath_entries"), std::string::npos) << t;
  EXPECT_EQ(t.find("vmstat.pcp_drain"), std::string::npos) << t;
}

// A vmstat event that no kernel counts keeps the pagesim. prefix; the kernel's are proc-vmstat.
TEST(CompareTableTest, SimulatorOnlyVmstatRowsAreMarked) {
  std::vector<run::RunResult> runs = {make_run("v5.17", 0, {}), make_run("v5.18", 0, {})};
  for (size_t i = 0; i < runs.size(); ++i) {
    runs[i].vmstat["pcp_refill"] = 10 + i;
    runs[i].vmstat["pgalloc"] = 100 + i;
  }
  const std::string t = report::compare_table(runs, all_rows());
  EXPECT_NE(t.find("  pagesim.vmstat.pcp_refill\n"), std::string::npos) << t;
  EXPECT_NE(t.find("  proc-vmstat.pgalloc\n"), std::string::npos) << t;
  EXPECT_EQ(t.find("proc-vmstat.pcp_refill"), std::string::npos) << t;
}

TEST(CompareJsonTest, ZeroBaseHasNoFiniteChange) {
  const nlohmann::ordered_json j = report::compare_json(robot_runs());
  bool seen = false;
  for (const auto& row : j)
    if (row["metric"] == "pagesim.slowpath_entries") {
      seen = true;
      EXPECT_EQ(row["values"][1]["change"], nullptr);
      EXPECT_DOUBLE_EQ(row["values"][1]["avg"].get<double>(), 0.8);
    }
  EXPECT_TRUE(seen);
}

// Host-timed stats on the uniprocessor and native engines: marked, and a change is shown only
// over 3 or more repeats and beyond the noise; modelled counts are always compared.
TEST(CompareTableTest, HostTimedChangesNeedRepeatsAndToStandClearOfTheNoise) {
  auto table = [](unsigned repeats, double spread, double gain) {
    std::vector<run::RunResult> runs;
    for (unsigned rep = 0; rep < repeats; ++rep) {
      const double wobble = rep % 2 ? 1 + spread : 1 - spread;
      runs.push_back(make_run("v5.17", rep, {{"ops_per_s", 1000 * wobble}, {"allocs", 1000}}));
      runs.push_back(make_run("v5.18", rep, {{"ops_per_s", 1000 * gain * wobble}, {"allocs", 1100}}));
    }
    return report::compare_table(runs, all_rows());
  };
  const std::string two = table(2, 0.01, 1.5);
  EXPECT_NE(two.find("                   1500        pagesim.ops_per_s  (host clock)\n"), std::string::npos) << two;
  EXPECT_NE(two.find("+10.0%"), std::string::npos) << two;  // allocs: a modelled count
  const std::string clear = table(4, 0.01, 1.5);
  EXPECT_NE(clear.find("+50.0%       1500        pagesim.ops_per_s  (host clock)"), std::string::npos) << clear;
  const std::string noisy = table(4, 0.2, 1.1);  // +10% inside 20% + 20% of stddev
  EXPECT_EQ(noisy.find("+10.0%       1100 \u00b1 20%  pagesim.ops_per_s"), std::string::npos) << noisy;
  EXPECT_NE(noisy.find("pagesim.ops_per_s  (host clock)"), std::string::npos) << noisy;
}

}  // namespace
}  // namespace pagesim::test
