// LockStatTable: a record per lock a CPU takes, made on first use, and what summarize_locks
// makes of several CPUs' tables.
#include <gtest/gtest.h>

#include <iterator>
#include <vector>

#include "engine/summaries.h"
#include "pagesim/exec/lock_stat_table.h"

namespace pagesim {
namespace {

TEST(LockStatTable, HoldsARecordPerLockTakenInFirstUseOrder) {
  LockStatTable t;
  EXPECT_EQ(t.begin(), t.end());
  LockStatCpu& hugetlb = t[kHugetlbLockId];
  hugetlb.acquisitions = 3;
  for (uint32_t id = 0; id < 100; ++id) t[id].acquisitions += id;  // records added after it
  EXPECT_EQ(&t[kHugetlbLockId], &hugetlb);                           // its reference still holds
  EXPECT_EQ(hugetlb.acquisitions, 3u);
  uint32_t n = 0;
  for (const LockStatTable::Record& r : t) {
    EXPECT_EQ(r.id, n == 0 ? kHugetlbLockId : n - 1);
    ++n;
  }
  EXPECT_EQ(n, 101u);
  const LockStatTable& ct = t;
  EXPECT_EQ(ct[42].acquisitions, 42u);
  EXPECT_EQ(ct[200].acquisitions, 0u);  // never taken: an empty record, and none is added
  EXPECT_EQ(std::distance(t.begin(), t.end()), 101);
  t.clear();
  EXPECT_EQ(t.begin(), t.end());
  EXPECT_EQ(ct[42].acquisitions, 0u);
}

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
