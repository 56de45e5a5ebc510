// The virtual engine's inputs as the resolved scenario records them: the machine file found
// (engine::machine_file_candidates: as given, beside the scenario, then shipped), its SHA-1 and
// how the scenario's CPUs sit on it.
#include <boost/uuid/detail/sha1.hpp>
#include <fmt/format.h>

#include "pagesim/config/shipped.h"
#include "pagesim/engine/engine.h"
#include "pagesim/vt/machine_model.h"
#include "sections.h"

namespace pagesim::scenario::detail {

namespace {

// The SHA-1 of `text`, as sha1sum prints it.
std::string sha1_hex(const std::string& text) {
  boost::uuids::detail::sha1 h;
  h.process_bytes(text.data(), text.size());
  boost::uuids::detail::sha1::digest_type d;
  h.get_digest(d);
  std::string hex;
  for (unsigned word : d) hex += fmt::format("{:08x}", word);
  return hex;
}

}  // namespace

nlohmann::ordered_json virtual_inputs(const Scenario& sc, const Node* machine_file) {
  const engine::EngineOptions& eo = sc.engine_options;
  std::string path = vt::default_machine_file();
  if (machine_file) {
    const auto where = engine::machine_file_candidates(sc.file, eo.machine_file);
    path = config::first_existing(where);
    if (path.empty())
      fail(machine_file->pos, "engine.machine_file", fmt::format("'{}' not found; looked for: {}", eo.machine_file, config::looked_for(where)));
  }
  const vt::MachineModel model = vt::load_machine_model(path);
  const engine::VirtualTopology t = engine::virtual_topology(sc.machine, model);
  return {{"machine_file_used", path},
          {"machine_file_sha1", sha1_hex(config::read_config_file(path, "machine file"))},
          {"topology", t.statement}};
}

}  // namespace pagesim::scenario::detail
