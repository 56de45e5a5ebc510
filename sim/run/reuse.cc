#include "pagesim/run/reuse.h"

#include <algorithm>
#include <map>
#include <tuple>

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

ReusePlan::ReusePlan(const scenario::ScenarioSet& set, const std::vector<Job>& jobs, bool enabled)
    : set_(set), jobs_(jobs), twins_(jobs.size()), settled_(jobs.size(), false) {
  if (!enabled) return;
  std::map<std::tuple<size_t, size_t, unsigned>, size_t> job_of;
  for (size_t i = 0; i < jobs.size(); ++i) job_of[{jobs[i].scenario, jobs[i].variant, jobs[i].repeat}] = i;
  for (size_t i = 0; i < jobs.size(); ++i)
    for (const Twin& t : twin_variants(set[jobs[i].scenario], jobs[i].variant))
      if (auto it = job_of.find({jobs[i].scenario, t.variant, jobs[i].repeat}); it != job_of.end())
        twins_[i].emplace_back(it->second, t);
}

void ReusePlan::settle(size_t job) {
  std::lock_guard<std::mutex> g(mu_);
  settled_[job] = true;
  settled_cv_.notify_all();
}

std::optional<RunResult> ReusePlan::take(size_t job, const std::vector<std::optional<RunResult>>& done) {
  const auto& twins = twins_[job];
  if (twins.empty()) return std::nullopt;
  std::unique_lock<std::mutex> g(mu_);
  settled_cv_.wait(g, [&] { return std::all_of(twins.begin(), twins.end(), [&](const auto& t) { return bool(settled_[t.first]); }); });
  const scenario::Variant& v = set_[jobs_[job].scenario].variants[jobs_[job].variant];
  for (const auto& [j, t] : twins)
    if (done[j])
      if (std::optional<RunResult> r = reused_result(*done[j], t, v.name)) return r;
  return std::nullopt;
}

}  // namespace pagesim::run
