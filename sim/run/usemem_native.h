// usemem on the engines: the per-task iteration shared by both, and the phase-ordered driver of
// the uniprocessor engine.
#pragma once

#include "pagesim/mm/hugetlb.h"
#include "pagesim/workload/usemem.h"
#include "usemem_metrics.h"
#include "usemem_params.h"

namespace pagesim::run {

// One task's case iteration: mmap, fault, store loop (timed from `t_start_ns`), munmap.
template <class E>
workload::UsememTaskResult usemem_iteration(mm::Hugetlb<E>& h, E& ex, const workload::UsememParams& p,
                                            workload::DataRegion& data, uint64_t t_start_ns) {
  workload::UsememTask<E> task(h, ex, p, data);
  task.mmap();
  task.fault_all();
  task.store_loop();
  workload::UsememTaskResult& r = task.result();
  usemem_finish(r, workload::now_ns() - t_start_ns);
  const uint64_t f0 = workload::now_ns();
  task.munmap();
  r.free_usecs = (workload::now_ns() - f0) / 1000;
  return r;
}

}  // namespace pagesim::run
