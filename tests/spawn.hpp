#pragma once
// Running the built executable without a shell (the security and fuzz tests pass payloads with
// quotes, semicolons and newlines as single arguments): posix_spawn with an argument vector,
// extra environment variables, a working directory, a time limit, a signal sent after a delay,
// stdout/stderr captured and the peak resident memory measured.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_files.hpp"

extern char** environ;

namespace spawn_test {

namespace fs = std::filesystem;

struct Outcome {
  bool started = false;
  int status = -1;         ///< exit status; -1 if killed by a signal or not started
  int signal = 0;          ///< the signal that ended it
  bool timed_out = false;  ///< killed after the time limit
  double seconds = 0.0;
  long max_resident_kb = 0;  ///< peak resident memory of the process (getrusage's ru_maxrss)
  std::string out, err;
};

inline std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// Where a process's output goes: a directory of this test process.
inline fs::path capture_directory() { return test_files::process_directory("dalembert_spawn"); }

/// A fresh, empty directory `name` for one test, under a directory of this process named after the
/// test file's `suite` ("security", "run_outputs"), removed when the process ends.
inline fs::path fresh_directory(const std::string& suite, const std::string& name) {
  const fs::path d = test_files::process_directory("dalembert_" + suite) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

struct Options {
  std::vector<std::string> environment;  ///< NAME=value, added to (or replacing in) this process's environment
  std::vector<std::string> unset;        ///< names removed from the environment
  std::string directory;                 ///< working directory (empty: this process's)
  double timeout_seconds = 120.0;
  int signal_after_ms = -1;              ///< send `signal_to_send` this long after the start
  int signal_to_send = SIGTERM;
  std::string stdout_path;               ///< where standard output goes (empty: captured in Outcome::out)
};

/// Runs argv[0] (a path) with the arguments argv[1..].
inline Outcome run(const std::vector<std::string>& argv, const Options& options = {}) {
  static int counter = 0;
  const int id = counter++;
  const fs::path out = capture_directory() / ("out" + std::to_string(id));
  const fs::path err = capture_directory() / ("err" + std::to_string(id));

  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& u : options.unset) replaced |= u == name;
    for (const auto& o : options.environment) replaced |= o.substr(0, o.find('=')) == name;
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), options.environment.begin(), options.environment.end());
  std::vector<char*> envp, args;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_copy = argv;
  for (auto& a : argv_copy) args.push_back(a.data());
  args.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (options.stdout_path.empty())
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  else
    posix_spawn_file_actions_addopen(&actions, 1, options.stdout_path.c_str(), O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!options.directory.empty()) posix_spawn_file_actions_addchdir_np(&actions, options.directory.c_str());
  Outcome o;
  pid_t pid = 0;
  const auto start = std::chrono::steady_clock::now();
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return o;
  o.started = true;
  bool signalled = false;
  int status = 0;
  struct rusage usage {};
  for (;;) {
    const pid_t done = ::wait4(pid, &status, WNOHANG, &usage);
    if (done == pid) {
      o.max_resident_kb = usage.ru_maxrss;
      break;
    }
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!signalled && options.signal_after_ms >= 0 && elapsed * 1000 >= options.signal_after_ms) {
      ::kill(pid, options.signal_to_send);
      signalled = true;
    }
    if (elapsed > options.timeout_seconds) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      o.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (WIFEXITED(status)) o.status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
  o.out = slurp(out);
  o.err = slurp(err);
  fs::remove(out);
  fs::remove(err);
  return o;
}

/// The lines of `text`, without their newlines.
inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

#ifdef DALEMBERT_EXECUTABLE
/// The built `dalembert` with `args`, without a shell.
inline Outcome dalembert(const std::vector<std::string>& args, const Options& options = {}) {
  std::vector<std::string> argv{DALEMBERT_EXECUTABLE};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(argv, options);
}
#endif

}  // namespace spawn_test
