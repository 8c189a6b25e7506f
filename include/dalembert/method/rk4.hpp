#pragma once
// Classical fourth-order Runge–Kutta on the continuous equations of a system, the non-geometric
// baseline the papers compare with: the step is solve/runge_kutta4.hpp on the first-order field of
// the system's kind (model/first_order_field.hpp), y = (q, v) for Lagrange–d'Alembert models with
// q̈(q, v, t) the multiplier extension, (q, v, z) for contact systems, (g, Ω) for rigid bodies.
#include "dalembert/model/first_order_field.hpp"
#include "dalembert/solve/runge_kutta4.hpp"

namespace dalembert {

template <FirstOrderField F>
class FieldRungeKutta4 {
 public:
  using Point = typename F::Point;
  using State = ContinuousState<Point>;

  FieldRungeKutta4(const typename F::System& system, double h) : field_{{system}}, h_(h) {}
  double step_size() const { return h_; }
  const typename F::System& system() const { return field_.system; }

  /// The state at t = 0 from the phase point's parts: (q0, v0), (q0, v0, z0) or (g0, Ω0).
  template <class... Parts>
  State initial_state(const Parts&... x0) const {
    return state_at_start<State, Point>(x0...);
  }

  void step(State& s) const {
    using Vector = Vecd<F::dimension, F::max_dimension>;
    const int size = field_.size();
    Vector y(size);
    field_.pack(s, y.data());
    runge_kutta4_step(
        [&](double t, const Vector& x) {
          Vector rate(size);
          field_.rate(t, x.data(), rate.data());
          return rate;
        },
        y, grid_time(s.k, h_), h_);
    static_cast<Point&>(s) = field_.unpack(y.data());
    advance(s, h_);
  }

  auto velocity(const State& s) const { return field_.velocity(s); }

 private:
  F field_;
  double h_;
};

template <Model S>
using RungeKutta4 = FieldRungeKutta4<MechanicalField<S>>;
template <ContactModel S>
using ContactRungeKutta4 = FieldRungeKutta4<ContactField<S>>;
template <RigidBodyModel B>
using RigidBodyRungeKutta4 = FieldRungeKutta4<RigidBodyField<B>>;

}  // namespace dalembert
