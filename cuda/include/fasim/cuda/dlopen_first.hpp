// Opens the first shared library of a list that dlopen can load. fasim opens
// CUPTI and cuBLAS this way instead of linking them, so that the commands that
// never use them start fast and small.
#pragma once

#include <dlfcn.h>

#include <string>
#include <vector>

namespace fasim::cuda {

/// @brief What dlopen_first found.
struct OpenedLibrary {
  void* handle = nullptr;  ///< the library, or null if no path opened
  std::string tried;       ///< the paths tried, comma separated (all of them when none opened)
  std::string last_error;  ///< dlerror() of the last path that failed
};

/// @brief dlopen(path, flags) on each of `paths` in order, empty ones skipped,
/// until one opens.
inline OpenedLibrary dlopen_first(const std::vector<std::string>& paths, int flags) {
  OpenedLibrary out;
  for (const std::string& path : paths) {
    if (path.empty()) continue;
    out.handle = dlopen(path.c_str(), flags);
    if (out.handle != nullptr) break;
    out.tried += (out.tried.empty() ? "" : ", ") + path;
    if (const char* e = dlerror()) out.last_error = e;
  }
  return out;
}

}  // namespace fasim::cuda
