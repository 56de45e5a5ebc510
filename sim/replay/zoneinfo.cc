// /proc/zoneinfo reader. Only the fields a replay needs are kept; every other line of a zone
// ("per-node stats", nr_* counters, protection) is skipped, so kernels that add counters parse.
#include "pagesim/replay/zoneinfo.h"

#include <fmt/format.h>

#include <charconv>
#include <fstream>
#include <sstream>
#include <string_view>

#include "pagesim/error.h"

namespace pagesim::replay {
namespace {

struct Cursor {
  const std::string& source;
  unsigned line;
  std::string_view text;
  [[noreturn]] void fail(std::string_view at, const std::string& what) const {
    const auto col = at.data() >= text.data() && at.data() <= text.data() + text.size()
                         ? static_cast<unsigned>(at.data() - text.data()) + 1
                         : 1u;
    throw InputError(fmt::format("{}:{}:{}: {}", source, line, col, what));
  }
};

std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const size_t b = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

template <class T>
T number(const Cursor& c, std::string_view tok, std::string_view key) {
  T v{};
  auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
  if (ec != std::errc{} || p != tok.data() + tok.size())
    c.fail(tok, fmt::format("{}: '{}' is not a number", key, tok));
  return v;
}

}  // namespace

const PagesetInfo* ZoneInfo::pageset(unsigned cpu) const {
  for (const PagesetInfo& p : pagesets)
    if (p.cpu == cpu) return &p;
  return nullptr;
}

const ZoneInfo* ZoneInfoFile::zone_of(uint64_t pfn) const {
  for (const ZoneInfo& z : zones)
    if (z.populated() && z.spans(pfn)) return &z;
  return nullptr;
}

ZoneInfoFile parse_zoneinfo(const std::string& text, std::string source) {
  ZoneInfoFile f{std::move(source), {}};
  ZoneInfo* zone = nullptr;
  PagesetInfo* pset = nullptr;
  std::istringstream in(text);
  std::string raw;
  unsigned lineno = 0;
  while (std::getline(in, raw)) {
    ++lineno;
    const Cursor c{f.source, lineno, raw};
    const auto tok = split_ws(raw);
    if (tok.empty()) continue;
    if (tok[0] == "Node") {  // "Node 0, zone   Normal"
      if (tok.size() != 4 || tok[2] != "zone" || tok[1].empty() || tok[1].back() != ',')
        c.fail(tok[0], "expected 'Node N, zone NAME'");
      ZoneInfo z;
      z.node = number<unsigned>(c, tok[1].substr(0, tok[1].size() - 1), "Node");
      z.name = std::string(tok[3]);
      z.line = lineno;
      f.zones.push_back(std::move(z));
      zone = &f.zones.back();
      pset = nullptr;
      continue;
    }
    if (!zone) c.fail(tok[0], "a zone field before the first 'Node N, zone NAME' line");
    const std::string_view key = tok[0];
    auto value = [&](size_t i, std::string_view k) -> uint64_t {
      if (tok.size() <= i) c.fail(tok.back(), fmt::format("{}: the value is missing", k));
      return number<uint64_t>(c, tok[i], k);
    };
    if (key == "pages" && tok.size() >= 2 && tok[1] == "free") {
      zone->free = value(2, "pages free");
    } else if (key == "min") {
      zone->min = value(1, key);
    } else if (key == "low") {
      zone->low = value(1, key);
    } else if (key == "high" && !pset) {
      zone->high = value(1, key);
    } else if (key == "spanned") {
      zone->spanned = value(1, key);
    } else if (key == "present") {
      zone->present = value(1, key);
    } else if (key == "managed") {
      zone->managed = value(1, key);
    } else if (key == "start_pfn:") {
      zone->start_pfn = value(1, "start_pfn");
    } else if (key == "cpu:") {
      zone->pagesets.push_back(PagesetInfo{static_cast<unsigned>(value(1, "cpu"))});
      pset = &zone->pagesets.back();
    } else if (pset && (key == "count:" || key == "high:" || key == "batch:" || key == "high_min:" ||
                        key == "high_max:")) {
      if (tok.size() < 2) c.fail(key, fmt::format("{} the value is missing", key));
      const long v = number<long>(c, tok[1], key.substr(0, key.size() - 1));
      if (key == "count:") pset->count = v;
      else if (key == "high:") pset->high = v;
      else if (key == "batch:") pset->batch = v;
      else if (key == "high_min:") pset->high_min = v;
      else pset->high_max = v;
    } else if (key == "pagesets" || key == "node_unreclaimable:" || key == "per-node") {
      pset = nullptr;
    }
  }
  if (f.zones.empty()) throw InputError(fmt::format("{}:1:1: no 'Node N, zone NAME' line: not a zoneinfo file", f.source));
  return f;
}

ZoneInfoFile read_zoneinfo(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read the zoneinfo file", path));
  std::ostringstream s;
  s << in.rdbuf();
  return parse_zoneinfo(s.str(), path);
}

}  // namespace pagesim::replay
