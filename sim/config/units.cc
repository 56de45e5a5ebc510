// Decimal, size and duration parsing for scenario values.
#include "pagesim/config/units.h"

#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <limits>

namespace pagesim::config {

namespace {

struct Unit {
  std::string_view suffix;
  int64_t scale;
};

// Largest first, so that formatting picks the largest unit that divides the value.
constexpr std::array<Unit, 4> kSizeUnits = {{{"T", int64_t{1} << 40}, {"G", int64_t{1} << 30}, {"M", int64_t{1} << 20}, {"K", int64_t{1} << 10}}};
constexpr std::array<Unit, 4> kDurationUnits = {{{"s", 1000000000}, {"ms", 1000000}, {"us", 1000}, {"ns", 1}}};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Digits only, no sign, no leading zero unless the whole number is "0".
bool plain_digits(std::string_view t) {
  if (t.empty() || (t.size() > 1 && t[0] == '0')) return false;
  for (char c : t)
    if (!is_digit(c)) return false;
  return true;
}

char upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c; }

std::optional<int64_t> scaled(std::string_view digits, int64_t scale) {
  const std::optional<uint64_t> v = parse_decimal_unsigned(digits);
  if (!v || *v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max() / scale)) return std::nullopt;
  return static_cast<int64_t>(*v) * scale;
}

}  // namespace

std::optional<uint64_t> parse_decimal_unsigned(std::string_view t) {
  if (!plain_digits(t)) return std::nullopt;
  uint64_t v = 0;
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v, 10);
  if (ec != std::errc() || p != t.data() + t.size()) return std::nullopt;
  return v;
}

std::optional<std::vector<std::pair<uint64_t, uint64_t>>> parse_id_list(std::string_view t) {
  std::vector<std::pair<uint64_t, uint64_t>> out;
  for (size_t pos = 0; pos < t.size();) {
    const size_t comma = std::min(t.find(',', pos), t.size());
    const std::string_view item = t.substr(pos, comma - pos);
    const size_t dash = item.find('-');
    const std::optional<uint64_t> lo = parse_decimal_unsigned(item.substr(0, dash));
    const std::optional<uint64_t> hi = dash == std::string_view::npos ? lo : parse_decimal_unsigned(item.substr(dash + 1));
    if (!lo || !hi || *hi < *lo || comma + 1 == t.size()) return std::nullopt;  // a trailing comma too
    out.emplace_back(*lo, *hi);
    pos = comma + 1;
  }
  return out;
}

std::optional<int64_t> parse_decimal(std::string_view t) {
  const bool neg = !t.empty() && t[0] == '-';
  const std::optional<uint64_t> mag = parse_decimal_unsigned(neg ? t.substr(1) : t);
  if (!mag) return std::nullopt;
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (neg) {
    if (*mag == 0 || *mag > kMax + 1) return std::nullopt;  // "-0" is not how anyone writes zero
    return *mag == kMax + 1 ? std::numeric_limits<int64_t>::min() : -static_cast<int64_t>(*mag);
  }
  if (*mag > kMax) return std::nullopt;
  return static_cast<int64_t>(*mag);
}

std::optional<int64_t> parse_size(std::string_view t) {
  size_t n = 0;
  while (n < t.size() && is_digit(t[n])) ++n;
  const std::string_view digits = t.substr(0, n);
  std::string suffix;
  for (char c : t.substr(n)) suffix += upper(c);
  if (suffix.empty() || suffix == "B") return scaled(digits, 1);
  for (const Unit& u : kSizeUnits)
    if (suffix == u.suffix || suffix == std::string(u.suffix) + "B" || suffix == std::string(u.suffix) + "IB")
      return scaled(digits, u.scale);
  return std::nullopt;
}

std::optional<int64_t> parse_duration_ns(std::string_view t) {
  if (t == "0") return 0;
  size_t n = 0;
  while (n < t.size() && is_digit(t[n])) ++n;
  const std::string_view suffix = t.substr(n);
  for (const Unit& u : kDurationUnits)
    if (suffix == u.suffix) return scaled(t.substr(0, n), u.scale);
  return std::nullopt;
}

std::optional<double> parse_number(std::string_view t) {
  // from_chars accepts "inf", "nan" and hex digits under some formats; admit only the
  // characters of decimal and exponent notation.
  if (t.empty()) return std::nullopt;
  for (char c : t)
    if (!is_digit(c) && c != '.' && c != '-' && c != '+' && c != 'e' && c != 'E') return std::nullopt;
  if (t[0] == '+') return std::nullopt;
  double v = 0;
  const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v, std::chars_format::general);
  if (ec != std::errc() || p != t.data() + t.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string format_size(int64_t bytes) {
  if (bytes != 0)
    for (const Unit& u : kSizeUnits)
      if (bytes % u.scale == 0) return fmt::format("{}{}", bytes / u.scale, u.suffix);
  return std::to_string(bytes);
}

std::string format_duration_ns(int64_t ns) {
  if (ns == 0) return "0s";
  for (const Unit& u : kDurationUnits)
    if (ns % u.scale == 0) return fmt::format("{}{}", ns / u.scale, u.suffix);
  return fmt::format("{}ns", ns);  // unreachable: ns divides everything
}

}  // namespace pagesim::config
