// random_mixed: mixed-order allocation and free with fault injection, for invariant soaks.
//
// One RandomMixedWorker per CPU. Each step either frees one of the worker's live blocks (with
// probability `free_fraction`, or when the worker is at its cap) or allocates a block of a
// random order and migratetype on the CPU's node. Fault injection and invariant checks happen
// between steps, at quiescent points: in run_random_mixed() on the uniprocessor engine (each step
// on a randomly chosen CPU), between barriers on the others (sim/workload/random_mixed/).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "pagesim/engine/uniprocessor/uniprocessor.h"
#include "pagesim/mm/fault_inject.h"
#include "pagesim/mm/machine.h"
#include "pagesim/mm/page_alloc.h"
#include "pagesim/rng.h"

namespace pagesim::workload {

struct RandomMixedParams {
  uint64_t ops = 100000;
  uint64_t seed = 1;
  double free_fraction = 0.5;
  uint64_t max_live_pages = 0;  // over all CPUs; 0: half of the machine's memory
  double fault_rate = 0.0;      // faults injected per operation
  mm::FaultSpec fault;          // what to corrupt; `subpage` -1 mixes heads and tails
  double fault_on_pcp = 0.3;    // share of faults aimed at pcp lists instead of buddy lists
  uint64_t check_every = 10000; // 0: only at the end
  bool drain_at_end = true;     // return everything, then drain every pcp
};

struct RandomMixedResult {
  uint64_t allocs = 0, frees = 0, alloc_failures = 0, faults_injected = 0;
  uint64_t invariant_checks = 0;
  std::vector<std::string> violations;  // the first violations found, with the op number
  RandomMixedResult& operator+=(const RandomMixedResult& o);
};

// Orders as a page-allocator mix sees them: mostly order 0, some pcp high orders and THP.
unsigned random_mixed_order(Rng& rng);
mm::gfp_t random_mixed_gfp(Rng& rng, unsigned order);

template <class E>
class RandomMixedWorker {
 public:
  RandomMixedWorker(const RandomMixedParams& p, unsigned cpu, uint64_t cap_pages)
      : p_(p), rng_(p.seed, 0x72616e6400000000ull + cpu), cap_(cap_pages) {}

  void step(mm::Mm<E>& mm, E& ex, RandomMixedResult& r) {
    if (!live_.empty() && (live_pages_ >= cap_ || rng_.chance(p_.free_fraction))) {
      const size_t i = rng_.below(live_.size());
      const Live l = live_[i];
      live_[i] = live_.back();
      live_.pop_back();
      live_pages_ -= uint64_t{1} << l.order;
      mm.__free_pages(l.page, l.order);
      r.frees++;
      return;
    }
    const unsigned order = random_mixed_order(rng_);
    if (live_pages_ + (uint64_t{1} << order) > cap_) return;
    const mm::gfp_t gfp = random_mixed_gfp(rng_, order);
    if (mm::Page* page = mm.alloc_pages_node(static_cast<int>(ex.node()), gfp, order)) {
      live_.push_back({page, order});
      live_pages_ += uint64_t{1} << order;
      r.allocs++;
    } else {
      r.alloc_failures++;
    }
  }

  void release_all(mm::Mm<E>& mm, RandomMixedResult& r) {
    for (const Live& l : live_) mm.__free_pages(l.page, l.order);
    r.frees += live_.size();
    live_.clear();
    live_pages_ = 0;
  }

 private:
  struct Live {
    mm::Page* page;
    unsigned order;
  };
  const RandomMixedParams& p_;
  Rng rng_;
  uint64_t cap_;
  std::vector<Live> live_;
  uint64_t live_pages_ = 0;
};

// Between steps: inject the faults due and check invariants when it is time. Returns the
// number of faults injected.
uint64_t random_mixed_inject(mm::Machine& m, const RandomMixedParams& p, Rng& fault_rng, uint64_t ops);
void random_mixed_check(const mm::Machine& m, uint64_t op, RandomMixedResult& r);

// The uniprocessor driver: each operation on a randomly chosen CPU. `progress` (may be empty)
// hears the operations done every 4096.
template <bool Track>
RandomMixedResult run_random_mixed(mm::Machine& m, UniprocessorExec<Track>& ex, const RandomMixedParams& p,
                                   const std::function<void(uint64_t done)>& progress = {});

}  // namespace pagesim::workload
