// LockStatTable: a record per lock a CPU takes, made on first use (what summarize_locks makes
// of several CPUs' tables: tests/engine/virtual/summaries_test.cc).
#include <gtest/gtest.h>

#include <iterator>

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

}  // namespace
}  // namespace pagesim
