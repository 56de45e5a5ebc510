// The pagesim binary: exit codes, messages on stderr, no output files on bad input, `validate`
// on every shipped scenario, and a golden `validate --resolved`.
#include <gtest/gtest.h>

#include <algorithm>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "scenario/bad_cases.h"
#include "scenario/scenario_test_util.h"

namespace pagesim::scenario::testing {
namespace {

namespace fs = std::filesystem;

std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string fmt_cmd(const std::string& args, const fs::path& out, const fs::path& err) {
  return quote(PAGESIM_BIN) + " " + args + " >" + quote(out.string()) + " 2>" + quote(err.string()) + " </dev/null";
}

// The standard output of a shell command.
std::string slurp_command(const std::string& cmd) {
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[256];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    pclose(p);
  }
  return out;
}

struct Result {
  int code = -1;
  std::string out, err;
};

// Runs `pagesim ARGS` with stdout and stderr captured in files under `dir`; from `dir` as the
// working directory when `in_dir`.
Result pagesim(const std::string& args, const fs::path& dir, bool in_dir = false) {
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd = (in_dir ? "cd " + quote(dir.string()) + " && " : "") + fmt_cmd(args, out, err);
  const int status = std::system(cmd.c_str());
  Result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return r;
}

class BadInputCli : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadInputCli, ExitsTwoWithPositionAndCreatesNothing) {
  const BadCase& c = GetParam();
  const fs::path dir = fresh_dir();
  const std::string file = write_file(dir / "bad.yaml", c.yaml);
  std::string args = "run " + quote(file) + " --json " + quote((dir / "out.json").string()) + " --csv " +
                     quote((dir / "out.csv").string()) + " --proc " + quote((dir / "proc").string());
  for (const std::string& s : c.sets) args += " --set " + quote(s);
  const Result r = pagesim(args, dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(c.where), std::string::npos) << r.err;
  if (*c.key) {
    EXPECT_NE(r.err.find(c.key), std::string::npos) << r.err;
  }
  EXPECT_EQ(r.out, "");
  // Nothing but the scenario itself: no result, no temporary file, no proc directory.
  std::vector<std::string> left;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"bad.yaml"});
}

INSTANTIATE_TEST_SUITE_P(Scenario, BadInputCli, ::testing::ValuesIn(bad_cases()),
                         [](const ::testing::TestParamInfo<BadCase>& i) { return std::string(i.param.name); });

// kmem_trace's trace issues requests on 2 CPUs: on a machine of 1 the scenario is refused at
// load (validate and run), exit 2, naming the scenario's line, the key and the trace's line, and
// the run writes nothing.
TEST(Cli, KmemTraceOnTooFewCpusExitsTwoAndWritesNothing) {
  const fs::path dir = fresh_dir();
  const std::string trace = std::string(PAGESIM_SOURCE_DIR) + "/tests/workload/kmem_trace/hand.trace";
  const std::string file = write_file(dir / "kmem.yaml", "machine: {nodes: 1, cpus_per_node: 1, memory_per_node: 256M}\n"
                                                        "workload: {name: kmem_trace, params: {trace: '" + trace + "'}}\n"
                                                        "engine: {name: virtual}\n");
  const Result r = pagesim("run " + quote(file) + " --json " + quote((dir / "out.json").string()), dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(file + ":2:46: workload.params.trace: " + trace + ":11: the trace issues requests on CPU 1"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "out.json"));
  const Result v = pagesim("validate " + quote(file), dir);
  EXPECT_EQ(v.code, 2) << v.out;
  EXPECT_NE(v.err.find(file + ":2:46: workload.params.trace: "), std::string::npos) << v.err;
}

TEST(Cli, EveryShippedScenarioValidates) {
  const fs::path dir = fresh_dir();
  size_t n = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(fs::path(PAGESIM_SOURCE_DIR) / "scenarios")) {
    if (e.path().extension() != ".yaml") continue;
    ++n;
    const Result r = pagesim("validate " + quote(e.path().string()), dir);
    EXPECT_EQ(r.code, 0) << e.path() << ": " << r.err;
    EXPECT_NE(r.out.find(": ok:"), std::string::npos) << r.out;
  }
  EXPECT_GE(n, 1u);
}

TEST(Cli, ValidateResolvedMatchesGolden) {
  const fs::path golden = fs::path(PAGESIM_SOURCE_DIR) / "tests/tools/golden";
  const Result r = pagesim("validate --resolved " + quote((golden / "small.yaml").string()), fresh_dir());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, slurp(golden / "small.resolved.json"));
}

TEST(Cli, UsageErrorsExitTwoAndHelpExitsZero) {
  const fs::path dir = fresh_dir();
  EXPECT_EQ(pagesim("", dir).code, 2);
  EXPECT_EQ(pagesim("frobnicate", dir).code, 2);
  EXPECT_EQ(pagesim("run", dir).code, 2);
  EXPECT_EQ(pagesim("run x.yaml --bogus", dir).code, 2);
  const Result v = pagesim("--version", dir);
  EXPECT_EQ(v.code, 0);
  EXPECT_EQ(v.out.rfind("pagesim 0.", 0), 0u) << v.out;
  EXPECT_NE(v.out.find(" (commit "), std::string::npos) << v.out;
  for (const char* cmd : {"run", "validate", "list", "plot", "demo"}) {
    const Result h = pagesim(std::string(cmd) + " --help", dir);
    EXPECT_EQ(h.code, 0) << cmd;
    EXPECT_NE(h.out.find("Example: pagesim " + std::string(cmd)), std::string::npos) << cmd << ": " << h.out;
  }
}

// --help's head and footer, and pagesim(1) drawn from the same declarations (tools/cli/manual.h).
TEST(Cli, HelpAndManPageSayTheSame) {
  const fs::path dir = fresh_dir();
  const Result help = pagesim("--help", dir);
  ASSERT_EQ(help.code, 0);
  EXPECT_EQ(first_line(help.out), "pagesim: a simulator of the Linux page allocator (kernel presets v5.17 to v6.18)");
  const Result man = pagesim("man", dir);
  ASSERT_EQ(man.code, 0) << man.err;
  EXPECT_NE(man.out.find("pagesim \\- a simulator of the Linux page allocator (kernel presets v5.17 to v6.18)"), std::string::npos);
  for (const char* cmd : {"RUN", "VALIDATE", "LIST", "PLOT", "DEMO", "MERGE", "SLURM", "REPLAY", "CALIBRATE"})
    EXPECT_NE(man.out.find(".SH \"PAGESIM " + std::string(cmd) + "\"\n"), std::string::npos) << cmd;
  EXPECT_EQ(man.out.find("PAGESIM MAN"), std::string::npos) << "a hidden command has a section";
  EXPECT_NE(man.out.find("\\fB\\-\\-set\\fR \\fITEXT\\fR ...\noverride a scenario value"), std::string::npos);
  for (const char* both : {"PREFIX/share/pagesim/scenarios/NAME.yaml", "bad input: a scenario, machine file"}) {
    EXPECT_NE(help.out.find(both), std::string::npos) << both;
    std::string roff = both;
    for (size_t at = 0; (at = roff.find('-', at)) != std::string::npos; at += 2) roff.insert(at, "\\");
    EXPECT_NE(man.out.find(roff), std::string::npos) << roff;
  }
  EXPECT_NE(man.out.find(".SH \"EXIT STATUS\"\n.TP\n\\fB0\\fR\n"), std::string::npos);
}

// The bash completion's candidates (tools/cli/complete.h), one per line.
TEST(Cli, CompletesCommandsOptionsScenariosPresetsAndKnobs) {
  const fs::path dir = fresh_dir();
  const std::pair<std::string, std::string> cases[] = {
      {"r", "replay\nrun\n"},
      {"''", "calibrate\ncompare\ndemo\nlist\nmerge\nplot\nreplay\nrun\nslurm\nvalidate\n"},  // not the hidden ones
      {"run --qu", "--quiet\n"},
      {"run anon-w-rand-hugetlb-v", "@files\nanon-w-rand-hugetlb-vcpus\n"},
      {"run x --set kernel.pres", "kernel.preset=\nkernel.presets=\n"},
      {"run x --set kernel.preset=v6", "kernel.preset=v6.18\n"},
      {"validate x --set kernel.knobs.buddy_check=", "kernel.knobs.buddy_check=after_unlock\nkernel.knobs.buddy_check=under_lock\n"},
      {"run x --set workload.name=usem", "workload.name=usemem\n"},
      {"replay t --profile v5.18", "v5.18\n"},
      {"run x --json ''", "@files\n"},
      {"run x --jobs ''", ""},
  };
  for (const auto& [words, want] : cases) {
    const Result r = pagesim("complete -- " + words, dir);
    EXPECT_EQ(r.code, 0) << words << ": " << r.err;
    EXPECT_EQ(r.out, want) << words;
  }
}

TEST(Cli, MissingScenarioFileExitsTwo) {
  const Result r = pagesim("validate /nonexistent/s.yaml", fresh_dir());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/nonexistent/s.yaml"), std::string::npos);
}

// Shipped scenarios and machine files by name (config::shipped_dir); a path wins over a name, and
// a name found nowhere is bad input that says where it was looked for.
TEST(Cli, ShippedScenariosAndMachinesByName) {
  const fs::path dir = fresh_dir();
  for (const char* name : {"default", "default.yaml"}) {
    const Result r = pagesim(std::string("validate ") + name, dir, true);
    EXPECT_EQ(r.code, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find("scenarios/default.yaml: ok:"), std::string::npos) << r.out;
  }
  fs::create_directory(dir / "default.yaml");  // an output directory is not a scenario: the name still finds the shipped one
  const Result beside_dir = pagesim("validate default.yaml", dir, true);
  EXPECT_EQ(beside_dir.code, 0) << beside_dir.err;
  EXPECT_NE(beside_dir.out.find("scenarios/default.yaml: ok:"), std::string::npos) << beside_dir.out;
  fs::copy_file(fs::path(PAGESIM_SOURCE_DIR) / "tests/tools/golden/small.yaml", dir / "default");
  const Result mine = pagesim("validate default", dir, true);
  EXPECT_EQ(mine.code, 0) << mine.err;
  EXPECT_EQ(first_line(mine.out).rfind("default: ok:", 0), 0u) << mine.out;

  const Result unknown = pagesim("validate no-such-scenario", dir, true);
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.err.find("scenario 'no-such-scenario' not found; looked for: no-such-scenario, "), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("scenarios/no-such-scenario.yaml"), std::string::npos) << unknown.err;

  EXPECT_EQ(pagesim("validate virtual-thp-128 --set engine.machine_file=icx-8358-2s", dir, true).code, 0);
  const Result machine = pagesim("validate virtual-thp-128 --set engine.machine_file=no-such-box", dir, true);
  EXPECT_EQ(machine.code, 2);
  EXPECT_NE(machine.err.find("<--set>:1:21: engine.machine_file: 'no-such-box' not found; looked for: no-such-box, "),
            std::string::npos)
      << machine.err;
  EXPECT_NE(machine.err.find("machines/no-such-box.yaml"), std::string::npos) << machine.err;
}

// validate refuses what run would refuse, and names the engine keys the engine ignores.
TEST(Cli, ValidateChecksWhatRunChecks) {
  const fs::path dir = fresh_dir();
  const std::string src = PAGESIM_SOURCE_DIR;
  const std::pair<std::string, std::string> refused[] = {
      {src + "/scenarios/virtual-thp-128.yaml --set engine.machine_file=/nonexistent/m.yaml", "/nonexistent/m.yaml"},
      {src + "/scenarios/default.yaml --set machine.memory_per_node=10000G --set kernel.knobs.deferred_struct_page_init=false",
       "the memmap needs"},  // built whole at boot; with deferred init it grows with the sections used
      {src + "/scenarios/native-thp.yaml --set machine.cpus_per_node=512", "engine.oversubscribe"},
      {src + "/scenarios/virtual-thp-128.yaml --set machine.nodes=4", "has 2 sockets"},
  };
  for (const auto& [args, why] : refused) {
    const Result r = pagesim("validate " + args, dir);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_NE(r.err.find(why), std::string::npos) << args << ": " << r.err;
  }
  const Result r = pagesim("validate " + src + "/scenarios/native-thp.yaml --set engine.sched=cfs", dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("engine.sched is set, but the native engine ignores it"), std::string::npos) << r.err;
}

TEST(Cli, OutputIntoMissingDirectoryFailsBeforeRunning) {
  const fs::path dir = fresh_dir();
  const fs::path golden = fs::path(PAGESIM_SOURCE_DIR) / "tests/tools/golden/small.yaml";
  const Result r = pagesim("run --quiet " + quote(golden.string()) + " --json " + quote((dir / "no/such/out.json").string()), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
}

TEST(Cli, OutputThatIsAnInputIsRefusedAndTheInputKept) {
  const fs::path dir = fresh_dir();
  const fs::path scenario = dir / "s.yaml";
  fs::copy_file(fs::path(PAGESIM_SOURCE_DIR) / "tests/tools/golden/small.yaml", scenario);
  const std::string before = slurp(scenario);
  const Result r = pagesim("run --quiet " + quote(scenario.string()) + " --csv " + quote(scenario.string()), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("it is an input of this run"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(scenario), before);
}

TEST(Cli, JsonToStandardOutput) {
  const fs::path golden = fs::path(PAGESIM_SOURCE_DIR) / "tests/tools/golden/small.yaml";
  const Result r = pagesim("run --quiet " + quote(golden.string()) + " --set repeats=1 --json -", fresh_dir());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"schema\": \"pagesim/1\""), std::string::npos);
}

TEST(Cli, PlotReadsStandardInput) {
  if (std::system("gnuplot --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  const fs::path dir = fresh_dir();
  const fs::path golden = fs::path(PAGESIM_SOURCE_DIR) / "tests/tools/golden/small.yaml";
  ASSERT_EQ(pagesim("run --quiet " + quote(golden.string()) + " --set repeats=1 --json " + quote((dir / "r.json").string()), dir).code, 0);
  const std::string cmd = quote(PAGESIM_BIN) + " plot - --out " + quote((dir / "plots").string()) + " <" +
                          quote((dir / "r.json").string()) + " >/dev/null 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  EXPECT_TRUE(fs::exists(dir / "plots" / "metric-pcp_refills.png"));
}

// The README's first command: its report fits one screen, the comparison included.
TEST(Cli, DefaultScenarioHeadlineFitsOneScreen) {
  const fs::path dir = fresh_dir();
  const Result r = pagesim("run " + quote(std::string(PAGESIM_SOURCE_DIR) + "/scenarios/default.yaml") +
                               " --set repeats=1 --set workload.params.ops=20000 --proc " + quote((dir / "proc").string()),
                           dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_LE(std::count(r.out.begin(), r.out.end(), '\n'), 50) << r.out;
  // random_mixed's headline, ops_per_s, is the table's first row, whatever its width.
  const size_t rows = r.out.find("\\  \n");
  ASSERT_NE(rows, std::string::npos) << r.out;
  const std::string first = r.out.substr(rows + 4, r.out.find('\n', rows + 4) - rows - 4);
  EXPECT_NE(first.find("  pagesim.ops_per_s  (host clock)"), std::string::npos) << r.out;
  EXPECT_NE(slurp(dir / "proc/v5.17/0/dmesg").find("BUG: Bad page state"), std::string::npos);
}

TEST(Cli, RunWritesEveryOutputAndNoProgressWithoutATty) {
  const fs::path dir = fresh_dir();
  const fs::path golden = fs::path(PAGESIM_SOURCE_DIR) / "tests/tools/golden/small.yaml";
  const Result r = pagesim("run " + quote(golden.string()) + " --set repeats=1 --out " + quote((dir / "res").string()), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // stderr is a file here: no progress line
  EXPECT_NE(r.out.find("v5.17+mel mel_walk=outside_lock"), std::string::npos);
  EXPECT_NE(slurp(dir / "res/result.json").find("\"schema\": \"pagesim/1\""), std::string::npos);
  EXPECT_TRUE(fs::exists(dir / "res/result.csv"));
  EXPECT_TRUE(fs::is_directory(dir / "res/proc"));
}

// Starts `pagesim run ARGS` (stdout and stderr into files under `dir`), waits until it has
// installed its handler for `sig` (/proc/PID/status, SigCgt: it installs it just before the
// runs start), sends `sig` and returns the exit code.
int interrupted_run(const std::vector<std::string>& args, int sig, const fs::path& dir) {
  std::vector<std::string> argv_s = {PAGESIM_BIN, "run"};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, (dir / "stdout.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, (dir / "stderr.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, PAGESIM_BIN, &fa, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&fa);
  const uint64_t bit = uint64_t{1} << (sig - 1);
  int st = 0;
  for (int tries = 0; tries < 60000; ++tries) {  // a guard against a hang, not a timing check
    if (waitpid(pid, &st, WNOHANG) == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : -1;  // ended by itself
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    bool caught = false;
    while (std::getline(status, line))
      if (line.rfind("SigCgt:", 0) == 0) caught = std::stoull(line.substr(7), nullptr, 16) & bit;
    if (caught) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  kill(pid, sig);
  waitpid(pid, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

// SIGINT and SIGTERM stop the set (a run of 10^12 operations cannot finish otherwise): exit
// 128 + sig with the files written. The signal lands inside the first run or just before it
// starts; in the first case the run is kept as a partial one in the report, JSON and CSV.
// (tests/run/interrupt_test.cc raises the request inside a run deterministically.)
void expect_partial_run(const std::string& engine, int sig) {
  const fs::path dir = fresh_dir(engine + std::to_string(sig));
  const fs::path golden = fs::path(PAGESIM_SOURCE_DIR) / "tests/tools/golden/small.yaml";
  const int code = interrupted_run({golden.string(), "--set", "repeats=1", "--set", "engine.name=" + engine, "--set",
                                    "workload.params.ops=1000000000000", "--set", "workload.params.check_every=0", "--set",
                                    "engine.oversubscribe=" + std::string(engine == "native" ? "true" : "false"), "-j", "1",
                                    "--json", (dir / "r.json").string(), "--csv", (dir / "r.csv").string()},
                                   sig, dir);
  EXPECT_EQ(code, 128 + sig) << slurp(dir / "stderr.txt");
  const std::string json = slurp(dir / "r.json");
  EXPECT_NE(json.find("\"interrupted\": true"), std::string::npos) << json.substr(0, 400);
  const std::string err = slurp(dir / "stderr.txt");
  const bool in_flight = err.find("0 of 2 runs complete, 1 partial") != std::string::npos;
  EXPECT_TRUE(in_flight || err.find("0 of 2 runs complete, 0 partial") != std::string::npos) << err;
  EXPECT_EQ(slurp(dir / "r.csv").find(",,,1\n") != std::string::npos, in_flight);  // the partial run's row
  EXPECT_EQ(slurp(dir / "stdout.txt").find("interrupted: 1 partial run") != std::string::npos, in_flight);
}

TEST(Cli, SigintStopsTheUniprocessorRunInFlight) { expect_partial_run("uniprocessor", SIGINT); }
TEST(Cli, SigtermStopsTheVirtualRunInFlight) {
  expect_partial_run("virtual", SIGTERM);
}
TEST(Cli, SigintStopsTheNativeRunInFlight) { expect_partial_run("native", SIGINT); }

// A result document without what differs from run to run or by where it was written: the
// runs' host wall time and the scenario's outputs.
nlohmann::json comparable(const fs::path& json) {
  nlohmann::json doc = nlohmann::json::parse(slurp(json));
  doc["scenario"].erase("outputs");
  for (auto& r : doc["runs"]) r.erase("wall_s");
  return doc;
}

// A small sweep on the virtual engine (deterministic): 3 points x 2 variants x 2 repeats.
std::string sweep_args() {
  return quote(std::string(PAGESIM_SOURCE_DIR) + "/tests/tools/golden/small.yaml") +
         " --set engine.name=virtual --set 'machine.nodes[0].cpus=[1,2,3]' -q";
}

// Shards merged are the serial run: the same JSON (wall time aside), CSV and procfs tree, for
// a shard count that does not divide the 12 runs.
TEST(Cli, ShardsMergeIntoTheSerialRun) {
  const fs::path dir = fresh_dir();
  ASSERT_EQ(pagesim("run " + sweep_args() + " --out " + quote((dir / "serial").string()), dir).code, 0);
  std::string shards;
  for (int k = 0; k < 5; ++k) {
    const fs::path out = dir / ("shard-" + std::to_string(k));
    ASSERT_EQ(pagesim("run " + sweep_args() + " --shard " + std::to_string(k) + "/5 --out " + quote(out.string()), dir).code, 0);
    EXPECT_NE(slurp(out / "result.json").find("\"shard\""), std::string::npos);
    shards += " " + quote(out.string());
  }
  const Result m = pagesim("merge" + shards + " -q --out " + quote((dir / "merged").string()), dir);
  ASSERT_EQ(m.code, 0) << m.err;
  EXPECT_EQ(comparable(dir / "merged/result.json"), comparable(dir / "serial/result.json"));
  EXPECT_EQ(slurp(dir / "merged/result.csv"), slurp(dir / "serial/result.csv"));
  for (const char* f : {"v5.17/1/zoneinfo", "v5.17+mel_mel_walk=outside_lock/0/buddyinfo"})
    for (const char* point : {"machine.nodes_0_.cpus=1/", "machine.nodes_0_.cpus=3/"})
      EXPECT_EQ(slurp(dir / "merged/proc" / (std::string(point) + f)), slurp(dir / "serial/proc" / (std::string(point) + f))) << point << f;
}

// `pagesim compare` on the saved result redraws the table `pagesim run` printed (its report
// ends with it), with the same options; a second file's variants of the same names get its name.
TEST(Cli, CompareRedrawsTheTableRunPrinted) {
  const fs::path dir = fresh_dir();
  const std::string args = sweep_args().substr(0, sweep_args().size() - 3);  // without -q
  const std::string json = quote((dir / "r.json").string());
  for (const std::string opts : {"", " --all", " --rows 'pcp|lock'"}) {
    const Result run = pagesim("run " + args + opts + " --json " + json, dir);
    ASSERT_EQ(run.code, 0) << run.err;
    const Result cmp = pagesim("compare " + json + opts, dir);
    ASSERT_EQ(cmp.code, 0) << cmp.err;
    ASSERT_EQ(cmp.out.rfind("=====", 0), 0u) << cmp.out;
    EXPECT_TRUE(run.out.ends_with(cmp.out)) << opts << "\nrun:\n" << run.out << "\ncompare:\n" << cmp.out;
  }
  ASSERT_EQ(pagesim("run " + args + " -q --set kernel.knobs.debug_vm=false --out " + quote((dir / "b").string()), dir).code, 0);
  const Result two = pagesim("compare " + json + " " + quote((dir / "b").string()) + " --all", dir);
  ASSERT_EQ(two.code, 0) << two.err;
  EXPECT_NE(two.out.find("kernel: \n  v5.17\n  v5.17+mel mel_walk=outside_lock\n  " + (dir / "b").string() + ":v5.17\n"),
            std::string::npos)
      << two.out;
  const Result bad = pagesim("compare " + json + " " + quote((dir / "none.json").string()), dir);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("none.json"), std::string::npos) << bad.err;
}

// --json -: standard output is the JSON document alone, the report on standard error.
TEST(Cli, JsonDashLeavesStandardOutputToTheJson) {
  const fs::path golden = fs::path(PAGESIM_SOURCE_DIR) / "tests/tools/golden/small.yaml";
  const Result r = pagesim("run " + quote(golden.string()) + " --set repeats=1 --json -", fresh_dir());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["schema"], "pagesim/1");
  EXPECT_NE(r.err.find("engine/repeats:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("scenario: "), std::string::npos) << r.err;
}

// A bad --rows stops before any run: exit 2, the option named, nothing written.
TEST(Cli, BadRowsRegexExitsTwoBeforeRunning) {
  const fs::path dir = fresh_dir();
  const fs::path golden = fs::path(PAGESIM_SOURCE_DIR) / "tests/tools/golden/small.yaml";
  const Result r = pagesim("run " + quote(golden.string()) + " --rows 'pcp(' --json " + quote((dir / "r.json").string()), dir);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--rows pcp(: not a regular expression"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "r.json"));
}

// A virtual scenario on a machine file of its own, beside it: the resolved scenario names the
// file found, its SHA-1 (as sha1sum prints it) and the topology; the report says the same.
TEST(Cli, MachineFileBesideTheScenarioIsRecordedWithItsHash) {
  const fs::path dir = fresh_dir();
  fs::copy_file(fs::path(PAGESIM_SOURCE_DIR) / "machines/icx-8358-2s.yaml", dir / "box.yaml");
  const std::string file = write_file(dir / "s.yaml",
                                      "machine: {nodes: 2, cpus_per_node: 16, memory_per_node: 256M}\n"
                                      "workload: {name: thp_alloc, params: {iterations: 2}}\n"
                                      "engine: {name: virtual, machine_file: box.yaml}\nrepeats: 1\n");
  const Result r = pagesim("validate --resolved " + quote(file), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json e = nlohmann::json::parse(r.out)["engine"];
  EXPECT_EQ(e["machine_file_used"], (dir / "box.yaml").string());
  const std::string sha = slurp_command("sha1sum " + quote((dir / "box.yaml").string())).substr(0, 40);
  EXPECT_EQ(e["machine_file_sha1"], sha);
  EXPECT_EQ(e["topology"], "2 nodes of up to 16 CPUs on icx-8358-2s (2 sockets x 32 cores x 2 threads): node n is socket n, "
                           "its CPUs on cores 0-7, 2 SMT threads per core (a node's CPUs 2k to 2k+1 share core k)");
  const Result run = pagesim("run " + quote(file) + " --json " + quote((dir / "r.json").string()), dir);
  ASSERT_EQ(run.code, 0) << run.err;
  EXPECT_NE(run.out.find("machine file: " + (dir / "box.yaml").string() + " (sha1 " + sha + ")\ntopology: 2 nodes of up to 16"),
            std::string::npos)
      << run.out;
  EXPECT_EQ(nlohmann::json::parse(slurp(dir / "r.json"))["scenario"]["engine"]["machine_file_sha1"], sha);

  // Nowhere: the key's line and column, and every place looked.
  const std::string missing = write_file(dir / "m.yaml",
                                         "machine: {nodes: 1, cpus_per_node: 2, memory_per_node: 256M}\n"
                                         "workload: {name: thp_alloc}\n"
                                         "engine:\n  name: virtual\n  machine_file: nobox.yaml\n");
  const Result bad = pagesim("validate " + quote(missing), dir);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find(missing + ":5:17: engine.machine_file: 'nobox.yaml' not found; looked for: nobox.yaml, " +
                         (dir / "nobox.yaml").string() + ", "),
            std::string::npos)
      << bad.err;
  EXPECT_NE(bad.err.find("machines/nobox.yaml"), std::string::npos) << bad.err;
}

// More CPUs per node than a socket of the machine file has threads: a named warning, an error
// under --strict (exit 2, nothing run).
TEST(Cli, TopologyBeyondTheMachineFileWarnsAndStrictRefuses) {
  const fs::path dir = fresh_dir();
  const std::string file = write_file(dir / "big.yaml",
                                      "machine: {nodes: 2, cpus_per_node: 80, memory_per_node: 256M}\n"
                                      "workload: {name: thp_alloc, params: {iterations: 1}}\nengine: virtual\n");
  const Result w = pagesim("validate " + quote(file), dir);
  EXPECT_EQ(w.code, 0) << w.err;
  EXPECT_NE(w.err.find("pagesim: warning [topology-oversubscribed]: " + file +
                       ": nodes 0, 1 have more CPUs (80) than a socket of icx-8358-2s has threads (32 cores x 2): the model "
                       "adds cores 32-39 that the machine does not have"),
            std::string::npos)
      << w.err;
  const Result strict = pagesim("run " + quote(file) + " --strict --json " + quote((dir / "r.json").string()), dir);
  EXPECT_EQ(strict.code, 2);
  EXPECT_NE(strict.err.find("pagesim: error [topology-oversubscribed]"), std::string::npos) << strict.err;
  EXPECT_NE(strict.err.find("--strict: 1 warning above"), std::string::npos) << strict.err;
  EXPECT_FALSE(fs::exists(dir / "r.json"));
  EXPECT_EQ(pagesim("validate --strict " + quote(file) + " --set machine.cpus_per_node=64", dir).code, 0);
}

// A knob that the variant's kernel profile never reads: a named warning; none where it is read.
// A knob the profile fixes is refused (bad_cases.h, KnobTheProfileFixes), not warned about.
TEST(Cli, KnobTheProfileIgnoresWarns) {
  const fs::path dir = fresh_dir();
  const std::string file = write_file(dir / "k.yaml",
                                      "machine: {nodes: 1, cpus_per_node: 2, memory_per_node: 256M}\n"
                                      "kernel:\n  presets: [v5.17, v6.18]\n  knobs: {pcp_batch_scale_max: 3}\n"
                                      "workload: {name: random_mixed, params: {ops: 100}}\n");
  const Result r = pagesim("validate " + quote(file), dir);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("pagesim: warning [ignored-knob]: " + file +
                       ": variant 'v5.17' sets pcp_batch_scale_max=3, but its kernel profile v5.17 never reads it\n"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("variant 'v6.18'"), std::string::npos) << r.err;
  EXPECT_EQ(pagesim("validate --strict " + quote(file), dir).code, 2);
  const Result v6 = pagesim("validate " + quote(file) + " --set 'kernel.knobs={refill_check_after_unlock: false}'", dir);
  EXPECT_EQ(v6.err.find("variant 'v5.17' sets refill"), std::string::npos) << v6.err;
  EXPECT_NE(v6.err.find("variant 'v6.18' sets refill_check_after_unlock=false, but its kernel profile v6.18 never reads it"),
            std::string::npos)
      << v6.err;
  const Result fixed = pagesim("validate " + quote(file) + " --set 'kernel.knobs={free_pcppages_bulk: v5.17}'", dir);
  EXPECT_EQ(fixed.code, 2) << fixed.err;
  EXPECT_NE(fixed.err.find("kernel.knobs.free_pcppages_bulk: got 'v5.17' for variant 'v6.18', but its kernel profile v6.18 "
                           "fixes free_pcppages_bulk to v5.18"),
            std::string::npos)
      << fixed.err;
}

TEST(Cli, MergeRefusesShardsOfDifferentRuns) {
  const fs::path dir = fresh_dir();
  const auto shard = [&](const std::string& name, const std::string& k, const std::string& extra) {
    const fs::path out = dir / name;
    EXPECT_EQ(pagesim("run " + sweep_args() + " --shard " + k + " --out " + quote(out.string()) + extra, dir).code, 0);
    return " " + quote(out.string());
  };
  const std::string a0 = shard("a0", "0/2", ""), a1 = shard("a1", "1/2", ""), seed = shard("seed", "1/2", " --set seed=7"),
                    b1 = shard("b1", "1/3", "");
  const auto refused = [&](const std::string& shards, const std::string& why) {
    const Result r = pagesim("merge" + shards + " --out " + quote((dir / "m").string()), dir);
    EXPECT_EQ(r.code, 2) << shards;
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  };
  refused(a0 + seed, "shards of different scenarios (scenario.seed: 42 and 7)");
  refused(a0 + b1, "is a shard of 2 and");
  refused(a0, "shard 1/2 is missing");
  refused(a0 + a0 + a1, "are both shard 0/2");
  refused(" " + quote((dir / "a0/result.csv").string()), "result.csv: not a pagesim/1 shard: [json.exception.parse_error.101] parse error at line 1, column 1");
  ASSERT_EQ(pagesim("run " + sweep_args() + " --out " + quote((dir / "whole").string()), dir).code, 0);
  refused(" " + quote((dir / "whole").string()), "not a shard");
  EXPECT_FALSE(fs::exists(dir / "m/result.json"));
  for (const char* bad : {"2/2", "1", "a/2", "1/0", "-1/2", "1/2/3"}) {
    const Result r = pagesim("run " + sweep_args() + " --shard " + bad, dir);
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.err.find("--shard"), std::string::npos) << r.err;
  }
}

// GNU parallel (Debian's `parallel`) runs the shards; pagesim merge joins them.
TEST(Cli, GnuParallelRunsTheShards) {
  if (std::system("parallel --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "GNU parallel is not installed (apt install parallel)";
  const fs::path dir = fresh_dir();
  ASSERT_EQ(pagesim("run " + sweep_args() + " --out " + quote((dir / "serial").string()), dir).code, 0);
  const std::string cmd = "parallel --will-cite -j 2 " + quote(PAGESIM_BIN) + " run " + sweep_args() + " --shard {}/3 --out " +
                          quote((dir / "shard-").string()) + "{} ::: 0 1 2 >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  ASSERT_EQ(pagesim("merge " + quote((dir / "shard-0").string()) + " " + quote((dir / "shard-1").string()) + " " +
                        quote((dir / "shard-2").string()) + " -q --out " + quote((dir / "merged").string()),
                    dir)
                .code,
            0);
  EXPECT_EQ(comparable(dir / "merged/result.json"), comparable(dir / "serial/result.json"));
}

// The sbatch script: an array of N shards, and a merge job that waits for all of them.
TEST(Cli, SlurmWritesAnArrayJobAndADependentMerge) {
  const fs::path dir = fresh_dir();
  const Result r = pagesim("slurm " + sweep_args().substr(0, sweep_args().size() - 3) + " --shards 4 --out " + quote((dir / "o").string()), dir);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* want : {"#SBATCH --array=0-3\n", "--dependency=afterok:${SLURM_ARRAY_JOB_ID}", "--shard ${SLURM_ARRAY_TASK_ID}/4",
                           " merge ", "/shard-*", "--set 'machine.nodes[0].cpus=[1,2,3]'"})
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  EXPECT_EQ(pagesim("slurm " + sweep_args() + " --shards 0", dir).code, 2);
}

// The script on a real Slurm (slurmctld + slurmd, Debian's slurm-wlm): the array's shards and
// the dependent merge give the serial run's result.
TEST(Cli, SlurmJobArrayGivesTheSerialResult) {
  if (std::system("sinfo -h >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no Slurm controller answers (apt install slurm-wlm, then start munged, slurmctld and slurmd)";
  const fs::path dir = fresh_dir();
  ASSERT_EQ(pagesim("run " + sweep_args() + " --out " + quote((dir / "serial").string()), dir).code, 0);
  const std::string args = sweep_args().substr(0, sweep_args().size() - 3);
  ASSERT_EQ(pagesim("slurm " + args + " --shards 3 --out " + quote((dir / "o").string()) + " --script " + quote((dir / "job.sbatch").string()), dir).code, 0);
  ASSERT_EQ(std::system(("sbatch --wait " + quote((dir / "job.sbatch").string()) + " >/dev/null").c_str()), 0);
  const fs::path merged = dir / "o/merged/result.json";
  for (int tries = 0; tries < 600 && !fs::exists(merged); ++tries)  // the merge job: a guard, not a timing check
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(fs::exists(merged)) << "the merge job did not write " << merged;
  EXPECT_EQ(comparable(merged), comparable(dir / "serial/result.json"));
}

// tools/usemem-placement.py reads the per-task placement of a virtual run (the fork-relative
// migration windows and the store-loop fit) for every variant. VirtualCli: fibers stay out of
// the sanitizer jobs.
TEST(VirtualCli, UsememPlacementToolReadsTheRunsTasks) {
  const fs::path dir = fresh_dir();
  const fs::path scenario = fs::path(PAGESIM_SOURCE_DIR) / "scenarios/usemem-small.yaml";
  const fs::path json = dir / "r.json";
  const Result r = pagesim("run " + quote(scenario.string()) +
                               " --set engine.name=virtual --set engine.sched=numa --set machine.cpus_per_node=4"
                               " --set repeats=1 --set workload.params.iterations=2 -q --json " + quote(json.string()),
                           dir);
  ASSERT_EQ(r.code, 0) << r.err;
  const fs::path out = dir / "tool.txt";
  const std::string tool = (fs::path(PAGESIM_SOURCE_DIR) / "tools/usemem-placement.py").string();
  ASSERT_EQ(std::system(("python3 " + quote(tool) + " " + quote(json.string()) + " >" + quote(out.string())).c_str()), 0);
  const std::string text = slurp(out);
  for (const char* want : {"v5.17\n", "v5.17+mel\n", "migrations since fork: <10ms: ", "store loop: ns/store = "})
    EXPECT_NE(text.find(want), std::string::npos) << want << " in\n" << text;
  // A file that is not JSON is refused with exit code 2.
  std::ofstream(dir / "bad.json") << "{";
  const int status = std::system(("python3 " + quote(tool) + " " + quote((dir / "bad.json").string()) + " 2>/dev/null").c_str());
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 2);
  // tools/usemem-start.py reads the iterations' start records: every task at every step.
  const std::string start = (fs::path(PAGESIM_SOURCE_DIR) / "tools/usemem-start.py").string();
  ASSERT_EQ(std::system(("python3 " + quote(start) + " " + quote(json.string()) + " --iteration 1 >" + quote(out.string())).c_str()), 0);
  const std::string steps = slurp(out);
  for (const char* want : {"== v5.17 (repeat 0, iteration 1): ", "  fork ", "  wake ", "  mmap end ", "  first fault ", "  reserved ",
                           "HugePages_Surp after the last mmap: ", "per task: mmap ", "tasks per node: 0ms "})
    EXPECT_NE(steps.find(want), std::string::npos) << want << " in\n" << steps;
}

TEST(Cli, ListNamesEverySection) {
  const Result r = pagesim("list", fresh_dir());
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* s : {"random_mixed", "fault_field", "v5.17+eric", "buddy_check", "uniprocessor", "pcp_refill", "\n  default ",
                        "Metrics", "ops_per_s"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s;
}

// Each engine's options, under the engine, as workloads' parameters are listed.
TEST(Cli, ListDescribesEachEnginesOptions) {
  const Result r = pagesim("list", fresh_dir());
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t engines = r.out.find("\nEngines (engine.name, engine options):\n");
  ASSERT_NE(engines, std::string::npos) << r.out;
  const size_t native = r.out.find("\n  native ", engines), virt = r.out.find("\n  virtual ", engines);
  ASSERT_LT(native, virt);
  EXPECT_EQ(r.out.find("\n      lock  choice of qspinlock|ticket|mutex, default \"qspinlock\": ", engines), r.out.find("\n      ", native));
  EXPECT_NE(r.out.find("\n      balance_window  duration in [0s, 10s], default \"0s\": ", virt), std::string::npos) << r.out.substr(virt);
  EXPECT_NE(r.out.find("\n      sched  choice of pinned|cfs|numa|trace, default \"pinned\": ", virt), std::string::npos);
}

namespace replay_cli {

constexpr const char* kZoneinfo =
    "Node 0, zone   Normal\n  pages free     4000\n        min      16\n        low      20\n        high     24\n"
    "        spanned  4096\n        present  4096\n        managed  4096\n  pagesets\n    cpu: 0\n"
    "              count:    0\n              high:     8\n              batch:    2\n"
    "              high_min: 8\n              high_max: 16\n  start_pfn:           262144\n";

std::string trace_line(double ts, const std::string& event) {
  return "            test-1     [000] .....   " + std::to_string(ts).substr(0, 10) + ": " + event + "\n";
}

// Two refilled blocks, both allocated, one freed.
std::string small_trace() {
  return "# tracer: nop\n" +
         trace_line(100.000001, "mm_page_alloc_zone_locked: page=0000000000040100 pfn=0x40100 order=0 migratetype=1 percpu_refill=1") +
         trace_line(100.000002, "mm_page_alloc_zone_locked: page=0000000000040101 pfn=0x40101 order=0 migratetype=1 percpu_refill=1") +
         trace_line(100.000003, "mm_page_alloc: page=0000000000040100 pfn=0x40100 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE") +
         trace_line(100.000004, "mm_page_alloc: page=0000000000040101 pfn=0x40101 order=0 migratetype=1 gfp_flags=GFP_HIGHUSER_MOVABLE") +
         trace_line(100.000005, "mm_page_free: page=0000000000040100 pfn=0x40100 order=0");
}

}  // namespace replay_cli

// A malformed line: its position, exit 2, and none of the outputs asked for.
TEST(Cli, ReplayBadTraceExitsTwoWithPositionAndWritesNothing) {
  const fs::path dir = fresh_dir();
  std::string text = replay_cli::small_trace();
  text.replace(text.find("order=0 migratetype=1 gfp"), 7, "order=x");
  write_file(dir / "bad.trace", text);
  write_file(dir / "zi.txt", replay_cli::kZoneinfo);
  const Result r = pagesim("replay " + quote((dir / "bad.trace").string()) + " --zoneinfo " + quote((dir / "zi.txt").string()) +
                               " --json " + quote((dir / "r.json").string()) + " --emit-trace " + quote((dir / "m.trace").string()),
                           dir);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("bad.trace:4:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("order=x"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "r.json"));
  EXPECT_FALSE(fs::exists(dir / "m.trace"));
  EXPECT_EQ(pagesim("replay " + quote((dir / "bad.trace").string()) + " --anchor sideways", dir).code, 2);
  EXPECT_EQ(pagesim("replay " + quote((dir / "nope.trace").string()), dir).code, 2);
}

// The trace and the machine disagree, or there is nothing to replay: the first line that shows
// it where there is one, exit 2, and none of the outputs asked for.
TEST(Cli, ReplayRefusesTracesThatDoNotFitAndWritesNothing) {
  const fs::path dir = fresh_dir();
  write_file(dir / "zi.txt", replay_cli::kZoneinfo);
  const std::string good = replay_cli::small_trace();
  auto edit = [&](std::string from, std::string to) {
    std::string t = good;
    t.replace(t.rfind(from), from.size(), to);  // the last line: line 6
    return t;
  };
  struct Case {
    std::string name, text, message;
  };
  const std::vector<Case> cases = {
      {"cpu.trace", edit("[000]", "[001]"), "cpu.trace:6: CPU 1, but "},
      {"frees.trace", "# tracer: nop\n" + replay_cli::trace_line(1.0, "mm_page_free: page=0000000000040100 pfn=0x40100 order=0"),
       "frees.trace: no successful mm_page_alloc"},
      {"elsewhere.trace", edit("pfn=0x40100", "pfn=0x90100"), "elsewhere.trace:6: pfn=0x90100 lies in no zone of "},
      // The xz stream header alone (CRC64 check): a file cut after its first 12 bytes.
      {"cut.trace.xz", std::string("\xFD" "7zXZ\0\0\x04\xE6\xD6\xB4\x46", 12), "cut.trace.xz: corrupt .xz file: compressed data is truncated"},
  };
  for (const Case& c : cases) {
    write_file(dir / c.name, c.text);
    const Result r = pagesim("replay " + quote((dir / c.name).string()) + " --zoneinfo " + quote((dir / "zi.txt").string()) +
                                 " --json " + quote((dir / "r.json").string()) + " --emit-trace " + quote((dir / "m.trace").string()) +
                                 " --plot " + quote((dir / "plots").string()),
                             dir);
    EXPECT_EQ(r.code, 2) << c.name << ": " << r.err;
    EXPECT_NE(r.err.find((dir / c.message).string()), std::string::npos) << c.name << ": " << r.err;
    EXPECT_FALSE(fs::exists(dir / "r.json")) << c.name;
    EXPECT_FALSE(fs::exists(dir / "m.trace")) << c.name;
    EXPECT_FALSE(fs::exists(dir / "plots")) << c.name;
  }
}

// The table, the JSON and the model's own trace, which replays in turn.
TEST(Cli, ReplayWritesTableJsonAndTheModelsTrace) {
  const fs::path dir = fresh_dir();
  write_file(dir / "t.trace", replay_cli::small_trace());
  write_file(dir / "zi.txt", replay_cli::kZoneinfo);
  const std::string zi = " --zoneinfo " + quote((dir / "zi.txt").string());
  const Result r = pagesim("replay " + quote((dir / "t.trace").string()) + zi + " --json " + quote((dir / "r.json").string()) +
                               " --emit-trace " + quote((dir / "m.trace").string()),
                           dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("refill      0         2           2   1.000  pass           2   1.000  pass"), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(slurp(dir / "r.json"));
  EXPECT_EQ(j["schema"], "pagesim-replay/1");
  ASSERT_EQ(j["profiles"].size(), 2u);
  EXPECT_EQ(j["profiles"][0]["preset"], "v6.18");
  EXPECT_EQ(j["profiles"][1]["preset"], "v5.17");
  EXPECT_EQ(j["profiles"][0]["rows"][0]["kind"], "refill");
  EXPECT_EQ(j["profiles"][0]["rows"][0]["kernel"], 2);
  EXPECT_EQ(j["profiles"][0]["pass"], true);
  const Result again = pagesim("replay " + quote((dir / "m.trace").string()) + zi + " --profile v6.18 -q", dir);
  EXPECT_EQ(again.code, 0) << again.err;
}

}  // namespace
}  // namespace pagesim::scenario::testing
