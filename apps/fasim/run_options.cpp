#include "run_options.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <string_view>
#include <type_traits>
#include <vector>

#include "fasim/error.hpp"
#include "fasim/scenario.hpp"
#include "fasim/tiling.hpp"

namespace fasim::cli {

void add_run_flags(CLI::App& app, RunFlags& f) {
  f.app = &app;
  const CLI::Validator integer = whole_number<std::int64_t>();
  app.add_option("--algo", f.algo, "Algorithm: one of " + std::string(kAlgoNames) + " (default flash2)");
  app.add_option("--N", f.N, "Sequence length N (default 1024)")->check(integer);
  app.add_option("--d", f.d, "Head dimension d (default 64)")->check(integer);
  app.add_option("--batch", f.batch, "Batch size (default 1)")->check(integer);
  app.add_option("--heads", f.heads, "Heads (default 1)")->check(integer);
  app.add_option("--dtype", f.dtype, "Storage type: fp32 | fp16 | bf16 (default fp16)");
  app.add_option("--br", f.br,
                 "Br, query rows per tile (default: Bc if --bc is given; else the largest power of two <= 128 that fits, at most the query rows rounded up to a power of two; flash1: the paper's min(Bc, d))")
      ->check(integer);
  app.add_option("--bc", f.bc,
                 "Bc, key/value rows per tile (default: Br if --br is given; else as Br's default, with the keys in place of N; flash1: the paper's ceil(M / 4d), at most the keys rounded up to a power of two)")
      ->check(integer);
  app.add_option("--device", f.device, "Device name (see `fasim devices`) or path to a .toml (default h100)");
  app.add_option("--scenario", f.scenario, "TOML file with the same settings; flags override it");
  app.add_option("--seed", f.seed, "Seed of the random inputs (default 1)")->check(whole_number<std::uint64_t>());
  app.add_option("--input-scale", f.input_scale,
                 "Standard deviation of the random inputs, one for all or Q,K,V (default 1): large ones show "
                 "where fp16, bf16 and fp32 overflow")
      ->delimiter(',');
  app.add_flag("--no-numerics", f.no_numerics, "Count bytes and FLOPs only; compute no values (for large shapes)");
  app.add_option("--l2", f.l2, "L2 at the start: cold (empty) | warm (holding Q, K, V) (default cold)");
  app.add_flag("--double-buffer", f.double_buffer, "Load the next tile while computing this one (K and V; naive also S and P chunks); SRAM holds both copies");
  app.add_option("--blocks-per-sm", f.blocks_per_sm,
                 "At most this many thread blocks on one SM at once (default: as many as fit); on the GPU, kept by "
                 "asking for more shared memory per block")
      ->check(integer);
  app.add_option("--row", f.row, "Row whose running max m and sum l steps show (default 0)")->check(integer);
  app.add_option("--kv-heads", f.kv_heads, "K/V heads: fewer than --heads is GQA, 1 is MQA (default: --heads)")
      ->check(integer);
  app.add_option("--N-kv", f.N_kv, "Key length N_kv, e.g. the KV cache of a decode step (default: --N)")
      ->check(integer);
  app.add_flag("--causal", f.causal, "Causal mask: query i sees keys j <= i + N_kv - N");
  app.add_option("--window", f.window, "Sliding window W: query i sees the W keys ending at its diagonal (implies --causal)")
      ->check(integer);
  app.add_option("--page-size", f.page_size, "Paged KV cache: K/V rows per page, scattered by a block table (default 0: contiguous)")
      ->check(integer);
  app.add_option("--splits", f.splits, "decode: key chunks per query block (default: enough blocks for every SM)")
      ->check(integer);
}

namespace {

// A setting the scenario file gave and no flag replaced: the flag that would
// set it, and the file's key that did.
struct FromFile {
  std::string_view flag;  // "--row"
  std::string_view key;   // "[run] row"
};

bool flag_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_'; }

// The simulator's checks name flags ("--row 99999 is outside 0..1023; ...").
// A value that came from the scenario file is named as the file names it,
// and the file first: "x.toml: [run] row = 99999 is outside 0..1023; ...".
// Flags the user typed, and flags of settings the file did not give, stay.
std::string name_file_values(const std::string& msg, const std::vector<FromFile>& from, const std::string& path) {
  std::string out;
  bool renamed = false;
  for (std::size_t i = 0; i < msg.size();) {
    const FromFile* hit = nullptr;
    if (msg.compare(i, 2, "--") == 0 && (i == 0 || !flag_char(msg[i - 1])))
      for (const FromFile& x : from)
        if (msg.compare(i, x.flag.size(), x.flag) == 0 &&
            (i + x.flag.size() == msg.size() || !flag_char(msg[i + x.flag.size()]))) {
          hit = &x;
          break;
        }
    if (hit == nullptr) {
      out += msg[i++];
      continue;
    }
    renamed = true;
    out += hit->key;
    i += hit->flag.size();
    std::size_t end = i + 1;  // "--row 99999" -> "[run] row = 99999"
    while (end < msg.size() && std::isdigit(static_cast<unsigned char>(msg[end]))) ++end;
    if (i < msg.size() && msg[i] == ' ' && end > i + 1) {
      out += " = " + msg.substr(i + 1, end - i - 1);
      i = end;
    }
  }
  return renamed ? path + ": " + out : msg;
}

}  // namespace

RunConfig resolve(const RunFlags& f) {
  Scenario sc;
  if (f.given("--scenario")) sc = load_scenario(f.scenario);
  // Which settings the file gave and no flag replaced, so that a check of
  // them names the file's key, not a flag the user never typed.
  std::vector<FromFile> from_file;
  auto from = [&](std::string_view flag, std::string_view key, bool in_file) {
    if (in_file && !f.given(std::string(flag))) from_file.push_back({flag, key});
  };
  // (Each pick below notes its own; Br and Bc are merged by hand.)
  auto checked = [&](auto&& check) {
    try {
      check();
    } catch (const UserError& e) {
      throw UserError(name_file_values(e.what(), from_file, f.scenario));
    }
  };

  RunConfig c;
  c.title = sc.title;
  std::string device = f.given("--device") ? f.device : sc.device.value_or("h100");
  c.device = load_device(device);

  Workload& w = c.workload;
  Mapping& m = c.mapping;
  apply_scenario(sc, w, m, c.options);  // then the flags on top
  // A flag given wins over the file; a value the file gave and no flag
  // replaced is remembered by its key (from_file).
  auto pick = [&](std::string_view flag, std::string_view key, bool in_file, std::int64_t flag_value,
                  std::int64_t& field) {
    if (f.given(std::string(flag))) field = flag_value;
    else from(flag, key, in_file);
  };
  pick("--batch", "[workload] batch", sc.batch.has_value(), f.batch, w.batch);
  pick("--heads", "[workload] heads", sc.heads.has_value(), f.heads, w.heads);
  pick("--N", "[workload] N", sc.N.has_value(), f.N, w.N);
  pick("--d", "[workload] d", sc.d.has_value(), f.d, w.d);
  pick("--kv-heads", "[workload] kv_heads", sc.kv_heads.has_value(), f.kv_heads, w.kv_heads);
  pick("--N-kv", "[workload] N_kv", sc.N_kv.has_value(), f.N_kv, w.N_kv);
  w.causal = w.causal || f.causal;
  pick("--window", "[workload] window", sc.window.has_value(), f.window, w.window);
  pick("--page-size", "[workload] page_size", sc.page_size.has_value(), f.page_size, w.page_size);
  // Flags are checked as given (the scenario reader checks its own keys).
  // 0 means "as heads" / "as N" inside a Workload, but a flag must say a number.
  if (f.given("--kv-heads") && f.kv_heads <= 0)
    throw UserError("--kv-heads must be a positive integer, got " + std::to_string(f.kv_heads) +
                    "; pass e.g. --kv-heads 1, or leave it out for as many as --heads");
  if (f.given("--N-kv") && f.N_kv <= 0)
    throw UserError("--N-kv must be a positive integer, got " + std::to_string(f.N_kv) +
                    "; pass e.g. --N-kv 4096, or leave it out for as many as --N");
  if (f.given("--dtype")) {
    auto t = parse_dtype(f.dtype);
    if (!t) throw UserError("unknown dtype '" + f.dtype + "'; use --dtype fp32, fp16 or bf16");
    w.dtype = *t;
  }
  if (f.given("--algo")) {
    auto a = parse_algo(f.algo);
    if (!a) throw UserError("unknown algorithm '" + f.algo + "'; use --algo with one of " + std::string(kAlgoNames));
    m.algo = *a;
  }

  // Tiles: given Br and/or Bc win; a missing one takes the default square tile
  // (or the other one's value).
  std::optional<std::int64_t> br = f.given("--br") ? std::optional(f.br) : sc.br;
  std::optional<std::int64_t> bc = f.given("--bc") ? std::optional(f.bc) : sc.bc;
  from("--br", "[mapping] br", sc.br.has_value());
  from("--bc", "[mapping] bc", sc.bc.has_value());
  square_lone_tile(br, bc);
  m.double_buffer = m.double_buffer || f.double_buffer;
  pick("--splits", "[mapping] splits", sc.splits.has_value(), f.splits, m.splits);
  if (f.given("--blocks-per-sm") && f.blocks_per_sm <= 0)
    throw UserError("--blocks-per-sm must be a positive integer, got " + std::to_string(f.blocks_per_sm) +
                    "; pass e.g. --blocks-per-sm 1, or leave it out for as many blocks as fit");
  pick("--blocks-per-sm", "[mapping] blocks_per_sm", sc.blocks_per_sm.has_value(), f.blocks_per_sm, m.blocks_per_sm);
  checked([&] { validate_workload(w); });  // before choosing tiles, so a bad N or d is named as such
  // After double_buffer: its second K/V buffers must fit beside the tiles.
  if (br) {
    m.br = *br;
    m.bc = *bc;
  } else {
    checked([&] { m = default_tiles(m, w, c.device); });
  }
  if (f.given("--l2")) {
    if (f.l2 != "cold" && f.l2 != "warm")
      throw UserError("unknown L2 start '" + f.l2 + "'; use --l2 cold or --l2 warm");
    c.options.l2 = f.l2 == "warm" ? L2Start::warm : L2Start::cold;
  }
  c.options.numerics = c.options.numerics && !f.no_numerics;
  if (f.given("--seed")) c.options.seed = f.seed;
  if (f.given("--input-scale")) {
    const std::vector<float>& s = f.input_scale;
    const bool good = (s.size() == 1 || s.size() == 3) &&
                      std::all_of(s.begin(), s.end(), [](float x) { return std::isfinite(x) && x > 0; });
    if (!good)
      throw UserError("--input-scale takes one positive number or three (Q,K,V); write e.g. --input-scale 300 or "
                      "--input-scale 1,1,1e30");
    c.options.scale = s.size() == 1 ? InputScale{s[0], s[0], s[0]} : InputScale{s[0], s[1], s[2]};
  }
  pick("--row", "[run] row", sc.row.has_value(), f.row, c.options.watch.row);
  // The checks that need no device, here, where the source of each value is
  // known (the Simulation checks them all again, with the device).
  checked([&] {
    validate_mapping(w, m);
    validate_watched_row(w, c.options.watch.row);
  });
  return c;
}

}  // namespace fasim::cli
