// `pagesim run` and `pagesim validate`.
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <iterator>

#include "commands.h"
#include "pagesim/config/shipped.h"
#include "pagesim/engine/engine.h"
#include "pagesim/error.h"
#include "pagesim/report/procfs.h"
#include "pagesim/report/report.h"
#include "pagesim/run/runner.h"
#include "pagesim/scenario/load.h"
#include "progress.h"

namespace pagesim::cli {

namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "written from a signal handler");

extern "C" void on_stop_signal(int sig) {
  g_signal.store(sig);
  g_interrupted.store(true);
  static const char kMsg[] = "\npagesim: interrupted; stopping at the next safe point (again to abort)\n";
  (void)!::write(STDERR_FILENO, kMsg, sizeof kMsg - 1);
}

// Installs the SIGINT and SIGTERM handler for the lifetime of the object. SA_RESETHAND: a
// second signal gets the default action and ends the process at once.
class StopSignalGuard {
 public:
  StopSignalGuard() {
    struct sigaction sa = {};
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < std::size(kSignals); ++i) ::sigaction(kSignals[i], &sa, &old_[i]);
  }
  ~StopSignalGuard() {
    for (size_t i = 0; i < std::size(kSignals); ++i) ::sigaction(kSignals[i], &old_[i], nullptr);
  }
  StopSignalGuard(const StopSignalGuard&) = delete;
  StopSignalGuard& operator=(const StopSignalGuard&) = delete;

 private:
  static constexpr int kSignals[] = {SIGINT, SIGTERM};
  struct sigaction old_[std::size(kSignals)] = {};
};

// A scenario by path or by shipped name (scenario::find_file).
scenario::ScenarioSet load(const std::string& file, const std::vector<std::string>& sets) {
  scenario::LoadOptions opt;
  opt.overrides = sets;
  opt.engines = run::engine_names();
  return scenario::load_file(scenario::find_file(file), opt);
}

// Fails before any run when an output could not be written afterwards: a file whose directory
// does not exist (--out creates its own directory, so only its parent must exist), or a file
// the run reads (the scenario, a machine file, a placement trace), which the output would
// overwrite.
void check_outputs(const scenario::ScenarioSet& set, const scenario::Outputs& o, const std::string& out_dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> inputs;
  for (const scenario::Scenario& sc : set) {
    inputs.push_back(sc.file);
    if (sc.machine_model) inputs.push_back(sc.machine_model->file);
    if (const std::string& trace = sc.engine_options.string("sched_trace"); !trace.empty())
      inputs.push_back(engine::input_path(sc.file, trace));
  }
  auto check = [&](const std::string& what, const std::string& path) {
    if (path.empty() || path == "-") return;
    for (const std::string& in : inputs) {
      std::error_code ec;
      if (fs::equivalent(path, in, ec))
        throw InputError(fmt::format("{} {}: it is an input of this run ({}); it would be overwritten", what, path, in));
    }
    const fs::path p(path);
    const bool under_out = !out_dir.empty() && p.parent_path() == fs::path(out_dir);
    const fs::path dir = under_out ? fs::path(out_dir).parent_path() : p.parent_path();
    if (!dir.empty() && !fs::is_directory(dir))
      throw InputError(fmt::format("{} {}: directory '{}' does not exist", what, path, dir.string()));
  };
  check("json", o.json);
  check("csv", o.csv);
  check("proc_dir", o.proc_dir);
}

// "K/N" of --shard: 0 <= K < N.
run::Shard parse_shard(const std::string& text) {
  run::Shard s;
  unsigned k = 0, n = 0;
  char slash = 0, extra = 0;
  if (std::sscanf(text.c_str(), "%u%c%u%c", &k, &slash, &n, &extra) != 3 || slash != '/' || n == 0 || k >= n ||
      text.find_first_not_of("0123456789/") != std::string::npos)
    throw InputError(fmt::format("--shard {}: expected K/N with 0 <= K < N, e.g. 0/4", text));
  s.index = k, s.count = n;
  return s;
}

size_t shard_runs(const scenario::ScenarioSet& set, const run::Shard& shard) {
  const size_t total = run::total_runs(set);
  return total / shard.count + (shard.index < total % shard.count ? 1 : 0);
}

// Each warning with its name; under --strict they are errors, and nothing runs.
void print_warnings(const scenario::ScenarioSet& set, bool strict) {
  const std::vector<run::Warning> warnings = run::preflight(set);
  for (const run::Warning& w : warnings) fmt::print(stderr, "pagesim: {} [{}]: {}\n", strict ? "error" : "warning", w.name, w.text);
  if (strict && !warnings.empty())
    throw InputError(fmt::format("--strict: {} warning{} above", warnings.size(), warnings.size() == 1 ? "" : "s"));
}

}  // namespace

int run(const RunArgs& a) {
  const run::Shard shard = a.shard.empty() ? run::Shard{} : parse_shard(a.shard);
  scenario::ScenarioSet set = load(a.scenario, a.sets);
  // --json/--csv/--proc beat --out, which beats the scenario's own outputs.
  scenario::Outputs o{a.json, a.csv, a.proc_dir};
  if (!a.out_dir.empty()) {
    const std::filesystem::path dir(a.out_dir);
    if (o.json.empty()) o.json = (dir / "result.json").string();
    if (o.csv.empty()) o.csv = (dir / "result.csv").string();
    if (o.proc_dir.empty()) o.proc_dir = (dir / "proc").string();
  }
  scenario::override_outputs(set, o);
  const scenario::Outputs& out = set.front().outputs;
  check_outputs(set, out, a.out_dir);
  const report::CompareOptions compare = report::compare_options(set.front().workload, a.all, a.rows);
  // `--json -`: standard output is the JSON's alone; the report goes to standard error.
  if (out.json == "-" && out.csv == "-") throw InputError("--json - and --csv -: only one of them can have standard output");
  FILE* report_to = out.json == "-" || out.csv == "-" ? stderr : stdout;
  print_warnings(set, a.strict);

  std::vector<run::RunResult> runs;
  {
    ProgressLine progress(shard_runs(set, shard), !a.quiet);
    g_interrupted.store(false);
    g_signal.store(0);
    StopSignalGuard guard;
    run::RunOptions ro;
    ro.interrupt = &g_interrupted;
    ro.jobs = a.jobs;
    ro.reuse = !a.no_reuse;
    ro.shard = shard;
    if (const unsigned fit = run::memory_jobs(set); a.jobs > fit)
      fmt::print(stderr, "pagesim: -j {} lowered to {}: host memory holds {} of these runs at once\n", a.jobs, fit, fit);
    ro.progress = [&](const run::Progress& p) { progress.update(p); };
    if (!out.proc_dir.empty())
      ro.capture = [](const mm::Machine& m, run::RunResult& r) { r.proc = report::snapshot(m, r.locks); };
    runs = run::run_all(set, ro);
  }
  // Runs stopped part-way are kept, marked interrupted; the document says the set is not whole.
  const bool interrupted = g_interrupted.load();

  if (!a.quiet) fmt::print(report_to, "{}", report::human(set, runs, a.verbose, compare));
  // Files only now that the runs are over; each is written atomically.
  if (!a.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(a.out_dir, ec);
    if (ec) throw InputError(fmt::format("--out {}: cannot create the directory: {}", a.out_dir, ec.message()));
  }
  if (!out.json.empty()) report::write_file_atomic(out.json, report::to_json(set, runs, interrupted, shard).dump(2) + "\n");
  if (!out.csv.empty()) report::write_file_atomic(out.csv, report::to_csv(runs));
  if (!out.proc_dir.empty()) report::write_proc_dir(out.proc_dir, runs);

  if (interrupted) {
    size_t partial = 0;
    for (const run::RunResult& r : runs) partial += r.interrupted;
    fmt::print(stderr, "pagesim: interrupted: {} of {} runs complete, {} partial\n", runs.size() - partial,
               shard_runs(set, shard), partial);
    return 128 + g_signal.load();  // the shell's status for a process ended by that signal
  }
  size_t failed = 0;
  for (const run::RunResult& r : runs) failed += !r.violations.empty();
  if (failed) {
    fmt::print(stderr, "pagesim: {} of {} runs had invariant violations\n", failed, runs.size());
    return 1;
  }
  return 0;
}

int validate(const ValidateArgs& a) {
  const scenario::ScenarioSet set = load(a.scenario, a.sets);
  if (a.resolved) {
    fmt::print("{}\n", scenario::resolved_json(set).dump(2));
    return 0;
  }
  print_warnings(set, a.strict);
  const scenario::Scenario& sc = set.front();
  fmt::print("{}: ok: {} variant(s) x {} repeat(s)", sc.file, sc.variants.size(), sc.repeats);
  if (set.size() > 1) fmt::print(" x {} sweep points of {}", set.size(), sc.sweep.key);
  fmt::print(", workload {}, engine {}\n", sc.workload, sc.engine);
  return 0;
}

}  // namespace pagesim::cli
