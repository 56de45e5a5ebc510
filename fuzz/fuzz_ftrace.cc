// libFuzzer target: the ftrace reader on arbitrary bytes, .xz included (InputError or a
// Trace), and the writer's round trip of whatever it read (ftrace.h: parse(write(t)) == t).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

#include "pagesim/error.h"
#include "pagesim/trace/ftrace.h"

namespace {

bool same(const pagesim::trace::Event& a, const pagesim::trace::Event& b) {
  return a.ts == b.ts && a.cpu == b.cpu && a.kind == b.kind && a.order == b.order && a.migratetype == b.migratetype &&
         a.percpu_refill == b.percpu_refill && a.failed == b.failed && a.pfn == b.pfn && a.gfp == b.gfp;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pagesim::trace::Trace t;
  try {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    t = pagesim::trace::parse_ftrace(in, "fuzz.trace");
  } catch (const pagesim::InputError&) {
    return 0;
  }
  std::ostringstream out;
  pagesim::trace::write_ftrace(out, t);
  std::istringstream again(out.str());
  const pagesim::trace::Trace u = pagesim::trace::parse_ftrace(again, "written.trace");  // throws: a writer bug
  if (u.nr_cpus != t.nr_cpus || u.entries_in_buffer != t.entries_in_buffer || u.entries_written != t.entries_written ||
      u.events.size() != t.events.size() || u.gfp_texts != t.gfp_texts || u.skipped != t.skipped) {
    std::fprintf(stderr, "the header, events or skipped names do not survive write and read:\n%s", out.str().c_str());
    std::fprintf(stderr, "read: %zu events, %zu gfp texts; again: %zu events, %zu gfp texts\n", t.events.size(), t.gfp_texts.size(), u.events.size(), u.gfp_texts.size());
    for (const auto& [name, n] : t.skipped) std::fprintf(stderr, "read: skipped '%s' %llu\n", name.c_str(), static_cast<unsigned long long>(n));
    std::abort();
  }
  for (size_t i = 0; i < t.events.size(); ++i)
    if (!same(t.events[i], u.events[i])) {
      std::fprintf(stderr, "event %zu (line %u) does not survive write and read:\n%s", i, t.events[i].line, out.str().c_str());
      std::abort();
    }
  return 0;
}
