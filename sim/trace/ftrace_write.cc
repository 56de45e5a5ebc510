// Writing a Trace in the kernel's ftrace text format (see ftrace.h for what is not kept).
#include "pagesim/trace/ftrace.h"

#include <fmt/format.h>

#include <charconv>
#include <iterator>
#include <ostream>

namespace pagesim::trace {

namespace {

// x86-64 VMEMMAP_START and sizeof(struct page): the page pointer of a pfn, unhashed.
constexpr uint64_t kVmemmapStart = 0xffffea0000000000;
constexpr uint64_t kStructPageSize = 64;

// The kernel's "%5lu.%06lu" when six decimals give `ts` back, else the shortest text that does.
std::string timestamp_text(double ts) {
  std::string s = fmt::format("{:.6f}", ts);
  double back = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), back);
  if (ec != std::errc() || back != ts) s = fmt::format("{}", ts);
  return s;
}

}  // namespace

void write_ftrace(std::ostream& out, const Trace& t) {
  fmt::memory_buffer buf;
  auto it = std::back_inserter(buf);
  fmt::format_to(it, "# tracer: nop\n#\n# entries-in-buffer/entries-written: {}/{}   #P:{}\n", t.entries_in_buffer,
                 t.entries_written, t.nr_cpus);
  for (const auto& [name, count] : t.skipped) fmt::format_to(it, "# skipped: {} {}\n", name, count);
  fmt::format_to(it,
                 "#\n"
                 "#                                _-----=> irqs-off/BH-disabled\n"
                 "#                               / _----=> need-resched\n"
                 "#                              | / _---=> hardirq/softirq\n"
                 "#                              || / _--=> preempt-depth\n"
                 "#                              ||| / _-=> migrate-disable\n"
                 "#                              |||| /     delay\n"
                 "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
                 "#              | |         |   |||||     |         |\n");
  for (const Event& e : t.events) {
    if (e.kind == EventKind::vmstat_update) {
      fmt::format_to(it, "{:>16}-{:<7} [{:03}] ..... {:>12}: {}: work struct {:016x}: function vmstat_update\n", "<...>", 0,
                     e.cpu, timestamp_text(e.ts), event_name(e.kind), 0);
      continue;
    }
    const bool failed = e.kind == EventKind::mm_page_alloc && e.failed;
    const uint64_t pfn = failed ? kNoPfn : e.pfn;
    const uint64_t page = failed ? 0 : kVmemmapStart + pfn * kStructPageSize;
    fmt::format_to(it, "{:>16}-{:<7} [{:03}] ..... {:>12}: {}: page={:016x} pfn={:#x} order={}", "<...>", 0, e.cpu,
                   timestamp_text(e.ts), event_name(e.kind), page, pfn, unsigned{e.order});
    switch (e.kind) {
      case EventKind::mm_page_alloc:
        fmt::format_to(it, " migratetype={} gfp_flags={}", int{e.migratetype}, t.gfp_texts.at(e.gfp));
        break;
      case EventKind::mm_page_alloc_zone_locked:
        fmt::format_to(it, " migratetype={} percpu_refill={}", int{e.migratetype}, int{e.percpu_refill});
        break;
      case EventKind::mm_page_pcpu_drain:
        fmt::format_to(it, " migratetype={}", int{e.migratetype});
        break;
      case EventKind::mm_page_free:
      case EventKind::mm_page_free_batched:
      case EventKind::vmstat_update:
        break;
    }
    buf.push_back('\n');
    if (buf.size() >= (1u << 20)) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  }
  out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
}

}  // namespace pagesim::trace
