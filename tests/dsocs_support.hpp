#pragma once
// Helpers of the DSOCS tests: whole trajectories, the matrix form of [BFG13] Theorem 5.3 and the
// step derivative against central differences.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/method/second_order_constrained.hpp"
#include "test_support.hpp"

namespace dalembert::test {

/// q_0, ..., q_N of a DSOCS method started from (q0, v0).
template <class Method, int N>
std::vector<Vecd<N>> dsocs_trajectory(const Method& method, const Vecd<N>& q0, const Vecd<N>& v0, long steps) {
  std::vector<Vecd<N>> q;
  q.reserve(static_cast<std::size_t>(steps) + 1);
  auto s = method.initial_state(q0, v0);
  q.push_back(s.q);
  for (long k = 0; k < steps; ++k) {
    method.step(s);
    q.push_back(s.q);
  }
  return q;
}

struct SymplecticDefect {
  double identity_mismatch;   ///< |Jᵀ W J − W − (K − Kᵀ)|_max / |Jᵀ W J − W|_max
  double non_symplecticity;   ///< |Jᵀ W J − W|_max
};

/// Theorem 5.3 in matrix form at z = (q0, q1): with the flow Φ(z) = (q1, q2(z)), its Jacobian J,
/// L12 = ∂²L_d/∂q0∂q1, W = [[0, −L12], [L12ᵀ, 0]], c(z) = D2 L_d(q0, q1) + D1 L_d(q1, q2(z)) and
/// K[j, n+i] = ∂c_i/∂z_j:  Jᵀ W J − W = K − Kᵀ. Derivatives of the flow by central differences.
template <class Method>
SymplecticDefect theorem_5_3(const Method& method, const Vecd<Method::n>& q0, const Vecd<Method::n>& q1) {
  constexpr int n = Method::n;
  const auto& ds = method.discrete_system();
  const auto ld = make_discrete_lagrangian<n>(method.step_size(), [&ds](const auto& a, const auto& b) {
    using T = typename std::decay_t<decltype(a)>::Scalar;
    return ds.template lagrangian<T>(a, b);
  });
  const auto step = [&](const Vecd<2 * n>& z) {
    Vecd<n> q2 = 2.0 * z.template tail<n>() - z.template head<n>();
    const auto r = method.solve(z.template head<n>(), z.template tail<n>(), Method::default_branch(), q2);
    if (!r.converged) throw std::runtime_error("theorem_5_3: step did not converge");
    return q2;
  };
  const auto c = [&](const Vecd<2 * n>& z) {
    const Vecd<n> a = z.template head<n>(), b = z.template tail<n>();
    return Vecd<n>(differentiate(ld, a, b).D2 + differentiate(ld, b, step(z)).D1);
  };
  Vecd<2 * n> z;
  z << q0, q1;
  Matd<2 * n, 2 * n> J = Matd<2 * n, 2 * n>::Zero(), K = Matd<2 * n, 2 * n>::Zero();
  J.template topRightCorner<n, n>().setIdentity();
  for (int j = 0; j < 2 * n; ++j) {
    const double delta = 1e-6 * std::max(1.0, std::abs(z[j]));
    Vecd<2 * n> plus = z, minus = z;
    plus[j] += delta;
    minus[j] -= delta;
    J.template bottomRows<n>().col(j) = (step(plus) - step(minus)) / (2 * delta);
    K.row(j).template tail<n>() = ((c(plus) - c(minus)) / (2 * delta)).transpose();
  }
  const Matd<n, n> L12 = differentiate(ld, q0, q1).D12;
  Matd<2 * n, 2 * n> W = Matd<2 * n, 2 * n>::Zero();
  W.template topRightCorner<n, n>() = -L12;
  W.template bottomLeftCorner<n, n>() = L12.transpose();
  const Matd<2 * n, 2 * n> pullback = J.transpose() * W * J - W;
  const double size = pullback.cwiseAbs().maxCoeff();
  return {(pullback - (K - K.transpose())).cwiseAbs().maxCoeff() / size, size};
}

/// The largest entry of `method`'s step derivative ∂(q_k, q_{k+1})/∂(q_{k−1}, q_k) off central
/// differences of the step (each entry moved by 1e-6 of its size), relative to the largest entry,
/// three steps from (q0, v0); reported as step_derivative_<name>.
template <class Method>
double dsocs_step_derivative_error(const std::string& name, const Method& method, const Vecd<Method::n>& q0,
                                   const Vecd<Method::n>& v0) {
  constexpr int n = Method::n;
  auto s = method.initial_state(q0, v0);
  for (int k = 0; k < 3; ++k) method.step(s);
  const Eigen::MatrixXd D = method.step_derivative(s);
  Eigen::MatrixXd reference(2 * n, 2 * n);
  for (int j = 0; j < 2 * n; ++j) {
    auto up = s, down = s;
    double& x_up = j < n ? up.previous[j] : up.q[j - n];
    double& x_down = j < n ? down.previous[j] : down.q[j - n];
    const double e = 1e-6 * std::max(1.0, std::abs(x_up));
    x_up += e;
    x_down -= e;
    const double width = x_up - x_down;
    method.step(up);
    method.step(down);
    reference.col(j) << (up.previous - down.previous) / width, (up.q - down.q) / width;
  }
  const double error = (D - reference).cwiseAbs().maxCoeff() / D.cwiseAbs().maxCoeff();
  report("step_derivative_" + name, error);
  return error;
}

}  // namespace dalembert::test
