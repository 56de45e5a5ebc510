// Configuration inputs that would hang a parser end with a clear error instead: an alias bomb
// (a few hundred bytes that expand to 10^9 nodes) and an endless file (/dev/zero).
#include <gtest/gtest.h>

#include <string>

#include "pagesim/config/tree.h"
#include "pagesim/error.h"

namespace pagesim::config {
namespace {

std::string alias_bomb(int levels) {
  std::string y = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < levels; ++i) {
    y += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) y += (k ? ", *a" : "*a") + std::to_string(i - 1);
    y += "]\n";
  }
  return y;
}

Node parse(const std::string& text) {
  auto src = std::make_shared<const Source>(Source{"bomb.yaml", text});
  return parse_yaml(src, src->text);
}

TEST(ConfigLimits, AliasBombFailsAtTheNodeLimit) {
  try {
    parse(alias_bomb(9));  // 10^9 nodes once expanded
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("more than 200000 nodes"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bomb.yaml:"), std::string::npos) << e.what();
  }
}

TEST(ConfigLimits, AliasesBelowTheLimitStillParse) {
  const Node n = parse(alias_bomb(3));  // 1,000 leaves
  ASSERT_NE(n.find("a2"), nullptr);
  EXPECT_EQ(n.find("a2")->items.size(), 10u);
}

// yaml-cpp 0.7 loops forever, allocating, on a stray ',' (found by fuzz/fuzz_set_override).
TEST(ConfigLimits, StrayCommaIsASyntaxErrorNotAHang) {
  for (const char* text : {",", ", 2", "seed: 1\n,\n"}) {
    try {
      parse(text);
      ADD_FAILURE() << text << " parsed";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("invalid YAML"), std::string::npos) << e.what();
    }
  }
}

TEST(ConfigLimits, EndlessFileFailsAtTheSizeLimit) {
  try {
    read_config_file("/dev/zero", "scenario");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/zero: the scenario is larger than 4 MiB"), std::string::npos) << e.what();
  }
}

TEST(ConfigLimits, MissingFileNamesIt) {
  EXPECT_THROW(read_config_file("/nonexistent/m.yaml", "machine file"), InputError);
}

}  // namespace
}  // namespace pagesim::config
