#include "cli/progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <utility>

namespace dalembert::cli {

bool show_progress(bool forced, bool quiet) {
  if (quiet) return false;
  return forced || ::isatty(STDERR_FILENO) == 1;
}

ProgressLine::ProgressLine(std::string unit, long total, bool enabled)
    : unit_(std::move(unit)), total_(total), enabled_(enabled && total > 0),
      start_(std::chrono::steady_clock::now()), last_(start_) {}

void ProgressLine::finish(long done) {
  if (enabled_ && !finished_ && printed_)
    print(done, std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
  finish();
}

void ProgressLine::finish() {
  if (printed_ && !finished_) std::cerr << '\n' << std::flush;
  finished_ = true;
}

void ProgressLine::update(long done) {
  if (!enabled_ || finished_) return;
  const auto now = std::chrono::steady_clock::now();
  if (now - last_ < std::chrono::milliseconds(250) && done < total_) return;
  last_ = now;
  print(done, std::chrono::duration<double>(now - start_).count());
}

namespace {
std::string clock_time(double seconds) {
  const long s = std::lround(seconds);
  char text[32];
  std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  return text;
}
}  // namespace

void ProgressLine::print(long done, double seconds) {
  const double rate = seconds > 0 ? done / seconds : 0.0;
  char text[160];
  std::snprintf(text, sizeof text, "%5.1f %%  %ld/%ld %s  %.3g %s/s  %s left", 100.0 * done / total_, done, total_,
                unit_.c_str(), rate, unit_.c_str(), rate > 0 ? clock_time((total_ - done) / rate).c_str() : "?");
  std::string line = text;
  const std::size_t length = line.size();
  if (length < width_) line.append(width_ - length, ' ');  // cover a longer previous line
  width_ = length;
  std::cerr << '\r' << line << std::flush;
  printed_ = true;
}

}  // namespace dalembert::cli
