#include "pagesim/cache/outcome.h"

#include <array>

namespace pagesim::cache {

std::string_view outcome_name(Outcome o) {
  static constexpr std::array<std::string_view, kNumOutcomes> kNames = {
      "l1", "l2", "llc_local", "llc_remote", "hitm_local", "hitm_remote",
      "dram_local", "dram_remote", "prefetch"};
  const auto i = static_cast<unsigned>(o);
  return i < kNumOutcomes ? kNames[i] : "?";
}

}  // namespace pagesim::cache
