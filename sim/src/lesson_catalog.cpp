// The lessons of a directory: files named NN-slug.md, found by number.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>

#include "fasim/error.hpp"
#include "fasim/lesson.hpp"

namespace fs = std::filesystem;

namespace fasim {
namespace {

// NN of "NN-slug.md", or -1.
int number_of(const std::string& file) {
  if (file.size() < 7 || !std::isdigit(static_cast<unsigned char>(file[0])) ||
      !std::isdigit(static_cast<unsigned char>(file[1])) || file[2] != '-' || !file.ends_with(".md"))
    return -1;
  return std::stoi(file.substr(0, 2));
}

// Lesson files by number; two with one number is an error.
std::map<int, std::string> lesson_files(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw UserError("no lessons directory at '" + dir + "'; pass --lessons DIR or set FASIM_LESSONS");
  std::map<int, std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    const int n = number_of(name);
    if (n < 0 || !e.is_regular_file()) continue;
    if (auto [it, fresh] = files.emplace(n, e.path().string()); !fresh)
      throw UserError("two lessons share the number " + std::to_string(n) + ": '" + it->second + "' and '" +
                      e.path().string() + "'; renumber one");
  }
  return files;
}

std::string two_digits(int n) { return (n < 10 ? "0" : "") + std::to_string(n); }

}  // namespace

std::vector<LessonEntry> list_lessons(const std::string& dir) {
  std::vector<LessonEntry> out;
  for (const auto& [n, path] : lesson_files(dir)) {
    const Lesson L = load_lesson(path);
    out.push_back({n, path, L.title, L.summary()});
  }
  return out;
}

std::string find_lesson(const std::string& dir, int number) {
  const auto files = lesson_files(dir);
  if (auto it = files.find(number); it != files.end()) return it->second;
  std::string have;
  for (const auto& [n, path] : files) have += (have.empty() ? "" : ", ") + two_digits(n);
  throw UserError("no lesson " + std::to_string(number) + " in '" + dir + "'" +
                  (have.empty() ? "" : " (there are " + have + ")") + "; run 'fasim lesson' to list them");
}

}  // namespace fasim
