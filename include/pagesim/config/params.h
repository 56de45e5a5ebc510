// Typed parameters: what a component declares (name, type, default, range, description) and
// the validated values it is given. The scenario loader reads them; `pagesim list` prints them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace pagesim::config {

enum class ParamType : uint8_t {
  integer,   // decimal only
  size,      // bytes; K/M/G/T suffixes (powers of 1024), as LKP writes them
  duration,  // nanoseconds; s/ms/us/ns suffixes
  number,    // floating point
  boolean,
  string,
  choice,    // one of `choices`
};

using ParamValue = std::variant<int64_t, double, bool, std::string>;

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::integer;
  ParamValue default_value;
  std::optional<double> min, max;     // for integer, size, duration and number
  std::vector<std::string> choices;   // for choice
  std::string description;
};

// Parameters after validation: every declared parameter present, with its declared type
// (integer/size/duration as int64_t, number as double, boolean as bool, string/choice as string).
// A parameter value that something else rules out (the machine, the engine, another parameter):
// the parameter and why. The loader refuses it at the parameter's line and column.
struct ParamProblem {
  std::string param, message;
};

class Params {
 public:
  Params() = default;
  explicit Params(std::map<std::string, ParamValue> values) : values_(std::move(values)) {}
  int64_t integer(const std::string& name) const;
  double number(const std::string& name) const;
  bool boolean(const std::string& name) const;
  const std::string& string(const std::string& name) const;
  const std::map<std::string, ParamValue>& values() const { return values_; }
  // A copy with `name` set to `value`; throws ModelError for a name not declared or a value of
  // another type.
  Params with(const std::string& name, ParamValue value) const;

 private:
  std::map<std::string, ParamValue> values_;
};

}  // namespace pagesim::config
