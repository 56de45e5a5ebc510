// Atomic writes: the target is complete or untouched, never truncated, and no temporary file
// is left behind.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

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

// Output targets: a symlink is followed and stays a link; a device or FIFO is written through
// and never replaced (docs/output.md). Device nodes are private ones made with mknod in the test's
// folder; where mknod is not allowed (no root), those cases are skipped.
TEST_F(FilesTest, SymlinkToAFileReplacesTheTargetAndStaysALink) {
  const fs::path target = dir_ / "target.json", link = dir_ / "link.json";
  report::write_file_atomic(target.string(), "old");
  fs::create_symlink("target.json", link);  // relative, read from the link's directory
  report::write_file_atomic(link.string(), "new");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(read_text(target.string()), "new");
  EXPECT_EQ(entries(), 2u);
}

TEST_F(FilesTest, DanglingSymlinkCreatesItsTarget) {
  const fs::path link = dir_ / "link.json";
  fs::create_symlink(dir_ / "made.json", link);
  report::write_file_atomic(link.string(), "made");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_EQ(read_text((dir_ / "made.json").string()), "made");
}

TEST_F(FilesTest, DirectoryIsInputError) {
  EXPECT_THROW(report::write_file_atomic(dir_.string(), "x"), InputError);
  EXPECT_TRUE(fs::is_directory(dir_));
}

bool make_char_device(const fs::path& p, unsigned major, unsigned minor) {
  return ::mknod(p.c_str(), S_IFCHR | 0666, makedev(major, minor)) == 0;
}

TEST_F(FilesTest, NullDeviceIsWrittenThroughAndKept) {
  const fs::path null = dir_ / "null";
  if (!make_char_device(null, 1, 3)) GTEST_SKIP() << "mknod not allowed here";
  report::write_file_atomic(null.string(), "discarded");
  EXPECT_TRUE(fs::is_character_file(null));
  const fs::path link = dir_ / "stdout";  // as /dev/stdout links to a device
  fs::create_symlink(null, link);
  report::write_file_atomic(link.string(), "discarded");
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(link)));
  EXPECT_TRUE(fs::is_character_file(null));
  EXPECT_EQ(entries(), 2u);
}

TEST_F(FilesTest, FullDeviceFailsAndIsKept) {
  const fs::path full = dir_ / "full";
  if (!make_char_device(full, 1, 7)) GTEST_SKIP() << "mknod not allowed here";
  EXPECT_THROW(report::write_file_atomic(full.string(), "no room"), InputError);
  EXPECT_TRUE(fs::is_character_file(full));
  EXPECT_EQ(entries(), 1u);
}

TEST_F(FilesTest, FifoIsStreamedToItsReader) {
  const fs::path fifo = dir_ / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = read_text(fifo.string()); });
  report::write_file_atomic(fifo.string(), "streamed");
  reader.join();
  EXPECT_EQ(got, "streamed");
  EXPECT_TRUE(fs::is_fifo(fifo));
}

// --proc into a folder with an earlier run: the new tree replaces it whole, so no folder of the
// earlier run stays beside the new ones; a target that is not a folder is refused untouched.
TEST_F(FilesTest, ProcTreeReplacesAnEarlierRunWhole) {
  const fs::path proc = dir_ / "proc";
  std::vector<run::RunResult> earlier = {make_run("v5.17", 0, {}), make_run("v5.17", 1, {})};
  for (run::RunResult& r : earlier) r.proc.vmstat = "nr_free_pages 1\n";
  report::write_proc_dir(proc.string(), earlier);
  ASSERT_TRUE(fs::exists(proc / "v5.17" / "1" / "vmstat"));
  std::vector<run::RunResult> now = {make_run("v5.17", 0, {})};
  now[0].proc.vmstat = "nr_free_pages 2\n";
  now[0].bad_page_reports = {"BUG: Bad page state in process pagesim  pfn:1"};
  report::write_proc_dir(proc.string(), now);
  EXPECT_FALSE(fs::exists(proc / "v5.17" / "1"));
  EXPECT_EQ(read_text((proc / "v5.17" / "0" / "vmstat").string()), "nr_free_pages 2\n");
  EXPECT_EQ(read_text((proc / "v5.17" / "0" / "dmesg").string()), "BUG: Bad page state in process pagesim  pfn:1\n");
  EXPECT_EQ(entries(), 1u);  // nothing left beside it

  const fs::path file = dir_ / "not-a-dir";
  report::write_file_atomic(file.string(), "keep");
  EXPECT_THROW(report::write_proc_dir(file.string(), now), InputError);
  EXPECT_EQ(read_text(file.string()), "keep");
  EXPECT_EQ(entries(), 2u);
}

}  // namespace
}  // namespace pagesim::test
