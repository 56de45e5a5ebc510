// Decimal, size and duration text.
#include "pagesim/config/units.h"

#include <gtest/gtest.h>

namespace pagesim::config {
namespace {

TEST(Units, DecimalOnly) {
  EXPECT_EQ(parse_decimal("0"), 0);
  EXPECT_EQ(parse_decimal("-1"), -1);
  EXPECT_EQ(parse_decimal("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(parse_decimal("-9223372036854775808"), INT64_MIN);
  for (const char* bad : {"", "010", "0x10", "1e3", "+5", "1_000", "1.0", "-0", "9223372036854775808", " 1", "1 "})
    EXPECT_FALSE(parse_decimal(bad)) << bad;
  EXPECT_EQ(parse_decimal_unsigned("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(parse_decimal_unsigned("-1"));
}

// bitmap_parselist's format, shared by the host's CPU lists and usemem's policy_nodes.
TEST(Units, IdListsAreRangesInOrder) {
  using R = std::vector<std::pair<uint64_t, uint64_t>>;
  EXPECT_EQ(parse_id_list("0-3,8,10-11"), (R{{0, 3}, {8, 8}, {10, 11}}));
  EXPECT_EQ(parse_id_list("12"), (R{{12, 12}}));
  EXPECT_EQ(parse_id_list(""), R{});
  for (const char* bad : {",", "0,", "-1", "1-", "3-1", "a", "0 1", "0;1"}) EXPECT_EQ(parse_id_list(bad), std::nullopt) << bad;
}

TEST(Units, SizesArePowersOf1024) {
  EXPECT_EQ(parse_size("4096"), 4096);
  EXPECT_EQ(parse_size("4k"), 4096);
  EXPECT_EQ(parse_size("2MiB"), 2 << 20);
  EXPECT_EQ(parse_size("64G"), int64_t{64} << 30);
  EXPECT_EQ(parse_size("8T"), int64_t{8} << 40);
  EXPECT_EQ(parse_size("8TB"), int64_t{8} << 40);
  for (const char* bad : {"", "G", "1.5G", "-1G", "1X", "1GG", "010M", "99999999T"}) EXPECT_FALSE(parse_size(bad)) << bad;
}

TEST(Units, DurationsNeedAUnit) {
  EXPECT_EQ(parse_duration_ns("300s"), int64_t{300} * 1000000000);
  EXPECT_EQ(parse_duration_ns("10ms"), 10000000);
  EXPECT_EQ(parse_duration_ns("7us"), 7000);
  EXPECT_EQ(parse_duration_ns("5ns"), 5);
  EXPECT_EQ(parse_duration_ns("0"), 0);
  for (const char* bad : {"300", "1.5s", "5m", "s", "-1s", "1 s"}) EXPECT_FALSE(parse_duration_ns(bad)) << bad;
}

TEST(Units, Numbers) {
  EXPECT_EQ(parse_number("0.5"), 0.5);
  EXPECT_EQ(parse_number("1e-3"), 1e-3);
  EXPECT_EQ(parse_number("-2"), -2.0);
  for (const char* bad : {"", "inf", "nan", ".inf", "0x1p3", "+1", "1,5", "1e999"}) EXPECT_FALSE(parse_number(bad)) << bad;
}

TEST(Units, CanonicalFormsReadBack) {
  EXPECT_EQ(format_size(0), "0");
  EXPECT_EQ(format_size(int64_t{1} << 30), "1G");
  EXPECT_EQ(format_size(int64_t{1536} << 20), "1536M");
  EXPECT_EQ(format_size(4097), "4097");
  EXPECT_EQ(format_duration_ns(0), "0s");
  EXPECT_EQ(format_duration_ns(1500000), "1500us");
  EXPECT_EQ(format_duration_ns(int64_t{300} * 1000000000), "300s");
  for (int64_t v : {int64_t{0}, int64_t{4097}, int64_t{3} << 40, int64_t{5} << 10}) EXPECT_EQ(parse_size(format_size(v)), v);
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{1000}, int64_t{123456789}}) EXPECT_EQ(parse_duration_ns(format_duration_ns(v)), v);
}

}  // namespace
}  // namespace pagesim::config
