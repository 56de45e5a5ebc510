// READ_ONCE / WRITE_ONCE for fields that other CPUs read without the owner's lock.
//
// The kernel reads a neighbour's struct page (page_is_buddy, move_freepages_block) while the
// page's owner may be writing it: a benign race by design. Relaxed atomics express exactly that,
// compile to plain moves on x86-64, and keep ThreadSanitizer quiet about races the kernel has
// on purpose.
#pragma once

namespace pagesim {

template <class T>
inline T READ_ONCE(const T& x) {
  return __atomic_load_n(&x, __ATOMIC_RELAXED);
}

template <class T, class V>
inline void WRITE_ONCE(T& x, V v) {
  __atomic_store_n(&x, static_cast<T>(v), __ATOMIC_RELAXED);
}

}  // namespace pagesim
