// `pagesim plot` through gnuplot: pictures for bars, a sweep and lock histograms.
#include <gtest/gtest.h>

#include <filesystem>

#include "pagesim/error.h"
#include "pagesim/report/report.h"
#include "pagesim/scenario/load.h"
#include "report_test_util.h"

namespace pagesim::test {
namespace {

namespace fs = std::filesystem;

bool have_gnuplot() { return std::system("gnuplot --version >/dev/null 2>&1") == 0; }

class PlotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pagesim_plot_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!std::getenv("PAGESIM_KEEP_PLOTS")) fs::remove_all(dir_);
  }
  fs::path dir_;
};

std::vector<run::RunResult> sweep_runs() {
  std::vector<run::RunResult> runs;
  const char* variants[] = {"v5.17", "v5.17+eric", "v5.17+mel", "v5.18"};
  for (int cpus : {1, 2, 4, 8})
    for (unsigned rep = 0; rep < 3; ++rep)
      for (int v = 0; v < 4; ++v) {
        const double ops = 1000.0 * cpus * (1 + 0.1 * v) * (1 + 0.02 * rep);
        run::RunResult r = make_run(variants[v], rep, {{"ops_per_s", ops}, {"pcp_refills", 50.0 * cpus + v}, {"bad_pages", 0}},
                                    "machine.cpus", std::to_string(cpus));
        run::LockStat l{.name = "&zone->lock", .instance = "node0/Normal", .acquisitions = 100};
        for (int b = 6; b < 16; ++b) {
          l.wait_hist.resize(16);
          l.hold_hist.resize(16);
          l.wait_hist[b] = static_cast<uint64_t>(10 + (b * 7 + v * 5) % 13) * cpus;
          l.hold_hist[b] = static_cast<uint64_t>(40 - 2 * b + v);
        }
        r.locks.push_back(l);
        runs.push_back(r);
      }
  return runs;
}

TEST_F(PlotTest, RendersPngAndSvg) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const std::string json = (dir_ / "result.json").string();
  report::write_file_atomic(json, report::to_json({}, sweep_runs(), false).dump(2));
  const std::vector<std::string> files = report::plot(json, (dir_ / "plots").string());
  std::set<std::string> names;
  for (const std::string& f : files) {
    names.insert(fs::path(f).filename().string());
    EXPECT_GT(fs::file_size(f), 1000u) << f;
  }
  // bad_pages is 0 everywhere: no picture. Each picture comes as PNG and SVG.
  for (const char* n : {"metric-ops_per_s", "metric-pcp_refills", "sweep-ops_per_s", "sweep-pcp_refills",
                        "lock-_zone-_lock-wait-machine.cpus=1", "lock-_zone-_lock-hold-machine.cpus=8"}) {
    EXPECT_TRUE(names.count(std::string(n) + ".png")) << n;
    EXPECT_TRUE(names.count(std::string(n) + ".svg")) << n;
  }
  EXPECT_FALSE(names.count("metric-bad_pages.png"));
  const std::string png = read_text(files.front());
  EXPECT_EQ(png.substr(1, 3), "PNG");
}

TEST_F(PlotTest, SinglePointBarsPerVariant) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  std::vector<run::RunResult> runs;
  for (unsigned rep = 0; rep < 3; ++rep)
    for (const char* v : {"v5.17", "v5.17+eric", "v5.17+mel", "v5.18"})
      runs.push_back(make_run(v, rep, {{"throughput_kib_s", 6.3e6 * (1 + 0.1 * (v[5] == '8')) * (1 + 0.02 * rep)}}));
  const std::string json = (dir_ / "result.json").string();
  report::write_file_atomic(json, report::to_json({}, runs, false).dump());
  const std::vector<std::string> files = report::plot(json, dir_.string());
  ASSERT_EQ(files.size(), 2u);  // one metric, no sweep, no locks
  EXPECT_EQ(fs::path(files[0]).filename(), "metric-throughput_kib_s.png");
}

TEST_F(PlotTest, SettingsAreNotPlottedAndCpuSweepsAreLog2) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  std::vector<run::RunResult> runs;
  for (int cpus : {1, 2, 4, 8})
    runs.push_back(make_run("v5.17", 0, {{"ops_per_s", 1000.0 * cpus}, {"threads", 1.0 * cpus}, {"model_valid", 1}},
                            "machine.cpus", std::to_string(cpus)));
  const std::string json = (dir_ / "result.json").string();
  report::write_file_atomic(json, report::to_json({}, runs, false).dump());
  std::set<std::string> names;
  for (const std::string& f : report::plot(json, dir_.string())) names.insert(fs::path(f).filename().string());
  EXPECT_TRUE(names.count("sweep-ops_per_s.png"));
  for (const char* setting : {"metric-threads.png", "sweep-threads.png", "metric-model_valid.png"})
    EXPECT_FALSE(names.count(setting)) << setting;
  const std::string script = read_text((dir_ / "sweep-ops_per_s.gp").string());
  EXPECT_NE(script.find("set logscale x 2"), std::string::npos) << script;
}

// A scenario's `reference:` is drawn beside the model: per figure a reference bar and a model
// bar (its mean at the row's point), "nan" where there is none.
TEST_F(PlotTest, ReferenceBesideTheModel) {
  if (!have_gnuplot()) GTEST_SKIP() << "gnuplot is not installed";
  const scenario::ScenarioSet set = scenario::load_string(
      "machine: {nodes: 1, memory_per_node: 64M}\n"
      "workload: {name: random_mixed, params: {ops: [100, 200]}}\n"
      "reference:\n"
      "  source: a seed\n"
      "  variants: {v5.17: seed}\n"
      "  rows:\n"
      "    - {metric: ops_per_s, label: box, at: {workload.params.ops: 100}, v5.17: 1234.5}\n"
      "    - {metric: ops_per_s, label: box, at: {workload.params.ops: 400}, v5.17: 2345.5}\n",
      "ref.yaml", {});
  std::vector<run::RunResult> runs;
  for (int ops : {100, 200})
    for (unsigned rep = 0; rep < 2; ++rep)
      runs.push_back(make_run("v5.17", rep, {{"ops_per_s", 10.0 * ops + rep}}, "workload.params.ops", std::to_string(ops)));
  const std::string json = (dir_ / "result.json").string();
  report::write_file_atomic(json, report::to_json(set, runs, false).dump());
  std::set<std::string> names;
  for (const std::string& f : report::plot(json, dir_.string())) names.insert(fs::path(f).filename().string());
  EXPECT_TRUE(names.count("reference-ops_per_s.png"));
  EXPECT_TRUE(names.count("reference-ops_per_s.svg"));
  EXPECT_EQ(read_text((dir_ / "reference-ops_per_s.dat").string()), "\"box @ 100\" 1234.5 1000.5\n\"box @ 400\" 2345.5 nan\n");
  const std::string script = read_text((dir_ / "reference-ops_per_s.gp").string());
  EXPECT_NE(script.find("title 'seed (reference)'"), std::string::npos) << script;
  EXPECT_NE(script.find("title 'v5.17 (model)'"), std::string::npos) << script;
}

TEST_F(PlotTest, MissingFileSaysWhy) {
  try {
    report::plot((dir_ / "missing.json").string(), dir_.string());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos) << e.what();
  }
}

TEST_F(PlotTest, MissingOrMalformedJsonIsInputError) {
  EXPECT_THROW(report::plot((dir_ / "missing.json").string(), dir_.string()), InputError);
  report::write_file_atomic((dir_ / "bad.json").string(), "{not json");
  EXPECT_THROW(report::plot((dir_ / "bad.json").string(), dir_.string()), InputError);
}

}  // namespace
}  // namespace pagesim::test
