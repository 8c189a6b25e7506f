#pragma once
// Second-order constrained systems (SOCS, Borda–Fernández–Grillo; ../shared/spec/seed-004.md §1.2):
// a Lagrangian L(q, v), kinematic constraints C_K = {Φ(q, v, a) = 0} that may involve accelerations,
// and variational constraints C_V|_(q,v,a) = span of the columns of a frame B(q, v, a). Trajectories
// satisfy (spec §1.2, eq. (1))
//   Φ(q, q̇, q̈) = 0,   B(q, q̇, q̈)ᵀ D_EL L(q, q̇, q̈) = 0,   D_EL L = ∂L/∂q − d/dt ∂L/∂v.
// A SOCS is a struct, generic in the scalar type like every model, with
//   static constexpr int n, m;                                   coordinates, kinematic constraints
//   template <class T> T lagrangian(const Vec<T,n>& q, const Vec<T,n>& v) const;
//   template <class T> Vec<T,m> kinematic_constraint(q, v, a) const;      Φ
//   template <class T> Mat<T,n,n-m> variational_frame(q, v, a) const;     B: C_V has n − m directions
// so that m kinematic and n − m variational equations determine the acceleration (spec §1.2). Optional:
//   template <class T> Vec<T,n> acceleration(q, v) const;    an explicit form of the equations of motion
//   template <class T> Vec<T,m> physical_factor(q, v, a) const;   ┐ on the variational equations
//   template <class T> Vec<T,m> spurious_factor(q, v, a) const;   ┘ Φ = spurious ⊙ physical
// The factors describe a kinematic constraint whose solution set has a spurious branch (the
// Lyapunov constraint of spec §4.3: Φ = σ·g, and σ = 0 is a branch without dissipation); the
// physical factor is then used to compute accelerations and to select the discrete root.
// Nonholonomic systems embed as SOCS (Remark 2.3): see NonholonomicAsSecondOrder below.
#include <concepts>
#include <limits>
#include <stdexcept>

#include <Eigen/LU>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/model/dynamics.hpp"
#include "dalembert/model/model.hpp"
#include "dalembert/solve/newton.hpp"

namespace dalembert {

template <class S>
concept SecondOrderSystem = requires(const S& s, const Vecd<S::n>& x) {
  { S::n } -> std::convertible_to<int>;
  { S::m } -> std::convertible_to<int>;
  { s.template lagrangian<double>(x, x) } -> std::convertible_to<double>;
  { s.template kinematic_constraint<double>(x, x, x) } -> std::convertible_to<Vecd<S::m>>;
  { s.template variational_frame<double>(x, x, x) } -> std::convertible_to<Matd<S::n, S::n - S::m>>;
};

template <class S>
concept HasExplicitAcceleration = SecondOrderSystem<S> && requires(const S& s, const Vecd<S::n>& x) {
  { s.template acceleration<double>(x, x) } -> std::convertible_to<Vecd<S::n>>;
};

template <class S>
concept HasFactoredKinematicConstraint = SecondOrderSystem<S> && requires(const S& s, const Vecd<S::n>& x) {
  { s.template physical_factor<double>(x, x, x) } -> std::convertible_to<Vecd<S::m>>;
  { s.template spurious_factor<double>(x, x, x) } -> std::convertible_to<Vecd<S::m>>;
};

/// d/dt f(q(t), v(t)) = ∂f/∂q·v + ∂f/∂v·a for any scalar f(q, v) generic in its scalar type
/// (e.g. the Lyapunov function of a Lyapunov constraint dV/dt = −F), by one directional dual.
template <class T, int N, class F>
T total_derivative(F&& f, const Vec<T, N>& q, const Vec<T, N>& v, const Vec<T, N>& a) {
  using D = ad::Dual<T, 1>;
  Vec<D, N> qd, vd;
  for (int i = 0; i < N; ++i) {
    qd[i] = ad::constant<1>(q[i]);
    qd[i].derivatives()[0] = v[i];
    vd[i] = ad::constant<1>(v[i]);
    vd[i].derivatives()[0] = a[i];
  }
  const D y = f(qd, vd);  // a concrete scalar (f may return an expression)
  return ad::derivative(y, 0);
}

/// A basis of ker M as columns, smooth in the entries of M and generic in the scalar type (so that
/// automatic differentiation goes through it): pivot columns P chosen once from the plain values,
/// then the basis [−P⁻¹F; I] on the free columns F. Assumes M has full row rank.
template <class T, int Mr, int N>
Mat<T, N, N - Mr> kernel_frame(const Mat<T, Mr, N>& M) {
  Mat<T, N, N - Mr> E;
  E.setZero();
  if constexpr (Mr == 0) {
    for (int i = 0; i < N; ++i) E(i, i) = T(1.0);
  } else {
    Matd<Mr, N> plain;
    for (int r = 0; r < Mr; ++r)
      for (int c = 0; c < N; ++c) plain(r, c) = ad::plain(M(r, c));
    const Eigen::FullPivLU<Matd<Mr, N>> lu(plain);
    const auto& columns = lu.permutationQ().indices();  // pivot columns first
    Mat<T, Mr, Mr> P;
    Mat<T, Mr, N - Mr> F;
    for (int j = 0; j < Mr; ++j) P.col(j) = M.col(columns[j]);
    for (int j = 0; j < N - Mr; ++j) F.col(j) = M.col(columns[Mr + j]);
    const Mat<T, Mr, N - Mr> X = -Eigen::PartialPivLU<Mat<T, Mr, Mr>>(P).solve(F);
    for (int j = 0; j < N - Mr; ++j) {
      for (int i = 0; i < Mr; ++i) E(columns[i], j) = X(i, j);
      E(columns[Mr + j], j) = T(1.0);
    }
  }
  return E;
}

namespace detail {
/// A SOCS seen as an unconstrained Model, to reuse lagrangian_derivatives().
template <class S>
struct LagrangianOf {
  static constexpr int n = S::n, m = 0;
  const S* system;
  template <class T>
  T lagrangian(const Vec<T, n>& q, const Vec<T, n>& v) const { return system->template lagrangian<T>(q, v); }
  template <class T>
  Mat<T, 0, n> constraint_matrix(const Vec<T, n>&) const { return {}; }
};
}  // namespace detail

/// The Euler–Lagrange covector D_EL L(q, v, a) = ∂L/∂q − ∂²L/∂v∂q v − ∂²L/∂v² a (spec §1.2).
template <SecondOrderSystem S, class T>
Vec<T, S::n> euler_lagrange_covector(const S& sys, const Vec<T, S::n>& q, const Vec<T, S::n>& v,
                                     const Vec<T, S::n>& a) {
  const auto d = lagrangian_derivatives(detail::LagrangianOf<S>{&sys}, q, v);
  return d.Lq - d.B * v - d.W * a;
}

/// The energy E_L = v·∂L/∂v − L (the same formula as for Lagrange–d'Alembert models).
template <SecondOrderSystem S>
double energy(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& v) {
  return energy(detail::LagrangianOf<S>{&sys}, q, v);
}

/// The largest kinematic constraint residual |Φ(q, v, a)|_inf (the `constraint` column of a run).
template <SecondOrderSystem S>
double kinematic_residual(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& v, const Vecd<S::n>& a) {
  if constexpr (S::m == 0) {
    return 0.0;
  } else {
    return sys.template kinematic_constraint<double>(q, v, a).template lpNorm<Eigen::Infinity>();
  }
}

/// The kinematic equations that determine the motion: the physical factor where the constraint
/// has one (it excludes the spurious branch), otherwise Φ itself.
template <SecondOrderSystem S, class T>
Vec<T, S::m> determining_constraint(const S& sys, const Vec<T, S::n>& q, const Vec<T, S::n>& v,
                                    const Vec<T, S::n>& a) {
  if constexpr (HasFactoredKinematicConstraint<S>) {
    return sys.template physical_factor<T>(q, v, a);
  } else {
    return sys.template kinematic_constraint<T>(q, v, a);
  }
}

/// The acceleration of the SOCS at (q, v): the model's explicit form if it has one, otherwise
/// Newton on [Φ (or its physical factor); Bᵀ D_EL L] = 0 in a, with D_EL L affine in a (so that
/// only the constraint equations are differentiated). Returns the Newton report; `a` is the result.
template <SecondOrderSystem S>
NewtonReport solve_acceleration(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& v, Vecd<S::n>& a,
                                const NewtonOptions& options = {}) {
  constexpr int n = S::n, m = S::m;
  if constexpr (HasExplicitAcceleration<S>) {
    a = sys.template acceleration<double>(q, v);
    NewtonReport r;
    r.converged = a.allFinite();
    r.residual_norm = 0.0;
    if (!r.converged) r.reason = "non-finite explicit acceleration";
    return r;
  } else {
    const auto d = lagrangian_derivatives(detail::LagrangianOf<S>{&sys}, q, v);
    const Vecd<n> free_part = d.Lq - d.B * v;  // D_EL L = free_part − W a
    const auto residual = [&](const auto& ad_a) {
      using D = typename std::decay_t<decltype(ad_a)>::Scalar;
      const Vec<D, n> qd = q.template cast<D>(), vd = v.template cast<D>();
      Vec<D, n> r;
      r.template head<m>() = determining_constraint(sys, qd, vd, ad_a);
      const Vec<D, n> del = free_part.template cast<D>() - d.W.template cast<D>() * ad_a;
      r.template tail<n - m>() = sys.template variational_frame<D>(qd, vd, ad_a).transpose() * del;
      return r;
    };
    // Newton with a step-size criterion: the equations are usually affine in a (one correction),
    // and the sizes of their terms differ too much for one residual tolerance.
    NewtonReport report;
    Vecd<n> F;
    Matd<n, n> J;
    a.setZero();
    for (report.iterations = 0; report.iterations < options.max_iterations; ++report.iterations) {
      ad::value_and_jacobian<n, n>(residual, a, F, J);
      report.residual_norm = F.template lpNorm<Eigen::Infinity>();
      const Eigen::FullPivLU<Matd<n, n>> lu(J);
      if (!F.allFinite() || !J.allFinite() || !lu.isInvertible()) {
        report.reason = "singular equations for the acceleration";
        return report;
      }
      const Vecd<n> correction = lu.solve(F);
      a -= correction;
      // after a correction this small the error is its square: round-off
      if (correction.template lpNorm<Eigen::Infinity>() <= 1e-10 * (1.0 + a.template lpNorm<Eigen::Infinity>())) {
        report.converged = a.allFinite();
        return report;
      }
    }
    report.reason = "no convergence";
    return report;
  }
}

/// The acceleration of the SOCS at (q, v); throws std::domain_error where the equations cannot be
/// solved for it (e.g. v = 0 for a curvature constraint).
template <SecondOrderSystem S>
Vecd<S::n> second_order_acceleration(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& v) {
  Vecd<S::n> a;
  const NewtonReport r = solve_acceleration(sys, q, v, a);
  if (!r.converged || !a.allFinite())
    throw std::domain_error("the equations of motion cannot be solved for the acceleration: " + r.reason);
  return a;
}

/// Remark 2.3: a nonholonomic system (L, D = ker M(q)) as a SOCS, with C_K = {M(q) v = 0} (no
/// condition on a) and C_V = D. The kinematic constraint does not involve a, so the acceleration
/// comes from the Lagrange–d'Alembert equations with the multiplier eliminated.
template <Model S>
struct NonholonomicAsSecondOrder {
  static_assert(!HasExternalForce<S>, "a SOCS has no external forces (spec §1.2)");
  static constexpr int n = S::n, m = S::m;
  S system;

  template <class T>
  T lagrangian(const Vec<T, n>& q, const Vec<T, n>& v) const { return system.template lagrangian<T>(q, v); }
  template <class T>
  Vec<T, m> kinematic_constraint(const Vec<T, n>& q, const Vec<T, n>& v, const Vec<T, n>&) const {
    if constexpr (m == 0) return {};
    else return system.template constraint_matrix<T>(q) * v;
  }
  template <class T>
  Mat<T, n, n - m> variational_frame(const Vec<T, n>& q, const Vec<T, n>&, const Vec<T, n>&) const {
    return kernel_frame<T, m, n>(system.template constraint_matrix<T>(q));
  }
  template <class T>
  Vec<T, n> acceleration(const Vec<T, n>& q, const Vec<T, n>& v) const {
    return dalembert::acceleration(system, q, v);
  }
};

}  // namespace dalembert
