#pragma once
// Continuous Lagrange–d'Alembert dynamics with the multiplier eliminated.
//
// Sign convention (../shared/DESIGN.md):  d/dt ∂L/∂v − ∂L/∂q = F_ext + M(q)ᵀλ,  M(q) v = 0.
// With W = ∂²L/∂v², B_ij = ∂²L/∂v_i∂q_j, r = ∂L/∂q − B v + F_ext and a = (∂(M v)/∂q) v:
//   f = W⁻¹ r,   C = M W⁻¹ Mᵀ,   λ = −C⁻¹ (a + M f),   q̈ = f + W⁻¹ Mᵀ λ.
// These formulas are evaluated at every (q, v), also off D (the "multiplier extension",
// ../shared/spec/seed-003.md §0.3 (C3)): along its flow d/dt (M v) = 0, so every level set of the
// constraint functions, and D in particular, is invariant. All functions are generic in the scalar
// type so that the reference and shooting solvers can differentiate through them.
#include <Eigen/LU>
#include <Eigen/QR>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/core/tangent.hpp"
#include "dalembert/model/model.hpp"

namespace dalembert {

/// L and its first and second derivatives at one point (q, v).
template <class T, int N>
struct LagrangianDerivatives {
  T L;
  Vec<T, N> Lq;     ///< ∂L/∂q
  Vec<T, N> Lv;     ///< ∂L/∂v (the momentum)
  Mat<T, N, N> W;   ///< ∂²L/∂v²
  Mat<T, N, N> B;   ///< B(i, j) = ∂²L/∂v_i ∂q_j
};

namespace detail {
template <class T>
struct first_order_dual : std::false_type {};
template <int K>
struct first_order_dual<ad::Dual<double, K>> : std::true_type {};

/// lagrangian_derivatives for (q, v) carrying K first-order derivatives (the Jacobian of the
/// acceleration, spec seed-003 §3): L is evaluated on ad::Tangent<hyper-dual, K>, the K directions
/// outside the hyper-dual that gives the second derivatives (see core/tangent.hpp for why not a
/// third AutoDiffScalar level); every entry then carries its K directional derivatives.
/// Flattened: g++ otherwise calls the inner dual products out of line, and MLA's step, whose cost
/// this is, took twice as long (docs/benchmarks.md).
template <Model S, int K>
[[gnu::flatten]] LagrangianDerivatives<ad::Dual<double, K>, S::n> lagrangian_derivatives_along(
    const S& sys, const Vec<ad::Dual<double, K>, S::n>& q, const Vec<ad::Dual<double, K>, S::n>& v) {
  constexpr int n = S::n;
  using AlongV = ad::Dual<double, n>;
  using Grad = ad::Dual<AlongV, 2 * n>;
  using Outer = ad::Tangent<Grad, K>;
  using D = ad::Dual<double, K>;
  Vec<Outer, n> qd, vd;
  for (int i = 0; i < n; ++i) {
    qd[i] = Outer(ad::variable<2 * n>(ad::constant<n>(ad::value(q[i])), i));
    vd[i] = Outer(ad::variable<2 * n>(ad::variable<n>(ad::value(v[i]), i), n + i));
    for (int k = 0; k < K; ++k) {
      qd[i].d[k] = ad::lift<Grad>(ad::derivative(q[i], k));
      vd[i].d[k] = ad::lift<Grad>(ad::derivative(v[i], k));
    }
  }
  const Outer L = sys.template lagrangian<Outer>(qd, vd);
  // One entry of the hyper-dual, with its K directional derivatives.
  const auto entry = [&](const auto& pick) {
    D r;
    r.value() = pick(L.a);
    for (int k = 0; k < K; ++k) r.derivatives()[k] = pick(L.d[k]);
    return r;
  };
  LagrangianDerivatives<D, n> d;
  d.L = entry([](const Grad& g) { return ad::value(ad::value(g)); });
  for (int j = 0; j < n; ++j) {
    d.Lq[j] = entry([j](const Grad& g) { return ad::value(ad::derivative(g, j)); });
    d.Lv[j] = entry([j](const Grad& g) { return ad::value(ad::derivative(g, n + j)); });
    for (int i = 0; i < n; ++i) {
      d.B(i, j) = entry([i, j](const Grad& g) { return ad::derivative(ad::derivative(g, j), i); });
      d.W(i, j) = entry([i, j](const Grad& g) { return ad::derivative(ad::derivative(g, n + j), i); });
    }
  }
  return d;
}

/// L, ∂L/∂q, ∂L/∂v, W and B at one point, from one evaluation with hyper-dual numbers.
template <Model S, class T>
[[gnu::flatten]] LagrangianDerivatives<T, S::n> lagrangian_derivatives_at(const S& sys, const Vec<T, S::n>& q,
                                                                         const Vec<T, S::n>& v) {
  constexpr int n = S::n;
  using AlongV = ad::Dual<T, n>;             // derivatives of the gradient along v
  using Grad = ad::Dual<AlongV, 2 * n>;       // gradient with respect to (q, v)
  Vec<Grad, n> qd, vd;
  for (int i = 0; i < n; ++i) {
    qd[i] = ad::variable<2 * n>(ad::constant<n>(q[i]), i);
    vd[i] = ad::variable<2 * n>(ad::variable<n>(v[i], i), n + i);
  }
  const Grad L = sys.template lagrangian<Grad>(qd, vd);
  LagrangianDerivatives<T, n> d;
  d.L = ad::value(ad::value(L));
  for (int j = 0; j < n; ++j) {
    const AlongV& dq = ad::derivative(L, j);
    const AlongV& dv = ad::derivative(L, n + j);
    d.Lq[j] = ad::value(dq);
    d.Lv[j] = ad::value(dv);
    for (int i = 0; i < n; ++i) {
      d.B(i, j) = ad::derivative(dq, i);
      d.W(i, j) = ad::derivative(dv, i);
    }
  }
  return d;
}
}  // namespace detail

template <Model S, class T>
LagrangianDerivatives<T, S::n> lagrangian_derivatives(const S& sys, const Vec<T, S::n>& q,
                                                      const Vec<T, S::n>& v) {
  if constexpr (detail::first_order_dual<T>::value) {
    return detail::lagrangian_derivatives_along(sys, q, v);
  } else {
    return detail::lagrangian_derivatives_at(sys, q, v);
  }
}

/// The momentum ∂L/∂v.
template <Model S>
Vecd<S::n> momentum(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& v) {
  double L;
  Vecd<S::n> p;
  ad::value_and_gradient<S::n>(
      [&](const auto& vd) {
        using D = typename std::decay_t<decltype(vd)>::Scalar;
        return sys.template lagrangian<D>(q.template cast<D>(), vd);
      },
      v, L, p);
  return p;
}

/// The energy E_L = v·∂L/∂v − L (for mechanical models ½ vᵀG(q)v + V(q), without AD).
template <Model S>
double energy(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& v) {
  if constexpr (HasMetric<S>) {
    if (is_mechanical(sys)) {
      const Matd<S::n, S::n> G = sys.template metric<double>(q);
      return 0.5 * v.dot(G * v) + sys.template potential<double>(q);
    }
  }
  double L;
  Vecd<S::n> p;
  ad::value_and_gradient<S::n>(
      [&](const auto& vd) {
        using D = typename std::decay_t<decltype(vd)>::Scalar;
        return sys.template lagrangian<D>(q.template cast<D>(), vd);
      },
      v, L, p);
  return v.dot(p) - L;
}

/// The constraint matrix M(q), rows = constraint 1-forms.
template <Model S>
Matd<S::m, S::n> constraint_matrix(const S& sys, const Vecd<S::n>& q) {
  return sys.template constraint_matrix<double>(q);
}

/// The largest continuous constraint residual |M(q) v|_inf (0 for unconstrained systems).
template <Model S>
double constraint_residual(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& v) {
  if constexpr (S::m == 0) {
    return 0.0;
  } else {
    return (sys.template constraint_matrix<double>(q) * v).template lpNorm<Eigen::Infinity>();
  }
}

/// a = (∂(M(q) v)/∂q) v, the part of d/dt (M v) that does not involve q̈.
template <Model S, class T>
Vec<T, S::m> constraint_curvature(const S& sys, const Vec<T, S::n>& q, const Vec<T, S::n>& v) {
  Vec<T, S::m> Mv;
  Mat<T, S::m, S::n> dMv;
  ad::value_and_jacobian<S::n, S::m>(
      [&](const auto& qd) {
        using D = typename std::decay_t<decltype(qd)>::Scalar;
        const Vec<D, S::n> vd = v.template cast<D>();
        return Vec<D, S::m>(sys.template constraint_matrix<D>(qd) * vd);
      },
      q, Mv, dMv);
  return dMv * v;
}

/// Acceleration and multipliers of the Lagrange–d'Alembert equations at (q, v).
template <class T, int N, int M>
struct ConstrainedAcceleration {
  Vec<T, N> acceleration;
  Vec<T, M> multiplier;  ///< λ, with constraint force M(q)ᵀλ
};

template <Model S, class T>
ConstrainedAcceleration<T, S::n, S::m> constrained_acceleration(const S& sys, const Vec<T, S::n>& q,
                                                                const Vec<T, S::n>& v) {
  constexpr int n = S::n, m = S::m;
  const auto d = lagrangian_derivatives(sys, q, v);
  Vec<T, n> r = d.Lq - d.B * v;
  if constexpr (HasExternalForce<S>) r += sys.template force<T>(q, v);
  const Eigen::PartialPivLU<Mat<T, n, n>> W(d.W);
  ConstrainedAcceleration<T, n, m> out;
  out.acceleration = W.solve(r);
  if constexpr (m > 0) {
    const Mat<T, m, n> Mq = sys.template constraint_matrix<T>(q);
    const Mat<T, n, m> WinvMt = W.solve(Mq.transpose());
    const Mat<T, m, m> C = Mq * WinvMt;
    const Vec<T, m> rhs = constraint_curvature(sys, q, v) + Mq * out.acceleration;
    out.multiplier = -Eigen::PartialPivLU<Mat<T, m, m>>(C).solve(rhs);
    out.acceleration += WinvMt * out.multiplier;
  }
  return out;
}

/// q̈(q, v) of the constrained dynamics (the vector field used by RK4 and the reference solver).
template <Model S, class T>
Vec<T, S::n> acceleration(const S& sys, const Vec<T, S::n>& q, const Vec<T, S::n>& v) {
  return constrained_acceleration(sys, q, v).acceleration;
}

/// The continuous constraint force M(q)ᵀλ(q, v) (zero vector without constraints).
template <Model S>
Vecd<S::n> constraint_force(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& v) {
  if constexpr (S::m == 0) {
    return Vecd<S::n>::Zero();
  } else {
    const auto a = constrained_acceleration(sys, q, v);
    return sys.template constraint_matrix<double>(q).transpose() * a.multiplier;
  }
}

/// A basis of D_q = ker M(q) as columns: the model's own frame if it has one, otherwise an
/// orthonormal basis from a QR factorisation of M(q)ᵀ. Everything computed from it
/// (constrained momenta, velocities in D, energies on D*) is independent of the choice.
template <Model S>
Matd<S::n, S::n - S::m> constraint_frame(const S& sys, const Vecd<S::n>& q) {
  constexpr int n = S::n, m = S::m;
  if constexpr (HasFrame<S>) {
    return sys.frame(q);
  } else if constexpr (m == 0) {
    return Matd<n, n>::Identity();
  } else {
    const Eigen::HouseholderQR<Matd<n, m>> qr(sys.template constraint_matrix<double>(q).transpose());
    const Matd<n, n> Q = qr.householderQ();
    return Q.template rightCols<n - m>();
  }
}

/// The velocity v ∈ D_q whose momentum has the same components on D as p: Eᵀ ∂L/∂v(q, v) = Eᵀ p.
/// This is the velocity of the constrained momentum on D* (the inverse of the nonholonomic
/// Legendre map); without constraints it is the inverse Legendre map. Mechanical models solve one
/// linear system; general Lagrangians use Newton on v = E u.
template <Model S>
Vecd<S::n> velocity_in_distribution(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& p) {
  constexpr int n = S::n, k = S::n - S::m;
  const Matd<n, k> E = constraint_frame(sys, q);
  if constexpr (HasMetric<S>) {  // L quadratic in v: one linear solve, no AD
    if (is_mechanical(sys)) {
      const Matd<n, n> G = sys.template metric<double>(q);
      return E * (E.transpose() * G * E).ldlt().solve(E.transpose() * p);
    }
  }
  Vecd<k> u = Vecd<k>::Zero();
  for (int it = 0; it < 20; ++it) {
    const Vecd<n> v = E * u;
    const auto d = lagrangian_derivatives(sys, q, v);
    const Vecd<k> g = E.transpose() * (d.Lv - p);
    const Matd<k, k> J = E.transpose() * d.W * E;
    const Vecd<k> du = J.partialPivLu().solve(g);
    u -= du;
    if (!(du.template lpNorm<Eigen::Infinity>() > 1e-15 * (1.0 + u.template lpNorm<Eigen::Infinity>()))) break;
  }
  return E * u;
}

}  // namespace dalembert
