#pragma once
// Recording a run: the rows kept (every K-th and the last), stored in the trajectory or handed to a
// RowSink as they come, the statistics of the summary (energy error, constraint residuals, Newton
// iterations, wall time) and the warnings of the monitors (io/monitors.hpp). observe_run()
// (io/observe.hpp) and the rigid-body runner record every method through it, so every run reports
// the same numbers and stops the same way.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "dalembert/io/errors.hpp"
#include "dalembert/io/monitors.hpp"
#include "dalembert/io/run_options.hpp"
#include "dalembert/io/trajectory.hpp"
#include "dalembert/solve/step_limits.hpp"

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

/// Thrown by RunRecorder::add when RunOptions::stop asks the run to end: the run ends after the
/// row just added, with status "interrupted".
class RunInterrupted : public std::runtime_error {
 public:
  RunInterrupted(int signal, long step, double t)
      : std::runtime_error("stopped by " + signal_name(signal) + " after step " + std::to_string(step) +
                           " (t = " + std::to_string(t) + ")") {}

 private:
  static std::string signal_name(int signal) {
    if (signal == SIGINT) return "SIGINT";
    if (signal == SIGTERM) return "SIGTERM";
    return "signal " + std::to_string(signal);
  }
};

class RunRecorder {
 public:
  /// `columns` start with t; `has_discrete`: the method reports a discrete constraint residual.
  /// Takes `every`, the row sink and the stop flag from `options`.
  RunRecorder(RunResult& result, std::vector<std::string> columns, const RunOptions& options, bool has_discrete)
      : result_(result),
        every_(options.every),
        sink_(options.rows),
        stop_(options.stop),
        has_discrete_(has_discrete),
        early_until_(std::max(1000L, options.steps / 10)),
        start_(std::chrono::steady_clock::now()) {
    // A model file's names can meet the generated ones (a coordinate `p_x` beside `x`).
    std::unordered_set<std::string_view> seen;
    for (const auto& c : columns)
      if (!seen.insert(c).second) throw BadInput("two columns of the run would be named " + c + "; rename one");
    result_.trajectory.columns = std::move(columns);
    last_row_.resize(width());
    if (sink_) sink_->begin(result_.trajectory.columns);
  }

  std::size_t width() const { return result_.trajectory.columns.size(); }

  /// Whether the energy of the system is conserved (then its growth is watched); by default it is.
  void watch_energy(bool conserved) { watch_energy_ = conserved; }

  /// Adds the row of step k (width() numbers, kept if k is a multiple of `every`). Its energy and
  /// residuals enter the summary; `stepped`: the row follows a step of the method, whose Newton
  /// iterations count in the summary (not so the rows of a start). Throws NonFiniteDiagnostics,
  /// keeping nothing of the row, if the energy or the constraint residual is not finite, and
  /// RunInterrupted, the row kept, if the run was asked to stop. `row` is kept by swapping it with
  /// the recorder's copy of the last row (no copy per step): the caller writes every entry anew.
  /// `energy_size`: the size of the energy's terms at this row (EnergyTerms::size(), model/dynamics.hpp),
  /// or 0 where there is none, for the energy-error monitor.
  void add(long k, std::vector<double>& row, double energy, double constraint, double discrete, int iterations,
           bool stepped, double energy_size = 0.0) {
    if (!std::isfinite(energy) || !std::isfinite(constraint)) throw NonFiniteDiagnostics(k, row[0], energy, constraint);
    auto& sum = result_.summary;
    if (!have_energy0_) {
      sum.energy0 = energy;
      have_energy0_ = true;
      if (watch_energy_) energy_growth_.emplace(early_until_, 100.0, 1e-6 * std::max(1.0, std::abs(energy)));
      energy0_size_ = std::max(energy_size, std::abs(energy));
    }
    const double energy_error = std::abs(energy - sum.energy0);
    if (watch_energy_ && !energy_error_reported_) check_energy_error(k, row[0], energy_error, energy, energy_size);
    sum.max_energy_error = std::max(sum.max_energy_error, energy_error);
    sum.max_constraint_residual = std::max(sum.max_constraint_residual, constraint);
    if (energy_growth_ && energy_growth_->grew(k, energy_error))
      warn_growth("energy-growth", "energy error |E - E0|", k, row[0], energy_error, *energy_growth_);
    if (constraint_drift_.grew(k, constraint))
      warn_growth("constraint-drift", "constraint residual |M v|", k, row[0], constraint, constraint_drift_);
    if (has_discrete_) sum.max_discrete_constraint = std::max(sum.max_discrete_constraint.value_or(0.0), discrete);
    if (stepped) {
      newton_total_ += iterations;
      ++newton_steps_;
      sum.newton_iterations_max = std::max(sum.newton_iterations_max, iterations);
    }
    if (k % every_ == 0) keep(k, row);
    last_row_.swap(row);
    last_k_ = k;
    renew_step_substeps();  // for the next step
    if (stop_) {
      if (const int signal = stop_->load(std::memory_order_relaxed); signal != 0)
        throw RunInterrupted(signal, k, last_row_[0]);
    }
  }

  /// The parasitic-mode monitor below for a method that has one (`method.parasitic_mode(s)`, named
  /// by Method::parasitic_mode_name), after a step of this run (`stepped`); nothing otherwise.
  template <class Method, class State>
  void parasitic_mode_of(const Method& method, const State& s, bool stepped) {
    if constexpr (requires { method.parasitic_mode(s); }) {
      if (stepped) parasitic_mode(s.k, s.t, method.parasitic_mode(s), Method::parasitic_mode_name);
    }
  }

  /// The amplitude of the method's known parasitic mode (`what` names it) after step k: warns once
  /// when it grows beyond 20 times its largest value over the first 100 steps (io/monitors.hpp).
  void parasitic_mode(long k, double t, double amplitude, std::string_view what) {
    if (parasitic_steps_++ < 100) {
      parasitic_envelope_ = std::max(parasitic_envelope_, amplitude);
      return;
    }
    if (parasitic_reported_ || !(amplitude > 20.0 * parasitic_envelope_)) return;
    const double floor = 1e-6 + 1e-3 * std::sqrt(2.0 * std::abs(result_.summary.energy0));
    if (!(amplitude > floor)) return;
    parasitic_reported_ = true;
    result_.summary.warnings.push_back(
        {"parasitic-mode", k, t,
         std::string(what) + " = " + short_number(amplitude) + " at step " + std::to_string(k) +
             " (t = " + short_number(t) + "), more than 20 times its largest value over the first 100 steps (" +
             short_number(parasitic_envelope_) +
             "): the parasitic mode has grown and the trajectory is no longer reliable"});
  }

  /// Calls `steps()`, which adds the rows, and ends the run: a SolverError ("solver-failure"),
  /// NonFiniteDiagnostics ("non-finite"), RunInterrupted or Interrupted ("interrupted") ends it with
  /// that status and message, the rows before kept. Then keeps the last row and completes the summary.
  /// While `steps()` runs, the loops inside a step read the stop flag too, and the adaptive
  /// integrations of each step share one allowance of substeps (solve/step_limits.hpp): a step that
  /// takes long is abandoned when the run is asked to stop.
  template <class Steps>
  void record(Steps&& steps) {
    try {
      const StepLimits limits(stop_, max_step_substeps);
      steps();
    } catch (const SolverError& e) {
      fail(e.what(), "solver-failure");
    } catch (const NonFiniteDiagnostics& e) {
      fail(e.what(), "non-finite");
    } catch (const RunInterrupted& e) {
      fail(e.what(), "interrupted");
    } catch (const Interrupted& e) {  // inside the step after the last row
      fail(RunInterrupted(e.signal(), std::max(last_k_, 0L), last_row_[0]).what(), "interrupted");
    }
    finish();
  }

 private:
  /// energy-error (io/monitors.hpp): |E − E0| of at least a quarter of the size of the energy's terms,
  /// the larger of its size now and at the start, and above the floor of energy-growth.
  void check_energy_error(long k, double t, double energy_error, double energy, double energy_size) {
    const double size = std::max({energy_size, std::abs(energy), energy0_size_});
    const double floor = 1e-6 * std::max(1.0, std::abs(result_.summary.energy0));
    if (!(energy_error > floor) || !(energy_error >= 0.25 * size)) return;
    energy_error_reported_ = true;
    result_.summary.warnings.push_back({"energy-error", k, t,
                                        "energy error |E - E0| = " + short_number(energy_error) + " at step " +
                                            std::to_string(k) + " (t = " + short_number(t) +
                                            "), a quarter or more of the size of the energy's terms (" +
                                            short_number(size) + "): the trajectory has left its energy level"});
  }

  void warn_growth(const std::string& kind, const std::string& what, long k, double t, double value,
                   const GrowthMonitor& monitor) {
    result_.summary.warnings.push_back(
        {kind, k, t,
         what + " = " + short_number(value) + " at step " + std::to_string(k) + " (t = " + short_number(t) +
             "), more than " + short_number(monitor.factor()) + " times its largest value over steps 0.." +
             std::to_string(monitor.early_until()) + " (" + short_number(monitor.envelope()) + ")"});
  }

  void fail(const std::string& message, const std::string& status) {
    result_.summary.status = status;
    result_.summary.message = message;
  }

  void finish() {
    auto& sum = result_.summary;
    sum.wall_time_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (last_k_ >= 0 && last_stored_ != last_k_) keep(last_k_, last_row_);
    sum.steps = std::max(last_k_, 0L);
    sum.newton_iterations_mean = newton_steps_ > 0 ? newton_total_ / static_cast<double>(newton_steps_) : 0.0;
  }

  void keep(long k, const std::vector<double>& row) {
    if (sink_) {
      sink_->row(k, row);
    } else {
      auto& values = result_.trajectory.values;
      values.insert(values.end(), row.begin(), row.end());
    }
    last_stored_ = k;
  }

  RunResult& result_;
  long every_;
  RowSink* sink_;
  const std::atomic<int>* stop_;
  bool has_discrete_;
  long early_until_;  ///< the first tenth of the steps, at least 1000: their values set the envelopes
  bool watch_energy_ = true;
  std::optional<GrowthMonitor> energy_growth_;
  double energy0_size_ = 0.0;  ///< the size of the energy's terms at the first row
  bool energy_error_reported_ = false;
  GrowthMonitor constraint_drift_{early_until_, 100.0, 1e-6};
  long parasitic_steps_ = 0;
  double parasitic_envelope_ = 0.0;
  bool parasitic_reported_ = false;
  std::chrono::steady_clock::time_point start_;
  bool have_energy0_ = false;
  long last_k_ = -1, last_stored_ = -1, newton_steps_ = 0;
  double newton_total_ = 0.0;
  std::vector<double> last_row_;
};

}  // namespace dalembert
