#pragma once
// Steady motions (relative equilibria) and their stability, continuous and from a discrete method's
// step; steady motions found by Gauss–Newton.
//
// A symmetry is a group whose generators ξ_a act on the coordinates by the flows of
// q̇ = A_a q + b_a and map solutions to solutions: a coordinate the model does not depend on
// (translation, A = 0, b = e_i), or a rotation of a coordinate plane that turns an angle with it
// (the rolling disk's (x, y, φ)). On velocities the flow acts by e^{tA_a}. A steady motion is an
// orbit of a one-parameter subgroup, q(t) = exp(t ξ) q0 with ξ = Σ ω_a ξ_a and rates ω:
//   v0 = A_ω q0 + b_ω,   a(q0, v0) = A_ω v0   (q̈ = A_ω q̇ along the orbit),   M(q0) v0 = 0,
// with A_ω = Σ ω_a A_a and a the acceleration of the multiplier-extended dynamics
// (model/dynamics.hpp). With translations alone, A_ω = 0: the symmetric coordinates move at
// constant velocity, the others are at rest and a = 0 (an equilibrium is the steady motion v = 0).
//
// Continuous. In the frame moving with the motion, y = exp(−t ξ) x, the dynamics is ẏ = f(y) − ξ_X(y)
// with ξ_X(q, v) = (A_ω q + b_ω, A_ω v), and the motion is its equilibrium; its linearisation is
//   L = [[−A_ω, I], [∂a/∂q, ∂a/∂v − A_ω]]   on (δq, δv).
// M(q)v is a first integral of the extended dynamics and the constraint distribution is invariant,
// so L maps ker K, K = [∂(M v)/∂q, M], into itself; so it does the tangents of the symmetry's orbit,
// O = span (ξ_a(q0), A_a v0), neutral directions to a neighbouring steady motion. The motion's
// eigenvalues are those L induces on ker K / O:
//   Â = Tᵀ L T,   T an orthonormal basis of ker K ∩ O^⊥ (2n − m − dim O columns).
// With translations this is L on (δq_r, δv), the symmetric coordinates' rows and columns dropped.
//
// Discrete. A method's step is equivariant too, and has steady motions of its own: states x = (q, w)
// (w the momentum p or p_minus, or for `rk4` the velocity) that one step takes to exp(h ξ_ω) x, the
// state moved by the symmetry at rates ω_h = ω + O(h^p). find_discrete_steady_motion solves
//   x_{k+1}(x) − exp(h ξ_ω) x = 0   for (q0, v0, ω),
// x built from (q0, v0) as the method builds its start; for `dla`, whose momentum carries its last
// step's constraint impulse (p_k = D2 L_d(q_{k−1}, q_k) with the multiplier's share), by the
// two-point start from exp(−h ξ_ω) q0 to q0. There the step followed by the symmetry's motion back,
// D = E ∂(q_{k+1}, w_{k+1})/∂(q_k, w_k) with E = diag(e^{−hA_ω}, e^{−hA_ω}) on (q, v) or
// diag(e^{−hA_ω}, e^{hA_ωᵀ}) on (q, p), leaves the orbit's tangents invariant exactly; on O^⊥ its
// eigenvalues are multipliers μ ≈ exp(λ h), converging at the method's order, and m more whose
// eigenvectors leave the constraint (0 where the next step takes the constraint's part of the
// momentum out, 1 for `rk4`, which keeps M v): those whose eigenvectors lie furthest off ker K_w (the
// linearised constraint in (q, w)) are set aside. At a point of the continuous motion instead, D
// would only leave the orbit invariant to the method's error, and a Jordan block of neutral
// directions (a family of steady motions) would split by its square root. A step that keeps the
// constraint only to its error (`rk4`, whose M v is a first integral of the extended dynamics only)
// has steady motions off it too, at any level of M v, which the symmetry carries along unchanged:
// no condition asks for M v = 0, which such a step's steady motions need not reach (the
// nearest one, to the least-norm correction, is O(h^p) off).
//
// Resolution. The eigenvalues of a Jordan block (a neutral direction along a family of steady
// motions, as the vertical disk's heading) are found to about the square root of the round-off
// times the matrix's size, as by any eigenvalue solver; real parts below `resolution` are reported
// as neutral, not growing.
//
// Finding a steady motion. From a guess (q, v), find_steady_motion solves the three conditions above
// for (q0, ω) by Gauss–Newton with the least-norm correction (steady motions come in families: the
// one nearest the guess), the positions and velocities named in `hold` kept at the guess's values.
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "dalembert/discrete/shooting.hpp"
#include "dalembert/model/projectors.hpp"
#include "dalembert/solve/gauss_newton.hpp"
#include "dalembert/solve/step_driver.hpp"

namespace dalembert {

/// A generator of a symmetry: the flow of q̇ = A q + b on the coordinates, e^{tA} on velocities.
struct SymmetryGenerator {
  std::string name;
  Eigen::MatrixXd A;  ///< n × n
  Eigen::VectorXd b;  ///< n
  Eigen::VectorXd at(const Eigen::VectorXd& q) const { return A * q + b; }
};

/// A symmetry: the generators of its group.
using Symmetry = std::vector<SymmetryGenerator>;

/// The translation of coordinate i of n.
inline SymmetryGenerator translation(int n, int i, std::string name = {}) {
  if (i < 0 || i >= n)
    throw std::invalid_argument("symmetric coordinate " + std::to_string(i) + " is not in 0.." + std::to_string(n - 1));
  SymmetryGenerator g{name.empty() ? "translation of coordinate " + std::to_string(i) : std::move(name),
                      Eigen::MatrixXd::Zero(n, n), Eigen::VectorXd::Unit(n, i)};
  return g;
}

/// The translations of the coordinates listed, in increasing order, each once.
inline Symmetry translations(int n, std::span<const int> coordinates) {
  std::vector<int> sorted(coordinates.begin(), coordinates.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  Symmetry out;
  for (const int i : sorted) out.push_back(translation(n, i));
  return out;
}

/// The rotation of the (x, y) plane of coordinates about its origin, x ↦ x cos t − y sin t, turning the
/// angle coordinate `angle` by t with it (none for −1).
inline SymmetryGenerator rotation(int n, int x, int y, int angle = -1, std::string name = {}) {
  for (const int i : {x, y})
    if (i < 0 || i >= n)
      throw std::invalid_argument("rotated coordinate " + std::to_string(i) + " is not in 0.." + std::to_string(n - 1));
  if (x == y || angle == x || angle == y || angle < -1 || angle >= n)
    throw std::invalid_argument("a rotation needs two coordinates and an angle, all different, in 0.." +
                                std::to_string(n - 1));
  SymmetryGenerator g{name.empty() ? "rotation of coordinates " + std::to_string(x) + ", " + std::to_string(y)
                                   : std::move(name),
                      Eigen::MatrixXd::Zero(n, n), Eigen::VectorXd::Zero(n)};
  g.A(x, y) = -1.0;
  g.A(y, x) = 1.0;
  if (angle >= 0) g.b[angle] = 1.0;
  return g;
}

/// The linearisation of a steady motion (continuous or from a step) and its eigenvalues.
struct SteadyMotionLinearisation {
  Eigen::VectorXd rates;          ///< ω, one per generator: q(t) = exp(t Σ ω_a ξ_a) q0
  Eigen::MatrixXd field;          ///< L on (δq, δv), continuous; E ∂x_{k+1}/∂x_k on (δq, δw), a step
  Eigen::MatrixXd constraint;     ///< K on the same variables
  Eigen::MatrixXd orbit;          ///< the tangents of the symmetry's orbit, one column per generator
  Eigen::MatrixXd basis;          ///< T: orthonormal; ker K ∩ O^⊥ (continuous), O^⊥ (a step)
  Eigen::MatrixXd on_constraint;  ///< Tᵀ L T (continuous); empty for a step
  Eigen::VectorXcd eigenvalues;   ///< λ: of Â; for a step, log(μ)/h
  Eigen::VectorXcd multipliers;   ///< μ of a step (empty for the continuous linearisation)
  double resolution = 0.0;        ///< real parts of λ within it are not resolved from zero

  /// The eigenvalues whose real part is above the resolution.
  int growing_modes() const {
    return static_cast<int>(std::count_if(eigenvalues.data(), eigenvalues.data() + eigenvalues.size(),
                                          [&](const std::complex<double>& x) { return x.real() > resolution; }));
  }
};

/// A steady motion found by find_steady_motion.
struct SteadyMotionPoint {
  Eigen::VectorXd q, v;   ///< the motion's (q0, v0)
  Eigen::VectorXd rates;  ///< ω, one per generator
  int iterations = 0;     ///< Gauss–Newton iterations
  double residual = 0.0;  ///< the largest residual of the conditions at the solution
};

/// What find_steady_motion keeps at the guess: positions and velocities, by coordinate index.
struct SteadyMotionHold {
  std::vector<int> positions, velocities;
};

namespace detail {
inline std::string number_text(double x) {
  std::ostringstream out;
  out.precision(6);
  out << x;
  return out.str();
}

/// Throws std::invalid_argument "<not_found> residual is R after N Gauss-Newton iterations" unless
/// the iteration converged.
inline void require_converged(const GaussNewtonResult& result, const std::string& not_found) {
  if (!result.converged)
    throw std::invalid_argument(not_found + " residual is " + number_text(result.residual) + " after " +
                                std::to_string(result.iterations) + " Gauss-Newton iterations");
}

inline void check_hold(const SteadyMotionHold& hold, int n) {
  for (const auto* list : {&hold.positions, &hold.velocities})
    for (const int i : *list)
      if (i < 0 || i >= n)
        throw std::invalid_argument("held coordinate " + std::to_string(i) + " is not in 0.." + std::to_string(n - 1));
}

inline void check_generators(const Symmetry& symmetry, int n) {
  for (const auto& g : symmetry)
    if (g.A.rows() != n || g.A.cols() != n || g.b.size() != n)
      throw std::invalid_argument("the symmetry generator '" + g.name + "' does not act on " + std::to_string(n) +
                                  " coordinates");
}

/// Ξ = [ξ_1(q), …, ξ_k(q)] (n × k) and A_ω = Σ ω_a A_a.
inline Eigen::MatrixXd generators_at(const Symmetry& symmetry, const Eigen::VectorXd& q) {
  Eigen::MatrixXd Xi(q.size(), static_cast<Eigen::Index>(symmetry.size()));
  for (std::size_t a = 0; a < symmetry.size(); ++a) Xi.col(static_cast<Eigen::Index>(a)) = symmetry[a].at(q);
  return Xi;
}
inline Eigen::MatrixXd combined(const Symmetry& symmetry, const Eigen::VectorXd& rates, int n) {
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(n, n);
  for (std::size_t a = 0; a < symmetry.size(); ++a) A += rates[static_cast<Eigen::Index>(a)] * symmetry[a].A;
  return A;
}
inline Eigen::VectorXd combined_offset(const Symmetry& symmetry, const Eigen::VectorXd& rates, int n) {
  Eigen::VectorXd b = Eigen::VectorXd::Zero(n);
  for (std::size_t a = 0; a < symmetry.size(); ++a) b += rates[static_cast<Eigen::Index>(a)] * symmetry[a].b;
  return b;
}

/// The matrix [Ξ; (A_a v)_a] (2n × k) whose product with the rates ω is (v, a) on a steady motion.
inline Eigen::MatrixXd rate_equations(const Symmetry& symmetry, const Eigen::VectorXd& q, const Eigen::VectorXd& v) {
  const int n = static_cast<int>(q.size()), k = static_cast<int>(symmetry.size());
  Eigen::MatrixXd S(2 * n, k);
  S.topRows(n) = generators_at(symmetry, q);
  for (int j = 0; j < k; ++j) S.col(j).tail(n) = symmetry[j].A * v;
  return S;
}

/// The rates that fit (q, v) with acceleration a best: the least-norm solution of Ξ ω = v,
/// Σ ω_a A_a v = a in the least-squares sense.
inline Eigen::VectorXd fitted_rates(const Symmetry& symmetry, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                    const Eigen::VectorXd& a) {
  if (symmetry.empty()) return Eigen::VectorXd();
  Eigen::VectorXd target(2 * q.size());
  target << v, a;
  return rate_equations(symmetry, q, v).completeOrthogonalDecomposition().solve(target);
}

/// The rates ω of the steady motion through (q, v) with acceleration a (fitted_rates). Where they
/// leave a residual above tolerance × scale (× scale² for the acceleration), (q, v) is not a steady
/// motion: throws naming the coordinate.
inline Eigen::VectorXd symmetry_rates(const Symmetry& symmetry, const Eigen::VectorXd& q, const Eigen::VectorXd& v,
                                      const Eigen::VectorXd& a, double tolerance, double scale) {
  const int n = static_cast<int>(q.size());
  const Eigen::VectorXd rates = fitted_rates(symmetry, q, v, a);
  const Eigen::VectorXd along =
      symmetry.empty() ? Eigen::VectorXd::Zero(2 * n) : Eigen::VectorXd(rate_equations(symmetry, q, v) * rates);
  for (int i = 0; i < n; ++i)
    if (std::abs(v[i] - along[i]) > tolerance * scale)
      throw std::invalid_argument("not a steady motion: the velocity of coordinate " + std::to_string(i) + " is " +
                                  number_text(v[i]) + ", not " + number_text(along[i]) +
                                  " (the symmetry's motion through q0)");
  for (int i = 0; i < n; ++i)
    if (std::abs(a[i] - along[n + i]) > tolerance * scale * scale)
      throw std::invalid_argument("not a steady motion: the acceleration of coordinate " + std::to_string(i) + " is " +
                                  number_text(a[i]) + ", not " + number_text(along[n + i]) +
                                  " (the symmetry's motion through (q0, v0))");
  return rates;
}

/// An orthonormal basis of the vectors orthogonal to the rows of X (columns), from its singular
/// value decomposition, rows that depend on others counted once.
inline Eigen::MatrixXd orthogonal_complement_of_rows(const Eigen::MatrixXd& X, int columns) {
  if (X.rows() == 0) return Eigen::MatrixXd::Identity(columns, columns);
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(X, Eigen::ComputeFullV);
  const auto& sigma = svd.singularValues();
  const double cutoff = 1e-9 * std::max(1.0, sigma.size() > 0 ? sigma[0] : 0.0);
  int rank = 0;
  while (rank < sigma.size() && sigma[rank] > cutoff) ++rank;
  return svd.matrixV().rightCols(columns - rank);
}

/// e^X by scaling and squaring of its Taylor series (the small matrices of a symmetry's rates).
inline Eigen::MatrixXd matrix_exponential(const Eigen::MatrixXd& X) {
  const double norm = X.cwiseAbs().rowwise().sum().maxCoeff();
  int squarings = 0;
  while (std::ldexp(norm, -squarings) > 0.25) ++squarings;
  const Eigen::MatrixXd Y = std::ldexp(1.0, -squarings) * X;
  Eigen::MatrixXd term = Eigen::MatrixXd::Identity(X.rows(), X.cols()), sum = term;
  for (int j = 1; j <= 18; ++j) {
    term = term * Y / j;
    sum += term;
  }
  for (int i = 0; i < squarings; ++i) sum = sum * sum;
  return sum;
}

/// The state of a step's steady motion at the position of s, moving with the symmetry's rates, as
/// find_discrete_steady_motion builds it: s itself, unless its momentum carries the constraint
/// impulse of the step that reached it (DLA: p_k = D2 L_d(q_{k−1}, q_k), the multiplier's impulse
/// balancing the constraint force), which a state from (q0, v0) lacks; then the two-point start from
/// the position the motion had a step before, q(−h) = e^{−hA_ω} q0 + ∫₀^{−h} e^{tA_ω} dt b_ω, to q0.
template <class Method>
typename Method::State state_on_the_orbit(const Method& method, const typename Method::State& s,
                                          const Symmetry& symmetry, const Eigen::VectorXd& rates) {
  if constexpr (requires { requires Method::carries_multiplier; }) {
    const int n = static_cast<int>(s.q.size());
    Eigen::MatrixXd X = Eigen::MatrixXd::Zero(n + 1, n + 1);  // the affine flow as a linear one
    X.topLeftCorner(n, n) = -method.step_size() * combined(symmetry, rates, n);
    X.col(n).head(n) = -method.step_size() * combined_offset(symmetry, rates, n);
    const Eigen::MatrixXd back = matrix_exponential(X);
    const std::decay_t<decltype(s.q)> before = back.topLeftCorner(n, n) * s.q + back.col(n).head(n);
    return method.initial_state_two_point(before, s.q);
  } else {
    return s;
  }
}

/// 10 √ε |Â|: where the eigenvalues of a Jordan block scatter.
inline double eigenvalue_resolution(const Eigen::MatrixXd& reduced) {
  return 10 * std::sqrt(std::numeric_limits<double>::epsilon()) * std::max(1.0, reduced.norm());
}

/// Throws when the model is not invariant under a generator at (q, v): the acceleration's
/// infinitesimal equivariance B ξ(q) + F A v = A a, and that of the constraint distribution,
/// ∂(M w)/∂q ξ(q) + M A w = 0 for w = v and a basis of ker M.
template <Model S>
void require_invariance(const S& sys, const Symmetry& symmetry, const VecN<S>& q, const VecN<S>& v,
                        const Eigen::MatrixXd& B, const Eigen::MatrixXd& F, const Eigen::VectorXd& a,
                        double tolerance) {
  const int n = coordinate_count(sys), m = constraint_count(sys);
  const Eigen::VectorXd qd = q, vd = v;
  Eigen::MatrixXd M(m, n), directions(n, 1);
  directions.col(0) = vd;
  if constexpr (S::m != 0) {
    if (m > 0) {
      M = constraint_matrix(sys, q);
      const Eigen::MatrixXd D = orthogonal_complement_of_rows(M, n);
      directions.conservativeResize(n, 1 + D.cols());
      directions.rightCols(D.cols()) = D;
    }
  }
  for (const auto& g : symmetry) {
    const Eigen::VectorXd xi = g.at(qd), off = B * xi + F * (g.A * vd) - g.A * a;
    const double scale = std::max({1.0, B.cwiseAbs().maxCoeff() * xi.cwiseAbs().maxCoeff(),
                                   F.cwiseAbs().maxCoeff() * (g.A * vd).cwiseAbs().maxCoeff(),
                                   g.A.cwiseAbs().maxCoeff() * a.cwiseAbs().maxCoeff()});
    if (off.cwiseAbs().maxCoeff() > tolerance * scale)
      throw std::invalid_argument("the acceleration is not invariant under the " + g.name + " (off by " +
                                  number_text(off.cwiseAbs().maxCoeff()) + "): it is not a symmetry");
    if constexpr (S::m != 0) {
      for (int j = 0; m > 0 && j < directions.cols(); ++j) {
        const VecN<S> w = directions.col(j);
        const Eigen::MatrixXd dMw = constraint_derivative_by_position(sys, q, w);
        const Eigen::VectorXd change = dMw * xi + M * (g.A * directions.col(j));
        const double size = std::max(1.0, dMw.cwiseAbs().maxCoeff() * xi.cwiseAbs().maxCoeff()) *
                            std::max(1.0, directions.col(j).cwiseAbs().maxCoeff());
        if (change.cwiseAbs().maxCoeff() > tolerance * size)
          throw std::invalid_argument("the constraint is not invariant under the " + g.name + " (off by " +
                                      number_text(change.cwiseAbs().maxCoeff()) + "): it is not a symmetry");
      }
    }
  }
}
}  // namespace detail

/// The linearisation of the steady motion through (q, v) of a model with the symmetry `symmetry`,
/// and its eigenvalues on the linearised constraint, modulo the symmetry's orbit. Throws
/// std::invalid_argument when (q, v) is not a steady motion (a velocity off the symmetry's motion
/// by more than `tolerance` relative to |v| + 1, or an acceleration by more than its square), or
/// when the model is not invariant under a generator.
template <Model S>
SteadyMotionLinearisation steady_motion_linearisation(const S& sys, const VecN<S>& q, const VecN<S>& v,
                                                      const Symmetry& symmetry, double tolerance = 1e-10) {
  const int n = coordinate_count(sys), m = constraint_count(sys), k = static_cast<int>(symmetry.size());
  detail::check_generators(symmetry, n);
  const auto J = acceleration_jacobian(sys, q, v);
  const Eigen::MatrixXd B = J.B, F = J.F;
  const Eigen::VectorXd q0 = q, v0 = v, a0 = J.acceleration;
  SteadyMotionLinearisation out;
  out.rates = detail::symmetry_rates(symmetry, q0, v0, a0, tolerance, 1.0 + v0.lpNorm<Eigen::Infinity>());
  detail::require_invariance(sys, symmetry, q, v, B, F, a0, tolerance);
  const Eigen::MatrixXd A = detail::combined(symmetry, out.rates, n);
  out.field.setZero(2 * n, 2 * n);
  out.field.topLeftCorner(n, n) = -A;
  out.field.topRightCorner(n, n).setIdentity();
  out.field.bottomLeftCorner(n, n) = B;
  out.field.bottomRightCorner(n, n) = F - A;
  out.constraint.resize(m, 2 * n);
  if constexpr (S::m != 0) {
    if (m > 0) out.constraint << Eigen::MatrixXd(constraint_derivative_by_position(sys, q, v)),
        Eigen::MatrixXd(constraint_matrix(sys, q));
  }
  out.orbit.resize(2 * n, k);
  for (int a = 0; a < k; ++a) out.orbit.col(a) << symmetry[a].at(q0), symmetry[a].A * v0;
  Eigen::MatrixXd excluded(m + k, 2 * n);
  excluded << out.constraint, out.orbit.transpose();
  out.basis = detail::orthogonal_complement_of_rows(excluded, 2 * n);
  out.on_constraint = out.basis.transpose() * out.field * out.basis;
  out.eigenvalues = Eigen::EigenSolver<Eigen::MatrixXd>(out.on_constraint, false).eigenvalues();
  out.resolution = detail::eigenvalue_resolution(out.on_constraint);
  return out;
}

/// The same with the translations of the coordinates `symmetric` as the symmetry.
template <Model S>
SteadyMotionLinearisation steady_motion_linearisation(const S& sys, const VecN<S>& q, const VecN<S>& v,
                                                      std::span<const int> symmetric, double tolerance = 1e-10) {
  return steady_motion_linearisation(sys, q, v, translations(coordinate_count(sys), symmetric), tolerance);
}

/// The same with the coordinates the model declares cyclic as its symmetric ones (model/model.hpp,
/// noncyclic_coordinates), which must leave its constraints unchanged too.
template <Model S>
  requires requires { S::cyclic_coordinates; }
SteadyMotionLinearisation steady_motion_linearisation(const S& sys, const VecN<S>& q, const VecN<S>& v,
                                                      double tolerance = 1e-10) {
  return steady_motion_linearisation(sys, q, v, std::span<const int>(S::cyclic_coordinates), tolerance);
}

/// The steady motion nearest the guess (q, v) (least-norm Gauss–Newton corrections of (q0, ω)),
/// with the positions and velocities of `hold` kept at the guess's. Throws std::invalid_argument
/// when the conditions are not met to `tolerance` relative to (|v| + 1)² within `max_iterations`.
template <Model S>
SteadyMotionPoint find_steady_motion(const S& sys, const VecN<S>& q, const VecN<S>& v, const Symmetry& symmetry,
                                     const SteadyMotionHold& hold = {}, double tolerance = 1e-12,
                                     int max_iterations = 50) {
  const int n = coordinate_count(sys), m = constraint_count(sys), k = static_cast<int>(symmetry.size());
  detail::check_generators(symmetry, n);
  detail::check_hold(hold, n);
  const int held = static_cast<int>(hold.positions.size() + hold.velocities.size());
  const Eigen::VectorXd q_guess = q, v_guess = v;
  SteadyMotionPoint out;
  out.q = q_guess;
  out.rates = detail::fitted_rates(symmetry, q_guess, v_guess,
                                   Eigen::VectorXd(acceleration_jacobian(sys, q, v).acceleration));
  // the unknowns x = (q0, ω); v0 = A_ω q0 + b_ω depends on both
  Eigen::VectorXd x(n + k), conditions_at_x(n + m + held);
  x << q_guess, out.rates;
  Eigen::MatrixXd jacobian_at_x(conditions_at_x.size(), x.size());
  const auto conditions = [&](const Eigen::VectorXd& unknowns, Eigen::VectorXd& R, Eigen::MatrixXd& D) {
    out.q = unknowns.head(n);
    out.rates = unknowns.tail(k);
    const Eigen::MatrixXd A = detail::combined(symmetry, out.rates, n), Xi = detail::generators_at(symmetry, out.q);
    out.v = A * out.q + detail::combined_offset(symmetry, out.rates, n);
    const VecN<S> qs = out.q, vs = out.v;
    const auto J = acceleration_jacobian(sys, qs, vs);
    const Eigen::MatrixXd B = J.B, F = J.F;
    R.head(n) = Eigen::VectorXd(J.acceleration) - A * out.v;
    D.topLeftCorner(n, n) = B + F * A - A * A;
    for (int j = 0; j < k; ++j) D.col(n + j).head(n) = F * Xi.col(j) - symmetry[j].A * out.v - A * Xi.col(j);
    if constexpr (S::m != 0) {
      if (m > 0) {
        const Eigen::MatrixXd M = constraint_matrix(sys, qs);
        R.segment(n, m) = M * out.v;
        D.block(n, 0, m, n) = Eigen::MatrixXd(constraint_derivative_by_position(sys, qs, vs)) + M * A;
        D.block(n, n, m, k) = M * Xi;
      }
    }
    int row = n + m;
    for (const int i : hold.positions) {
      R[row] = out.q[i] - q_guess[i];
      D.row(row).setZero();
      D(row, i) = 1.0;
      ++row;
    }
    for (const int i : hold.velocities) {
      R[row] = out.v[i] - v_guess[i];
      D.row(row) << A.row(i), Xi.row(i);
      ++row;
    }
  };
  const auto small_enough = [&](const Eigen::VectorXd&, double largest) {
    const double scale = 1.0 + out.v.lpNorm<Eigen::Infinity>();
    return largest <= tolerance * scale * scale;
  };
  const GaussNewtonResult result =
      gauss_newton(x, conditions_at_x, jacobian_at_x, conditions, small_enough, max_iterations);
  out.iterations = result.iterations;
  out.residual = result.residual;
  detail::require_converged(result, "no steady motion found near (q0, v0): the conditions'");
  return out;
}

namespace detail {
/// The symmetry's motion over one step at the rates ω, exp(h ξ_ω), on a state's (q, w):
/// q ↦ e^{hA_ω} q + ∫₀^h e^{tA_ω} dt b_ω, and w ↦ e^{hA_ω} w for a velocity, e^{−hA_ωᵀ} w for a
/// momentum (a covector).
struct SymmetryStep {
  Eigen::MatrixXd positions, carried;
  Eigen::VectorXd offset;

  SymmetryStep(const Symmetry& symmetry, const Eigen::VectorXd& rates, int n, double h, bool velocity) {
    Eigen::MatrixXd X = Eigen::MatrixXd::Zero(n + 1, n + 1);  // the affine flow as a linear one
    X.topLeftCorner(n, n) = h * combined(symmetry, rates, n);
    X.col(n).head(n) = h * combined_offset(symmetry, rates, n);
    const Eigen::MatrixXd flow = matrix_exponential(X);
    positions = flow.topLeftCorner(n, n);
    offset = flow.col(n).head(n);
    carried = velocity ? positions : Eigen::MatrixXd(matrix_exponential(-X.topLeftCorner(n, n).transpose()));
  }
  Eigen::VectorXd operator()(const Eigen::VectorXd& q, const Eigen::VectorXd& w) const {
    Eigen::VectorXd x(q.size() + w.size());
    x << positions * q + offset, carried * w;
    return x;
  }
};

/// The rates of the continuous steady motion through the state `given` (its q and
/// velocity(given)); throws std::invalid_argument when it is not on one (symmetry_rates): the test
/// that a state is on a steady motion.
template <class Method>
Eigen::VectorXd rates_through(const Method& method, const typename Method::State& given, const Symmetry& symmetry,
                              double tolerance) {
  const Eigen::VectorXd q0 = given.q;
  const auto v = method.velocity(given);
  const Eigen::VectorXd v0 = v;
  const auto J = acceleration_jacobian(method.system(), given.q, v);
  return symmetry_rates(symmetry, q0, v0, Eigen::VectorXd(J.acceleration), tolerance,
                        1.0 + v0.lpNorm<Eigen::Infinity>());
}

/// The number of holonomic constraints a method's step imposes on its new positions: the model's
/// for a method whose discrete constraint has their rows φ(q1) (DLA's and MLA's α-rule and
/// trapezoidal rule: imposes_holonomic_constraints), that has such rows itself (the discrete
/// gradient) or that projects onto them (RK4), none for the methods that take the velocity form.
template <class Method>
int imposed_holonomic_constraints(const Method& method) {
  if constexpr (requires { Method::imposes_holonomic_constraints; }) {
    if constexpr (Method::imposes_holonomic_constraints) return holonomic_constraint_count(method.system());
  } else if constexpr (requires { method.discrete_constraint(); }) {
    using Dc = std::decay_t<decltype(method.discrete_constraint())>;
    if constexpr (requires { Dc::imposes_holonomic_constraints; }) {
      if constexpr (Dc::imposes_holonomic_constraints) return holonomic_constraint_count(method.system());
    }
  }
  return 0;
}

/// The linearisation of the step at the state s, which the symmetry moves along at the rates ω
/// (the body of discrete_steady_motion_linearisation).
template <class Method>
SteadyMotionLinearisation step_linearisation_on_orbit(const Method& method, const typename Method::State& s,
                                                      const Symmetry& symmetry, const Eigen::VectorXd& rates,
                                                      double tolerance) {
  using State = typename Method::State;
  const auto& sys = method.system();
  const int n = static_cast<int>(s.q.size()), m = constraint_count(sys), k = static_cast<int>(symmetry.size());
  const double h = method.step_size();
  constexpr bool by_velocity = carries_velocity<State>;
  using Point = std::decay_t<decltype(s.q)>;
  const Point w = momentum_of(s);
  const Eigen::VectorXd q0 = s.q, w0 = w;
  SteadyMotionLinearisation out;
  out.rates = rates;
  // The symmetry's motion back over one step, on positions and on w.
  const Eigen::MatrixXd A = combined(symmetry, rates, n);
  const Eigen::MatrixXd back = matrix_exponential(-h * A);
  Eigen::MatrixXd E = Eigen::MatrixXd::Zero(2 * n, 2 * n);
  E.topLeftCorner(n, n) = back;
  E.bottomRightCorner(n, n) = by_velocity ? back : Eigen::MatrixXd(matrix_exponential(h * A.transpose()));
  const Eigen::MatrixXd step = method.step_derivative(s);
  const auto orbit_at = [&](const Eigen::VectorXd& q, const Eigen::VectorXd& ww) {
    Eigen::MatrixXd O(2 * n, k);
    for (int a = 0; a < k; ++a)
      O.col(a) << symmetry[a].at(q), by_velocity ? Eigen::VectorXd(symmetry[a].A * ww)
                                                 : Eigen::VectorXd(-symmetry[a].A.transpose() * ww);
    return O;
  };
  out.orbit = orbit_at(q0, w0);
  {  // the step is equivariant: it maps the orbit's tangents at s to those at the next state
    const State next = step_from(method, s);
    const Eigen::MatrixXd off =
        step * out.orbit - orbit_at(Eigen::VectorXd(next.q), Eigen::VectorXd(momentum_of(next)));
    const double scale = std::max(1.0, step.cwiseAbs().maxCoeff()) * std::max(1.0, out.orbit.cwiseAbs().maxCoeff());
    if (k > 0 && off.cwiseAbs().maxCoeff() > tolerance * scale)
      throw std::invalid_argument("the step is not equivariant (off by " +
                                  number_text(off.cwiseAbs().maxCoeff()) + "): it is not a symmetry");
  }
  out.field = E * step;
  out.basis = orthogonal_complement_of_rows(out.orbit.transpose(), 2 * n);
  // The linearised constraint in the state's (q, w), by central differences: it only sorts the
  // eigenvectors (below), far from the round-off that would matter. A step that imposes the
  // holonomic constraints φ(q) = 0 on its positions lives on φ = 0: their values are rows of it too,
  // and the level of φ, a neutral direction of the velocity form, is set aside with the others.
  const int imposed = imposed_holonomic_constraints(method);
  const auto constraint_at = [&](const Point& q, const Point& ww) -> Eigen::VectorXd {
    Eigen::VectorXd rows(m + imposed);
    if constexpr (by_velocity) {
      rows.head(m) = constraint_matrix(sys, q) * ww;
    } else {
      rows.head(m) = momentum_constraint(sys, q, ww);
    }
    if constexpr (MayHaveHolonomicConstraints<std::decay_t<decltype(sys)>>) {
      // a steady motion's constraints do not depend on the time (affine ones are refused)
      if (imposed > 0) rows.tail(imposed) = sys.template holonomic_values<double>(q, 0.0);
    }
    return rows;
  };
  out.constraint.resize(m + imposed, 2 * n);
  for (int j = 0; j < 2 * n; ++j) {
    const double e = 1e-6 * (1.0 + std::abs(j < n ? s.q[j] : w[j - n]));
    Point q_up = s.q, q_down = s.q, w_up = w, w_down = w;
    (j < n ? q_up[j] : w_up[j - n]) += e;
    (j < n ? q_down[j] : w_down[j - n]) -= e;
    out.constraint.col(j) = (constraint_at(q_up, w_up) - constraint_at(q_down, w_down)) / (2 * e);
  }
  const Eigen::MatrixXd reduced = out.basis.transpose() * out.field * out.basis;
  const Eigen::MatrixXd reduced_constraint = out.constraint * out.basis;
  const int size = static_cast<int>(reduced.rows());
  // Of the step's eigenvalues, the m (and imposed) whose eigenvectors lie furthest off ker K are
  // set aside.
  const Eigen::EigenSolver<Eigen::MatrixXd> eigen(reduced, true);
  std::vector<std::pair<double, int>> off_constraint;  // (|K e| / |e|, index)
  for (int i = 0; i < size; ++i) {
    const Eigen::VectorXcd e = eigen.eigenvectors().col(i);
    off_constraint.emplace_back((reduced_constraint.cast<std::complex<double>>() * e).norm() / e.norm(), i);
  }
  std::sort(off_constraint.begin(), off_constraint.end());
  const int kept = size - m - imposed;
  out.multipliers.resize(kept);
  out.eigenvalues.resize(kept);
  for (int i = 0; i < kept; ++i) {
    const std::complex<double> mu = eigen.eigenvalues()[off_constraint[i].second];
    out.multipliers[i] = mu;
    out.eigenvalues[i] = std::log(mu) / h;
  }
  out.resolution = eigenvalue_resolution(reduced) / h;
  return out;
}
}  // namespace detail

/// A steady motion of a method's step (find_discrete_steady_motion): a state that one step takes to
/// itself moved by the symmetry, x_{k+1} = exp(h ξ_ω) x_k, with the rates ω of the step's own motion.
template <class State>
struct DiscreteSteadyMotion {
  State state;
  Eigen::VectorXd rates;  ///< ω_h, one per generator
  int iterations = 0;     ///< Gauss–Newton iterations
  double residual = 0.0;  ///< |x_{k+1} − exp(h ξ_ω) x_k|_inf at the solution
};

/// The steady motion of `method`'s step nearest the state `guess` (least-norm Gauss–Newton
/// corrections of (q0, v0, ω), the state built from them as the method builds it from (q0, v0)
/// or, for a method whose momentum carries its last step's constraint impulse (DLA), by the
/// two-point start from exp(−h ξ_ω) q0 to q0), with the positions of `hold` and the velocities of
/// the symmetry's motion, A_ω q0 + b_ω, kept at the guess's. Its conditions: one step from the
/// state x = (q, w) reaches exp(h ξ_ω) x, w its momentum or velocity; the rates start from those
/// that fit the continuous motion through (q, velocity(guess)). Throws std::invalid_argument when
/// they are not met to `tolerance` relative to 1 + |q| + |w| within `max_iterations`, and
/// SolverError when a step fails on the way.
template <class Method>
DiscreteSteadyMotion<typename Method::State> find_discrete_steady_motion(const Method& method,
                                                                         const typename Method::State& guess,
                                                                         const Symmetry& symmetry,
                                                                         const SteadyMotionHold& hold = {},
                                                                         double tolerance = 1e-11,
                                                                         int max_iterations = 30) {
  using State = typename Method::State;
  using Point = std::decay_t<decltype(guess.q)>;
  constexpr bool by_velocity = carries_velocity<State>;
  const int n = static_cast<int>(guess.q.size()), k = static_cast<int>(symmetry.size());
  const double h = method.step_size();
  detail::check_generators(symmetry, n);
  detail::check_hold(hold, n);
  const int held = static_cast<int>(hold.positions.size() + hold.velocities.size());
  const Eigen::VectorXd q_guess = guess.q;
  const auto v = method.velocity(guess);
  const Eigen::VectorXd v_guess = v;
  // the unknowns z = (q0, v0, ω)
  Eigen::VectorXd z(2 * n + k), R(2 * n + held);
  z << q_guess, v_guess,
      detail::fitted_rates(symmetry, q_guess, v_guess,
                           Eigen::VectorXd(acceleration_jacobian(method.system(), guess.q, v).acceleration));
  Eigen::MatrixXd D(R.size(), z.size());
  const auto state_at = [&](const Eigen::VectorXd& unknowns) {
    const Point q0 = unknowns.head(n), v0 = unknowns.segment(n, n);
    return detail::state_on_the_orbit(method, method.initial_state(q0, v0), symmetry, unknowns.tail(k));
  };
  const auto coordinates_of = [&](const State& s) {
    Eigen::VectorXd x(2 * n);
    x << Eigen::VectorXd(s.q), Eigen::VectorXd(momentum_of(s));
    return x;
  };
  DiscreteSteadyMotion<State> out;
  double scale = 1.0;
  const auto conditions = [&](const Eigen::VectorXd& unknowns, Eigen::VectorXd& residual, Eigen::MatrixXd& J) {
    const Eigen::VectorXd rates = unknowns.tail(k);
    out.state = state_at(unknowns);
    const Eigen::VectorXd x = coordinates_of(out.state);
    const detail::SymmetryStep moved(symmetry, rates, n, h, by_velocity);
    residual.head(2 * n) = coordinates_of(step_from(method, out.state)) - moved(x.head(n), x.tail(n));
    scale = 1.0 + x.lpNorm<Eigen::Infinity>();
    // J = (∂x_{k+1}/∂x_k − exp(h ξ_ω)) ∂x/∂z − ∂(exp(h ξ_ω) x)/∂ω, the derivatives of the state's
    // construction and of the symmetry's motion by its rates by central differences: they only
    // steer the iteration, whose residual is exact.
    Eigen::MatrixXd by_unknowns(2 * n, z.size()), by_rates = Eigen::MatrixXd::Zero(2 * n, z.size());
    for (int j = 0; j < z.size(); ++j) {
      const double e = 1e-6 * (1.0 + std::abs(unknowns[j]));
      Eigen::VectorXd up = unknowns, down = unknowns;
      up[j] += e;
      down[j] -= e;
      by_unknowns.col(j) = (coordinates_of(state_at(up)) - coordinates_of(state_at(down))) / (2 * e);
      if (j >= 2 * n)
        by_rates.col(j) = (detail::SymmetryStep(symmetry, up.tail(k), n, h, by_velocity)(x.head(n), x.tail(n)) -
                           detail::SymmetryStep(symmetry, down.tail(k), n, h, by_velocity)(x.head(n), x.tail(n))) /
                          (2 * e);
    }
    Eigen::MatrixXd jump = method.step_derivative(out.state);
    jump.topLeftCorner(n, n) -= moved.positions;
    jump.bottomRightCorner(n, n) -= moved.carried;
    J.topRows(2 * n) = jump * by_unknowns - by_rates;
    const Eigen::MatrixXd A = detail::combined(symmetry, rates, n);
    const Eigen::MatrixXd Xi = detail::generators_at(symmetry, unknowns.head(n));
    const Eigen::VectorXd orbit_velocity = A * unknowns.head(n) + detail::combined_offset(symmetry, rates, n);
    int row = 2 * n;
    for (const int i : hold.positions) {
      residual[row] = unknowns[i] - q_guess[i];
      J.row(row).setZero();
      J(row, i) = 1.0;
      ++row;
    }
    for (const int i : hold.velocities) {
      residual[row] = orbit_velocity[i] - v_guess[i];
      J.row(row).setZero();
      J.row(row).head(n) = A.row(i);
      J.row(row).tail(k) = Xi.row(i);
      ++row;
    }
  };
  const auto small_enough = [&](const Eigen::VectorXd&, double largest) { return largest <= tolerance * scale; };
  const GaussNewtonResult result = gauss_newton(z, R, D, conditions, small_enough, max_iterations);
  out.rates = z.tail(k);
  out.iterations = result.iterations;
  out.residual = result.residual;
  detail::require_converged(result, "no steady motion of the step found near the state: its");
  return out;
}

/// The linearisation of `method`'s step at its steady motion `motion` with the symmetry `symmetry`:
/// D = exp(−h ξ_ω) ∂(q_{k+1}, w_{k+1})/∂(q_k, w_k), w the state's momentum p (or p_minus), or its
/// velocity v for a state without one (`rk4`); its multipliers μ on the linearised constraint modulo
/// the orbit and λ_h = log(μ)/h, which converge to the continuous eigenvalues at the method's order.
/// The method gives step_derivative(s) and velocity(s). Throws std::invalid_argument when the step
/// is not equivariant.
template <class Method>
SteadyMotionLinearisation discrete_steady_motion_linearisation(
    const Method& method, const DiscreteSteadyMotion<typename Method::State>& motion, const Symmetry& symmetry,
    double tolerance = 1e-8) {
  detail::check_generators(symmetry, static_cast<int>(motion.state.q.size()));
  return detail::step_linearisation_on_orbit(method, motion.state, symmetry, motion.rates, tolerance);
}

/// The same at the step's steady motion nearest the continuous one through the state `given` (its q
/// and velocity(given)), with what `hold` names kept (find_discrete_steady_motion). Throws
/// std::invalid_argument when the state is not on a steady motion (steady_motion_linearisation's
/// test at `tolerance`), none of the step's is found near it or the step is not equivariant.
template <class Method>
SteadyMotionLinearisation discrete_steady_motion_linearisation(const Method& method,
                                                               const typename Method::State& given,
                                                               const Symmetry& symmetry,
                                                               const SteadyMotionHold& hold = {},
                                                               double tolerance = 1e-8) {
  detail::check_generators(symmetry, static_cast<int>(given.q.size()));
  detail::rates_through(method, given, symmetry, tolerance);  // given is on a steady motion
  return discrete_steady_motion_linearisation(method, find_discrete_steady_motion(method, given, symmetry, hold),
                                              symmetry, tolerance);
}

/// The same with the translations of the coordinates `symmetric` as the symmetry.
template <class Method>
SteadyMotionLinearisation discrete_steady_motion_linearisation(const Method& method, const typename Method::State& s,
                                                               std::span<const int> symmetric,
                                                               double tolerance = 1e-8) {
  return discrete_steady_motion_linearisation(method, s, translations(static_cast<int>(s.q.size()), symmetric), {},
                                              tolerance);
}

}  // namespace dalembert
