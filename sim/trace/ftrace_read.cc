// Parsing the ftrace text of the kmem page events; .xz input through liblzma.
//
// One pass over the text in memory, line by line, with string_view and std::from_chars: the
// 47k-line dev_mixed trace parses in a few tens of milliseconds, decompression included.
#include "pagesim/trace/ftrace.h"

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>
#include <lzma.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <limits>
#include <optional>

#include "pagesim/error.h"

namespace pagesim::trace {

std::string_view event_name(EventKind kind) {
  static constexpr std::string_view kNames[kNrEventKinds] = {
      "mm_page_alloc",      "mm_page_free",           "mm_page_free_batched", "mm_page_alloc_zone_locked",
      "mm_page_pcpu_drain", "workqueue_execute_start",
  };
  const auto i = static_cast<unsigned>(kind);
  return i < kNrEventKinds ? kNames[i] : std::string_view("?");
}

uint32_t Trace::max_cpu() const {
  uint32_t m = 0;
  for (const Event& e : events) m = std::max(m, e.cpu);
  return m;
}

void sort_by_time(Trace& t) {
  std::stable_sort(t.events.begin(), t.events.end(), [](const Event& a, const Event& b) { return a.ts < b.ts; });
}

namespace {

constexpr uint32_t kMaxCpus = 1u << 16;  // a sanity bound on the [CPU] column
constexpr unsigned kMaxOrder = 63;       // so that 1 << order is defined
constexpr uint64_t kMaxText = uint64_t{4} << 30;  // decompressed bytes (line numbers are 32-bit)
constexpr std::string_view kLostEvents = "[LOST EVENTS]";  // Trace::skipped name of "CPU:N [LOST M EVENTS]"
constexpr std::string_view kSkippedComment = "# skipped: ";  // written by write_ftrace

bool is_space(char c) { return c == ' ' || c == '\t'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The whole of `s` as an unsigned number in `base`.
template <class T>
bool parse_uint(std::string_view s, T& out, int base = 10) {
  if (s.empty() || s[0] == '+' || s[0] == '-') return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && p == s.data() + s.size();
}

std::optional<EventKind> kind_of(std::string_view name) {
  for (unsigned k = 0; k < kNrEventKinds; ++k)
    if (event_name(static_cast<EventKind>(k)) == name) return static_cast<EventKind>(k);
  return std::nullopt;
}

// %p of a NULL page: (nil) in glibc style, (null) in the kernel's, or zeros (hashed NULL).
bool is_null_page(std::string_view v) {
  if (v == "(nil)" || v == "(null)") return true;
  if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) v.remove_prefix(2);
  return !v.empty() && v.find_first_not_of('0') == std::string_view::npos;
}

std::string slurp(std::istream& in) {
  std::string s;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) s.append(buf, static_cast<size_t>(in.gcount()));
  return s;
}

bool has_xz_magic(std::string_view data) {
  static constexpr char kMagic[] = {'\xFD', '7', 'z', 'X', 'Z', '\0'};
  return data.size() >= sizeof kMagic && std::memcmp(data.data(), kMagic, sizeof kMagic) == 0;
}

std::string_view lzma_message(lzma_ret r) {
  switch (r) {
    case LZMA_FORMAT_ERROR: return "not in the .xz format";
    case LZMA_DATA_ERROR: return "compressed data is corrupt";
    case LZMA_BUF_ERROR: return "compressed data is truncated";
    case LZMA_OPTIONS_ERROR: return "unsupported compression options";
    case LZMA_MEM_ERROR: return "out of memory";
    case LZMA_MEMLIMIT_ERROR: return "memory limit reached";
    default: return "liblzma error";
  }
}

std::string xz_decompress(std::string_view in, const std::string& source) {
  lzma_stream s = LZMA_STREAM_INIT;
  lzma_ret r = lzma_stream_decoder(&s, UINT64_MAX, LZMA_CONCATENATED);
  if (r != LZMA_OK) throw InputError(fmt::format("{}: cannot start the xz decoder: {}", source, lzma_message(r)));
  struct End {
    lzma_stream* s;
    ~End() { lzma_end(s); }
  } end{&s};
  s.next_in = reinterpret_cast<const uint8_t*>(in.data());
  s.avail_in = in.size();
  std::string out(std::clamp<size_t>(in.size() * 8, 1 << 16, kMaxText), '\0');
  size_t done = 0;
  for (;;) {
    if (done == out.size()) {
      if (out.size() >= kMaxText)
        throw InputError(fmt::format("{}: decompresses to more than {} GiB", source, kMaxText >> 30));
      out.resize(std::min<size_t>(out.size() * 2, kMaxText));
    }
    s.next_out = reinterpret_cast<uint8_t*>(out.data()) + done;
    s.avail_out = out.size() - done;
    r = lzma_code(&s, LZMA_FINISH);
    done = out.size() - s.avail_out;
    if (r == LZMA_STREAM_END) break;
    if (r != LZMA_OK) throw InputError(fmt::format("{}: corrupt .xz file: {}", source, lzma_message(r)));
  }
  out.resize(done);
  return out;
}

// One Trace from its text, line by line. Columns below are 0-based offsets into the line;
// fail() reports them 1-based.
class Parser {
 public:
  explicit Parser(Trace& t) : t_(t) { gfp_index_.emplace("", 0); }

  void line(std::string_view l, uint32_t n) {
    l_ = l;
    n_ = n;
    const size_t i = skip_spaces(0);
    if (i == l_.size()) return;
    if (l_[i] == '#') return comment(i);
    if (l_.substr(i).starts_with("CPU:") && l_.find("[LOST", i) != std::string_view::npos) return lost(i);
    event(i);
  }

 private:
  [[noreturn]] void fail(size_t col, std::string_view message) const {
    std::string msg = fmt::format("{}:{}:{}: {}", t_.source, n_, col + 1, message);
    if (l_.size() <= 300) {
      std::string pad;  // keep tabs so that the caret lines up
      for (size_t k = 0; k < col && k < l_.size(); ++k) pad += l_[k] == '\t' ? '\t' : ' ';
      msg += fmt::format("\n {:>4} | {}\n      | {}^", n_, l_, pad);
    }
    throw InputError(msg);
  }

  size_t skip_spaces(size_t i) const {
    while (i < l_.size() && is_space(l_[i])) ++i;
    return i;
  }
  size_t token_end(size_t i) const {
    while (i < l_.size() && !is_space(l_[i])) ++i;
    return i;
  }

  // "# entries-in-buffer/entries-written: 345/345   #P:2", and write_ftrace's "# skipped: NAME N".
  void comment(size_t i) {
    const std::string_view c = l_.substr(i);
    if (c.starts_with(kSkippedComment)) {
      const size_t sp = c.rfind(' ');
      const std::string_view name = c.substr(kSkippedComment.size(), sp - std::min(sp, kSkippedComment.size()));
      uint64_t count = 0;
      if (name.empty() || !parse_uint(c.substr(sp + 1), count)) fail(i, "bad '# skipped: NAME COUNT' comment");
      t_.skipped[std::string(name)] += count;
      return;
    }
    static constexpr std::string_view kEntries = "entries-in-buffer/entries-written:";
    const size_t e = l_.find(kEntries, i);
    if (e == std::string_view::npos) return;
    const size_t a = skip_spaces(e + kEntries.size());
    const size_t a_end = token_end(a);
    const std::string_view counts = l_.substr(a, a_end - a);
    const size_t slash = counts.find('/');
    if (slash == std::string_view::npos || !parse_uint(counts.substr(0, slash), t_.entries_in_buffer) ||
        !parse_uint(counts.substr(slash + 1), t_.entries_written))
      fail(a, fmt::format("header: entries-in-buffer/entries-written '{}' is not N/M", counts));
    const size_t p = l_.find("#P:", a_end);
    if (p == std::string_view::npos) return;
    const size_t p_end = token_end(p);
    if (!parse_uint(l_.substr(p + 3, p_end - p - 3), t_.nr_cpus))
      fail(p, fmt::format("header: '{}' is not #P:N", l_.substr(p, p_end - p)));
  }

  // The kernel's "CPU:1 [LOST 123 EVENTS]" after a ring-buffer overrun.
  void lost(size_t i) {
    size_t k = i + 4;
    const size_t cpu_end = token_end(k);
    uint32_t cpu = 0;
    uint64_t count = 0;
    const std::string_view rest = l_.substr(skip_spaces(cpu_end));
    constexpr std::string_view kLost = "[LOST ", kEvents = " EVENTS]";
    if (!parse_uint(l_.substr(k, cpu_end - k), cpu) || !rest.starts_with(kLost) || !rest.ends_with(kEvents) ||
        rest.size() < kLost.size() + kEvents.size() ||
        !parse_uint(rest.substr(kLost.size(), rest.size() - kLost.size() - kEvents.size()), count))
      fail(i, "expected 'CPU:N [LOST M EVENTS]'");
    t_.skipped[std::string(kLostEvents)] += count;
  }

  // Whether the '[' at `p` is the CPU column: spaces, an optional "(TGID)", spaces, then
  // "-PID" ending the task column, which starts at `start`.
  bool is_cpu_column(size_t p, size_t start) const {
    size_t q = p;
    if (q == start || !is_space(l_[q - 1])) return false;
    while (q > start && is_space(l_[q - 1])) --q;
    if (q > start && l_[q - 1] == ')') {
      const size_t open = l_.rfind('(', q - 1);
      if (open == std::string_view::npos || open < start) return false;
      q = open;
      while (q > start && is_space(l_[q - 1])) --q;
    }
    const size_t pid_end = q;
    while (q > start && is_digit(l_[q - 1])) --q;
    return q < pid_end && q > start && l_[q - 1] == '-';
  }

  void event(size_t start) {
    size_t p = l_.find('[', start);
    while (p != std::string_view::npos && !is_cpu_column(p, start)) p = l_.find('[', p + 1);
    if (p == std::string_view::npos) fail(start, "expected 'TASK-PID [CPU] TIMESTAMP: EVENT: ...'");

    // [CPU]
    const size_t close = l_.find(']', p);
    uint32_t cpu = 0;
    if (close == std::string_view::npos || !parse_uint(l_.substr(p + 1, close - p - 1), cpu))
      fail(p, fmt::format("bad CPU column '{}'", l_.substr(p, token_end(p) - p)));
    if (cpu >= kMaxCpus) fail(p + 1, fmt::format("CPU {} is out of range (at most {})", cpu, kMaxCpus - 1));

    // Optional irq flags, then TIMESTAMP:
    size_t i = skip_spaces(close + 1);
    size_t e = token_end(i);
    if (i == e) fail(i, "truncated line: expected 'TIMESTAMP:'");
    if (l_[e - 1] != ':' && (e - i == 4 || e - i == 5)) {
      i = skip_spaces(e);
      e = token_end(i);
      if (i == e) fail(i, "truncated line: expected 'TIMESTAMP:'");
    }
    if (l_[e - 1] != ':') fail(i, fmt::format("expected 'TIMESTAMP:', got '{}'", l_.substr(i, e - i)));
    const std::string_view ts_text = l_.substr(i, e - i - 1);
    double ts = 0;
    {
      const char* end = ts_text.data() + ts_text.size();
      const auto [q, ec] = std::from_chars(ts_text.data(), end, ts);
      if (ts_text.empty() || !is_digit(ts_text[0]) || ec != std::errc() || q != end || !std::isfinite(ts))
        fail(i, fmt::format("bad timestamp '{}'", ts_text));
    }
    if (cpu >= last_ts_.size()) {
      last_ts_.resize(cpu + 1, -std::numeric_limits<double>::infinity());
      last_line_.resize(cpu + 1, 0);
    }
    if (ts < last_ts_[cpu])
      fail(i, fmt::format("timestamp {} goes back in time on CPU {} (line {} has {})", ts_text, cpu, last_line_[cpu],
                          last_ts_[cpu]));
    last_ts_[cpu] = ts;
    last_line_[cpu] = n_;

    // EVENT:
    i = skip_spaces(e);
    e = token_end(i);
    if (i == e) fail(i, "truncated line: expected 'EVENT:'");
    std::string_view name = l_.substr(i, e - i);
    const bool colon = name.back() == ':';
    if (colon) name.remove_suffix(1);
    if (name.empty()) fail(i, "no event name before ':'");
    const std::optional<EventKind> kind = kind_of(name);
    // "work struct 00000000b1f2a3c4: function vmstat_update": only that function is kept.
    if (!kind || (*kind == EventKind::vmstat_update && !l_.ends_with(" function vmstat_update"))) {
      ++t_.skipped[std::string(name)];
      return;
    }
    if (!colon) fail(e, fmt::format("{}: expected ':' after the event name", name));

    Event ev;
    ev.ts = ts;
    ev.cpu = cpu;
    ev.kind = *kind;
    ev.line = n_;
    if (ev.kind != EventKind::vmstat_update) fields(ev, name, skip_spaces(e));
    t_.events.push_back(ev);
  }

  // NAME=VALUE fields from `i` on, into `ev`.
  void fields(Event& ev, std::string_view name, size_t i) {
    const EventKind k = ev.kind;
    const bool has_mt = k == EventKind::mm_page_alloc || k == EventKind::mm_page_alloc_zone_locked ||
                        k == EventKind::mm_page_pcpu_drain;
    bool page = false, page_null = false, pfn = false, order = false, mt = false, gfp = false, refill = false;
    for (; i < l_.size(); i = skip_spaces(i)) {
      const size_t e = token_end(i);
      const std::string_view tok = l_.substr(i, e - i);
      const size_t eq = tok.find('=');
      if (eq == std::string_view::npos) fail(i, fmt::format("{}: '{}' is not NAME=VALUE (truncated line?)", name, tok));
      const std::string_view key = tok.substr(0, eq), val = tok.substr(eq + 1);
      const auto bad = [&](std::string_view why) { fail(i, fmt::format("{}: {} {}", name, tok, why)); };
      if (val.empty() && key != "gfp_flags") bad("has no value (truncated line?)");
      // A field given twice is two lines run together: the first's value would be lost.
      const auto once = [&](bool& seen) {
        if (seen) bad("repeats a field of this line (two lines run together?)");
        seen = true;
      };
      if (key == "page") {
        once(page);
        page_null = is_null_page(val);
      } else if (key == "pfn") {
        once(pfn);
        if (val == "-1") {
          ev.pfn = kNoPfn;
        } else if (val.size() > 2 && val[0] == '0' && (val[1] == 'x' || val[1] == 'X')) {
          if (!parse_uint(val.substr(2), ev.pfn, 16)) bad("is not a number");
        } else if (!parse_uint(val, ev.pfn)) {
          bad("is not a number");
        }
      } else if (key == "order") {
        once(order);
        unsigned o = 0;
        if (!parse_uint(val, o)) bad("is not a number");
        if (o > kMaxOrder) bad(fmt::format("is out of range (0..{})", kMaxOrder));
        ev.order = static_cast<uint8_t>(o);
      } else if (key == "migratetype" && has_mt) {
        once(mt);
        int v = 0;
        const auto [q, ec] = std::from_chars(val.data(), val.data() + val.size(), v);
        if (ec != std::errc() || q != val.data() + val.size()) bad("is not a number");
        if (v < std::numeric_limits<int8_t>::min() || v > std::numeric_limits<int8_t>::max())
          bad("is out of range (-128..127)");
        ev.migratetype = static_cast<int8_t>(v);
      } else if (key == "gfp_flags" && k == EventKind::mm_page_alloc) {
        once(gfp);
        // The kernel prints flag names, '|' and hex: anything else is a corrupt line.
        if (std::any_of(val.begin(), val.end(), [](char c) { return c < '!' || c > '~'; })) bad("has a character that is not printable");
        ev.gfp = intern_gfp(val, i);
      } else if (key == "percpu_refill" && k == EventKind::mm_page_alloc_zone_locked) {
        once(refill);
        if (val != "0" && val != "1") bad("is not 0 or 1");
        ev.percpu_refill = val == "1";
      }
      i = e;
    }
    const auto missing = [&](std::string_view field) {
      fail(l_.size(), fmt::format("{}: missing {}= (truncated line?)", name, field));
    };
    if (k == EventKind::mm_page_alloc) {
      // No page: pfn -1 (6.x), a NULL page (older kernels print pfn=0 with it), or no pfn at all.
      ev.failed = (pfn && ev.pfn == kNoPfn) || (page && page_null) || (!pfn && !page);
      if (!pfn && !ev.failed) missing("pfn");
      if (ev.failed) ev.pfn = kNoPfn;
    } else if (!pfn) {
      missing("pfn");
    }
    if (!order) missing("order");
    if (has_mt && !mt) missing("migratetype");
    if (k == EventKind::mm_page_alloc && !gfp) missing("gfp_flags");
  }

  uint16_t intern_gfp(std::string_view text, size_t col) {
    if (text == t_.gfp_texts[last_gfp_]) return last_gfp_;
    auto it = gfp_index_.find(absl::string_view(text.data(), text.size()));
    if (it == gfp_index_.end()) {
      if (t_.gfp_texts.size() > std::numeric_limits<uint16_t>::max())
        fail(col, fmt::format("more than {} distinct gfp_flags", std::numeric_limits<uint16_t>::max()));
      it = gfp_index_.emplace(std::string(text), static_cast<uint16_t>(t_.gfp_texts.size())).first;
      t_.gfp_texts.emplace_back(text);
    }
    last_gfp_ = it->second;
    return last_gfp_;
  }

  Trace& t_;
  std::string_view l_;  // the current line, without its newline
  uint32_t n_ = 0;      // its 1-based number
  std::vector<double> last_ts_;      // per CPU, for the monotonicity check
  std::vector<uint32_t> last_line_;  // per CPU, the line of last_ts_
  absl::flat_hash_map<std::string, uint16_t> gfp_index_;
  uint16_t last_gfp_ = 0;  // most lines repeat the previous gfp_flags
};

}  // namespace

Trace parse_ftrace_text(std::string_view text, std::string source) {
  Trace t;
  t.source = std::move(source);
  t.events.reserve(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
  Parser parser(t);
  uint32_t n = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view l = text.substr(pos, nl - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    parser.line(l, ++n);
    pos = nl + 1;
  }
  t.events.shrink_to_fit();
  return t;
}

Trace parse_ftrace(std::istream& in, std::string source) {
  std::string data = slurp(in);
  if (in.bad()) throw InputError(fmt::format("{}: read error", source));
  if (has_xz_magic(data)) data = xz_decompress(data, source);
  return parse_ftrace_text(data, std::move(source));
}

Trace read_ftrace(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(fmt::format("{}: is a directory", path));
  std::ifstream f(path, std::ios::binary);
  if (!f) throw InputError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::string data = slurp(f);
  if (f.bad()) throw InputError(fmt::format("{}: read error", path));
  if (path.ends_with(".xz") || has_xz_magic(data)) data = xz_decompress(data, path);
  return parse_ftrace_text(data, path);
}

}  // namespace pagesim::trace
