#pragma once
// Where a test process writes files: directories under the system's temporary directory, named after
// the process and removed with their contents when it ends, so that test runs leave nothing behind.
#include <filesystem>
#include <map>
#include <string>
#include <system_error>
#include <unistd.h>

namespace test_files {

/// The directory `prefix`_<pid> of this process: created on first use, removed at exit.
inline const std::filesystem::path& process_directory(const std::string& prefix) {
  struct RemovedAtExit {
    std::filesystem::path path;
    ~RemovedAtExit() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static std::map<std::string, RemovedAtExit> directories;
  auto [entry, added] = directories.try_emplace(prefix);
  if (added) {
    entry->second.path = std::filesystem::temp_directory_path() / (prefix + "_" + std::to_string(::getpid()));
    std::filesystem::create_directories(entry->second.path);
  }
  return entry->second.path;
}

}  // namespace test_files
