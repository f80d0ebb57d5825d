#include "fasim/l2_probes.hpp"

#include <algorithm>
#include <map>
#include <sstream>
#include <string_view>

#include "fasim/error.hpp"
#include "fasim/input_file.hpp"
#include "fasim/l2_cache.hpp"
#include "fasim/l2_partitions.hpp"
#include "probe_csv.hpp"

namespace fasim {

using probe_csv::csv_rows;
using probe_csv::fraction;
using probe_csv::whole;

namespace {
constexpr std::int64_t kMiB = std::int64_t{1} << 20;
constexpr std::int64_t kChunk = 4096;  // bytes one block of 256 threads touches per step
constexpr std::int64_t kShift = 37;    // blocks further on, each read pass of C3 and C4
constexpr std::int64_t kSlices = 8;    // C5, C6: block b reads slice b mod 8

// Blocks on SMs: as measured (the probes' grid of 8 per SM), else block b on
// SM b mod SMs.
struct Dealer {
  const SmLayout* layout;
  std::int64_t sms;
  std::int64_t sm_of(std::int64_t block) const {
    return layout == nullptr ? block % sms : layout->sm_of_block[static_cast<std::size_t>(block)];
  }
};

// One probe kernel: every chunk of `mib` MiB, read or written by the SM of
// the block it is dealt to, `shift` blocks further on.
ProbeBytes kernel(PartitionedL2& l2, TensorId buffer, std::int64_t mib, bool write, const Dealer& deal,
                  std::int64_t shift) {
  std::int64_t read = 0, written = 0;
  const std::int64_t blocks = deal.sms * 8;
  for (std::int64_t c = 0; c < mib * kMiB / kChunk; ++c) {
    const TileKey key{.tensor = buffer, .bh = 0, .row0 = c, .col0 = 0, .rows = 1, .cols = kChunk};
    const std::int64_t sm = deal.sm_of((c % blocks + blocks - shift % blocks) % blocks);
    const L2Access a = write ? l2.write(key, kChunk, sm) : l2.read(key, kChunk, sm);
    read += a.miss_bytes;
    written += a.writeback_bytes;
  }
  return {static_cast<double>(read) / kMiB, static_cast<double>(written) / kMiB};
}

// A C5/C6 read pass: chunk i of every slice, slice after slice, read by the
// blocks of that slice. Once a half has the chunk, more reads from it are
// hits that change nothing in the model, so each half reads it once.
ProbeBytes shared_pass(PartitionedL2& l2, std::int64_t mib, const Dealer& deal) {
  std::vector<std::vector<std::int64_t>> readers(kSlices);  // one SM per half, per slice
  for (std::int64_t s = 0; s < kSlices; ++s) {
    std::vector<bool> seen(static_cast<std::size_t>(l2.partitions()), false);
    for (std::int64_t b = s; b < deal.sms * kSlices; b += kSlices) {
      const std::int64_t sm = deal.sm_of(b);
      const auto half = static_cast<std::size_t>(l2.partition_of(sm));
      if (!seen[half]) readers[static_cast<std::size_t>(s)].push_back(sm);
      seen[half] = true;
    }
  }
  std::int64_t read = 0, written = 0;
  const std::int64_t chunks = mib * kMiB / kChunk / kSlices;
  for (std::int64_t i = 0; i < chunks; ++i)
    for (std::int64_t s = 0; s < kSlices; ++s) {
      const TileKey key{.tensor = TensorId::K, .bh = 0, .row0 = s * chunks + i, .col0 = 0, .rows = 1, .cols = kChunk};
      for (const std::int64_t sm : readers[static_cast<std::size_t>(s)]) {
        const L2Access a = l2.read(key, kChunk, sm);
        read += a.miss_bytes;
        written += a.writeback_bytes;
      }
    }
  return {static_cast<double>(read) / kMiB, static_cast<double>(written) / kMiB};
}

}  // namespace

std::vector<ProbeSequence> read_churn_probes(const std::string& path) {
  std::vector<ProbeSequence> out;
  for (const auto& [where, f] : csv_rows(path, "churn-probe CSV", "docs/results/h200-2026-11-22-churn-probe.csv",
                                         "probe,sequence,x_mib,r_mib,kernel,dram_read_bytes,dram_write_bytes")) {
    const std::string& seq = f[1];
    if (seq.size() != 2 || seq[0] != 'C' || seq[1] < '1' || seq[1] > '6')
      throw UserError(where + ": sequence '" + seq + "' is none of C1 to C6");
    const std::int64_t x = whole(f[2], 4096, "x_mib", where), r = whole(f[3], 4096, "r_mib", where);
    const std::int64_t rd = whole(f[5], kMiB << 20, "dram_read_bytes", where);
    const std::int64_t wr = whole(f[6], kMiB << 20, "dram_write_bytes", where);
    const std::string name = seq + (x == 0 ? "" : " X=" + f[2]) + " R=" + f[3];
    const bool shifted = seq == "C3" || seq == "C4", shared = seq == "C5" || seq == "C6";
    if (out.empty() || out.back().name != name) out.push_back({name, x, r, shifted, shared, {}});
    out.back().gpu.push_back({static_cast<double>(rd) / kMiB, static_cast<double>(wr) / kMiB});
  }
  return out;
}

std::vector<ProbeBytes> replay_churn_probe(const ProbeSequence& s, const DeviceSpec& device, double clean_share,
                                           const SmLayout* layout) {
  PartitionedL2 l2(device.l2_bytes, device.l2_partitions, device.sm_count, device.l2_sector_bytes, device.l2_ways,
                   kL2DirtyShare, clean_share);
  if (layout != nullptr) {
    if (device.l2_partitions != 2 || static_cast<std::int64_t>(layout->half_of_sm.size()) != device.sm_count)
      throw UserError("the SM layout measured " + std::to_string(layout->half_of_sm.size()) +
                      " SMs next to 2 L2 halves; device " + device.name + " has " + std::to_string(device.sm_count) +
                      " SMs and " + std::to_string(device.l2_partitions) +
                      " partitions: give the device it was measured on");
    if (static_cast<std::int64_t>(layout->sm_of_block.size()) < device.sm_count * 8)
      throw UserError("the SM layout's largest grid has " + std::to_string(layout->sm_of_block.size()) +
                      " blocks; the probes run 8 per SM: give the SM-partition probe's whole output");
    l2.set_sm_partitions(layout->half_of_sm);
  }
  const Dealer deal{layout, device.sm_count};
  std::vector<ProbeBytes> out;
  if (s.x_mib > 0) out.push_back(kernel(l2, TensorId::O, s.x_mib, true, deal, 0));
  for (std::int64_t pass = 1; out.size() < s.gpu.size(); ++pass)
    out.push_back(s.shared ? shared_pass(l2, s.r_mib, deal)
                           : kernel(l2, TensorId::K, s.r_mib, false, deal, s.shifted ? kShift * pass : 0));
  return out;
}

std::vector<ReuseSequence> read_reuse_probes(const std::string& path) {
  std::vector<ReuseSequence> out;
  std::map<std::string, std::size_t> at;  // name -> index in out
  for (const auto& [where, f] : csv_rows(path, "reuse-probe CSV", "docs/results/h200-2026-11-24-reuse-probe.csv",
                                         "sequence,b_mib,rep,kernel,dram_read_bytes,dram_write_bytes")) {
    const std::string& seq = f[0];
    if (seq.size() != 2 || seq[0] != 'U' || seq[1] < '1' || seq[1] > '4')
      throw UserError(where + ": sequence '" + seq + "' is none of U1 to U4");
    const std::string& kernel = f[3];
    if (kernel != "A1" && kernel != "A2" && kernel != "B" && kernel != "A")
      throw UserError(where + ": kernel '" + kernel + "' is none of A1, A2, B, A");
    const std::int64_t b = whole(f[1], 4096, "b_mib", where), rep = whole(f[2], 1000, "rep", where);
    const double rd = static_cast<double>(whole(f[4], kMiB << 20, "dram_read_bytes", where)) / kMiB;
    const double wr = static_cast<double>(whole(f[5], kMiB << 20, "dram_write_bytes", where)) / kMiB;
    if (rep != 1) continue;
    const std::string name = seq + " B=" + f[1];
    auto [it, fresh] = at.emplace(name, out.size());
    if (fresh) out.push_back({name, seq == "U3" || seq == "U4", seq == "U2" || seq == "U4", b, 0, 0});
    ReuseSequence& r = out[it->second];
    if (kernel == "A") r.last_read = rd;
    if (kernel == "A" || kernel == "B") r.written_mib += wr;
  }
  if (out.empty()) throw UserError("'" + path + "' holds no sequence of rep 1");
  return out;
}

ProbeBytes replay_reuse_probe(const ReuseSequence& s, const DeviceSpec& device) {
  PartitionedL2 l2(device.l2_bytes, device.l2_partitions, device.sm_count, device.l2_sector_bytes, device.l2_ways);
  const Dealer deal{nullptr, device.sm_count};
  constexpr std::int64_t kA = 16;  // MiB
  kernel(l2, TensorId::Q, kA, s.written, deal, 0);
  if (s.twice) kernel(l2, TensorId::Q, kA, false, deal, 0);
  const ProbeBytes b = s.b_mib > 0 ? kernel(l2, TensorId::K, s.b_mib, false, deal, 0) : ProbeBytes{};
  const ProbeBytes a = kernel(l2, TensorId::Q, kA, false, deal, 0);
  return {a.read, b.written + a.written};
}

std::vector<ReadersSequence> read_readers_probe(const std::string& path) {
  std::vector<ReadersSequence> out;
  for (const auto& [where, f] : csv_rows(path, "readers-probe CSV", "docs/results/h200-2026-11-29-readers-probe.csv",
                                         "sequence,f_mib,pass,dram_read_bytes,dram_write_bytes,sms")) {
    const std::string& seq = f[0];
    std::int64_t blocks = seq == "L16" ? 16 : seq == "A132" || seq == "I132" ? 132 : 0;
    // The read-modify-write probe's (rmw-probe-2026-11-30.cu): a mode letter,
    // then the blocks.
    char mode = 'R';
    if (blocks == 0 && seq.size() > 1 && std::string_view("RMHW").find(seq[0]) != std::string_view::npos) {
      const std::string_view count = std::string_view(seq).substr(1);
      if (count == "10" || count == "16" || count == "132") {
        blocks = count == "10" ? 10 : count == "16" ? 16 : 132;
        mode = seq[0];
      }
    }
    if (blocks == 0)
      throw UserError(where + ": sequence '" + seq +
                      "' is none of L16, A132, I132, or R, M, H or W then 10, 16 or 132 (R132, M16, ...)");
    const std::int64_t mib = whole(f[1], 4096, "f_mib", where);
    const std::int64_t pass = whole(f[2], 1000, "pass", where);
    const double rd = static_cast<double>(whole(f[3], kMiB << 20, "dram_read_bytes", where)) / kMiB;
    const double wr = static_cast<double>(whole(f[4], kMiB << 20, "dram_write_bytes", where)) / kMiB;
    std::vector<std::int64_t> sms;
    std::istringstream words(f[5]);
    for (std::string w; words >> w;) sms.push_back(whole(w, 4095, "an SM in sms", where));
    if (static_cast<std::int64_t>(sms.size()) != blocks)
      throw UserError(where + ": sms lists " + std::to_string(sms.size()) + " SMs; " + seq + " runs " +
                      std::to_string(blocks) + " blocks");
    const std::string name = seq + " F=" + f[1];
    if (out.empty() || out.back().name != name) out.push_back({name, seq == "I132", mib, sms, {}, mode});
    if (pass != static_cast<std::int64_t>(out.back().gpu.size()) + 1)
      throw UserError(where + ": pass " + f[2] + " of " + name + " should be pass " +
                      std::to_string(out.back().gpu.size() + 1));
    out.back().gpu.push_back({rd, wr});
  }
  if (out.empty()) throw UserError("'" + path + "' holds no pass");
  return out;
}

void check_probe_layout(const DeviceSpec& device, const SmLayout& layout, const std::vector<std::int64_t>& sm_of_block,
                        const std::string& name) {
  if (device.l2_partitions != 2 || static_cast<std::int64_t>(layout.half_of_sm.size()) != device.sm_count)
    throw UserError("the SM layout measured " + std::to_string(layout.half_of_sm.size()) +
                    " SMs next to 2 L2 halves; device " + device.name + " has " + std::to_string(device.sm_count) +
                    " SMs and " + std::to_string(device.l2_partitions) + " partitions: give the device it was measured on");
  for (const std::int64_t sm : sm_of_block)
    if (sm >= device.sm_count)
      throw UserError(name + " ran a block on SM " + std::to_string(sm) + "; device " + device.name + " has " +
                      std::to_string(device.sm_count) + " SMs");
}

std::vector<ProbeBytes> replay_readers_probe(const ReadersSequence& s, const DeviceSpec& device,
                                             const SmLayout& layout) {
  check_probe_layout(device, layout, s.sm_of_block, s.name);
  PartitionedL2 l2(device.l2_bytes, device.l2_partitions, device.sm_count, device.l2_sector_bytes, device.l2_ways);
  l2.set_sm_partitions(layout.half_of_sm);
  // As on the GPU: own rows are the first chunks / blocks chunks each (the
  // rest is not read); dealt, chunk c goes to block c mod blocks. The blocks
  // take 4 KiB steps in turn. Mode M reads each chunk and writes it back, H
  // does that to a block's odd chunks and reads its even ones, W writes only.
  const auto blocks = static_cast<std::int64_t>(s.sm_of_block.size());
  const std::int64_t chunks = s.f_mib * kMiB / kChunk;
  const std::int64_t per_block = s.dealt ? (chunks + blocks - 1) / blocks : chunks / blocks;
  std::vector<ProbeBytes> out;
  while (out.size() < s.gpu.size()) {
    std::int64_t read = 0, written = 0;
    for (std::int64_t k = 0; k < per_block; ++k)
      for (std::int64_t b = 0; b < blocks; ++b) {
        const std::int64_t c = s.dealt ? b + k * blocks : b * per_block + k;
        if (c >= chunks) continue;
        const TileKey key{.tensor = TensorId::Q, .bh = 0, .row0 = c, .col0 = 0, .rows = 1, .cols = kChunk};
        const std::int64_t sm = s.sm_of_block[static_cast<std::size_t>(b)];
        if (s.mode != 'W') {
          const L2Access a = l2.read(key, kChunk, sm);
          read += a.miss_bytes;
          written += a.writeback_bytes;
        }
        if (s.mode == 'M' || s.mode == 'W' || (s.mode == 'H' && k % 2 == 1))
          written += l2.write(key, kChunk, sm).writeback_bytes;
      }
    written += l2.settle();
    out.push_back({static_cast<double>(read) / kMiB, static_cast<double>(written) / kMiB});
  }
  return out;
}

SmLayout read_sm_layout(const std::string& path) {
  std::istringstream in(read_input_file(path, "SM-partition probe output",
                                         "give one such as docs/results/h200-2026-11-22-sm-partition-probe.txt"));
  std::map<std::int64_t, double> slow;  // smid -> slow share, the last rep's
  std::vector<std::int64_t> blocks;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::string where = path + ":" + std::to_string(n);
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == "SM") {
      std::int64_t sm = -1;
      double share = -1;
      for (std::string w; words >> w;) {
        if (w.rfind("smid=", 0) == 0) sm = whole(w.substr(5), 4095, "smid", where);
        if (w.rfind("slow_share=", 0) == 0) share = fraction(w.substr(11), where);
      }
      if (sm < 0 || share < 0) throw UserError(where + ": an SM line needs smid= and slow_share=");
      slow[sm] = share;
    } else if (first == "BLOCKS") {
      std::vector<std::int64_t> grid;
      std::string count;
      words >> count;
      for (std::string w; words >> w;) grid.push_back(whole(w, 4095, "smid", where));
      if (grid.size() > blocks.size()) blocks = std::move(grid);
    }
  }
  if (slow.empty() || blocks.empty())
    throw UserError("'" + path + "' is not the SM-partition probe's output: it needs SM and BLOCKS lines");
  SmLayout out;
  for (const auto& [sm, share] : slow) {
    if (sm != static_cast<std::int64_t>(out.half_of_sm.size()))
      throw UserError(path + ": no SM line for SM " + std::to_string(out.half_of_sm.size()) + "; run the probe again");
    // Near the reference SM's half every line is near (share 0); in the
    // other, the half of the lines homed by the reference half are far (0.5).
    if (share > 0.1 && share < 0.4)
      throw UserError(path + ": SM " + std::to_string(sm) + " has a slow share of " + std::to_string(share) +
                      ", neither about 0 nor about 0.5; run the probe again");
    out.half_of_sm.push_back(share >= 0.25 ? 1 : 0);
  }
  for (const std::int64_t sm : blocks)
    if (sm >= static_cast<std::int64_t>(out.half_of_sm.size()))
      throw UserError(path + ": a block ran on SM " + std::to_string(sm) + ", which has no SM line");
  out.sm_of_block = std::move(blocks);
  return out;
}

}  // namespace fasim
