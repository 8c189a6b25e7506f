#pragma once
// Writing the files a user names (--out, --summary, and the tables and figures under --out-dir).
// What is written where (docs/decisions.md, "Output paths"):
//   absent or a regular file   written atomically: a new file with an unpredictable name in the
//                              same directory (created with O_EXCL | O_NOFOLLOW, so a planted
//                              link is never followed), renamed over the target by commit();
//   "-"                        standard output;
//   a character device, a FIFO written straight through (/dev/null, /dev/stdout on a pipe or a
//                              terminal, a named pipe): never replaced by a regular file;
//   anything else              refused (BadInput naming the option and the path): a directory, a
//                              block device, a symbolic link to a regular file or to nothing.
// A temporary file never outlives its OutputFile, nor the process when SIGINT, SIGTERM, SIGHUP or
// SIGQUIT ends it. While a StopOnSignal lives, SIGINT and SIGTERM ask the run to stop instead.
#include <signal.h>
#include <sys/types.h>

#include <array>
#include <atomic>
#include <string>
#include <string_view>

namespace dalembert::support {

class OutputFile {
 public:
  /// Opens `path` for writing; `option` ("--out") names the value in messages. Throws BadInput.
  OutputFile(const std::string& option, const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// Appends bytes; throws BadInput naming the path if they cannot be written (disk full).
  void write(std::string_view bytes);
  /// Makes what was written visible under the target's name. Without commit() nothing replaces
  /// the target (a straight-through target keeps what was written).
  void commit();

  const std::string& path() const { return path_; }

 private:
  std::string option_, path_, temporary_;
  int fd_ = -1;
  int cleanup_slot_ = -1;
  bool committed_ = false;
};

/// While a StopOnSignal lives, SIGINT and SIGTERM do not end the process: the first one is recorded
/// in requested() (a run reads it through RunOptions::stop and ends after its current step, its
/// outputs complete), and a second one ends the process as before, temporaries removed. Handlers an
/// embedding program installed are left alone. One at a time.
class StopOnSignal {
 public:
  StopOnSignal();
  ~StopOnSignal();  ///< restores the previous handlers
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;

  /// 0, or the number of the first signal received.
  const std::atomic<int>& requested() const;

 private:
  std::array<struct sigaction, 2> previous_{};
  std::array<bool, 2> installed_{};
};

/// While it lives, `path` is removed if SIGINT, SIGTERM, SIGHUP or SIGQUIT ends the process, as an
/// OutputFile's temporary is: for a file a computation creates and removes itself (a model's
/// generated source and library while they compile). It does not remove the file otherwise.
class RemovedOnSignal {
 public:
  explicit RemovedOnSignal(const std::string& path);
  ~RemovedOnSignal();
  RemovedOnSignal(const RemovedOnSignal&) = delete;
  RemovedOnSignal& operator=(const RemovedOnSignal&) = delete;

 private:
  int slot_ = -1;
};

/// While it lives, the child process `child` is sent SIGTERM if one of those signals ends this
/// process, so that it does not go on alone (run_process: a model's compiler).
class EndedOnSignal {
 public:
  explicit EndedOnSignal(pid_t child);
  ~EndedOnSignal();
  EndedOnSignal(const EndedOnSignal&) = delete;
  EndedOnSignal& operator=(const EndedOnSignal&) = delete;

 private:
  int slot_ = -1;
};

/// Throws the BadInput that OutputFile(option, path) would throw, without creating anything: for
/// checking an output path before a long computation.
void check_output_path(const std::string& option, const std::string& path);

/// Writes `content` to `path` as an OutputFile and commits it.
void write_file(const std::string& option, const std::string& path, std::string_view content);

/// A directory for outputs (--out-dir): an existing directory, or one created with its parents.
/// Throws BadInput naming the option and the path if it is empty, a file, or cannot be created.
void prepare_directory(const std::string& option, const std::string& path);

}  // namespace dalembert::support
