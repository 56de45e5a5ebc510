// The uniprocessor engine's driver: one host thread and one Exec that plays every CPU in turn
// (exec().set_cpu), so a workload interleaves its tasks' phases itself. Host wall time.
#pragma once

#include <chrono>

#include "pagesim/engine/driver_base.h"
#include "pagesim/engine/uniprocessor/uniprocessor.h"

namespace pagesim::engine {

class UniprocessorDriver : public DriverBase<std::chrono::steady_clock::time_point> {
 public:
  using Exec = UniprocessorExec<true>;
  using Time = std::chrono::steady_clock::time_point;

  UniprocessorDriver(const RunInput& in, Exec& ex) : DriverBase(in), ex_(ex) {}

  Exec& exec() const { return ex_; }
  unsigned nr_cpus() const { return machine().nr_cpus(); }
  Time now() const { return std::chrono::steady_clock::now(); }

 private:
  Exec& ex_;
};

}  // namespace pagesim::engine
