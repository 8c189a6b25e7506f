// The automatic-differentiation layer: first and second derivatives against closed forms,
// including nested duals mixed with plain double constants; linear solves in dual numbers.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <thread>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/model/constant_metric.hpp"
#include "dalembert/model/dynamics.hpp"
#include "dalembert/model/metric_derivatives.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/solve/dual_lu.hpp"

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

namespace {
/// 19 coordinates, unbounded: three chunks of sizes::chunk_width directions, the last one partial.
constexpr int kChunkedSize = 19;
Eigen::VectorXd chunked_point(double offset) {
  Eigen::VectorXd x(kChunkedSize);
  for (int i = 0; i < kChunkedSize; ++i) x[i] = offset + 0.13 * (i + 1) - 0.9;
  return x;
}

/// L_d(a, b) = Σ_i a_i² b_{(i+5) mod n} + a_i b_i on vectors of run-time size, without a bound: its
/// mixed derivative couples coordinates of different chunks.
struct CoupledDiscreteLagrangian {
  static constexpr int n = Eigen::Dynamic;
  int dimension() const { return kChunkedSize; }
  double step_size() const { return 0.1; }
  template <class T>
  T operator()(const Vec<T, Eigen::Dynamic>& a, const Vec<T, Eigen::Dynamic>& b) const {
    T sum = a[0] * b[0];
    for (int i = 0; i < kChunkedSize; ++i) sum += a[i] * a[i] * b[(i + 5) % kChunkedSize];
    for (int i = 1; i < kChunkedSize; ++i) sum += a[i] * b[i];
    return sum;
  }
};
}  // namespace

// At an unbounded run-time width the derivatives are taken a chunk of sizes::chunk_width directions at a
// time, with one evaluation per chunk (core/autodiff.hpp): every entry must be the closed form's,
// none shifted or dropped at a chunk's boundary.
TEST(AutoDiff, ChunkedDerivativesAtAnUnboundedWidthEqualTheClosedForms) {
  const int n = kChunkedSize;
  const Eigen::VectorXd x = chunked_point(0.0);
  // f(x) = sin(x_0 x_{n-1}) + Σ_i x_i² x_{i+1}
  double f = 0.0;
  Eigen::VectorXd g;
  ad::value_and_gradient<Eigen::Dynamic>(
      [n](const auto& y) {
        using D = typename std::decay_t<decltype(y)>::Scalar;
        using std::sin;
        D sum = sin(y[0] * y[n - 1]);
        for (int i = 0; i + 1 < n; ++i) sum += y[i] * y[i] * y[i + 1];
        return sum;
      },
      x, f, g);
  double f_expected = std::sin(x[0] * x[n - 1]);
  Eigen::VectorXd g_expected = Eigen::VectorXd::Zero(n);
  g_expected[0] += std::cos(x[0] * x[n - 1]) * x[n - 1];
  g_expected[n - 1] += std::cos(x[0] * x[n - 1]) * x[0];
  for (int i = 0; i + 1 < n; ++i) {
    f_expected += x[i] * x[i] * x[i + 1];
    g_expected[i] += 2 * x[i] * x[i + 1];
    g_expected[i + 1] += x[i] * x[i];
  }
  EXPECT_NEAR(f, f_expected, 1e-14);
  ASSERT_EQ(g.size(), n);
  EXPECT_LT((g - g_expected).cwiseAbs().maxCoeff(), 1e-14);

  // F_r(x) = x_r x_{(r+7) mod n} + exp(x_{(r+11) mod n})
  Eigen::VectorXd F;
  Eigen::MatrixXd J;
  ad::value_and_jacobian<Eigen::Dynamic, Eigen::Dynamic>(
      [n](const auto& y) {
        using D = typename std::decay_t<decltype(y)>::Scalar;
        using std::exp;
        Vec<D, Eigen::Dynamic> out(n);
        for (int r = 0; r < n; ++r) out[r] = y[r] * y[(r + 7) % n] + exp(y[(r + 11) % n]);
        return out;
      },
      x, F, J);
  Eigen::MatrixXd J_expected = Eigen::MatrixXd::Zero(n, n);
  double worst_value = 0.0;
  for (int r = 0; r < n; ++r) {
    J_expected(r, r) += x[(r + 7) % n];
    J_expected(r, (r + 7) % n) += x[r];
    J_expected(r, (r + 11) % n) += std::exp(x[(r + 11) % n]);
    worst_value = std::max(worst_value, std::abs(F[r] - (x[r] * x[(r + 7) % n] + std::exp(x[(r + 11) % n]))));
  }
  EXPECT_LT(worst_value, 1e-14);
  ASSERT_EQ(J.rows(), n);
  ASSERT_EQ(J.cols(), n);
  EXPECT_LT((J - J_expected).cwiseAbs().maxCoeff(), 1e-14);

  // the hyper-dual derivatives of a discrete Lagrangian, a pair of chunks at a time
  const Eigen::VectorXd a = x, b = chunked_point(0.05);
  const auto d = differentiate(CoupledDiscreteLagrangian{}, a, b);
  double value = 0.0;
  Eigen::VectorXd D1 = b, D2 = a;
  Eigen::MatrixXd D12 = Eigen::MatrixXd::Identity(n, n);
  for (int i = 0; i < n; ++i) {
    const int k = (i + 5) % n;
    value += a[i] * a[i] * b[k] + a[i] * b[i];
    D1[i] += 2 * a[i] * b[k];
    D2[k] += a[i] * a[i];
    D12(i, k) += 2 * a[i];
  }
  EXPECT_NEAR(d.value, value, 1e-14);
  EXPECT_LT((d.D1 - D1).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LT((d.D2 - D2).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LT((d.D12 - D12).cwiseAbs().maxCoeff(), 1e-14);
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

// ad::sin_cos remembers its last angle per thread; whatever the order of the calls, it must give
// std::sin and std::cos bit for bit: −0 is not +0 (whose sine is +0), and NaN stays NaN.
TEST(AutoDiff, SinCosRemembersItsLastAngleBitForBit) {
  const auto bits = [](double y) { return std::bit_cast<std::uint64_t>(y); };
  const auto check = [&](double x) {
    const auto r = ad::sin_cos(x);
    if (std::isnan(x)) {
      EXPECT_TRUE(std::isnan(r.sin) && std::isnan(r.cos));
    } else {
      EXPECT_EQ(bits(r.sin), bits(std::sin(x))) << x;
      EXPECT_EQ(bits(r.cos), bits(std::cos(x))) << x;
    }
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const double x : {0.0, -0.0, -0.0, 0.0, 1.1, 1.1, -1.1, 1.1, nan, nan, 1e300, 0.0, -0.0}) check(x);
  EXPECT_TRUE(std::signbit(ad::sin_cos(-0.0).sin));
  EXPECT_FALSE(std::signbit(ad::sin_cos(0.0).sin));

  // Two threads with their own angles, each repeating every angle: no thread sees the other's.
  const auto run = [&](double first, int* mismatches) {
    for (int k = 0; k < 20000; ++k) {
      const double x = first + 1e-3 * (k / 2);  // every angle twice in a row
      const auto r = ad::sin_cos(x);
      if (bits(r.sin) != bits(std::sin(x)) || bits(r.cos) != bits(std::cos(x))) ++*mismatches;
    }
  };
  int mismatches_a = 0, mismatches_b = 0;
  std::thread a(run, 0.25, &mismatches_a), b(run, -2.5, &mismatches_b);
  a.join();
  b.join();
  EXPECT_EQ(mismatches_a, 0);
  EXPECT_EQ(mismatches_b, 0);
}

// ad::sin_cos makes one libm call where sin and cos of a dual make one each per depth; it must
// give the same numbers bit for bit: values, first and second derivatives.
TEST(AutoDiff, SinCosEqualsSinAndCosAtEveryDepth) {
  using std::cos;
  using std::sin;
  const double x = 0.83;
  EXPECT_EQ(ad::sin_cos(x).sin, std::sin(x));
  EXPECT_EQ(ad::sin_cos(x).cos, std::cos(x));

  // An angle that depends on two variables, so that the derivative vectors are not unit vectors.
  using D1 = ad::Dual<double, 2>;
  const D1 a = 0.7 * ad::variable<2>(x, 0) - 1.3 * ad::variable<2>(-0.2, 1);
  const auto first = ad::sin_cos(a);
  const D1 s1 = sin(a), c1 = cos(a);
  EXPECT_EQ(first.sin.value(), s1.value());
  EXPECT_EQ(first.cos.value(), c1.value());
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(first.sin.derivatives()[i], s1.derivatives()[i]) << i;
    EXPECT_EQ(first.cos.derivatives()[i], c1.derivatives()[i]) << i;
  }

  using D2 = ad::Dual<D1, 2>;
  D2 b = ad::variable<2>(a, 0);
  b.derivatives()[1] = D1(0.4);  // ∂b/∂y = 0.4, a second direction at the outer level
  const auto second = ad::sin_cos(b);
  const D2 s2 = sin(b), c2 = cos(b);
  const auto same = [](const D1& p, const D1& q) {
    return p.value() == q.value() && p.derivatives() == q.derivatives();
  };
  EXPECT_TRUE(same(second.sin.value(), s2.value()));
  EXPECT_TRUE(same(second.cos.value(), c2.value()));
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(same(second.sin.derivatives()[i], s2.derivatives()[i])) << i;
    EXPECT_TRUE(same(second.cos.derivatives()[i], c2.derivatives()[i])) << i;
  }
  // And against the closed form: the outer derivative along b itself is cos a, whose derivative
  // along the inner direction x (a = 0.7 x − 1.3 y) is −0.7 sin a.
  EXPECT_NEAR(second.sin.derivatives()[0].derivatives()[0], -0.7 * std::sin(a.value()), 1e-15);
  EXPECT_NEAR(second.cos.derivatives()[0].derivatives()[1], 1.3 * std::cos(a.value()), 1e-15);
}

namespace {

/// One model with a constant metric, returned with double entries (MetricDerivatives then skips
/// the sums over ∂G) or in the scalar type (the general path, which sums the zeros).
template <bool DoubleEntries>
struct ConstantMetricModel : Mechanical<ConstantMetricModel<DoubleEntries>, 3> {
  static constexpr int n = 3, m = 0;
  template <class T>
  auto metric(const Vec<T, 3>&) const {
    if constexpr (DoubleEntries) {
      return Eigen::DiagonalMatrix<double, 3>(2.0, 3.0, 0.5);
    } else {
      Mat<T, 3, 3> G;
      G << T(2.0), T(0.0), T(0.0), T(0.0), T(3.0), T(0.0), T(0.0), T(0.0), T(0.5);
      return G;
    }
  }
  template <class T>
  T potential(const Vec<T, 3>& q) const {
    using std::cos;
    return 0.5 * q[0] * q[0] * q[1] + 1.5 * cos(q[2]);
  }
  template <class T>
  Mat<T, 0, 3> constraint_matrix(const Vec<T, 3>&) const {
    return {};
  }
};

/// The largest difference between two vectors of duals, values and derivatives.
template <class Dual>
double largest_difference(const Vec<Dual, 3>& a, const Vec<Dual, 3>& b) {
  double d = 0.0;
  for (int i = 0; i < 3; ++i) {
    d = std::max(d, std::abs(a[i].value() - b[i].value()));
    d = std::max(d, (a[i].derivatives() - b[i].derivatives()).template lpNorm<Eigen::Infinity>());
  }
  return d;
}

}  // namespace

TEST(AutoDiff, ConstantMetricDerivativesEqualTheGeneralPath) {
  // Through a Jacobian (duals along 3 directions at q, w, v, y): the terms of the discrete gradient
  // and McLachlan–Perlmutter, ∇V + ∂_q(½ wᵀG w) and Ω(v) y, and G itself, with and without the
  // sums over ∂G = 0. Every entry is a sum with the same nonzero terms, so they agree bit for bit.
  using Dual = Eigen::AutoDiffScalar<Vecd<3>>;
  using Constant = MetricDerivatives<ConstantMetricModel<true>, Dual>;
  using General = MetricDerivatives<ConstantMetricModel<false>, Dual>;
  static_assert(Constant::constant_metric && !General::constant_metric);
  const auto duals = [](double a, double b, double c, int first) {
    Vec<Dual, 3> x;
    const double values[3] = {a, b, c};
    for (int i = 0; i < 3; ++i) x[i] = Dual(values[i], Vecd<3>::Unit((first + i) % 3) * (1.0 + i));
    return x;
  };
  const Vec<Dual, 3> q = duals(0.7, -1.3, 2.1, 0), w = duals(0.4, 1.1, -0.6, 1), v = duals(-0.2, 0.9, 1.7, 2),
                     y = duals(1.5, -0.8, 0.3, 0);
  const Constant constant(ConstantMetricModel<true>{}, q);
  const General general(ConstantMetricModel<false>{}, q);
  for (const double sign : {1.0, -1.0}) {
    EXPECT_EQ(largest_difference(constant.potential_gradient_plus_half_quadratic(w, sign),
                                 general.potential_gradient_plus_half_quadratic(w, sign)),
              0.0);
  }
  EXPECT_EQ(largest_difference(constant.gyroscopic(v, y), general.gyroscopic(v, y)), 0.0);
  double metric_difference = 0.0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      metric_difference =
          std::max(metric_difference, std::abs(constant.metric()(i, j).value() - general.metric()(i, j).value()));
      EXPECT_EQ(constant.metric_derivative(i, j, 0).value(), 0.0);
    }
  EXPECT_EQ(metric_difference, 0.0);
  EXPECT_EQ(constant.potential().value(), general.potential().value());
  // ∇V of V = ½ q0² q1 + 1.5 cos(q2), the closed form, so that neither path is checked only against the other
  const Vec<Dual, 3> gradient = constant.potential_gradient_plus_half_quadratic(w);
  EXPECT_DOUBLE_EQ(gradient[0].value(), 0.7 * -1.3);
  EXPECT_DOUBLE_EQ(gradient[1].value(), 0.5 * 0.7 * 0.7);
  EXPECT_DOUBLE_EQ(gradient[2].value(), -1.5 * std::sin(2.1));
}

namespace {

/// A well-conditioned N × N matrix of values with a pivot to take (its first entry small).
template <int N>
Eigen::Matrix<double, N, N> value_matrix() {
  Eigen::Matrix<double, N, N> A;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) A(i, j) = std::sin(1.0 + 3 * i + 7 * j) + (i == j ? 3.0 : 0.0);
  A(0, 0) = 1e-3;
  return A;
}

/// A deterministic derivative entry.
double slope(int i, int j, int k) { return std::cos(0.5 + i + 2 * j + 5 * k); }

}  // namespace

// A solve in dual numbers from the value's factorisation, y_k = A0^-1 (b_k - A_k y0), against
// Eigen's LU run in dual arithmetic: the same numbers to round-off, at a fixed width and at a
// run-time width where a constant entry of b stores no derivatives (zeros), at the smallest size
// that takes this way (sizes::value_factorised_lu). A wrong sign of A_k y0 is off by the size of y.
TEST(DualLU, EqualsTheLuInDualArithmetic) {
  constexpr int N = sizes::value_factorised_lu;
  const Eigen::Matrix<double, N, N> A0 = value_matrix<N>();
  using D = ad::Dual<double, 3>;
  Eigen::Matrix<D, N, N> A;
  Eigen::Matrix<D, N, 2> b;
  using Dd = ad::Dual<double, Eigen::Dynamic>;
  Eigen::Matrix<Dd, Eigen::Dynamic, Eigen::Dynamic> Ad(N, N);
  Eigen::Matrix<Dd, Eigen::Dynamic, 1> bd(N);
  for (int i = 0; i < N; ++i) {
    for (int j = 0; j < N; ++j) {
      A(i, j) = D(A0(i, j), Eigen::Vector3d(slope(i, j, 0), slope(i, j, 1), slope(i, j, 2)));
      Ad(i, j) = Dd(A0(i, j), Eigen::VectorXd(Eigen::Vector3d(slope(i, j, 0), slope(i, j, 1), slope(i, j, 2))));
    }
    for (int c = 0; c < 2; ++c) b(i, c) = D(1.0 + i - c, Eigen::Vector3d(slope(i, c, 3), slope(i, c, 4), 0.0));
    bd[i] = i == 2 ? Dd(0.5, Eigen::VectorXd()) : Dd(1.0 + i, Eigen::VectorXd(Eigen::Vector3d(slope(i, 0, 3), 0, 1)));
  }
  const auto largest_difference = [](const auto& x, const auto& y) {
    double e = 0.0;
    for (Eigen::Index i = 0; i < x.size(); ++i) {
      e = std::max(e, std::abs(x(i).value() - y(i).value()));
      for (Eigen::Index k = 0; k < 3; ++k) e = std::max(e, std::abs(ad::derivative(x(i), k) - ad::derivative(y(i), k)));
    }
    return e;
  };
  const Eigen::Matrix<D, N, 2> y = DualLU<Eigen::Matrix<D, N, N>>(A).solve(b);
  const Eigen::Matrix<D, N, 2> reference = A.partialPivLu().solve(b);
  EXPECT_LT(largest_difference(y, reference), 1e-12);
  EXPECT_GT(std::abs(y(0, 0).value()), 0.1);
  const Eigen::Matrix<Dd, Eigen::Dynamic, 1> yd = dual_lu(Ad).solve(bd);
  ASSERT_EQ(yd[2].derivatives().size(), 3);
  // Eigen's dual LU pads the constant's missing derivatives with zeros in mixed operations only, so
  // the reference pads them first
  Eigen::Matrix<Dd, Eigen::Dynamic, 1> padded = bd;
  padded[2].derivatives() = Eigen::VectorXd::Zero(3);
  const Eigen::Matrix<Dd, Eigen::Dynamic, 1> reference_d = Ad.partialPivLu().solve(padded);
  EXPECT_LT(largest_difference(yd, reference_d), 1e-12);
}

namespace {
/// The largest error of DualLU's solve of A y = b, with A = A0 + A1 ε and b = b0 + b1 ε, b0 zero
/// but in its last entry, against y0 = A0⁻¹b0, y1 = A0⁻¹(b1 − A1 y0) from the doubles' LU.
template <int Rows, int MaxRows>
double zero_entries_solve_error(int n) {
  using D = ad::Dual<double, 1>;
  const Eigen::MatrixXd A0 = Eigen::MatrixXd::Identity(n, n) * 3.0 + Eigen::MatrixXd::Constant(n, n, 0.25);
  Eigen::MatrixXd A1(n, n);
  Eigen::VectorXd b0 = Eigen::VectorXd::Zero(n), b1(n);
  b0[n - 1] = 0.5;
  for (int i = 0; i < n; ++i) {
    b1[i] = slope(i, 0, 1);
    for (int j = 0; j < n; ++j) A1(i, j) = slope(i, j, 2);
  }
  Eigen::Matrix<D, Rows, Rows, 0, MaxRows, MaxRows> A(n, n);
  Eigen::Matrix<D, Rows, 1, 0, MaxRows, 1> b(n);
  for (int i = 0; i < n; ++i) {
    b[i] = D(b0[i], Vecd<1>(b1[i]));
    for (int j = 0; j < n; ++j) A(i, j) = D(A0(i, j), Vecd<1>(A1(i, j)));
  }
  const Eigen::Matrix<D, Rows, 1, 0, MaxRows, 1> y = DualLU<decltype(A)>(A).solve(b);
  const Eigen::VectorXd y0 = A0.partialPivLu().solve(b0), y1 = A0.partialPivLu().solve(b1 - A1 * y0);
  double error = 0.0;
  for (int i = 0; i < n; ++i)
    error = std::max({error, std::abs(y[i].value() - y0[i]), std::abs(ad::derivative(y[i], 0) - y1[i])});
  return error;
}
}  // namespace

// A right-hand side whose entries have the value zero but derivatives: Eigen's triangular solve of
// a vector of a size not known at compile time to be at most 8 skips such an entry and loses its
// derivatives (they were off by their size, and a model file's acceleration Jacobian with them on
// a straight sliding sleigh); DualLU keeps them at every kind of size.
TEST(DualLU, KeepsTheDerivativesOfEntriesWhoseValueIsZero) {
  EXPECT_LT((zero_entries_solve_error<3, 3>(3)), 1e-14);                            // Eigen's, unrolled
  EXPECT_LT((zero_entries_solve_error<Eigen::Dynamic, 8>(5)), 1e-14);                // bounded
  EXPECT_LT((zero_entries_solve_error<Eigen::Dynamic, Eigen::Dynamic>(3)), 1e-14);   // run time
  EXPECT_LT((zero_entries_solve_error<12, 12>(12)), 1e-14);                          // fixed, not unrolled
  EXPECT_LT((zero_entries_solve_error<Eigen::Dynamic, Eigen::Dynamic>(20)), 1e-14);  // value factorised
}

// A matrix of doubles of at most sizes::small_lu_max rows, fixed at compile time, is factorised by
// SmallLU: against Eigen's PartialPivLU with two right-hand sides, one row included, where the
// first pivot must be exchanged (A(0, 0) = 1e-3). A row exchange forgotten in the substitution is
// off by the size of y.
template <int N>
void expect_small_double_lu_equals_eigens() {
  const Eigen::Matrix<double, N, N> A = value_matrix<N>();
  Eigen::Matrix<double, N, 2> b;
  for (int i = 0; i < N; ++i)
    for (int c = 0; c < 2; ++c) b(i, c) = 1.0 + i - 2 * c;
  const Eigen::Matrix<double, N, 2> y = DualLU<Eigen::Matrix<double, N, N>>(A).solve(b);
  const Eigen::Matrix<double, N, 2> reference = A.partialPivLu().solve(b);
  EXPECT_LT((y - reference).cwiseAbs().maxCoeff(), 1e-13 * reference.cwiseAbs().maxCoeff()) << N << " rows";
  EXPECT_GT(reference.cwiseAbs().maxCoeff(), 1.0) << N << " rows";
}
TEST(DualLU, SmallMatricesOfDoublesEqualEigensLu) {
  expect_small_double_lu_equals_eigens<1>();
  expect_small_double_lu_equals_eigens<3>();
  expect_small_double_lu_equals_eigens<sizes::small_lu_max>();
}

// A metric constant at run time (a model file's, model/constant_metric.hpp), evaluated and
// factorised once: its product over the entries that are not zero is G w, its solve G⁻¹ b, for w
// and b of doubles and of dual numbers (values and derivatives), to round-off. G is not symmetric
// and has zeros, so that a row taken for a column or a skipped entry shows.
TEST(ConstantMetric, ProductAndSolveAreGsForDoublesAndDuals) {
  Eigen::MatrixXd G(3, 3);
  G << 2.0, 0.5, 0.0, 0.25, 3.0, 0.0, 0.0, -1.0, 1.5;
  const ConstantMetric<Eigen::MatrixXd> metric(G);
  const Eigen::VectorXd w = Eigen::Vector3d(0.7, -1.3, 2.1);
  const Eigen::VectorXd Gw = G * w;
  EXPECT_LT((metric.product(w) - Gw).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_LT((G * metric.solve(w) - w).cwiseAbs().maxCoeff(), 1e-14);
  EXPECT_GT(Gw.cwiseAbs().minCoeff(), 0.1);
  using D = ad::Dual<double, Eigen::Dynamic>;
  Eigen::Matrix<D, Eigen::Dynamic, 1> wd(3);
  for (int i = 0; i < 3; ++i) wd[i] = D(w[i], Eigen::VectorXd(Eigen::Vector2d(0.1 * (i + 1), -0.4 + i)));
  const Eigen::Matrix<D, Eigen::Dynamic, 1> product = metric.product(wd), solution = metric.solve(wd);
  double product_error = 0.0, solve_error = 0.0;
  for (int k = -1; k < 2; ++k) {  // the values, then each derivative
    Eigen::VectorXd part(3), product_part(3), solution_part(3);
    for (int i = 0; i < 3; ++i) {
      part[i] = k < 0 ? wd[i].value() : wd[i].derivatives()[k];
      product_part[i] = k < 0 ? product[i].value() : product[i].derivatives()[k];
      solution_part[i] = k < 0 ? solution[i].value() : solution[i].derivatives()[k];
    }
    product_error = std::max(product_error, (product_part - G * part).cwiseAbs().maxCoeff());
    solve_error = std::max(solve_error, (G * solution_part - part).cwiseAbs().maxCoeff());
  }
  EXPECT_LT(product_error, 1e-14);  // entries of size about 5: a few units in their last place
  EXPECT_LT(solve_error, 1e-14);
  EXPECT_EQ(product[2].derivatives().size(), 2);
}

// Nested duals (the hyper-duals of second derivatives), where Eigen's LU does not compile, at any
// size: the residual A y - b vanishes in every part, values, first and second derivatives, to
// round-off.
TEST(DualLU, SolvesNestedDualsExactly) {
  const Eigen::Matrix<double, 5, 5> A0 = value_matrix<5>();
  using D = ad::Dual<double, 2>;
  using DD = ad::Dual<D, 3>;
  const auto nested = [](double value, int i, int j) {
    Eigen::Matrix<D, 3, 1> outer;
    for (int k = 0; k < 3; ++k) outer[k] = D(slope(i, j, k), Eigen::Vector2d(slope(j, i, k + 3), slope(i, i, k)));
    return DD(D(value, Eigen::Vector2d(slope(i, j, 6), slope(i, j, 7))), outer);
  };
  Eigen::Matrix<DD, 5, 5> A;
  Eigen::Matrix<DD, 5, 1> b;
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 5; ++j) A(i, j) = nested(A0(i, j), i, j);
    b[i] = nested(1.0 + i, i, 9);
  }
  const Eigen::Matrix<DD, 5, 1> y = DualLU<Eigen::Matrix<DD, 5, 5>>(A).solve(b);
  const Eigen::Matrix<DD, 5, 1> residual = A * y - b;
  double largest = 0.0, size = 0.0;
  for (int i = 0; i < 5; ++i) {
    const auto parts = [](const DD& x, auto&& f) {
      f(x.value().value());
      for (int k = 0; k < 2; ++k) f(x.value().derivatives()[k]);
      for (int l = 0; l < 3; ++l) {
        f(x.derivatives()[l].value());
        for (int k = 0; k < 2; ++k) f(x.derivatives()[l].derivatives()[k]);
      }
    };
    parts(residual[i], [&](double r) { largest = std::max(largest, std::abs(r)); });
    parts(y[i], [&](double r) { size = std::max(size, std::abs(r)); });
  }
  EXPECT_LT(largest, 1e-12 * size);
  EXPECT_GT(size, 1.0);
}

// A constant matrix of doubles against right-hand sides of dual numbers (ConstantLU): the value and
// each derivative solved as columns of one solve, so A y - b vanishes in every part to round-off, at
// a fixed width (two right-hand sides), at a run-time width where a constant entry stores no
// derivatives (zeros), and for nested duals; and the same numbers as DualLU of the matrix in duals
// with zero derivatives. A derivative put in the wrong column leaves a residual of the size of b.
TEST(ConstantLU, SolvesTheValueAndEachDerivative) {
  constexpr int N = 6;
  const Eigen::Matrix<double, N, N> A0 = value_matrix<N>();
  const ConstantLU<Eigen::Matrix<double, N, N>> lu(A0);
  const auto largest_residual = [&](const auto& y, const auto& b, auto&& parts) {
    using Scalar = typename std::decay_t<decltype(y)>::Scalar;
    const auto residual = (A0.cast<Scalar>() * y - b).eval();
    double largest = 0.0, size = 0.0;
    for (Eigen::Index i = 0; i < residual.size(); ++i) {
      parts(residual(i), [&](double r) { largest = std::max(largest, std::abs(r)); });
      parts(b(i), [&](double r) { size = std::max(size, std::abs(r)); });
    }
    EXPECT_GT(size, 0.5);
    return largest / size;
  };
  using D = ad::Dual<double, 3>;
  const auto first_order = [](const auto& x, auto&& f) {
    f(x.value());
    for (Eigen::Index k = 0; k < x.derivatives().size(); ++k) f(x.derivatives()[k]);
  };
  Eigen::Matrix<D, N, 2> b;
  for (int i = 0; i < N; ++i)
    for (int c = 0; c < 2; ++c) b(i, c) = D(1.0 + i - c, Eigen::Vector3d(slope(i, c, 3), slope(i, c, 4), 1.0));
  const Eigen::Matrix<D, N, 2> y = lu.solve(b);
  EXPECT_LT(largest_residual(y, b, first_order), 1e-13);
  const Eigen::Matrix<D, N, 2> in_duals = DualLU<Eigen::Matrix<D, N, N>>(A0.cast<D>()).solve(b);
  for (int i = 0; i < N; ++i)
    for (int c = 0; c < 2; ++c) {
      EXPECT_NEAR(y(i, c).value(), in_duals(i, c).value(), 1e-14);
      for (int k = 0; k < 3; ++k) EXPECT_NEAR(y(i, c).derivatives()[k], in_duals(i, c).derivatives()[k], 1e-14);
    }

  using Dd = ad::Dual<double, Eigen::Dynamic>;
  Eigen::Matrix<Dd, N, 1> bd;
  for (int i = 0; i < N; ++i)
    bd[i] = i == 2 ? Dd(0.5, Eigen::VectorXd()) : Dd(1.0 + i, Eigen::VectorXd(Eigen::Vector3d(slope(i, 0, 3), 0, 1)));
  const Eigen::Matrix<Dd, N, 1> yd = lu.solve(bd);
  ASSERT_EQ(yd[2].derivatives().size(), 3);
  Eigen::Matrix<Dd, N, 1> padded = bd;  // the product A y pads nothing: the reference stores zeros
  padded[2].derivatives() = Eigen::VectorXd::Zero(3);
  EXPECT_LT(largest_residual(yd, padded, first_order), 1e-13);

  using DD = ad::Dual<D, 2>;
  Eigen::Matrix<DD, N, 1> bn;
  for (int i = 0; i < N; ++i) {
    Eigen::Matrix<D, 2, 1> outer;
    for (int k = 0; k < 2; ++k) outer[k] = D(slope(i, k, 5), Eigen::Vector3d(slope(k, i, 6), slope(i, i, k), 0.25));
    bn[i] = DD(D(1.0 + i, Eigen::Vector3d(slope(i, 1, 7), slope(i, 2, 8), -1.0)), outer);
  }
  const Eigen::Matrix<DD, N, 1> yn = lu.solve(bn);
  const auto nested = [&](const DD& x, auto&& f) {
    first_order(x.value(), f);
    for (int l = 0; l < 2; ++l) first_order(x.derivatives()[l], f);
  };
  EXPECT_LT(largest_residual(yn, bn, nested), 1e-13);

  // One coordinate (the harmonic oscillator): the value and its derivatives are one row.
  const ConstantLU<Eigen::Matrix<double, 1, 1>> scalar(Eigen::Matrix<double, 1, 1>(4.0));
  const Eigen::Matrix<D, 1, 1> y1 = scalar.solve(Eigen::Matrix<D, 1, 1>(D(2.0, Eigen::Vector3d(1.0, -8.0, 0.5))));
  EXPECT_EQ(y1[0].value(), 0.5);
  EXPECT_EQ(y1[0].derivatives(), Eigen::Vector3d(0.25, -2.0, 0.125));
}
