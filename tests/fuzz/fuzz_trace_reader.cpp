// libFuzzer target: a trace file (read_trace) in any of its three formats.
// The bytes go through a file because read_trace reads a path, as
// `fasim trace` does. Either it reads back into records, or it is one
// UserError line.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fasim/trace_reader.hpp"
#include "fuzz_check.hpp"

namespace {

// One scratch file per process, removed at exit (a plain array: it outlives
// every static destructor, so the exit handler may still read it).
char g_path[512];

const char* scratch_path() {
  if (g_path[0] == 0) {
    const char* dir = std::getenv("TMPDIR");
    std::snprintf(g_path, sizeof g_path, "%s/fasim-fuzz-trace-%d", dir && *dir ? dir : "/tmp",
                  static_cast<int>(::getpid()));
    std::atexit([] { std::remove(g_path); });
  }
  return g_path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = scratch_path();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  fasim::fuzz::require(f != nullptr, "the scratch file can be written");
  if (size > 0) std::fwrite(data, 1, size, f);
  std::fclose(f);
  try {
    const std::vector<fasim::TraceRecord> records = fasim::read_trace(path);
    for (std::size_t i = 0; i < records.size(); ++i)
      fasim::fuzz::require(!records[i].kind.empty() && !records[i].tensor.empty(), "a record has a kind and a tensor");
  } catch (const fasim::UserError& e) {
    fasim::fuzz::check_one_line(e.what());
  }
  return 0;
}
