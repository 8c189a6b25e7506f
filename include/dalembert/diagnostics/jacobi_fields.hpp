#pragma once
// Nonholonomic Jacobi fields along a trajectory ([AS21] ch. 6, Def. 6.1.1).
//
// A Jacobi field is the variation W(t) = ∂/∂s|₀ c_s(t) of a family of nonholonomic trajectories
// c_s. It solves the variational equation of the multiplier-extended dynamics q̈ = ξ(q, q̇),
//   Ẅ = B(t) W + F(t) Ẇ,   B = ∂ξ/∂q, F = ∂ξ/∂q̇ along c  (by automatic differentiation),
// from (W(0), Ẇ(0)) = (δq0, δv0). For the variation to stay among nonholonomic trajectories the
// initial data must satisfy the linearised constraint M(q0)δv0 + (∂M/∂q·δq0) v0 + ∂b/∂q·δq0 = 0
// (b the part without velocities of affine constraints M(q) v + b(q) = 0); since M q̇ + b is a first
// integral of the extension, this linearised constraint is then zero along the whole field
// (reported in `linearised_constraint`, a check of the data and of the integration). The
// constraints and the force must not depend on t.
//
// With the field comes the variation of the momentum p = ∂L/∂v(q, q̇),
//   δp = ∂²L/∂v∂q W + ∂²L/∂v² Ẇ,
// which is what the tangent maps of the position–momentum methods' steps carry (discrete Jacobi
// fields, docs/jacobi-fields.md). Any size: fixed, bounded or known at run time (model files).
#include <vector>

#include "dalembert/discrete/shooting.hpp"
#include "dalembert/model/first_order_field.hpp"

namespace dalembert {

template <int N, int MaxN = N>
struct JacobiSample {
  double t = 0.0;
  Vecd<N, MaxN> q, v;                  ///< the trajectory c(t), ċ(t)
  Vecd<N, MaxN> W, W_dot;              ///< the Jacobi field and its derivative
  Vecd<N, MaxN> dp;                    ///< the variation of the momentum ∂L/∂v along the field
  double linearised_constraint = 0.0;  ///< |M(q)Ẇ + (∂M/∂q·W) q̇ + ∂b/∂q·W|_inf
};
template <class S>
using JacobiSampleOf = JacobiSample<S::n, max_n_of<S>()>;

/// |M(q)δv + (∂M/∂q·δq) v + ∂b/∂q·δq|_inf: the constraint functions g(q, v) = M(q)v + b(q)
/// linearised along (δq, δv), zero exactly when (δq, δv) is tangent to the constraint manifold g = 0.
template <Model S>
double linearised_constraint(const S& sys, const VecN<S>& q, const VecN<S>& v, const VecN<S>& dq,
                             const VecN<S>& dv) {
  const int n = coordinate_count(sys), m = constraint_count(sys);
  if (m == 0) return 0.0;
  using D = ad::Dual<double, 1>;
  VecN<S, D> qd(n), vd(n);
  for (int i = 0; i < n; ++i) {
    qd[i] = D(q[i], Vec<double, 1>(dq[i]));
    vd[i] = D(v[i], Vec<double, 1>(dv[i]));
  }
  VecM<S, D> g = sys.template constraint_matrix<D>(qd) * vd;
  require_time_independent_constraints(sys, "the linearised constraint");
  add_constraint_offset(sys, qd, 0.0, g);
  double worst = 0.0;
  for (int a = 0; a < m; ++a) worst = std::max(worst, std::abs(ad::derivative(g[a], 0)));
  return worst;
}

/// The Jacobi field along the trajectory from (q0, v0) with initial variation (dq0, dv0), sampled
/// at `times` (increasing, ≥ 0). Integration by Bulirsch–Stoer with absolute and relative
/// tolerance `tolerance`, in the library's bounded adaptive loop: an interval that needs more than
/// `max_substeps` substeps throws IntegrationLimit. The model's force must not depend on t.
template <Model S>
std::vector<JacobiSampleOf<S>> jacobi_field(const S& sys, const VecN<S>& q0, const VecN<S>& v0, const VecN<S>& dq0,
                                            const VecN<S>& dv0, const std::vector<double>& times,
                                            double tolerance = 1e-12, long max_substeps = 100000) {
  constexpr int n = S::n;
  const int d = coordinate_count(sys);
  using State = OdeintState<n == Dynamic ? Dynamic : 4 * n>;  // q, q̇, W, Ẇ
  State x{};
  if constexpr (n == Dynamic) x.assign(4 * d, 0.0);
  const auto block = [d](auto& s, int k) { return detail::phase_block<S>(s.data(), k * d, d); };
  const auto get = [&](const State& s, int k) { return VecN<S>(block(s, k)); };
  block(x, 0) = q0;
  block(x, 1) = v0;
  block(x, 2) = dq0;
  block(x, 3) = dv0;
  const auto rhs = [&](const State& y, State& dy, double) {
    const auto J = acceleration_jacobian(sys, get(y, 0), get(y, 1));
    block(dy, 0) = get(y, 1);
    block(dy, 1) = J.acceleration;
    block(dy, 2) = get(y, 3);
    block(dy, 3) = J.B * get(y, 2) + J.F * get(y, 3);
  };
  std::vector<JacobiSampleOf<S>> out;
  out.reserve(times.size());
  double t = 0.0, dt = 0.0;
  for (double ti : times) {
    if (ti > t) {
      bulirsch_stoer_interval(rhs, x, t, ti, tolerance, dt, max_substeps);
      t = ti;
    }
    JacobiSampleOf<S> s;
    s.t = ti;
    s.q = get(x, 0);
    s.v = get(x, 1);
    s.W = get(x, 2);
    s.W_dot = get(x, 3);
    const auto L = lagrangian_derivatives(sys, s.q, s.v);  // B = ∂²L/∂v∂q, W = ∂²L/∂v²
    s.dp = L.B * s.W + L.W * s.W_dot;
    s.linearised_constraint = linearised_constraint(sys, s.q, s.v, s.W, s.W_dot);
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace dalembert
