// pagesim: the command-line front end. A thin main over the libraries: it parses the command
// line (CLI11) and maps errors to the exit codes of docs/output.md, "Exit codes": 0 ok, 1 the run failed, 2 bad
// input, 128 + the signal's number when SIGINT or SIGTERM stopped it.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "cli/build_info.h"
#include "cli/commands.h"
#include "cli/complete.h"
#include "cli/manual.h"
#include "pagesim/error.h"
#include "pagesim/version.h"

namespace {

using namespace pagesim;

// "Example: ..." under each command's description, shown by --help.
std::string with_example(std::string_view what, std::string_view example) {
  return fmt::format("{}\nExample: {}", what, example);
}

// --all and --rows: which comparison rows run, merge and compare print (report::CompareOptions).
void add_row_options(CLI::App* app, bool& all, std::string& rows) {
  app->add_flag("--all", all, "print every comparison row: also those unchanged within the noise, and the model's bookkeeping");
  app->add_option("--rows", rows, "print only the comparison rows whose name matches REGEX (ECMAScript), changed or not");
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{cli::app_description()};
  app.footer(cli::help_footer());
  app.set_version_flag("--version", fmt::format("pagesim {} (commit {})", PAGESIM_VERSION, cli::kBuildCommit));
  app.require_subcommand(1);
  constexpr const char* kScenario = "scenario file (YAML), or the name of a shipped one (pagesim list)";

  cli::RunArgs ra;
  auto* run = app.add_subcommand("run", with_example("Run every variant, repeat and sweep point of a scenario and print the report.",
                                                     "pagesim run default --set repeats=1 --json out.json"));
  run->add_option("scenario", ra.scenario, kScenario)->required();
  run->add_option("--set", ra.sets, "override a scenario value: key.path=value (repeatable)")->allow_extra_args(false)->take_all();
  run->add_option("--json", ra.json, "write the JSON result (schema pagesim/1) to FILE; - for standard output alone (the report goes to standard error)");
  run->add_option("--csv", ra.csv, "write one CSV row per run and metric to FILE");
  run->add_option("--out", ra.out_dir, "write result.json, result.csv and proc/ into DIR");
  run->add_option("--proc", ra.proc_dir, "write kernel-format buddyinfo, zoneinfo, vmstat, pagetypeinfo, lock_stat per run under DIR");
  run->add_flag("--quiet,-q", ra.quiet, "print neither the report nor the progress line");
  run->add_flag("--verbose,-v", ra.verbose, "print each variant's metrics, zones, locks, cache counters and Bad page lines, and every comparison row");
  run->add_flag("--strict", ra.strict, "treat every warning (ignored-engine-key, ignored-knob, topology-oversubscribed) as an error: exit 2 before any run");
  add_row_options(run, ra.all, ra.rows);
  run->add_option("--shard", ra.shard, "run only the K-th of N disjoint slices of the runs (K/N, 0 <= K < N); pagesim merge joins them");
  run->add_option("--jobs,-j", ra.jobs, "runs at once on host threads (uniprocessor and virtual engines; results do not change). Default: one per host CPU, as many as host memory holds")
      ->check(CLI::Range(1u, 256u));
  run->add_flag("--no-reuse", ra.no_reuse, "run every variant, even one whose run provably repeats another variant's of the same seed (virtual engine; the results do not change)");

  cli::ValidateArgs va;
  auto* validate = app.add_subcommand("validate", with_example("Check a scenario file; with --resolved, print it with every default filled in (JSON).",
                                                               "pagesim validate default --resolved"));
  validate->add_option("scenario", va.scenario, kScenario)->required();
  validate->add_option("--set", va.sets, "override a scenario value: key.path=value (repeatable)")->allow_extra_args(false)->take_all();
  validate->add_flag("--resolved", va.resolved, "print the fully resolved scenario");
  validate->add_flag("--strict", va.strict, "treat every warning as an error (exit 2)");

  auto* list = app.add_subcommand("list", with_example("List workloads and their parameters, presets, knobs, engines, counters and shipped scenarios.",
                                                       "pagesim list"));
  bool metrics_markdown = false;
  list->add_flag("--metrics-markdown", metrics_markdown, "print only the declared metrics, as docs/output.md's table");

  std::string plot_json, plot_out;
  auto* plot = app.add_subcommand("plot", with_example("Render PNG and SVG plots of a result JSON through gnuplot.",
                                                       "pagesim plot out.json --out plots"));
  plot->add_option("result", plot_json, "result JSON written by pagesim run --json")->required();
  plot->add_option("--out", plot_out, "directory for the pictures (default: plots/ next to the JSON file)");

  uint64_t ops = 200000, seed = 1;
  auto* demo = app.add_subcommand("demo", with_example("Run the built-in experiment: random_mixed under every preset (v5.17 to v6.18).",
                                                       "pagesim demo --ops 200000 --seed 1"));
  demo->add_option("--ops", ops, "operations per preset")->check(CLI::Range(uint64_t{1}, uint64_t{1} << 40));
  demo->add_option("--seed", seed, "random seed");

  cli::MergeArgs ma;
  auto* merge = app.add_subcommand("merge", with_example("Join the shards of one run (pagesim run --shard K/N) into one result, as the unsharded run writes it.",
                                                         "pagesim merge out-0 out-1 out-2 --out merged"));
  merge->add_option("shards", ma.shards, "the shards' --out directories or result.json files")->required();
  merge->add_option("--out", ma.out_dir, "directory for result.json, result.csv and proc/")->required();
  merge->add_flag("--quiet,-q", ma.quiet, "do not print the comparison table");
  add_row_options(merge, ma.all, ma.rows);

  cli::CompareArgs cpa;
  auto* compare = app.add_subcommand("compare", with_example("Redraw the comparison table from saved results, the first file's first variant the base, as pagesim run prints it.",
                                                             "pagesim compare old/result.json new/result.json --all"));
  compare->add_option("results", cpa.results, "result JSON files (pagesim run --json) or --out directories")->required();
  add_row_options(compare, cpa.all, cpa.rows);

  cli::SlurmArgs sa;
  auto* slurm = app.add_subcommand("slurm", with_example("Write an sbatch script that runs a scenario's shards as a Slurm job array, then merges them.",
                                                         "pagesim slurm anon-w-rand-hugetlb-vcpus --shards 8 --script sweep.sbatch"));
  slurm->add_option("scenario", sa.scenario, kScenario)->required();
  slurm->add_option("--shards", sa.shards, "number of shards (array elements)")->required()->check(CLI::Range(1u, 100000u));
  slurm->add_option("--set", sa.sets, "override a scenario value: key.path=value (repeatable)")->allow_extra_args(false)->take_all();
  slurm->add_option("--out", sa.out_dir, "shared directory for the shards and the merged result (default: pagesim-slurm)");
  slurm->add_option("--script", sa.script, "write the script to FILE (default: standard output)");
  slurm->add_option("--cpus-per-task", sa.cpus_per_task, "CPUs per array element (default 1)")->check(CLI::Range(1u, 4096u));
  slurm->add_option("--pagesim", sa.pagesim, "the pagesim binary the jobs run (default: this one)");

  cli::ReplayArgs rpa;
  auto* replay = app.add_subcommand("replay", with_example("Replay a kernel kmem trace (ftrace text, .xz too) through the model and compare its refills and drains with the kernel's.",
                                                           "pagesim replay dev_mixed.trace.xz --zoneinfo zoneinfo.txt --json fidelity.json --plot plots"));
  replay->add_option("trace", rpa.trace, "trace file: mm_page_alloc, mm_page_free(_batched), mm_page_alloc_zone_locked, mm_page_pcpu_drain")->required();
  replay->add_option("--zoneinfo", rpa.zoneinfo, "/proc/zoneinfo captured with the trace: zone size, watermarks, pagesets");
  replay->add_option("--profile", rpa.profiles, "a preset to replay under (repeatable; default: v6.18 and v5.17)")->allow_extra_args(false);
  replay->add_option("--anchor", rpa.anchor, "where the zoneinfo's pcp counts stand: auto, start, end, fit or min (default auto)");
  replay->add_option("--decay", rpa.decay, "when 6.x's vmstat_update decays pcp->high: auto (default: trace if the trace has its workqueue events, else timer), trace, timer (due each whole second, run when the CPU is awake) or off");
  replay->add_option("--cpu", rpa.cpu, "the CPU whose pcp count is plotted (default: the busiest)")->check(CLI::Range(0, 4095));
  replay->add_option("--json", rpa.json, "write the fidelity table and pcp series (schema pagesim-replay/1) to FILE");
  replay->add_option("--emit-trace", rpa.emit_trace, "write the model's own events (first profile) in the same ftrace format to FILE");
  replay->add_option("--plot", rpa.plot_dir, "draw the pcp count over time, kernel against model, into DIR (gnuplot)");
  replay->add_flag("--quiet,-q", rpa.quiet, "do not print the table");

  cli::CalibrateArgs ca;
  auto* calibrate = app.add_subcommand("calibrate", with_example("Measure this host (latencies, bandwidth, lock, topology) into a machine file for the virtual engine.",
                                                                 "pagesim calibrate --out host.yaml"));
  calibrate->add_option("--out", ca.out, "machine file to write (default: host.yaml; never inside the shipped machines/)");
  calibrate->add_flag("--quick", ca.quick, "small buffers and few repetitions: seconds, indicative figures only");

  // Hidden (no group): what the build and the bash completion ask of the CLI's declarations.
  auto* man = app.add_subcommand("man", "Print pagesim(1), the man page, in roff")->group("");
  std::vector<std::string> words;
  auto* complete = app.add_subcommand("complete", "Print the completions of the last word: pagesim complete -- WORD...")->group("");
  complete->add_option("words", words, "the command line after pagesim, up to the cursor");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  try {
    if (*man) {
      fmt::print("{}", cli::man_page(app, PAGESIM_VERSION));
      return 0;
    }
    if (*complete) {
      for (const std::string& c : cli::complete(app, words)) fmt::print("{}\n", c);
      return 0;
    }
    if (*run) return cli::run(ra);
    if (*validate) return cli::validate(va);
    if (*list) return cli::list(metrics_markdown);
    if (*plot) {
      if (plot_out.empty()) plot_out = (std::filesystem::path(plot_json).parent_path() / "plots").string();
      return cli::plot(plot_json, plot_out);
    }
    if (*demo) return cli::demo(ops, seed);
    if (*calibrate) return cli::calibrate(ca);
    if (*replay) return cli::replay(rpa);
    if (*merge) return cli::merge(ma);
    if (*compare) return cli::compare(cpa);
    if (*slurm) return cli::slurm(sa);
  } catch (const InputError& e) {
    fmt::print(stderr, "pagesim: {}\n", e.what());
    return 2;
  } catch (const ModelError& e) {
    fmt::print(stderr, "pagesim: {}\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "pagesim: internal error: {}\n", e.what());
    return 1;
  }
  return 0;
}
