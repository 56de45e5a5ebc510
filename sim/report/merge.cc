// `pagesim merge`: the shards of one set (`pagesim run --shard K/N`) back into the set's
// document, runs in run order, as the unsharded run writes it.
#include <fmt/format.h>

#include <algorithm>

#include "pagesim/error.h"
#include "pagesim/report/report.h"
#include "pagesim/version.h"

namespace pagesim::report {

namespace {

using ojson = nlohmann::ordered_json;

struct Part {
  std::string file;
  ojson doc;
  run::Shard shard;
};

Part read_part(const std::string& file) {
  Part p{file, {}, {}};
  try {
    p.doc = ojson::parse(read_text_file(file));
    if (p.doc.value("schema", "") != "pagesim/1") throw InputError(fmt::format("{}: not a pagesim/1 result", file));
    if (!p.doc.contains("shard"))
      throw InputError(fmt::format("{}: not a shard (no \"shard\" record: it was written without --shard)", file));
    p.shard.index = p.doc["shard"].at("index").get<unsigned>();
    p.shard.count = p.doc["shard"].at("count").get<unsigned>();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("{}: not a pagesim/1 shard: {}", file, e.what()));
  }
  return p;
}

// The scenario as the shards must agree on it: where each wrote its files may differ.
ojson comparable_scenario(const Part& p) {
  ojson sc = p.doc.at("scenario");
  sc.erase("outputs");
  return sc;
}

// "seed: 1 and 2" for the first key where two scenarios differ.
std::string first_difference(const ojson& a, const ojson& b) {
  const nlohmann::json patch = nlohmann::json::diff(nlohmann::json::parse(a.dump()), nlohmann::json::parse(b.dump()));
  if (patch.empty()) return "";
  const nlohmann::json::json_pointer at(patch[0].at("path").get<std::string>());
  std::string key = at.to_string().substr(1);
  std::replace(key.begin(), key.end(), '/', '.');
  const auto text = [&](const ojson& doc) {
    const nlohmann::json j = nlohmann::json::parse(doc.dump());
    return j.contains(at) ? j.at(at).dump() : std::string("(absent)");
  };
  return fmt::format("scenario.{}: {} and {}", key, text(a), text(b));
}

}  // namespace

Merged merge_shards(const std::vector<std::string>& files) {
  if (files.empty()) throw InputError("merge: no shard given");
  std::vector<Part> parts;
  for (const std::string& f : files) parts.push_back(read_part(f));
  const Part& first = parts.front();
  const unsigned n = first.shard.count;
  const ojson scenario = comparable_scenario(first);
  std::vector<const Part*> by_index(n, nullptr);
  for (const Part& p : parts) {
    if (p.doc["shard"].value("version", "") != PAGESIM_VERSION)
      throw InputError(fmt::format("{}: written by pagesim {}, this is {}", p.file, p.doc["shard"].value("version", "?"), PAGESIM_VERSION));
    if (p.shard.count != n)
      throw InputError(fmt::format("{} is a shard of {} and {} of {}: not slices of one run", first.file, n, p.file, p.shard.count));
    if (const std::string d = first_difference(scenario, comparable_scenario(p)); !d.empty())
      throw InputError(fmt::format("{} and {} are shards of different scenarios ({})", first.file, p.file, d));
    if (p.shard.index >= n) throw InputError(fmt::format("{}: shard {} of {}", p.file, p.shard.index, n));
    if (by_index[p.shard.index])
      throw InputError(fmt::format("{} and {} are both shard {}/{}", by_index[p.shard.index]->file, p.file, p.shard.index, n));
    by_index[p.shard.index] = &p;
  }
  for (unsigned k = 0; k < n; ++k)
    if (!by_index[k]) throw InputError(fmt::format("merge: shard {}/{} is missing", k, n));

  // Run i of the set is run i / n of shard i % n (run::Shard::holds).
  std::vector<std::vector<run::RunResult>> shard_runs;
  bool interrupted = false;
  size_t total = 0;
  for (const Part* p : by_index) {
    shard_runs.push_back(runs_from_json(nlohmann::json::parse(p->doc.dump()), p->file));
    interrupted |= p->doc.value("interrupted", false);
    total += shard_runs.back().size();
  }
  Merged m;
  for (size_t i = 0; i < total; ++i) {
    std::vector<run::RunResult>& from = shard_runs[i % n];
    if (i / n >= from.size())
      throw InputError(fmt::format("merge: {} holds {} runs, too few for its place in a set of {}", by_index[i % n]->file,
                                   from.size(), total));
    m.runs.push_back(std::move(from[i / n]));
  }
  m.doc = result_document(first.doc.at("scenario"), m.runs, interrupted);
  return m;
}

}  // namespace pagesim::report
