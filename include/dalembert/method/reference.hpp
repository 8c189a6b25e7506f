#pragma once
// High-accuracy reference solutions, "the truth" for error measurements wherever no closed form
// exists: Bulirsch–Stoer extrapolation with step-size control (solve/bulirsch_stoer.hpp) on the
// first-order field of the system's kind (model/first_order_field.hpp), sampled at the
// integrator's grid t_k = k h. Tolerances are absolute and relative. A model with holonomic
// constraints is projected onto them at each grid time (model/constraint_projection.hpp).
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
  };

  FieldReference(const typename F::System& system, double h, double tolerance = 1e-13)
      : field_{{system}}, h_(h), tolerance_(tolerance) {}
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
    using OdeState = OdeintState<F::dimension>;
    OdeState y;
    if constexpr (F::dimension == Dynamic) y.resize(field_.size());
    field_.pack(s, y.data());
    const auto rate = [this](const OdeState& x, OdeState& dx, double t) { field_.rate(t, x.data(), dx.data()); };
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
    if constexpr (ProjectsOntoConstraints<F>) field_.project(grid_time(k1, h_), s);
    advance(s, h_);
  }

  auto velocity(const State& s) const { return field_.velocity(s); }
  /// The acceleration, for the kinds whose field has it apart from the state (second order).
  auto acceleration(const State& s) const
    requires requires(const F& f) { f.acceleration(s); }
  {
    return field_.acceleration(s);
  }

 private:
  F field_;
  double h_;
  double tolerance_;
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
