#pragma once
// Flows and shooting on the multiplier-extended Lagrange–d'Alembert equations q̈ = ξ(q, q̇)
// (model/dynamics.hpp), with the variational equations of [AS21] (4.1.6) / [ASMM22] (24), §5.3:
//   U(t) = ∂q(t)/∂q̇(0):  Ü = B U + F U̇,  U(0) = 0, U̇(0) = I
//   Y(t) = ∂q(t)/∂q(0):   Ÿ = B Y + F Ẏ,  Y(0) = I, Ẏ(0) = 0,     B = ∂ξ/∂q, F = ∂ξ/∂q̇,
// and, for the exact discrete Lagrangian and forces, ℓ̇ = L, ġ_U = Uᵀ F̃, ġ_Y = Yᵀ F̃ with
// F̃ = F_ext + M(q)ᵀλ(q, q̇) (the multiplier extension of the nonholonomic force). B and F come from
// automatic differentiation through constrained_acceleration; no finite differences. An arc starts
// at a time t0 of its own (t0 = t_k for the step from t_k): forces, Lagrangians and affine
// constraints M(q) q̇ + b(q, t) = 0 of the time are evaluated at t0 + τ, and the sensitivities are
// by the state at t0. With b, M q̇ + b is the extension's first integral.
//
// The inner integrator is Boost.Odeint's Bulirsch–Stoer with absolute and relative tolerance
// `tolerance` (not Runge–Kutta–Fehlberg 7(8), whose embedded estimate vanishes on quadrature-like
// problems; see method/reference.hpp), in the library's one bounded adaptive loop
// (solve/bulirsch_stoer.hpp): an arc that needs more than `max_substeps` substeps (a step far too
// long for the motion, or a trajectory running into a singularity of the equations, where the
// substeps shrink without end) fails with a SolverError that names the limit. Shooting is the
// library's damped Newton (solve/newton.hpp) on q̇(0) with Jacobian U(h), for a noisy residual: a
// correction that moves q(h) away from q1, or leads to an arc that cannot be integrated, is halved.
// U(h) is singular exactly when q(h) is conjugate to q(0) along the arc (thesis Lemma B.0.2); the
// shooting then fails with a SolverError that says so.
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/LU>
#include <Eigen/SVD>

#include "dalembert/discrete/discrete_force.hpp"
#include "dalembert/model/dynamics.hpp"
#include "dalembert/solve/bulirsch_stoer.hpp"
#include "dalembert/solve/newton.hpp"
#include "dalembert/solve/step_limits.hpp"

namespace dalembert {

struct ShootingOptions {
  /// Absolute and relative tolerance of the inner integration; the shooting residual |q(h) − q1|
  /// is driven below tolerance·(1 + |q1|)/10. Meaningful from 1e-12 to 1e-6 (U(h) counts as
  /// singular when its smallest singular value is below 100·tolerance·max(h, |U(h)|)).
  double tolerance = 1e-12;
  int max_iterations = 30;
  /// Halvings of a shooting correction that would move q(h) away from q1.
  int max_backtracks = 8;
  /// Substeps (tried) of the integration of one arc over [0, h]. In a run the integrations of one
  /// step also share the step's allowance (solve/step_limits.hpp).
  long max_substeps = max_arc_substeps;
};

/// What is integrated along the trajectory.
enum class Variations {
  none,      ///< (q, q̇) only
  velocity,  ///< and U = ∂q/∂q̇(0): enough for shooting and the exact retractions
  full       ///< and Y = ∂q/∂q(0), ∫L dt, ∫UᵀF̃ dt, ∫YᵀF̃ dt: the exact discrete Lagrangian and forces
};

/// One arc of the extended flow over [0, h] and its sensitivities at t = h.
template <int N, int MaxN = N>
struct Arc {
  double h = 0.0;
  Vecd<N, MaxN> q0, v0;                ///< q(0), q̇(0)
  Vecd<N, MaxN> q1, v1;                ///< q(h), q̇(h)
  Matd<N, N, MaxN, MaxN> U, U_dot;     ///< ∂q(h)/∂q̇(0), ∂q̇(h)/∂q̇(0)            (velocity, full)
  Matd<N, N, MaxN, MaxN> Y, Y_dot;     ///< ∂q(h)/∂q(0), ∂q̇(h)/∂q(0)             (full)
  double action = 0.0;                 ///< ∫_0^h L dt                              (full)
  Vecd<N, MaxN> force_U;               ///< ∫_0^h U(t)ᵀ F̃ dt                        (full)
  Vecd<N, MaxN> force_Y;               ///< ∫_0^h Y(t)ᵀ F̃ dt                        (full)
  int iterations = 0;                  ///< shooting Newton iterations (0 for a plain integration)
};
template <class S>
using ArcOf = Arc<S::n, max_n_of<S>()>;

/// ξ(q, v, t) and its Jacobians B = ∂ξ/∂q, F = ∂ξ/∂v by automatic differentiation.
template <int N, int MaxN = N>
struct AccelerationJacobian {
  Vecd<N, MaxN> acceleration;
  Matd<N, N, MaxN, MaxN> B;
  Matd<N, N, MaxN, MaxN> F;
};

template <Model S>
AccelerationJacobian<S::n, max_n_of<S>()> acceleration_jacobian(const S& sys, const VecN<S>& q, const VecN<S>& v,
                                                                double t = 0.0) {
  const int n = coordinate_count(sys);
  // Bounded like the model. Model files differentiate L along these directions in doubles; the
  // generic path nests its numbers at the widths of ad::at_width (lagrangian_derivatives_along).
  constexpr int two_n = multiple_of_size(2, S::n), max_two_n = multiple_of_size(2, max_n_of<S>());
  using D = ad::Dual<double, two_n, max_two_n>;
  VecN<S, D> qd(n), vd(n);
  for (int i = 0; i < n; ++i) {
    qd[i] = ad::variable<two_n, max_two_n>(q[i], i, 2 * n);
    vd[i] = ad::variable<two_n, max_two_n>(v[i], n + i, 2 * n);
  }
  const VecN<S, D> a = constrained_acceleration(sys, qd, vd, t).acceleration;
  AccelerationJacobian<S::n, max_n_of<S>()> J;
  J.acceleration.resize(n);
  J.B.resize(n, n);
  J.F.resize(n, n);
  for (int i = 0; i < n; ++i) {
    J.acceleration[i] = ad::value(a[i]);
    for (int j = 0; j < n; ++j) {
      J.B(i, j) = ad::derivative(a[i], j);
      J.F(i, j) = ad::derivative(a[i], n + j);
    }
  }
  return J;
}

namespace detail {
/// SolverError for a shooting failure; the integrators re-throw it with their step and time.
inline SolverError shooting_error(const std::string& reason, double residual, int iterations) {
  NewtonReport r;
  r.reason = reason;
  r.residual_norm = residual;
  r.iterations = iterations;
  return SolverError(0, 0.0, r);
}
}  // namespace detail

/// The flow of the multiplier-extended dynamics of a model, with sensitivities and shooting.
template <Model S>
class ExtendedFlow {
 public:
  static constexpr int n = S::n, max_n = max_n_of<S>();
  using Arc = ArcOf<S>;

  explicit ExtendedFlow(const S& system, ShootingOptions options = {}) : system_(system), options_(options) {
    if (!(options.tolerance > 0 && options.tolerance < 1e-2))
      throw std::invalid_argument("ShootingOptions::tolerance must lie in (0, 1e-2), got " + format(options.tolerance));
  }
  const S& system() const { return system_; }
  const ShootingOptions& options() const { return options_; }
  int dimension() const { return coordinate_count(system_); }

  /// Integrates from (q0, v0) at the time t0 over [t0, t0 + h], h > 0, with the requested
  /// variations. Throws a SolverError naming the limit when the arc needs more substeps than it
  /// may take.
  template <Variations V = Variations::full>
  Arc integrate(const VecN<S>& q0, const VecN<S>& v0, double h, double t0 = 0.0) const {
    using State = OdeintState<n == Dynamic ? Dynamic : size<V>(n)>;
    const int d = dimension();
    State x{};
    if constexpr (n == Dynamic) x.assign(size<V>(d), 0.0);
    vec(x.data()) = q0;
    vec(x.data() + d) = v0;
    if constexpr (V != Variations::none) {
      mat(x.data() + u_offset(d)).setZero();
      mat(x.data() + u_offset(d) + d * d).setIdentity();
    }
    if constexpr (V == Variations::full) {
      mat(x.data() + y_offset(d)).setIdentity();
      mat(x.data() + y_offset(d) + d * d).setZero();
    }
    // The interval is [0, h] and the time t0 + τ, so that an autonomous arc's substeps do not depend on t0.
    const auto rhs = [this, t0](const State& y, State& dy, double tau) {
      this->template rhs<V>(y.data(), dy.data(), t0 + tau);
    };
    double dt = h;
    try {
      bulirsch_stoer_interval(rhs, x, 0.0, h, options_.tolerance, dt, options_.max_substeps);
    } catch (const IntegrationLimit& e) {
      throw SolverError(0, 0.0, "the arc over one step h = " + format(h) + " from |v0| = " +
                                    format(v0.template lpNorm<Eigen::Infinity>()) + ": " + e.what() +
                                    "; the step is far too long for the motion, or the trajectory runs into a "
                                    "singularity of the equations of motion: reduce h");
    }
    Arc arc;
    arc.h = h;
    arc.q0 = q0;
    arc.v0 = v0;
    arc.q1 = vec(x.data());
    arc.v1 = vec(x.data() + d);
    if constexpr (V != Variations::none) {
      arc.U = mat(x.data() + u_offset(d));
      arc.U_dot = mat(x.data() + u_offset(d) + d * d);
    }
    if constexpr (V == Variations::full) {
      arc.Y = mat(x.data() + y_offset(d));
      arc.Y_dot = mat(x.data() + y_offset(d) + d * d);
      arc.action = x[action_offset(d)];
      arc.force_U = vec(x.data() + action_offset(d) + 1);
      arc.force_Y = vec(x.data() + action_offset(d) + 1 + d);
    }
    return arc;
  }

  /// (q(h), q̇(h)) from (q0, v0) at t0: the exponential map and the flow, without sensitivities.
  Arc flow(const VecN<S>& q0, const VecN<S>& v0, double h, double t0 = 0.0) const {
    return integrate<Variations::none>(q0, v0, h, t0);
  }

  /// The work W = ∫ (F + M(q)ᵀλ)·q̇ dt of the external force and of affine constraints' force
  /// (power_of_forces) along the flow from (q0, v0) at t0 over h: the energy balance's W over an
  /// exact step, which the trapezoidal rule on the step points would know only to O(h²). W enters
  /// the integration scaled by 2⁻⁴⁰ (exact in binary), so that the step-size control, which follows
  /// the largest error, takes the substeps of the flow alone (as the reference solver does).
  double work(const VecN<S>& q0, const VecN<S>& v0, double h, double t0) const
    requires HasExternalForce<S> || MayHaveAffineConstraints<S>
  {
    constexpr double scale = 0x1p-40;
    using State = OdeintState<n == Dynamic ? Dynamic : 2 * n + 1>;
    const int d = dimension();
    State x{};
    if constexpr (n == Dynamic) x.assign(2 * d + 1, 0.0);
    vec(x.data()) = q0;
    vec(x.data() + d) = v0;
    const auto rhs = [this, t0, d](const State& y, State& dy, double tau) {
      const VecN<S> q = cvec(y.data()), v = cvec(y.data() + d);
      const auto a = constrained_acceleration(system_, q, v, t0 + tau);
      vec(dy.data()) = v;
      vec(dy.data() + d) = a.acceleration;
      dy[2 * d] = scale * power_of_forces(system_, q, v, t0 + tau, &a.multiplier);
    };
    double dt = h;
    try {
      bulirsch_stoer_interval(rhs, x, 0.0, h, options_.tolerance, dt, options_.max_substeps);
    } catch (const IntegrationLimit& e) {
      throw SolverError(0, 0.0, "the work over one step h = " + format(h) + ": " + e.what());
    }
    return x[2 * d] / scale;
  }

  /// The arc from q0 at t0 to q1 at t0 + h whose initial velocity is found by Newton from `guess`
  /// (the local solution of the boundary-value problem, [ASMM22] Thm 3.5). Throws a
  /// SolverError when U(h) is numerically singular (a conjugate point) or Newton fails.
  template <Variations V = Variations::velocity>
  Arc shoot(const VecN<S>& q0, const VecN<S>& q1, double h, const VecN<S>& guess, double t0 = 0.0) const {
    static_assert(V != Variations::none, "shooting needs the velocity sensitivity U");
    // Converged at a tenth of the integration tolerance, relative to 1 + |q1|: q(h; v) is a
    // deterministic function of v, so Newton can reach it, and the velocity error U⁻¹r stays below
    // what the integration itself commits; or at a correction at round-off. The end point is known
    // only to the integration's accuracy: a noisy residual (solve/newton.hpp).
    const NewtonOptions newton{.tolerance = 0.1 * options_.tolerance,
                               .max_iterations = options_.max_iterations,
                               .max_backtracks = options_.max_backtracks,
                               .correction_tolerance = 1e-15};
    Arc arc = integrate<V>(q0, guess, h, t0);  // of the last residual evaluation, which Newton makes at the solution
    bool at_guess = true;
    std::string unusable;  // why the last trial arc could not be integrated
    const auto residual = [&](const VecN<S>& v, VecN<S>& r) {
      if (!std::exchange(at_guess, false)) {
        try {
          arc = integrate<V>(q0, v, h, t0);
        } catch (const SolverError& e) {  // an arc too far to integrate within its limit: a worse trial
          if (step_substeps_spent()) throw;  // nor could any other
          unusable = e.report().reason;
          r.setConstant(std::numeric_limits<double>::infinity());
          return;
        }
      }
      r = arc.q1 - q1;
    };
    int corrections = 0;
    const auto jacobian = [&](const VecN<S>&, MatNN<S>& U) {
      check_not_conjugate(arc, (arc.q1 - q1).template lpNorm<Eigen::Infinity>(), corrections++);
      U = arc.U;
    };
    VecN<S> v = guess;
    const NewtonReport r = newton_solve<n, max_n, MatNN<S>, /*NoisyResidual=*/true>(
        residual, jacobian, v, 1.0 + q1.template lpNorm<Eigen::Infinity>(), newton);
    if (!r.converged) {
      throw detail::shooting_error("shooting: " + r.reason + " (|q(h) - q1| = " + format(r.residual_norm) + ")" +
                                       (unusable.empty() ? "" : "; " + unusable),
                                   r.residual_norm, r.iterations);
    }
    if (r.iterations == 0) check_not_conjugate(arc);  // the guess's arc: Newton took no Jacobian
    arc.iterations = r.iterations;
    return arc;
  }

  template <Variations V = Variations::velocity>
  Arc shoot(const VecN<S>& q0, const VecN<S>& q1, double h) const {
    return shoot<V>(q0, q1, h, VecN<S>((q1 - q0) / h));
  }

  /// Throws a SolverError that says so if U(h) is singular to the accuracy it is computed with:
  /// q(h) is conjugate to q(0) along the arc, and no arc near it joins q(0) to q(h).
  void check_not_conjugate(const Arc& arc, double residual = 0.0, int iterations = 0) const {
    const Eigen::JacobiSVD<MatNN<S>> svd(arc.U);
    const auto sigma = svd.singularValues();
    const double smallest = sigma[sigma.size() - 1], largest = sigma[0];
    if (!(smallest > 100 * options_.tolerance * std::max(std::abs(arc.h), largest))) {
      throw detail::shooting_error(
          "singular shooting Jacobian U(h) (smallest singular value " + format(smallest) + ", h = " + format(arc.h) +
              "): the end point is a conjugate point of the start along the trajectory, so the exact discrete "
              "flow is not defined for this step size; reduce h",
          residual, iterations);
    }
  }

 private:
  // The layout of the integrated state for n = d coordinates: q, q̇, U, U̇, Y, Ẏ, ∫L, ∫UᵀF̃, ∫YᵀF̃.
  static constexpr int u_offset(int d) { return 2 * d; }
  static constexpr int y_offset(int d) { return 2 * d + 2 * d * d; }
  static constexpr int action_offset(int d) { return 2 * d + 4 * d * d; }

  template <Variations V>
  static constexpr int size(int d) {
    if constexpr (V == Variations::none) return 2 * d;
    if constexpr (V == Variations::velocity) return 2 * d + 2 * d * d;
    return 2 * d + 4 * d * d + 1 + 2 * d;
  }

  template <Variations V>
  void rhs(const double* y, double* dy, double t) const {
    const int d = dimension();
    const VecN<S> q = cvec(y), v = cvec(y + d);
    vec(dy) = v;
    if constexpr (V == Variations::none) {
      vec(dy + d) = acceleration(system_, q, v, t);
    } else {
      const auto J = acceleration_jacobian(system_, q, v, t);
      vec(dy + d) = J.acceleration;
      const auto U = cmat(y + u_offset(d)), U_dot = cmat(y + u_offset(d) + d * d);
      mat(dy + u_offset(d)) = U_dot;
      mat(dy + u_offset(d) + d * d) = J.B * U + J.F * U_dot;
      if constexpr (V == Variations::full) {
        const auto Y = cmat(y + y_offset(d)), Y_dot = cmat(y + y_offset(d) + d * d);
        mat(dy + y_offset(d)) = Y_dot;
        mat(dy + y_offset(d) + d * d) = J.B * Y + J.F * Y_dot;
        const VecN<S> force = total_force(system_, q, v, t);
        dy[action_offset(d)] = system_.template lagrangian<double>(q, v);
        vec(dy + action_offset(d) + 1) = U.transpose() * force;
        vec(dy + action_offset(d) + 1 + d) = Y.transpose() * force;
      }
    }
  }

  // Views of the state's blocks (of a fixed size when n is fixed).
  Eigen::Map<Vec<double, n>> vec(double* p) const { return Eigen::Map<Vec<double, n>>(p, dimension()); }
  Eigen::Map<const Vec<double, n>> cvec(const double* p) const {
    return Eigen::Map<const Vec<double, n>>(p, dimension());
  }
  Eigen::Map<Mat<double, n, n>> mat(double* p) const {
    return Eigen::Map<Mat<double, n, n>>(p, dimension(), dimension());
  }
  Eigen::Map<const Mat<double, n, n>> cmat(const double* p) const {
    return Eigen::Map<const Mat<double, n, n>>(p, dimension(), dimension());
  }

  static std::string format(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3e", x);
    return buf;
  }

  S system_;
  ShootingOptions options_;
};

}  // namespace dalembert
