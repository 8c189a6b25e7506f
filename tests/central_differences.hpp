#pragma once
// The derivative of a step by central differences, against which the methods' step_derivative
// (discrete/position_momentum_derivative.hpp) is checked on compiled models and on model files.
#include <algorithm>
#include <cmath>
#include <string>

#include <Eigen/Core>

#include "dalembert/model/projectors.hpp"
#include "dalembert/solve/step_driver.hpp"
#include "test_support.hpp"

namespace dalembert::test {

/// ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k) of `method`'s step from s by central differences, each entry of
/// (q_k, p_k) moved by `relative_step` of its size (at least that much), the difference taken of the
/// doubles reached; for a contact state, (q, p, z) throughout, for RK4's (q, v). A state that
/// carries the velocity beside the momentum (the methods written with the metric) gets
/// v_k = G(q_k)⁻¹p_k of the moved point (for `exact`, whose v_k only starts its Newton iteration, a
/// start as good).
template <class Method>
Eigen::MatrixXd step_by_central_differences(const Method& method, const typename Method::State& s,
                                            double relative_step = 1e-6) {
  constexpr bool contact = requires { s.z; };
  const int n = static_cast<int>(s.q.size()), size = 2 * n + (contact ? 1 : 0);
  const auto entry = [&](auto& state, int j) -> double& {
    if constexpr (contact) {
      if (j == 2 * n) return state.z;
    }
    return j < n ? state.q[j] : momentum_of(state)[j - n];
  };
  Eigen::MatrixXd D(size, size);
  for (int j = 0; j < size; ++j) {
    auto up = s, down = s;
    double& x_up = entry(up, j);
    double& x_down = entry(down, j);
    const double e = relative_step * std::max(1.0, std::abs(x_up));
    x_up += e;
    x_down -= e;
    const double width = x_up - x_down;
    if constexpr (requires { up.v; up.p; }) {
      up.v = metric_matrix(method.system(), up.q).partialPivLu().solve(up.p);
      down.v = metric_matrix(method.system(), down.q).partialPivLu().solve(down.p);
    }
    method.step(up);
    method.step(down);
    D.col(j).head(2 * n) << (up.q - down.q) / width, (momentum_of(up) - momentum_of(down)) / width;
    if constexpr (contact) D(2 * n, j) = (up.z - down.z) / width;
  }
  return D;
}

/// (δq_{k+1}, δp_{k+1}) of `method`'s step from s along the direction (δq_k, δp_k) = d (entries of
/// order one) by central differences with ±1e-6 d: the step derivative's product with d, at the cost
/// of two steps, where the whole matrix would cost 4n. A state that carries the velocity gets
/// v_k = G(q_k)⁻¹p_k of the moved point, as above.
template <class Method>
Eigen::VectorXd step_along_by_central_differences(const Method& method, const typename Method::State& s,
                                                  const Eigen::VectorXd& d) {
  const int n = static_cast<int>(s.q.size());
  const double e = 1e-6;
  auto up = s, down = s;
  up.q += e * d.head(n);
  down.q -= e * d.head(n);
  momentum_of(up) += e * d.tail(n);
  momentum_of(down) -= e * d.tail(n);
  if constexpr (requires { up.v; up.p; }) {
    up.v = metric_matrix(method.system(), up.q).partialPivLu().solve(up.p);
    down.v = metric_matrix(method.system(), down.q).partialPivLu().solve(down.p);
  }
  method.step(up);
  method.step(down);
  Eigen::VectorXd out(2 * n);
  out << (up.q - down.q) / (2 * e), (momentum_of(up) - momentum_of(down)) / (2 * e);
  return out;
}

/// The largest entry of `method`'s step derivative off the central differences, relative to the
/// largest entry, after `steps` steps from (q0, v0) (at t > 0, where a force of t differs from its
/// start); reported as step_derivative_<name>.
template <class Method, class Point>
double step_derivative_error(const std::string& name, const Method& method, const Point& q0, const Point& v0,
                             int steps = 3, double relative_step = 1e-6) {
  auto s = method.initial_state(q0, v0);
  for (int k = 0; k < steps; ++k) method.step(s);
  const Eigen::MatrixXd D = method.step_derivative(s);
  const Eigen::MatrixXd reference = step_by_central_differences(method, s, relative_step);
  const double error = (D - reference).cwiseAbs().maxCoeff() / D.cwiseAbs().maxCoeff();
  report("step_derivative_" + name, error);
  return error;
}

}  // namespace dalembert::test
