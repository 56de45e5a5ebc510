// The kernel's ftrace text format for the five kmem page events, read and written.
//
// Input is what `cat /sys/kernel/tracing/trace` (or a per_cpu/cpuN/trace) prints with the kmem
// events enabled, plain or .xz-compressed:
//
//   # entries-in-buffer/entries-written: 345/345   #P:2
//               bash-4935    [000] .....   288.902210: mm_page_alloc: page=000000006aef3bfb pfn=0x11c64b order=0 migratetype=0 gfp_flags=GFP_KERNEL_ACCOUNT|__GFP_ZERO|__GFP_COMP
//
// An event line is TASK-PID, an optional "(TGID)" column (record-tgid), [CPU], an optional irq
// flags column of 4 or 5 characters, "TIMESTAMP:", "EVENT:", then NAME=VALUE fields. The task
// name may hold spaces and dashes: the PID is the digits after the last dash before [CPU].
// Lines starting with '#' are comments, except the header's entries and #P:N, which are read;
// blank lines are ignored. Events other than the five below are counted per name in
// Trace::skipped, and so are the kernel's "CPU:N [LOST M EVENTS]" lines (M under the name
// "[LOST EVENTS]").
//
// Fields, per event (kernel 5.x/6.x; fields the event does not use are ignored, so are unknown
// ones; a pfn is 0x-hex as 6.x prints it, or decimal as 4.x did):
//   mm_page_alloc              page pfn order migratetype gfp_flags
//   mm_page_free               page pfn order
//   mm_page_free_batched       page pfn order      (order=0 always on older kernels)
//   mm_page_alloc_zone_locked  page pfn order migratetype [percpu_refill, 5.13+]
//   mm_page_pcpu_drain         page pfn order migratetype
// mm_page_alloc without a page is a failed allocation, not an error: page=0000000000000000,
// page=(nil) or page=(null), pfn=0xffffffffffffffff or pfn=-1, or no pfn at all. Its Event has
// failed = true and pfn = kNoPfn.
//
// Errors throw pagesim::InputError "FILE:LINE:COL: ..." (1-based; the column is that of the
// offending token), followed by the line and a caret: a malformed prefix (task-pid, CPU column,
// timestamp), a missing field, a value that is not a number or is out of range, a timestamp
// going back in time on one CPU (a per-CPU dump that is not sorted across CPUs is fine: see
// sort_by_time), a corrupt .xz stream ("FILE: ..."), a file that cannot be opened.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pagesim/mm/types.h"
#include "pagesim/trace/gfp_names.h"

namespace pagesim::trace {

enum class EventKind : uint8_t {
  mm_page_alloc,
  mm_page_free,
  mm_page_free_batched,
  mm_page_alloc_zone_locked,
  mm_page_pcpu_drain,
  // workqueue_execute_start of vmstat_update: where 6.x decays pcp->high (decay_pcp_high).
  // Other workqueue_execute_start lines are skipped. No fields of Event but ts and cpu.
  vmstat_update,
};
inline constexpr unsigned kNrEventKinds = 6;
std::string_view event_name(EventKind kind);  // "mm_page_alloc", ..., "workqueue_execute_start"

// The pfn of a failed mm_page_alloc (the kernel's -1UL).
inline constexpr uint64_t kNoPfn = ~uint64_t{0};

struct Event {
  double ts = 0;               // seconds, as printed
  uint32_t cpu = 0;            // the [CPU] column
  EventKind kind{};
  uint8_t order = 0;           // 0..63
  int8_t migratetype = -1;     // -1 when the event has none (mm_page_free, mm_page_free_batched)
  bool percpu_refill = false;  // mm_page_alloc_zone_locked only
  bool failed = false;         // mm_page_alloc that returned no page (pfn is then kNoPfn)
  uint64_t pfn = 0;
  uint16_t gfp = 0;            // index into Trace::gfp_texts (mm_page_alloc only; 0 = "")
  uint32_t line = 0;           // 1-based line in the source file
};

struct Trace {
  std::string source;                                    // file name, for messages
  unsigned nr_cpus = 0;                                  // "#P:N" in the header, 0 if absent
  uint64_t entries_in_buffer = 0, entries_written = 0;   // written > in_buffer: events were lost
  std::vector<std::string> gfp_texts{""};                // interned gfp_flags, in order of first use
  std::vector<Event> events;                             // in file order
  std::map<std::string, uint64_t> skipped;               // other event name -> count
  uint32_t max_cpu() const;                              // largest CPU of an event, 0 if none
  std::string_view gfp_text(const Event& e) const { return gfp_texts[e.gfp]; }
};

// Reads a file; a ".xz" name or the xz magic bytes mean liblzma decompresses it first. Trace::source
// is `path` as given.
Trace read_ftrace(const std::string& path);
// The core: the text of `in` (xz magic bytes are decompressed too). `source` names it in messages.
Trace parse_ftrace(std::istream& in, std::string source);
Trace parse_ftrace_text(std::string_view text, std::string source);

// The same text format, with the kernel's header. The task column is "<...>-0" and the irq flags
// "....." (neither is kept); a page pointer is written as its vmemmap address (x86-64,
// 0xffffea0000000000 + 64 * pfn), as with no_hash_pointers; Trace::skipped is written as
// "# skipped: NAME COUNT" comments, which parse_ftrace reads back. parse(write(t)) == t for every
// field of Trace and Event except Event::line, provided t.gfp_texts is in order of first use (as
// parse_ftrace makes it), failed events have pfn kNoPfn, and events are non-decreasing in time
// per CPU.
void write_ftrace(std::ostream& out, const Trace& t);

// Stable sort by timestamp: merges the per-CPU streams of a per-CPU buffer dump.
void sort_by_time(Trace& t);

}  // namespace pagesim::trace
