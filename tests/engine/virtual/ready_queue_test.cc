// ReadyQueue against a sorted reference: whatever the mix of push, pop and replace_top, the
// smallest key comes out first.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "pagesim/engine/virtual/ready_queue.h"

namespace pagesim {
namespace {

TEST(ReadyQueue, AlwaysYieldsTheSmallestKeyUnderMixedOperations) {
  std::mt19937_64 rng(7);  // only the test's inputs; the engine never uses std:: distributions
  ReadyQueue q;
  std::set<ReadyQueue::Key> ref;
  unsigned next_id = 0;
  for (int step = 0; step < 20000; ++step) {
    const uint64_t clock = rng() % 1000;
    switch (ref.empty() ? 0 : rng() % 3) {
      case 0:
        q.push({clock, next_id});
        ref.insert({clock, next_id++});
        break;
      case 1:
        ASSERT_EQ(q.top(), *ref.begin());
        q.pop();
        ref.erase(ref.begin());
        break;
      default: {
        const ReadyQueue::Key k{clock, next_id++};
        ASSERT_EQ(q.replace_top(k), *ref.begin());
        ref.erase(ref.begin());
        ref.insert(k);
      }
    }
    ASSERT_EQ(q.size(), ref.size());
    if (!ref.empty()) {
      ASSERT_EQ(q.top(), *ref.begin());
    }
  }
}

TEST(ReadyQueue, ReplaceTopWithASmallerKeyKeepsItOnTop) {
  ReadyQueue q;
  for (unsigned i = 0; i < 8; ++i) q.push({100 + i, i});
  EXPECT_EQ(q.replace_top({5, 9}), (ReadyQueue::Key{100, 0}));
  EXPECT_EQ(q.top(), (ReadyQueue::Key{5, 9}));
}

}  // namespace
}  // namespace pagesim
