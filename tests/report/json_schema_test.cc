// The JSON document against the schema table in docs/output.md: every key the code writes is
// documented with the right type, and every documented key is written.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "pagesim/error.h"
#include "pagesim/report/report.h"
#include "pagesim/workload/usemem_result.h"
#include "report_test_util.h"

namespace pagesim::test {
namespace {

// The rows between the schema markers: | `path` | type | unit | meaning |.
std::map<std::string, std::string> documented_schema() {
  const std::string doc = read_text(PAGESIM_OUTPUT_DOC);
  const size_t begin = doc.find("<!-- schema:begin -->"), end = doc.find("<!-- schema:end -->");
  EXPECT_NE(begin, std::string::npos);
  EXPECT_NE(end, std::string::npos);
  std::map<std::string, std::string> schema;
  std::istringstream in(doc.substr(begin, end - begin));
  const std::regex row(R"(^\| `([^`]+)` \| ([^|]+?) \|.*)");
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_match(line, m, row)) schema[m[1]] = m[2];
  return schema;
}

bool has_type(const nlohmann::json& v, const std::string& type) {
  if (type == "string") return v.is_string();
  if (type == "integer") return v.is_number_integer();
  if (type == "number") return v.is_number();
  if (type == "boolean") return v.is_boolean();
  if (type == "array") return v.is_array();
  if (type == "null") return v.is_null();
  if (type == "object" || type == "open object") return v.is_object();
  if (type.starts_with("map of ")) {
    if (!v.is_object()) return false;
    for (const auto& [k, x] : v.items())
      if (!has_type(x, type.substr(7))) return false;
    return true;
  }
  ADD_FAILURE() << "docs/output.md uses an unknown type '" << type << "'";
  return false;
}

// Types may be alternatives: "number or null".
bool matches(const nlohmann::json& v, const std::string& types) {
  size_t start = 0;
  while (true) {
    const size_t sep = types.find(" or ", start);
    if (has_type(v, types.substr(start, sep == std::string::npos ? std::string::npos : sep - start))) return true;
    if (sep == std::string::npos) return false;
    start = sep + 4;
  }
}

class SchemaChecker {
 public:
  explicit SchemaChecker(std::map<std::string, std::string> schema) : schema_(std::move(schema)) {}

  void check(const nlohmann::json& v, const std::string& path, bool open_parent) {
    auto it = schema_.find(path);
    if (it == schema_.end()) {
      if (!open_parent) ADD_FAILURE() << "key '" << path << "' is written but not documented in docs/output.md";
      return;
    }
    seen_.insert(path);
    EXPECT_TRUE(matches(v, it->second)) << path << " should be " << it->second << ", is " << v.dump();
    if (it->second.starts_with("map of")) return;  // values checked by type; keys are data
    const bool open = it->second.find("open object") != std::string::npos;
    if (v.is_object())
      for (const auto& [k, x] : v.items()) check(x, path.empty() ? k : path + "." + k, open);
    if (v.is_array())
      for (const auto& x : v) check(x, path + "[]", false);
  }

  void expect_all_seen() const {
    for (const auto& [path, type] : schema_)
      EXPECT_TRUE(seen_.count(path)) << "documented key '" << path << "' is never written";
  }

 private:
  std::map<std::string, std::string> schema_;
  std::set<std::string> seen_;
};

// usemem's records with every field set (the virtual engine's start steps too).
std::vector<workload::TaskPlacement> usemem_tasks() {
  std::vector<workload::TaskPlacement> tasks = {
      {.task = 0,
       .timeline = {{.at_ns = 0, .cpu = 3}, {.at_ns = 1000, .cpu = 70}},
       .iterations = {{.reserve_node = 0, .fault_node = 1, .fault_node_pages = {2, 6}, .store_loop_node_s = {0.5, 1.5},
                       .remote_store_share_pct = 43.75}}}};
  tasks[0].iterations[0].start = {.fork_node = 0, .wake_node = 0, .mmap_start_node = 0, .mmap_end_node = 1,
                                  .first_fault_node = 1, .pass1_node = 1, .pass2_node = -1, .mmap_start_us = 5,
                                  .mmap_end_us = 30000, .first_fault_us = 30000, .pass1_us = 1000000, .pass2_us = -1,
                                  .reserved_node_pages = {3, 5}, .spin_zone_lock_us = 1.5, .spin_hugetlb_lock_us = 2};
  return tasks;
}

// A result that has every part filled: two sweep points, locks, zones, cache, violations, a
// reused run.
nlohmann::ordered_json full_document() {
  scenario::ScenarioSet set(2);
  for (size_t i = 0; i < set.size(); ++i) {
    set[i].file = "sweep.yaml";
    set[i].sweep = {"machine.cpus", std::to_string(i + 1)};
    set[i].resolved = {{"machine", {{"nodes", 1}, {"cpus", i + 1}}}, {"workload", {{"name", "usemem"}}}, {"repeats", 2}};
  }
  std::vector<run::RunResult> runs;
  for (const char* cpus : {"1", "2"})
    for (unsigned rep = 0; rep < 2; ++rep) {
      run::RunResult r = make_run("v5.17", rep, {{"ops_per_s", 10.0 + rep}, {"elapsed_s", 1}}, "machine.cpus", cpus);
      r.zones.push_back(mm::ZoneCensus{.node = 0, .zone = mm::ZONE_NORMAL, .managed_pages = 100, .nr_free_pages = 90});
      r.locks.push_back(run::LockStat{.name = "&zone->lock", .instance = "node0/Normal", .acquisitions = 3,
                                      .wait_hist = {0, 1}, .hold_hist = {2},
                                      .contention_points = {{"rmqueue_bulk", 1}},
                                      .acquisition_points = {{"rmqueue_bulk", 3}}});
      r.cache = {"access counts", {{"line_accesses", 5}}, false, "not read", {{"cycles", 1}}};
      r.invariant_checks = 4;
      r.violations = {"node0/Normal: nr_free mismatch"};
      r.vmstat = {{"nr_free_pages", 90}};
      r.memmap_backing = "4k";
      r.bad_page_reports = {"BUG: Bad page state"};
      r.notes = {"native engine: 2 threads on 2 host cores"};
      r.workload_result = std::make_shared<const workload::UsememResult>(usemem_tasks());
      r.variant_reads = mm::variant_bit(mm::VariantKnob::pcp_check_scope);
      if (rep == 1) r.reused = run::Reused{"v5.17", mm::variant_bit(mm::VariantKnob::buddy_check)};
      runs.push_back(r);
    }
  return report::to_json(set, runs, true, run::Shard{1, 3});
}

TEST(JsonSchemaTest, DocumentMatchesDocsOutputMd) {
  const auto schema = documented_schema();
  ASSERT_GT(schema.size(), 40u) << "the schema table in docs/output.md was not found";
  SchemaChecker checker(schema);
  const nlohmann::json doc = nlohmann::json::parse(full_document().dump());
  for (const auto& [k, v] : doc.items()) checker.check(v, k, false);
  checker.expect_all_seen();
}

TEST(JsonSchemaTest, TopLevelKeysInOrder) {
  const nlohmann::ordered_json doc = full_document();
  std::vector<std::string> keys;
  for (const auto& [k, v] : doc.items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"schema", "scenario", "runs", "compare", "interrupted", "shard"}));
  EXPECT_EQ(doc["schema"], "pagesim/1");
  EXPECT_EQ(doc["scenario"]["sweep"]["values"], (nlohmann::ordered_json{"1", "2"}));
}

TEST(JsonSchemaTest, RunsReadBack) {
  const nlohmann::ordered_json doc = full_document();
  const std::vector<run::RunResult> runs = report::runs_from_json(nlohmann::json::parse(doc.dump()), "mem");
  ASSERT_EQ(runs.size(), 4u);
  nlohmann::ordered_json again = nlohmann::ordered_json::array();
  for (const run::RunResult& r : runs) again.push_back(report::run_to_json(r));
  EXPECT_EQ(again.dump(), doc["runs"].dump());
  // usemem's records come back through its reader (WorkloadInfo::read_result), equal.
  const auto* usemem = dynamic_cast<const workload::UsememResult*>(runs[0].workload_result.get());
  ASSERT_NE(usemem, nullptr);
  EXPECT_EQ(usemem->tasks(), usemem_tasks());
}

TEST(JsonSchemaTest, MalformedDocumentIsInputError) {
  EXPECT_THROW(report::runs_from_json(nlohmann::json{{"schema", "pagesim/1"}, {"runs", {{{"variant", 1}}}}}, "x.json"),
               InputError);
  EXPECT_THROW(report::runs_from_json(nlohmann::json{{"schema", "other"}}, "x.json"), InputError);
}

}  // namespace
}  // namespace pagesim::test
