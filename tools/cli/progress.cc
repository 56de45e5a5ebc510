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

// 1234567 -> "1.23M": a count that stays short as it grows.
std::string count_text(uint64_t n) {
  if (n < 10000) return fmt::format("{}", n);
  const double v = static_cast<double>(n);
  if (n < 10000000) return fmt::format("{:.1f}k", v / 1e3);
  return fmt::format("{:.2f}M", v / 1e6);
}

// Virtual time in the unit that keeps it readable: "850 us", "12.3 ms", "4.56 s".
std::string virtual_time_text(double s) {
  if (s < 1e-3) return fmt::format("{:.0f} us", s * 1e6);
  if (s < 1) return fmt::format("{:.1f} ms", s * 1e3);
  return fmt::format("{:.2f} s", s);
}

// What the workload says inside a run: "ops 1.2M/5.0M, virtual 12.3 ms".
std::string inside_text(const run::Progress& p) {
  std::string s;
  if (!p.what.empty()) s = fmt::format("  {} {}/{}", p.what, count_text(p.done), count_text(p.total));
  if (p.virtual_s >= 0) s += fmt::format(", virtual {}", virtual_time_text(p.virtual_s));
  return s;
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
  fmt::print(stderr, "\r[{} {}/{}] {} {:.0f}%{}  run {}/{}{}\033[K", p.variant, p.repeat + 1, p.repeats, p.phase,
             100 * p.fraction, inside_text(p), current, total_, eta);
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
