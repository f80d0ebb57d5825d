#include "fasim/l2_flash1_pattern.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include "fasim/error.hpp"
#include "fasim/l2_partitions.hpp"
#include "probe_csv.hpp"

namespace fasim {

namespace {
constexpr double kMB = 1e6;

// "F1-nokv/N512/d128/br64/bc64": the variant and the shape, else one line.
Flash1Pattern parse_name(const std::string& name, const std::string& where) {
  std::vector<std::string> parts;
  std::stringstream s(name);
  for (std::string p; std::getline(s, p, '/');) parts.push_back(p);
  const std::string bad = where + ": sequence '" + name +
                          "' is not F1, F1-nokv, F1-ro or F1-together then /N../d../br../bc.. and an optional /hH "
                          "(F1/N512/d128/br64/bc64)";
  if (parts.size() != 5 && parts.size() != 6) throw UserError(bad);
  Flash1Pattern p;
  p.name = name;
  const std::string& v = parts[0];
  if (v != "F1" && v != "F1-nokv" && v != "F1-ro" && v != "F1-together") throw UserError(bad);
  p.kv = v != "F1-nokv";
  p.write = v != "F1-ro";
  std::int64_t* field[] = {&p.n, &p.d, &p.br, &p.bc, &p.heads};
  const char* prefix[] = {"N", "d", "br", "bc", "h"};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string& part = parts[i + 1];
    if (part.rfind(prefix[i], 0) != 0) throw UserError(bad);
    *field[i] = probe_csv::whole(part.substr(std::string(prefix[i]).size()), 1 << 20, prefix[i], where);
    if (*field[i] == 0) throw UserError(bad);
  }
  return p;
}
}  // namespace

std::vector<Flash1Pattern> read_flash1_pattern(const std::string& path) {
  std::vector<Flash1Pattern> out;
  std::map<std::string, std::size_t> at;  // sequence -> index in out
  std::vector<std::map<std::int64_t, double>> reads;  // per sequence: placement -> MB
  for (const auto& [where, f] : probe_csv::csv_rows(
           path, "flash1-pattern probe CSV", "docs/results/h200-2026-11-30-flash1-pattern.csv",
           "sequence,placement,style,spin,pass,dram_read_bytes,dram_write_bytes,sms,skew_us")) {
    if (f[2] != "launch" || f[3] != "spin0") continue;  // the style the replay plays
    if (f[0].size() > 1 && (f[0][0] == 'R' || f[0][0] == 'H') && std::isdigit(static_cast<unsigned char>(f[0][1])))
      continue;  // the rmw probe's patterns (R132/F44, H132/F40), played by replay_readers_probe
    auto [it, fresh] = at.try_emplace(f[0], out.size());
    if (fresh) {
      out.push_back(parse_name(f[0], where));
      reads.emplace_back();
    }
    const std::int64_t placement = probe_csv::whole(f[1], 4096, "placement", where);
    Flash1Pattern& p = out[it->second];
    if (placement == 0 && p.sm_of_block.empty() && !f[7].empty()) {
      std::istringstream words(f[7]);
      for (std::string w; words >> w;) p.sm_of_block.push_back(probe_csv::whole(w, 4095, "an SM in sms", where));
      if (p.heads > 0 && static_cast<std::int64_t>(p.sm_of_block.size()) != p.heads)
        throw UserError(where + ": sms lists " + std::to_string(p.sm_of_block.size()) + " SMs; " + p.name + " runs " +
                        std::to_string(p.heads) + " heads");
    }
    probe_csv::whole(f[4], 1024, "pass", where);
    reads[it->second][placement] +=
        static_cast<double>(probe_csv::whole(f[5], std::int64_t{1} << 40, "dram_read_bytes", where)) / kMB;
  }
  if (out.empty()) throw UserError("'" + path + "' holds no launch-style run with no spin");
  for (std::size_t i = 0; i < out.size(); ++i)
    for (const auto& [placement, mb] : reads[i]) out[i].gpu_mb.push_back(mb);
  return out;
}

std::vector<PatternPass> replay_flash1_pattern(const Flash1Pattern& p, const DeviceSpec& device,
                                               const SmLayout& layout, const std::vector<std::int64_t>& sm_of_block) {
  check_probe_layout(device, layout, sm_of_block, p.name);
  if (p.heads > 0 && static_cast<std::int64_t>(sm_of_block.size()) != p.heads)
    throw UserError(p.name + " runs " + std::to_string(p.heads) + " heads; " + std::to_string(sm_of_block.size()) +
                    " SMs given");
  PartitionedL2 l2(device.l2_bytes, device.l2_partitions, device.sm_count, device.l2_sector_bytes, device.l2_ways);
  l2.set_sm_partitions(layout.half_of_sm);
  const std::int64_t row = p.d * 2;  // fp16
  std::vector<PatternPass> out;
  for (std::int64_t c0 = 0; c0 < p.n; c0 += p.bc) {
    std::int64_t read = 0, written = 0;
    // One step: every block in turn does the same access to its own head's tile.
    auto step = [&](TensorId t, std::int64_t r0, std::int64_t rows, std::int64_t bytes, bool write) {
      for (std::size_t b = 0; b < sm_of_block.size(); ++b) {
        const TileKey key{.tensor = t, .bh = static_cast<std::int64_t>(b), .row0 = r0, .col0 = 0, .rows = rows,
                          .cols = 1};
        const L2Access a = write ? l2.write(key, bytes, sm_of_block[b]) : l2.read(key, bytes, sm_of_block[b]);
        read += a.miss_bytes;
        written += a.writeback_bytes;
      }
    };
    const std::int64_t cols = std::min(p.bc, p.n - c0);
    if (p.kv) {
      step(TensorId::K, c0, cols, cols * row, false);
      step(TensorId::V, c0, cols, cols * row, false);
    }
    for (std::int64_t r0 = 0; r0 < p.n; r0 += p.br) {
      const std::int64_t rows = std::min(p.br, p.n - r0);
      step(TensorId::Q, r0, rows, rows * row, false);
      if (c0 > 0) {
        step(TensorId::O, r0, rows, rows * row, false);
        step(TensorId::l, r0, rows, rows * 4, false);
        step(TensorId::m, r0, rows, rows * 4, false);
      }
      if (p.write) {
        step(TensorId::O, r0, rows, rows * row, true);
        step(TensorId::l, r0, rows, rows * 4, true);
        step(TensorId::m, r0, rows, rows * 4, true);
      }
    }
    written += l2.settle();
    out.push_back({static_cast<double>(read) / kMB, static_cast<double>(written) / kMB});
  }
  return out;
}

}  // namespace fasim
