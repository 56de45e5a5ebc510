// The ftrace reader and writer: each event's fields from literal lines, the header, skipped
// events, errors with their exact position, the two real traces of /work/shared/traces, .xz
// input, the round trip through write_ftrace, and gfp flag names.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <lzma.h>
#include <unistd.h>

#include "pagesim/error.h"
#include "pagesim/trace/ftrace.h"
#include "pagesim/trace/gfp_names.h"

namespace pagesim::trace {
namespace {

namespace fs = std::filesystem;

Trace parse(const std::string& text, const std::string& source = "dev.trace") {
  std::istringstream in(text);
  return parse_ftrace(in, source);
}

// The InputError message of parsing `text`, or "" when it parses.
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The first line of an error message (the rest is the source line and a caret).
std::string first_line(const std::string& msg) { return msg.substr(0, msg.find('\n')); }

std::string traces_dir() { return PAGESIM_TRACES_DIR; }

fs::path temp_file(const std::string& name) {
  return fs::temp_directory_path() / (std::to_string(::getpid()) + "-" + name);
}

// Every field of `e` against `want`; `line` too unless `with_line` is false.
void expect_event(const Event& e, const Event& want, bool with_line = true) {
  EXPECT_EQ(e.ts, want.ts);
  EXPECT_EQ(e.cpu, want.cpu);
  EXPECT_EQ(e.kind, want.kind);
  EXPECT_EQ(e.order, want.order);
  EXPECT_EQ(e.migratetype, want.migratetype);
  EXPECT_EQ(e.percpu_refill, want.percpu_refill);
  EXPECT_EQ(e.failed, want.failed);
  EXPECT_EQ(e.pfn, want.pfn);
  EXPECT_EQ(e.gfp, want.gfp);
  if (with_line) {
    EXPECT_EQ(e.line, want.line);
  }
}

void expect_same_events(const Trace& a, const Trace& b) {
  ASSERT_EQ(a.events.size(), b.events.size());
  for (size_t i = 0; i < a.events.size(); ++i) {
    const Event &x = a.events[i], &y = b.events[i];
    SCOPED_TRACE(::testing::Message() << "event " << i << " (line " << x.line << " of " << a.source << ")");
    expect_event(x, y, false);
    ASSERT_FALSE(::testing::Test::HasFailure());
    ASSERT_EQ(a.gfp_text(x), b.gfp_text(y));
  }
}

void expect_same_trace(const Trace& a, const Trace& b) {
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.nr_cpus, b.nr_cpus);
  EXPECT_EQ(a.entries_in_buffer, b.entries_in_buffer);
  EXPECT_EQ(a.entries_written, b.entries_written);
  EXPECT_EQ(a.gfp_texts, b.gfp_texts);
  EXPECT_EQ(a.skipped, b.skipped);
  expect_same_events(a, b);
}

Trace round_trip(const Trace& t) {
  std::ostringstream out;
  write_ftrace(out, t);
  return parse(out.str(), t.source);
}

TEST(FtraceEvents, Names) {
  EXPECT_EQ(event_name(EventKind::mm_page_alloc), "mm_page_alloc");
  EXPECT_EQ(event_name(EventKind::mm_page_free), "mm_page_free");
  EXPECT_EQ(event_name(EventKind::mm_page_free_batched), "mm_page_free_batched");
  EXPECT_EQ(event_name(EventKind::mm_page_alloc_zone_locked), "mm_page_alloc_zone_locked");
  EXPECT_EQ(event_name(EventKind::mm_page_pcpu_drain), "mm_page_pcpu_drain");
}

TEST(FtraceEvents, MmPageAllocWithSpacesAndDashesInTheTaskName) {
  const Trace t = parse(
      "# tracer: nop\n"
      "   Web Content-x-1234    [001] d..3.   289.249846: mm_page_alloc: page=000000006aef3bfb pfn=0x11c64b "
      "order=3 migratetype=1 gfp_flags=GFP_KERNEL_ACCOUNT|__GFP_ZERO|__GFP_COMP\n");
  ASSERT_EQ(t.events.size(), 1u);
  expect_event(t.events[0], {.ts = 289.249846, .cpu = 1, .kind = EventKind::mm_page_alloc, .order = 3,
                             .migratetype = 1, .pfn = 0x11c64b, .gfp = 1, .line = 2});
  EXPECT_EQ(t.gfp_text(t.events[0]), "GFP_KERNEL_ACCOUNT|__GFP_ZERO|__GFP_COMP");
  EXPECT_EQ(t.max_cpu(), 1u);
}

TEST(FtraceEvents, MmPageFreeOfAKworker) {
  const Trace t = parse("kworker/0:1-events-41 [002] ..s1. 12.000001: mm_page_free: page=0000000036474c5a "
                        "pfn=0x125c9d order=9\n");
  ASSERT_EQ(t.events.size(), 1u);
  expect_event(t.events[0], {.ts = 12.000001, .cpu = 2, .kind = EventKind::mm_page_free, .order = 9, .pfn = 0x125c9d, .line = 1});
}

TEST(FtraceEvents, MmPageFreeBatchedWithoutTheFlagsColumn) {
  const Trace t = parse("\n              sh-4947    [003]   289.246606: mm_page_free_batched: page=00000000de276158 "
                        "pfn=0x112ca2 order=0\n");
  ASSERT_EQ(t.events.size(), 1u);
  expect_event(t.events[0], {.ts = 289.246606, .cpu = 3, .kind = EventKind::mm_page_free_batched, .pfn = 0x112ca2, .line = 2});
}

TEST(FtraceEvents, MmPageAllocZoneLockedWithFourFlagsAndTgid) {
  const Trace t = parse("             tar-4948    (   4940) [001] d..3   289.249846: mm_page_alloc_zone_locked: "
                        "page=0000000046316de4 pfn=0x109ea5 order=1 migratetype=2 percpu_refill=1\n");
  ASSERT_EQ(t.events.size(), 1u);
  expect_event(t.events[0], {.ts = 289.249846, .cpu = 1, .kind = EventKind::mm_page_alloc_zone_locked, .order = 1,
                             .migratetype = 2, .percpu_refill = true, .pfn = 0x109ea5, .line = 1});

  // Before 5.13 there is no percpu_refill.
  const Trace old = parse("tar-4948 [001] d..3 1.0: mm_page_alloc_zone_locked: page=0000000046316de4 pfn=0x109ea5 "
                          "order=0 migratetype=1\n");
  ASSERT_EQ(old.events.size(), 1u);
  EXPECT_FALSE(old.events[0].percpu_refill);
}

TEST(FtraceEvents, MmPagePcpuDrain) {
  const Trace t = parse("            gzip-4949    [000] d..3.   289.401835: mm_page_pcpu_drain: page=0000000039cdee77 "
                        "pfn=0x125921 order=3 migratetype=4\n");
  ASSERT_EQ(t.events.size(), 1u);
  expect_event(t.events[0], {.ts = 289.401835, .kind = EventKind::mm_page_pcpu_drain, .order = 3, .migratetype = 4,
                             .pfn = 0x125921, .line = 1});
}

// workqueue_execute_start is kept only for vmstat_update (where 6.x decays pcp->high).
TEST(FtraceEvents, VmstatUpdateWorkOnly) {
  const Trace t = parse(
      "kworker/1:2-77 [001] ..... 3.000010: workqueue_execute_start: work struct 00000000b1f2a3c4: function vmstat_update\n"
      "kworker/1:2-77 [001] ..... 3.000020: workqueue_execute_start: work struct 00000000b1f2a3c5: function vmstat_shepherd\n");
  ASSERT_EQ(t.events.size(), 1u);
  expect_event(t.events[0], {.ts = 3.000010, .cpu = 1, .kind = EventKind::vmstat_update, .line = 1});
  EXPECT_EQ(t.skipped.at("workqueue_execute_start"), 1u);
  EXPECT_EQ(event_name(EventKind::vmstat_update), "workqueue_execute_start");
  expect_same_events(t, round_trip(t));
}

TEST(FtraceEvents, FailedAllocationsAreMarkedNotErrors) {
  const Trace t = parse(
      "a-1 [000] ..... 1.0: mm_page_alloc: page=0000000000000000 pfn=0xffffffffffffffff order=10 migratetype=1 "
      "gfp_flags=GFP_HIGHUSER_MOVABLE|__GFP_COMP\n"
      "a-1 [000] ..... 1.1: mm_page_alloc: page=(nil) order=2 migratetype=0 gfp_flags=GFP_KERNEL\n"
      "a-1 [000] ..... 1.2: mm_page_alloc: page=0000000000000000 pfn=-1 order=0 migratetype=0 gfp_flags=GFP_NOWAIT\n"
      "a-1 [000] ..... 1.3: mm_page_alloc: page=(null) pfn=0 order=0 migratetype=0 gfp_flags=GFP_ATOMIC\n"
      "a-1 [000] ..... 1.4: mm_page_alloc: page=ffffea0004719800 pfn=291942 order=0 migratetype=0 gfp_flags=none\n");
  ASSERT_EQ(t.events.size(), 5u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_TRUE(t.events[i].failed) << "line " << i + 1;
    EXPECT_EQ(t.events[i].pfn, kNoPfn) << "line " << i + 1;
  }
  EXPECT_EQ(t.events[0].order, 10);
  EXPECT_EQ(t.events[1].order, 2);
  EXPECT_EQ(t.gfp_text(t.events[1]), "GFP_KERNEL");
  // A 4.x line: decimal pfn, unhashed page.
  EXPECT_FALSE(t.events[4].failed);
  EXPECT_EQ(t.events[4].pfn, 291942u);
  EXPECT_EQ(t.gfp_text(t.events[4]), "none");
  EXPECT_EQ(t.gfp_texts.size(), 6u);  // "" and five texts
}

TEST(FtraceEvents, GfpTextsAreInternedInOrderOfFirstUse) {
  const Trace t = parse("a-1 [000] ..... 1.0: mm_page_alloc: page=1 pfn=0x1 order=0 migratetype=0 gfp_flags=GFP_KERNEL\n"
                        "a-1 [000] ..... 1.1: mm_page_alloc: page=1 pfn=0x2 order=0 migratetype=0 gfp_flags=GFP_NOWAIT\n"
                        "a-1 [000] ..... 1.2: mm_page_alloc: page=1 pfn=0x3 order=0 migratetype=0 gfp_flags=GFP_KERNEL\n");
  ASSERT_EQ(t.gfp_texts, (std::vector<std::string>{"", "GFP_KERNEL", "GFP_NOWAIT"}));
  ASSERT_EQ(t.events.size(), 3u);
  EXPECT_EQ(t.events[0].gfp, 1);
  EXPECT_EQ(t.events[1].gfp, 2);
  EXPECT_EQ(t.events[2].gfp, 1);
}

TEST(FtraceHeader, CpusAndEntries) {
  const Trace t = parse("# tracer: nop\n"
                        "#\n"
                        "# entries-in-buffer/entries-written: 345/400   #P:2\n"
                        "#\n");
  EXPECT_EQ(t.nr_cpus, 2u);
  EXPECT_EQ(t.entries_in_buffer, 345u);
  EXPECT_EQ(t.entries_written, 400u);
  EXPECT_TRUE(t.events.empty());

  const Trace none = parse("# tracer: nop\n");
  EXPECT_EQ(none.nr_cpus, 0u);
  EXPECT_EQ(none.entries_in_buffer, 0u);
  EXPECT_EQ(none.entries_written, 0u);
}

TEST(FtraceHeader, MalformedEntriesAreAnError) {
  EXPECT_EQ(first_line(error_of("#\n# entries-in-buffer/entries-written: 34x/345   #P:2\n")),
            "dev.trace:2:38: header: entries-in-buffer/entries-written '34x/345' is not N/M");
  EXPECT_EQ(first_line(error_of("# entries-in-buffer/entries-written: 345/345   #P:two\n")),
            "dev.trace:1:48: header: '#P:two' is not #P:N");
}

TEST(FtraceSkipped, UnknownEventsCommentsAndBlankLines) {
  const Trace t = parse("# tracer: nop\n"
                        "\n"
                        "   \t \n"
                        "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
                        "##### CPU 1 buffer started ####\n"
                        "  bash-1 [000] ..... 1.0: mm_page_alloc_extfrag: page=000000001 pfn=0x1 alloc_order=0\n"
                        "  bash-1 [000] ..... 1.1: sched_switch: prev_comm=bash prev_pid=1 ==> next_comm=sh\n"
                        "  bash-1 [001] ..... 1.2: mm_page_alloc_extfrag: page=000000001 pfn=0x2 alloc_order=0\n"
                        "  bash-1 [001] ..... 1.3: kmalloc: call_site=foo ptr=bar\n"
                        "CPU:1 [LOST 17 EVENTS]\n"
                        "  bash-1 [001] ..... 1.4: mm_page_free: page=000000001 pfn=0x3 order=0\n");
  EXPECT_EQ(t.skipped, (std::map<std::string, uint64_t>{
                           {"mm_page_alloc_extfrag", 2}, {"sched_switch", 1}, {"kmalloc", 1}, {"[LOST EVENTS]", 17}}));
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].kind, EventKind::mm_page_free);
  EXPECT_EQ(t.events[0].line, 11u);
}

// Malformed lines of a known event, each with its exact FILE:LINE:COL.
TEST(FtraceErrors, TruncatedLine) {
  const std::string ok = "            bash-4935    [000] .....   288.902210: mm_page_free: page=1 pfn=0x2 order=0\n";
  // Cut inside the timestamp: col 40 is where "288.90" starts.
  EXPECT_EQ(first_line(error_of("# tracer: nop\n" + ok + "            bash-4935    [000] .....   288.90\n")),
            "dev.trace:3:40: expected 'TIMESTAMP:', got '288.90'");
  // Cut inside the fields: the missing field is reported just after the end of the line.
  const std::string cut = "            bash-4935    [000] .....   288.902211: mm_page_alloc: page=000000006aef3bfb pfn=0x11";
  ASSERT_EQ(cut.size(), 96u);
  EXPECT_EQ(first_line(error_of(ok + cut + "\n")), "dev.trace:2:97: mm_page_alloc: missing order= (truncated line?)");
  // Cut inside a field name.
  EXPECT_EQ(first_line(error_of(ok + ok + "            bash-4935    [000] .....   288.902211: mm_page_free: page=1 pf\n")),
            "dev.trace:3:73: mm_page_free: 'pf' is not NAME=VALUE (truncated line?)");
  // Cut inside the CPU column.
  EXPECT_EQ(first_line(error_of("            bash-4935    [00\n")), "dev.trace:1:26: bad CPU column '[00'");
  // Cut before the event name.
  EXPECT_EQ(first_line(error_of("            bash-4935    [000] .....   288.902210: \n")),
            "dev.trace:1:52: truncated line: expected 'EVENT:'");
  // No event name at all: it could not be counted under Trace::skipped, nor written back.
  EXPECT_EQ(first_line(error_of("            bash-4935    [000] .....   288.902210: : page=1 pfn=0x2 order=0\n")),
            "dev.trace:1:52: no event name before ':'");
}

// Two lines run together (a line cut short, the next appended): the second's fields repeat the
// first's, and the first's would be lost, so the line is refused at the repeated field.
TEST(FtraceErrors, RepeatedFieldIsTwoLinesRunTogether) {
  const std::string joined =
      "a-1 [000] ..... 1.0: mm_page_alloc: page=1 pfn=0x2 order=0 migratetype=1 gfp_flags=GFP_HIGHge_alloc: page=2 pfn=0x3 "
      "order=0 migratetype=1 gfp_flags=GFP_KERNEL\n";
  EXPECT_EQ(first_line(error_of(joined)), "dev.trace:1:102: mm_page_alloc: page=2 repeats a field of this line (two lines run together?)");
  EXPECT_EQ(first_line(error_of("a-1 [000] ..... 1.0: mm_page_free: page=1 pfn=0x2 order=0 order=1\n")),
            "dev.trace:1:59: mm_page_free: order=1 repeats a field of this line (two lines run together?)");
}

// Control bytes in gfp_flags are a corrupt line: the kernel prints names, '|' and hex. (One
// trailing CR is a CRLF line end; a second would not survive write_ftrace and a second read.)
TEST(FtraceErrors, UnprintableGfpFlags) {
  EXPECT_EQ(first_line(error_of("a-1 [000] ..... 1.0: mm_page_alloc: page=1 pfn=0x2 order=0 migratetype=1 gfp_flags=GFP_KERNEL\r\r\n")),
            "dev.trace:1:74: mm_page_alloc: gfp_flags=GFP_KERNEL\r has a character that is not printable");
}

TEST(FtraceErrors, MissingPfn) {
  EXPECT_EQ(first_line(error_of("\n\nsh-4947 [000] ..... 289.246606: mm_page_free: page=0000000036474c5a order=0\n")),
            "dev.trace:3:76: mm_page_free: missing pfn= (truncated line?)");
  // An allocation with a page but no pfn is not a failed one.
  EXPECT_EQ(first_line(error_of("sh-4947 [000] ..... 289.246606: mm_page_alloc: page=0000000036474c5a order=0 "
                                "migratetype=0 gfp_flags=GFP_KERNEL\n")),
            "dev.trace:1:112: mm_page_alloc: missing pfn= (truncated line?)");
}

TEST(FtraceErrors, OrderIsNotANumber) {
  const std::string l = "sh-4947 [000] ..... 289.246606: mm_page_alloc: page=1 pfn=0x1 order=x migratetype=0 "
                        "gfp_flags=GFP_KERNEL\n";
  EXPECT_EQ(first_line(error_of("#\n#\n#\n" + l)), "dev.trace:4:63: mm_page_alloc: order=x is not a number");
  const std::string msg = error_of(l);
  // The source line and a caret under column 63 follow.
  EXPECT_NE(msg.find("\n    1 | sh-4947 [000]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("\n      | " + std::string(62, ' ') + "^"), std::string::npos) << msg;
  EXPECT_EQ(first_line(error_of("sh-1 [000] ..... 1.0: mm_page_free: page=1 pfn=0x1 order=64\n")),
            "dev.trace:1:52: mm_page_free: order=64 is out of range (0..63)");
  EXPECT_EQ(first_line(error_of("sh-1 [000] ..... 1.0: mm_page_free: page=1 pfn=0x1g order=0\n")),
            "dev.trace:1:44: mm_page_free: pfn=0x1g is not a number");
  EXPECT_EQ(first_line(error_of("sh-1 [000] ..... 1.0: mm_page_pcpu_drain: page=1 pfn=0x1 order=0 migratetype=-x\n")),
            "dev.trace:1:66: mm_page_pcpu_drain: migratetype=-x is not a number");
  EXPECT_EQ(first_line(error_of("sh-1 [000] ..... 1.0: mm_page_alloc_zone_locked: page=1 pfn=0x1 order=0 "
                                "migratetype=1 percpu_refill=2\n")),
            "dev.trace:1:87: mm_page_alloc_zone_locked: percpu_refill=2 is not 0 or 1");
}

TEST(FtraceErrors, BadTimestamp) {
  EXPECT_EQ(first_line(error_of("\n            bash-4935    [000] .....   288.9o2210: mm_page_free: page=1 pfn=0x1 order=0\n")),
            "dev.trace:2:40: bad timestamp '288.9o2210'");
  EXPECT_EQ(first_line(error_of("bash-4935 [000] ..... -1.0: mm_page_free: page=1 pfn=0x1 order=0\n")),
            "dev.trace:1:23: bad timestamp '-1.0'");
  EXPECT_EQ(first_line(error_of("bash-4935 [000] ..... nan: mm_page_free: page=1 pfn=0x1 order=0\n")),
            "dev.trace:1:23: bad timestamp 'nan'");
}

TEST(FtraceErrors, BadCpuColumn) {
  EXPECT_EQ(first_line(error_of("bash-4935 [0a0] ..... 1.0: mm_page_free: page=1 pfn=0x1 order=0\n")),
            "dev.trace:1:11: bad CPU column '[0a0]'");
  EXPECT_EQ(first_line(error_of("bash-4935 [99999] ..... 1.0: mm_page_free: page=1 pfn=0x1 order=0\n")),
            "dev.trace:1:12: CPU 99999 is out of range (at most 65535)");
  EXPECT_EQ(first_line(error_of("  no task column here\n")), "dev.trace:1:3: expected 'TASK-PID [CPU] TIMESTAMP: EVENT: ...'");
}

TEST(FtraceErrors, TimeGoesBackOnOneCpu) {
  const std::string a = "a-1 [000] ..... 2.0: mm_page_free: page=1 pfn=0x1 order=0\n";
  const std::string b = "a-1 [001] ..... 1.0: mm_page_free: page=1 pfn=0x1 order=0\n";
  const std::string c = "a-1 [000] ..... 1.5: mm_page_free: page=1 pfn=0x1 order=0\n";
  // Out of order across CPUs (a per-CPU dump) is fine, and sort_by_time merges it, stably.
  Trace t = parse(a + b + a);
  ASSERT_EQ(t.events.size(), 3u);
  sort_by_time(t);
  EXPECT_EQ(t.events[0].line, 2u);
  EXPECT_EQ(t.events[1].line, 1u);
  EXPECT_EQ(t.events[2].line, 3u);
  // Back in time on CPU 0 is not.
  EXPECT_EQ(first_line(error_of(a + b + c)), "dev.trace:3:17: timestamp 1.5 goes back in time on CPU 0 (line 1 has 2)");
}

TEST(FtraceFiles, MissingFileIsAnInputError) {
  const std::string path = temp_file("does-not-exist.trace").string();
  try {
    read_ftrace(path);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ": cannot open", 0), 0u) << e.what();
  }
}

TEST(FtraceFiles, CorruptXzNamesTheFile) {
  for (const std::string name : {"corrupt.trace.xz", "corrupt.trace"}) {  // by suffix, by magic
    const fs::path path = temp_file(name);
    {
      const std::string bytes = std::string("\xFD" "7zXZ", 5) + '\0' + "garbage, not a stream";
      std::ofstream f(path, std::ios::binary);
      f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    }
    try {
      read_ftrace(path.string());
      ADD_FAILURE() << name << ": no error";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(path.string() + ": corrupt .xz file: ", 0), 0u) << e.what();
    }
    fs::remove(path);
  }
  // A .xz name on plain text is no better.
  const fs::path plain = temp_file("plain.trace.xz");
  std::ofstream(plain) << "# tracer: nop\n";
  EXPECT_THROW(read_ftrace(plain.string()), InputError);
  fs::remove(plain);
}

// A .xz cut short (a copy interrupted, a full disk): the file and "truncated", at any cut.
TEST(FtraceFiles, TruncatedXzNamesTheFile) {
  const std::string text = "# tracer: nop\n  t-1 [000] .....   1.000001: mm_page_free: page=00000000deadbeef pfn=0x40100 order=0\n";
  std::string xz(lzma_stream_buffer_bound(text.size()), '\0');
  size_t size = 0;
  ASSERT_EQ(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC64, nullptr, reinterpret_cast<const uint8_t*>(text.data()), text.size(),
                                    reinterpret_cast<uint8_t*>(xz.data()), &size, xz.size()),
            LZMA_OK);
  xz.resize(size);
  const fs::path path = temp_file("truncated.trace.xz");
  auto write = [&](size_t n) { std::ofstream(path, std::ios::binary).write(xz.data(), static_cast<std::streamsize>(n)); };
  write(xz.size());
  EXPECT_EQ(read_ftrace(path.string()).events.size(), 1u);
  for (size_t cut : {xz.size() - 1, xz.size() / 2, size_t{12}}) {
    write(cut);
    try {
      read_ftrace(path.string());
      ADD_FAILURE() << "cut at " << cut << ": no error";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), path.string() + ": corrupt .xz file: compressed data is truncated") << "cut at " << cut;
    }
  }
  fs::remove(path);
}

struct RealTrace {
  const char* file;
  uint64_t entries;
  uint64_t counts[kNrEventKinds];  // per EventKind
};

constexpr RealTrace kRealTraces[] = {
    {"dev_hugetlb.trace.xz", 345, {177, 136, 16, 16, 0}},
    {"dev_mixed.trace.xz", 46699, {19724, 1607, 1509, 21596, 2263}},
};

#define SKIP_WITHOUT_TRACES()                                                                         \
  if (!fs::is_directory(traces_dir())) GTEST_SKIP() << "no real traces: " << traces_dir() << " is absent"

TEST(FtraceRealTraces, EventCountsPerKind) {
  SKIP_WITHOUT_TRACES();
  for (const RealTrace& r : kRealTraces) {
    SCOPED_TRACE(r.file);
    const auto start = std::chrono::steady_clock::now();
    const Trace t = read_ftrace(traces_dir() + "/" + r.file);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_LT(seconds, 1.0);
    uint64_t counts[kNrEventKinds] = {};
    for (const Event& e : t.events) ++counts[static_cast<unsigned>(e.kind)];
    for (unsigned k = 0; k < kNrEventKinds; ++k)
      EXPECT_EQ(counts[k], r.counts[k]) << event_name(static_cast<EventKind>(k));
    EXPECT_EQ(t.nr_cpus, 2u);
    EXPECT_EQ(t.max_cpu(), 1u);
    EXPECT_EQ(t.entries_in_buffer, r.entries);
    EXPECT_EQ(t.entries_written, r.entries);
    EXPECT_EQ(t.events.size(), r.entries);
    EXPECT_TRUE(t.skipped.empty());
    EXPECT_EQ(t.events.front().line, 13u);  // after the 12-line header
    for (const Event& e : t.events) ASSERT_FALSE(e.failed) << "line " << e.line;
  }
}

TEST(FtraceRealTraces, FirstEventOfDevHugetlb) {
  SKIP_WITHOUT_TRACES();
  const Trace t = read_ftrace(traces_dir() + "/dev_hugetlb.trace.xz");
  ASSERT_FALSE(t.events.empty());
  const Event& e = t.events.front();
  EXPECT_EQ(e.ts, 288.902210);
  EXPECT_EQ(e.cpu, 0u);
  EXPECT_EQ(e.kind, EventKind::mm_page_alloc);
  EXPECT_EQ(e.pfn, 0x11c64bu);
  EXPECT_EQ(e.order, 0);
  EXPECT_EQ(e.migratetype, 0);
  EXPECT_EQ(t.gfp_text(e), "GFP_KERNEL_ACCOUNT|__GFP_ZERO|__GFP_COMP");
  EXPECT_EQ(t.source, traces_dir() + "/dev_hugetlb.trace.xz");
}

TEST(FtraceRealTraces, XzFromAStream) {
  SKIP_WITHOUT_TRACES();
  std::ifstream f(traces_dir() + "/dev_hugetlb.trace.xz", std::ios::binary);
  const Trace t = parse_ftrace(f, "stdin");
  EXPECT_EQ(t.events.size(), 345u);
  EXPECT_EQ(t.source, "stdin");
}

TEST(FtraceRoundTrip, RealTraces) {
  SKIP_WITHOUT_TRACES();
  for (const RealTrace& r : kRealTraces) {
    SCOPED_TRACE(r.file);
    const Trace first = read_ftrace(traces_dir() + "/" + r.file);
    const Trace second = round_trip(first);
    expect_same_trace(first, second);
  }
}

TEST(FtraceRoundTrip, FailedSkippedAndOddTimestamps) {
  Trace t = parse("# entries-in-buffer/entries-written: 5/9   #P:4\n"
                  "a-1 [003] ..... 0.5: mm_page_alloc: page=(nil) order=4 migratetype=1 gfp_flags=GFP_ATOMIC\n"
                  "a-1 [003] ..... 1: sched_switch: x=y\n"
                  "a-1 [003] ..... 1.25: mm_page_alloc: page=1 pfn=0x10 order=0 migratetype=0 gfp_flags=\n"
                  "a-1 [002] ..... 123456789.123456789: mm_page_alloc_zone_locked: page=1 pfn=0xabc order=0 "
                  "migratetype=5 percpu_refill=0\n"
                  "CPU:2 [LOST 3 EVENTS]\n"
                  "a-1 [002] ..... 123456790.000000001: mm_page_pcpu_drain: page=1 pfn=0x0 order=3 migratetype=0\n"
                  "a-1 [002] ..... 123456790.000000001: mm_page_free_batched: page=1 pfn=12 order=0\n",
                  "odd.trace");
  ASSERT_EQ(t.events.size(), 5u);
  EXPECT_EQ(t.events[1].gfp, 0);  // an empty gfp_flags is text 0
  const Trace back = round_trip(t);
  expect_same_trace(t, back);
  EXPECT_EQ(back.skipped.at("[LOST EVENTS]"), 3u);
  EXPECT_EQ(back.skipped.at("sched_switch"), 1u);
}

TEST(FtraceRoundTrip, WrittenLinesLookLikeTheKernels) {
  Trace t;
  t.nr_cpus = 2;
  t.entries_in_buffer = t.entries_written = 1;
  t.gfp_texts.push_back("GFP_KERNEL");
  t.events.push_back(Event{.ts = 288.90221, .cpu = 1, .kind = EventKind::mm_page_alloc, .order = 0, .migratetype = 0,
                           .pfn = 0x11c64b, .gfp = 1});
  std::ostringstream out;
  write_ftrace(out, t);
  const std::string text = out.str();
  EXPECT_NE(text.find("# entries-in-buffer/entries-written: 1/1   #P:2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\n           <...>-0       [001] .....   288.902210: mm_page_alloc: page=ffffea00047192c0 "
                      "pfn=0x11c64b order=0 migratetype=0 gfp_flags=GFP_KERNEL\n"),
            std::string::npos)
      << text;
}

TEST(GfpNames, Composites) {
  using namespace mm;
  EXPECT_EQ(gfp_from_text("GFP_KERNEL"), GFP_KERNEL);
  EXPECT_EQ(gfp_from_text("GFP_KERNEL_ACCOUNT|__GFP_ZERO|__GFP_COMP"), GFP_KERNEL | __GFP_COMP);
  EXPECT_EQ(gfp_from_text("GFP_HIGHUSER_MOVABLE"), GFP_HIGHUSER_MOVABLE);
  EXPECT_EQ(gfp_from_text("GFP_HIGHUSER"), GFP_HIGHUSER_MOVABLE & ~__GFP_MOVABLE);
  EXPECT_EQ(gfp_from_text("GFP_USER"), GFP_KERNEL | kGfpHardwall);
  EXPECT_EQ(gfp_from_text("GFP_NOFS|__GFP_NOFAIL|__GFP_COMP|__GFP_HARDWALL"),
            __GFP_KSWAPD_RECLAIM | kGfpDirectReclaim | kGfpIo | __GFP_COMP | kGfpHardwall);
  EXPECT_EQ(gfp_from_text("GFP_NOIO"), __GFP_KSWAPD_RECLAIM | kGfpDirectReclaim);
  EXPECT_EQ(gfp_from_text("GFP_NOWAIT"), __GFP_KSWAPD_RECLAIM);
  EXPECT_EQ(gfp_from_text("GFP_ATOMIC"), __GFP_HIGH | __GFP_ATOMIC | __GFP_KSWAPD_RECLAIM);
  EXPECT_EQ(gfp_from_text("GFP_DMA"), __GFP_DMA);
  EXPECT_EQ(gfp_from_text("GFP_DMA32"), __GFP_DMA32);
  // The kernel's GFP_TRANSHUGE, not the model's mm::GFP_TRANSHUGE.
  EXPECT_EQ(gfp_from_text("GFP_TRANSHUGE_LIGHT"),
            kGfpIo | kGfpFs | kGfpHardwall | __GFP_HIGHMEM | __GFP_MOVABLE | __GFP_COMP | __GFP_NOWARN);
  EXPECT_EQ(gfp_from_text("GFP_TRANSHUGE"), gfp_from_text("GFP_TRANSHUGE_LIGHT") | kGfpDirectReclaim);
}

TEST(GfpNames, SingleBitsUnknownNamesAndMasks) {
  using namespace mm;
  EXPECT_EQ(gfp_from_text("__GFP_HIGHMEM"), __GFP_HIGHMEM);
  EXPECT_EQ(gfp_from_text("__GFP_MOVABLE|__GFP_RECLAIMABLE"), __GFP_MOVABLE | __GFP_RECLAIMABLE);
  EXPECT_EQ(gfp_from_text("__GFP_HIGH|__GFP_ATOMIC|__GFP_NOWARN"), __GFP_HIGH | __GFP_ATOMIC | __GFP_NOWARN);
  EXPECT_EQ(gfp_from_text("__GFP_RETRY_MAYFAIL|__GFP_THISNODE"), __GFP_RETRY_MAYFAIL | __GFP_THISNODE);
  EXPECT_EQ(gfp_from_text("__GFP_DIRECT_RECLAIM"), 0x400u);
  EXPECT_EQ(gfp_from_text("__GFP_IO|__GFP_FS"), 0xc0u);
  EXPECT_EQ(gfp_from_text("__GFP_RECLAIM"), 0xc00u);
  EXPECT_EQ(gfp_from_text("__GFP_DMA32|__GFP_DMA"), __GFP_DMA32 | __GFP_DMA);
  // Names of bits the model lacks, unknown names, "none" and empty parts add nothing.
  EXPECT_EQ(gfp_from_text("__GFP_ZERO|__GFP_NORETRY|__GFP_NOMEMALLOC|__GFP_WRITE|__GFP_ACCOUNT|__GFP_NOLOCKDEP"), 0u);
  EXPECT_EQ(gfp_from_text("__GFP_BOGUS|__GFP_COMP||none"), __GFP_COMP);
  EXPECT_EQ(gfp_from_text(""), 0u);
  // Hex masks, in the model's layout, kept to the model's bits.
  EXPECT_EQ(gfp_from_text("GFP_KERNEL|0x40000"), GFP_KERNEL | __GFP_COMP);
  EXPECT_EQ(gfp_from_text("0x100"), 0u);  // __GFP_ZERO
  EXPECT_EQ(gfp_from_text("0xzz|__GFP_HIGH"), __GFP_HIGH);
}

TEST(GfpNames, ToTextIsGreedyLikeTheKernel) {
  using namespace mm;
  EXPECT_EQ(gfp_to_text(0), "none");
  EXPECT_EQ(gfp_to_text(GFP_KERNEL), "GFP_KERNEL");
  EXPECT_EQ(gfp_to_text(GFP_KERNEL | __GFP_COMP), "GFP_KERNEL|__GFP_COMP");
  EXPECT_EQ(gfp_to_text(GFP_HIGHUSER_MOVABLE | __GFP_NOWARN | __GFP_RETRY_MAYFAIL | __GFP_COMP),
            "GFP_HIGHUSER_MOVABLE|__GFP_NOWARN|__GFP_RETRY_MAYFAIL|__GFP_COMP");
  EXPECT_EQ(gfp_to_text(__GFP_HIGH | __GFP_ATOMIC | __GFP_KSWAPD_RECLAIM | __GFP_NOWARN), "GFP_ATOMIC|__GFP_NOWARN");
  EXPECT_EQ(gfp_to_text(__GFP_COMP | 0x100u), "__GFP_COMP|0x100");
  for (gfp_t g : {GFP_KERNEL, GFP_HIGHUSER_MOVABLE, GFP_TRANSHUGE, GFP_TRANSHUGE | __GFP_THISNODE, kModelGfpMask,
                  __GFP_DMA32 | __GFP_RECLAIMABLE | 0x80000000u})
    EXPECT_EQ(gfp_from_text(gfp_to_text(g)), g & kModelGfpMask) << gfp_to_text(g);
}

}  // namespace
}  // namespace pagesim::trace
