// yaml-cpp -> scenario tree, with duplicate-key detection and 1-based positions.
#include "pagesim/config/tree.h"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "pagesim/config/diagnostics.h"
#include "pagesim/error.h"

namespace pagesim::config {

namespace {

class Converter {
 public:
  Converter(std::shared_ptr<const Source> src, int first_col) : src_(std::move(src)), first_col_(first_col) {}

  // `fallback` is used when yaml-cpp gives the node no mark (or, for an empty value, the mark of
  // whatever follows it).
  Node convert(const YAML::Node& y, const Pos& fallback) {
    Node n;
    n.pos = pos(y.Mark(), fallback);
    // yaml-cpp shares an aliased node; the tree copies it, so count what the copies add up to.
    if (++nodes_ > kMaxNodes)
      fail(n.pos, "", fmt::format("the document expands to more than {} nodes (aliases that repeat aliases?); that is "
                                  "the limit for a configuration file",
                                  kMaxNodes));
    switch (y.Type()) {
      case YAML::NodeType::Undefined:
      case YAML::NodeType::Null:
        n.kind = Node::Kind::null;
        break;
      case YAML::NodeType::Scalar:
        n.kind = Node::Kind::scalar;
        n.text = y.Scalar();
        n.quoted = y.Tag() == "!";  // yaml-cpp tags every non-plain scalar "!"
        break;
      case YAML::NodeType::Sequence:
        n.kind = Node::Kind::sequence;
        for (const YAML::Node& item : y) n.items.push_back(convert(item, n.pos));
        break;
      case YAML::NodeType::Map:
        n.kind = Node::Kind::map;
        for (auto it = y.begin(); it != y.end(); ++it) add_entry(n, it->first, it->second);
        break;
    }
    return n;
  }

  Pos pos(const YAML::Mark& m, const Pos& fallback) const {
    if (m.is_null() || m.line < 0) return fallback;
    return Pos{src_, m.line + 1, m.line == 0 ? m.column + first_col_ : m.column + 1};
  }

 private:
  void add_entry(Node& map, const YAML::Node& key, const YAML::Node& value) {
    const Pos key_pos = pos(key.Mark(), map.pos);
    if (!key.IsScalar()) {
      Node k = convert(key, key_pos);
      fail(key_pos, "", fmt::format("expected a key name, got {}", describe(k)));
    }
    for (const Entry& e : map.entries)
      if (e.key == key.Scalar())
        fail(key_pos, e.key, fmt::format("duplicate key (first given at line {}, column {})", e.key_pos.line, e.key_pos.col));
    Pos value_fallback = key_pos;
    Node v = convert(value, value_fallback);
    // An empty value ("key:" and a newline) carries the mark of the next token; point at the key.
    if (v.kind == Node::Kind::null && v.pos.line != key_pos.line) v.pos = key_pos;
    map.entries.push_back(Entry{key.Scalar(), key_pos, std::move(v)});
  }

  std::shared_ptr<const Source> src_;
  int first_col_;
  size_t nodes_ = 0;
};

bool key_line(std::string_view line, size_t& indent, std::string& key) {
  indent = line.find_first_not_of(' ');
  if (indent == std::string_view::npos || line[indent] == '#') return false;
  size_t i = indent;
  if (line.compare(i, 2, "- ") == 0) i += 2;
  const size_t colon = line.find(':', i);
  if (colon == std::string_view::npos || colon == i) return false;
  for (size_t j = i; j < colon; ++j) {
    const char c = line[j];
    if (!(isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '+')) return false;
  }
  key = std::string(line.substr(i, colon - i));
  return true;
}

// Best guess at the key path around a syntax error: the keys of the nearest lines above it
// with decreasing indentation. yaml-cpp reports where it gave up, not which key it was in.
std::string enclosing_keys(std::string_view text, int line) {
  std::vector<std::string_view> lines;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  std::vector<std::string> path;
  size_t limit = std::string_view::npos;
  for (int i = std::min<int>(line, static_cast<int>(lines.size())) - 1; i >= 0; --i) {
    size_t indent = 0;
    std::string key;
    if (!key_line(lines[i], indent, key) || (limit != std::string_view::npos && indent >= limit)) continue;
    path.insert(path.begin(), key);
    limit = indent;
    if (indent == 0) break;
  }
  return join(path, ".");
}

// Where each document of a stream starts, for at most two documents. yaml-cpp 0.7's LoadAll
// loops forever, allocating, on a stray ',' outside a flow collection: HandleNextDocument keeps
// returning the same empty document without consuming the token (jbeder/yaml-cpp#1040, fixed
// upstream after 0.7 by #1319). So documents are counted here, and a second "document" that
// starts where the first did is that stuck token.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;  // each document's start
  std::vector<YAML::Mark> roots;   // each document's first node (what an error points at)
  void OnDocumentStart(const YAML::Mark& m) override { starts.push_back(m); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
  void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { node(m); }
  void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override { node(m); }
  void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
    node(m);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override { node(m); }
  void OnMapEnd() override {}

 private:
  void node(const YAML::Mark& m) {
    if (roots.size() < starts.size()) roots.push_back(m);
  }
};

}  // namespace

const Node* Node::find(std::string_view key) const {
  for (const Entry& e : entries)
    if (e.key == key) return &e.value;
  return nullptr;
}

Node* Node::find(std::string_view key) {
  for (Entry& e : entries)
    if (e.key == key) return &e.value;
  return nullptr;
}

bool Node::is_scalar_list() const {
  if (kind != Kind::sequence || items.empty()) return false;
  for (const Node& i : items)
    if (i.kind != Kind::scalar) return false;
  return true;
}

std::string describe(const Node& n) {
  switch (n.kind) {
    case Node::Kind::null: return "an empty value";
    case Node::Kind::sequence: return "a sequence";
    case Node::Kind::map: return "a map";
    case Node::Kind::scalar: break;
  }
  return n.quoted ? fmt::format("string \"{}\"", n.text) : fmt::format("'{}'", n.text);
}

std::string read_config_file(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read {}: {}", path, what, std::strerror(errno)));
  std::string text(kMaxInputBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw InputError(fmt::format("{}: cannot read {}: {}", path, what, std::strerror(errno)));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxInputBytes)
    throw InputError(fmt::format("{}: the {} is larger than {} MiB, the limit for a configuration file", path, what,
                                 kMaxInputBytes >> 20));
  return text;
}

Node parse_yaml(std::shared_ptr<const Source> src, std::string_view text, int first_col, std::string_view error_path) {
  const Pos start{src, 1, first_col};
  Converter conv(src, first_col);
  auto at = [&](const YAML::Mark& m) { return conv.pos(m, start); };
  auto syntax_error = [&](const Pos& p, const std::string& what) {
    fail(p, error_path.empty() ? enclosing_keys(text, p.line) : std::string(error_path), "invalid YAML: " + what);
  };
  YAML::Node doc;
  try {
    std::istringstream in{std::string(text)};
    YAML::Parser parser(in);
    DocumentStarts docs;
    if (parser.HandleNextDocument(docs) && parser.HandleNextDocument(docs)) {
      const YAML::Mark& a = docs.starts[0];
      const YAML::Mark& b = docs.starts[1];
      if (a.pos == b.pos) syntax_error(at(a), "unexpected token (a ',' outside a [...] or {...} list?)");
      fail(at(docs.roots.size() > 1 ? docs.roots[1] : b), "",
           "expected one YAML document, got a second one ('---' separated documents are not supported)");
    }
    doc = YAML::Load(std::string(text));
  } catch (const YAML::ParserException& e) {
    syntax_error(e.mark.is_null() ? start : at(e.mark), e.msg);
  }
  if (!doc.IsDefined() || (doc.IsNull() && doc.Mark().is_null())) return Node{Node::Kind::null, {}, false, start, {}, {}};
  return conv.convert(doc, start);
}

}  // namespace pagesim::config
