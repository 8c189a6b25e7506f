#pragma once
// Recording a run: the rows kept in the trajectory (every K-th and the last) and the statistics of
// the summary (energy error, constraint residuals, Newton iterations, wall time). observe_run()
// (io/observe.hpp) records every compile-time sized method through it; systems sized at run time
// (the knife-edge chain of the catalogue) use it directly, so every run reports the same numbers.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "dalembert/io/trajectory.hpp"

namespace dalembert {

/// Thrown by RunRecorder::add when the energy or the constraint residual of a row is not finite:
/// the run ends there as a numerical failure, with the rows before it kept.
class NonFiniteDiagnostics : public std::runtime_error {
 public:
  NonFiniteDiagnostics(long step, double t, double energy, double constraint)
      : std::runtime_error(describe(step, t, energy, constraint)) {}

 private:
  static std::string describe(long step, double t, double energy, double constraint) {
    const std::string what = std::isfinite(energy) ? "constraint residual is " + std::to_string(constraint)
                                                   : "energy is " + std::to_string(energy);
    return "the " + what + " at step " + std::to_string(step) + " (t = " + std::to_string(t) + ")";
  }
};

class RunRecorder {
 public:
  /// `columns` start with t; `has_discrete`: the method reports a discrete constraint residual.
  RunRecorder(RunResult& result, std::vector<std::string> columns, long every, bool has_discrete)
      : result_(result), every_(every), has_discrete_(has_discrete),
        start_(std::chrono::steady_clock::now()) {
    result_.trajectory.columns = std::move(columns);
  }

  std::size_t width() const { return result_.trajectory.columns.size(); }

  /// Adds the row of step k (width() numbers, kept if k is a multiple of `every`). Its energy and
  /// residuals enter the summary; `stepped`: the row follows a step of the method, whose Newton
  /// iterations count in the summary (not so the rows of a start). Throws NonFiniteDiagnostics,
  /// keeping nothing of the row, if the energy or the constraint residual is not finite.
  void add(long k, const std::vector<double>& row, double energy, double constraint, double discrete,
           int iterations, bool stepped) {
    if (!std::isfinite(energy) || !std::isfinite(constraint)) throw NonFiniteDiagnostics(k, row[0], energy, constraint);
    auto& sum = result_.summary;
    if (!have_energy0_) {
      sum.energy0 = energy;
      have_energy0_ = true;
    }
    sum.max_energy_error = std::max(sum.max_energy_error, std::abs(energy - sum.energy0));
    sum.max_constraint_residual = std::max(sum.max_constraint_residual, constraint);
    if (has_discrete_) sum.max_discrete_constraint = std::max(sum.max_discrete_constraint.value_or(0.0), discrete);
    if (stepped) {
      newton_total_ += iterations;
      ++newton_steps_;
      sum.newton_iterations_max = std::max(sum.newton_iterations_max, iterations);
    }
    last_row_ = row;
    last_k_ = k;
    if (k % every_ == 0) {
      auto& values = result_.trajectory.values;
      values.insert(values.end(), row.begin(), row.end());
      last_stored_ = k;
    }
  }

  /// A failed step ("solver-failure") or non-finite diagnostics ("non-finite"): the run ends with
  /// this status and message.
  void fail(const std::string& message, const std::string& status = "solver-failure") {
    result_.summary.status = status;
    result_.summary.message = message;
  }

  /// Keeps the last row (if `every` skipped it) and completes the summary.
  void finish() {
    auto& sum = result_.summary;
    sum.wall_time_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (last_k_ >= 0 && last_stored_ != last_k_) {
      auto& values = result_.trajectory.values;
      values.insert(values.end(), last_row_.begin(), last_row_.end());
    }
    sum.steps = std::max(last_k_, 0L);
    sum.newton_iterations_mean = newton_steps_ > 0 ? newton_total_ / static_cast<double>(newton_steps_) : 0.0;
  }

 private:
  RunResult& result_;
  long every_;
  bool has_discrete_;
  std::chrono::steady_clock::time_point start_;
  bool have_energy0_ = false;
  long last_k_ = -1, last_stored_ = -1, newton_steps_ = 0;
  double newton_total_ = 0.0;
  std::vector<double> last_row_;
};

}  // namespace dalembert
