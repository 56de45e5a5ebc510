// The machine file of an engine that uses one (the virtual engine), loaded once with the
// scenario, and what the resolved scenario records of it: the file found
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

nlohmann::ordered_json virtual_inputs(Scenario& sc, const Node* machine_file) {
  const std::string& given = sc.engine_options.string("machine_file");
  std::string path = vt::default_machine_file();
  if (machine_file) {
    const auto where = engine::machine_file_candidates(sc.file, given);
    path = config::first_existing(where);
    if (path.empty())
      fail(machine_file->pos, "engine.machine_file", fmt::format("'{}' not found; looked for: {}", given, config::looked_for(where)));
  }
  const std::string text = config::read_config_file(path, "machine file");  // read once: parsed and hashed
  sc.machine_model = std::make_shared<const vt::MachineModel>(vt::parse_machine_model(text, path));
  const engine::VirtualTopology t = engine::virtual_topology(sc.machine, *sc.machine_model);
  return {{"machine_file_used", path},
          {"machine_file_sha1", sha1_hex(text)},
          {"topology", t.statement}};
}

}  // namespace pagesim::scenario::detail
