// Every malformed scenario of bad_cases.h fails with an InputError that names the position and
// the key, and says what was expected.
#include <gtest/gtest.h>

#include "bad_cases.h"
#include "pagesim/error.h"
#include "pagesim/scenario/load.h"
#include "scenario_test_util.h"

namespace pagesim::scenario::testing {
namespace {

class BadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInput, FailsWithPositionKeyAndReason) {
  const BadCase& c = GetParam();
  const std::string file = write_file(fresh_dir() / "bad.yaml", c.yaml);
  LoadOptions opt;
  opt.overrides = c.sets;
  opt.engines = {"uniprocessor", "native", "virtual"};  // as the CLI names them (run::engine_names)
  try {
    load_file(file, opt);
    FAIL() << "loaded without error";
  } catch (const InputError& e) {
    const std::string line = first_line(e.what());
    // The position leads the message ("/tmp/.../bad.yaml:3:10: ..." or "<--set>:1:9: ...").
    const std::string where = std::string(c.where) + ": ";
    EXPECT_TRUE(line.rfind(where, 0) == 0 || line.find("/" + where) != std::string::npos) << line;
    if (*c.key) {
      EXPECT_NE(line.find(std::string(": ") + c.key + ": "), std::string::npos) << line;
    }
    EXPECT_NE(line.find(c.says), std::string::npos) << line;
  }
}

INSTANTIATE_TEST_SUITE_P(Scenario, BadInput, ::testing::ValuesIn(bad_cases()),
                         [](const ::testing::TestParamInfo<BadCase>& i) { return std::string(i.param.name); });

TEST(BadInputTable, CoversAtLeastThirtyCases) { EXPECT_GE(bad_cases().size(), 30u); }

// The message shows the offending line and a caret under the column.
TEST(BadInputMessage, ShowsSourceLineWithCaret) {
  const std::string file = write_file(fresh_dir() / "s.yaml", "machine:\n  memory_per_node: lots\nworkload: {name: random_mixed}\n");
  try {
    load_file(file);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("\n    2 |   memory_per_node: lots\n      |                    ^"), std::string::npos)
        << e.what();
  }
}

TEST(BadInputMessage, MissingFileNamesIt) {
  try {
    load_file("/nonexistent/x.yaml");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/x.yaml"), std::string::npos);
  }
}

}  // namespace
}  // namespace pagesim::scenario::testing
