// The virtual engine's fiber stacks: Boost's guard-paged stacks, which AddressSanitizer forgets
// when they are released. Internal to pagesim_engine_virtual.
#pragma once

#include <cstddef>
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

// A fiber leaves its stack by a context switch, never by returning, so under ASan the redzones
// of the frames it was in stay poisoned after its stack is unmapped. The next mapping at that
// address (another run's fiber stack, a cache model's sets) would then be reported as a stack
// buffer overflow. Unpoisoning the stack as it is released makes its memory plain memory again.
class FiberStack {
 public:
  explicit FiberStack(std::size_t bytes) : stacks_(bytes) {}

  boost::context::stack_context allocate() { return stacks_.allocate(); }
  void deallocate(boost::context::stack_context& sc) noexcept {
#ifdef PAGESIM_ASAN
    // sp is the top: stacks grow down from it.
    __asan_unpoison_memory_region(static_cast<char*>(sc.sp) - sc.size, sc.size);
#endif
    stacks_.deallocate(sc);
  }

 private:
  boost::context::protected_fixedsize_stack stacks_;
};

}  // namespace pagesim
