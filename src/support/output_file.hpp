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
//                              block device, a symbolic link to a regular file or to nothing, a
//                              file the command reads or another of its outputs (protect_input).
// A temporary file never outlives its OutputFile, nor the process when SIGINT, SIGTERM, SIGHUP or
// SIGQUIT ends it (support/signals.hpp).
#include <optional>
#include <string>
#include <string_view>

#include "support/signals.hpp"

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
  std::optional<RemovedOnSignal> removed_on_signal_;  ///< the temporary, until commit()
  bool committed_ = false;
};

/// Throws the BadInput that OutputFile(option, path) would throw, without creating anything: for
/// checking an output path before a long computation.
void check_output_path(const std::string& option, const std::string& path);

/// Marks `path` as a file the command reads (`what` names it in messages: "the model file"): no
/// OutputFile may replace it. Outputs are also refused when they name another output still open
/// (--out and --summary the same file). Files are compared by device and inode where they exist,
/// by their resolved paths where they do not.
void protect_input(const std::string& what, const std::string& path);

/// Writes `content` to `path` as an OutputFile and commits it.
void write_file(const std::string& option, const std::string& path, std::string_view content);

/// A directory for outputs (--out-dir): an existing directory, or one created with its parents.
/// Throws BadInput naming the option and the path if it is empty, a file, or cannot be created.
void prepare_directory(const std::string& option, const std::string& path);

}  // namespace dalembert::support
