// The automatic-differentiation layer: first and second derivatives against closed forms,
// including nested duals mixed with plain double constants.
#include <gtest/gtest.h>

#include <cmath>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/model/dynamics.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"

using namespace dalembert;

TEST(AutoDiff, GradientOfAScalarFunction) {
  const Vecd<2> x(0.3, -1.2);
  double f;
  Vecd<2> g;
  ad::value_and_gradient<2>([](const auto& y) { using std::sin; return sin(y[0]) * y[1] * y[1] + 2.0 * y[0]; }, x, f, g);
  EXPECT_NEAR(f, std::sin(0.3) * 1.44 + 0.6, 1e-15);
  EXPECT_NEAR(g[0], std::cos(0.3) * 1.44 + 2.0, 1e-15);
  EXPECT_NEAR(g[1], std::sin(0.3) * 2 * (-1.2), 1e-15);
}

TEST(AutoDiff, JacobianOfAVectorFunction) {
  const Vecd<2> x(0.5, 2.0);
  Vecd<3> f;
  Matd<3, 2> J;
  ad::value_and_jacobian<2, 3>(
      [](const auto& y) {
        using D = typename std::decay_t<decltype(y)>::Scalar;
        using std::exp;
        return Vec<D, 3>(y[0] * y[1], exp(y[0]), 3.0 * y[1]);
      },
      x, f, J);
  Matd<3, 2> expected;
  expected << 2.0, 0.5, std::exp(0.5), 0.0, 0.0, 3.0;
  EXPECT_LT((J - expected).norm(), 1e-15);
  EXPECT_NEAR(f[1], std::exp(0.5), 1e-15);
}

TEST(AutoDiff, MixedSecondDerivativeOfADiscreteLagrangian) {
  // L_d(q0, q1) = q0² q1 + sin(q0 q1)/2: ∂²/∂q0∂q1 = 2 q0 + (cos(q0 q1) − q0 q1 sin(q0 q1))/2.
  const auto ld = make_discrete_lagrangian<1>(0.1, [](const auto& a, const auto& b) {
    using std::sin;
    return a[0] * a[0] * b[0] + 0.5 * sin(a[0] * b[0]);
  });
  const double a = 0.7, b = -0.4, ab = a * b;
  const auto d = differentiate(ld, Vecd<1>(a), Vecd<1>(b));
  EXPECT_NEAR(d.value, a * a * b + 0.5 * std::sin(ab), 1e-15);
  EXPECT_NEAR(d.D1[0], 2 * a * b + 0.5 * b * std::cos(ab), 1e-15);
  EXPECT_NEAR(d.D2[0], a * a + 0.5 * a * std::cos(ab), 1e-15);
  EXPECT_NEAR(d.D12(0, 0), 2 * a + 0.5 * (std::cos(ab) - ab * std::sin(ab)), 1e-15);
}

TEST(AutoDiff, LagrangianHessianBlocksOfTheSleighMatchItsMetric) {
  // L = ½ vᵀG(q)v: W = G(q) and B(i, j) = Σ_k ∂_j G_ik v_k.
  const models::ChaplyginSleigh sleigh;
  const Vecd<3> q(0.1, -0.3, 0.8), v(0.4, 1.1, -0.6);
  const auto d = lagrangian_derivatives(sleigh, q, v);
  const Matd<3, 3> G = sleigh.metric<double>(q);
  EXPECT_LT((d.W - G).norm(), 1e-14);
  EXPECT_LT((d.Lv - G * v).norm(), 1e-14);
  const double ma = sleigh.mass * sleigh.offset, s = std::sin(q[2]), c = std::cos(q[2]);
  Matd<3, 3> dG;  // ∂G/∂θ
  dG << 0, 0, -ma * c, 0, 0, -ma * s, -ma * c, -ma * s, 0;
  Matd<3, 3> B = Matd<3, 3>::Zero();
  B.col(2) = dG * v;
  EXPECT_LT((d.B - B).norm(), 1e-14);
  EXPECT_NEAR(d.Lq[2], 0.5 * v.dot(dG * v), 1e-14);
}
