// Text forms of the numbers a scenario holds: decimal integers, sizes and durations.
//
// Integers are decimal only: "010", "0x10", "1e3", "+5" and "1_000" are rejected, because
// yaml-cpp would read 010 as 8 and a scenario should mean what it says.
// Sizes are bytes with an optional K/M/G/T suffix (powers of 1024, as LKP writes them), case
// insensitive, optionally followed by "B" or "iB": "64G", "2MiB", "4k", "4096".
// Durations are integers with a unit s, ms, us or ns ("300s", "10ms"); a bare "0" is allowed.
//
// Parsers return nullopt on any malformed or out-of-range text; callers word the error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace pagesim::config {

std::optional<int64_t> parse_decimal(std::string_view text);
std::optional<uint64_t> parse_decimal_unsigned(std::string_view text);
// A kernel list of ids, as bitmap_parselist() reads a CPU or node list: "0-3,8,10-11". The
// ranges in order, each [first, last]; empty for empty text; nullopt when an item is not a
// number or a range, or a range runs backwards.
std::optional<std::vector<std::pair<uint64_t, uint64_t>>> parse_id_list(std::string_view text);
// Bytes. Rejects negative sizes and overflow of int64.
std::optional<int64_t> parse_size(std::string_view text);
// Nanoseconds. Rejects negative durations and overflow of int64.
std::optional<int64_t> parse_duration_ns(std::string_view text);
// A finite floating-point number in decimal or exponent notation ("0.5", "1e-3", "2").
std::optional<double> parse_number(std::string_view text);

// Canonical forms, which the parsers read back exactly: the largest unit that divides the
// value ("1G", "1536M", "4097"; "300s", "10ms", "0s").
std::string format_size(int64_t bytes);
std::string format_duration_ns(int64_t ns);

}  // namespace pagesim::config
