#pragma once
// Discrete Lagrange–d'Alembert integrator of Cortés and Martínez ([CM01]; [dLMS04] §1.3,
// [AS21] §3.7.8): with a discrete Lagrangian L_d and a discrete constraint space {ω = 0},
//   D2 L_d(q_{k−1}, q_k) + D1 L_d(q_k, q_{k+1}) = M(q_k)ᵀ λ_k,     ω(q_k, q_{k+1}) = 0.
// Position–momentum form, state (q_k, p⁺_k) with p⁺_k = D2 L_d(q_{k−1}, q_k): solve
//   p⁺_k + D1 L_d(q_k, q_{k+1}) − M(q_k)ᵀ λ = 0,   ω(q_k, q_{k+1}) = 0
// for (q_{k+1}, λ) by Newton, then p⁺_{k+1} = D2 L_d(q_k, q_{k+1}). The pre-momentum is
// p⁻_k = p⁺_k − M(q_k)ᵀλ_k; both have the same components on D, the constrained momentum on D*.
// A model with an external force adds the midpoint discrete forces F_d^± (discrete_force.hpp):
// p⁺_k + D1 L_d + F_d^- − M(q_k)ᵀλ = 0 and p⁺_{k+1} = D2 L_d + F_d^+.
// A locally coupled model (model/local_terms.hpp) with the α-rule or the trapezoidal L_d is stepped
// with the same equations assembled term by term, and Newton factorises its sparse Jacobian.
// The positions are carried below their last bit: Newton's solution is refined once after it
// converges (solve/below_last_bit.hpp), which removes the round-off floor of small steps.
#include <type_traits>

#include "dalembert/discrete/discrete_constraint.hpp"
#include "dalembert/discrete/discrete_force.hpp"
#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/discrete/local_discrete_lagrangian.hpp"
#include "dalembert/discrete/position_momentum_derivative.hpp"
#include "dalembert/model/dynamics.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert {

template <Model S, DiscreteLagrangian Ld, DiscreteConstraint Dc>
class DiscreteLagrangeDAlembert {
 public:
  static constexpr int n = S::n;
  static constexpr int m = S::m;
  static_assert(Ld::n == n && Dc::n == n && Dc::m == m, "inconsistent dimensions");

  /// p is the post-momentum p⁺_k = D2 L_d(q_{k−1}, q_k); multiplier the λ of the last step (the
  /// impulse M(q)ᵀλ at q_{k−1}).
  using State = PositionMomentumState<S>;

  DiscreteLagrangeDAlembert(const S& system, Ld discrete_lagrangian, Dc discrete_constraint,
                            NewtonOptions options = {})
      : system_(system), ld_(std::move(discrete_lagrangian)), dc_(std::move(discrete_constraint)),
        options_(options) {}

  double step_size() const { return ld_.step_size(); }
  const S& system() const { return system_; }
  const Ld& discrete_lagrangian() const { return ld_; }
  const Dc& discrete_constraint() const { return dc_; }

  /// Position–momentum start from v0 ∈ D: p⁺_0 = ∂L/∂v(q0, v0).
  State initial_state(const VecN<S>& q0, const VecN<S>& v0) const { return position_momentum_start(system_, q0, v0); }

  /// The momentum at q0 of a two-point start (q0 at t = 0), the forced discrete Legendre map
  /// F^{f−}L_d(q0, q1) = −D1 L_d(q0, q1) − F_d^−(q0, q1): the first row's velocity is its.
  VecN<S> pre_momentum(const VecN<S>& q0, const VecN<S>& q1) const {
    if constexpr (by_terms) {
      local::DiscreteDerivatives d;
      local::discrete_lagrangian_derivatives(system_, ld_, q0, q1, d);  // L_d alone
      return -d.D1;
    }
    return midpoint_legendre_maps(system_, ld_, q0, q1).minus;
  }

  /// Two-point start from (q0, q1) ∈ M_d, as in the papers; the returned state is at k = 1.
  State initial_state_two_point(const VecN<S>& q0, const VecN<S>& q1) const {
    const double h = step_size();
    State s;
    s.k = 1;
    s.t = h;
    s.q = q1;
    if constexpr (by_terms) {
      local::DiscreteDerivatives d;
      local::discrete_lagrangian_derivatives(system_, ld_, q0, q1, d);  // L_d alone
      s.p = d.D2;
    } else {
      s.p = midpoint_legendre_maps(system_, ld_, q0, q1).plus;
    }
    s.multiplier = VecM<S>::Zero(constraint_count(system_));
    s.last_velocity = (q1 - q0) / h;
    if constexpr (m != 0) {
      if (constraint_count(system_) > 0) s.discrete_constraint = dc_(q0, q1).template lpNorm<Eigen::Infinity>();
    }
    return s;
  }

  void step(State& s) const {
    if constexpr (by_terms) {
      step_by_terms(s);
    } else if constexpr (HasExternalForce<S>) {
      // a model file knows only at run time whether it has a force: two loops, so that a file
      // without one runs the loop of a model without force<T>
      if (has_external_force(system_)) {
        dense_step<true>(s);
      } else {
        dense_step<false>(s);
      }
    } else {
      dense_step<false>(s);
    }
  }

  /// ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k) of the step from s: a 2n × 2n matrix, rows q_{k+1} then p_{k+1},
  /// columns q_k then p_k (the multipliers and the last velocity are only Newton's guesses). By the
  /// implicit-function theorem on the step's equations at their solution
  /// (discrete/position_momentum_derivative.hpp), with every derivative by automatic
  /// differentiation; it takes a step of its own.
  Eigen::MatrixXd step_derivative(const State& s) const {
    State next = s;
    step(next);
    const auto force = midpoint_external_force(system_, step_size(), s.t);
    return position_momentum_step_derivative(system_, ld_, dc_, force, force, s.q, s.p, next.q, next.multiplier);
  }

  /// step_derivative(s) and the derivative of the step's result by a constant external force f
  /// added over it, at f = 0 (2n × n; f enters as the model's force does, (h/2) f in each discrete
  /// force): a step's linearisation in its state and an input, for control.
  StepDerivatives step_derivatives(const State& s) const {
    State next = s;
    step(next);
    const double h = step_size();
    const auto force = midpoint_external_force(system_, h, s.t);
    return position_momentum_step_derivatives(system_, ld_, dc_, force, force, {0.5 * h, 0.5 * h}, s.q, s.p, next.q,
                                              next.multiplier);
  }

  /// The velocity in D of the constrained momentum on D* (components of p⁺ on D).
  VecN<S> velocity(const State& s) const { return velocity_in_distribution(system_, s.q, s.p); }
  const VecN<S>& carried_momentum(const State& s) const { return s.p; }
  /// −λ/h of the last step: the impulse −M(q_{k−1})ᵀλ over h estimates the continuous multiplier at
  /// t_{k−1} (to O(h²) for the midpoint rule; the first step from (q0, v0) covers half an impulse).
  auto carried_multiplier(const State& s) const { return -s.multiplier / step_size(); }

 private:
  /// The step with dense derivatives, with the midpoint discrete force if Forced.
  template <bool Forced>
  void dense_step(State& s) const {
    constexpr int N = sum_of_sizes(n, m), MaxN = sum_of_sizes(max_n_of<S>(), max_m_of<S>());
    const auto dn = size_constant<n>(coordinate_count(system_));
    const auto dm = size_constant<m>(constraint_count(system_));
    const double h = step_size();
    const MatMN<S> Mq = system_.template constraint_matrix<double>(s.q);
    Vecd<N, MaxN> x(dn + dm);
    x << s.q + h * s.last_velocity, s.multiplier;
    // Compiled models: the residual takes first derivatives only, since most residuals are
    // evaluated at an iterate that turns out converged, and the Jacobian is computed when Newton
    // needs one. Model files: the residual takes every derivative at once and the Jacobian reuses
    // them, because a generated kernel costs one call whatever the order (measured, a model-file
    // knife-edge step: 375 ns this way, 432 ns split).
    constexpr bool jacobian_with_residual = MechanicalAtRunTime<S>;
    // By-products of the last residual evaluation, which Newton makes at the solution.
    std::conditional_t<jacobian_with_residual, DerivativesOf<Ld>, SlotDerivativesOf<Ld>> d;
    VecN<S> force = VecN<S>::Zero(dn);
    MatNN<S> force_by_q1;  // used when Forced
    VecM<S> omega(int{dm});
    MatMN<S> omega_by_q1(int{dm}, int{dn});  // used when jacobian_with_residual
    const auto residual = [&](const Vecd<N, MaxN>& unknowns, Vecd<N, MaxN>& F) {
      const VecN<S> q1 = unknowns.template head<n>(dn);
      if constexpr (jacobian_with_residual) {
        d = differentiate(ld_, s.q, q1);
      } else {
        d = slot_derivatives(ld_, s.q, q1);
      }
      F.template head<n>(dn) = s.p + d.D1;
      if constexpr (Forced) {
        midpoint_force(s.q, q1, s.t, force, jacobian_with_residual ? &force_by_q1 : nullptr);
        F.template head<n>(dn) += force;
      }
      if constexpr (m != 0) {
        if (dm > 0) {
          if constexpr (jacobian_with_residual) {
            const auto w = differentiate(dc_, s.q, q1);
            omega = w.value;
            omega_by_q1 = w.D2;
          } else {
            omega = dc_(s.q, q1);
          }
          // coefficient by coefficient, as Eigen does for fixed small sizes: at a run-time size its
          // general matrix-vector kernel costs more than the product (docs/decisions.md, Run-time sizes)
          F.template head<n>(dn) -= Mq.transpose().lazyProduct(unknowns.template segment<m>(dn, dm));
          F.template segment<m>(dn, dm) = omega;
        }
      }
    };
    const auto jacobian = [&](const Vecd<N, MaxN>& unknowns, Matd<N, N, MaxN, MaxN>& J) {
      const VecN<S> q1 = unknowns.template head<n>(dn);
      if constexpr (jacobian_with_residual) {
        J.template topLeftCorner<n, n>(dn, dn) = d.D12;
      } else {
        J.template topLeftCorner<n, n>(dn, dn) = differentiate(ld_, s.q, q1).D12;
      }
      if constexpr (Forced) {
        if constexpr (!jacobian_with_residual) {
          VecN<S> value;  // the residual's is kept for p_{k+1}
          midpoint_force(s.q, q1, s.t, value, &force_by_q1);
        }
        J.template topLeftCorner<n, n>(dn, dn) += force_by_q1;
      }
      if constexpr (m != 0) {
        if (dm > 0) {
          J.template topRightCorner<n, m>(dn, dm) = -Mq.transpose();
          if constexpr (jacobian_with_residual) {
            J.template bottomLeftCorner<m, n>(dm, dn) = omega_by_q1;
          } else {
            J.template bottomLeftCorner<m, n>(dm, dn) = differentiate(dc_, s.q, q1).D2;
          }
          J.template bottomRightCorner<m, m>(dm, dm).setZero();
        }
      }
    };
    const double scale = std::max(s.p.template lpNorm<Eigen::Infinity>(),
                                  s.last_velocity.template lpNorm<Eigen::Infinity>());
    s.p = position_momentum_step<Matd<N, N, MaxN, MaxN>>(s, h, std::move(x), scale, options_,
                                                         SeparateEquations{residual, jacobian},
                                                         [&] { return VecN<S>(d.D2 + force); });
    if constexpr (m != 0) {
      if (dm > 0) s.discrete_constraint = omega.template lpNorm<Eigen::Infinity>();
    }
  }

  /// The midpoint discrete force F_d(q0, q1) of the step from t0 and, if `by_q1` is given, ∂F_d/∂q1.
  void midpoint_force(const VecN<S>& q0, const VecN<S>& q1, double t0, VecN<S>& value, MatNN<S>* by_q1) const {
    const MidpointForce<S> f(system_, step_size(), t0);
    if (!by_q1) {
      value = f(q0, q1);
      return;
    }
    const auto d = differentiate(f, q0, q1);
    value = d.value;
    *by_q1 = d.D2;
  }

  /// Whether steps are assembled term by term (model/local_terms.hpp): the α-rule or the trapezoidal
  /// rule with the α-rule constraint, on a locally coupled model without external forces.
  static constexpr bool by_terms =
      SteppedByTerms<S> && local::SplitsIntoTerms<Ld, S> && std::is_same_v<Dc, AlphaConstraint<S>>;

  /// The step of the same equations with sparse derivatives: the unknowns (q_{k+1}, λ), the
  /// Jacobian [D12 L_d, −M(q_k)ᵀ; ∂ω/∂q1, 0] from the terms' blocks.
  void step_by_terms(State& s) const {
    const int dn = coordinate_count(system_), dm = constraint_count(system_);
    const double h = step_size();
    const Eigen::SparseMatrix<double> Mq = local::constraint_matrix(system_, s.q);
    Eigen::VectorXd x(dn + dm);
    x << s.q + h * s.last_velocity, s.multiplier;
    local::DiscreteDerivatives d;  // of the latest residual evaluation, which Newton makes at the solution
    const auto residual = [&](const Eigen::VectorXd& unknowns, Eigen::VectorXd& F) {
      local::discrete_lagrangian_derivatives(system_, ld_, s.q, unknowns.head(dn), d, dc_.alpha());
      F.head(dn) = s.p + d.D1 - Mq.transpose() * unknowns.tail(dm);
      F.tail(dm) = d.omega;
    };
    local::Triplets entries;
    const auto jacobian = [&](const Eigen::VectorXd&, Eigen::SparseMatrix<double>& J) {
      local::saddle_point_jacobian(d, Mq, entries, J);
    };
    const double scale = std::max(s.p.template lpNorm<Eigen::Infinity>(),
                                  s.last_velocity.template lpNorm<Eigen::Infinity>());
    s.p = position_momentum_step<Eigen::SparseMatrix<double>>(s, h, std::move(x), scale, options_,
                                                               SeparateEquations{residual, jacobian},
                                                               [&] { return VecN<S>(d.D2); });
    s.discrete_constraint = d.omega.template lpNorm<Eigen::Infinity>();
  }

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
