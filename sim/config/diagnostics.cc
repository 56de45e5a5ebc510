// Error formatting and spelling suggestions.
#include "pagesim/config/diagnostics.h"

#include <fmt/format.h>

#include <algorithm>

#include "pagesim/error.h"

namespace pagesim::config {

namespace {

// Line `n` (1-based) of `text`, without its newline; "" past the end.
std::string_view line_of(std::string_view text, int n) {
  size_t start = 0;
  for (int i = 1; i < n; ++i) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string_view::npos) return {};
    start = nl + 1;
  }
  const size_t end = text.find('\n', start);
  std::string_view line = text.substr(start, end == std::string_view::npos ? text.size() - start : end - start);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Optimal string alignment distance (Levenshtein plus adjacent transpositions), ignoring case.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

void fail(const Pos& pos, std::string_view path, std::string_view message) {
  const std::string name = pos.src ? pos.src->name : "<input>";
  std::string msg = path.empty() ? fmt::format("{}:{}:{}: {}", name, pos.line, pos.col, message)
                                 : fmt::format("{}:{}:{}: {}: {}", name, pos.line, pos.col, path, message);
  if (pos.src) {
    const std::string_view line = line_of(pos.src->text, pos.line);
    if (!line.empty()) {
      // Keep tabs so that the caret lines up under the offending column.
      std::string pad;
      for (size_t i = 0; i + 1 < static_cast<size_t>(pos.col) && i < line.size(); ++i) pad += line[i] == '\t' ? '\t' : ' ';
      msg += fmt::format("\n {:>4} | {}\n      | {}^", pos.line, line, pad);
    }
  }
  throw InputError(msg);
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(word, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string n = nearest(word, candidates);
  return n.empty() ? std::string() : fmt::format(" (did you mean '{}'?)", n);
}

std::string join(const std::vector<std::string>& words, std::string_view sep) {
  std::string out;
  for (const std::string& w : words) {
    if (!out.empty()) out += sep;
    out += w;
  }
  return out;
}

std::string child_path(std::string_view parent, std::string_view key) {
  return parent.empty() ? std::string(key) : fmt::format("{}.{}", parent, key);
}

}  // namespace pagesim::config
