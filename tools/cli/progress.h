// The progress line on stderr:
//   "[v5.17 2/3] measure 45%  faults 14.3k/32.3k, virtual 61.2 ms  run 5/12  ETA 3s".
//
// Shown only when stderr is a terminal and only once the runs have taken more than a second, so
// that short runs, pipes and logs see nothing of it. Redrawn in place with '\r'.
#pragma once

#include <chrono>
#include <cstddef>

#include "pagesim/run/runner.h"

namespace pagesim::cli {

class ProgressLine {
 public:
  // `total_runs`: variants x repeats x sweep points. `enabled` is false for --quiet.
  ProgressLine(size_t total_runs, bool enabled);
  ~ProgressLine() { finish(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void update(const run::Progress& p);
  // Erases the line (before the report is printed).
  void finish();

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool shown_ = false;
  size_t total_, done_ = 0;
  Clock::time_point start_ = Clock::now(), last_draw_{};
};

}  // namespace pagesim::cli
