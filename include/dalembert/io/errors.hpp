#pragma once
#include <cstdio>
#include <stdexcept>
#include <string>

namespace dalembert {

/// Invalid input from a user (command line, model parameters, initial data): exit status 2.
class BadInput : public std::runtime_error {
 public:
  explicit BadInput(const std::string& message) : std::runtime_error(message) {}
};

/// Bad input in one option of a run or one initial datum, named as RunOptions, InitialData and the
/// Python package name it (`rule`, `shooting_tolerance`, `q1`): what() reads "name: detail". The
/// command line shows it with the option's flag (`--shooting-tolerance: detail`).
class BadOption : public BadInput {
 public:
  BadOption(const std::string& option, const std::string& detail)
      : BadInput(option + ": " + detail), option_(option), detail_(detail) {}
  const std::string& option() const { return option_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string option_, detail_;
};

/// A numerical failure outside the steps of a run (a reference solution of a study, non-finite
/// results): exit status 3, like a run whose solver fails.
class NumericalFailure : public std::runtime_error {
 public:
  explicit NumericalFailure(const std::string& message) : std::runtime_error(message) {}
};

/// A residual or a size in a message: three significant digits, 1.7e-13 (std::to_string's six fixed
/// decimals print it as 0.000000).
inline std::string format_residual(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", x);
  return text;
}

}  // namespace dalembert
