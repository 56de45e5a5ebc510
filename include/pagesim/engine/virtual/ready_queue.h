// ReadyQueue: the virtual-time engine's runnable tasks, a binary min-heap of (clock, task id).
//
// Keys are unique (one per task), so the order of pops is the total order of the keys whatever
// the heap's internal layout: the engine's schedule does not depend on how the heap is built.
//
// replace_top() is the causality yield's operation: the running task goes back in and the
// earliest one comes out, in one sift-down. The running task has only just passed the earliest
// clock, so it usually stops within a level or two; a push followed by a pop would sift it up
// from a leaf to near the root and then sift the last leaf down from the root.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace pagesim {

class ReadyQueue {
 public:
  using Key = std::pair<uint64_t, unsigned>;  // (clock in ps, task id)

  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }
  // The smallest key. Requires !empty().
  const Key& top() const { return heap_.front(); }

  void push(Key k) {
    size_t i = heap_.size();
    heap_.push_back(k);
    while (i > 0) {
      const size_t parent = (i - 1) / 2;
      if (!(k < heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = k;
  }
  // Removes the smallest key. Requires !empty().
  void pop() {
    const Key last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
  }
  // Removes the smallest key and inserts `k`; returns the removed key. Requires !empty().
  Key replace_top(Key k) {
    const Key t = heap_.front();
    sift_down(k);
    return t;
  }
  void clear() { heap_.clear(); }

 private:
  // Places `k` at the root's position and moves it down to where it belongs.
  void sift_down(Key k) {
    const size_t n = heap_.size();
    size_t i = 0;
    for (;;) {
      size_t c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && heap_[c + 1] < heap_[c]) ++c;
      if (!(heap_[c] < k)) break;
      heap_[i] = heap_[c];
      i = c;
    }
    heap_[i] = k;
  }

  std::vector<Key> heap_;
};

}  // namespace pagesim
