// Which level of the hierarchy served an access.
#pragma once

#include <cstdint>
#include <string_view>

namespace pagesim::cache {

enum class Outcome : uint8_t {
  l1,           // hit in the core's L1d (shared by its SMT siblings)
  l2,           // hit in the core's L2
  llc_local,    // served inside the socket: its LLC, or a clean copy in another core's private
                // caches; also a store to a Shared line whose other copies are all in-socket
  llc_remote,   // a clean copy in another socket's LLC or private caches; also a store to a
                // Shared line with a copy in another socket (the invalidation crosses UPI)
  hitm_local,   // Modified in another core of the same socket
  hitm_remote,  // Modified in another socket (a private cache, or a dirty line in its LLC)
  dram_local,   // no cached copy; the line's home node is the CPU's socket
  dram_remote,  // no cached copy; the line is homed on another socket
  prefetch,     // a prefetch: fills like a load, never counted as a demand hit or miss
  kCount
};
inline constexpr unsigned kNumOutcomes = static_cast<unsigned>(Outcome::kCount);
// The demand outcomes (all but prefetch) come first, so they index arrays of this size.
inline constexpr unsigned kNumDemandOutcomes = static_cast<unsigned>(Outcome::prefetch);

// "l1", "l2", "llc_local", ..., as in reports and JSON keys.
std::string_view outcome_name(Outcome o);

inline constexpr bool is_hitm(Outcome o) {
  return o == Outcome::hitm_local || o == Outcome::hitm_remote;
}
// Served from outside the core's private caches (a demand L2 miss).
inline constexpr bool is_l2_miss(Outcome o) {
  return o != Outcome::l1 && o != Outcome::l2 && o != Outcome::prefetch;
}

}  // namespace pagesim::cache
