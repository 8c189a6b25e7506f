#pragma once
// The derivative of a position–momentum step (DEL, DLA, MLA, GF, FIM) with respect to the state it
// starts from. The step's equations, with z = (q_k, p_k, q_{k+1}, λ), written once and generically
// in the scalar type for the implicit-function theorem (implicit_step_derivative,
// solve/step_driver.hpp):
//   F = ( p_k + D1 L_d(q_k, q_{k+1}) + F_d^−(q_k, q_{k+1}) − M(q_k)ᵀλ,  ω(q_k, q_{k+1}) ) = 0,
//   p_{k+1} = D2 L_d(q_k, q_{k+1}) + F_d^+(q_k, q_{k+1}).
// DLA is the case F_d^± = the midpoint external force; DEL drops λ and ω (it ignores constraints).
// A discrete constraint may carry its own impulse rows in place of M(q_k) (ImposedHolonomicRows:
// the generating-function family's rows φ(q_{k+1}) with their impulse dφ(q_k)ᵀμ).
// A method may map p_{k+1} further at q_{k+1} (GF-CP projects it onto Leg(D), FIM reflects it).
#include <type_traits>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/discrete/discrete_force.hpp"
#include "dalembert/model/model.hpp"
#include "dalembert/solve/below_last_bit.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert {

/// The state of the position–momentum methods with multipliers, DLA and MLA (method/dla.hpp,
/// method/modified_lagrange_dalembert.hpp): q_k, the momentum the step hands on (DLA's
/// p⁺_k = D2 L_d(q_{k−1}, q_k), MLA's F^{f+}L_d(q_{k−1}, q_k); its components on D are the momentum
/// on D*) and what the next step starts Newton from.
template <Model S>
struct PositionMomentumState : OnTheGrid {
  VecN<S> q;
  VecN<S> p;
  VecM<S> multiplier;     ///< λ of the last step
  VecN<S> last_velocity;  ///< (q_k − q_{k−1})/h, the Newton initial guess of the next step
  VecN<S> q_low = no_low_part<VecN<S>>();  ///< q_k below the last bit of q (solve/below_last_bit.hpp)
  VecN<S> p_low = no_low_part<VecN<S>>();  ///< p below its last bit, where the step's momenta come split
  double discrete_constraint = 0.0;  ///< |ω(q_{k−1}, q_k)|_inf
};

/// The position–momentum start from v0 ∈ D: p_0 = ∂L/∂v(q0, v0), no multiplier yet, and v0 the
/// guess of the first step.
template <Model S>
PositionMomentumState<S> position_momentum_start(const S& system, const VecN<S>& q0, const VecN<S>& v0) {
  PositionMomentumState<S> s;
  s.q = q0;
  s.p = momentum(system, q0, v0);
  s.multiplier = VecM<S>::Zero(constraint_count(system));
  s.last_velocity = v0;
  return s;
}

/// F_d^± = 0, a tag: position_momentum_step_derivative leaves it out of the equations rather than
/// add zero duals.
struct NoDiscreteForce {};

/// The midpoint discrete forces of a model's external force for the step from t,
/// F_d^− = F_d^+ = (h/2) F(q_mid, v_d, t + h/2) (discrete/discrete_force.hpp, MidpointForce), zero
/// without one: a callable generic in the scalar type that refers to `system`.
template <Model S>
auto midpoint_external_force(const S& system, double h, double t) {
  if constexpr (HasExternalForce<S>) {
    return [&system, h, t](const auto& q0, const auto& q1) {
      using Q = std::decay_t<decltype(q0)>;
      if (has_external_force(system)) return Q(MidpointForce<S>(system, h, t)(q0, q1));
      return Q(Q::Zero(q0.size()));
    };
  } else {
    return NoDiscreteForce{};
  }
}

/// The next momentum as the equations give it.
struct KeepMomentum {
  template <class Q>
  Q operator()(const Q&, const Q& p) const {
    return p;
  }
};

/// No discrete constraint: the step ignores the model's constraints (DEL), so λ and ω drop out.
struct NoDiscreteConstraint {};

/// The rows φ(q_{k+1}, t_{k+1}) of a model's holonomic constraints alone, with their impulse along
/// dφ(q_k) (impulse_rows): the discrete constraint of a method that takes the other constraints
/// through a force of its own (method/generating_function.hpp).
template <Model S>
struct ImposedHolonomicRows {
  const S& system;
  double t1;
  int count() const { return holonomic_constraint_count(system); }
  template <class Q>
  auto operator()(const Q&, const Q& q1) const {
    return system.template holonomic_values<typename Q::Scalar>(q1, t1);
  }
  template <class Q>
  auto impulse_rows(const Q& q0) const {
    using T = typename Q::Scalar;
    return MatMN<S, T>(system.template constraint_matrix<T>(q0).bottomRows(count()));
  }
};

/// The discrete forces of DLA and DEL with a constant external force f (a covector) added to the
/// model's over the step: F_d^∓(q0, q1, f) = (h/2) [F(q_mid, v_d, t + h/2) + f], a callable generic
/// in the scalar type that refers to `system` (position_momentum_step_derivatives).
template <Model S>
auto midpoint_forces_with_constant_force(const S& system, double h, double t) {
  return [model_force = midpoint_external_force(system, h, t), h](const auto& q0, const auto& q1, const auto& f) {
    using Q = std::decay_t<decltype(q0)>;
    Q F = (0.5 * h) * f;
    if constexpr (!std::is_same_v<std::decay_t<decltype(model_force)>, NoDiscreteForce>) F += model_force(q0, q1);
    return F;
  };
}

/// position_momentum_step_derivative (by_state), and with ByForce the derivative by f too (by_force):
/// z = (q_k, p_k, [f], q_{k+1}, λ), f = 0 at the solution, and the discrete forces
/// minus(q_k, q_{k+1}, f) and plus(q_k, q_{k+1}, f). The methods whose next momentum is mapped
/// further (`finish`: GF-CP, FIM) call it with either ByForce.
template <bool ByForce, Model S, class Ld, class Dc, class Minus, class Plus, class Multiplier, class Finish>
StepDerivatives position_momentum_derivatives(const S& system, const Ld& ld, const Dc& dc, const Minus& minus,
                                              const Plus& plus, const VecN<S>& q0, const VecN<S>& p0,
                                              const VecN<S>& q1, const Multiplier& multiplier,
                                              const Finish& finish) {
  constexpr bool constrained = !std::is_same_v<Dc, NoDiscreteConstraint>;
  constexpr int n = S::n, max_n = max_n_of<S>(), blocks = ByForce ? 4 : 3;
  constexpr int m = constrained ? S::m : 0, max_m = constrained ? max_m_of<S>() : 0;
  constexpr int N2 = multiple_of_size(2, n), MaxN2 = multiple_of_size(2, max_n);
  constexpr int NZ = sum_of_sizes(multiple_of_size(blocks, n), m),
                MaxNZ = sum_of_sizes(multiple_of_size(blocks, max_n), max_m);
  constexpr int NOut = sum_of_sizes(N2, m), MaxNOut = sum_of_sizes(MaxN2, max_m);
  const int dn = coordinate_count(system), start = (blocks - 1) * dn;  // where q_{k+1} is in z
  int dm = 0;  // the multipliers: one per row of ω
  if constexpr (requires { dc.count(); }) {
    dm = dc.count();
  } else if constexpr (constrained) {
    dm = constraint_count(system);
  }
  // z ↦ (F, p_{k+1})
  const auto equations = [&](const auto& z) {
    using T = typename std::decay_t<decltype(z)>::Scalar;
    const VecN<S, T> x0 = z.template segment<n>(0, dn), momentum = z.template segment<n>(dn, dn),
                     x1 = z.template segment<n>(start, dn);
    Vec<T, N2, MaxN2> w(2 * dn);
    w << x0, x1;
    T value;
    Vec<T, N2, MaxN2> slots;  // (D1 L_d, D2 L_d)
    ad::value_and_gradient<N2, MaxN2>(
        [&](const auto& y) {
          using U = typename std::decay_t<decltype(y)>::Scalar;
          return ld(VecN<S, U>(y.template head<n>(dn)), VecN<S, U>(y.template segment<n>(dn, dn)));
        },
        w, value, slots);
    Vec<T, NOut, MaxNOut> out(2 * dn + dm);
    VecN<S, T> first = momentum + slots.template head<n>(dn), next = slots.template segment<n>(dn, dn);
    if constexpr (ByForce) {
      const VecN<S, T> f = z.template segment<n>(2 * dn, dn);
      first += minus(x0, x1, f);
      next += plus(x0, x1, f);
    } else {
      if constexpr (!std::is_same_v<Minus, NoDiscreteForce>) first += minus(x0, x1);
      if constexpr (!std::is_same_v<Plus, NoDiscreteForce>) next += plus(x0, x1);
    }
    if constexpr (constrained && m != 0) {
      if (dm > 0) {
        const VecM<S, T> lambda = z.template segment<m>(start + dn, dm);
        if constexpr (requires { dc.impulse_rows(x0); }) {
          first -= dc.impulse_rows(x0).transpose() * lambda;
        } else {
          first -= system.template constraint_matrix<T>(x0).transpose() * lambda;
        }
        out.template segment<m>(dn, dm) = dc(x0, x1);
      }
    }
    out.template head<n>(dn) = first;
    out.template segment<n>(dn + dm, dn) = finish(x1, next);
    return out;
  };
  Vecd<NZ, MaxNZ> z = Vecd<NZ, MaxNZ>::Zero(start + dn + dm);
  z.template head<n>(dn) = q0;
  z.template segment<n>(dn, dn) = p0;
  z.template segment<n>(start, dn) = q1;
  if constexpr (constrained && m != 0) z.template segment<m>(start + dn, dm) = multiplier;
  const Eigen::MatrixXd D = implicit_step_derivative<NZ, NOut, MaxNZ, MaxNOut>(equations, z, dn + dm);
  StepDerivatives out;
  out.by_state.resize(2 * dn, 2 * dn);
  out.by_state << D.topLeftCorner(dn, 2 * dn), D.bottomLeftCorner(dn, 2 * dn);
  if constexpr (ByForce) {
    out.by_force.resize(2 * dn, dn);
    out.by_force << D.block(0, 2 * dn, dn, dn), D.bottomRightCorner(dn, dn);
  }
  return out;
}

/// ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k) of the step from (q0, p0) whose solution is (q1, multiplier): a
/// 2n × 2n matrix, rows q_{k+1} then p_{k+1}, columns q_k then p_k. `ld` is L_d, `minus` and `plus`
/// are F_d^∓(q_k, q_{k+1}) and `dc` is ω, all callables generic in the scalar type (dc may be
/// NoDiscreteConstraint, and then `multiplier` is not read); `finish(q_{k+1}, p)` maps the momentum
/// the equations give to the next state's, generic too. Every derivative is by automatic
/// differentiation; one LU of the step's Jacobian at the solution. Throws std::runtime_error when
/// that Jacobian is singular to working precision.
template <Model S, class Ld, class Dc, class Minus, class Plus, class Multiplier, class Finish = KeepMomentum>
Eigen::MatrixXd position_momentum_step_derivative(const S& system, const Ld& ld, const Dc& dc, const Minus& minus,
                                                  const Plus& plus, const VecN<S>& q0, const VecN<S>& p0,
                                                  const VecN<S>& q1, const Multiplier& multiplier,
                                                  const Finish& finish = {}) {
  return position_momentum_derivatives<false>(system, ld, dc, minus, plus, q0, p0, q1, multiplier, finish)
      .by_state;
}

/// The same derivative and, with it, the derivative by a constant external force f added to the
/// model's over the step, at f = 0 (one factorisation for both): here `minus` and `plus` are the
/// discrete forces with f, F_d^∓(q_k, q_{k+1}, f), generic in the scalar type.
template <Model S, class Ld, class Dc, class Minus, class Plus, class Multiplier>
StepDerivatives position_momentum_step_derivatives(const S& system, const Ld& ld, const Dc& dc, const Minus& minus,
                                                   const Plus& plus, const VecN<S>& q0, const VecN<S>& p0,
                                                   const VecN<S>& q1, const Multiplier& multiplier) {
  return position_momentum_derivatives<true>(system, ld, dc, minus, plus, q0, p0, q1, multiplier, KeepMomentum{});
}

}  // namespace dalembert
