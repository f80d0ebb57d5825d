#include "fasim/l2_probes.hpp"

#include <fstream>
#include <sstream>

#include "fasim/error.hpp"
#include "fasim/l2_cache.hpp"
#include "fasim/l2_partitions.hpp"

namespace fasim {

namespace {
constexpr std::int64_t kMiB = std::int64_t{1} << 20;
constexpr std::int64_t kChunk = 4096;  // bytes one block of 256 threads touches per step
constexpr std::int64_t kShift = 37;    // blocks further on, each read pass of C3 and C4

// One probe kernel: every chunk of `mib` MiB, read or written by the SM of
// the block it is dealt to, `shift` blocks further on.
ProbeBytes kernel(PartitionedL2& l2, TensorId buffer, std::int64_t mib, bool write, std::int64_t sms,
                  std::int64_t shift) {
  std::int64_t read = 0, written = 0;
  const std::int64_t blocks = sms * 8;
  for (std::int64_t c = 0; c < mib * kMiB / kChunk; ++c) {
    const TileKey key{.tensor = buffer, .bh = 0, .row0 = c, .col0 = 0, .rows = 1, .cols = kChunk};
    const std::int64_t block = (c % blocks + blocks - shift % blocks) % blocks;
    const L2Access a = write ? l2.write(key, kChunk, block % sms) : l2.read(key, kChunk, block % sms);
    read += a.miss_bytes;
    written += a.writeback_bytes;
  }
  return {static_cast<double>(read) / kMiB, static_cast<double>(written) / kMiB};
}

// A whole number from 0 to `most`, else one line naming the field.
std::int64_t whole(const std::string& text, std::int64_t most, const std::string& what, const std::string& where) {
  std::size_t used = 0;
  long long v = -1;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
  }
  if (text.empty() || used != text.size() || v < 0 || v > most)
    throw UserError(where + ": " + what + " '" + text + "' is not a whole number from 0 to " + std::to_string(most));
  return v;
}
}  // namespace

std::vector<ProbeSequence> read_churn_probes(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError("cannot open '" + path + "'; give a churn-probe CSV such as docs/results/h200-2026-11-22-churn-probe.csv");
  const std::string header = "probe,sequence,x_mib,r_mib,kernel,dram_read_bytes,dram_write_bytes";
  std::string line;
  if (std::getline(in, line) && !line.empty() && line.back() == '\r') line.pop_back();
  if (line != header)
    throw UserError("'" + path + "' is not a churn-probe CSV: its first line must be " + header);
  std::vector<ProbeSequence> out;
  for (int n = 2; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // a file saved with Windows line ends
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(n);
    std::vector<std::string> f;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');) f.push_back(cell);
    if (f.size() != 7) throw UserError(where + ": expected 7 fields, found " + std::to_string(f.size()));
    const std::string& seq = f[1];
    if (seq != "C1" && seq != "C2" && seq != "C3" && seq != "C4")
      throw UserError(where + ": sequence '" + seq + "' is none of C1, C2, C3, C4");
    const std::int64_t x = whole(f[2], 4096, "x_mib", where), r = whole(f[3], 4096, "r_mib", where);
    const std::int64_t rd = whole(f[5], kMiB << 20, "dram_read_bytes", where);
    const std::int64_t wr = whole(f[6], kMiB << 20, "dram_write_bytes", where);
    const std::string name = seq + (x == 0 ? "" : " X=" + f[2]) + " R=" + f[3];
    if (out.empty() || out.back().name != name) out.push_back({name, x, r, seq == "C3" || seq == "C4", {}});
    out.back().gpu.push_back({static_cast<double>(rd) / kMiB, static_cast<double>(wr) / kMiB});
  }
  return out;
}

std::vector<ProbeBytes> replay_churn_probe(const ProbeSequence& s, const DeviceSpec& device, double clean_share) {
  PartitionedL2 l2(device.l2_bytes, device.l2_partitions, device.sm_count, device.l2_sector_bytes, device.l2_ways,
                   kL2DirtyShare, clean_share);
  std::vector<ProbeBytes> out;
  if (s.x_mib > 0) out.push_back(kernel(l2, TensorId::O, s.x_mib, true, device.sm_count, 0));
  for (std::int64_t pass = 1; out.size() < s.gpu.size(); ++pass)
    out.push_back(kernel(l2, TensorId::K, s.r_mib, false, device.sm_count, s.shifted ? kShift * pass : 0));
  return out;
}

}  // namespace fasim
