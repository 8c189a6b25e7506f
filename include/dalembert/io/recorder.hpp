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
  /// A part of the state that is not finite: `what` names it ("the coordinate x is nan").
  NonFiniteDiagnostics(long step, double t, const std::string& what)
      : std::runtime_error(what + " at step " + std::to_string(step) + " (t = " + time_text(t) + ")") {}

 private:
  static std::string describe(long step, double t, double energy, double constraint) {
    const std::string what = std::isfinite(energy) ? "constraint residual is " + std::to_string(constraint)
                                                   : "energy is " + std::to_string(energy);
    return "the " + what + " at step " + std::to_string(step) + " (t = " + time_text(t) + ")";
  }
};

/// Thrown by RunRecorder::add when RunOptions::stop asks the run to end: the run ends after the
/// row just added, with status "interrupted".
class RunInterrupted : public std::runtime_error {
 public:
  RunInterrupted(int signal, long step, double t)
      : std::runtime_error("stopped by " + signal_name(signal) + " after step " + std::to_string(step) +
                           " (t = " + time_text(t) + ")") {}

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

  /// What the energy monitors watch: nothing (a contact or second-order system), the energy
  /// (conserved: the default), or its balance with the work of an external force (a Lagrangian of
  /// the time's among them) and of affine constraints' force (add()'s `work`).
  enum class EnergyWatch { none, conserved, balance };
  void watch_energy(EnergyWatch watch) { watch_energy_ = watch; }

  /// Adds the row of step k (width() numbers, kept if k is a multiple of `every`). Its energy and
  /// residuals enter the summary; `stepped`: the row follows a step of the method, whose Newton
  /// iterations count in the summary (not so the rows of a start). Throws NonFiniteDiagnostics,
  /// keeping nothing of the row, if the energy or the constraint residual is not finite, and
  /// RunInterrupted, the row kept, if the run was asked to stop. `row` is kept by swapping it with
  /// the recorder's copy of the last row (no copy per step): the caller writes every entry anew.
  /// `energy_size`: the size of the energy's terms at this row (EnergyTerms::size(), model/dynamics.hpp),
  /// or 0 where there is none, for the energy-error monitor. `work`: the work W_k of the external force
  /// and of affine constraints' force since the start (with a Lagrangian of the time, also the change
  /// of its time part's energy: io/observe.hpp), for EnergyWatch::balance.
  void add(long k, std::vector<double>& row, double energy, double constraint, double discrete, int iterations,
           bool stepped, double energy_size = 0.0, double work = 0.0) {
    if (!std::isfinite(energy) || !std::isfinite(constraint)) throw NonFiniteDiagnostics(k, row[0], energy, constraint);
    auto& sum = result_.summary;
    if (!have_energy0_) {
      sum.energy0 = energy;
      have_energy0_ = true;
      if (watch_energy_ != EnergyWatch::none)
        energy_growth_.emplace(early_until_, 100.0, 1e-6 * std::max(1.0, std::abs(energy)));
      energy0_size_ = std::max(energy_size, std::abs(energy));
    }
    const double energy_error = std::abs(energy - sum.energy0);
    sum.max_energy_error = std::max(sum.max_energy_error, energy_error);
    sum.max_constraint_residual = std::max(sum.max_constraint_residual, constraint);
    if (watch_energy_ != EnergyWatch::none) watch_the_energy(k, row[0], energy, energy_size, work);
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

  /// The largest |φ(q_k, t_k)| of the model's holonomic constraints at row k (t: the row's time), for
  /// a model that has them: warns once when it grows beyond 10 times its largest value over the early
  /// steps (io/monitors.hpp, holonomic-drift). Call before add(k, …).
  void holonomic_residual(long k, double t, double value) {
    if (holonomic_drift_.grew(k, value))
      warn_growth("holonomic-drift", "holonomic constraint residual |phi|", k, t, value, holonomic_drift_);
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
  /// when it grows beyond 6 times its largest value over the first 10 steps (io/monitors.hpp).
  void parasitic_mode(long k, double t, double amplitude, std::string_view what) {
    if (parasitic_steps_++ < 10) {
      parasitic_envelope_ = std::max(parasitic_envelope_, amplitude);
      return;
    }
    if (parasitic_reported_ || !(amplitude > 6.0 * parasitic_envelope_)) return;
    const double floor = 1e-6 + 0.02 * std::sqrt(2.0 * std::abs(result_.summary.energy0));
    if (!(amplitude > floor)) return;
    parasitic_reported_ = true;
    result_.summary.warnings.push_back(
        {"parasitic-mode", k, t,
         std::string(what) + " = " + short_number(amplitude) + " at step " + std::to_string(k) +
             " (t = " + short_number(t) + "), more than 6 times its largest value over the first 10 steps (" +
             short_number(parasitic_envelope_) +
             "): the parasitic mode has grown and the trajectory is no longer reliable"});
  }

  /// A column of the system's derived quantities that is not a number at step k, while the state is:
  /// warns once per column.
  void derived_not_finite(long k, double t, const std::string& column) {
    if (!derived_reported_.insert(column).second) return;
    result_.summary.warnings.push_back({"derived-non-finite", k, t,
                                        "the derived column " + column + " is not a number at step " +
                                            std::to_string(k) + " (t = " + short_number(t) +
                                            "), while the state is; the rows keep it as it is"});
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
  /// The energy monitors (io/monitors.hpp) on the energy, or on its balance with the work of the
  /// external force and of affine constraints' force.
  void watch_the_energy(long k, double t, double energy, double energy_size, double work) {
    const bool balance = watch_energy_ == EnergyWatch::balance;
    const double error = energy - work - result_.summary.energy0, size = std::abs(error);
    if (balance)
      result_.summary.max_energy_balance_error = std::max(result_.summary.max_energy_balance_error.value_or(0.0), size);
    const char* what = balance ? "energy balance error |E - E0 - W|" : "energy error |E - E0|";
    const double floor = 1e-6 * std::max(1.0, std::abs(result_.summary.energy0));
    if (!energy_error_reported_) {
      // energy-error: a tenth of the size of the energy's terms, now or at the start
      const double terms = std::max({energy_size, std::abs(energy), energy0_size_});
      if (size > floor && size >= 0.1 * terms) {
        energy_error_reported_ = true;
        result_.summary.warnings.push_back(
            {"energy-error", k, t,
             std::string(what) + " = " + short_number(size) + " at step " + std::to_string(k) + " (t = " +
                 short_number(t) + "), a tenth or more of the size of the energy's terms (" + short_number(terms) +
                 (balance ? "), W the work of the forces, the moving constraints and the time: the trajectory has "
                            "left its energy balance"
                          : "): the trajectory has left its energy level")});
      }
    }
    if (energy_growth_->grew(k, size))
      warn_growth("energy-growth", what, k, t, size, *energy_growth_);
    trend_.add(t, error);
    if (!trend_reported_ && k >= 1000) {
      // energy-trend: a one-signed drift, large against the energy and against the scatter about it
      const double change = trend_.change();
      if (change >= 1e-3 * energy0_size_ && change > floor && change >= 50.0 * trend_.residual()) {
        trend_reported_ = true;
        result_.summary.warnings.push_back(
            {"energy-trend", k, t,
             std::string(what) + " drifts: its least-squares line over steps 0.." + std::to_string(k) + " (t = " +
                 short_number(t) + ") changes by " + short_number(change) + ", " +
                 short_number(change / energy0_size_) + " of the energy's size and " +
                 short_number(change / std::max(trend_.residual(), 1e-300)) +
                 " times the scatter about it: a secular drift (docs/methods.md, \"Energy over long runs\")"});
      }
    }
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
  EnergyWatch watch_energy_ = EnergyWatch::conserved;
  std::optional<GrowthMonitor> energy_growth_;
  double energy0_size_ = 0.0;  ///< the size of the energy's terms at the first row
  bool energy_error_reported_ = false;
  TrendFit trend_;
  bool trend_reported_ = false;
  std::unordered_set<std::string> derived_reported_;
  GrowthMonitor constraint_drift_{early_until_, 100.0, 1e-6};
  GrowthMonitor holonomic_drift_{early_until_, 10.0, 1e-6};
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
