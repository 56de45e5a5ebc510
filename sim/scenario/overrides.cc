// --set overrides.
#include "overrides.h"

#include <fmt/format.h>

#include "pagesim/config/diagnostics.h"
#include "pagesim/config/units.h"

namespace pagesim::scenario::detail {

namespace {

struct Segment {
  std::string key;
  int col = 1;        // of the key
  bool indexed = false;
  size_t index = 0;
  int index_col = 1;  // of '['
};

std::vector<Segment> split_path(std::string_view path, const std::shared_ptr<const Source>& src) {
  std::vector<Segment> segs;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    std::string_view part = path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    Segment s;
    s.col = static_cast<int>(start) + 1;
    const size_t bracket = part.find('[');
    if (bracket != std::string_view::npos) {
      s.indexed = true;
      s.index_col = s.col + static_cast<int>(bracket);
      const std::string_view idx = part.substr(bracket + 1);
      const std::optional<uint64_t> i =
          idx.empty() || idx.back() != ']' ? std::nullopt : parse_decimal_unsigned(idx.substr(0, idx.size() - 1));
      if (!i) fail(Pos{src, 1, s.index_col}, "", fmt::format("expected an index such as [0] after '{}', got '{}'", part.substr(0, bracket), part.substr(bracket)));
      s.index = *i;
      part = part.substr(0, bracket);
    }
    if (part.empty()) fail(Pos{src, 1, s.col}, "", fmt::format("expected key.path=value, got an empty key in '{}'", path));
    s.key = std::string(part);
    segs.push_back(s);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return segs;
}

}  // namespace

void apply_override(Node& root, const std::string& arg) {
  auto src = std::make_shared<const Source>(Source{"<--set>", arg});
  const size_t eq = arg.find('=');
  if (eq == std::string::npos || eq == 0) fail(Pos{src, 1, 1}, "", fmt::format("expected key.path=value, got '{}'", arg));
  const std::vector<Segment> segs = split_path(std::string_view(arg).substr(0, eq), src);
  Node* cur = &root;
  std::string path;
  for (const Segment& s : segs) {
    const Pos pos{src, 1, s.col};
    if (cur->kind == Node::Kind::null) cur->kind = Node::Kind::map;
    if (cur->kind != Node::Kind::map)
      fail(pos, path.empty() ? s.key : path, fmt::format("cannot set '{}' inside {}", s.key, describe(*cur)));
    path = child_path(path, s.key);
    Node* next = cur->find(s.key);
    if (!next) {
      cur->entries.push_back(Entry{s.key, pos, Node{Node::Kind::null, {}, false, pos, {}, {}}});
      next = &cur->entries.back().value;
    }
    cur = next;
    if (s.indexed) {
      if (cur->kind != Node::Kind::sequence || s.index >= cur->items.size())
        fail(Pos{src, 1, s.index_col}, path,
             fmt::format("expected a list with an element [{}], got {}", s.index,
                         cur->kind == Node::Kind::sequence ? fmt::format("a list of {}", cur->items.size()) : describe(*cur)));
      cur = &cur->items[s.index];
      path += fmt::format("[{}]", s.index);
    }
  }
  const int value_col = static_cast<int>(eq) + 2;
  Node value = parse_yaml(src, std::string_view(arg).substr(eq + 1), value_col, path);
  if (value.kind == Node::Kind::null) value.pos = Pos{src, 1, value_col};
  *cur = std::move(value);
}

}  // namespace pagesim::scenario::detail
