#pragma once
// Running the experiment catalogue and writing report.md and report.html.
#include <ostream>
#include <string>
#include <vector>

#include "report/experiment.hpp"

namespace dalembert::report {

struct ExperimentResult {
  const Experiment* experiment;
  Outcome outcome;
  bool error = false;       ///< the experiment itself failed (message in outcome.explanation)
  double seconds = 0.0;
};

/// Runs the experiments named in `only` (all if empty) into `out_dir` on `threads` threads,
/// printing a line per experiment to `progress` as each finishes, then writes report.md and
/// report.html with the experiments in report order. Throws BadInput for an unknown name.
std::vector<ExperimentResult> reproduce(const std::vector<std::string>& only, const std::string& out_dir, bool quick,
                                        bool figures, unsigned threads, std::ostream& progress);

}  // namespace dalembert::report
