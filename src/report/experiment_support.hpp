#pragma once
// Small helpers shared by the experiment definitions.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "analysis/study.hpp"
#include "catalogue/catalogue.hpp"
#include "report/experiment.hpp"

namespace dalembert::report {

/// Runs a catalogue system; throws if the run fails (an experiment cannot use partial data).
/// A convergence study in which every step size must run to t_end (a failure fails the experiment).
inline analysis::Convergence complete_convergence(const analysis::Problem& problem, const std::string& method,
                                                  const std::vector<double>& hs, double t_end, const RunOptions& base) {
  auto conv = analysis::convergence_study(problem, method, hs, t_end, base);
  if (const auto failure = conv.failure(); !failure.empty()) throw NumericalFailure(failure);
  return conv;
}

inline RunResult run_system(const std::string& system, const catalogue::ParameterValues& params,
                            const InitialData& init, const RunOptions& options) {
  RunResult r = catalogue::find(system).run(params, init, options);
  analysis::note_run(r);
  if (r.failed()) throw std::runtime_error(system + " with " + options.method + ": " + r.summary.message);
  return r;
}

inline RunOptions options(const std::string& method, double h, long steps, long every = 1) {
  RunOptions o;
  o.method = method;
  o.h = h;
  o.steps = steps;
  o.every = every;
  return o;
}

inline std::vector<double> column(const Trajectory& t, const std::string& name) {
  const std::size_t c = t.column(name);
  std::vector<double> out(t.rows());
  for (std::size_t r = 0; r < t.rows(); ++r) out[r] = t.at(r, c);
  return out;
}

/// A table from named columns of equal length.
inline Trajectory table(const std::vector<std::string>& names, const std::vector<std::vector<double>>& columns) {
  Trajectory t;
  t.columns = names;
  const std::size_t rows = columns.empty() ? 0 : columns.front().size();
  for (std::size_t r = 0; r < rows; ++r)
    for (const auto& c : columns) t.values.push_back(c[r]);
  return t;
}

/// Largest |x_k − x_0| over the first and over the last tenth of a series: equal sizes mean a
/// bounded oscillation, a growing last tenth a drift.
struct Spread {
  double first_tenth = 0.0, last_tenth = 0.0, all = 0.0;
};
inline Spread spread(const std::vector<double>& x) {
  Spread s;
  const std::size_t n = x.size(), tenth = std::max<std::size_t>(1, n / 10);
  for (std::size_t k = 0; k < n; ++k) {
    const double d = std::abs(x[k] - x.front());
    s.all = std::max(s.all, d);
    if (k < tenth) s.first_tenth = std::max(s.first_tenth, d);
    if (k >= n - tenth) s.last_tenth = std::max(s.last_tenth, d);
  }
  return s;
}

/// The table (t, max_energy_error) of max |E_k − E_0| over consecutive blocks of `block` steps after
/// the first, each at the time of its last step: a long run's energy error in a few hundred rows.
inline Trajectory block_maxima(const std::vector<double>& t, const std::vector<double>& energy, long block) {
  std::vector<double> bt, be;
  const auto size = static_cast<std::size_t>(std::max(1L, block));
  for (std::size_t start = 1; start < energy.size(); start += size) {
    const std::size_t end = std::min(energy.size(), start + size);
    double m = 0.0;
    for (std::size_t k = start; k < end; ++k) m = std::max(m, std::abs(energy[k] - energy.front()));
    bt.push_back(t[end - 1]);
    be.push_back(m);
  }
  return table({"t", "max_energy_error"}, {bt, be});
}

inline double max_abs_of(const std::vector<double>& x) {
  double m = 0.0;
  for (double v : x) m = std::max(m, std::abs(v));
  return m;
}

/// One method in a convergence figure: its label, method name, α, the order it should have, the
/// FIM start ("" for the default), the colour and the line style.
struct ConvergenceCase {
  std::string label, method;
  double alpha;
  double expected;
  std::string fim_start, color;
  std::string style = "line+markers";  ///< "dashed+markers" for a method that may hide another
};

/// Runs the convergence study of each case on one problem, adds its error-versus-h series (fitted
/// order in the legend) to `fig` and its order to the numbers; true if every fitted order lies
/// within `tolerance` of the expected one.
inline bool add_convergence(const Context& ctx, Outcome& out, Figure& fig, const analysis::Problem& problem,
                            const std::vector<double>& hs, double t_end, const std::vector<ConvergenceCase>& cases,
                            double tolerance = 0.15, const RunOptions& base_options = {}) {
  bool ok = true;
  for (const ConvergenceCase& c : cases) {
    RunOptions base = base_options;
    base.alpha = c.alpha;
    if (!c.fim_start.empty()) base.fim_start = c.fim_start;
    const auto conv = complete_convergence(problem, c.method, hs, t_end, base);
    std::vector<double> h, err;
    for (const auto& row : conv.rows) {
      h.push_back(row.h);
      err.push_back(row.error);
    }
    std::string file = c.method + "_alpha" + format(c.alpha, 2) + (c.fim_start.empty() ? "" : "_start" + c.fim_start) + ".csv";
    write_table(ctx.path(file), table({"h", "error"}, {h, err}));
    fig.series.push_back({ctx.path(file), "h", "error", c.label + " (fitted order " + format(conv.order, 3) + ")",
                          c.style, "", c.color});
    out.numbers.push_back({"order, " + c.label, format(conv.order, 3),
                           "expected " + format(c.expected, 2) + "; error at h = " + format(h.back(), 3) + ": " +
                               format(err.back())});
    ok = ok && std::abs(conv.order - c.expected) < tolerance;
  }
  return ok;
}

}  // namespace dalembert::report
