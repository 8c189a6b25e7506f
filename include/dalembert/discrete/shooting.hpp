#pragma once
// Flows and shooting on the multiplier-extended Lagrange–d'Alembert equations q̈ = ξ(q, q̇)
// (model/dynamics.hpp), with the variational equations of spec seed-003 §3 / seed-002 §2.1, 2.4:
//   U(t) = ∂q(t)/∂q̇(0):  Ü = B U + F U̇,  U(0) = 0, U̇(0) = I
//   Y(t) = ∂q(t)/∂q(0):   Ÿ = B Y + F Ẏ,  Y(0) = I, Ẏ(0) = 0,     B = ∂ξ/∂q, F = ∂ξ/∂q̇,
// and, for the exact discrete Lagrangian and forces, ℓ̇ = L, ġ_U = Uᵀ F̃, ġ_Y = Yᵀ F̃ with
// F̃ = F_ext + M(q)ᵀλ(q, q̇) (the multiplier extension of the nonholonomic force). B and F come from
// automatic differentiation through constrained_acceleration; no finite differences.
//
// The inner integrator is Boost.Odeint's Bulirsch–Stoer with absolute and relative tolerance
// `tolerance` (not Runge–Kutta–Fehlberg 7(8), whose embedded estimate vanishes on quadrature-like
// problems; see method/reference.hpp). Shooting is Newton on q̇(0) with Jacobian U(h). U(h) is
// singular exactly when q(h) is conjugate to q(0) along the arc (thesis Lemma B.0.2); the
// shooting then fails with a SolverError that says so.
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include <Eigen/LU>
#include <Eigen/SVD>
#include <boost/numeric/odeint.hpp>

#include "dalembert/discrete/discrete_force.hpp"
#include "dalembert/model/dynamics.hpp"
#include "dalembert/solve/newton.hpp"

namespace dalembert {

struct ShootingOptions {
  /// Absolute and relative tolerance of the inner integration; the shooting residual |q(h) − q1|
  /// is driven below tolerance·(1 + |q1|)/10. Meaningful from 1e-12 to 1e-6 (U(h) counts as
  /// singular when its smallest singular value is below 100·tolerance·max(h, |U(h)|)).
  double tolerance = 1e-12;
  int max_iterations = 30;
};

/// What is integrated along the trajectory.
enum class Variations {
  none,      ///< (q, q̇) only
  velocity,  ///< and U = ∂q/∂q̇(0): enough for shooting and the exact retractions
  full       ///< and Y = ∂q/∂q(0), ∫L dt, ∫UᵀF̃ dt, ∫YᵀF̃ dt: the exact discrete Lagrangian and forces
};

/// One arc of the extended flow over [0, h] and its sensitivities at t = h.
template <int N>
struct Arc {
  double h = 0.0;
  Vecd<N> q0, v0;        ///< q(0), q̇(0)
  Vecd<N> q1, v1;        ///< q(h), q̇(h)
  Matd<N, N> U, U_dot;   ///< ∂q(h)/∂q̇(0), ∂q̇(h)/∂q̇(0)            (velocity, full)
  Matd<N, N> Y, Y_dot;   ///< ∂q(h)/∂q(0), ∂q̇(h)/∂q(0)             (full)
  double action = 0.0;   ///< ∫_0^h L dt                              (full)
  Vecd<N> force_U;       ///< ∫_0^h U(t)ᵀ F̃ dt                        (full)
  Vecd<N> force_Y;       ///< ∫_0^h Y(t)ᵀ F̃ dt                        (full)
  int iterations = 0;    ///< shooting Newton iterations (0 for a plain integration)
};

/// ξ(q, v) and its Jacobians B = ∂ξ/∂q, F = ∂ξ/∂v by automatic differentiation.
template <int N>
struct AccelerationJacobian {
  Vecd<N> acceleration;
  Matd<N, N> B;
  Matd<N, N> F;
};

template <Model S>
AccelerationJacobian<S::n> acceleration_jacobian(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& v) {
  constexpr int n = S::n;
  using D = ad::Dual<double, 2 * n>;
  Vec<D, n> qd, vd;
  for (int i = 0; i < n; ++i) {
    qd[i] = ad::variable<2 * n>(q[i], i);
    vd[i] = ad::variable<2 * n>(v[i], n + i);
  }
  const Vec<D, n> a = constrained_acceleration(sys, qd, vd).acceleration;
  AccelerationJacobian<n> J;
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
  static constexpr int n = S::n;

  explicit ExtendedFlow(const S& system, ShootingOptions options = {}) : system_(system), options_(options) {
    if (!(options.tolerance > 0 && options.tolerance < 1e-2))
      throw std::invalid_argument("ShootingOptions::tolerance must lie in (0, 1e-2), got " + format(options.tolerance));
  }
  const S& system() const { return system_; }
  const ShootingOptions& options() const { return options_; }

  /// Integrates from (q0, v0) over [0, h], h > 0, with the requested variations.
  template <Variations V = Variations::full>
  Arc<n> integrate(const Vecd<n>& q0, const Vecd<n>& v0, double h) const {
    namespace odeint = boost::numeric::odeint;
    using State = std::array<double, size<V>()>;
    State x{};
    vec(x.data()) = q0;
    vec(x.data() + n) = v0;
    if constexpr (V != Variations::none) {
      mat(x.data() + u_offset).setZero();
      mat(x.data() + u_offset + n * n).setIdentity();
    }
    if constexpr (V == Variations::full) {
      mat(x.data() + y_offset).setIdentity();
      mat(x.data() + y_offset + n * n).setZero();
    }
    const auto rhs = [this](const State& y, State& dy, double) { this->template rhs<V>(y.data(), dy.data()); };
    odeint::bulirsch_stoer<State> stepper(options_.tolerance, options_.tolerance);
    try {
      odeint::integrate_adaptive(stepper, rhs, x, 0.0, h, h);
    } catch (const std::exception& e) {  // odeint's step-size underflow or too many failed steps
      throw detail::shooting_error(std::string("inner integration failed: ") + e.what(), NAN, 0);
    }
    Arc<n> arc;
    arc.h = h;
    arc.q0 = q0;
    arc.v0 = v0;
    arc.q1 = Eigen::Map<const Vecd<n>>(x.data());
    arc.v1 = Eigen::Map<const Vecd<n>>(x.data() + n);
    if constexpr (V != Variations::none) {
      arc.U = Eigen::Map<const Matd<n, n>>(x.data() + u_offset);
      arc.U_dot = Eigen::Map<const Matd<n, n>>(x.data() + u_offset + n * n);
    }
    if constexpr (V == Variations::full) {
      arc.Y = Eigen::Map<const Matd<n, n>>(x.data() + y_offset);
      arc.Y_dot = Eigen::Map<const Matd<n, n>>(x.data() + y_offset + n * n);
      arc.action = x[action_offset];
      arc.force_U = Eigen::Map<const Vecd<n>>(x.data() + action_offset + 1);
      arc.force_Y = Eigen::Map<const Vecd<n>>(x.data() + action_offset + 1 + n);
    }
    return arc;
  }

  /// (q(h), q̇(h)) from (q0, v0): the exponential map and the flow, without sensitivities.
  Arc<n> flow(const Vecd<n>& q0, const Vecd<n>& v0, double h) const { return integrate<Variations::none>(q0, v0, h); }

  /// The arc from q0 to q1 in time h whose initial velocity is found by Newton from `guess`
  /// (the local solution of the boundary-value problem, spec seed-002 §2.2 SHOOT). Throws a
  /// SolverError when U(h) is numerically singular (a conjugate point) or Newton fails.
  template <Variations V = Variations::velocity>
  Arc<n> shoot(const Vecd<n>& q0, const Vecd<n>& q1, double h, const Vecd<n>& guess) const {
    static_assert(V != Variations::none, "shooting needs the velocity sensitivity U");
    const double tol = options_.tolerance;
    // A tenth of the integration tolerance: q(h; v) is a deterministic function of v, so Newton can
    // reach it, and the velocity error U⁻¹r stays below what the integration itself commits.
    const double target = 0.1 * tol * (1.0 + q1.template lpNorm<Eigen::Infinity>());
    Vecd<n> v = guess;
    double previous = INFINITY;
    for (int it = 0;; ++it) {
      Arc<n> arc = integrate<V>(q0, v, h);
      const Vecd<n> r = arc.q1 - q1;
      const double norm = r.template lpNorm<Eigen::Infinity>();
      if (!std::isfinite(norm)) throw detail::shooting_error("shooting: non-finite end point", norm, it);
      check_not_conjugate(arc, norm, it);
      const Vecd<n> dv = arc.U.partialPivLu().solve(r);
      // Converged: residual at the accuracy of the integration, or a correction at round-off, or
      // Newton stalled on the integration's own noise close to the target.
      const bool tiny_step = dv.template lpNorm<Eigen::Infinity>() <= 1e-15 * (1.0 + v.template lpNorm<Eigen::Infinity>());
      if (norm <= target || tiny_step || (norm >= previous && norm <= 1e3 * target)) {
        arc.iterations = it;
        return arc;
      }
      if (it + 1 >= options_.max_iterations) {
        throw detail::shooting_error("shooting did not converge within " + std::to_string(options_.max_iterations) +
                                         " iterations (|q(h) - q1| = " + format(norm) + ")",
                                     norm, it + 1);
      }
      previous = norm;
      v -= dv;
    }
  }

  template <Variations V = Variations::velocity>
  Arc<n> shoot(const Vecd<n>& q0, const Vecd<n>& q1, double h) const {
    return shoot<V>(q0, q1, h, Vecd<n>((q1 - q0) / h));
  }

 private:
  static constexpr int u_offset = 2 * n;
  static constexpr int y_offset = 2 * n + 2 * n * n;
  static constexpr int action_offset = 2 * n + 4 * n * n;

  template <Variations V>
  static constexpr int size() {
    if constexpr (V == Variations::none) return 2 * n;
    if constexpr (V == Variations::velocity) return 2 * n + 2 * n * n;
    return 2 * n + 4 * n * n + 1 + 2 * n;
  }

  template <Variations V>
  void rhs(const double* y, double* dy) const {
    const Eigen::Map<const Vecd<n>> q(y), v(y + n);
    vec(dy) = v;
    if constexpr (V == Variations::none) {
      vec(dy + n) = acceleration(system_, Vecd<n>(q), Vecd<n>(v));
    } else {
      const auto J = acceleration_jacobian(system_, Vecd<n>(q), Vecd<n>(v));
      vec(dy + n) = J.acceleration;
      const Eigen::Map<const Matd<n, n>> U(y + u_offset), U_dot(y + u_offset + n * n);
      mat(dy + u_offset) = U_dot;
      mat(dy + u_offset + n * n) = J.B * U + J.F * U_dot;
      if constexpr (V == Variations::full) {
        const Eigen::Map<const Matd<n, n>> Y(y + y_offset), Y_dot(y + y_offset + n * n);
        mat(dy + y_offset) = Y_dot;
        mat(dy + y_offset + n * n) = J.B * Y + J.F * Y_dot;
        const Vecd<n> qq = q, vv = v;
        const Vecd<n> force = total_force(system_, qq, vv);
        dy[action_offset] = system_.template lagrangian<double>(qq, vv);
        vec(dy + action_offset + 1) = U.transpose() * force;
        vec(dy + action_offset + 1 + n) = Y.transpose() * force;
      }
    }
  }

  /// U(h) is singular to the accuracy it is computed with: q(h) is conjugate to q(0).
  void check_not_conjugate(const Arc<n>& arc, double residual, int iterations) const {
    const Eigen::JacobiSVD<Matd<n, n>> svd(arc.U);
    const auto sigma = svd.singularValues();
    const double smallest = sigma[n - 1], largest = sigma[0];
    if (!(smallest > 100 * options_.tolerance * std::max(std::abs(arc.h), largest))) {
      throw detail::shooting_error(
          "singular shooting Jacobian U(h) (smallest singular value " + format(smallest) + ", h = " + format(arc.h) +
              "): the end point is a conjugate point of the start along the trajectory, so the exact discrete "
              "flow is not defined for this step size; reduce h",
          residual, iterations);
    }
  }

  static Eigen::Map<Vecd<n>> vec(double* p) { return Eigen::Map<Vecd<n>>(p); }
  static Eigen::Map<Matd<n, n>> mat(double* p) { return Eigen::Map<Matd<n, n>>(p); }

  static std::string format(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3e", x);
    return buf;
  }

  S system_;
  ShootingOptions options_;
};

}  // namespace dalembert
