#include "analysis/study.hpp"

#include <algorithm>
#include <cmath>

#include "dalembert/diagnostics/convergence.hpp"

namespace dalembert::analysis {

namespace {

Eigen::VectorXd positions_at(const Trajectory& t, std::size_t row, int n) {
  Eigen::VectorXd q(n);
  for (int i = 0; i < n; ++i) q[i] = t.at(row, 1 + i);
  return q;
}

std::vector<double> times_of(const Trajectory& t) {
  std::vector<double> times(t.rows());
  for (std::size_t r = 0; r < t.rows(); ++r) times[r] = t.at(r, 0);
  return times;
}

int coordinate_count(const Problem& p) {
  return static_cast<int>(p.system->describe(p.parameters).coordinates.size());
}

}  // namespace

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
  const RunResult r = problem.system->run(problem.parameters, problem.initial, o);
  if (r.failed()) throw BadInput("reference solver failed: " + r.summary.message);
  const int n = coordinate_count(problem);
  // The reference run uses the same grid and thinning, so its rows are at the same times.
  for (std::size_t row = 0; row < r.trajectory.rows(); ++row) ref.q.push_back(positions_at(r.trajectory, row, n));
  if (ref.q.size() != times.size()) throw std::logic_error("reference grid differs from the method's grid");
  ref.kind = "reference solver (Bulirsch-Stoer, tolerance " + std::to_string(options.reference_tolerance) + ")";
  return ref;
}

Comparison compare_methods(const Problem& problem, const std::vector<std::string>& methods,
                           const RunOptions& options) {
  Comparison c;
  const int n = coordinate_count(problem);
  c.table.columns.push_back("t");
  std::vector<double> times;
  for (const auto& m : methods) {
    RunOptions o = options;
    o.method = m;
    c.runs.push_back(problem.system->run(problem.parameters, problem.initial, o));
    const auto& run = c.runs.back();
    if (times.empty() || run.trajectory.rows() < times.size()) times = times_of(run.trajectory);
    for (const char* col : {"energy_error", "constraint", "error"}) c.table.columns.push_back(m + ":" + col);
  }
  ReferencePositions ref;
  try {
    ref = reference_positions(problem, options, times);
    c.reference_kind = ref.kind;
  } catch (const BadInput&) {
    c.reference_kind = "none (two-point start)";
  }
  for (std::size_t row = 0; row < times.size(); ++row) {
    c.table.values.push_back(times[row]);
    for (const auto& run : c.runs) {
      const auto& t = run.trajectory;
      if (row >= t.rows()) {  // a method that failed early: no data
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

Convergence convergence_study(const Problem& problem, const std::string& method, std::vector<double> h_list,
                              double t_end, const RunOptions& base) {
  if (h_list.size() < 2) throw BadInput("--h-list needs at least two step sizes");
  std::sort(h_list.begin(), h_list.end(), std::greater<>());
  Convergence c;
  c.method = method;
  const int n = coordinate_count(problem);
  for (double h : h_list) {
    if (!(h > 0)) throw BadInput("step sizes must be positive");
    const double ratio = t_end / h;
    const long steps = std::lround(ratio);
    if (steps < 1 || std::abs(ratio - static_cast<double>(steps)) > 1e-8 * ratio)
      throw BadInput("h = " + std::to_string(h) + " does not divide t_end = " + std::to_string(t_end));
    RunOptions o = base;
    o.method = method;
    o.h = h;
    o.steps = steps;
    o.every = steps;  // only the first and last rows are needed
    const RunResult r = problem.system->run(problem.parameters, problem.initial, o);
    if (r.failed()) throw BadInput(method + " failed at h = " + std::to_string(h) + ": " + r.summary.message);
    const auto& t = r.trajectory;
    const double t_last = t.at(t.rows() - 1, 0);
    RunOptions ro = base;
    ro.h = t_last;
    ro.steps = 1;
    ro.every = 1;
    const auto ref = reference_positions(problem, ro, {0.0, t_last});
    c.reference_kind = ref.kind;
    c.rows.push_back({h, steps, (positions_at(t, t.rows() - 1, n) - ref.q.back()).lpNorm<Eigen::Infinity>(), false});
  }
  // Asymptotic range: from the finest step upwards while local slopes agree with the finest one.
  std::vector<std::size_t> usable;
  for (std::size_t i = 0; i < c.rows.size(); ++i)
    if (c.rows[i].error > 1e-11) usable.push_back(i);
  if (usable.size() < 2) throw BadInput("errors are at round-off level for all but one step size; use larger h");
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
