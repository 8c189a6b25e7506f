#pragma once
// High-accuracy reference solutions, "the truth" for error measurements wherever no closed form
// exists: Bulirsch–Stoer extrapolation with step-size control (solve/bulirsch_stoer.hpp) on the
// first-order field of the system's kind (model/first_order_field.hpp), sampled at the
// integrator's grid t_k = k h. Tolerances are absolute and relative. A model with holonomic
// constraints is projected onto them at each grid time (model/constraint_projection.hpp).
//
// Where an external force or moving constraints do work, the work W = ∫ (F + M(q)ᵀλ)·v dt of the
// run's energy balance (io/observe.hpp) is one more equation, Ẇ = the power, integrated with the
// motion: the rows' trapezoidal rule is of order 2 in h, and over long output intervals its error
// was the balance's (docs/methods.md, "Failure modes and the run's warnings").
#include "dalembert/model/first_order_field.hpp"
#include "dalembert/solve/bulirsch_stoer.hpp"
#include "dalembert/solve/newton.hpp"

namespace dalembert {

template <FirstOrderField F>
class FieldReference {
 public:
  using Point = typename F::Point;
  struct State : ContinuousState<Point> {
    double substep = 0.0;  ///< the inner step-size suggestion, carried between output intervals
    double work = 0.0;     ///< W since t = 0, where the field's forces do work (MayDoWork)
  };

  FieldReference(const typename F::System& system, double h, double tolerance = 1e-13)
      : field_{{system}}, h_(h), tolerance_(tolerance), does_work_(MayDoWork<F> && forces_do_work(system)) {}
  double step_size() const { return h_; }
  const typename F::System& system() const { return field_.system; }

  /// The state at t = 0 from the phase point's parts: (q0, v0), (q0, v0, z0) or (g0, Ω0).
  template <class... Parts>
  State initial_state(const Parts&... x0) const {
    State s = state_at_start<State, Point>(x0...);
    s.substep = h_ / 8;
    return s;
  }

  void step(State& s) const {
    if constexpr (MayDoWork<F>) {
      if (does_work_) return step_with_work(s);
    }
    using OdeState = OdeintState<F::dimension>;
    OdeState y;
    if constexpr (F::dimension == Dynamic) y.resize(field_.size());
    field_.pack(s, y.data());
    integrate([this](const OdeState& x, OdeState& dx, double t) { field_.rate(t, x.data(), dx.data()); }, y, s);
  }

  auto velocity(const State& s) const { return field_.velocity(s); }
  /// The acceleration, for the kinds whose field has it apart from the state (second order).
  auto acceleration(const State& s) const
    requires requires(const F& f) { f.acceleration(s); }
  {
    return field_.acceleration(s);
  }

 private:
  /// The step with W as the last entry of y. W enters scaled by 2⁻⁴⁰ (exact in binary): the
  /// step-size controller follows the largest error, and W's, 2⁴⁰ times smaller than its own, stays
  /// below the motion's, so the substeps and the trajectory are those without W.
  void step_with_work(State& s) const
    requires MayDoWork<F>
  {
    constexpr double scale = 0x1p-40;
    using OdeState = OdeintState<sum_of_sizes(F::dimension, 1)>;
    const int size = field_.size();
    OdeState y;
    if constexpr (F::dimension == Dynamic) y.resize(size + 1);
    field_.pack(s, y.data());
    y[size] = scale * s.work;
    integrate(
        [this, size](const OdeState& x, OdeState& dx, double t) {
          dx[size] = scale * field_.rate_and_power(t, x.data(), dx.data());
        },
        y, s);
    s.work = y[size] / scale;
  }

  /// Integrates y over the output interval from s.k h and writes the new phase point into s.
  template <class OdeState, class Rate>
  void integrate(const Rate& rate, OdeState& y, State& s) const {
    // From the exact grid time k h, so that rounding in t does not accumulate.
    const long k1 = s.k + 1;
    try {
      bulirsch_stoer_interval(rate, y, grid_time(s.k, h_), grid_time(k1, h_), tolerance_, s.substep,
                              max_step_substeps);
    } catch (const IntegrationLimit& e) {
      throw SolverError(k1, grid_time(k1, h_), reference_limit_message(e));
    } catch (const SolverError& e) {  // of the field (a second-order system's acceleration)
      throw e.at(k1, grid_time(k1, h_));
    }
    static_cast<Point&>(s) = field_.unpack(y.data());
    if constexpr (ProjectsOntoConstraints<F>) field_.project(k1, grid_time(k1, h_), s);
    advance(s, h_);
  }

  F field_;
  double h_;
  double tolerance_;
  bool does_work_;  ///< whether the step integrates W (step_with_work)
};

/// The reference solver on a system of any kind (model/first_order_field.hpp).
template <class S>
using ReferenceSolver = FieldReference<FieldOf<S>>;

/// The reference solution at t_end from the phase point x0 (one output interval of length t_end).
template <FirstOrderField F>
typename F::Point reference_solution_of(const typename F::System& system, const typename F::Point& x0, double t_end,
                                        double tolerance = 1e-13) {
  const FieldReference<F> solver(system, t_end, tolerance);
  auto s = solver.initial_state(x0);
  solver.step(s);
  return s;
}

/// (q(t_end), v(t_end)) from (q0, v0).
template <Model S>
PhasePointOf<S> reference_solution(const S& system, const VecN<S>& q0, const VecN<S>& v0, double t_end,
                                   double tolerance = 1e-13) {
  return reference_solution_of<MechanicalField<S>>(system, {q0, v0}, t_end, tolerance);
}
template <SecondOrderSystem S>
PhasePointOf<S> second_order_reference_solution(const S& system, const VecN<S>& q0, const VecN<S>& v0, double t_end,
                                                double tolerance = 1e-13) {
  return reference_solution_of<SecondOrderField<S>>(system, {q0, v0}, t_end, tolerance);
}
template <ContactModel S>
ContactPointOf<S> contact_reference_solution(const S& system, const ContactPointOf<S>& x0, double t_end,
                                             double tolerance = 1e-13) {
  return reference_solution_of<ContactField<S>>(system, x0, t_end, tolerance);
}
template <RigidBodyModel B>
RigidBodyPoint rigid_body_reference_solution(const B& body, const RigidBodyPoint& x0, double t_end,
                                             double tolerance = 1e-13) {
  return reference_solution_of<RigidBodyField<B>>(body, x0, t_end, tolerance);
}

}  // namespace dalembert
