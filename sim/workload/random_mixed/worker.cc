#include "pagesim/workload/random_mixed.h"

#include <fmt/format.h>

#include "pagesim/mm/invariants.h"

namespace pagesim::workload {

RandomMixedResult& RandomMixedResult::operator+=(const RandomMixedResult& o) {
  allocs += o.allocs;
  frees += o.frees;
  alloc_failures += o.alloc_failures;
  faults_injected += o.faults_injected;
  invariant_checks += o.invariant_checks;
  violations.insert(violations.end(), o.violations.begin(), o.violations.end());
  return *this;
}

unsigned random_mixed_order(Rng& rng) {
  const uint64_t r = rng.below(100);
  if (r < 50) return 0;
  if (r < 75) return 1 + static_cast<unsigned>(rng.below(3));
  if (r < 88) return mm::pageblock_order;
  return 4 + static_cast<unsigned>(rng.below(7));  // 4..10 (9 again, rarely)
}

mm::gfp_t random_mixed_gfp(Rng& rng, unsigned order) {
  const uint64_t r = rng.below(10);
  mm::gfp_t gfp = r < 7 ? mm::GFP_HIGHUSER_MOVABLE : r < 9 ? mm::GFP_KERNEL : (mm::GFP_KERNEL | mm::__GFP_RECLAIMABLE);
  if (order > 0 && rng.below(2)) gfp |= mm::__GFP_COMP;
  return gfp;
}

uint64_t random_mixed_inject(mm::Machine& m, const RandomMixedParams& p, Rng& fault_rng, uint64_t ops) {
  uint64_t injected = 0;
  if (p.fault_rate <= 0) return 0;
  for (uint64_t i = 0; i < ops; ++i) {
    if (!fault_rng.chance(p.fault_rate)) continue;
    mm::FaultSpec spec = p.fault;
    spec.where = fault_rng.chance(p.fault_on_pcp) ? mm::FaultWhere::pcp : mm::FaultWhere::buddy;
    if (mm::inject_fault(m, spec, fault_rng)) injected++;
  }
  return injected;
}

void random_mixed_check(const mm::Machine& m, uint64_t op, RandomMixedResult& r) {
  const mm::InvariantReport rep = mm::check_invariants(m);
  r.invariant_checks++;
  for (const std::string& v : rep.violations)
    if (r.violations.size() < 32) r.violations.push_back(fmt::format("after op {}: {}", op, v));
}

template <bool Track>
RandomMixedResult run_random_mixed(mm::Machine& m, UniprocessorExec<Track>& ex, const RandomMixedParams& p,
                                   const std::function<void(uint64_t done)>& progress) {
  using E = UniprocessorExec<Track>;
  RandomMixedResult res;
  Rng pick(p.seed, 0x6370750000000000ull);
  Rng fault_rng(p.seed, 0x6661756c00000000ull);
  mm::Mm<E> mm(m, ex);
  const uint64_t cap = (p.max_live_pages ? p.max_live_pages : m.spec().total_pages() / 2) / m.nr_cpus();
  std::vector<RandomMixedWorker<E>> workers;
  for (unsigned cpu = 0; cpu < m.nr_cpus(); ++cpu) workers.emplace_back(p, cpu, cap);
  for (uint64_t op = 1; op <= p.ops; ++op) {
    const auto cpu = static_cast<unsigned>(pick.below(m.nr_cpus()));
    ex.set_cpu(cpu);
    ex.sys_enter();
    workers[cpu].step(mm, ex, res);
    ex.sys_exit();
    if (progress && op % 4096 == 0) progress(op);
    res.faults_injected += random_mixed_inject(m, p, fault_rng, 1);
    if (p.check_every && op % p.check_every == 0) random_mixed_check(m, op, res);
  }
  if (p.drain_at_end) {
    for (unsigned cpu = 0; cpu < m.nr_cpus(); ++cpu) {
      ex.set_cpu(cpu);
      workers[cpu].release_all(mm, res);
      mm.drain_local_pages();
    }
  }
  random_mixed_check(m, p.ops, res);
  return res;
}

template RandomMixedResult run_random_mixed<false>(mm::Machine&, UniprocessorExec<false>&, const RandomMixedParams&,
                                                   const std::function<void(uint64_t)>&);
template RandomMixedResult run_random_mixed<true>(mm::Machine&, UniprocessorExec<true>&, const RandomMixedParams&,
                                                  const std::function<void(uint64_t)>&);

}  // namespace pagesim::workload
