#pragma once
// The time-h flow of the Herglotz vector field with its sensitivities: the contact exponential map
// exp_h(q0, v0, z0) = (q0, q(h), z0) of thesis §8.2.1, the building block of the exact discrete
// contact Lagrangian (exact_contact.hpp) and of the contact reference solver.
//
// Integrated with Boost.Odeint's Bulirsch–Stoer extrapolation (not Runge–Kutta–Fehlberg 7(8), whose
// error estimate vanishes on quadrature-like components such as ż = L; see method/reference.hpp).
// Sensitivities come from the variational equation, integrated alongside the state, with the
// second derivatives of L from automatic differentiation.
#include <array>
#include <stdexcept>
#include <string>

#include <boost/numeric/odeint.hpp>

#include "dalembert/model/contact.hpp"

namespace dalembert {

namespace detail {

/// Integrates ẋ = rhs(x) from t0 to exactly t1 with Bulirsch–Stoer; `dt` carries the step-size
/// suggestion in and out.
template <class OdeState, class Rhs>
void bulirsch_stoer_interval(Rhs&& rhs, OdeState& x, double t0, double t1, double tolerance, double& dt) {
  namespace odeint = boost::numeric::odeint;
  odeint::bulirsch_stoer<OdeState> stepper(tolerance, tolerance);
  const auto system = [&](const OdeState& y, OdeState& dy, double) { rhs(y, dy); };
  double t = t0;
  long substeps = 0;
  if (!(dt > 0)) dt = t1 - t0;
  while (t < t1) {
    const bool last = dt >= t1 - t;
    double trial = last ? t1 - t : dt;
    double tt = t;
    if (stepper.try_step(system, x, tt, trial) == odeint::success) {
      ++substeps;
      t = last ? t1 : tt;
      if (!last) dt = trial;
    } else {
      dt = trial;
    }
    if (substeps > 10000000 || !(dt > 0)) {
      throw std::runtime_error("Bulirsch-Stoer: step size underflow at t = " + std::to_string(t));
    }
  }
}

}  // namespace detail

/// The Herglotz trajectory over [0, h] from (q0, v0, z0): its end point, b = ∫_0^h ∂L/∂z dt, and
/// the sensitivities of the end point with respect to the initial velocity.
template <int N>
struct ContactSegment {
  Vecd<N> q0, v0;
  double z0 = 0.0;
  Vecd<N> q1, v1;
  double z1 = 0.0;
  double b = 0.0;
  Matd<N, N> dq1_dv0;  ///< U(h) = ∂q(h)/∂v0, the shooting Jacobian
  Vecd<N> db_dv0;      ///< ∂b(h)/∂v0
};

/// The time-h flow from (q0, v0, z0) (any contact model, constrained or not).
template <ContactModel S>
ContactSegment<S::n> contact_flow(const S& sys, const Vecd<S::n>& q0, const Vecd<S::n>& v0, double z0, double h,
                                  double tolerance) {
  constexpr int n = S::n, X = 2 * n + 2;  // state (q, v, z, b)
  ContactSegment<n> seg;
  seg.q0 = q0;
  seg.v0 = v0;
  seg.z0 = z0;
  double dt = h;
  {
    using OdeState = std::array<double, X>;
    OdeState y{};
    for (int i = 0; i < n; ++i) {
      y[i] = q0[i];
      y[n + i] = v0[i];
    }
    y[2 * n] = z0;
    const auto rhs = [&](const OdeState& s, OdeState& ds) {
      const Vecd<n> q = Eigen::Map<const Vecd<n>>(s.data()), v = Eigen::Map<const Vecd<n>>(s.data() + n);
      const auto d = contact_lagrangian_derivatives(sys, q, v, s[2 * n]);
      Eigen::Map<Vecd<n>>(ds.data()) = v;
      Eigen::Map<Vecd<n>>(ds.data() + n) = herglotz_acceleration(sys, q, v, d).acceleration;
      ds[2 * n] = d.L;
      ds[2 * n + 1] = d.Lz;
    };
    detail::bulirsch_stoer_interval(rhs, y, 0.0, h, tolerance, dt);
    seg.q1 = Eigen::Map<const Vecd<n>>(y.data());
    seg.v1 = Eigen::Map<const Vecd<n>>(y.data() + n);
    seg.z1 = y[2 * n];
    seg.b = y[2 * n + 1];
    return seg;
  }
}

/// The time-h flow from (q0, v0, z0) with the sensitivities ∂q(h)/∂v0 and ∂b/∂v0 (unconstrained
/// contact models). The variational equation is written for (δq, δp, δz, δb) with p = ∂L/∂v, where
/// the Herglotz equations read ṗ = ∂L/∂q + p ∂L/∂z: it needs only second derivatives of L,
///   δv = W⁻¹ (δp − B δq − L_vz δz),   δq̇ = δv,   δż = L_q δq + L_v δv + L_z δz,
///   δṗ = L_qq δq + L_qv δv + L_qz δz + L_z δp + p (L_zq δq + L_zv δv + L_zz δz),
///   δḃ = L_zq δq + L_zv δv + L_zz δz,     δq(0) = 0, δp(0) = W(q0, v0, z0) δv0.
template <ContactModel S>
ContactSegment<S::n> contact_flow_with_sensitivities(const S& sys, const Vecd<S::n>& q0, const Vecd<S::n>& v0,
                                                     double z0, double h, double tolerance) {
  static_assert(contact_constraint_count<S>() == 0, "sensitivities are implemented for unconstrained contact systems");
  constexpr int n = S::n, X = 2 * n + 2;  // state (q, v, z, b); sensitivity rows (δq, δp, δz, δb)
  ContactSegment<n> seg;
  seg.q0 = q0;
  seg.v0 = v0;
  seg.z0 = z0;
  double dt = h;
  using OdeState = std::array<double, X * (n + 1)>;
  OdeState y{};
  Eigen::Map<Vecd<n>>(y.data()) = q0;
  Eigen::Map<Vecd<n>>(y.data() + n) = v0;
  y[2 * n] = z0;
  {
    Eigen::Map<Matd<X, n>> sens(y.data() + X);
    sens.setZero();
    sens.template middleRows<n>(n) = contact_lagrangian_hessian(sys, q0, v0, z0).derivatives().W;
  }
  const auto rhs = [&](const OdeState& s, OdeState& ds) {
    const Vecd<n> q = Eigen::Map<const Vecd<n>>(s.data()), v = Eigen::Map<const Vecd<n>>(s.data() + n);
    const auto H = contact_lagrangian_hessian(sys, q, v, s[2 * n]);
    const auto d = H.derivatives();
    const Eigen::PartialPivLU<Matd<n, n>> W(d.W);
    const Vecd<n> r = d.Lq - d.B * v - d.Lvz * d.L + d.Lv * d.Lz;
    Eigen::Map<Vecd<n>>(ds.data()) = v;
    Eigen::Map<Vecd<n>>(ds.data() + n) = W.solve(r);
    ds[2 * n] = d.L;
    ds[2 * n + 1] = d.Lz;

    const Eigen::Map<const Matd<X, n>> sens(s.data() + X);
    const Matd<n, n> dq = sens.template topRows<n>(), dp = sens.template middleRows<n>(n);
    const Matd<1, n> dz = sens.row(2 * n);
    const Matd<n, n> dv = W.solve(Matd<n, n>(dp - d.B * dq - d.Lvz * dz));
    const auto& Hm = H.hessian;
    const Matd<1, n> dLz = Hm.template block<1, n>(2 * n, 0) * dq + Hm.template block<1, n>(2 * n, n) * dv + Hm(2 * n, 2 * n) * dz;
    Eigen::Map<Matd<X, n>> dsens(ds.data() + X);
    dsens.template topRows<n>() = dv;
    dsens.template middleRows<n>(n) = Hm.template block<n, n>(0, 0) * dq + Hm.template block<n, n>(0, n) * dv +
                                      Hm.template block<n, 1>(0, 2 * n) * dz + d.Lz * dp + d.Lv * dLz;
    dsens.row(2 * n) = d.Lq.transpose() * dq + d.Lv.transpose() * dv + d.Lz * dz;
    dsens.row(2 * n + 1) = dLz;
  };
  detail::bulirsch_stoer_interval(rhs, y, 0.0, h, tolerance, dt);
  seg.q1 = Eigen::Map<const Vecd<n>>(y.data());
  seg.v1 = Eigen::Map<const Vecd<n>>(y.data() + n);
  seg.z1 = y[2 * n];
  seg.b = y[2 * n + 1];
  const Eigen::Map<const Matd<X, n>> sens(y.data() + X);
  seg.dq1_dv0 = sens.template topRows<n>();
  seg.db_dv0 = sens.row(2 * n + 1).transpose();
  return seg;
}

}  // namespace dalembert
