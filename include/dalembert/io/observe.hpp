#pragma once
// Observing a run: system + method + step size + initial data -> trajectory and summary.
//
// observe_run() drives any method and records energy, constraint residuals, Newton iterations and
// wall time; run_two_step() and run_one_step() add the two kinds of start. The method families'
// runners (io/runners/*.hpp) build methods from RunOptions and call these; io/run.hpp picks the
// family by the method's command-line name. Methods stay free of I/O and timing.
#include <chrono>
#include <cmath>
#include <optional>
#include <string>

#include <Eigen/Core>

#include "dalembert/io/errors.hpp"
#include "dalembert/io/trajectory.hpp"
#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/method/integrate.hpp"
#include "dalembert/model/dynamics.hpp"
#include "dalembert/solve/newton.hpp"
#include "dalembert/models/catalogue_entry.hpp"

namespace dalembert {

struct RunOptions {
  std::string method = "dla";
  double h = 0.1;
  long steps = 100;
  long every = 1;              ///< keep every K-th row (and always the last)
  double alpha = 0.5;          ///< α of the α-rule discrete Lagrangian and constraint
  std::string rule = "alpha";  ///< discrete Lagrangian: "alpha" (midpoint for α = ½) or "trapezoid"
  std::string fim_start = "B";  ///< first pre-momentum of fim/fim-lie: "B" (G v0 − h/2 Λ~) or "A" (G v0)
  NewtonOptions newton;
  double reference_tolerance = 1e-13;
};

struct InitialData {
  Eigen::VectorXd q0;
  Eigen::VectorXd v0;
  std::optional<Eigen::VectorXd> q1;  ///< two-point start (q0, q1) instead of (q0, v0)
  std::optional<double> z0;           ///< initial action variable of a contact system
};

namespace detail {

template <class State>
concept HasDiscreteConstraint = requires(const State& s) { s.discrete_constraint; };

/// A method with extra CSV columns: a static array `extra_columns` of names and
/// `extra_values(state)` returning as many numbers (written after the standard columns).
template <class Method>
concept HasExtraColumns = requires(const Method& m, const typename Method::State& s) {
  Method::extra_columns;
  { m.extra_values(s) };
};

/// Drives `method` from `state` and records every `every`-th row plus the last one.
/// `first_row` (optional) is a row for k = 0 already known, used by two-point starts.
template <CatalogueSystem S, class Method>
RunResult observe_run(const S& sys, const Method& method, typename Method::State state,
                      const RunOptions& options, const std::string& method_name,
                      const std::optional<PhasePoint<S::n>>& first_row) {
  constexpr int n = S::n;
  using State = typename Method::State;
  constexpr bool has_discrete = HasDiscreteConstraint<State> && S::m > 0;

  RunResult result;
  auto& traj = result.trajectory;
  auto& sum = result.summary;
  sum.system = std::string(S::name);
  sum.method = method_name;
  sum.h = options.h;
  traj.columns.push_back("t");
  for (const auto& c : S::coordinates) traj.columns.emplace_back(c);
  traj.columns.insert(traj.columns.end(), {"energy", "constraint"});
  if (has_discrete) traj.columns.push_back("discrete_constraint");
  traj.columns.push_back("newton_iterations");
  std::size_t method_extras = 0;
  if constexpr (HasExtraColumns<Method>) {
    for (const auto& c : Method::extra_columns) traj.columns.emplace_back(c);
    method_extras = std::size(Method::extra_columns);
  }
  std::size_t derived = 0;  // the system's own columns come last
  if constexpr (HasDerivedQuantities<S>) {
    const auto names = sys.derived_quantity_names();
    traj.columns.insert(traj.columns.end(), names.begin(), names.end());
    derived = names.size();
  }
  const std::size_t width = traj.columns.size();

  std::vector<double> row(width);
  bool have_energy0 = false;
  long last_stored = -1, newton_steps = 0;
  double newton_total = 0.0;
  // `stepped`: the row follows a step of the method (its Newton iterations count in the summary).
  // `extras` (may be null) are the method's extra columns.
  const auto record = [&](long k, double t, const Vecd<n>& q, const Vecd<n>& v, double discrete,
                          int iterations, bool stepped, const double* extras) {
    const double E = energy(sys, q, v);
    if (!have_energy0) {
      sum.energy0 = E;
      have_energy0 = true;
    }
    const double c = constraint_residual(sys, q, v);
    sum.max_energy_error = std::max(sum.max_energy_error, std::abs(E - sum.energy0));
    sum.max_constraint_residual = std::max(sum.max_constraint_residual, c);
    if (has_discrete) sum.max_discrete_constraint = std::max(sum.max_discrete_constraint.value_or(0.0), discrete);
    if (stepped) {
      newton_total += iterations;
      ++newton_steps;
      sum.newton_iterations_max = std::max(sum.newton_iterations_max, iterations);
    }
    std::size_t i = 0;
    row[i++] = t;
    for (int j = 0; j < n; ++j) row[i++] = q[j];
    row[i++] = E;
    row[i++] = c;
    if (has_discrete) row[i++] = discrete;
    row[i++] = iterations;
    for (std::size_t j = 0; j < method_extras; ++i, ++j) row[i] = extras ? extras[j] : std::nan("");
    if constexpr (HasDerivedQuantities<S>) {
      if (derived > 0) sys.derived_quantities(q, v, t, row.data() + i);
    }
    if (k % options.every == 0) {
      traj.values.insert(traj.values.end(), row.begin(), row.end());
      last_stored = k;
    }
  };

  const auto start = std::chrono::steady_clock::now();
  long last_k = 0;
  if (first_row) record(0, 0.0, first_row->q, first_row->v, 0.0, 0, false, nullptr);
  const long remaining = options.steps - state.k;
  const long k_start = state.k;
  try {
    integrate(method, state, remaining, [&](const State& s) {
      double discrete = 0.0;
      if constexpr (has_discrete) discrete = s.discrete_constraint;
      if constexpr (HasExtraColumns<Method>) {
        const auto extras = method.extra_values(s);
        record(s.k, s.t, s.q, method.velocity(s), discrete, s.iterations, s.k > k_start, extras.data());
      } else {
        record(s.k, s.t, s.q, method.velocity(s), discrete, s.iterations, s.k > k_start, nullptr);
      }
      last_k = s.k;
    });
  } catch (const SolverError& e) {
    sum.status = "solver-failure";
    sum.message = e.what();
  }
  sum.wall_time_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (last_stored != last_k) traj.values.insert(traj.values.end(), row.begin(), row.end());
  sum.steps = last_k;
  sum.newton_iterations_mean = newton_steps > 0 ? newton_total / static_cast<double>(newton_steps) : 0.0;
  return result;
}

template <int N>
Vecd<N> fixed(const Eigen::VectorXd& x) {
  return Vecd<N>(x);
}

/// Runs a two-step method (DEL or DLA), from (q0, v0) or from (q0, q1).
template <CatalogueSystem S, class Method>
RunResult run_two_step(const S& sys, const Method& method, const InitialData& init,
                       const RunOptions& options, const std::string& name) {
  constexpr int n = S::n;
  const Vecd<n> q0 = fixed<n>(init.q0);
  if (!init.q1) return observe_run(sys, method, method.initial_state(q0, fixed<n>(init.v0)), options, name, std::nullopt);

  if (options.steps < 1) throw BadInput("a two-point start (--q1) needs at least one step");
  const Vecd<n> q1 = fixed<n>(*init.q1);
  if constexpr (requires { method.discrete_constraint(); }) {
    const auto w = method.discrete_constraint()(q0, q1);
    const double scale = 1.0 + ((q1 - q0) / options.h).template lpNorm<Eigen::Infinity>();
    if (w.size() > 0 && w.template lpNorm<Eigen::Infinity>() > 1e-10 * scale) {
      throw BadInput("(q0, q1) violates the discrete constraint of " + std::string(S::name) +
                     ": |omega(q0, q1)| = " + std::to_string(w.template lpNorm<Eigen::Infinity>()) +
                     " (tolerance 1e-10)");
    }
  }
  // The velocity at k = 0 is that of the pre-momentum −D1 L_d(q0, q1) (its part on D).
  const auto d = differentiate(method.discrete_lagrangian(), q0, q1);
  const PhasePoint<n> start{q0, velocity_in_distribution(sys, q0, Vecd<n>(-d.D1))};
  return observe_run(sys, method, method.initial_state_two_point(q0, q1), options, name, start);
}

template <CatalogueSystem S, class Method>
RunResult run_one_step(const S& sys, const Method& method, const InitialData& init, const RunOptions& o,
                       const std::string& name) {
  if (init.q1) throw BadInput("--q1 starts a two-step method (del, dla); " + name + " starts from (q0, v0)");
  return observe_run(sys, method, method.initial_state(fixed<S::n>(init.q0), fixed<S::n>(init.v0)), o, name,
                     std::nullopt);
}

}  // namespace detail

}  // namespace dalembert
