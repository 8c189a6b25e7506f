#pragma once
// Progress of long work on standard error: one line updated in place with the percentage done, the
// rate and the time left; on by default when standard error is a terminal, forced by --progress,
// off with --quiet.
#include <chrono>
#include <span>
#include <string>
#include <vector>

#include "dalembert/io/trajectory.hpp"

namespace dalembert::cli {

/// Whether to show progress: `forced` (--progress) shows it, `quiet` (--quiet) hides it, and
/// otherwise it is shown when standard error is a terminal.
bool show_progress(bool forced, bool quiet);

class ProgressLine {
 public:
  /// `total` units of `unit` ("steps", "runs"); a disabled line prints nothing.
  ProgressLine(std::string unit, long total, bool enabled);
  ~ProgressLine() { finish(); }
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  /// `done` units are done; prints at most four times a second.
  void update(long done);
  /// Prints `done` and ends the line (if anything was printed), so that messages follow on their own line.
  void finish(long done);
  void finish();

 private:
  void print(long done, double seconds);
  std::string unit_;
  long total_;
  bool enabled_;
  bool printed_ = false, finished_ = false;
  std::size_t width_ = 0;
  std::chrono::steady_clock::time_point start_, last_;
};

/// A RowSink that passes the rows on to another and reports their step on a ProgressLine.
class RowsWithProgress final : public RowSink {
 public:
  RowsWithProgress(RowSink& rows, ProgressLine& line) : rows_(rows), line_(line) {}
  void begin(const std::vector<std::string>& columns) override { rows_.begin(columns); }
  void row(long k, std::span<const double> values) override {
    rows_.row(k, values);
    line_.update(k);
  }

 private:
  RowSink& rows_;
  ProgressLine& line_;
};

}  // namespace dalembert::cli
