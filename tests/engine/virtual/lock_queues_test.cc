// LockQueues: waiters get the lock in arrival order, each at the release plus the handoff the
// machine file prices, never before the arrivals' RMWs have given the lock word's line back.
#include <gtest/gtest.h>

#include "pagesim/engine/virtual/lock_queues.h"

namespace pagesim {
namespace {

constexpr uint32_t kLock = 3;

vt::MachineModel machine() { return vt::load_machine_model(vt::default_machine_file()); }

TEST(LockQueues, AFreeLockIsTakenAtOnceAndAHeldOneIsNot) {
  const vt::MachineModel m = machine();
  LockQueues q(m);
  EXPECT_FALSE(q.held(kLock));
  EXPECT_TRUE(q.try_acquire(kLock, 0));
  EXPECT_TRUE(q.held(kLock));
  EXPECT_FALSE(q.try_acquire(kLock, 1));
  EXPECT_FALSE(q.release(kLock, 0, 500).has_value());  // nobody waits: the lock is free
  EXPECT_FALSE(q.held(kLock));
}

TEST(LockQueues, GrantsInArrivalOrderAtTheReleasePlusTheHandoff) {
  const vt::MachineModel m = machine();
  const vt::ps_t same = m.lock_line_ps(0, 0), cross = m.lock_line_ps(0, 1);
  ASSERT_LT(same, cross);
  LockQueues q(m);
  ASSERT_TRUE(q.try_acquire(kLock, 0));  // task 0 on node 0 holds it, released after the arrivals' RMWs
  q.arrive(kLock, 1, 0, 100);            // task 1 on node 0
  q.arrive(kLock, 2, 1, 200);            // task 2 on node 1: its RMWs take the line to node 1
  EXPECT_EQ(q.nr_waiting(kLock), 2u);

  const auto first = q.release(kLock, 0, 1000000);
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->task, 1u);
  // The line comes back from node 1 to the holder on node 0, then goes to the head on node 0.
  EXPECT_EQ(first->at, 1000000 + cross + 2 * same);
  EXPECT_TRUE(q.held(kLock));

  const auto second = q.release(kLock, 0, 2000000);
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->task, 2u);
  EXPECT_EQ(second->at, 2000000 + same + 2 * cross);  // node 0 to node 1, twice

  EXPECT_FALSE(q.release(kLock, 1, 3000000).has_value());
  EXPECT_FALSE(q.held(kLock));
  EXPECT_EQ(q.nr_waiting(kLock), 0u);
}

TEST(LockQueues, AReleaseBeforeTheArrivalsRmwsWaitsForTheLine) {
  const vt::MachineModel m = machine();
  const vt::ps_t cross = m.lock_line_ps(0, 1);
  LockQueues q(m);
  ASSERT_TRUE(q.try_acquire(kLock, 0));
  q.arrive(kLock, 1, 1, 1000);  // the line is busy until 1000 + cross, then on node 1
  const auto g = q.release(kLock, 0, 400);
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->at, 1000 + cross + cross + 2 * cross);
}

TEST(LockQueues, AbandonLeavesEveryLockFree) {
  const vt::MachineModel m = machine();
  LockQueues q(m);
  ASSERT_TRUE(q.try_acquire(kLock, 0));
  q.arrive(kLock, 1, 0, 100);
  q.abandon();
  EXPECT_FALSE(q.held(kLock));
  EXPECT_EQ(q.nr_waiting(kLock), 0u);
  EXPECT_TRUE(q.try_acquire(kLock, 1));
}

}  // namespace
}  // namespace pagesim
