#pragma once
// The exact discrete contact Lagrangian ([AS21] §8.2.2)
//   L^e_h(q0, q1, z0) = ∫_0^h L dt = z(h) − z0
// along the Herglotz trajectory with q(0) = q0, q(h) = q1, z(0) = z0, found by shooting on the
// initial velocity: v0 = R^{e−}_h(q0, q1, z0), the exact retraction (inverse of exp_h).
//
// Its derivatives need no numerical differentiation; they are the closed identities (8.2.12)
//   D1 L^e = −∂L/∂v(q0, v0, z0) e^{b},   D2 L^e = ∂L/∂v(q(h), q̇(h), z(h)),   D_z L^e = e^{b} − 1,
// with b = ∫_0^h ∂L/∂z dt, so σ_d = e^{b} and F^±L^e = FL ∘ R^{e±} (8.2.11). The second derivatives
// the Newton iteration of the discrete Herglotz equations needs follow from ∂v0/∂q1 = U(h)⁻¹, with
// U(h) = ∂q(h)/∂v0 the shooting Jacobian: a singular U(h) means q1 is conjugate to q0 (App. B).
#include <cmath>
#include <cstdio>
#include <string>

#include <Eigen/LU>

#include "dalembert/discrete/contact_flow.hpp"
#include "dalembert/discrete/contact_lagrangian.hpp"
#include "dalembert/solve/newton.hpp"

namespace dalembert {

template <ContactModel S>
class ExactContactLagrangian {
 public:
  static constexpr int n = S::n, max_n = max_n_of<S>();
  using Segment = ContactSegmentOf<S>;
  using Derivatives = ContactDiscreteDerivativesOf<S>;
  static_assert(contact_constraint_count<S>() == 0,
                "the exact discrete contact Lagrangian is implemented for unconstrained contact systems");

  /// `tolerance`: of the Bulirsch–Stoer integration; the shooting residual |q(h) − q1| is driven
  /// to `shooting_tolerance` relative to max(1, |q|).
  ExactContactLagrangian(const S& system, double h, double tolerance = 1e-13, double shooting_tolerance = 1e-12)
      : system_(system), h_(h), tolerance_(tolerance), shooting_tolerance_(shooting_tolerance) {}

  double step_size() const { return h_; }
  const S& system() const { return system_; }
  int dimension() const { return coordinate_count(system_); }

  /// The Herglotz trajectory from (q0, v0, z0) over [0, h] (the contact exponential map). Throws
  /// DiscreteLagrangianError when it needs more than max_arc_substeps substeps.
  Segment flow(const VecN<S>& q0, const VecN<S>& v0, double z0, bool sensitivities = false) const {
    try {
      return sensitivities ? contact_flow_with_sensitivities(system_, q0, v0, z0, h_, tolerance_, max_arc_substeps)
                           : contact_flow(system_, q0, v0, z0, h_, tolerance_, max_arc_substeps);
    } catch (const IntegrationLimit& e) {
      throw DiscreteLagrangianError("the arc over one step h = " + std::to_string(h_) + ": " + e.what() +
                                    "; the step is far too long for the motion, or the trajectory runs into a "
                                    "singularity of the equations of motion; reduce h");
    }
  }

  /// The Herglotz trajectory joining q0 to q1 in time h with z(0) = z0: its v0 is R^{e−}_h(q0, q1, z0)
  /// and its end point (q1, v1, z1) is R^{e+}_h(q0, q1, z0). Throws DiscreteLagrangianError.
  Segment shoot(const VecN<S>& q0, const VecN<S>& q1, double z0) const {
    return shoot(q0, q1, z0, VecN<S>((q1 - q0) / h_));
  }

  Segment shoot(const VecN<S>& q0, const VecN<S>& q1, double z0, const VecN<S>& guess) const {
    VecN<S> v = guess;
    Segment seg;
    const auto evaluate = [&](const VecN<S>& v0, VecN<S>& F, MatNN<S>& J) {
      seg = flow(q0, v0, z0, true);
      F = seg.q1 - q1;
      J = seg.dq1_dv0;
    };
    NewtonOptions options;
    options.tolerance = shooting_tolerance_;
    const double scale = std::max(q0.template lpNorm<Eigen::Infinity>(), q1.template lpNorm<Eigen::Infinity>());
    const NewtonReport r = newton_solve<n, max_n>(evaluate, v, scale, options);
    if (!r.converged) {
      // U(h) ≈ h I for small h; det U(h) → 0 means a conjugate point (Lemma B.0.2).
      const double det = seg.dq1_dv0.determinant() / std::pow(h_, dimension());
      const std::string why = r.reason == "singular Jacobian" || (std::isfinite(det) && std::abs(det) <= 1e-8)
                                  ? "singular shooting Jacobian dq(h)/dv0 (q1 is conjugate to q0 along the "
                                    "trajectory; reduce h)"
                                  : r.reason;
      char residual[32];
      std::snprintf(residual, sizeof residual, "%.3g", r.residual_norm);
      throw DiscreteLagrangianError("shooting for the exact discrete contact Lagrangian failed: " + why +
                                    ", |q(h) - q1| = " + residual);
    }
    return seg;
  }

  double operator()(const VecN<S>& q0, const VecN<S>& q1, double z0) const { return shoot(q0, q1, z0).z1 - z0; }

  /// L^e and its derivatives from the identities (8.2.12) and the shooting sensitivities.
  Derivatives derivatives(const VecN<S>& q0, const VecN<S>& q1, double z0) const {
    return derivatives(shoot(q0, q1, z0));
  }

  Derivatives derivatives(const Segment& seg) const {
    const auto start = contact_lagrangian_derivatives(system_, seg.q0, seg.v0, seg.z0);
    const double eb = std::exp(seg.b);
    const MatNN<S> dv0_dq1 = seg.dq1_dv0.inverse();
    const VecN<S> db_dq1 = dv0_dq1.transpose() * seg.db_dv0;
    Derivatives d;
    d.value = seg.z1 - seg.z0;
    d.D1 = -eb * start.Lv;
    d.D2 = contact_momentum(system_, seg.q1, seg.v1, seg.z1);
    d.Dz = std::expm1(seg.b);
    d.D12 = -eb * (start.W * dv0_dq1 + start.Lv * db_dq1.transpose());
    d.Dz2 = eb * db_dq1;
    return d;
  }

  /// ∂(q1, p1, z1)/∂(q0, p0, z0) of the exact discrete Herglotz step from (q0, p0, z0): the step is
  /// the flow over h from (q0, v0, z0) with v0 the velocity of p0 (Thm 8.2.5), so its derivative is
  /// the flow's, from the variational equations (contact_flow_derivative); no shooting.
  Eigen::MatrixXd step_derivative(const VecN<S>& q0, const VecN<S>& p0, double z0) const {
    try {
      return contact_flow_derivative(system_, q0, contact_velocity(system_, q0, p0, z0), z0, h_, tolerance_,
                                     max_arc_substeps);
    } catch (const IntegrationLimit& e) {
      throw DiscreteLagrangianError("the arc over one step h = " + std::to_string(h_) + ": " + e.what());
    }
  }

  /// The position reached from the momentum p0 (the exact discrete flow in one shot): the solution
  /// of the discrete Herglotz equation −D1 L^e(q0, q1, z0)/σ_d = p0, used as Newton's start.
  VecN<S> predict(const VecN<S>& q0, const VecN<S>& p0, double z0) const {
    return flow(q0, contact_velocity(system_, q0, p0, z0), z0).q1;
  }

 private:
  S system_;
  double h_, tolerance_, shooting_tolerance_;
};

}  // namespace dalembert
