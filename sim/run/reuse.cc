#include "pagesim/run/reuse.h"

#include "pagesim/engine/registry.h"

namespace pagesim::run {

std::vector<Twin> twin_variants(const scenario::Scenario& sc, size_t v) {
  std::vector<Twin> twins;
  const engine::EngineInfo* e = engine::find_engine(sc.engine);
  if (!e || !e->deterministic) return twins;
  for (size_t u = v; u-- > 0;)
    if (const std::optional<mm::VariantKnobs> d = mm::variant_difference(sc.variants[u].config, sc.variants[v].config))
      twins.push_back({u, *d});
  return twins;
}

std::optional<RunResult> reused_result(const RunResult& twin_run, const Twin& twin, const std::string& variant) {
  if (twin_run.interrupted || (twin_run.variant_reads & twin.differs)) return std::nullopt;
  RunResult r = twin_run;
  r.variant = variant;
  r.reused = Reused{twin_run.variant, twin.differs};
  r.wall_s = 0;
  return r;
}

}  // namespace pagesim::run
