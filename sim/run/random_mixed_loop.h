// The per-CPU random_mixed loop of the threaded engines (native, virtual): chunks of operations
// between two barriers, where CPU 0 injects the faults due and checks invariants while the
// others wait (a quiescent point).
#pragma once

#include <algorithm>

#include "pagesim/mm/machine.h"
#include "pagesim/workload/random_mixed.h"

namespace pagesim::run {

// `barrier()` synchronises all CPUs; `start()`/`stop()` mark the measured phase (called on CPU 0).
template <class E, class Barrier, class Start, class Stop>
void random_mixed_loop(mm::Machine& m, const workload::RandomMixedParams& p, E& ex, mm::Mm<E>& mm, unsigned self,
                       unsigned n, workload::RandomMixedResult& out, Barrier&& barrier, Start&& start, Stop&& stop) {
  const uint64_t cap = (p.max_live_pages ? p.max_live_pages : m.spec().total_pages() / 2) / n;
  const uint64_t per_cpu = p.ops / n;
  const uint64_t chunk = p.check_every ? std::max<uint64_t>(1, p.check_every / n) : per_cpu;
  workload::RandomMixedWorker<E> w(p, self, cap);
  Rng fault_rng(p.seed, 0x6661756c00000000ull);
  barrier();
  if (self == 0) start();
  for (uint64_t done = 0; done < per_cpu;) {
    const uint64_t k = std::min(chunk, per_cpu - done);
    ex.sys_enter();
    for (uint64_t i = 0; i < k; ++i) w.step(mm, ex, out);
    ex.sys_exit();
    done += k;
    barrier();
    if (self == 0) {
      out.faults_injected += workload::random_mixed_inject(m, p, fault_rng, k * n);
      if (p.check_every) workload::random_mixed_check(m, done * n, out);
    }
    barrier();
  }
  if (self == 0) stop();
  w.release_all(mm, out);
  mm.drain_local_pages();
}

}  // namespace pagesim::run
