// `pagesim calibrate`: the machine file it writes loads, describes this host's CPUs, and says
// which figures were not measured. Nothing here depends on a timing: the measured values vary
// from run to run and are only required to be in the file.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "pagesim/error.h"
#include "pagesim/report/report.h"
#include "pagesim/vt/calibrate.h"

namespace pagesim::vt {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class Calibrate : public ::testing::Test {
 protected:
  // One quick calibration for the suite: the measurements take about a second.
  static void SetUpTestSuite() { calibration_ = new Calibration(calibrate(CalibrateOptions::quick())); }
  static void TearDownTestSuite() {
    delete calibration_;
    calibration_ = nullptr;
  }
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("pagesim_calibrate_" + std::to_string(::getpid()) + "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static const Calibration& cal() { return *calibration_; }
  fs::path dir_;

 private:
  static Calibration* calibration_;
};

Calibration* Calibrate::calibration_ = nullptr;

unsigned online_cpus() { return static_cast<unsigned>(::sysconf(_SC_NPROCESSORS_ONLN)); }

TEST_F(Calibrate, QuickRunWritesAMachineFileThatLoads) {
  const std::string path = (dir_ / "host.yaml").string();
  report::write_file_atomic(path, render_calibration(cal()));
  const MachineModel m = load_machine_model(path);
  EXPECT_EQ(read_text(path).rfind("# ", 0), 0u);  // the header of measured and not-measured figures
  EXPECT_EQ(m.name, "host");
  EXPECT_EQ(m.geometry.cpus(), online_cpus());
  // Not measured, and written as the single idle point rather than some other machine's shape.
  ASSERT_EQ(m.loaded_latency.size(), 1u);
  EXPECT_EQ(m.loaded_latency[0].utilisation, 0);
  EXPECT_EQ(m.loaded_latency[0].extra_ps, 0u);
  // Both clearing modes are timed and written (their order is the host's to decide).
  EXPECT_GT(m.clear_bw_bytes_per_s, 0);
  EXPECT_GT(m.clear_multi_page_bw_bytes_per_s, 0);
  EXPECT_NEAR(m.clear_multi_page_bw_bytes_per_s, cal().clear_gbs_multi_page * 1e9, 0.005e9);
}

TEST_F(Calibrate, TopologyMatchesTheOnlineCpuCount) {
  const HostTopology h = read_host_topology();
  EXPECT_EQ(h.cpus, online_cpus());
  EXPECT_EQ(h.sockets * h.cores_per_socket * h.threads_per_core, online_cpus());
}

TEST_F(Calibrate, EveryNotMeasuredKeyIsListedInTheFileAndTheSummary) {
  const std::string text = render_calibration(cal());
  const std::string summary = calibration_summary(cal());
  std::set<std::string> listed;
  for (const NotMeasured& n : cal().not_measured) {
    listed.insert(n.key);
    EXPECT_NE(text.find("# not measured: " + n.key + ": "), std::string::npos) << n.key;
    EXPECT_NE(summary.find("not measured: " + n.key + ": "), std::string::npos) << n.key;
    EXPECT_FALSE(n.reason.empty()) << n.key;
    EXPECT_FALSE(n.why_value.empty()) << n.key;
  }
  // What one process on a 1-socket, 2-core VM cannot measure is never passed off as measured.
  for (const char* key : {"latency.dram_remote_ns", "latency.hitm_remote_ns", "memory.upi_bandwidth_gbs",
                          "memory.loaded_latency", "memory.mlp", "caches.snoop_filter"})
    EXPECT_TRUE(listed.count(key)) << key;
}

// chase_knee on curves worked out by hand from the hit model it states, plateau 20 ns and the
// last point DRAM itself at 100 ns (a buffer many times the cache).
TEST(ChaseKnee, FindsTheCapacityWhereTheCurveCrossesHalfWay) {
  const uint64_t MiB = 1 << 20;
  // A 32 MiB cache: at 64 MiB half the loads hit (60 ns, exactly half-way), so
  // C = 64 MiB x (100 - 60) / 80 = 32 MiB.
  EXPECT_EQ(chase_knee({{4 * MiB, 20}, {16 * MiB, 20}, {32 * MiB, 20}, {64 * MiB, 60}, {128 * MiB, 80}, {1024 * MiB, 100}}), 32 * MiB);
  // A 48 MiB cache: 64 MiB is 3/4 hits (40 ns, below half-way); 128 MiB is 3/8 hits (70 ns),
  // so C = 128 MiB x 30 / 80 = 48 MiB.
  EXPECT_EQ(chase_knee({{4 * MiB, 20}, {32 * MiB, 20}, {64 * MiB, 40}, {128 * MiB, 70}, {256 * MiB, 85}, {1024 * MiB, 100}}), 48 * MiB);
  // Noise past the model's line is held between half of the two points around the crossing,
  // and never below the plateau's buffer, which the cache holds.
  EXPECT_EQ(chase_knee({{4 * MiB, 20}, {64 * MiB, 21}, {128 * MiB, 99}, {1024 * MiB, 100}}), 32 * MiB);
  EXPECT_EQ(chase_knee({{4 * MiB, 20}, {8 * MiB, 99}, {1024 * MiB, 100}}), 4 * MiB);
}

TEST(ChaseKnee, NoLevelBetweenTheL2AndDram) {
  // Already DRAM at the first point: a flat curve.
  EXPECT_EQ(chase_knee({{4 << 20, 95}, {8 << 20, 98}, {16 << 20, 100}}), 0u);
  // Already past half-way at the first point: whatever level there is is not past 2x the L2.
  EXPECT_EQ(chase_knee({{4 << 20, 70}, {8 << 20, 90}, {16 << 20, 100}}), 0u);
  EXPECT_EQ(chase_knee({{4 << 20, 20}}), 0u);
}

// A host whose /sys lists no caches: the LLC comes from the chase curve's knee, or, with no
// knee, is the L2 again, and then neither it nor its latency is passed off as measured.
TEST(CalibrateNoCaches, TheLlcIsSoughtInTheChaseCurveAndNeverAssumedAsMeasured) {
  HostTopology host = read_host_topology();
  host.l1d = host.l2 = host.llc = {};
  const Calibration c = calibrate(CalibrateOptions::quick(), host);
  std::set<std::string> measured, not_measured;
  for (const Measured& x : c.measured) measured.insert(x.key);
  for (const NotMeasured& n : c.not_measured) not_measured.insert(n.key);
  ASSERT_GE(c.llc_curve.size(), 2u);
  EXPECT_EQ(c.llc_curve.front().bytes, 2 * c.model.geometry.l2.bytes());
  if (c.llc_is_l2) {
    EXPECT_EQ(c.model.geometry.llc, c.model.geometry.l2);
    EXPECT_TRUE(not_measured.count("caches.llc"));
    EXPECT_TRUE(not_measured.count("latency.llc_local_ns"));
    EXPECT_FALSE(measured.count("latency.llc_local_ns"));
  } else {
    EXPECT_GT(c.model.geometry.llc.bytes(), c.model.geometry.l2.bytes());
    EXPECT_EQ(c.model.geometry.llc.ways, 16u);
    EXPECT_TRUE(measured.count("caches.llc"));
    EXPECT_TRUE(measured.count("latency.llc_local_ns"));
  }
  EXPECT_TRUE(not_measured.count("caches.l1d"));
  EXPECT_TRUE(not_measured.count("caches.l2"));
}

TEST_F(Calibrate, EveryValueOfTheFileIsEitherMeasuredOrListedAsNot) {
  std::set<std::string> measured, not_measured;
  for (const Measured& x : cal().measured) measured.insert(x.key);
  for (const NotMeasured& n : cal().not_measured) not_measured.insert(n.key);
  for (const auto& [key, value] : machine_file_values(cal().model)) {
    if (key == "name") continue;
    EXPECT_NE(measured.count(key) + not_measured.count(key), 0u) << key << " is neither measured nor listed";
    EXPECT_FALSE(measured.count(key) && not_measured.count(key)) << key << " is both";
  }
}

TEST_F(Calibrate, RendersTheShippedMachineBackToTheSameModel) {
  const MachineModel a = load_machine_model(default_machine_file());
  const MachineModel b = parse_machine_model(render_machine_model(a), "rendered.yaml");
  EXPECT_EQ(b.name, a.name);
  EXPECT_EQ(b.geometry.sockets, a.geometry.sockets);
  EXPECT_EQ(b.geometry.cores_per_socket, a.geometry.cores_per_socket);
  EXPECT_EQ(b.geometry.threads_per_core, a.geometry.threads_per_core);
  EXPECT_EQ(b.geometry.l1d, a.geometry.l1d);
  EXPECT_EQ(b.geometry.l2, a.geometry.l2);
  EXPECT_EQ(b.geometry.llc, a.geometry.llc);
  EXPECT_EQ(b.geometry.snoop_filter, a.geometry.snoop_filter);
  EXPECT_EQ(b.freq_mhz, a.freq_mhz);
  EXPECT_EQ(b.latency_ps, a.latency_ps);
  EXPECT_EQ(b.mlp, a.mlp);
  EXPECT_EQ(b.stream_mlp, a.stream_mlp);
  EXPECT_EQ(b.dram_bw_bytes_per_s, a.dram_bw_bytes_per_s);
  EXPECT_EQ(b.upi_bw_bytes_per_s, a.upi_bw_bytes_per_s);
  EXPECT_EQ(b.clear_bw_bytes_per_s, a.clear_bw_bytes_per_s);
  EXPECT_EQ(b.clear_multi_page_bw_bytes_per_s, a.clear_multi_page_bw_bytes_per_s);
  EXPECT_GT(b.clear_multi_page_bw_bytes_per_s, 0);  // optional, but given in the shipped file
  EXPECT_EQ(b.directory_writes, a.directory_writes);
  EXPECT_EQ(b.dram.channels, a.dram.channels);
  ASSERT_EQ(b.loaded_latency.size(), a.loaded_latency.size());
  for (size_t i = 0; i < a.loaded_latency.size(); ++i) {
    EXPECT_EQ(b.loaded_latency[i].utilisation, a.loaded_latency[i].utilisation) << i;
    EXPECT_EQ(b.loaded_latency[i].extra_ps, a.loaded_latency[i].extra_ps) << i;
  }
  EXPECT_EQ(b.lock_line_same_ps, a.lock_line_same_ps);
  EXPECT_EQ(b.lock_line_cross_ps, a.lock_line_cross_ps);
  EXPECT_EQ(b.lock_uncontended_cycles, a.lock_uncontended_cycles);
}

TEST_F(Calibrate, RefusesToWriteIntoTheShippedMachinesDirectory) {
  const fs::path shipped = default_machine_file();
  const fs::path dir = shipped.parent_path();
  const fs::path link = dir_ / "link";
  fs::create_directory_symlink(fs::absolute(dir), link);
  for (const fs::path& p : {shipped, dir / "host.yaml", dir, dir / "sub" / ".." / "new.yaml", link / "host.yaml"}) {
    try {
      refuse_shipped_machines_dir(p.string());
      ADD_FAILURE() << "accepted " << p;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("shipped machines directory"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(refuse_shipped_machines_dir((dir_ / "host.yaml").string()));
  EXPECT_NO_THROW(refuse_shipped_machines_dir(dir.string() + "-not/host.yaml"));
}

}  // namespace
}  // namespace pagesim::vt
