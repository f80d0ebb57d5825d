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
                          "' is not F1 with tags -nokv, -ro, -together, -kvj, -nolm, -lmro, -lmpad, -konly, -e2, "
                          "-e4, -e2o, -e2in, -aK, -bK, -qK or -wK, then /N../d../br../bc.. and an optional /hH (F1/N512/d128/br64/bc64, "
                          "F1-nokv-w16/N576/d128/br64/bc64/h132)";
  if (parts.size() != 5 && parts.size() != 6) throw UserError(bad);
  Flash1Pattern p;
  p.name = name;
  // F1 then tags, each after a '-': nokv, ro, nolm, lmro and konly change the steps; together, kvj
  // and lmpad only the addresses; e2, e4, e2o and e2in only how many bytes a thread moves at once;
  // aK and bK only where the blocks ran (the SMs say); qK and wK who does which head.
  std::vector<std::string> tags;
  std::stringstream t(parts[0]);
  for (std::string tag; std::getline(t, tag, '-');) tags.push_back(tag);
  if (tags.empty() || tags[0] != "F1" || parts[0].back() == '-') throw UserError(bad);
  for (std::size_t i = 1; i < tags.size(); ++i) {
    const std::string& tag = tags[i];
    const bool counted = tag.size() > 1 && (tag[0] == 'a' || tag[0] == 'b' || tag[0] == 'q' || tag[0] == 'w') &&
                         std::all_of(tag.begin() + 1, tag.end(), [](unsigned char c) { return std::isdigit(c); });
    if (tag == "nokv") p.kv = false;
    else if (tag == "ro") p.write = false;
    else if (tag == "nolm") p.lm = false;
    else if (tag == "lmro") p.lm_write = false;
    else if (tag == "konly") p.read_v = false;
    else if (tag != "together" && tag != "kvj" && tag != "lmpad" && tag != "e2" && tag != "e4" && tag != "e2o" &&
             tag != "e2in" && !counted)
      throw UserError(bad);
    if (counted && (tag[0] == 'q' || tag[0] == 'w')) {
      const std::int64_t k = probe_csv::whole(tag.substr(1), 4096, "blocks", where);
      if (k == 0) throw UserError(bad);
      (tag[0] == 'q' ? p.slices : p.workers) = k;
    }
  }
  std::int64_t* field[] = {&p.n, &p.d, &p.br, &p.bc, &p.heads};
  const char* prefix[] = {"N", "d", "br", "bc", "h"};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const std::string& part = parts[i + 1];
    if (part.rfind(prefix[i], 0) != 0) throw UserError(bad);
    *field[i] = probe_csv::whole(part.substr(std::string(prefix[i]).size()), 1 << 20, prefix[i], where);
    if (*field[i] == 0) throw UserError(bad);
  }
  // Slices and workers need the heads named: the blocks are not one a head.
  if ((p.slices > 1 || p.workers > 0) && p.heads == 0) throw UserError(bad);
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
      const std::int64_t blocks = pattern_blocks(p, p.heads);
      if (p.heads > 0 && static_cast<std::int64_t>(p.sm_of_block.size()) != blocks)
        throw UserError(where + ": sms lists " + std::to_string(p.sm_of_block.size()) + " SMs; " + p.name + " runs " +
                        std::to_string(blocks) + " blocks");
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

std::int64_t pattern_blocks(const Flash1Pattern& p, std::int64_t heads) {
  return p.workers > 0 ? p.workers : heads * p.slices;
}

std::vector<PatternPass> replay_flash1_pattern(const Flash1Pattern& p, const DeviceSpec& device,
                                               const SmLayout& layout, const std::vector<std::int64_t>& sm_of_block) {
  check_probe_layout(device, layout, sm_of_block, p.name);
  const auto given = static_cast<std::int64_t>(sm_of_block.size());
  const std::int64_t heads = p.heads > 0 ? p.heads : given;
  if (pattern_blocks(p, heads) != given)
    throw UserError(p.name + " runs " + std::to_string(pattern_blocks(p, heads)) + " blocks; " +
                    std::to_string(given) + " SMs given");
  // Each block's share of the work: (head, first query row, end row), in order.
  struct Share {
    std::int64_t head, r0, r1;
  };
  std::vector<std::vector<Share>> work(sm_of_block.size());
  for (std::int64_t b = 0; b < given; ++b) {
    if (p.workers > 0) {
      for (std::int64_t h = b; h < heads; h += p.workers) work[b].push_back({h, 0, p.n});
    } else {  // slice s of head h: its share of whole query tiles, as even as they allow
      const std::int64_t h = b / p.slices, s = b % p.slices, tiles = (p.n + p.br - 1) / p.br;
      const std::int64_t t0 = s * tiles / p.slices, t1 = (s + 1) * tiles / p.slices;
      work[b].push_back({h, t0 * p.br, std::min(p.n, t1 * p.br)});
    }
  }
  PartitionedL2 l2(device.l2_bytes, device.l2_partitions, device.sm_count, device.l2_sector_bytes, device.l2_ways);
  l2.set_sm_partitions(layout.half_of_sm);
  const std::int64_t row = p.d * 2;  // fp16
  struct Step {
    TileKey key;
    std::int64_t bytes;
    bool write;
  };
  std::vector<PatternPass> out;
  std::vector<std::vector<Step>> steps(sm_of_block.size());
  for (std::int64_t c0 = 0; c0 < p.n; c0 += p.bc) {
    const std::int64_t cols = std::min(p.bc, p.n - c0);
    std::size_t longest = 0;
    for (std::size_t b = 0; b < work.size(); ++b) {
      std::vector<Step>& to = steps[b];
      to.clear();
      for (const Share& w : work[b]) {
        auto add = [&](TensorId t, std::int64_t r0, std::int64_t rows, std::int64_t bytes, bool write) {
          to.push_back({TileKey{.tensor = t, .bh = w.head, .row0 = r0, .col0 = 0, .rows = rows, .cols = 1}, bytes,
                        write});
        };
        if (p.kv) {
          add(TensorId::K, c0, cols, cols * row, false);
          if (p.read_v) add(TensorId::V, c0, cols, cols * row, false);
        }
        for (std::int64_t r0 = w.r0; r0 < w.r1; r0 += p.br) {
          const std::int64_t rows = std::min(p.br, w.r1 - r0);
          add(TensorId::Q, r0, rows, rows * row, false);
          if (c0 > 0) {
            add(TensorId::O, r0, rows, rows * row, false);
            if (p.lm) {
              add(TensorId::l, r0, rows, rows * 4, false);
              add(TensorId::m, r0, rows, rows * 4, false);
            }
          }
          if (p.write) {
            add(TensorId::O, r0, rows, rows * row, true);
            if (p.lm && p.lm_write) {
              add(TensorId::l, r0, rows, rows * 4, true);
              add(TensorId::m, r0, rows, rows * 4, true);
            }
          }
        }
      }
      longest = std::max(longest, to.size());
    }
    // Lock step: every block in turn does its next step.
    std::int64_t read = 0, written = 0;
    for (std::size_t k = 0; k < longest; ++k)
      for (std::size_t b = 0; b < steps.size(); ++b) {
        if (k >= steps[b].size()) continue;
        const Step& s = steps[b][k];
        const L2Access a = s.write ? l2.write(s.key, s.bytes, sm_of_block[b]) : l2.read(s.key, s.bytes, sm_of_block[b]);
        read += a.miss_bytes;
        written += a.writeback_bytes;
      }
    written += l2.settle();
    out.push_back({static_cast<double>(read) / kMB, static_cast<double>(written) / kMB});
  }
  return out;
}

}  // namespace fasim
