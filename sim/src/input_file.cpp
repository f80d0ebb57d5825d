#include "fasim/input_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <system_error>

#include "fasim/error.hpp"

namespace fasim {

std::string read_input_file(const std::string& path, std::string_view what, std::string_view fix) {
  auto fail = [&](const std::string& reason) -> UserError {
    return UserError("cannot read " + std::string(what) + " '" + path + "': " + reason + "; " + std::string(fix));
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw fail("it is a directory");
  errno = 0;
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f) throw fail(std::strerror(errno != 0 ? errno : ENOENT));
  std::string text;
  char buf[1 << 16];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f.get())) > 0) text.append(buf, n);
  if (std::ferror(f.get())) throw fail(std::strerror(errno != 0 ? errno : EIO));
  return text;
}

}  // namespace fasim
