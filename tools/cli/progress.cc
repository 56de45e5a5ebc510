// The TTY progress line.
#include "progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

namespace pagesim::cli {

namespace {
std::string eta_text(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}h{:02}m", s / 3600, s / 60 % 60);
}
}  // namespace

ProgressLine::ProgressLine(size_t total_runs, bool enabled)
    : enabled_(enabled && ::isatty(STDERR_FILENO)), total_(total_runs) {}

void ProgressLine::update(const run::Progress& p) {
  if (!enabled_) return;
  if (p.phase == "done") ++done_;
  const Clock::time_point now = Clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < 1.0 || now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  // Runs finished plus the finished share of the current one.
  const double progress = static_cast<double>(done_) + (p.phase == "done" ? 0.0 : p.fraction);
  const std::string eta = progress > 0 ? "  ETA " + eta_text(elapsed * (static_cast<double>(total_) - progress) / progress) : "";
  const size_t current = std::min(total_, done_ + (p.phase == "done" ? 0 : 1));
  fmt::print(stderr, "\r[{} {}/{}] {} {:.0f}%  run {}/{}{}\033[K", p.variant, p.repeat + 1, p.repeats, p.phase,
             100 * p.fraction, current, total_, eta);
  std::fflush(stderr);
  shown_ = true;
}

void ProgressLine::finish() {
  if (!shown_) return;
  fmt::print(stderr, "\r\033[K");
  std::fflush(stderr);
  shown_ = false;
}

}  // namespace pagesim::cli
