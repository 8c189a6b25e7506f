#pragma once
// An experiment of `dalembert reproduce`: a paper's numerical experiment, rerun, checked and
// plotted. Each states the paper, figure, system, methods, data and the paper's claim; running it
// writes CSV data and figures into its own directory and returns our measured numbers and a
// verdict on the claim.
#include <functional>
#include <string>
#include <vector>

#include "report/figures.hpp"

namespace dalembert::report {

enum class Verdict { supported, not_supported, differs };

inline const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::supported: return "supported";
    case Verdict::not_supported: return "not supported";
    case Verdict::differs: return "differs";
  }
  return "?";
}

/// One measured (or quoted) number in the report.
struct Number {
  std::string quantity;
  std::string value;
  std::string note;  ///< e.g. the paper's value or an independently computed one, for comparison
};

struct Outcome {
  Verdict verdict = Verdict::supported;
  std::string explanation;   ///< why this verdict; corrections of the papers used
  std::vector<Number> numbers;
  std::vector<Figure> figures;
  std::vector<std::string> warnings;  ///< of the runs made through the run layer (RunSummary::warnings)
};

struct Context {
  std::string dir;  ///< this experiment's output directory (exists)
  bool quick;       ///< reduced step counts (CI); verdict checks stay meaningful
  std::string path(const std::string& file) const { return dir + "/" + file; }
};

struct Experiment {
  std::string name;  ///< for --only
  std::string title;
  std::string paper, figure, system, methods, data, claim;
  std::function<Outcome(const Context&)> run;
};

/// Every experiment, in report order.
const std::vector<Experiment>& experiments();

/// Formats a number for the report (3 significant digits, scientific when small or large).
std::string format(double x, int digits = 3);

}  // namespace dalembert::report
