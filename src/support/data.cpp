#include "support/data.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "support/process.hpp"

namespace dalembert::support {

namespace fs = std::filesystem;

namespace {

/// The folder of the executable or shared library this function is compiled into. For the
/// executable the loader gives argv[0], which may be a bare name found on PATH: the kernel's
/// /proc/self/exe says where it is.
fs::path folder_of_this_binary() {
  Dl_info info{};
  if (::dladdr(reinterpret_cast<const void*>(&folder_of_this_binary), &info) == 0 || !info.dli_fname) return {};
  const std::string name = info.dli_fname;
  std::error_code error;
  const fs::path binary = fs::canonical(name.find('/') == std::string::npos ? "/proc/self/exe" : name, error);
  return error ? fs::path() : binary.parent_path();
}

}  // namespace

std::vector<std::string> data_directories() {
  std::vector<fs::path> candidates;
  if (const auto dir = environment("DALEMBERT_DATA_DIR"); !dir.empty()) candidates.emplace_back(dir);
  if (const fs::path d = folder_of_this_binary(); !d.empty()) {
    candidates.push_back(d.parent_path() / "share" / "dalembert");
    candidates.push_back(d / "share" / "dalembert");
    candidates.push_back(d / "data");
  }
  std::vector<std::string> out;
  for (const auto& c : candidates) {
    std::error_code error;
    if (fs::is_directory(c, error)) out.push_back(c.lexically_normal().string());
  }
  return out;
}

std::optional<std::string> find_data_file(const std::string& relative) {
  for (const auto& dir : data_directories()) {
    std::error_code error;
    const fs::path p = fs::path(dir) / relative;
    if (fs::is_regular_file(p, error)) return p.string();
  }
  return std::nullopt;
}

std::vector<NamedModelFile> named_model_files() {
  std::vector<std::string> folders = {"models"};
  for (const auto& dir : data_directories()) folders.push_back((fs::path(dir) / "models").string());
  std::vector<NamedModelFile> found;
  std::set<std::string> names;
  for (const auto& folder : folders) {
    std::vector<NamedModelFile> here;
    std::error_code error;
    for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error))
      if (it->path().extension() == ".toml" && it->is_regular_file(error) && !names.count(it->path().stem().string()))
        here.push_back({it->path().stem().string(), it->path().string()});
    std::sort(here.begin(), here.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    for (auto& f : here) {
      names.insert(f.name);
      found.push_back(std::move(f));
    }
  }
  return found;
}

}  // namespace dalembert::support
