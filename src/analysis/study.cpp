#include "analysis/study.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include "dalembert/diagnostics/convergence.hpp"
#include "dalembert/solve/step_limits.hpp"

namespace dalembert::analysis {

namespace {

/// The shortest text that reads back to x ("0.1", "1e-07").
std::string number_text(double x) {
  char buffer[32];
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, x).ptr);
}

int coordinate_count(const Problem& p) {
  return static_cast<int>(p.system->describe(p.parameters).coordinates.size());
}

thread_local std::vector<std::string> noted_warnings;
thread_local std::function<void()> run_noted;

/// A study asked to stop (RunOptions::stop) starts no further run: its run under way has ended
/// with status "interrupted", and the study throws Interrupted.
void throw_if_stopped(const RunOptions& options) {
  if (options.stop) {
    if (const int signal = options.stop->load(); signal != 0) throw Interrupted(signal);
  }
}

}  // namespace

void note_run(const RunResult& run) {
  for (const auto& w : run.summary.warnings)
    noted_warnings.push_back(run.summary.system + ", " + run.summary.method + ", h = " + number_text(run.summary.h) +
                             ": " + w.message);
  if (run_noted) run_noted();
}

void after_each_run(std::function<void()> callback) { run_noted = std::move(callback); }

std::vector<std::string> take_warnings() { return std::exchange(noted_warnings, {}); }

ReferencePositions reference_positions(const Problem& problem, const RunOptions& options,
                                       const std::vector<double>& times) {
  ReferencePositions ref;
  if (!problem.initial.q1) {
    for (double t : times) {
      auto q = problem.system->exact(problem.parameters, problem.initial, t);
      if (!q) {
        ref.q.clear();
        break;
      }
      ref.q.push_back(*q);
    }
    if (!ref.q.empty()) {
      ref.kind = "closed form";
      return ref;
    }
  }
  if (problem.initial.q1)
    throw BadInput("errors need a reference from (q0, v0); two-point starts (--q1) have none");
  RunOptions o = options;
  o.method = "reference";
  o.rule = "alpha";  // the discrete Lagrangian of the method measured; the reference has none
  const RunResult r = problem.system->run(problem.parameters, problem.initial, o);
  note_run(r);
  throw_if_stopped(o);
  if (r.failed()) throw NumericalFailure("the reference solver failed: " + r.summary.message);
  const int n = coordinate_count(problem);
  // The reference run uses the same grid and thinning, so its rows are at the same times.
  for (std::size_t row = 0; row < r.trajectory.rows(); ++row) ref.q.push_back(positions_at(r.trajectory, row, n));
  if (ref.q.size() != times.size()) throw std::logic_error("reference grid differs from the method's grid");
  ref.kind = "reference solver (Bulirsch-Stoer, tolerance " + number_text(options.reference_tolerance) + ")";
  return ref;
}

bool Comparison::failed() const {
  if (!reference_failure.empty()) return true;
  return std::any_of(runs.begin(), runs.end(), [](const RunResult& r) { return r.failed(); });
}

Comparison compare_methods(const Problem& problem, const std::vector<std::string>& methods,
                           const RunOptions& options) {
  Comparison c;
  const int n = coordinate_count(problem);
  c.table.columns.push_back("t");
  for (const auto& m : methods) {
    RunOptions o = options;
    o.method = m;
    c.runs.push_back(problem.system->run(problem.parameters, problem.initial, o));
    note_run(c.runs.back());
    throw_if_stopped(o);
    for (const char* col : {"energy_error", "constraint", "error"}) c.table.columns.push_back(m + ":" + col);
  }
  // The output times of a complete run. A failed run ends with the row of its last completed
  // step, which need not be one of them: rows are matched by time, not by position.
  std::vector<double> grid;
  for (long k = 0; k <= options.steps; k += options.every) grid.push_back(grid_time(k, options.h));
  if (options.steps % options.every != 0) grid.push_back(grid_time(options.steps, options.h));
  const auto row_at = [](const Trajectory& t, std::size_t row, double time) {
    return row < t.rows() && std::abs(t.at(row, 0) - time) <= 1e-9 * std::max(1.0, std::abs(time));
  };
  ReferencePositions ref;
  try {
    ref = reference_positions(problem, options, grid);
    c.reference_kind = ref.kind;
  } catch (const BadInput&) {
    c.reference_kind = "none (two-point start)";
  } catch (const NumericalFailure& e) {
    c.reference_kind = "none (the reference failed)";
    c.reference_failure = e.what();
  }
  for (std::size_t row = 0; row < grid.size(); ++row) {
    c.table.values.push_back(grid[row]);
    for (const auto& run : c.runs) {
      const auto& t = run.trajectory;
      if (!row_at(t, row, grid[row])) {  // a method that failed before this time
        c.table.values.insert(c.table.values.end(), 3, std::nan(""));
        continue;
      }
      c.table.values.push_back(t.at(row, t.column("energy")) - run.summary.energy0);
      c.table.values.push_back(t.at(row, t.column("constraint")));
      c.table.values.push_back(ref.q.empty() ? std::nan("")
                                             : (positions_at(t, row, n) - ref.q[row]).lpNorm<Eigen::Infinity>());
    }
  }
  return c;
}

std::string Convergence::failure() const {
  for (const auto& row : rows)
    if (!row.failure.empty()) return row.failure;
  return "";
}

Convergence convergence_study(const Problem& problem, const std::string& method, std::vector<double> h_list,
                              double t_end, const RunOptions& base) {
  if (h_list.size() < 2) throw BadInput("--h-list needs at least two step sizes");
  std::sort(h_list.begin(), h_list.end(), std::greater<>());
  for (std::size_t i = 0; i < h_list.size(); ++i) {
    if (!(h_list[i] > 0)) throw BadInput("--h-list: step sizes must be positive, got " + number_text(h_list[i]));
    if (i > 0 && h_list[i] == h_list[i - 1]) throw BadInput("--h-list: " + number_text(h_list[i]) + " is given twice");
  }
  Convergence c;
  c.method = method;
  const int n = coordinate_count(problem);
  for (double h : h_list) {
    const double ratio = t_end / h;
    if (!(ratio <= static_cast<double>(max_steps)))
      throw BadInput("--h-list: h = " + number_text(h) + " makes more than " + std::to_string(max_steps) + " steps");
    const long steps = std::lround(ratio);
    if (steps < 1 || std::abs(ratio - static_cast<double>(steps)) > 1e-8 * ratio)
      throw BadInput("--t-end " + number_text(t_end) + " is not a multiple of h = " + number_text(h) +
                     " of --h-list (T/h = " + number_text(ratio) + ")");
  }
  for (double h : h_list) {
    const long steps = std::lround(t_end / h);
    RunOptions o = base;
    o.method = method;
    o.h = h;
    o.steps = steps;
    o.every = steps;  // only the first and last rows are needed
    const RunResult r = problem.system->run(problem.parameters, problem.initial, o);
    note_run(r);
    throw_if_stopped(o);
    ConvergenceRow row{h, steps, std::nan(""), false, ""};
    if (r.failed()) {
      row.failure = method + " failed at h = " + number_text(h) + ": " + r.summary.message;
      c.rows.push_back(row);
      continue;
    }
    const auto& t = r.trajectory;
    const double t_last = t.at(t.rows() - 1, 0);
    RunOptions ro = base;
    ro.h = t_last;
    ro.steps = 1;
    ro.every = 1;
    try {
      const auto ref = reference_positions(problem, ro, {0.0, t_last});
      c.reference_kind = ref.kind;
      row.error = (positions_at(t, t.rows() - 1, n) - ref.q.back()).lpNorm<Eigen::Infinity>();
    } catch (const NumericalFailure& e) {
      row.failure = std::string("at h = ") + number_text(h) + ": " + e.what();
    }
    c.rows.push_back(row);
  }
  // Asymptotic range: from the finest step upwards while local slopes agree with the finest one.
  std::vector<std::size_t> usable;
  for (std::size_t i = 0; i < c.rows.size(); ++i)
    if (c.rows[i].error > 1e-11) usable.push_back(i);
  if (usable.size() < 2) {
    if (!c.failure().empty()) return c;
    throw BadInput("errors are at round-off level for all but one step size; use larger h");
  }
  const auto slope = [&](std::size_t a, std::size_t b) {
    return std::log(c.rows[a].error / c.rows[b].error) / std::log(c.rows[a].h / c.rows[b].h);
  };
  const std::size_t last = usable.size() - 1;
  const double finest = slope(usable[last - 1], usable[last]);
  std::size_t first = last - 1;
  while (first > 0 && std::abs(slope(usable[first - 1], usable[first]) - finest) <= 0.3) --first;
  std::vector<double> hs, errors;
  for (std::size_t i = first; i <= last; ++i) {
    c.rows[usable[i]].fitted = true;
    hs.push_back(c.rows[usable[i]].h);
    errors.push_back(c.rows[usable[i]].error);
  }
  c.order = fitted_order(hs, errors);
  return c;
}

}  // namespace dalembert::analysis
