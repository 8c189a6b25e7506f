#pragma once
// Observing a run: system + method + step size + initial data -> trajectory and summary.
//
// observe_run() drives any method and records energy, constraint residuals, Newton iterations and
// wall time (through io/recorder.hpp); run_two_step() and run_one_step() add the two kinds of
// start. The method families' runners (io/runners/*.hpp) build methods from RunOptions and call
// these; io/run.hpp picks the family by the method's command-line name. Methods stay free of I/O
// and timing.
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include <Eigen/Core>

#include "dalembert/io/errors.hpp"
#include "dalembert/io/recorder.hpp"
#include "dalembert/io/run_options.hpp"
#include "dalembert/io/trajectory.hpp"
#include "dalembert/discrete/discrete_constraint.hpp"
#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/method/integrate.hpp"
#include "dalembert/model/dynamics.hpp"
#include "dalembert/model/second_order.hpp"
#include "dalembert/solve/newton.hpp"
#include "dalembert/models/catalogue_entry.hpp"
#include "dalembert/models/contact_entry.hpp"

namespace dalembert {

namespace detail {

template <class State>
concept HasDiscreteConstraint = requires(const State& s) { s.discrete_constraint; };

/// The `constraint` column: |M(q) v + b(q, t)|_inf for Lagrange–d'Alembert models; for second-order
/// constrained systems the kinematic residual |Φ(q, v, a)|_inf, with the acceleration `a` of the
/// method (or, where there is none, of the continuous equations).
template <class S>
double constraint_column(const S& sys, const VecN<S>& q, const VecN<S>& v, double t, const VecN<S>* a) {
  if constexpr (SecondOrderSystem<S>) {
    VecN<S> acc;
    if (a) acc = *a;
    else if (!solve_acceleration(sys, q, v, acc).converged) return std::numeric_limits<double>::quiet_NaN();
    return kinematic_residual(sys, q, v, acc);
  } else {
    return constraint_residual(sys, q, v, t);
  }
}

/// A method with extra CSV columns: a static array `extra_columns` of names and
/// `extra_values(state)` returning as many numbers (written after the standard columns).
template <class Method>
concept HasExtraColumns = requires(const Method& m, const typename Method::State& s) {
  Method::extra_columns;
  { m.extra_values(s) };
};

/// A method that carries a momentum: `carried_momentum(state)`, the momentum whose velocity
/// `velocity(state)` is (written as the columns p_<coordinate>).
template <class Method>
concept CarriesMomentum = requires(const Method& m, const typename Method::State& s) {
  m.carried_momentum(s);
};

/// A method that carries multipliers: `carried_multiplier(state)`, its estimate of the continuous λ
/// of M(q)ᵀλ (written as the columns lambda_1 … lambda_m; not a number on rows of no step).
template <class Method>
concept CarriesMultiplier = requires(const Method& m, const typename Method::State& s) {
  m.carried_multiplier(s);
};

/// The systems a run can observe: catalogue systems on TQ and contact ones on TQ × R.
template <class S>
concept RunnableSystem = CatalogueMetadata<S> || ContactCatalogueSystem<S>;

/// The number of constraints of a system, at run time.
template <RunnableSystem S>
int constraints_of(const S& sys) {
  if constexpr (ContactCatalogueSystem<S>) {
    return contact_constraint_count(sys);
  } else {
    return constraint_count(sys);
  }
}

/// Least-squares slope of log|E_k| against t_k, accumulated row by row: the decay rate of the energy
/// of a contact system (E(t) = E(0) e^{γt} for L = L0 + γz). Undefined when E changes sign or vanishes.
struct LogSlopeFit {
  double n = 0, st = 0, sy = 0, stt = 0, sty = 0;
  int sign = 0;
  bool valid = true;
  void add(double t, double E) {
    const int s = (E > 0) - (E < 0);
    if (s == 0 || (sign != 0 && s != sign) || !std::isfinite(E)) valid = false;
    sign = s;
    if (!valid) return;
    const double y = std::log(std::abs(E));
    n += 1;
    st += t;
    sy += y;
    stt += t * t;
    sty += t * y;
  }
  std::optional<double> slope() const {
    const double d = n * stt - st * st;
    if (!valid || n < 2 || !(d > 0)) return std::nullopt;
    return (n * sty - st * sy) / d;
  }
};

/// Drives `method` from `state` and records every `every`-th row plus the last one.
/// `first_row` (optional) is a row for k = 0 already known, used by two-point starts; `first_z` is
/// its action variable for contact systems. The columns: t, the coordinates, the method's velocity
/// `<coordinate>_t`, `z` for a contact system, energy, constraint, discrete_constraint (methods with
/// one), newton_iterations, then momenta `p_<coordinate>` and multipliers `lambda_<k>` where the
/// method carries them, then the system's monitor, the method's extra columns and the system's
/// derived quantities. A contact system's `energy` is E_L(q, v, z) and its summary carries the decay
/// rate.
template <RunnableSystem S, class Method>
  requires dalembert::Method<Method>
RunResult observe_run(const S& sys, const Method& method, typename Method::State state,
                      const RunOptions& options, const std::string& method_name,
                      const std::optional<PhasePointOf<S>>& first_row, double first_z = 0.0) {
  const int n = coordinate_count(sys);
  using State = typename Method::State;
  using Point = VecN<S>;
  constexpr bool contact = ContactCatalogueSystem<S>;
  // The discrete_constraint column: methods with a discrete constraint, on constrained systems.
  constexpr bool state_has_discrete = HasDiscreteConstraint<State>;
  const bool has_discrete = state_has_discrete && constraints_of(sys) > 0;

  RunResult result;
  auto& sum = result.summary;
  sum.system = name_of(sys);
  sum.method = method_name;
  sum.h = options.h;
  const int multipliers = CarriesMultiplier<Method> ? constraints_of(sys) : 0;
  const std::vector<std::string> coordinates = coordinate_names_of(sys);
  std::vector<std::string> columns{"t"};
  columns.insert(columns.end(), coordinates.begin(), coordinates.end());
  for (const auto& c : coordinates) columns.push_back(velocity_column(c));
  if (contact) columns.push_back("z");
  columns.insert(columns.end(), {"energy", "constraint"});
  if (has_discrete) columns.push_back("discrete_constraint");
  columns.push_back("newton_iterations");
  if constexpr (CarriesMomentum<Method>) {
    for (const auto& c : coordinates) columns.push_back("p_" + c);
  }
  for (int j = 1; j <= multipliers; ++j) columns.push_back("lambda_" + std::to_string(j));
  if constexpr (HasMonitor<S>) columns.emplace_back(S::monitor_name);
  std::size_t method_extras = 0;
  if constexpr (HasExtraColumns<Method>) {
    for (const auto& c : Method::extra_columns) columns.emplace_back(c);
    method_extras = std::size(Method::extra_columns);
  }
  std::size_t derived = 0;  // the system's own columns come last
  if constexpr (HasDerivedQuantities<S>) {
    const auto names = sys.derived_quantity_names();
    columns.insert(columns.end(), names.begin(), names.end());
    derived = names.size();
  }
  RunRecorder recorder(result, std::move(columns), options, has_discrete);
  // The energy is a conserved quantity to watch unless the action variable of a contact system or
  // second-order constraints change it; with an external force, a Lagrangian of t (whose time part
  // acts as a force), or affine constraints (a moving table, a string pulled in: their force M(q)ᵀλ
  // does work, λ·(M v) = −λ·b), its balance with their work is watched instead.
  const bool energy_is_watched = !contact && !SecondOrderSystem<S>;
  const bool does_work = forces_do_work(sys);
  recorder.watch_energy(!energy_is_watched ? RunRecorder::EnergyWatch::none
                        : does_work        ? RunRecorder::EnergyWatch::balance
                                           : RunRecorder::EnergyWatch::conserved);
  // The work W_k of the external force and of the affine constraints' force, by the trapezoidal rule
  // on their power (F + M(q)ᵀλ)·v at consecutive rows, λ the multiplier of the continuous equations,
  // or from the method where it integrates W with its stages (rk4, the reference solver, SPARK) or
  // along its arcs (exact).
  // Of a Lagrangian of t, L = L(q, v, 0) + L_t, F includes the force of L_t, and W the change of the
  // energy's part E_t = v·∂L_t/∂v − L_t (energy_at_time): E − E0 − W is then the balance of L(q, v, 0)'s
  // energy with the work of every force, which holds along the exact motion as dE/dt = −∂L/∂t + F·v.
  double work = 0.0, last_power = 0.0, last_t = 0.0, first_energy_at_time = 0.0, first_work = 0.0;
  bool have_power = false;
  const std::vector<std::string> derived_names = [&] {
    if constexpr (HasDerivedQuantities<S>) return sys.derived_quantity_names();
    return std::vector<std::string>{};
  }();

  std::vector<double> row(recorder.width());
  LogSlopeFit decay;
  bool first_row_of_run = true;
  // `stepped`: the row follows a step of the method (its Newton iterations count in the summary).
  // `a` (may be null) is the method's acceleration, `s` (null on a start's first row) its state.
  const auto record = [&](long k, double t, const Point& q, const Point& v, double z, const Point* a, double discrete,
                          int iterations, bool stepped, const State* s) {
    // A state that is not finite ends the run, naming what is not (its energy may still be finite).
    for (int j = 0; j < n; ++j) {
      if (!std::isfinite(q[j]))
        throw NonFiniteDiagnostics(k, t, "the coordinate " + coordinates[j] + " is " + std::to_string(q[j]));
      if (!std::isfinite(v[j]))
        throw NonFiniteDiagnostics(k, t, "the velocity " + velocity_column(coordinates[j]) + " is " + std::to_string(v[j]));
    }
    if (contact && !std::isfinite(z)) throw NonFiniteDiagnostics(k, t, "the action variable z is " + std::to_string(z));
    if constexpr (Model<S>) {
      if (does_work) {
        if constexpr (requires { s->work; }) {  // the method's own (rk4, reference, spark, exact)
          if (s) {
            if (first_row_of_run) first_work = s->work;
            work = s->work - first_work;
          }
        } else {
          const double power = power_of_forces(sys, q, v, t);
          if (have_power) work += 0.5 * (t - last_t) * (last_power + power);
          last_power = power;
          last_t = t;
          have_power = true;
        }
      }
    }
    double E, c, energy_size = 0.0, time_part = 0.0;
    if constexpr (contact) {
      E = energy(sys, q, v, z);
      c = constraint_residual(sys, q, v);
      decay.add(t, E);
    } else {
      if constexpr (Model<S> && !SecondOrderSystem<S>) {
        const EnergyTerms terms = energy_terms(sys, q, v);
        E = terms.energy();
        energy_size = terms.size();
      } else {
        E = energy(sys, q, v);
      }
      if constexpr (LagrangianMayDependOnTime<S>) {
        const double energy_at_time = sys.energy_at_time(q, t);
        E += energy_at_time;
        if (first_row_of_run) first_energy_at_time = energy_at_time;
        time_part = energy_at_time - first_energy_at_time;
      }
      c = constraint_column(sys, q, v, t, a);
    }
    std::size_t i = 0;
    row[i++] = options.t0 + t;  // the methods count time from 0
    for (int j = 0; j < n; ++j) row[i++] = q[j];
    for (int j = 0; j < n; ++j) row[i++] = v[j];
    if (contact) row[i++] = z;
    row[i++] = E;
    row[i++] = c;
    if (has_discrete) row[i++] = discrete;
    row[i++] = iterations;
    // The method's own columns come from its state; a start's first row has none (not a number),
    // and its multipliers exist only after a step.
    const auto put = [&](const auto& values, std::size_t count) {
      for (std::size_t j = 0; j < count; ++j) row[i++] = values[j];
    };
    const auto put_none = [&](std::size_t count) {
      for (std::size_t j = 0; j < count; ++j) row[i++] = std::numeric_limits<double>::quiet_NaN();
    };
    if constexpr (CarriesMomentum<Method>) {
      if (s) {
        put(method.carried_momentum(*s), n);
        if constexpr (LagrangianMayDependOnTime<S>) sys.add_momentum_at_time(q, t, row.data() + i - n);
      } else {
        put_none(n);
      }
    }
    if constexpr (CarriesMultiplier<Method>) {
      if (s && stepped)
        put(method.carried_multiplier(*s), multipliers);
      else
        put_none(multipliers);
    }
    if constexpr (HasMonitor<S>) row[i++] = sys.monitor(q, v);
    if constexpr (HasExtraColumns<Method>) {
      if (s)
        put(method.extra_values(*s), method_extras);
      else
        put_none(method_extras);
    }
    if constexpr (HasDerivedQuantities<S>) {
      if (derived > 0) {
        sys.derived_quantities(q, v, t, row.data() + i);
        for (std::size_t j = 0; j < derived; ++j)
          if (!std::isfinite(row[i + j])) recorder.derived_not_finite(k, t, derived_names[j]);
      }
    }
    if constexpr (MayHaveHolonomicConstraints<S>) {
      if (sys.holonomic_constraint_count() > 0) {  // watched by holonomic-drift
        const auto phi = sys.template holonomic_values<double>(q, t);
        recorder.holonomic_residual(k, row[0], phi.template lpNorm<Eigen::Infinity>());
      }
    }
    recorder.add(k, row, E, c, discrete, iterations, stepped, energy_size, work + time_part);
    first_row_of_run = false;
  };

  const long remaining = options.steps - state.k;
  const long k_start = state.k;
  recorder.record([&] {
    if (first_row) record(0, 0.0, first_row->q, first_row->v, first_z, nullptr, 0.0, 0, false, nullptr);
    integrate(method, state, remaining, [&](const State& s) {
      double discrete = 0.0, z = 0.0;
      if constexpr (state_has_discrete) discrete = s.discrete_constraint;
      if constexpr (contact) z = s.z;
      const Point* a = nullptr;
      Point acceleration;
      if constexpr (requires { method.acceleration(s); }) {
        acceleration = method.acceleration(s);
        a = &acceleration;
      }
      record(s.k, s.t, s.q, method.velocity(s), z, a, discrete, s.iterations, s.k > k_start, &s);
      recorder.parasitic_mode_of(method, s, s.k > k_start);
    });
  });
  if (contact) sum.energy_decay_rate = decay.slope();
  return result;
}

/// A vector of the command line (checked to have n entries) as a point of S.
template <class S>
VecN<S> point_of(const Eigen::VectorXd& x) {
  return VecN<S>(x);
}

/// Runs a two-step method (DEL or DLA), from (q0, v0) or from (q0, q1).
template <CatalogueSystem S, class Method>
RunResult run_two_step(const S& sys, const Method& method, const InitialData& init,
                       const RunOptions& options, const std::string& name) {
  const VecN<S> q0 = point_of<S>(init.q0);
  if (!init.q1) return observe_run(sys, method, method.initial_state(q0, point_of<S>(init.v0)), options, name, std::nullopt);

  if (options.steps < 1) throw BadOption("q1", "a two-point start needs at least one step");
  const VecN<S> q1 = point_of<S>(*init.q1);
  if constexpr (requires { method.discrete_constraint(); }) {
    const auto w = discrete_constraint_at(method.discrete_constraint(), q0, q1, 0.0);
    const double scale = 1.0 + ((q1 - q0) / options.h).template lpNorm<Eigen::Infinity>();
    if (w.size() > 0 && w.template lpNorm<Eigen::Infinity>() > 1e-10 * scale) {
      throw BadInput("(q0, q1) violates the discrete constraint of " + name_of(sys) +
                     ": |omega(q0, q1)| = " + format_residual(w.template lpNorm<Eigen::Infinity>()) +
                     " (tolerance 1e-10)");
    }
  }
  // The velocity at k = 0 is that of the pre-momentum −D1 L_d(q0, q1) (its part on D), or of the
  // method's own pre-momentum where it has one (forced: −D1 L_d − F_d^−; exact: FL∘R^{e−}).
  VecN<S> pre;
  if constexpr (requires { method.pre_momentum(q0, q1); }) {
    pre = method.pre_momentum(q0, q1);
  } else {
    pre = -differentiate(method.discrete_lagrangian(), q0, q1).D1;
  }
  const PhasePointOf<S> start{q0, velocity_in_distribution(sys, q0, pre, 0.0)};
  return observe_run(sys, method, method.initial_state_two_point(q0, q1), options, name, start);
}

template <CatalogueMetadata S, class Method>
RunResult run_one_step(const S& sys, const Method& method, const InitialData& init, const RunOptions& o,
                       const std::string& name) {
  if (init.q1)
    throw BadOption("q1", "starts a two-step method (del, dla, mla, exact); " + name + " starts from (q0, v0)");
  return observe_run(sys, method, method.initial_state(point_of<S>(init.q0), point_of<S>(init.v0)), o, name,
                     std::nullopt);
}

}  // namespace detail

}  // namespace dalembert
