#pragma once
// Second-order constrained systems (SOCS, Borda–Fernández–Grillo; [BFG13] Def. 2.1):
// a Lagrangian L(q, v), kinematic constraints C_K = {Φ(q, v, a) = 0} that may involve accelerations,
// and variational constraints C_V|_(q,v,a) = span of the columns of a frame B(q, v, a). Trajectories
// satisfy ([BFG13] eq. (1))
//   Φ(q, q̇, q̈) = 0,   B(q, q̇, q̈)ᵀ D_EL L(q, q̇, q̈) = 0,   D_EL L = ∂L/∂q − d/dt ∂L/∂v.
// A SOCS is a struct, generic in the scalar type like every model, with
//   static constexpr int n, m;                                   coordinates, kinematic constraints
//   template <class T> T lagrangian(const Vec<T,n>& q, const Vec<T,n>& v) const;
//   template <class T> Vec<T,m> kinematic_constraint(q, v, a) const;      Φ
//   template <class T> Mat<T,n,n-m> variational_frame(q, v, a) const;     B: C_V has n − m directions
// so that m kinematic and n − m variational equations determine the acceleration. Optional:
//   template <class T> Vec<T,n> acceleration(q, v) const;    an explicit form of the equations of motion
//   template <class T> Vec<T,m> physical_factor(q, v, a) const;   ┐ on the variational equations
//   template <class T> Vec<T,m> spurious_factor(q, v, a) const;   ┘ Φ = spurious ⊙ physical
// Sizes are as for models (model/model.hpp): n and m may be Eigen::Dynamic, with dimension() and
// constraint_count() at run time and optional bounds max_n, max_m; the types are then VecN<S, T>,
// VecM<S, T> and MatNK<S, T> (n × (n − m)), Eigen's fixed-size types when the sizes are fixed.
// The factors describe a kinematic constraint whose solution set has a spurious branch (the
// Lyapunov constraint of [BFG13] Ex. 4.2, by our derivation Φ = σ·g, and σ = 0 is a branch without dissipation); the
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
concept SecondOrderSystem = requires(const S& s, const VecN<S>& x) {
  { S::n } -> std::convertible_to<int>;
  { S::m } -> std::convertible_to<int>;
  { coordinate_count(s) } -> std::convertible_to<int>;
  { constraint_count(s) } -> std::convertible_to<int>;
  { s.template lagrangian<double>(x, x) } -> std::convertible_to<double>;
  { s.template kinematic_constraint<double>(x, x, x) } -> std::convertible_to<VecM<S>>;
  { s.template variational_frame<double>(x, x, x) } -> std::convertible_to<MatNK<S>>;
};

template <class S>
concept HasExplicitAcceleration = SecondOrderSystem<S> && requires(const S& s, const VecN<S>& x) {
  { s.template acceleration<double>(x, x) } -> std::convertible_to<VecN<S>>;
};

template <class S>
concept HasFactoredKinematicConstraint = SecondOrderSystem<S> && requires(const S& s, const VecN<S>& x) {
  { s.template physical_factor<double>(x, x, x) } -> std::convertible_to<VecM<S>>;
  { s.template spurious_factor<double>(x, x, x) } -> std::convertible_to<VecM<S>>;
};

/// d/dt f(q(t), v(t)) = ∂f/∂q·v + ∂f/∂v·a for any scalar f(q, v) generic in its scalar type
/// (e.g. the Lyapunov function of a Lyapunov constraint dV/dt = −F), by one directional dual.
/// N may be Eigen::Dynamic (with the bound MaxN of the vectors).
template <class T, int N, int MaxN, class F>
T total_derivative(F&& f, const Eigen::Matrix<T, N, 1, Eigen::ColMajor, MaxN, 1>& q,
                   const Eigen::Matrix<T, N, 1, Eigen::ColMajor, MaxN, 1>& v,
                   const Eigen::Matrix<T, N, 1, Eigen::ColMajor, MaxN, 1>& a) {
  using D = ad::Dual<T, 1>;
  const int n = static_cast<int>(q.size());
  Vec<D, N, MaxN> qd, vd;
  qd.resize(n);
  vd.resize(n);
  for (int i = 0; i < n; ++i) {
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
/// then the basis [−P⁻¹F; I] on the free columns F. Assumes M has full row rank. The sizes may be
/// Eigen::Dynamic, with the bounds MaxMr and MaxN (then the frame has at most MaxN columns).
template <class T, int Mr, int N, int MaxMr = Mr, int MaxN = N>
Mat<T, N, difference_of_sizes(N, Mr), MaxN, MaxN> kernel_frame(const Mat<T, Mr, N, MaxMr, MaxN>& M) {
  constexpr int K = difference_of_sizes(N, Mr);
  // the numbers of rows and columns of M and of columns of the frame (constants for fixed sizes)
  const int rows = Mr != Dynamic ? Mr : static_cast<int>(M.rows());
  const int cols = N != Dynamic ? N : static_cast<int>(M.cols());
  const int k = cols - rows;
  Mat<T, N, K, MaxN, MaxN> E;
  E.setZero(cols, k);
  const auto identity = [&] {
    for (int i = 0; i < cols; ++i) E(i, i) = T(1.0);
  };
  if constexpr (Mr == 0) {
    identity();
  } else {
    if constexpr (Mr == Dynamic) {
      if (rows == 0) {
        identity();
        return E;
      }
    }
    Matd<Mr, N, MaxMr, MaxN> plain;
    plain.resize(rows, cols);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) plain(r, c) = ad::plain(M(r, c));
    const Eigen::FullPivLU<Matd<Mr, N, MaxMr, MaxN>> lu(plain);
    const auto& columns = lu.permutationQ().indices();  // pivot columns first
    Mat<T, Mr, Mr, MaxMr, MaxMr> P;
    Mat<T, Mr, K, MaxMr, MaxN> F;
    P.resize(rows, rows);
    F.resize(rows, k);
    for (int j = 0; j < rows; ++j) P.col(j) = M.col(columns[j]);
    for (int j = 0; j < k; ++j) F.col(j) = M.col(columns[rows + j]);
    const Mat<T, Mr, K, MaxMr, MaxN> X = -LuKeepingDerivatives<Mat<T, Mr, Mr, MaxMr, MaxMr>>(P).solve(F);
    for (int j = 0; j < k; ++j) {
      for (int i = 0; i < rows; ++i) E(columns[i], j) = X(i, j);
      E(columns[rows + j], j) = T(1.0);
    }
  }
  return E;
}

namespace detail {
/// A SOCS seen as an unconstrained Model, to reuse lagrangian_derivatives().
template <class S>
struct LagrangianOf {
  static constexpr int n = S::n, m = 0, max_n = max_n_of<S>();
  const S* system;
  int dimension() const { return coordinate_count(*system); }
  template <class T>
  T lagrangian(const VecN<S, T>& q, const VecN<S, T>& v) const { return system->template lagrangian<T>(q, v); }
  template <class T>
  Mat<T, 0, n, 0, max_n> constraint_matrix(const VecN<S, T>& q) const {
    Mat<T, 0, n, 0, max_n> none;
    none.resize(0, q.size());
    return none;
  }
};
}  // namespace detail

/// The Euler–Lagrange covector D_EL L(q, v, a) = ∂L/∂q − ∂²L/∂v∂q v − ∂²L/∂v² a ([BFG13] eq. (1)).
template <SecondOrderSystem S, class T>
VecN<S, T> euler_lagrange_covector(const S& sys, const VecN<S, T>& q, const VecN<S, T>& v, const VecN<S, T>& a) {
  const auto d = lagrangian_derivatives(detail::LagrangianOf<S>{&sys}, q, v);
  return d.Lq - d.B * v - d.W * a;
}

/// The energy E_L = v·∂L/∂v − L (the same formula as for Lagrange–d'Alembert models).
template <SecondOrderSystem S>
double energy(const S& sys, const VecN<S>& q, const VecN<S>& v) {
  return energy(detail::LagrangianOf<S>{&sys}, q, v);
}

/// The largest kinematic constraint residual |Φ(q, v, a)|_inf (the `constraint` column of a run).
template <SecondOrderSystem S>
double kinematic_residual(const S& sys, const VecN<S>& q, const VecN<S>& v, const VecN<S>& a) {
  if constexpr (S::m == 0) {
    return 0.0;
  } else {
    if (constraint_count(sys) == 0) return 0.0;
    return sys.template kinematic_constraint<double>(q, v, a).template lpNorm<Eigen::Infinity>();
  }
}

/// The kinematic equations that determine the motion: the physical factor where the constraint
/// has one (it excludes the spurious branch), otherwise Φ itself.
template <SecondOrderSystem S, class T>
VecM<S, T> determining_constraint(const S& sys, const VecN<S, T>& q, const VecN<S, T>& v, const VecN<S, T>& a) {
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
NewtonReport solve_acceleration(const S& sys, const VecN<S>& q, const VecN<S>& v, VecN<S>& a,
                                const NewtonOptions& options = {}) {
  constexpr int n = S::n, m = S::m, max_n = max_n_of<S>();
  if constexpr (HasExplicitAcceleration<S>) {
    a = sys.template acceleration<double>(q, v);
    NewtonReport r;
    r.converged = a.allFinite();
    r.residual_norm = 0.0;
    if (!r.converged) r.reason = "non-finite explicit acceleration";
    return r;
  } else {
    const auto d = lagrangian_derivatives(detail::LagrangianOf<S>{&sys}, q, v);
    const VecN<S> free_part = d.Lq - coefficient_product(d.B, v);  // D_EL L = free_part − W a
    const auto residual = [&](const auto& ad_a) {
      using D = typename std::decay_t<decltype(ad_a)>::Scalar;
      // counted here, not captured: constants for fixed sizes
      const int dn = coordinate_count(sys), dm = constraint_count(sys);
      const VecN<S, D> qd = ad::constants<D>(q, dn), vd = ad::constants<D>(v, dn);
      VecN<S, D> r;
      r.resize(dn);
      if constexpr (m != 0) {
        if (dm > 0) r.template head<m>(dm) = determining_constraint(sys, qd, vd, ad_a);
      }
      const VecN<S, D> del = free_part.template cast<D>() - coefficient_product(d.W.template cast<D>(), ad_a);
      r.template segment<k_of<S>>(dm, dn - dm) =
          coefficient_product(sys.template variational_frame<D>(qd, vd, ad_a).transpose(), del);
      return r;
    };
    // Newton with a step-size criterion (test (c) of solve/newton.hpp): the equations are usually
    // affine in a (one correction), and the sizes of their terms differ too much for one residual
    // tolerance; after a correction of 1e-10 the error is its square, round-off.
    NewtonOptions by_correction = options;
    by_correction.tolerance = 0.0;
    by_correction.correction_tolerance = 1e-10;
    by_correction.damped = false;
    a.setZero(coordinate_count(sys));
    const auto equations = [&](const VecN<S>& x, VecN<S>& F, MatNN<S>& J) {
      ad::value_and_jacobian<n, n, max_n, max_n>(residual, x, F, J);
    };
    NewtonReport report = newton_solve<n, max_n>(equations, a, 0.0, by_correction);
    if (!report.converged && report.reason == "singular Jacobian")
      report.reason = "singular equations for the acceleration";
    return report;
  }
}

/// The acceleration of the SOCS at (q, v); throws std::domain_error where the equations cannot be
/// solved for it (e.g. v = 0 for a curvature constraint).
template <SecondOrderSystem S>
VecN<S> second_order_acceleration(const S& sys, const VecN<S>& q, const VecN<S>& v) {
  VecN<S> a;
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
  static_assert(!HasExternalForce<S>, "a SOCS has no external forces ([BFG13] Def. 2.1)");
  static constexpr int n = S::n, m = S::m, max_n = max_n_of<S>(), max_m = max_m_of<S>();
  S system;

  int dimension() const { return coordinate_count(system); }
  int constraint_count() const { return dalembert::constraint_count(system); }

  template <class T>
  T lagrangian(const VecN<S, T>& q, const VecN<S, T>& v) const { return system.template lagrangian<T>(q, v); }
  template <class T>
  VecM<S, T> kinematic_constraint(const VecN<S, T>& q, const VecN<S, T>& v, const VecN<S, T>&) const {
    if constexpr (m == 0) return {};
    else return system.template constraint_matrix<T>(q) * v;
  }
  template <class T>
  MatNK<S, T> variational_frame(const VecN<S, T>& q, const VecN<S, T>&, const VecN<S, T>&) const {
    return kernel_frame<T, m, n, max_m, max_n>(system.template constraint_matrix<T>(q));
  }
  template <class T>
  VecN<S, T> acceleration(const VecN<S, T>& q, const VecN<S, T>& v) const {
    return dalembert::acceleration(system, q, v, 0.0);  // no force (above), so no time
  }
};

}  // namespace dalembert
