#pragma once
// Metric geometry of the constraints (spec seed-000-001 §1.2–1.3): the constraint-force 1-form Λ~,
// the covector projectors P*, Q* built from the metric G(q) and M(q), and the momentum side of the
// constraints Ψ(q, p) = M(q) G⁻¹ p. Used by the generating-function integrators and FIM.
//
//   Λ~(q, v) = −M(q)ᵀλ(q, v)     so that   d/dt ∂L/∂v − ∂L/∂q = −Λ~      (λ of dynamics.hpp, raw
//                                                                      formula, also off D)
//   Q* = Mᵀ C⁻¹ M G⁻¹,  C = M G⁻¹ Mᵀ,   P* = I − Q*,   R* = P* − Q*  (the reflection of FIM's jump)
// range Q* = D°, ker Q* = G(D); R* is an involution and an isometry of the co-metric G⁻¹.
#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <type_traits>

#include "dalembert/model/dynamics.hpp"

namespace dalembert {

/// The metric G(q) as a dense matrix in the scalar type T (models may return a constant diagonal
/// matrix with double entries).
template <HasMetric S, class T>
Mat<T, S::n, S::n> dense_metric(const S& sys, const Vec<T, S::n>& q) {
  const auto G = sys.template metric<T>(q);
  using Scalar = typename std::decay_t<decltype(G)>::Scalar;
  if constexpr (std::is_same_v<Scalar, T>) {
    return Mat<T, S::n, S::n>(G);
  } else {
    return Matd<S::n, S::n>(G).template cast<T>();
  }
}

/// Λ~(q, v) = −M(q)ᵀλ(q, v) of a mechanical model, by the formula of spec §1.2,
/// λ = −C⁻¹(M a0 + (∂(Mv)/∂q) v) with the unconstrained acceleration a0 = G⁻¹(∂L/∂q − (∂(Gv)/∂q) v),
/// computed from one pass of first derivatives of G, V and M. It equals the multiplier of
/// constrained_acceleration(), which needs second derivatives of L: differentiating that once more
/// would nest three levels of duals, and Eigen's AutoDiffScalar cannot build a three-level dual
/// from a double (T(0.0), 0.5 * x in model code), so the mechanical path keeps the nesting at two.
template <HasMetric S, class T>
Vec<T, S::n> mechanical_constraint_force_form(const S& sys, const Vec<T, S::n>& q, const Vec<T, S::n>& v) {
  constexpr int n = S::n, m = S::m;
  using D = ad::Dual<T, n>;  // derivatives along q
  Vec<D, n> qd;
  for (int i = 0; i < n; ++i) qd[i] = ad::variable<n>(q[i], i);
  const Vec<D, n> vd = v.template cast<D>();
  const Vec<D, n> Gv = sys.template metric<D>(qd) * vd;
  const D V = sys.template potential<D>(qd);
  const Vec<D, m> Mv = sys.template constraint_matrix<D>(qd) * vd;
  Vec<T, n> r;  // ∂L/∂q − (∂(Gv)/∂q) v = ½ vᵀ∂G v − ∇V − (∂G[v]) v
  for (int i = 0; i < n; ++i) {
    T half_dGvv = ad::lift<T>(0.0), dGv_v = ad::lift<T>(0.0);
    for (int j = 0; j < n; ++j) {
      half_dGvv += 0.5 * v[j] * ad::derivative(Gv[j], i);
      dGv_v += ad::derivative(Gv[i], j) * v[j];
    }
    r[i] = half_dGvv - ad::derivative(V, i) - dGv_v;
  }
  Vec<T, m> curvature;  // (∂(M v)/∂q) v
  for (int a = 0; a < m; ++a) {
    curvature[a] = ad::lift<T>(0.0);
    for (int j = 0; j < n; ++j) curvature[a] += ad::derivative(Mv[a], j) * v[j];
  }
  const Mat<T, m, n> Mq = sys.template constraint_matrix<T>(q);
  const Eigen::PartialPivLU<Mat<T, n, n>> G(dense_metric(sys, q));
  const Mat<T, n, m> GinvMt = G.solve(Mq.transpose());
  const Mat<T, m, m> C = Mq * GinvMt;
  const Vec<T, m> lambda = -Eigen::PartialPivLU<Mat<T, m, m>>(C).solve(Vec<T, m>(curvature + Mq * G.solve(r)));
  return -(Mq.transpose() * lambda);
}

/// Λ~(q, v) of any Lagrangian, from the multiplier of the constrained acceleration.
template <Model S, class T>
Vec<T, S::n> general_constraint_force_form(const S& sys, const Vec<T, S::n>& q, const Vec<T, S::n>& v) {
  const auto a = constrained_acceleration(sys, q, v);
  const Mat<T, S::m, S::n> Mq = sys.template constraint_matrix<T>(q);
  return -(Mq.transpose() * a.multiplier);
}

/// Λ~(q, v) = −M(q)ᵀλ(q, v), generic in the scalar type (the generating-function integrators
/// differentiate through it). Zero without constraints; mechanical models take the formula with
/// first derivatives only, other Lagrangians the multiplier of the constrained acceleration.
template <Model S, class T>
Vec<T, S::n> constraint_force_form(const S& sys, const Vec<T, S::n>& q, const Vec<T, S::n>& v) {
  constexpr int n = S::n, m = S::m;
  if constexpr (m == 0) {
    return Vec<T, n>::Constant(ad::lift<T>(0.0));
  } else if constexpr (MechanicalAtRunTime<S>) {  // a model file: its kind is known at run time
    if (sys.is_mechanical()) return mechanical_constraint_force_form(sys, q, v);
    return general_constraint_force_form(sys, q, v);
  } else if constexpr (HasMetric<S>) {
    return mechanical_constraint_force_form(sys, q, v);
  } else {
    return general_constraint_force_form(sys, q, v);
  }
}

/// The metric G(q) as a dense matrix of doubles.
template <HasMetric S>
Matd<S::n, S::n> metric_matrix(const S& sys, const Vecd<S::n>& q) {
  return dense_metric(sys, q);
}

/// Covector projectors at one point q.
template <int N>
struct CovectorProjectors {
  Matd<N, N> P;  ///< P*: T*Q -> G(D), the G⁻¹-orthogonal projection
  Matd<N, N> Q;  ///< Q*: T*Q -> D°
  Matd<N, N> reflection() const { return P - Q; }
};

template <HasMetric S>
CovectorProjectors<S::n> covector_projectors(const S& sys, const Vecd<S::n>& q) {
  constexpr int n = S::n, m = S::m;
  CovectorProjectors<n> out;
  if constexpr (m == 0) {
    out.Q.setZero();
  } else {
    const Matd<m, n> Mq = sys.template constraint_matrix<double>(q);
    const Matd<n, m> GinvMt = metric_matrix(sys, q).ldlt().solve(Mq.transpose());
    const Matd<m, m> C = Mq * GinvMt;
    // Q* = Mᵀ C⁻¹ (G⁻¹Mᵀ)ᵀ, G symmetric
    out.Q = Mq.transpose() * C.ldlt().solve(GinvMt.transpose());
  }
  out.P = Matd<n, n>::Identity() - out.Q;
  return out;
}

/// The inverse Legendre map v = FL⁻¹(q, p): Newton on ∂L/∂v(q, v) = p from v = 0, exact after one
/// iteration for Lagrangians quadratic in v.
template <Model S>
Vecd<S::n> legendre_inverse(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& p) {
  if constexpr (HasMetric<S>) {
    if (is_mechanical(sys)) return metric_matrix(sys, q).ldlt().solve(p);  // ∂L/∂v = G v
  }
  Vecd<S::n> v = Vecd<S::n>::Zero();
  for (int it = 0; it < 20; ++it) {
    const auto d = lagrangian_derivatives(sys, q, v);
    const Vecd<S::n> dv = d.W.partialPivLu().solve(d.Lv - p);
    v -= dv;
    if (!(dv.template lpNorm<Eigen::Infinity>() > 1e-15 * (1.0 + v.template lpNorm<Eigen::Infinity>()))) break;
  }
  return v;
}

/// The Hamiltonian H(q, p) = E_L(q, FL⁻¹(q, p)).
template <Model S>
double hamiltonian(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& p) {
  return energy(sys, q, legendre_inverse(sys, q, p));
}

/// The constraints on the momentum side Ψ(q, p) = M(q) FL⁻¹(q, p) (= M G⁻¹ p for mechanical L).
template <Model S>
Vecd<S::m> momentum_constraint(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& p) {
  if constexpr (S::m == 0) {
    return {};
  } else {
    return sys.template constraint_matrix<double>(q) * legendre_inverse(sys, q, p);
  }
}

}  // namespace dalembert
