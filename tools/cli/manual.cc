#include "manual.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "pagesim/mm/config.h"

namespace pagesim::cli {

namespace {

// What pagesim is, named after the kernels its presets model.
std::string summary() {
  return fmt::format("a simulator of the Linux page allocator (kernel presets {} to {})", mm::preset_names().front(),
                     mm::preset_names().back());
}

constexpr const char* kAbout =
    "It runs experiments written as scenario files (YAML): a workload on a simulated machine under kernel presets and "
    "knobs, on one of three engines (uniprocessor, native threads, virtual time), and reports zone lock use, struct page "
    "cache-line accesses and throughput side by side.";

struct Item {
  std::string term, text;
};
struct Section {
  std::string title;  // as --help prints it; the man page's in capitals
  std::vector<Item> items;
};

// docs/output.md, "Exit codes", and docs/README's layout, once for --help and the man page.
const std::vector<Section>& footer_sections() {
  static const std::vector<Section> kSections = {
      {"Exit status",
       {{"0", "every run finished, with no invariant violation"},
        {"1", "a run had invariant violations, or the model hit a state the kernel would BUG() on"},
        {"2", "bad input: a scenario, machine file, flag, output target, or a size beyond this host"},
        {"130, 143", "SIGINT or SIGTERM (128 + the signal's number): runs in flight stop at their next safe point and are reported"}}},
      {"Files",
       {{"PREFIX/share/pagesim/scenarios/NAME.yaml",
         "the shipped scenarios: `pagesim run NAME` runs one when no file NAME is in the working directory (a path always "
         "wins); PREFIX is the directory above the one holding pagesim, and a pagesim in its build tree reads its source "
         "tree's scenarios/ and machines/ instead"},
        {"PREFIX/share/pagesim/machines/NAME.yaml",
         "the virtual engine's machine files: engine.machine_file is looked for as a path, beside the scenario, then here "
         "by name"},
        {"PREFIX/share/doc/pagesim/", "README.md and docs/: the scenario format (scenarios.md), the outputs (output.md), the model (model.md)"}}},
  };
  return kSections;
}

// Text as roff reads it: backslashes and minus signs escaped, no line taken for a request.
std::string roff(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
    line_start = c == '\n';
  }
  return out;
}

// "--jobs UINT:UINT in [1 - 256]": the value's kind only.
std::string value_name(const CLI::Option& o) {
  const std::string t = o.get_type_name();
  return t.substr(0, t.find(':'));
}

std::string option_item(const CLI::Option& o) {
  std::string names;
  for (const std::string& s : o.get_snames()) names += fmt::format("{}\\fB\\-{}\\fR", names.empty() ? "" : ", ", roff(s));
  for (const std::string& l : o.get_lnames()) names += fmt::format("{}\\fB\\-\\-{}\\fR", names.empty() ? "" : ", ", roff(l));
  if (o.get_positional()) names = fmt::format("\\fI{}\\fR", roff(o.get_name()));
  else if (o.get_type_size() > 0) names += fmt::format(" \\fI{}\\fR", roff(value_name(o)));
  if (o.get_items_expected_max() > 1) names += " ...";
  return fmt::format(".TP\n{}\n{}\n", names, roff(o.get_description()));
}

// A subcommand's description and its "Example: ..." line (pagesim.cc's with_example).
std::pair<std::string, std::string> split_example(const std::string& description) {
  const std::string marker = "\nExample: ";
  const size_t at = description.find(marker);
  if (at == std::string::npos) return {description, ""};
  return {description.substr(0, at), description.substr(at + marker.size())};
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string command_section(const CLI::App& cmd) {
  const auto options = cmd.get_options([&](const CLI::Option* o) { return o != cmd.get_help_ptr() && !o->get_group().empty(); });
  std::string usage = fmt::format("\\fBpagesim {}\\fR", cmd.get_name());
  bool has_flags = false;
  for (const CLI::Option* o : options) has_flags |= !o->get_positional();
  if (has_flags) usage += " [\\fIOPTIONS\\fR]";
  for (const CLI::Option* o : options) {
    if (!o->get_positional()) continue;
    const std::string arg = fmt::format("\\fI{}\\fR{}", roff(o->get_name()), o->get_items_expected_max() > 1 ? " ..." : "");
    usage += o->get_required() ? " " + arg : " [" + arg + "]";
  }
  const auto [what, example] = split_example(cmd.get_description());
  std::string out = fmt::format(".SH \"PAGESIM {}\"\n{}\n.PP\n{}\n", upper(cmd.get_name()), usage, roff(what));
  if (!example.empty()) out += fmt::format(".PP\nExample:\n.RS\n.nf\n{}\n.fi\n.RE\n", roff(example));
  for (const CLI::Option* o : options) out += option_item(*o);
  return out;
}

}  // namespace

std::string app_description() {
  return fmt::format("pagesim: {}\n{}\nExample: pagesim run default --json out.json", summary(), kAbout);
}

std::string help_footer() {
  std::string out;
  for (const Section& s : footer_sections()) {
    out += fmt::format("\n{}:\n", s.title);
    for (const Item& i : s.items)
      out += i.term.size() < 10 ? fmt::format("  {:<10}{}\n", i.term, i.text) : fmt::format("  {}\n      {}\n", i.term, i.text);
  }
  return out;
}

std::string man_page(const CLI::App& app, const std::string& version) {
  std::string out = fmt::format(".TH PAGESIM 1 \"\" \"pagesim {}\" \"User Commands\"\n", roff(version));
  out += fmt::format(".SH NAME\npagesim \\- {}\n", roff(summary()));
  out += ".SH SYNOPSIS\n\\fBpagesim\\fR \\fICOMMAND\\fR [\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]\n.br\n"
         "\\fBpagesim\\fR \\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR | \\fICOMMAND\\fR \\fB\\-\\-help\\fR\n";
  const auto commands = app.get_subcommands([](const CLI::App* c) { return !c->get_group().empty(); });
  out += fmt::format(".SH DESCRIPTION\n{}\n.PP\nThe commands:\n", roff(kAbout));
  for (const CLI::App* c : commands)
    out += fmt::format(".TP\n\\fB{}\\fR\n{}\n", roff(c->get_name()), roff(split_example(c->get_description()).first));
  out += ".SH OPTIONS\n";
  for (const CLI::Option* o : app.get_options()) out += option_item(*o);
  for (const CLI::App* c : commands) out += command_section(*c);
  for (const Section& s : footer_sections()) {
    out += fmt::format(".SH \"{}\"\n", upper(s.title));
    for (const Item& i : s.items) out += fmt::format(".TP\n\\fB{}\\fR\n{}\n", roff(i.term), roff(i.text));
  }
  return out;
}

}  // namespace pagesim::cli
