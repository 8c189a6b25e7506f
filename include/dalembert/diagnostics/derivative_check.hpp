#pragma once
// Derivative self-check: automatic-differentiation derivatives against central finite differences.
// Finite differences live here and only here (and as an explicit option where a user asks for them).
#include <algorithm>
#include <cmath>

#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/model/dynamics.hpp"

namespace dalembert {

struct DerivativeCheck {
  double lagrangian_gradient = 0.0;   ///< max relative error of ∂L/∂q, ∂L/∂v
  double lagrangian_hessian = 0.0;    ///< of W = ∂²L/∂v² and B = ∂²L/∂v∂q
  double constraint_jacobian = 0.0;   ///< of ∂(M(q) v)/∂q
  double discrete_lagrangian = 0.0;   ///< of D1, D2, D12 of the midpoint rule
  double cyclic_coordinates = 0.0;    ///< |∂L/∂q_c| by differences, for declared cyclic q_c (model.hpp)
  double worst() const {
    return std::max({lagrangian_gradient, lagrangian_hessian, constraint_jacobian, discrete_lagrangian,
                     cyclic_coordinates});
  }
};

namespace detail {
inline double relative_error(double ad, double fd, double scale) {
  return std::abs(ad - fd) / std::max(1.0, std::max(std::abs(fd), scale));
}
}  // namespace detail

/// Compares every AD derivative the integrators use with central differences of step `eps`
/// (errors of order eps² are expected; 1e-5 gives agreement to about 1e-8).
template <Model S>
DerivativeCheck check_derivatives(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& v, double h = 0.1,
                                  double eps = 1e-5) {
  constexpr int n = S::n, m = S::m;
  using detail::relative_error;
  DerivativeCheck c;
  const auto d = lagrangian_derivatives(sys, q, v);
  const auto L = [&](const Vecd<n>& qq, const Vecd<n>& vv) { return sys.template lagrangian<double>(qq, vv); };
  const auto Lv = [&](const Vecd<n>& qq, const Vecd<n>& vv) { return lagrangian_derivatives(sys, qq, vv).Lv; };
  const double scale = d.Lv.template lpNorm<Eigen::Infinity>();
  for (int j = 0; j < n; ++j) {
    const Vecd<n> e = Vecd<n>::Unit(j) * eps;
    const double Lq_fd = (L(q + e, v) - L(q - e, v)) / (2 * eps);
    const double Lv_fd = (L(q, v + e) - L(q, v - e)) / (2 * eps);
    c.lagrangian_gradient = std::max({c.lagrangian_gradient, relative_error(d.Lq[j], Lq_fd, scale),
                                      relative_error(d.Lv[j], Lv_fd, scale)});
    const Vecd<n> dLv_dq = (Lv(q + e, v) - Lv(q - e, v)) / (2 * eps);  // column j of B
    const Vecd<n> dLv_dv = (Lv(q, v + e) - Lv(q, v - e)) / (2 * eps);  // column j of W
    for (int i = 0; i < n; ++i) {
      c.lagrangian_hessian = std::max({c.lagrangian_hessian, relative_error(d.B(i, j), dLv_dq[i], scale),
                                       relative_error(d.W(i, j), dLv_dv[i], scale)});
    }
  }
  if constexpr (m > 0) {
    Vec<double, m> Mv;
    Mat<double, m, n> J;
    ad::value_and_jacobian<n, m>(
        [&](const auto& qd) {
          using D = typename std::decay_t<decltype(qd)>::Scalar;
          const Vec<D, n> vd = v.template cast<D>();
          return Vec<D, m>(sys.template constraint_matrix<D>(qd) * vd);
        },
        q, Mv, J);
    for (int j = 0; j < n; ++j) {
      const Vecd<n> e = Vecd<n>::Unit(j) * eps;
      const Vec<double, m> fd =
          (sys.template constraint_matrix<double>(q + e) * v - sys.template constraint_matrix<double>(q - e) * v) /
          (2 * eps);
      for (int a = 0; a < m; ++a)
        c.constraint_jacobian = std::max(c.constraint_jacobian, relative_error(J(a, j), fd[a], v.norm()));
    }
  }
  if constexpr (requires { S::cyclic_coordinates; }) {
    // A cyclic coordinate the structured α-rule derivatives leave out; checked by differences of
    // L itself, since those derivatives take the declaration on trust.
    for (const int j : S::cyclic_coordinates) {
      const Vecd<n> e = Vecd<n>::Unit(j) * eps;
      const double Lq_fd = (L(q + e, v) - L(q - e, v)) / (2 * eps);
      c.cyclic_coordinates = std::max(c.cyclic_coordinates, relative_error(0.0, Lq_fd, scale));
    }
  }
  const AlphaRule<S> ld(sys, h);
  const Vecd<n> q1 = q + h * v;
  const auto dd = differentiate(ld, q, q1);
  const double dscale = dd.D1.template lpNorm<Eigen::Infinity>();
  for (int j = 0; j < n; ++j) {
    const Vecd<n> e = Vecd<n>::Unit(j) * eps;
    const double D1_fd = (ld(Vecd<n>(q + e), q1) - ld(Vecd<n>(q - e), q1)) / (2 * eps);
    const double D2_fd = (ld(q, Vecd<n>(q1 + e)) - ld(q, Vecd<n>(q1 - e))) / (2 * eps);
    c.discrete_lagrangian = std::max({c.discrete_lagrangian, relative_error(dd.D1[j], D1_fd, dscale),
                                      relative_error(dd.D2[j], D2_fd, dscale)});
    const Vecd<n> D1_col = (differentiate(ld, q, Vecd<n>(q1 + e)).D1 - differentiate(ld, q, Vecd<n>(q1 - e)).D1) / (2 * eps);
    for (int i = 0; i < n; ++i)
      c.discrete_lagrangian = std::max(c.discrete_lagrangian, relative_error(dd.D12(i, j), D1_col[i], dd.D12.norm()));
  }
  return c;
}

}  // namespace dalembert
