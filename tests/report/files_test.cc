// Atomic writes: the target is complete or untouched, never truncated, and no temporary file
// is left behind.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "pagesim/error.h"
#include "pagesim/report/report.h"
#include "report_test_util.h"

namespace pagesim::test {
namespace {

namespace fs = std::filesystem;

class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pagesim_files_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  size_t entries() const { return static_cast<size_t>(std::distance(fs::directory_iterator(dir_), fs::directory_iterator())); }
  fs::path dir_;
};

TEST_F(FilesTest, WritesAndReplaces) {
  const std::string path = (dir_ / "out.json").string();
  report::write_file_atomic(path, "first");
  report::write_file_atomic(path, "second, longer");
  EXPECT_EQ(read_text(path), "second, longer");
  EXPECT_EQ(entries(), 1u);  // no temporary left
}

TEST_F(FilesTest, MissingDirectoryIsInputErrorAndCreatesNothing) {
  const std::string path = (dir_ / "no" / "such" / "out.json").string();
  try {
    report::write_file_atomic(path, "x");
    FAIL() << "expected InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir_ / "no"));
  EXPECT_EQ(entries(), 0u);
}

// The temporary name (".<name>.tmp.<pid>.<n>") is longer than the target's, so a target name
// near NAME_MAX makes creating the temporary fail: the existing file must keep its content.
TEST_F(FilesTest, FailedWriteLeavesTheOldFileIntact) {
  const fs::path target = dir_ / std::string(250, 'r');
  std::ofstream(target) << "old content";
  EXPECT_THROW(report::write_file_atomic(target.string(), "new"), InputError);
  EXPECT_EQ(read_text(target.string()), "old content");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(FilesTest, RenameOntoADirectoryFailsCleanly) {
  fs::create_directories(dir_ / "taken");
  EXPECT_THROW(report::write_file_atomic((dir_ / "taken").string(), "x"), InputError);
  EXPECT_TRUE(fs::is_directory(dir_ / "taken"));
  EXPECT_EQ(entries(), 1u);  // the temporary was removed
}

TEST_F(FilesTest, ProcDirLayout) {
  run::RunResult a = make_run("v5.17 thp=false", 1, {}, "machine.cpus", "4");
  a.proc.buddyinfo = "Node 0, zone   Normal      1 \n";
  a.proc.lock_stat = "lock_stat version 0.4\n";
  report::write_proc_dir(dir_.string(), {a});
  const fs::path d = dir_ / "machine.cpus=4" / "v5.17_thp=false" / "1";
  EXPECT_EQ(read_text((d / "buddyinfo").string()), a.proc.buddyinfo);
  EXPECT_EQ(read_text((d / "lock_stat").string()), a.proc.lock_stat);
  EXPECT_FALSE(fs::exists(d / "zoneinfo"));  // not captured: not written
}

}  // namespace
}  // namespace pagesim::test
