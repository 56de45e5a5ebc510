// A measurement of this host (memory clearing, page faults, struct-page stores) as a workload
// runs it on the host engines: every CPU of the scenario's machine at once, each a native-engine
// thread between two barriers, or one CPU on the uniprocessor engine; the measured phase is
// marked from the first start to the last end. The virtual engine has no host to measure
// (WorkloadInfo::engines leaves it out, and the loader refuses it).
#pragma once

#include <fmt/format.h>

#include <chrono>

#include "pagesim/error.h"
#include "pagesim/workload/program.h"

namespace pagesim::workload {

// fn(cpu, nr_cpus) on every CPU; nr_cpus is 1 on the uniprocessor engine.
template <class D, class F>
void on_host_cpus(D& d, F&& fn) {
  using Clock = std::chrono::steady_clock;
  if constexpr (is_virtual<D>) {
    throw InputError(fmt::format("{}: this workload measures the host: the virtual engine cannot run it", d.source()));
  } else if constexpr (is_uniprocessor<D>) {
    d.mark_start(Clock::now());
    fn(0u, 1u);
    d.mark_end(Clock::now());
  } else {
    const unsigned n = d.nr_cpus();
    d.run_tasks(n, [&](typename D::Exec& ex) {
      d.barrier(ex);
      if (ex.cpu() == 0) d.mark_start(Clock::now());
      fn(ex.cpu(), n);
      d.barrier(ex);
      if (ex.cpu() == 0) d.mark_end(Clock::now());
    });
  }
}

}  // namespace pagesim::workload
