#pragma once
// Nonholonomic Jacobi fields along a trajectory ([AS21] ch. 6, Def. 6.1.1).
//
// A Jacobi field is the variation W(t) = ∂/∂s|₀ c_s(t) of a family of nonholonomic trajectories
// c_s. It solves the variational equation of the multiplier-extended dynamics q̈ = ξ(q, q̇),
//   Ẅ = B(t) W + F(t) Ẇ,   B = ∂ξ/∂q, F = ∂ξ/∂q̇ along c  (by automatic differentiation),
// from (W(0), Ẇ(0)) = (δq0, δv0). For the variation to stay among nonholonomic trajectories the
// initial data must satisfy the linearised constraint M(q0)δv0 + (∂M/∂q·δq0) v0 = 0; since M q̇ is a
// first integral of the extension, this linearised constraint is then zero along the whole field
// (reported in `linearised_constraint`, a check of the data and of the integration).
#include <vector>

#include <boost/numeric/odeint.hpp>

#include "dalembert/discrete/shooting.hpp"

namespace dalembert {

template <int N, int M>
struct JacobiSample {
  double t = 0.0;
  Vecd<N> q, v;           ///< the trajectory c(t), ċ(t)
  Vecd<N> W, W_dot;       ///< the Jacobi field and its derivative
  double linearised_constraint = 0.0;  ///< |M(q)Ẇ + (∂M/∂q·W) q̇|_inf
};

/// The Jacobi field along the trajectory from (q0, v0) with initial variation (dq0, dv0), sampled
/// at `times` (increasing, ≥ 0). Integration by Bulirsch–Stoer with absolute and relative
/// tolerance `tolerance`.
template <Model S>
std::vector<JacobiSample<S::n, S::m>> jacobi_field(const S& sys, const Vecd<S::n>& q0, const Vecd<S::n>& v0,
                                                   const Vecd<S::n>& dq0, const Vecd<S::n>& dv0,
                                                   const std::vector<double>& times, double tolerance = 1e-12) {
  constexpr int n = S::n, m = S::m;
  namespace odeint = boost::numeric::odeint;
  using State = std::array<double, 4 * n>;  // q, q̇, W, Ẇ
  State x;
  const auto put = [](State& s, int block, const Vecd<n>& v) { Eigen::Map<Vecd<n>>{s.data() + block * n} = v; };
  const auto get = [](const State& s, int block) { return Vecd<n>(Eigen::Map<const Vecd<n>>(s.data() + block * n)); };
  put(x, 0, q0);
  put(x, 1, v0);
  put(x, 2, dq0);
  put(x, 3, dv0);
  const auto rhs = [&](const State& y, State& dy, double) {
    const auto J = acceleration_jacobian(sys, get(y, 0), get(y, 1));
    put(dy, 0, get(y, 1));
    put(dy, 1, J.acceleration);
    put(dy, 2, get(y, 3));
    put(dy, 3, Vecd<n>(J.B * get(y, 2) + J.F * get(y, 3)));
  };
  // The constraint functions g(q, v) = M(q)v linearised along (W, Ẇ).
  const auto linearised = [&](const State& y) -> double {
    if constexpr (m == 0) {
      return 0.0;
    } else {
      using D = ad::Dual<double, 1>;
      Vec<D, n> q, v;
      for (int i = 0; i < n; ++i) {
        q[i] = D(y[i], Vec<double, 1>(y[2 * n + i]));
        v[i] = D(y[n + i], Vec<double, 1>(y[3 * n + i]));
      }
      const Vec<D, m> g = sys.template constraint_matrix<D>(q) * v;
      double worst = 0.0;
      for (int a = 0; a < m; ++a) worst = std::max(worst, std::abs(ad::derivative(g[a], 0)));
      return worst;
    }
  };
  std::vector<JacobiSample<n, m>> out;
  out.reserve(times.size());
  odeint::bulirsch_stoer<State> stepper(tolerance, tolerance);
  double t = 0.0;
  for (double ti : times) {
    if (ti > t) {
      odeint::integrate_adaptive(stepper, rhs, x, t, ti, ti - t);
      t = ti;
    }
    out.push_back({ti, get(x, 0), get(x, 1), get(x, 2), get(x, 3), linearised(x)});
  }
  return out;
}

}  // namespace dalembert
