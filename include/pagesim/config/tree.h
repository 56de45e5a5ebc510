// The scenario document as a small tree of its own, converted from yaml-cpp once.
//
// Why not work on YAML::Node directly: yaml-cpp keeps duplicate keys silently, inserts missing
// keys through non-const operator[], and gives null nodes no useful position. This tree keeps
// every map entry in document order with the position of its key and its value, so that the
// schema can report duplicates and unknown keys, and `--set` overrides can be spliced in with
// positions of their own ("<--set>:1:COL").
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pagesim::config {

// Where text came from: a file, or one `--set` argument. Kept for error context lines.
struct Source {
  std::string name;  // "scenarios/default.yaml" or "<--set>"
  std::string text;
};

struct Pos {
  std::shared_ptr<const Source> src;
  int line = 1, col = 1;  // 1-based
};

struct Node;
struct Entry;

struct Node {
  enum class Kind { null, scalar, sequence, map };
  Kind kind = Kind::null;
  std::string text;     // scalar text
  bool quoted = false;  // a quoted or block scalar: a string, never a number or boolean
  Pos pos;
  std::vector<Node> items;     // sequence
  std::vector<Entry> entries;  // map, in document order (duplicates are rejected on load)

  const Node* find(std::string_view key) const;
  Node* find(std::string_view key);
  bool is_scalar_list() const;  // a non-empty sequence of scalars
};

struct Entry {
  std::string key;
  Pos key_pos;
  Node value;
};

// What a node is, for "got ..." in messages: "'0x10'", "string \"12\"", "a sequence", ...
std::string describe(const Node& n);

// Limits that keep a hostile or mistaken input from hanging a run: a configuration file is read
// up to kMaxInputBytes (so /dev/zero ends), and a document may expand to kMaxNodes nodes (so an
// alias bomb, a few hundred bytes that expand to 10^9 nodes, ends). Both fail with InputError.
inline constexpr size_t kMaxInputBytes = 4u << 20;
inline constexpr size_t kMaxNodes = 200000;

// The text of a configuration file (`what`: "scenario", "machine file"), at most kMaxInputBytes.
// Throws InputError naming the file when it cannot be read or is larger.
std::string read_config_file(const std::string& path, std::string_view what);

// Parses YAML text into a tree. Throws InputError for syntax errors, duplicate keys, non-scalar
// keys, more than one document and more than kMaxNodes nodes once aliases are expanded. An empty document is a null node.
//   text:       what to parse; src->text when it is the whole source (a file). A --set value is
//               a slice of its argument that starts at column `first_col` of line 1.
//   error_path: the key path named by a syntax error; "" guesses it from the lines above.
Node parse_yaml(std::shared_ptr<const Source> src, std::string_view text, int first_col = 1,
                std::string_view error_path = "");

}  // namespace pagesim::config
