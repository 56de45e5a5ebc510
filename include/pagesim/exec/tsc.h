// A cheap timestamp for the native engine: rdtsc, calibrated once against steady_clock.
// Read only around lock operations and IRQ-off regions, never per access.
#pragma once

#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace pagesim {

inline uint64_t rdtsc() {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return 0;
#endif
}

// Nanoseconds per TSC tick, measured on first use (about 20 ms).
double tsc_ns_per_tick();
inline uint64_t tsc_to_ns(uint64_t ticks) { return static_cast<uint64_t>(static_cast<double>(ticks) * tsc_ns_per_tick()); }

inline void cpu_relax() {
#if defined(__x86_64__)
  _mm_pause();
#endif
}

}  // namespace pagesim
