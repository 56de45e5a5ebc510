// Typed, strict reads from the scenario tree. Every read carries the key path for messages,
// and every failure throws InputError through fail() with the node's position.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pagesim/config/params.h"
#include "pagesim/config/diagnostics.h"
#include "pagesim/config/tree.h"

namespace pagesim::config {

// A map node whose keys are checked against a fixed list on construction: an unknown key fails
// with the nearest valid one as a hint. An empty value ("params:") reads as an empty map.
class MapView {
 public:
  MapView(const Node& node, std::string path, const std::vector<std::string>& allowed);

  // nullptr when absent.
  const Node* get(std::string_view key) const;
  // Fails with "missing required key" at the map's position when absent.
  const Node& require(std::string_view key) const;
  const Pos& key_pos(std::string_view key) const;  // the key's own position; requires has(key)
  bool has(std::string_view key) const { return get(key) != nullptr; }
  std::string path(std::string_view key) const { return child_path(path_, key); }
  const Node& node() const { return node_; }

 private:
  const Node& node_;
  std::string path_;
};

// Scalars. Each fails with "expected ..., got ..." naming the path.
std::string read_string(const Node& n, std::string_view path);  // an empty value reads as ""
bool read_bool(const Node& n, std::string_view path);           // true|false only
int64_t read_integer(const Node& n, std::string_view path, int64_t lo, int64_t hi);
uint64_t read_unsigned(const Node& n, std::string_view path, uint64_t lo, uint64_t hi);
int64_t read_size(const Node& n, std::string_view path, int64_t lo, int64_t hi);
double read_number(const Node& n, std::string_view path, const std::optional<double>& lo, const std::optional<double>& hi);
// One of `choices`, with a hint for a near miss.
std::string read_choice(const Node& n, std::string_view path, const std::vector<std::string>& choices,
                        std::string_view what = "one of");

// Why a plausible-looking integer was refused ("0x10", "010", "1e3"), as " (...)"; else "".
std::string integer_hint(std::string_view text);

// A workload parameter typed and range-checked by its spec.
config::ParamValue read_param(const Node& n, std::string_view path, const config::ParamSpec& spec);
// The value as the resolved scenario shows it: sizes and durations as canonical strings.
nlohmann::ordered_json param_json(const config::ParamSpec& spec, const config::ParamValue& v);
// A declared bound as messages show it: "4G" for sizes, "10ms" for durations, "0.5" for numbers.
std::string bound_text(config::ParamType t, double b);
// "integer", "size", ... for messages and `pagesim list`.
std::string_view param_type_name(config::ParamType t);

}  // namespace pagesim::config
