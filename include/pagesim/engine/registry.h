// The engine registry: each engine declares its name, its `engine:` options (typed, as workloads
// declare their parameters), its check before any run and its entry point, and registers itself
// with one line in sim/engine/engines.def. The scenario layer validates `engine:` against the
// declared options; `pagesim list` describes them; run::preflight warns of an option set away
// from its default that the chosen engine does not declare (ignored-engine-key).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "pagesim/config/params.h"
#include "pagesim/engine/engine.h"
#include "pagesim/mm/machine_spec.h"
#include "pagesim/vt/machine_model.h"

namespace pagesim::engine {

struct EngineInfo {
  std::string name;
  std::string description;
  uint8_t bit = 0;  // its run::EngineMask bit, by which workloads and metrics name the engines they run on
  // Its `engine:` keys. An option name is declared by one engine only: a scenario's options hold
  // every engine's (RunInput::options), and each engine reads its own.
  std::vector<config::ParamSpec> options;
  void (*run)(const RunInput&, const Program&) = nullptr;
  // Whether its runs need the machine file's model, loaded once with the scenario (RunInput::model).
  bool uses_machine_model = false;
  // Optional: what it would refuse at its start, checked before any run (run::preflight, so
  // `pagesim validate` too). `model` is the scenario's machine model when uses_machine_model,
  // else null. Throws InputError.
  std::function<void(const mm::MachineSpec&, const config::Params& options, const vt::MachineModel* model,
                     const std::string& source)>
      check;
  // Optional: a value of one of its options that another rules out, refused when the scenario
  // loads at that option's line and column (whichever engine the scenario names).
  std::function<std::optional<config::ParamProblem>(const config::Params& options)> check_options;
  // Optional: whether the resolved scenario of a scenario on `engine` shows `option` of these
  // options (without it: when `engine` is this one).
  std::function<bool(const std::string& engine, const config::Params& options, const std::string& option)> resolves;
  // Whether a run takes every host CPU (its CPUs are host threads, timed by the host clock): the
  // runner then runs one job at a time, whatever --jobs says.
  bool owns_host = false;
  // Whether a run's result is a function of its scenario, kernel config and seed alone (virtual
  // time, no host clock in any figure): the runner may then give a variant the result of a run
  // it provably repeats (run::run_all, "Reuse").
  bool deterministic = false;
};

// Every registered engine, in engines.def's order.
const std::vector<EngineInfo>& registered_engines();
const EngineInfo* find_engine(const std::string& name);
// Every engine's options at their defaults: the options of a scenario with no `engine:` map.
config::Params default_engine_options();

}  // namespace pagesim::engine
