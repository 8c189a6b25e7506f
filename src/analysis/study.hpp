#pragma once
// Studies built on runs of catalogue systems: several methods side by side from the same initial
// data (compare), and errors against a reference for a sequence of step sizes (convergence).
// The reference is the closed form where the system has one, the Bulirsch–Stoer reference solver
// otherwise. Used by the `compare`, `convergence` and `reproduce` commands.
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "catalogue/catalogue.hpp"

namespace dalembert::analysis {

/// Notes a run made on this thread by the studies below or by an experiment of `reproduce`: its
/// warnings (RunSummary::warnings, each then named by system, method and h) are kept until
/// take_warnings(), which `reproduce` lists under each experiment; then the callback of
/// after_each_run is called.
void note_run(const RunResult& run);
std::vector<std::string> take_warnings();

/// Calls `callback` after each run noted on this thread (a progress line counts them); an empty
/// function stops that.
void after_each_run(std::function<void()> callback);

/// The positions q at a row of a trajectory (its columns t, q_1..q_n, ...).
inline Eigen::VectorXd positions_at(const Trajectory& t, std::size_t row, int n) {
  Eigen::VectorXd q(n);
  for (int i = 0; i < n; ++i) q[i] = t.at(row, 1 + i);
  return q;
}

/// What a study needs to know about one system and its initial data.
struct Problem {
  const catalogue::Entry* system;
  catalogue::ParameterValues parameters;
  InitialData initial;
};

/// Positions q(t_k) of the reference at the output times of `options` (rows of `times`), and
/// whether they come from the closed form ("closed form") or the reference solver.
struct ReferencePositions {
  std::vector<Eigen::VectorXd> q;
  std::string kind;
};
ReferencePositions reference_positions(const Problem& problem, const RunOptions& options,
                                       const std::vector<double>& times);

/// The studies below run one run after another with the stop flag of `options` (RunOptions::stop):
/// when it is set, the run under way ends (status "interrupted") and the study throws Interrupted
/// (solve/step_limits.hpp) instead of starting another.

/// Several methods on one problem: one table with t and, per method, the energy error E − E0,
/// the constraint residual and the error |q − q_ref|_inf at each output time. The rows are the
/// output times of the longest run; a method that failed has NaN after its last output time, and
/// so have the errors of every method where the reference failed.
struct Comparison {
  Trajectory table;
  std::vector<RunResult> runs;
  std::string reference_kind;
  std::string reference_failure;  ///< why there are no errors, if the reference failed
  bool failed() const;            ///< a run or the reference failed
};
Comparison compare_methods(const Problem& problem, const std::vector<std::string>& methods,
                           const RunOptions& options);

/// Error at t_end for each step size, with the fitted order.
struct ConvergenceRow {
  double h;
  long steps;
  double error;  ///< NaN where the method or the reference failed
  bool fitted;   ///< part of the asymptotic range the order was fitted on
  std::string failure;
};
struct Convergence {
  std::string method;
  std::vector<ConvergenceRow> rows;
  double order = std::numeric_limits<double>::quiet_NaN();  ///< NaN if fewer than two errors are usable
  std::string reference_kind;
  /// The first failure, empty if every step size ran to t_end.
  std::string failure() const;
};
/// Each h of `h_list` (distinct, positive) must divide t_end. A failure at one step size leaves
/// its error NaN and the others are still computed. The order is the least-squares slope over the
/// asymptotic part: the finest step sizes whose successive local slopes stay within 0.3 of the
/// finest one, excluding errors at the reference's round-off level (below 1e-11). Throws
/// BadInput if, with every step size run, fewer than two errors are above that level.
Convergence convergence_study(const Problem& problem, const std::string& method, std::vector<double> h_list,
                              double t_end, const RunOptions& base);

}  // namespace dalembert::analysis
