#pragma once
// Discrete Lagrange–d'Alembert integrator of Cortés and Martínez (spec seed-000-001 §2.8,
// seed-003 §2.3): with a discrete Lagrangian L_d and a discrete constraint space {ω = 0},
//   D2 L_d(q_{k−1}, q_k) + D1 L_d(q_k, q_{k+1}) = M(q_k)ᵀ λ_k,     ω(q_k, q_{k+1}) = 0.
// Position–momentum form, state (q_k, p⁺_k) with p⁺_k = D2 L_d(q_{k−1}, q_k): solve
//   p⁺_k + D1 L_d(q_k, q_{k+1}) − M(q_k)ᵀ λ = 0,   ω(q_k, q_{k+1}) = 0
// for (q_{k+1}, λ) by Newton, then p⁺_{k+1} = D2 L_d(q_k, q_{k+1}). The pre-momentum is
// p⁻_k = p⁺_k − M(q_k)ᵀλ_k; both have the same components on D, the constrained momentum on D*.
// A model with an external force adds the midpoint discrete forces F_d^± (discrete_force.hpp):
// p⁺_k + D1 L_d + F_d^- − M(q_k)ᵀλ = 0 and p⁺_{k+1} = D2 L_d + F_d^+.
#include "dalembert/discrete/discrete_constraint.hpp"
#include "dalembert/discrete/discrete_force.hpp"
#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/model/dynamics.hpp"
#include "dalembert/solve/newton.hpp"

namespace dalembert {

template <Model S, DiscreteLagrangian Ld, DiscreteConstraint Dc>
class DiscreteLagrangeDAlembert {
 public:
  static constexpr int n = S::n;
  static constexpr int m = S::m;
  static_assert(Ld::n == n && Dc::n == n && Dc::m == m, "inconsistent dimensions");

  struct State {
    long k = 0;
    double t = 0.0;
    Vecd<n> q;
    Vecd<n> p;              ///< post-momentum p⁺_k = D2 L_d(q_{k−1}, q_k)
    Vecd<m> multiplier;     ///< λ of the last step (impulse M(q)ᵀλ at q_{k−1})
    Vecd<n> last_velocity;  ///< (q_k − q_{k−1})/h, the Newton initial guess of the next step
    double discrete_constraint = 0.0;  ///< |ω(q_{k−1}, q_k)|_inf
    int iterations = 0;
  };

  DiscreteLagrangeDAlembert(const S& system, Ld discrete_lagrangian, Dc discrete_constraint,
                            NewtonOptions options = {})
      : system_(system), ld_(std::move(discrete_lagrangian)), dc_(std::move(discrete_constraint)),
        options_(options) {}

  double step_size() const { return ld_.step_size(); }
  const S& system() const { return system_; }
  const Ld& discrete_lagrangian() const { return ld_; }
  const Dc& discrete_constraint() const { return dc_; }

  /// Position–momentum start from v0 ∈ D: p⁺_0 = ∂L/∂v(q0, v0).
  State initial_state(const Vecd<n>& q0, const Vecd<n>& v0) const {
    State s;
    s.q = q0;
    s.p = momentum(system_, q0, v0);
    s.multiplier.setZero();
    s.last_velocity = v0;
    return s;
  }

  /// The momentum at q0 of a two-point start, the forced discrete Legendre map
  /// F^{f−}L_d(q0, q1) = −D1 L_d(q0, q1) − F_d^−(q0, q1): the first row's velocity is its.
  Vecd<n> pre_momentum(const Vecd<n>& q0, const Vecd<n>& q1) const {
    Vecd<n> p = -differentiate(ld_, q0, q1).D1;
    if constexpr (HasExternalForce<S>) p -= MidpointForce<S>(system_, step_size())(q0, q1);
    return p;
  }

  /// Two-point start from (q0, q1) ∈ M_d, as in the papers; the returned state is at k = 1.
  State initial_state_two_point(const Vecd<n>& q0, const Vecd<n>& q1) const {
    const double h = step_size();
    State s;
    s.k = 1;
    s.t = h;
    s.q = q1;
    s.p = differentiate(ld_, q0, q1).D2;
    if constexpr (HasExternalForce<S>) s.p += MidpointForce<S>(system_, h)(q0, q1);
    s.multiplier.setZero();
    s.last_velocity = (q1 - q0) / h;
    if constexpr (m > 0) s.discrete_constraint = dc_(q0, q1).template lpNorm<Eigen::Infinity>();
    return s;
  }

  void step(State& s) const {
    constexpr int N = n + m;
    const double h = step_size();
    const Matd<m, n> Mq = system_.template constraint_matrix<double>(s.q);
    Vecd<N> x;
    x << s.q + h * s.last_velocity, s.multiplier;
    // By-products of the last residual evaluation, which Newton makes at the solution.
    DiscreteLagrangianSlotDerivatives<n> d;
    Vecd<n> force = Vecd<n>::Zero();
    Vecd<m> omega;
    // Compiled models: the residual takes first derivatives only, since most residuals are
    // evaluated at an iterate that turns out converged, and the Jacobian is computed when Newton
    // needs one. Model files: the residual takes every derivative at once and the Jacobian reuses
    // them, because a generated kernel costs one call whatever the order (measured, a model-file
    // knife-edge step: 375 ns this way, 432 ns split).
    constexpr bool jacobian_with_residual = MechanicalAtRunTime<S>;
    Matd<n, n> D12;          // used when jacobian_with_residual
    Matd<m, n> omega_by_q1;  // likewise
    const auto residual = [&](const Vecd<N>& unknowns, Vecd<N>& F) {
      const Vecd<n> q1 = unknowns.template head<n>();
      if constexpr (jacobian_with_residual) {
        const auto full = differentiate(ld_, s.q, q1);
        d = {full.value, full.D1, full.D2};
        D12 = full.D12;
      } else {
        d = slot_derivatives(ld_, s.q, q1);
      }
      F.template head<n>() = s.p + d.D1;
      if constexpr (HasExternalForce<S>) {
        force = MidpointForce<S>(system_, h)(s.q, q1);
        F.template head<n>() += force;
      }
      if constexpr (m > 0) {
        if constexpr (jacobian_with_residual) {
          const auto w = differentiate(dc_, s.q, q1);
          omega = w.value;
          omega_by_q1 = w.D2;
        } else {
          omega = dc_(s.q, q1);
        }
        F.template head<n>() -= Mq.transpose() * unknowns.template tail<m>();
        F.template tail<m>() = omega;
      }
    };
    const auto jacobian = [&](const Vecd<N>& unknowns, Matd<N, N>& J) {
      const Vecd<n> q1 = unknowns.template head<n>();
      if constexpr (jacobian_with_residual) {
        J.template topLeftCorner<n, n>() = D12;
      } else {
        J.template topLeftCorner<n, n>() = differentiate(ld_, s.q, q1).D12;
      }
      if constexpr (HasExternalForce<S>) {
        J.template topLeftCorner<n, n>() += differentiate(MidpointForce<S>(system_, h), s.q, q1).D2;
      }
      if constexpr (m > 0) {
        J.template topRightCorner<n, m>() = -Mq.transpose();
        if constexpr (jacobian_with_residual) {
          J.template bottomLeftCorner<m, n>() = omega_by_q1;
        } else {
          J.template bottomLeftCorner<m, n>() = differentiate(dc_, s.q, q1).D2;
        }
        J.template bottomRightCorner<m, m>().setZero();
      }
    };
    const double scale = std::max(s.p.template lpNorm<Eigen::Infinity>(),
                                  s.last_velocity.template lpNorm<Eigen::Infinity>());
    const NewtonReport r = newton_solve<N>(residual, jacobian, x, scale, options_);
    if (!r.converged) throw SolverError(s.k + 1, s.t + h, r);
    const Vecd<n> q1 = x.template head<n>();
    s.p = d.D2 + force;
    s.multiplier = x.template tail<m>();
    if constexpr (m > 0) s.discrete_constraint = omega.template lpNorm<Eigen::Infinity>();
    s.last_velocity = (q1 - s.q) / h;
    s.q = q1;
    s.k += 1;
    s.t = static_cast<double>(s.k) * h;  // not accumulated: t_k = k h exactly
    s.iterations = r.iterations;
  }

  /// The velocity in D of the constrained momentum on D* (components of p⁺ on D).
  Vecd<n> velocity(const State& s) const { return velocity_in_distribution(system_, s.q, s.p); }

 private:
  S system_;
  Ld ld_;
  Dc dc_;
  NewtonOptions options_;
};

/// Midpoint DLA (α-rule for both L_d and ω), the default of the command line.
template <Model S>
auto make_dla(const S& system, double h, double alpha = 0.5, NewtonOptions options = {}) {
  return DiscreteLagrangeDAlembert<S, AlphaRule<S>, AlphaConstraint<S>>(
      system, AlphaRule<S>(system, h, alpha), AlphaConstraint<S>(system, h, alpha), options);
}

}  // namespace dalembert
