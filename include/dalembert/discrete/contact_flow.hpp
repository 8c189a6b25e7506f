#pragma once
// The time-h flow of the Herglotz vector field with its sensitivities: the contact exponential map
// exp_h(q0, v0, z0) = (q0, q(h), z0) of thesis §8.2.1, the building block of the exact discrete
// contact Lagrangian (exact_contact.hpp) and of the contact reference solver.
//
// Integrated with Boost.Odeint's Bulirsch–Stoer extrapolation (not Runge–Kutta–Fehlberg 7(8), whose
// error estimate vanishes on quadrature-like components such as ż = L; see solve/bulirsch_stoer.hpp).
// Sensitivities come from the variational equation, integrated alongside the state, with the
// second derivatives of L from automatic differentiation.
#include <array>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/numeric/odeint.hpp>

#include "dalembert/model/contact.hpp"
#include "dalembert/solve/bulirsch_stoer.hpp"

namespace dalembert {

/// The Herglotz trajectory over [0, h] from (q0, v0, z0): its end point, b = ∫_0^h ∂L/∂z dt, and
/// the sensitivities of the end point with respect to the initial velocity.
template <int N, int MaxN = N>
struct ContactSegment {
  Vecd<N, MaxN> q0, v0;
  double z0 = 0.0;
  Vecd<N, MaxN> q1, v1;
  double z1 = 0.0;
  double b = 0.0;
  Matd<N, N, MaxN, MaxN> dq1_dv0;  ///< U(h) = ∂q(h)/∂v0, the shooting Jacobian
  Vecd<N, MaxN> db_dv0;            ///< ∂b(h)/∂v0
};
template <class S>
using ContactSegmentOf = ContactSegment<S::n, max_n_of<S>()>;

/// The time-h flow from (q0, v0, z0) (any contact model, constrained or not). Both flows throw
/// IntegrationLimit after `max_substeps` substeps (solve/bulirsch_stoer.hpp).
template <ContactModel S>
ContactSegmentOf<S> contact_flow(const S& sys, const VecN<S>& q0, const VecN<S>& v0, double z0, double h,
                                 double tolerance, long max_substeps = max_arc_substeps) {
  const int n = coordinate_count(sys), X = 2 * n + 2;  // state (q, v, z, b)
  using Q = Eigen::Map<const Vec<double, S::n>>;
  ContactSegmentOf<S> seg;
  seg.q0 = q0;
  seg.v0 = v0;
  seg.z0 = z0;
  double dt = h;
  {
    using OdeState = OdeintState<sum_of_sizes(multiple_of_size(2, S::n), 2)>;
    OdeState y{};
    if constexpr (S::n == Dynamic) y.assign(X, 0.0);
    for (int i = 0; i < n; ++i) {
      y[i] = q0[i];
      y[n + i] = v0[i];
    }
    y[2 * n] = z0;
    const auto rhs = [&](const OdeState& s, OdeState& ds, double) {  // autonomous
      const VecN<S> q = Q(s.data(), n), v = Q(s.data() + n, n);
      const auto d = contact_lagrangian_derivatives(sys, q, v, s[2 * n]);
      Eigen::Map<Vec<double, S::n>>(ds.data(), n) = v;
      Eigen::Map<Vec<double, S::n>>(ds.data() + n, n) = herglotz_acceleration(sys, q, v, d).acceleration;
      ds[2 * n] = d.L;
      ds[2 * n + 1] = d.Lz;
    };
    bulirsch_stoer_interval(rhs, y, 0.0, h, tolerance, dt, max_substeps);
    seg.q1 = Q(y.data(), n);
    seg.v1 = Q(y.data() + n, n);
    seg.z1 = y[2 * n];
    seg.b = y[2 * n + 1];
    return seg;
  }
}

/// The time-h flow from (q0, v0, z0) carrying the variations (δq, δp, δz, δb) that start as the
/// columns of `initial` (unconstrained contact models): the flow and the variations at time h. The
/// variational equation is written for (δq, δp, δz, δb) with p = ∂L/∂v, where the Herglotz
/// equations read ṗ = ∂L/∂q + p ∂L/∂z: it needs only second derivatives of L,
///   δv = W⁻¹ (δp − B δq − L_vz δz),   δq̇ = δv,   δż = L_q δq + L_v δv + L_z δz,
///   δṗ = L_qq δq + L_qv δv + L_qz δz + L_z δp + p (L_zq δq + L_zv δv + L_zz δz),
///   δḃ = L_zq δq + L_zv δv + L_zz δz.
template <ContactModel S, int C, int MaxC = C>
std::pair<ContactSegmentOf<S>, Eigen::MatrixXd> contact_variational_flow(const S& sys, const VecN<S>& q0,
                                                                         const VecN<S>& v0, double z0, double h,
                                                                         double tolerance, long max_substeps,
                                                                         const Eigen::MatrixXd& initial) {
  static_assert(contact_constraint_count<S>() == 0, "sensitivities are implemented for unconstrained contact systems");
  constexpr int N = S::n, XN = sum_of_sizes(multiple_of_size(2, N), 2);
  const int n = coordinate_count(sys), X = 2 * n + 2;  // state (q, v, z, b); variation rows (δq, δp, δz, δb)
  const int c = static_cast<int>(initial.cols());
  using Q = Eigen::Map<const Vec<double, N>>;
  using Variations = Mat<double, XN, C>;  // X × c, column-major after the state
  using MatN = MatNN<S>;
  using Block = Mat<double, N, C, max_n_of<S>(), MaxC>;
  using Row = Mat<double, 1, C, 1, MaxC>;
  ContactSegmentOf<S> seg;
  seg.q0 = q0;
  seg.v0 = v0;
  seg.z0 = z0;
  double dt = h;
  using OdeState = OdeintState<(N == Dynamic || C == Dynamic) ? Dynamic : XN * (C + 1)>;
  OdeState y{};
  if constexpr (N == Dynamic || C == Dynamic) y.assign(X * (c + 1), 0.0);
  Eigen::Map<Vec<double, N>>(y.data(), n) = q0;
  Eigen::Map<Vec<double, N>>(y.data() + n, n) = v0;
  y[2 * n] = z0;
  Eigen::Map<Variations>(y.data() + X, X, c) = initial;
  const auto rhs = [&](const OdeState& s, OdeState& ds, double) {  // autonomous
    const VecN<S> q = Q(s.data(), n), v = Q(s.data() + n, n);
    const auto H = contact_lagrangian_hessian(sys, q, v, s[2 * n]);
    const auto d = H.derivatives();
    const Eigen::PartialPivLU<MatN> W(d.W);
    const VecN<S> r = d.Lq - d.B * v - d.Lvz * d.L + d.Lv * d.Lz;
    Eigen::Map<Vec<double, N>>(ds.data(), n) = v;
    Eigen::Map<Vec<double, N>>(ds.data() + n, n) = W.solve(r);
    ds[2 * n] = d.L;
    ds[2 * n + 1] = d.Lz;

    const Eigen::Map<const Variations> sens(s.data() + X, X, c);
    const Block dq = sens.template topRows<N>(n), dp = sens.template middleRows<N>(n, n);
    const Row dz = sens.row(2 * n);
    const Block dv = W.solve(Block(dp - d.B * dq - d.Lvz * dz));
    const auto& Hm = H.hessian;
    const Row dLz = Hm.template block<1, N>(2 * n, 0, 1, n) * dq + Hm.template block<1, N>(2 * n, n, 1, n) * dv +
                    Hm(2 * n, 2 * n) * dz;
    Eigen::Map<Variations> dsens(ds.data() + X, X, c);
    dsens.template topRows<N>(n) = dv;
    dsens.template middleRows<N>(n, n) = Hm.template block<N, N>(0, 0, n, n) * dq +
                                         Hm.template block<N, N>(0, n, n, n) * dv +
                                         Hm.template block<N, 1>(0, 2 * n, n, 1) * dz + d.Lz * dp + d.Lv * dLz;
    dsens.row(2 * n) = d.Lq.transpose() * dq + d.Lv.transpose() * dv + d.Lz * dz;
    dsens.row(2 * n + 1) = dLz;
  };
  bulirsch_stoer_interval(rhs, y, 0.0, h, tolerance, dt, max_substeps);
  seg.q1 = Q(y.data(), n);
  seg.v1 = Q(y.data() + n, n);
  seg.z1 = y[2 * n];
  seg.b = y[2 * n + 1];
  return {seg, Eigen::MatrixXd(Eigen::Map<const Variations>(y.data() + X, X, c))};
}

/// The time-h flow from (q0, v0, z0) with the sensitivities ∂q(h)/∂v0 and ∂b/∂v0 (unconstrained
/// contact models): the variations from δq(0) = 0, δp(0) = W(q0, v0, z0) δv0, δz(0) = 0.
template <ContactModel S>
ContactSegmentOf<S> contact_flow_with_sensitivities(const S& sys, const VecN<S>& q0, const VecN<S>& v0, double z0,
                                                    double h, double tolerance, long max_substeps = max_arc_substeps) {
  constexpr int N = S::n;
  const int n = coordinate_count(sys);
  Eigen::MatrixXd initial = Eigen::MatrixXd::Zero(2 * n + 2, n);
  initial.middleRows(n, n) = contact_lagrangian_hessian(sys, q0, v0, z0).derivatives().W;
  auto [seg, variations] =
      contact_variational_flow<S, N, max_n_of<S>()>(sys, q0, v0, z0, h, tolerance, max_substeps, initial);
  seg.dq1_dv0 = variations.topRows(n);
  seg.db_dv0 = variations.row(2 * n + 1).transpose();
  return seg;
}

/// ∂(q(h), p(h), z(h))/∂(q0, p0, z0) of the time-h flow in (q, p, z), p = ∂L/∂v, from (q0, v0, z0)
/// with p0 = ∂L/∂v(q0, v0, z0): the variations from the identity, a (2n + 1) × (2n + 1) matrix
/// (unconstrained contact models).
template <ContactModel S>
Eigen::MatrixXd contact_flow_derivative(const S& sys, const VecN<S>& q0, const VecN<S>& v0, double z0, double h,
                                        double tolerance, long max_substeps = max_arc_substeps) {
  constexpr int C = sum_of_sizes(multiple_of_size(2, S::n), 1);
  constexpr int MaxC = sum_of_sizes(multiple_of_size(2, max_n_of<S>()), 1);
  const int n = coordinate_count(sys);
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(2 * n + 2, 2 * n + 1);
  return contact_variational_flow<S, C, MaxC>(sys, q0, v0, z0, h, tolerance, max_substeps, identity)
      .second.topRows(2 * n + 1);
}

}  // namespace dalembert
