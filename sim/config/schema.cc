// Typed scalar reads and the workload-parameter schema.
#include "pagesim/config/schema.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "pagesim/config/diagnostics.h"
#include "pagesim/config/units.h"

namespace pagesim::config {

namespace {

using config::ParamSpec;
using config::ParamType;
using config::ParamValue;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

}  // namespace

std::string integer_hint(std::string_view t) {
  if (t.size() > 1 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) return " (hexadecimal is not accepted; write it in decimal)";
  if (t.size() > 1 && t[0] == '0' && t.find_first_not_of("0123456789") == std::string_view::npos)
    return " (leading zeros are not accepted: YAML 1.1 would read it as octal)";
  if (t.find_first_of("eE.") != std::string_view::npos && parse_number(t)) return " (an integer is needed; write every digit)";
  return "";
}

namespace {

// A canonical form with many digits ("976562500K" for a declared bound of 1e12) reads worse
// than %g ("1e+12").
template <class Fmt>
std::string readable(int64_t v, Fmt f) {
  const std::string s = f(v);
  const std::string g = fmt::format("{:g}", static_cast<double>(v));
  const bool exact = static_cast<double>(static_cast<int64_t>(std::stod(g))) == static_cast<double>(v);
  return s.find_first_not_of("0123456789") > 6 && exact ? g : s;
}

template <class Fmt>
std::string range_text(int64_t lo, int64_t hi, Fmt f0) {
  auto f = [&](int64_t v) { return readable(v, f0); };
  if (lo == kMin && hi == kMax) return "";
  if (hi == kMax) return fmt::format(" >= {}", f(lo));
  if (lo == kMin) return fmt::format(" <= {}", f(hi));
  return fmt::format(" in [{}, {}]", f(lo), f(hi));
}

// Declared double bounds -> the integer range they allow.
int64_t lower_bound(const std::optional<double>& b) {
  return !b || *b <= -9.2e18 ? kMin : static_cast<int64_t>(std::ceil(*b));
}
int64_t upper_bound(const std::optional<double>& b) {
  return !b || *b >= 9.2e18 ? kMax : static_cast<int64_t>(std::floor(*b));
}

// Plain (unquoted) scalar text, or a type failure. Quoted text is a string, never a number.
const std::string& plain_scalar(const Node& n, std::string_view path, std::string_view expected) {
  if (n.kind != Node::Kind::scalar || n.quoted) fail(n.pos, path, fmt::format("expected {}, got {}", expected, describe(n)));
  return n.text;
}

// Sizes and durations are strings with units, so quoting them is fine.
const std::string& unit_scalar(const Node& n, std::string_view path, std::string_view expected) {
  if (n.kind != Node::Kind::scalar) fail(n.pos, path, fmt::format("expected {}, got {}", expected, describe(n)));
  return n.text;
}

int64_t read_duration(const Node& n, std::string_view path, int64_t lo, int64_t hi) {
  const std::string expected = "duration (integer with unit s, ms, us or ns)" + range_text(lo, hi, format_duration_ns);
  const std::optional<int64_t> v = parse_duration_ns(unit_scalar(n, path, expected));
  if (!v || *v < lo || *v > hi) fail(n.pos, path, fmt::format("expected {}, got {}", expected, describe(n)));
  return *v;
}

}  // namespace

double read_number(const Node& n, std::string_view path, const std::optional<double>& lo, const std::optional<double>& hi) {
  std::string expected = "number";
  if (lo && hi) expected += fmt::format(" in [{}, {}]", *lo, *hi);
  else if (lo) expected += fmt::format(" >= {}", *lo);
  else if (hi) expected += fmt::format(" <= {}", *hi);
  const std::optional<double> v = parse_number(plain_scalar(n, path, expected));
  if (!v || (lo && *v < *lo) || (hi && *v > *hi)) fail(n.pos, path, fmt::format("expected {}, got {}", expected, describe(n)));
  return *v;
}

MapView::MapView(const Node& node, std::string path, const std::vector<std::string>& allowed)
    : node_(node), path_(std::move(path)) {
  if (node.kind != Node::Kind::map && node.kind != Node::Kind::null)
    fail(node.pos, path_, fmt::format("expected a map of keys ({}), got {}", join(allowed), describe(node)));
  for (const Entry& e : node.entries) {
    bool ok = false;
    for (const std::string& a : allowed) ok = ok || a == e.key;
    if (!ok)
      fail(e.key_pos, child_path(path_, e.key),
           fmt::format("unknown key; expected one of {}{}", join(allowed), did_you_mean(e.key, allowed)));
  }
}

const Node* MapView::get(std::string_view key) const { return node_.find(key); }

const Node& MapView::require(std::string_view key) const {
  const Node* n = get(key);
  if (!n) fail(node_.pos, path(key), "missing required key");
  return *n;
}

const Pos& MapView::key_pos(std::string_view key) const {
  for (const Entry& e : node_.entries)
    if (e.key == key) return e.key_pos;
  return node_.pos;
}

std::string read_string(const Node& n, std::string_view path) {
  if (n.kind == Node::Kind::null) return "";
  if (n.kind != Node::Kind::scalar) fail(n.pos, path, fmt::format("expected a string, got {}", describe(n)));
  return n.text;
}

bool read_bool(const Node& n, std::string_view path) {
  const std::string& t = plain_scalar(n, path, "boolean (true or false)");
  if (t == "true") return true;
  if (t == "false") return false;
  fail(n.pos, path, fmt::format("expected boolean (true or false), got {}", describe(n)));
}

int64_t read_integer(const Node& n, std::string_view path, int64_t lo, int64_t hi) {
  const std::string expected = "decimal integer" + range_text(lo, hi, [](int64_t v) { return std::to_string(v); });
  const std::string& t = plain_scalar(n, path, expected);
  const std::optional<int64_t> v = parse_decimal(t);
  if (!v || *v < lo || *v > hi) fail(n.pos, path, fmt::format("expected {}, got {}{}", expected, describe(n), integer_hint(t)));
  return *v;
}

uint64_t read_unsigned(const Node& n, std::string_view path, uint64_t lo, uint64_t hi) {
  const std::string expected = hi == std::numeric_limits<uint64_t>::max() ? fmt::format("decimal integer >= {}", lo)
                                                                          : fmt::format("decimal integer in [{}, {}]", lo, hi);
  const std::string& t = plain_scalar(n, path, expected);
  const std::optional<uint64_t> v = parse_decimal_unsigned(t);
  if (!v || *v < lo || *v > hi) fail(n.pos, path, fmt::format("expected {}, got {}{}", expected, describe(n), integer_hint(t)));
  return *v;
}

int64_t read_size(const Node& n, std::string_view path, int64_t lo, int64_t hi) {
  const std::string expected = "size (bytes, or with suffix K, M, G or T)" + range_text(lo, hi, format_size);
  const std::optional<int64_t> v = parse_size(unit_scalar(n, path, expected));
  if (!v || *v < lo || *v > hi) fail(n.pos, path, fmt::format("expected {}, got {}", expected, describe(n)));
  return *v;
}

std::string read_choice(const Node& n, std::string_view path, const std::vector<std::string>& choices, std::string_view what) {
  const std::string expected = fmt::format("{} {}", what, join(choices));
  if (n.kind != Node::Kind::scalar) fail(n.pos, path, fmt::format("expected {}, got {}", expected, describe(n)));
  for (const std::string& c : choices)
    if (c == n.text) return c;
  fail(n.pos, path, fmt::format("expected {}, got {}{}", expected, describe(n), did_you_mean(n.text, choices)));
}

ParamValue read_param(const Node& n, std::string_view path, const ParamSpec& s) {
  switch (s.type) {
    case ParamType::integer: return read_integer(n, path, lower_bound(s.min), upper_bound(s.max));
    case ParamType::size: return read_size(n, path, std::max<int64_t>(0, lower_bound(s.min)), upper_bound(s.max));
    case ParamType::duration: return read_duration(n, path, std::max<int64_t>(0, lower_bound(s.min)), upper_bound(s.max));
    case ParamType::number: return read_number(n, path, s.min, s.max);
    case ParamType::boolean: return read_bool(n, path);
    case ParamType::string: return read_string(n, path);
    case ParamType::choice: return read_choice(n, path, s.choices);
  }
  fail(n.pos, path, "parameter of unknown type");
}

nlohmann::ordered_json param_json(const ParamSpec& s, const ParamValue& v) {
  switch (s.type) {
    case ParamType::size: return format_size(std::get<int64_t>(v));
    case ParamType::duration: return format_duration_ns(std::get<int64_t>(v));
    default: break;
  }
  return std::visit([](const auto& x) { return nlohmann::ordered_json(x); }, v);
}

std::string bound_text(config::ParamType t, double b) {
  if (t == ParamType::size) return readable(static_cast<int64_t>(b), format_size);
  if (t == ParamType::duration) return readable(static_cast<int64_t>(b), format_duration_ns);
  return fmt::format("{}", b);
}

std::string_view param_type_name(ParamType t) {
  switch (t) {
    case ParamType::integer: return "integer";
    case ParamType::size: return "size";
    case ParamType::duration: return "duration";
    case ParamType::number: return "number";
    case ParamType::boolean: return "boolean";
    case ParamType::string: return "string";
    case ParamType::choice: return "choice";
  }
  return "?";
}

}  // namespace pagesim::config
