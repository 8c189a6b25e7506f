#pragma once
// Child processes without a shell: the program and its arguments are passed as a vector to
// posix_spawnp, so no character of a path, a file name or an option value is ever interpreted
// (docs/security.md). Used for the C compiler of model files and for the plotting script.
// Each child leads a process group of its own, which is killed as a whole (a compiler's driver
// with its cc1, as and ld) when dalembert is ended by a signal or asked to stop (support/signals.hpp).
#include <string>
#include <utility>
#include <vector>

namespace dalembert::support {

struct ProcessOptions {
  std::size_t limit = 8000;       ///< bytes of output kept
  int working_directory = -1;     ///< a directory descriptor to run in; -1: this process's directory
  std::vector<std::pair<std::string, std::string>> environment;  ///< variables set for the child
};

struct ProcessResult {
  bool started = false;  ///< false: the program was not found or could not be started
  int status = -1;       ///< exit status; -1 if it did not exit normally
  int signal = 0;        ///< the signal that ended it, if one did
  int stopped = 0;       ///< the signal that asked dalembert to stop (stop_requested()): the child was killed
  std::string output;    ///< standard output and standard error together (the first `limit` bytes)
};

/// Runs `argv[0]` (looked up on PATH when it has no '/') with the arguments `argv[1..]` and waits
/// for it, or, if dalembert is asked to stop meanwhile, kills it. Its standard input is /dev/null;
/// its standard output and error are captured.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

/// Whether `program` would be found and could be started by run_process: a regular executable file
/// at its path, or when it has no '/' in a folder of PATH (where posix_spawnp looks).
bool found_on_path(const std::string& program);

/// A command given as one string in an environment variable (DALEMBERT_CC="ccache cc"), split at
/// spaces and tabs into a program and its arguments; no quoting, no expansion, no shell.
std::vector<std::string> split_command(const std::string& command);

/// The value of an environment variable, empty if unset.
std::string environment(const char* name);

}  // namespace dalembert::support
