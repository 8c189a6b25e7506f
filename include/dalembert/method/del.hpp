#pragma once
// Discrete Euler–Lagrange equations (variational integrators, thesis §3.7.1):
//   D2 L_d(q_{k−1}, q_k) + D1 L_d(q_k, q_{k+1}) = 0.
// Position–momentum form: with p_k = D2 L_d(q_{k−1}, q_k), solve p_k + D1 L_d(q_k, q_{k+1}) = 0 for
// q_{k+1} (Newton, Jacobian D12 L_d), then p_{k+1} = D2 L_d(q_k, q_{k+1}).
// A model with an external force gets the forced DEL, with the midpoint discrete forces F_d^±:
// p_k + D1 L_d + F_d^- = 0,  p_{k+1} = D2 L_d + F_d^+.
#include <type_traits>

#include "dalembert/discrete/discrete_force.hpp"
#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/discrete/position_momentum_derivative.hpp"
#include "dalembert/model/dynamics.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert {

template <Model S, DiscreteLagrangian Ld>
class DiscreteEulerLagrange {
 public:
  static constexpr int n = S::n;
  static_assert(Ld::n == n, "discrete Lagrangian and system must have the same dimension");

  struct State : OnTheGrid {
    VecN<S> q;
    VecN<S> p;               ///< discrete momentum p_k = D2 L_d(q_{k−1}, q_k) = −D1 L_d(q_k, q_{k+1})
    VecN<S> last_velocity;   ///< (q_k − q_{k−1})/h, the Newton initial guess of the next step
    VecN<S> q_low = no_low_part<VecN<S>>();  ///< q_k below the last bit of q (solve/below_last_bit.hpp)
  };

  DiscreteEulerLagrange(const S& system, Ld discrete_lagrangian, NewtonOptions options = {})
      : system_(system), forced_(with_model_force(system, std::move(discrete_lagrangian))), options_(options) {}

  double step_size() const { return forced_.step_size(); }
  const S& system() const { return system_; }
  const Ld& discrete_lagrangian() const { return forced_.discrete_lagrangian(); }

  /// Position–momentum start: p0 = ∂L/∂v(q0, v0).
  State initial_state(const VecN<S>& q0, const VecN<S>& v0) const {
    return State{{}, q0, momentum(system_, q0, v0), v0};
  }

  /// The momentum at q0 of a two-point start (q0 at t = 0), the forced discrete Legendre map
  /// F^{f−}L_d(q0, q1) = −D1 L_d(q0, q1) − F_d^−(q0, q1): the first row's velocity is its.
  VecN<S> pre_momentum(const VecN<S>& q0, const VecN<S>& q1) const {
    return forced_.legendre_maps(q0, q1, 0.0).minus;
  }

  /// Two-point start from (q0, q1) as in the papers; the returned state is at k = 1.
  State initial_state_two_point(const VecN<S>& q0, const VecN<S>& q1) const {
    const double h = step_size();
    return State{{.k = 1, .t = h}, q1, forced_.legendre_maps(q0, q1, 0.0).plus, (q1 - q0) / h};
  }

  // The step forms p_k + D1 L_d + F_d^− and its Jacobian directly rather than through the forced
  // Legendre maps (forced_.legendre_maps), whose signs add two negations to the library's cheapest
  // step.
  void step(State& s) const {
    const double h = step_size();
    DerivativesOf<Ld> d;  // of the last evaluation = at the solution
    TwoSidedForceDerivatives<n, max_n_of<S>()> f;
    const bool forced = forced_.discrete_force().active();
    const auto evaluate = [&](const VecN<S>& q1, VecN<S>& F, MatNN<S>& J) {
      d = differentiate(discrete_lagrangian(), s.q, q1);
      F = s.p + d.D1;
      J = d.D12;
      if (forced) {
        f = differentiate(forced_.discrete_force(), s.q, q1, s.t);
        F += f.minus;
        J += f.minus_q1;
      }
    };
    const auto next_momentum = [&] {
      VecN<S> p = d.D2;
      if (forced) p += f.plus;
      return p;
    };
    s.p = position_momentum_step<MatNN<S>>(s, h, VecN<S>(s.q + h * s.last_velocity),
                                           s.p.template lpNorm<Eigen::Infinity>(), options_,
                                           JointEquations{evaluate}, next_momentum);
  }

  /// ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k) of the step from s, as DLA's without constraints
  /// (discrete/position_momentum_derivative.hpp): a symplectic matrix. It takes a step of its own.
  Eigen::MatrixXd step_derivative(const State& s) const {
    const State next = step_from(*this, s);
    const auto force = midpoint_external_force(system_, step_size(), s.t);
    return position_momentum_step_derivative(system_, discrete_lagrangian(), NoDiscreteConstraint{}, force, force, s.q, s.p, next.q, 0);
  }

  /// step_derivative(s) and the derivative by a constant external force f added over the step, at
  /// f = 0, as DLA's step_derivatives.
  StepDerivatives step_derivatives(const State& s) const {
    const State next = step_from(*this, s);
    const auto forces = midpoint_forces_with_constant_force(system_, step_size(), s.t);
    return position_momentum_step_derivatives(system_, discrete_lagrangian(), NoDiscreteConstraint{}, forces, forces,
                                              s.q, s.p, next.q, 0);
  }

  /// The velocity of the discrete momentum (inverse Legendre map).
  VecN<S> velocity(const State& s) const { return velocity_in_distribution(unconstrained(), s.q, s.p); }
  const VecN<S>& carried_momentum(const State& s) const { return s.p; }

 private:
  // DEL ignores constraints: the velocity of p is the plain inverse Legendre map.
  struct Unconstrained {
    static constexpr int n = S::n, m = 0, max_n = max_n_of<S>();
    const S* system;
    int dimension() const { return coordinate_count(*system); }
    template <class T>
    T lagrangian(const VecN<S, T>& q, const VecN<S, T>& v) const { return system->template lagrangian<T>(q, v); }
    template <class T>
    Mat<T, 0, n, 0, max_n> constraint_matrix(const VecN<S, T>& q) const { return Mat<T, 0, n, 0, max_n>(0, q.size()); }
  };
  Unconstrained unconstrained() const { return Unconstrained{&system_}; }

  S system_;
  WithForces<std::remove_cv_t<Ld>, ModelForce<S>> forced_;  ///< L_d with the model's force, if it has one
  NewtonOptions options_;
};

}  // namespace dalembert
