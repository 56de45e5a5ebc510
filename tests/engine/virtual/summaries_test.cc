// What summarize_locks makes of several CPUs' LockStatTables (the tables themselves:
// tests/exec/lock_stat_table_test.cc).
#include <gtest/gtest.h>

#include <vector>

#include "engine/summaries.h"
#include "pagesim/exec/lock_stat_table.h"

namespace pagesim {
namespace {

TEST(LockStatTable, SummariesMergeEveryCpusRecordOfALockInIdOrder) {
  LockStatTable a, b;
  a[kHugetlbLockId].acquisitions = 1;
  a[6].acquisitions = 2;
  a[6].wait.add(100);
  b[6].acquisitions = 4;
  b[6].contentions = 1;
  b[6].wait.add(300);
  b[7];  // a record without acquisitions is left out, as a lock nobody took
  const std::vector<run::LockStat> s = engine::summarize_locks({&a, &b});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].instance, "node1/Normal");  // id 6: node 1, ZONE_NORMAL
  EXPECT_EQ(s[0].acquisitions, 6u);
  EXPECT_EQ(s[0].contentions, 1u);
  EXPECT_EQ(s[0].wait_ns_total, 400u);
  EXPECT_EQ(s[0].wait_ns_min, 100u);
  EXPECT_EQ(s[0].wait_ns_max, 300u);
  EXPECT_EQ(s[1].name, "hugetlb_lock");
  EXPECT_EQ(s[1].acquisitions, 1u);
}

}  // namespace
}  // namespace pagesim
