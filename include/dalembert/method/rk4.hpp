#pragma once
// Classical fourth-order Runge–Kutta on the continuous equations of a system, the non-geometric
// baseline the papers compare with: the step is solve/runge_kutta4.hpp on the first-order field of
// the system's kind (model/first_order_field.hpp), y = (q, v) for Lagrange–d'Alembert models with
// q̈(q, v, t) the multiplier extension, (q, v, z) for contact systems, (g, Ω) for rigid bodies.
// On a Lagrange–d'Alembert model the step's derivatives by (q_k, v_k) and by a constant external
// force come from the same stages in dual numbers (step_derivatives). A model with holonomic
// constraints is projected onto them after each step (model/constraint_projection.hpp). Where an
// external force or moving constraints do work, the work W of the run's energy balance
// (io/observe.hpp) is one more entry of y, Ẇ = (F + M(q)ᵀλ)·v at each stage: of order 4 like the
// motion, where the rows' trapezoidal rule is of order 2.
#include <type_traits>

#include "dalembert/model/first_order_field.hpp"
#include "dalembert/solve/runge_kutta4.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert {

/// The field of a Lagrange–d'Alembert model stored densely (not a sum of local terms): RK4's step
/// derivatives differentiate its stages in dual numbers.
template <class F>
concept DenseMechanicalField =
    std::is_same_v<F, MechanicalField<typename F::System>> && !LocallyCoupled<typename F::System>;

template <FirstOrderField F>
class FieldRungeKutta4 {
 public:
  using Point = typename F::Point;
  struct State : ContinuousState<Point> {
    double work = 0.0;  ///< W since t = 0, where the field's forces do work (MayDoWork)
  };
  /// A model's holonomic constraints hold on the new positions (ProjectsOntoConstraints).
  static constexpr bool imposes_holonomic_constraints = ProjectsOntoConstraints<F>;

  FieldRungeKutta4(const typename F::System& system, double h)
      : field_{{system}}, h_(h), does_work_(MayDoWork<F> && forces_do_work(system)) {}
  double step_size() const { return h_; }
  const typename F::System& system() const { return field_.system; }

  /// The state at t = 0 from the phase point's parts: (q0, v0), (q0, v0, z0) or (g0, Ω0).
  template <class... Parts>
  State initial_state(const Parts&... x0) const {
    return state_at_start<State, Point>(x0...);
  }

  void step(State& s) const {
    if constexpr (MayDoWork<F>) {
      if (does_work_) return step_with_work(s);
    }
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
    end_step(y, s);
  }

  auto velocity(const State& s) const { return field_.velocity(s); }

  /// ∂(q_{k+1}, v_{k+1})/∂(q_k, v_k) of the step from s, 2n × 2n, rows q_{k+1} then v_{k+1}, columns
  /// q_k then v_k (RK4 carries the velocity, not the momentum), of a Lagrange–d'Alembert model.
  Eigen::MatrixXd step_derivative(const State& s) const
    requires DenseMechanicalField<F>
  {
    return derivatives<false>(s).by_state;
  }

  /// step_derivative(s) and the derivative of the step's result by a constant external force f added
  /// to the model's over the step, at f = 0 (2n × n): the A and B of the step's linearisation.
  StepDerivatives step_derivatives(const State& s) const
    requires DenseMechanicalField<F>
  {
    return derivatives<true>(s);
  }

 private:
  /// The step with W as the last entry of y (the stages combine it entry by entry, so the motion's
  /// entries are those of the step without it). Out of line, so that the step without W, which
  /// nearly every model takes, is the code it was.
  [[gnu::noinline]] void step_with_work(State& s) const
    requires MayDoWork<F>
  {
    using Vector = Vecd<sum_of_sizes(F::dimension, 1), sum_of_sizes(F::max_dimension, 1)>;
    const int size = field_.size();
    Vector y(size + 1);
    field_.pack(s, y.data());
    y[size] = s.work;
    runge_kutta4_step(
        [&](double t, const Vector& x) {
          Vector rate(size + 1);
          rate[size] = field_.rate_and_power(t, x.data(), rate.data());
          return rate;
        },
        y, grid_time(s.k, h_), h_);
    s.work = y[size];
    end_step(y, s);
  }

  /// The new phase point from y, projected where the model has holonomic constraints.
  template <class Vector>
  void end_step(const Vector& y, State& s) const {
    static_cast<Point&>(s) = field_.unpack(y.data());
    if constexpr (ProjectsOntoConstraints<F>) field_.project(s.k + 1, grid_time(s.k + 1, h_), s);
    advance(s, h_);
  }

  /// The step, explicit, in dual numbers: forward mode in the directions (q_k, v_k) and, with
  /// ByForce, f, through the same stages, with q̈ = constrained_acceleration(q, v, t, f).
  template <bool ByForce>
  StepDerivatives derivatives(const State& s) const {
    using S = typename F::System;
    constexpr int N = S::n, MaxN = max_n_of<S>(), blocks = ByForce ? 3 : 2;
    constexpr int NZ = multiple_of_size(blocks, N), MaxNZ = multiple_of_size(blocks, MaxN);
    constexpr int NY = multiple_of_size(2, N), MaxNY = multiple_of_size(2, MaxN);
    const S& sys = field_.system;
    const int n = coordinate_count(sys);
    Vecd<NZ, MaxNZ> z = Vecd<NZ, MaxNZ>::Zero(blocks * n);  // (q_k, v_k, [f = 0])
    z.template head<N>(n) = s.q;
    z.template segment<N>(n, n) = s.v;
    const auto step_of = [&](const auto& w) {
      using T = typename std::decay_t<decltype(w)>::Scalar;
      using Y = Vec<T, NY, MaxNY>;
      const auto f = constant_force_in<ByForce, VecN<S, T>>(w, 2 * n, n);
      Y y = w.head(2 * n);
      const auto rate = [&](double t, const Y& x) {
        const VecN<S, T> q = x.template head<N>(n), v = x.template segment<N>(n, n);
        Y dx(2 * n);
        dx << v, constrained_acceleration(sys, q, v, t, f).acceleration;
        return dx;
      };
      runge_kutta4_step(rate, y, grid_time(s.k, h_), h_);
      if constexpr (ProjectsOntoConstraints<F>) {
        VecN<S, T> q = y.template head<N>(n), v = y.template segment<N>(n, n);
        project_onto_constraints(sys, q, v, grid_time(s.k + 1, h_));
        y << q, v;
      }
      return y;
    };
    Vecd<NY, MaxNY> next;
    Matd<NY, NZ, MaxNY, MaxNZ> J;
    ad::value_and_jacobian<NZ, NY, MaxNZ, MaxNY>(step_of, z, next, J);
    StepDerivatives out{J.leftCols(2 * n), {}};
    if constexpr (ByForce) out.by_force = J.rightCols(n);
    return out;
  }

  F field_;
  double h_;
  bool does_work_;  ///< whether the step integrates W (step_with_work)
};

/// RK4 on a system of any kind (model/first_order_field.hpp).
template <class S>
using RungeKutta4 = FieldRungeKutta4<FieldOf<S>>;

}  // namespace dalembert
