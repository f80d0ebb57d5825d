// fasim_l2_replay: the L2 churn probes recorded on a GPU (docs/results/
// h200-2026-11-22-churn-probe.cu, .md) played through fasim's L2 model
// (fasim/l2_probes.hpp), the model's DRAM bytes beside the GPU's.
//
//   fasim_l2_replay [probe.csv] [device] [clean share] [sm-partition.txt]
//
// Defaults: docs/results/h200-2026-11-22-churn-probe.csv, h200, and fasim's
// clean share (kL2CleanShare); 0 turns the early write-back off. With the
// SM-partition probe's output, blocks go to SMs and SMs to L2 halves as that
// GPU was measured to deal them, else as fasim deals them.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "fasim/device_spec.hpp"
#include "fasim/error.hpp"
#include "fasim/l2_cache.hpp"
#include "fasim/l2_probes.hpp"

namespace {

void print_row(const char* who, const std::vector<fasim::ProbeBytes>& kernels, bool writes) {
  std::printf("    %-5s", who);
  double sum = 0;
  for (const fasim::ProbeBytes& b : kernels) {
    const double v = writes ? b.written : b.read;
    sum += v;
    std::printf(" %5.1f", v);
  }
  std::printf("  | %6.1f\n", sum);
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc > 1 && (std::string(argv[1]) == "-h" || std::string(argv[1]) == "--help")) {
    std::printf("usage: fasim_l2_replay [probe.csv] [device] [clean share] [sm-partition.txt]\n"
                "Plays the L2 probes recorded on a GPU through fasim's L2 model; prints both.\n"
                "Defaults: docs/results/h200-2026-11-22-churn-probe.csv, h200, fasim's clean share (0 = no early\n"
                "write-back), blocks dealt to SMs and SMs to L2 halves as fasim deals them; give the SM-partition\n"
                "probe's output (docs/results/h200-2026-11-22-sm-partition-probe.txt) to deal them as that GPU did.\n"
                "See docs/results/h200-2026-11-22-churn-probe.md and h200-2026-11-22-sm-partition-probe.md.\n");
    return 0;
  }
  const std::string path = argc > 1 ? argv[1] : "docs/results/h200-2026-11-22-churn-probe.csv";
  const fasim::DeviceSpec dev = fasim::load_device(argc > 2 ? argv[2] : "h200");
  double clean = fasim::kL2CleanShare;
  if (argc > 3) {
    const std::string text = argv[3];
    std::size_t used = 0;
    try {
      clean = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != text.size() || !(clean >= 0 && clean < 1))
      throw fasim::UserError("clean share '" + text + "' is not a number from 0 up to 1; give e.g. 0 or 0.3");
  }
  const auto probes = fasim::read_churn_probes(path);
  std::optional<fasim::SmLayout> layout;
  if (argc > 4) layout = fasim::read_sm_layout(argv[4]);
  if (argc > 5) throw fasim::UserError("too many arguments; see fasim_l2_replay --help");
  std::vector<std::vector<fasim::ProbeBytes>> model;  // all of it before printing any: an error prints nothing else
  for (const fasim::ProbeSequence& s : probes)
    model.push_back(fasim::replay_churn_probe(s, dev, clean, layout ? &*layout : nullptr));
  std::printf("L2 probes: the GPU (%s) against fasim's L2 model (%s: %lld MiB, %lld partitions, %lld ways,\n",
              path.c_str(), dev.name.c_str(), static_cast<long long>(dev.l2_bytes >> 20),
              static_cast<long long>(dev.l2_partitions), static_cast<long long>(dev.l2_ways));
  std::printf("clean share %.2f, SMs %s). MiB per kernel, then the sum.\n", clean,
              layout ? "as measured" : "as fasim deals them");
  for (std::size_t i = 0; i < probes.size(); ++i) {
    const bool writes = probes[i].x_mib > 0;
    std::printf("  %s, DRAM %s\n", probes[i].name.c_str(), writes ? "writes" : "reads");
    print_row("GPU", probes[i].gpu, writes);
    print_row("model", model[i], writes);
  }
  return 0;
} catch (const fasim::UserError& e) {
  std::fprintf(stderr, "fasim_l2_replay: %s\n", e.what());
  return 2;
}
