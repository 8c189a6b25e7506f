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
inline RunResult run_system(const std::string& system, const catalogue::ParameterValues& params,
                            const InitialData& init, const RunOptions& options) {
  RunResult r = catalogue::find(system).run(params, init, options);
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

}  // namespace dalembert::report
