#pragma once
// Steady motions and their stability, continuous and from a discrete method's step.
//
// A model whose L, constraints and force do not depend on some coordinates q_s (its symmetric
// coordinates: the sleigh's and the knife edge's position in the plane) has steady motions (relative
// equilibria): the other coordinates q_r at rest and the symmetric ones moving at constant velocity,
//   v_r = 0,   a(q, v) = 0,
// with a the acceleration of the multiplier-extended dynamics (model/dynamics.hpp); an equilibrium
// is the steady motion with v = 0. Along it the linearised field
//   d/dt (δq, δv) = [[0, I], [∂a/∂q, ∂a/∂v]] (δq, δv)
// is constant and does not involve δq_s (∂a/∂q_s = 0): dropping δq_s leaves a matrix A on
// z = (δq_r, δv). M(q)v is a first integral of the extended dynamics and its derivative
// K = [∂(M v)/∂q_r, M] is constant along the motion, so K e^{tA} = K, K A = 0: A maps every z into
// ker K, the linearised constraint. The motion's eigenvalues are those of A on ker K,
//   Â = Tᵀ A T,   T an orthonormal basis of ker K (2n − s − m columns),
// the m others of A being zero. A discrete method's step Φ_h is equivariant in q_s as well, and at
// a steady motion its derivative D = ∂(q_{k+1}, w_{k+1})/∂(q_k, w_k) (w the momentum p or, for
// `rk4`, the velocity) without the rows and columns of q_s has eigenvalues μ ≈ exp(λ h), converging
// at the method's order, and m more whose eigenvectors leave the constraint (0 where the next step
// takes the constraint's part of the momentum out, 1 for `rk4`, which keeps M v): those whose
// eigenvectors have the largest component off ker K_w (K_w the linearised constraint in (q, w)) are
// set aside, and what remains is the method's Â. The eigenvalues of a Jordan block (a neutral
// direction along a family of steady motions, as the vertical disk's heading) are found to about
// the square root of the round-off, as by any eigenvalue solver.
#include <algorithm>
#include <cmath>
#include <complex>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Dense>

#include "dalembert/discrete/shooting.hpp"
#include "dalembert/model/projectors.hpp"

namespace dalembert {

/// The linearisation of a steady motion on the linearised constraint (continuous or discrete).
struct SteadyMotionLinearisation {
  std::vector<int> kept;              ///< the coordinates q_r kept, in increasing order
  Eigen::MatrixXd field;              ///< A on (δq_r, δv): continuous; D without q_s: discrete
  Eigen::MatrixXd constraint;         ///< K on the same variables
  Eigen::MatrixXd basis;              ///< T, an orthonormal basis of ker K, one column each
  Eigen::MatrixXd on_constraint;      ///< Tᵀ A T (continuous); empty for a discrete step
  Eigen::VectorXcd eigenvalues;       ///< λ: of Â; for a step, log(μ)/h
  Eigen::VectorXcd multipliers;       ///< μ of a step (empty for the continuous linearisation)
};

namespace detail {
inline std::string number_text(double x) {
  std::ostringstream out;
  out.precision(6);
  out << x;
  return out.str();
}

/// The coordinates other than `symmetric`, in increasing order; throws for an index out of range.
inline std::vector<int> kept_coordinates(int n, std::span<const int> symmetric) {
  std::vector<bool> is_symmetric(n, false);
  for (const int i : symmetric) {
    if (i < 0 || i >= n)
      throw std::invalid_argument("symmetric coordinate " + std::to_string(i) + " is not in 0.." +
                                  std::to_string(n - 1));
    is_symmetric[i] = true;
  }
  std::vector<int> kept;
  for (int i = 0; i < n; ++i)
    if (!is_symmetric[i]) kept.push_back(i);
  return kept;
}

/// The rows and columns of X (over (q, w), 2n of each) without the symmetric coordinates' q.
inline Eigen::MatrixXd without_symmetric(const Eigen::MatrixXd& X, const std::vector<int>& kept, int n, bool rows) {
  std::vector<int> index(kept);
  for (int i = 0; i < n; ++i) index.push_back(n + i);
  const int size = static_cast<int>(index.size());
  Eigen::MatrixXd out(rows ? size : X.rows(), size);
  for (int j = 0; j < size; ++j)
    for (int i = 0; i < out.rows(); ++i) out(i, j) = X(rows ? index[i] : i, index[j]);
  return out;
}

/// An orthonormal basis of the null space of K (columns), from its full singular value decomposition.
inline Eigen::MatrixXd null_space(const Eigen::MatrixXd& K, int columns) {
  if (K.rows() == 0) return Eigen::MatrixXd::Identity(columns, columns);
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(K, Eigen::ComputeFullV);
  const int rank = static_cast<int>(K.rows());
  return svd.matrixV().rightCols(columns - rank);
}

/// The largest entry of the columns of X at the symmetric coordinates (the others' rows), which a
/// symmetry makes zero; throws naming the coordinate where it is not, relative to X's largest.
inline void require_symmetric_columns(const Eigen::MatrixXd& X, std::span<const int> symmetric, double tolerance,
                                      const char* what) {
  const double scale = std::max(1.0, X.cwiseAbs().maxCoeff());
  for (const int j : symmetric) {
    const double worst = X.col(j).cwiseAbs().maxCoeff();
    if (worst > tolerance * scale)
      throw std::invalid_argument(std::string(what) + " depends on coordinate " + std::to_string(j) +
                                  " (derivative " + number_text(worst) + "): it is not a symmetry");
  }
}
}  // namespace detail

/// The linearisation of the steady motion through (q, v) of a model with the symmetric coordinates
/// `symmetric`, and its eigenvalues on the linearised constraint. Throws std::invalid_argument when
/// (q, v) is not a steady motion (v_r or a(q, v) larger than `tolerance` relative to |v| + 1) or
/// when the acceleration or the constraint depends on a coordinate said to be symmetric.
template <Model S>
SteadyMotionLinearisation steady_motion_linearisation(const S& sys, const VecN<S>& q, const VecN<S>& v,
                                                      std::span<const int> symmetric, double tolerance = 1e-10) {
  const int n = coordinate_count(sys), m = constraint_count(sys);
  SteadyMotionLinearisation out;
  out.kept = detail::kept_coordinates(n, symmetric);
  const double scale = 1.0 + v.template lpNorm<Eigen::Infinity>();
  for (const int i : out.kept)
    if (std::abs(v[i]) > tolerance * scale)
      throw std::invalid_argument("not a steady motion: the velocity of coordinate " + std::to_string(i) + " is " +
                                  detail::number_text(v[i]) + ", not 0");
  const auto J = acceleration_jacobian(sys, q, v);
  if (J.acceleration.template lpNorm<Eigen::Infinity>() > tolerance * scale * scale)
    throw std::invalid_argument("not a steady motion: the acceleration is " +
                                detail::number_text(J.acceleration.template lpNorm<Eigen::Infinity>()) + ", not 0");
  detail::require_symmetric_columns(Eigen::MatrixXd(J.B), symmetric, tolerance, "the acceleration");
  // The field on (δq, δv), 2n, and the linearised constraint [∂(M v)/∂q, M].
  Eigen::MatrixXd full = Eigen::MatrixXd::Zero(2 * n, 2 * n);
  full.topRightCorner(n, n).setIdentity();
  full.bottomLeftCorner(n, n) = J.B;
  full.bottomRightCorner(n, n) = J.F;
  Eigen::MatrixXd K(m, 2 * n);
  if constexpr (S::m != 0) {
    if (m > 0) {
      const Eigen::MatrixXd dMv = constraint_derivative_by_position(sys, q, v);
      K << dMv, constraint_matrix(sys, q);
      detail::require_symmetric_columns(dMv, symmetric, tolerance, "the constraint");
    }
  }
  out.field = detail::without_symmetric(full, out.kept, n, true);
  out.constraint = detail::without_symmetric(K, out.kept, n, false);
  const int size = static_cast<int>(out.field.rows());
  out.basis = detail::null_space(out.constraint, size);
  out.on_constraint = out.basis.transpose() * out.field * out.basis;
  out.eigenvalues = Eigen::EigenSolver<Eigen::MatrixXd>(out.on_constraint, false).eigenvalues();
  return out;
}

/// The same with the coordinates the model declares cyclic as its symmetric ones (model/model.hpp,
/// noncyclic_coordinates), which must leave its constraints unchanged too.
template <Model S>
  requires requires { S::cyclic_coordinates; }
SteadyMotionLinearisation steady_motion_linearisation(const S& sys, const VecN<S>& q, const VecN<S>& v,
                                                      double tolerance = 1e-10) {
  return steady_motion_linearisation(sys, q, v, std::span<const int>(S::cyclic_coordinates), tolerance);
}

/// The linearisation of `method`'s step at the state s on a steady motion: its multipliers μ on the
/// linearised constraint and λ_h = log(μ)/h, which converge to the continuous eigenvalues at the
/// method's order. The method gives step_derivative(s), ∂(q_{k+1}, w_{k+1})/∂(q_k, w_k) with w the
/// state's momentum p (or p_minus), or its velocity v for a state without one (`rk4`). Throws
/// std::invalid_argument when the step depends on a coordinate said to be symmetric.
template <class Method>
SteadyMotionLinearisation discrete_steady_motion_linearisation(const Method& method, const typename Method::State& s,
                                                               std::span<const int> symmetric,
                                                               double tolerance = 1e-8) {
  const auto& sys = method.system();
  const int n = static_cast<int>(s.q.size()), m = constraint_count(sys);
  const double h = method.step_size();
  SteadyMotionLinearisation out;
  out.kept = detail::kept_coordinates(n, symmetric);
  const Eigen::MatrixXd D = method.step_derivative(s);
  {
    // the step's rows other than q_s's, by q_s
    Eigen::MatrixXd rows = detail::without_symmetric(D.transpose(), out.kept, n, false).transpose();
    detail::require_symmetric_columns(rows, symmetric, tolerance, "the step");
  }
  // The linearised constraint in the state's (q, w), by central differences: it only sorts the
  // eigenvectors (below), far from the round-off that would matter.
  const auto w_of = [](const auto& state) -> const auto& {
    if constexpr (requires { state.p_minus; }) {
      return state.p_minus;
    } else if constexpr (requires { state.p; }) {
      return state.p;
    } else {
      return state.v;
    }
  };
  using Point = std::decay_t<decltype(s.q)>;
  const Point w = w_of(s);
  constexpr bool by_velocity = !requires { s.p; } && !requires { s.p_minus; };
  const auto constraint_at = [&](const Point& q, const Point& ww) -> Eigen::VectorXd {
    if constexpr (by_velocity) {
      return constraint_matrix(sys, q) * ww;
    } else {
      return momentum_constraint(sys, q, ww);
    }
  };
  Eigen::MatrixXd K(m, 2 * n);
  for (int j = 0; j < 2 * n; ++j) {
    const double e = 1e-6 * (1.0 + std::abs(j < n ? s.q[j] : w[j - n]));
    Point q_up = s.q, q_down = s.q, w_up = w, w_down = w;
    (j < n ? q_up[j] : w_up[j - n]) += e;
    (j < n ? q_down[j] : w_down[j - n]) -= e;
    K.col(j) = (constraint_at(q_up, w_up) - constraint_at(q_down, w_down)) / (2 * e);
  }
  out.field = detail::without_symmetric(D, out.kept, n, true);
  out.constraint = detail::without_symmetric(K, out.kept, n, false);
  const int size = static_cast<int>(out.field.rows());
  out.basis = detail::null_space(out.constraint, size);
  // Of the step's eigenvalues, the m whose eigenvectors lie furthest off ker K are set aside.
  const Eigen::EigenSolver<Eigen::MatrixXd> eigen(out.field, true);
  std::vector<std::pair<double, int>> off_constraint;  // (|K e| / |e|, index)
  for (int i = 0; i < size; ++i) {
    const Eigen::VectorXcd e = eigen.eigenvectors().col(i);
    off_constraint.emplace_back((out.constraint.cast<std::complex<double>>() * e).norm() / e.norm(), i);
  }
  std::sort(off_constraint.begin(), off_constraint.end());
  const int kept = size - m;
  out.multipliers.resize(kept);
  out.eigenvalues.resize(kept);
  for (int i = 0; i < kept; ++i) {
    const std::complex<double> mu = eigen.eigenvalues()[off_constraint[i].second];
    out.multipliers[i] = mu;
    out.eigenvalues[i] = std::log(mu) / h;
  }
  return out;
}

}  // namespace dalembert
