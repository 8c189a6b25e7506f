#pragma once
// Metric geometry of the constraints ([dLMS04] §2, §5; [FIM08] §1): the constraint-force 1-form Λ~,
// the covector projectors P*, Q* built from the metric G(q) and M(q), and the momentum side of the
// constraints Ψ(q, p) = M(q) G⁻¹ p. Used by the generating-function integrators and FIM.
//
//   Λ~(q, v) = −M(q)ᵀλ(q, v)     so that   d/dt ∂L/∂v − ∂L/∂q = −Λ~      (λ of dynamics.hpp, raw
//                                                                      formula, also off D)
//   Q* = Mᵀ C⁻¹ M G⁻¹,  C = M G⁻¹ Mᵀ,   P* = I − Q*,   R* = P* − Q*  (the reflection of FIM's jump)
// range Q* = D°, ker Q* = G(D); R* is an involution and an isometry of the co-metric G⁻¹.
#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <optional>
#include <type_traits>

#include "dalembert/model/dynamics.hpp"
#include "dalembert/solve/dual_lu.hpp"
#include "dalembert/solve/small_lu.hpp"

namespace dalembert {

/// Λ~(q, v) = −M(q)ᵀλ(q, v) of a mechanical model, by [dLMS04] (27) (printed there with the wrong sign),
/// λ = −C⁻¹(M a0 + (∂(Mv)/∂q) v) with the unconstrained acceleration a0 = G⁻¹(∂L/∂q − (∂(Gv)/∂q) v + F),
/// F the model's external force at the time t if it has one and f a constant force added to it (for
/// the derivative of a step by such a force), from one pass of first derivatives of G, V and M
/// (detail::mechanical_rates): the multiplier of constrained_acceleration() without the
/// acceleration. L's second derivatives, differentiated once more, would nest three levels of duals,
/// and Eigen's AutoDiffScalar cannot build a three-level dual from a double (T(0.0), 0.5 * x in model
/// code); this path keeps the nesting at two.
template <HasMetric S, class T, class F = NoConstantForce>
VecN<S, T> mechanical_constraint_force_form(const S& sys, const VecN<S, T>& q, const VecN<S, T>& v, double t = 0.0,
                                            const F& f = {}) {
  using MatMM = Mat<T, S::m, S::m, max_m_of<S>(), max_m_of<S>()>;
  auto rates = detail::mechanical_rates(sys, q, v);
  if constexpr (HasExternalForce<S>) {
    if (has_external_force(sys)) rates.r += sys.template force<T>(q, v, t);
  }
  add_constant_force(rates.r, f);
  const MatMN<S, T>& Mq = rates.Mq;
  const auto G = metric_factorisation(sys, q);
  const MatNM<S, T> GinvMt = solve_by_columns(G, Mq.transpose());
  const MatMM C = Mq * GinvMt;
  const VecM<S, T> rhs = rates.curvature + Mq * G.solve(rates.r);
  const VecM<S, T> lambda = -DualLU<MatMM>(C).solve(rhs);
  return -(Mq.transpose() * lambda);
}

/// Λ~(q, v) of any Lagrangian, from the multiplier of the constrained acceleration at the time t
/// (which matters for constraints of the time, M(q) v + b(q, t) = 0, and for forces of the time),
/// with the model's external force if it has one and a constant force f added to it.
template <Model S, class T, class F = NoConstantForce>
VecN<S, T> general_constraint_force_form(const S& sys, const VecN<S, T>& q, const VecN<S, T>& v, double t = 0.0,
                                         const F& f = {}) {
  const auto a = constrained_acceleration(sys, q, v, t, f);
  const MatMN<S, T> Mq = sys.template constraint_matrix<T>(q);
  return -(Mq.transpose() * a.multiplier);
}

/// Λ~(q, v) = −M(q)ᵀλ(q, v), generic in the scalar type (the generating-function integrators
/// differentiate through it), at the time t of constraints and forces that depend on it: the force
/// of the constraints on the motion under the model's external force, if it has one, and a constant
/// force f added to it (a locally coupled model takes none). Zero without constraints; mechanical
/// models take the formula with first derivatives only, other Lagrangians the multiplier of the
/// constrained acceleration.
template <Model S, class T, class F = NoConstantForce>
VecN<S, T> constraint_force_form(const S& sys, const VecN<S, T>& q, const VecN<S, T>& v, double t = 0.0,
                                 const F& f = {}) {
  if constexpr (S::m == Dynamic) {  // no constraints at run time: the formula's C would be 0×0
    if (constraint_count(sys) == 0) return VecN<S, T>::Constant(coordinate_count(sys), ad::lift<T>(0.0));
  }
  if constexpr (S::m == 0) {
    return VecN<S, T>::Constant(coordinate_count(sys), ad::lift<T>(0.0));
  } else if constexpr (LocallyCoupled<S> && std::is_same_v<T, double> && std::is_same_v<F, NoConstantForce>) {
    // sparse, term by term
    return -(local::constraint_matrix(sys, q).transpose() * constrained_acceleration(sys, q, v, 0.0).multiplier);
  } else if constexpr (GivesLagrangianDerivatives<S, T>) {
    // A model file: L's derivatives come from its kernels, with no duals nested inside T (the
    // mechanical formula nests them: gf steps on model files 1.35-1.5 times slower).
    return general_constraint_force_form(sys, q, v, t, f);
  } else if constexpr (MechanicalAtRunTime<S>) {  // a model whose kind is known at run time
    if (sys.is_mechanical()) {
      require_time_independent_constraints(sys, "the constraint force form of a mechanical model");
      return mechanical_constraint_force_form(sys, q, v, t, f);
    }
    return general_constraint_force_form(sys, q, v, t, f);
  } else if constexpr (HasMetric<S>) {
    return mechanical_constraint_force_form(sys, q, v, t, f);
  } else {
    return general_constraint_force_form(sys, q, v, t, f);
  }
}

/// The metric G(q) as a dense matrix of doubles.
template <HasMetric S>
MatNN<S> metric_matrix(const S& sys, const VecN<S>& q) {
  return dense_metric(sys, q);
}

/// Covector projectors at one point q (N, MaxN: the sizes of the model).
template <int N, int MaxN = N>
struct CovectorProjectors {
  Matd<N, N, MaxN, MaxN> P;  ///< P*: T*Q -> G(D), the G⁻¹-orthogonal projection
  Matd<N, N, MaxN, MaxN> Q;  ///< Q*: T*Q -> D°
  Matd<N, N, MaxN, MaxN> reflection() const { return P - Q; }
};
template <class S>
using CovectorProjectorsOf = CovectorProjectors<S::n, max_n_of<S>()>;

template <HasMetric S>
CovectorProjectorsOf<S> covector_projectors(const S& sys, const VecN<S>& q) {
  constexpr int m = S::m;
  const int dn = coordinate_count(sys), dm = constraint_count(sys);
  CovectorProjectorsOf<S> out;
  if constexpr (m == 0) {
    out.Q.setZero(dn, dn);
  } else if (dm == 0) {  // no constraints, known at run time
    out.Q.setZero(dn, dn);
  } else {
    const MatMN<S> Mq = sys.template constraint_matrix<double>(q);
    const MatNM<S> GinvMt = metric_matrix(sys, q).ldlt().solve(Mq.transpose());
    const Mat<double, m, m, max_m_of<S>(), max_m_of<S>()> C = Mq * GinvMt;
    // Q* = Mᵀ C⁻¹ (G⁻¹Mᵀ)ᵀ, G symmetric
    out.Q = Mq.transpose() * C.ldlt().solve(GinvMt.transpose());
  }
  out.P = MatNN<S>::Identity(dn, dn) - out.Q;
  return out;
}

/// Q* p = Mᵀλ with C λ = M G⁻¹ p, C = M G⁻¹ Mᵀ: the part of p that P* removes, computed as itself
/// (not as p − P* p, which would leave it the rounding of p), for a compiled model with constraints.
/// Given the time t of affine constraints M(q) v + b(q, t) = 0 (`affine_at`), C λ = M G⁻¹ p + b(q, t):
/// p − Mᵀλ is then the momentum of a velocity on them.
template <HasMetric S>
  requires(!LocallyCoupled<S> && S::m != 0)
VecN<S> constraint_part_of_momentum(const S& sys, const VecN<S>& q, const VecN<S>& p,
                                    std::optional<double> affine_at = std::nullopt) {
  const int n = coordinate_count(sys), m = constraint_count(sys);
  if (m == 0) return VecN<S>::Zero(n);
  const MatMN<S> Mq = sys.template constraint_matrix<double>(q);
  Mat<double, S::n, sum_of_sizes(S::m, 1), max_n_of<S>(), sum_of_sizes(max_m_of<S>(), 1)> rhs(n, m + 1);
  rhs << Mq.transpose(), p;
  const auto Ginv_rhs = solve_small_system(metric_matrix(sys, q), rhs);  // [G⁻¹Mᵀ | G⁻¹p]
  const Mat<double, S::m, S::m, max_m_of<S>(), max_m_of<S>()> C = Mq * Ginv_rhs.leftCols(m);
  VecM<S> rows = Mq * Ginv_rhs.col(m);
  if (affine_at) add_constraint_offset(sys, q, *affine_at, rows);
  const VecM<S> lambda = solve_small_system(C, rows);
  return Mq.transpose() * lambda;
}

/// P* p, the momentum projected onto Leg(D): p − Mᵀλ with C λ = M G⁻¹ p, C = M G⁻¹ Mᵀ, i.e. Q* p
/// without forming the n × n projectors, which on a model file was much of a `fim` step
/// (docs/decisions.md, Newton's small linear systems). For a locally coupled model it is G v, with v
/// the velocity in D of p (the sparse saddle-point system), the same covector. Given the time of
/// affine constraints (`affine_at`), the G⁻¹-orthogonal projection onto the momenta of the
/// velocities on them (constraint_part_of_momentum; a locally coupled model has none).
template <HasMetric S>
VecN<S> project_momentum(const S& sys, const VecN<S>& q, const VecN<S>& p,
                         std::optional<double> affine_at = std::nullopt) {
  if constexpr (LocallyCoupled<S>) {
    return momentum(sys, q, velocity_in_distribution(sys, q, p));
  } else if constexpr (S::m == 0) {
    return p;
  } else {
    if (constraint_count(sys) == 0) return p;  // no constraints, known at run time
    return p - constraint_part_of_momentum(sys, q, p, affine_at);
  }
}

/// P* p as project_momentum, generically in the scalar type and dense: for the derivative of a step
/// through the projection (discrete/position_momentum_derivative.hpp).
template <HasMetric S, class T>
VecN<S, T> project_momentum_generic(const S& sys, const VecN<S, T>& q, const VecN<S, T>& p,
                                    std::optional<double> affine_at = std::nullopt) {
  if constexpr (S::m == 0) {
    return p;
  } else {
    if (constraint_count(sys) == 0) return p;
    const MatMN<S, T> Mq = sys.template constraint_matrix<T>(q);
    const auto G = metric_factorisation(sys, q);
    const MatNM<S, T> GinvMt = G.solve(Mq.transpose());
    const Mat<T, S::m, S::m, max_m_of<S>(), max_m_of<S>()> C = Mq * GinvMt;
    VecM<S, T> rows = Mq * G.solve(p);
    if (affine_at) add_constraint_offset(sys, q, *affine_at, rows);
    const VecM<S, T> lambda = LuKeepingDerivatives<Mat<T, S::m, S::m, max_m_of<S>(), max_m_of<S>()>>(C).solve(rows);
    return p - Mq.transpose() * lambda;
  }
}

/// The inverse Legendre map v = FL⁻¹(q, p): Newton on ∂L/∂v(q, v) = p from v = 0, exact after one
/// iteration for Lagrangians quadratic in v.
template <Model S>
VecN<S> legendre_inverse(const S& sys, const VecN<S>& q, const VecN<S>& p) {
  if constexpr (LocallyCoupled<S>) return local::legendre_inverse(sys, q, p);
  if constexpr (HasMetric<S>) {
    if (is_mechanical(sys)) return metric_matrix(sys, q).ldlt().solve(p);  // ∂L/∂v = G v
  }
  VecN<S> v = VecN<S>::Zero(coordinate_count(sys));
  const auto equations = [&](const VecN<S>& x, VecN<S>& F, MatNN<S>& J) {
    const auto d = lagrangian_derivatives(sys, q, x);
    F = d.Lv - p;
    J = d.W;
  };
  newton_solve<S::n, max_n_of<S>()>(equations, v, 0.0, newton_to_round_off);
  return v;
}

/// The Hamiltonian H(q, p) = E_L(q, FL⁻¹(q, p)).
template <Model S>
double hamiltonian(const S& sys, const VecN<S>& q, const VecN<S>& p) {
  return energy(sys, q, legendre_inverse(sys, q, p));
}

/// The constraints on the momentum side Ψ(q, p) = M(q) FL⁻¹(q, p) (= M G⁻¹ p for mechanical L).
template <Model S>
VecM<S> momentum_constraint(const S& sys, const VecN<S>& q, const VecN<S>& p) {
  if constexpr (S::m == 0) {
    return {};
  } else {
    return sys.template constraint_matrix<double>(q) * legendre_inverse(sys, q, p);
  }
}

}  // namespace dalembert
