#include "modelfile/shapes.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <mutex>
#include <utility>

#include "support/process.hpp"

namespace dalembert::modelfile {

namespace fs = std::filesystem;

namespace {

std::string target_name(int n, int m) { return "dalembert_shape_" + std::to_string(n) + "_" + std::to_string(m); }

std::string shape_words(int n, int m) {
  return std::to_string(n) + (n == 1 ? " coordinate and " : " coordinates and ") + std::to_string(m) +
         (m == 1 ? " constraint" : " constraints");
}

/// Holds an exclusive lock on a file while it lives: concurrent dalembert processes (ensemble
/// ranks, parallel tests) must not run the build tool in one build tree at the same time.
class FileLock {
 public:
  explicit FileLock(const std::string& path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
    if (fd_ >= 0) ::flock(fd_, LOCK_EX);
  }
  ~FileLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the lock
  }
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;

 private:
  int fd_;
};

/// Brings the module up to date with the build tree this executable was configured in; returns
/// why not, empty on success.
std::string build_module(int n, int m, const std::string& module) {
  const std::string build_tree = DALEMBERT_BINARY_DIR;
  if (!fs::exists(build_tree + "/CMakeCache.txt")) return "the build tree " + build_tree + " is gone";
  std::error_code error;
  fs::create_directories(fs::path(module).parent_path(), error);
  const FileLock lock(fs::path(module).parent_path() / ".build-lock");
  if (!fs::exists(module))
    std::cerr << "dalembert: compiling the methods for model files with " << shape_words(n, m)
              << ", once (up to a few minutes)..." << std::endl;
  const auto result = support::run_process({DALEMBERT_CMAKE_COMMAND, "--build", build_tree, "--target", target_name(n, m)});
  if (result.started && result.status == 0) return "";
  const std::string& output = result.output;
  const std::size_t tail = output.size() > 600 ? output.size() - 600 : 0;
  return "building it failed (status " + std::to_string(result.status) + "): " + output.substr(tail);
}

FileModelRunner load_module(int n, int m) {
  const std::string directory_override = support::environment("DALEMBERT_SHAPE_DIR");
  const std::string directory = directory_override.empty() ? DALEMBERT_SHAPE_DIRECTORY : directory_override;
  const std::string module = directory + "/" + target_name(n, m) + ".so";
  const std::string how_to_build = "; build it with `cmake --build " + std::string(DALEMBERT_BINARY_DIR) +
                                   " --target " + target_name(n, m) + "` (or build everything)";
  std::string problem;
  if (directory_override.empty()) problem = build_module(n, m, module);
  void* handle = dlopen(module.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    throw BadInput("model files with " + shape_words(n, m) + " need the module " + target_name(n, m) + " (" +
                   (problem.empty() ? std::string(dlerror()) : problem) + ")" + how_to_build);
  if (!problem.empty())
    std::cerr << "dalembert: warning: could not bring " << module << " up to date (" << problem
              << "); using it as it is" << std::endl;
  const auto* exported = static_cast<const ShapeModule*>(dlsym(handle, "dalembert_shape_module"));
  if (!exported || exported->n != n || exported->m != m ||
      !std::equal(std::begin(shape_boundary_sizes), std::end(shape_boundary_sizes), exported->boundary_sizes)) {
    dlclose(handle);
    throw BadInput("the module " + module + " was built for another shape or from other sources than this dalembert" +
                   how_to_build);
  }
  return exported->run;  // the module stays loaded for the life of the process
}

}  // namespace

FileModelRunner shape_runner(const ModelSpec& spec) {
  const int n = spec.n(), m = spec.m();
  if (n > max_coordinates)
    throw ModelFileError(spec.path, spec.coordinates_line,
                         "the model has " + std::to_string(n) + " coordinates, but this build of dalembert runs "
                         "model files with at most " + std::to_string(max_coordinates) +
                         " (configure with -DDALEMBERT_MODEL_FILE_MAX_COORDINATES=" + std::to_string(n) + ")");
  static std::mutex mutex;
  static std::map<std::pair<int, int>, FileModelRunner> loaded;
  const std::lock_guard lock(mutex);
  if (const auto it = loaded.find({n, m}); it != loaded.end()) return it->second;
  return loaded.emplace(std::pair{n, m}, load_module(n, m)).first->second;
}

}  // namespace dalembert::modelfile
