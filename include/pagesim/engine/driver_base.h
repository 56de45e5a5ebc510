// What every engine's driver offers a workload: the run's machine, seed and result, and the
// measured phase's marks in the engine's own clock (`Time`).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "pagesim/engine/engine.h"

namespace pagesim::engine {

template <class Time>
class DriverBase {
 public:
  explicit DriverBase(const RunInput& in) : in_(in) {}

  mm::Machine& machine() const { return in_.machine; }
  uint64_t seed() const { return in_.seed; }
  bool short_mode() const { return in_.short_mode; }
  const std::string& source() const { return in_.source; }
  run::RunResult& result() const { return in_.result; }

  // The measured phase: workloads mark its start and end (the last mark of each kind wins);
  // the engine reports `elapsed_s` from them, and rates are taken over them.
  void mark_start(Time t) { t0_ = t; }
  void mark_end(Time t) { t1_ = t; }
  Time phase_start() const { return t0_; }
  Time phase_end() const { return t1_; }
  double elapsed_s() const { return seconds(t1_ - t0_); }

  // How far the run has come: `done` of `total` `what` at `now`. One task tells it (task 0);
  // the runner hears of it at most every 100 ms of host time, for the TTY progress line.
  void progress(Time now, uint64_t done, uint64_t total, std::string_view what) {
    if (!in_.progress) return;
    const auto host = std::chrono::steady_clock::now();
    if (host - last_progress_ < std::chrono::milliseconds(100)) return;
    last_progress_ = host;
    RunProgress p{what, done, total};
    if constexpr (std::is_integral_v<Time>) p.virtual_s = seconds(now);
    (void)now;  // the host-timed engines' clock says nothing a progress line needs
    in_.progress(p);
  }

 private:
  static double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }
  static double seconds(uint64_t ps) { return static_cast<double>(ps) / 1e12; }  // virtual time

  const RunInput& in_;
  Time t0_{}, t1_{};
  std::chrono::steady_clock::time_point last_progress_{};
};

}  // namespace pagesim::engine
