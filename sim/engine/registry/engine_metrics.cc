// The engines' declared metrics, assembled here, in the one library that links every engine.
#include "pagesim/engine/engine.h"
#include "pagesim/engine/engine_metrics.h"
#include "pagesim/engine/native/native.h"
#include "pagesim/engine/virtual/metrics.h"

namespace pagesim::engine {

std::vector<run::MetricInfo> engine_metrics() {
  std::vector<run::MetricInfo> m = run::metric_infos(kElapsedS, kSysS);
  for (const auto& part : {native_metrics(), virtual_metrics(), irq_off_metrics()}) m.insert(m.end(), part.begin(), part.end());
  for (run::MetricInfo& i : m) i.owner = "engine";
  return m;
}

}  // namespace pagesim::engine
