#pragma once
// A double pendulum for the tests (unit masses and lengths, g = 1): two unconstrained coordinates
// with a metric that depends on the configuration, G = [[2, cos(θ1 − θ2)], [cos(θ1 − θ2), 1]],
// and V = −2 cos θ1 − cos θ2 + c θ1² θ2 (c = 0 is the pendulum; c ≠ 0 makes V's Hessian depend on q
// in every entry).
#include <cmath>

#include "dalembert/model/model.hpp"

namespace dalembert::test {

struct DoublePendulum : Mechanical<DoublePendulum, 2> {
  static constexpr int n = 2, m = 0;
  double cubic = 0.0;  ///< c
  template <class T>
  Mat<T, 2, 2> metric(const Vec<T, 2>& q) const {
    using std::cos;
    const T c = cos(q[0] - q[1]);
    Mat<T, 2, 2> G;
    G << T(2.0), c, c, T(1.0);
    return G;
  }
  template <class T>
  T potential(const Vec<T, 2>& q) const {
    using std::cos;
    return -2.0 * cos(q[0]) - cos(q[1]) + cubic * q[0] * q[0] * q[1];
  }
  template <class T>
  Mat<T, 0, 2> constraint_matrix(const Vec<T, 2>&) const {
    return {};
  }
};

}  // namespace dalembert::test
