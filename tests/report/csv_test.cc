#include <gtest/gtest.h>

#include "pagesim/report/report.h"
#include "report_test_util.h"

namespace pagesim::test {
namespace {

TEST(CsvTest, OneRowPerRunAndMetricWithQuoting) {
  std::vector<run::RunResult> runs = {make_run("v5.17", 0, {{"ops_per_s", 1.5}, {"elapsed_s", 2}}),
                                      make_run("v5.17 thp=false,khugepaged=\"no\"", 1, {{"ops_per_s", 0.1}}, "machine.cpus", "4")};
  EXPECT_EQ(report::to_csv(runs),
            "variant,engine,repeat,sweep_key,sweep_value,metric,value,interrupted\n"
            "v5.17,uniprocessor,0,,,elapsed_s,2,0\n"
            "v5.17,uniprocessor,0,,,ops_per_s,1.5,0\n"
            "\"v5.17 thp=false,khugepaged=\"\"no\"\"\",uniprocessor,1,machine.cpus,4,ops_per_s,0.1,0\n");
}

// The JSON's runs[].interrupted, in every row of the run; a run stopped before it measured
// anything still has its row.
TEST(CsvTest, PartialRunsCarryTheInterruptedMarker) {
  std::vector<run::RunResult> runs = {make_run("a", 0, {{"ops_per_s", 2}}), make_run("b", 0, {{"allocs", 7}}), make_run("c", 0, {})};
  runs[1].interrupted = runs[2].interrupted = true;
  EXPECT_EQ(report::to_csv(runs),
            "variant,engine,repeat,sweep_key,sweep_value,metric,value,interrupted\n"
            "a,uniprocessor,0,,,ops_per_s,2,0\n"
            "b,uniprocessor,0,,,allocs,7,1\n"
            "c,uniprocessor,0,,,,,1\n");
}

}  // namespace
}  // namespace pagesim::test
