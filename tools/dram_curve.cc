// dram-curve: a machine file's memory-controller curve (docs/machine-model.md, "Memory
// controller"): the queueing delay of one socket against its load, for the store loops'
// random traffic (an RFO and a write-back per store) and for sequential reads, the traffic of
// MLC's loaded-latency curve, whose published points the file's UPI curve keeps.
//   dram-curve [MACHINE_FILE]   (default: the shipped ICX file)
// Prints two tab-separated tables on standard output, for gnuplot. Exit 2 on a bad file.
#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "pagesim/error.h"
#include "pagesim/vt/dram.h"
#include "pagesim/vt/machine_model.h"

namespace {

using pagesim::vt::Txn;

void random_table(const pagesim::vt::DramController& c) {
  fmt::print("# random: transactions_per_s\tutilisation\twait_ns  (half RFO reads, half write-backs)\n");
  const double cap = c.capacity(Txn::random_read);
  for (int i = 1; i < 100; ++i) {
    pagesim::vt::TxnRates r{};
    r[static_cast<unsigned>(Txn::random_read)] = r[static_cast<unsigned>(Txn::random_write)] = cap * i / 200.0;
    fmt::print("{:.4g}\t{:.3f}\t{:.2f}\n", cap * i / 100.0, c.utilisation(r), c.wait_s(r) * 1e9);
  }
}

void streaming_table(const pagesim::vt::DramController& c) {
  fmt::print("\n\n# sequential reads: gb_per_s\tutilisation\twait_ns\n");
  const double cap = c.capacity(Txn::streaming_read);
  for (int i = 1; i < 100; ++i) {
    pagesim::vt::TxnRates r{};
    r[static_cast<unsigned>(Txn::streaming_read)] = cap * i / 100.0;
    fmt::print("{:.2f}\t{:.3f}\t{:.2f}\n", cap * i / 100.0 * 64 / 1e9, c.utilisation(r), c.wait_s(r) * 1e9);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc > 2) throw pagesim::InputError("usage: dram-curve [MACHINE_FILE]");
    const auto m = pagesim::vt::load_machine_model(argc == 2 ? argv[1] : pagesim::vt::default_machine_file());
    const pagesim::vt::DramController c = m.controller();
    fmt::print("# {}: {:.4g} random transactions/s per socket at most\n", m.name, c.capacity(Txn::random_read));
    random_table(c);
    streaming_table(c);
    return 0;
  } catch (const pagesim::InputError& e) {
    std::fprintf(stderr, "dram-curve: %s\n", e.what());
    return 2;
  }
}
