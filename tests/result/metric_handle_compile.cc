// Compiled by tests/result/CMakeLists.txt, not linked: as it stands it must compile; with
// PAGESIM_WRONG_PART_COUNT or PAGESIM_PATTERN_AS_METRIC it must not (a handle's parts are
// checked when compiling).
#include "pagesim/result/metrics.h"

namespace pagesim::run {

constexpr MetricPattern<2> kLocalNs{"store_local_ns_node{n}_it{i}", "ns", kVirtual, "loaded latency"};

void write(Metrics& m) {
#if defined(PAGESIM_WRONG_PART_COUNT)
  kLocalNs.at(1).set(m, 1);  // two parts declared, one given
#elif defined(PAGESIM_PATTERN_AS_METRIC)
  constexpr Metric kNode{"fault_pages_node{n}", "pages", kAllEngines, "a pattern needs MetricPattern"};
  kNode.set(m, 1);
#else
  kLocalNs.at(1, 2).set(m, 1);
#endif
}

}  // namespace pagesim::run
