// The native engine's driver: one OS thread per simulated CPU, real barriers, host time, and
// each CPU's hardware counters over the windows the workload opens.
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "pagesim/engine/driver_base.h"
#include "pagesim/engine/native/native.h"
#include "pagesim/engine/native/perf_counters.h"
#include "pagesim/error.h"
#include "pagesim/exec/tsc.h"

namespace pagesim::engine {

template <bool Track>
class NativeDriver : public DriverBase<std::chrono::steady_clock::time_point> {
 public:
  using Exec = NativeCpu<Track>;
  using Time = std::chrono::steady_clock::time_point;

  NativeDriver(const RunInput& in, NativeEngine& eng, std::vector<std::unique_ptr<Exec>>& cpus)
      : DriverBase(in), eng_(eng), cpus_(cpus), hw_(cpus.size()) {}

  unsigned nr_cpus() const { return eng_.nr_cpus(); }
  // Runs body(cpu) on every CPU's thread at once: one task per CPU, so nr_tasks must be the
  // CPU count.
  void run_tasks(unsigned nr_tasks, const std::function<void(Exec&)>& body) {
    if (nr_tasks != nr_cpus())
      throw InputError(fmt::format("{}: {} tasks on {} CPUs; the native engine runs one task per CPU", source(), nr_tasks,
                                   nr_cpus()));
    eng_.run([&](unsigned cpu) {
      hw_[cpu].emplace();  // perf_event_open counts the calling thread
      body(*cpus_[cpu]);
    });
  }
  void barrier(Exec&) { eng_.barrier(); }
  Time now(Exec&) const { return std::chrono::steady_clock::now(); }
  double now_ns(Exec&) const { return static_cast<double>(tsc_to_ns(rdtsc())); }
  // Hardware counters of this CPU, accumulated over every window opened here.
  void counters_start(Exec& ex) { hw_[ex.cpu()]->start(); }
  void counters_stop(Exec& ex) { hw_[ex.cpu()]->stop(); }
  // Real threads leave a barrier at their own times: nothing to add.
  void leave_start_barrier(Exec&, uint64_t) {}

  const std::optional<HwCounters>& hw(unsigned cpu) const { return hw_[cpu]; }

 private:
  NativeEngine& eng_;
  std::vector<std::unique_ptr<Exec>>& cpus_;
  std::vector<std::optional<HwCounters>> hw_;  // written only by its CPU's thread
};

}  // namespace pagesim::engine
