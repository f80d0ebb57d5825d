#include "fasim/input_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <system_error>

#include "fasim/error.hpp"

namespace fasim {

std::string read_input_file(const std::string& path, std::string_view what, std::string_view fix) {
  auto fail = [&](const std::string& reason) -> UserError {
    return UserError("cannot read " + std::string(what) + " '" + path + "': " + reason + "; " + std::string(fix));
  };
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (std::filesystem::is_directory(st)) throw fail("it is a directory");
  // /dev/zero would be read until memory runs out, a FIFO would block: only
  // a plain file (or a link to one) is an input. A missing path falls
  // through to fopen, which names the reason.
  if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st))
    throw fail("it is not a regular file (a device, FIFO or socket)");
  const std::string too_large =
      "it is larger than " + std::to_string(kMaxInputFileBytes >> 20) + " MiB, more than any input fasim reads";
  if (std::filesystem::is_regular_file(st) && std::filesystem::file_size(path, ec) > kMaxInputFileBytes && !ec)
    throw fail(too_large);
  errno = 0;
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw fail(std::strerror(errno != 0 ? errno : ENOENT));
  std::string text;
  char buf[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) {
    text.append(buf, n);
    if (text.size() > kMaxInputFileBytes) throw fail(too_large);  // it grew while being read
  }
  if (std::ferror(f.get())) throw fail(std::strerror(errno != 0 ? errno : EIO));
  // A UTF-8 byte order mark, which some editors and spreadsheets put first,
  // is not part of the text: without this, a CSV's header would not match.
  if (text.starts_with(kUtf8Bom)) text.erase(0, kUtf8Bom.size());
  return text;
}

}  // namespace fasim
