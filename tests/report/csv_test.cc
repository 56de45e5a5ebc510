#include <gtest/gtest.h>

#include "pagesim/report/report.h"
#include "report_test_util.h"

namespace pagesim::test {
namespace {

TEST(CsvTest, OneRowPerRunAndMetricWithQuoting) {
  std::vector<run::RunResult> runs = {make_run("v5.17", 0, {{"ops_per_s", 1.5}, {"elapsed_s", 2}}),
                                      make_run("v5.17 thp=false,khugepaged=\"no\"", 1, {{"ops_per_s", 0.1}}, "machine.cpus", "4")};
  EXPECT_EQ(report::to_csv(runs),
            "variant,engine,repeat,sweep_key,sweep_value,metric,value\n"
            "v5.17,uniprocessor,0,,,elapsed_s,2\n"
            "v5.17,uniprocessor,0,,,ops_per_s,1.5\n"
            "\"v5.17 thp=false,khugepaged=\"\"no\"\"\",uniprocessor,1,machine.cpus,4,ops_per_s,0.1\n");
}

}  // namespace
}  // namespace pagesim::test
