// The virtual engine's fiber stacks: Boost's guard-paged stacks, pooled across runs, which
// AddressSanitizer forgets when they are released. Internal to pagesim_engine_virtual.
#pragma once

#include <cstddef>
#include <vector>

#include <boost/context/protected_fixedsize_stack.hpp>
#include <boost/context/stack_context.hpp>

#if defined(__SANITIZE_ADDRESS__)
#define PAGESIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PAGESIM_ASAN 1
#endif
#endif
#ifdef PAGESIM_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace pagesim {

// The stacks of an engine's fibers, kept from one run to the next: a run of 128 tasks would
// otherwise map 128 guard-paged stacks, fault their first pages in and unmap them again, each
// unmap a TLB shootdown, which a benchmark's 100-ms runs pay for in kernel time.
//
// A fiber leaves its stack by a context switch, never by returning, so under ASan the redzones
// of the frames it was in stay poisoned when the stack is released. The next fiber on that
// stack, or the next mapping at its address once the pool is gone, would then be reported as
// a stack buffer overflow. Unpoisoning the stack as it is released makes it plain memory again.
class FiberStackPool {
 public:
  explicit FiberStackPool(std::size_t bytes) : stacks_(bytes) {}
  ~FiberStackPool() {
    for (boost::context::stack_context& sc : free_) stacks_.deallocate(sc);
  }
  FiberStackPool(const FiberStackPool&) = delete;
  FiberStackPool& operator=(const FiberStackPool&) = delete;

  boost::context::stack_context allocate() {
    if (free_.empty()) {
      free_.reserve(++mapped_);  // so that release() never allocates
      return stacks_.allocate();
    }
    const boost::context::stack_context sc = free_.back();
    free_.pop_back();
    return sc;
  }
  std::size_t mapped() const { return mapped_; }  // stacks ever mapped: the most fibers at once
  void release(boost::context::stack_context& sc) noexcept {
#ifdef PAGESIM_ASAN
    // sp is the top: stacks grow down from it.
    __asan_unpoison_memory_region(static_cast<char*>(sc.sp) - sc.size, sc.size);
#endif
    free_.push_back(sc);
  }

 private:
  boost::context::protected_fixedsize_stack stacks_;
  std::vector<boost::context::stack_context> free_;
  std::size_t mapped_ = 0;
};

// The stack allocator each fiber is made with: a handle to the engine's pool, which outlives
// every fiber of the engine. `lowest`, when given, receives the stack's lowest address.
class FiberStack {
 public:
  explicit FiberStack(FiberStackPool& pool, char** lowest = nullptr) : pool_(&pool), lowest_(lowest) {}
  boost::context::stack_context allocate() {
    const boost::context::stack_context sc = pool_->allocate();
    if (lowest_) *lowest_ = static_cast<char*>(sc.sp) - sc.size;
    return sc;
  }
  void deallocate(boost::context::stack_context& sc) noexcept { pool_->release(sc); }

 private:
  FiberStackPool* pool_;
  char** lowest_;
};

// An exception that unwound frames of a fiber stack left their redzones poisoned: ASan, which
// does not know the stack, skips __asan_handle_no_return's unpoisoning. Before the exception
// is thrown again from a frame above them, the dead frames between the stack's `lowest`
// address and `here` (a local of that frame) become plain memory again, so that the rethrow's
// own frames are not reported as a stack buffer underflow.
inline void forget_dead_frames(char* lowest, const char* here) {
#ifdef PAGESIM_ASAN
  if (lowest && here > lowest) __asan_unpoison_memory_region(lowest, static_cast<std::size_t>(here - lowest));
#else
  (void)lowest, (void)here;
#endif
}

}  // namespace pagesim
