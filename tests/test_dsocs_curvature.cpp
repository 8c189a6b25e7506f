// DSOCS on the particle with prescribed curvature (Borda–Fernández–Grillo, [BFG13]
// Ex. 4.1): anchors with the paper's data, the closed-form step and the exact discrete circle, the discrete energy
// property, h-independence and reversibility, Theorem 5.3, and the measured orders with the paper's
// forward-Euler start and with the second-order start.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "dalembert/models/curvature_particle.hpp"
#include "dsocs_support.hpp"
#include "test_support.hpp"

using namespace dalembert;
using models::CurvatureParticle;

namespace {

SecondOrderMethodOptions paper_start() {
  SecondOrderMethodOptions o;
  o.start = SecondOrderStart::forward_euler;  // q1 = q0 + h v0, as the paper
  return o;
}

/// A curvature depending on the position (for checks of our own beyond the paper's constant k).
struct VaryingCurvature : CurvatureParticle {
  double c0 = 1.0, cx = 0.0, cy = 0.0, cy2 = 0.0, csin = 0.0;
  template <class T>
  Vec<T, 1> kinematic_constraint(const Vec<T, 2>& q, const Vec<T, 2>& v, const Vec<T, 2>& a) const {
    using std::sin;
    using std::sqrt;
    const T speed = sqrt(v.squaredNorm());
    const T k = c0 + cx * q[0] + cy * q[1] + cy2 * q[1] * q[1] + csin * sin(q[0]);
    return Vec<T, 1>((v[0] * a[1] - a[0] * v[1]) / (speed * speed * speed) - k);
  }
  double k(const Vecd<2>& q) const { return c0 + cx * q[0] + cy * q[1] + cy2 * q[1] * q[1] + csin * std::sin(q[0]); }
};

/// Our closed-form step: q2 = q1 + Rot(φ)(q1 − q0), φ = 2 asin(κs / (1 + √(1 + κ²s²))).
Vecd<2> closed_form_step(const Vecd<2>& q0, const Vecd<2>& q1, double kappa) {
  const double s = (q1 - q0).norm();
  const double phi = 2.0 * std::asin(kappa * s / (1.0 + std::sqrt(1.0 + kappa * kappa * s * s)));
  return q1 + Eigen::Rotation2D<double>(phi) * (q1 - q0);
}

/// The exact discrete solution of the paper's test case (our derivation): q_k = c_d + R_d (cos, sin)(α0 + kφ).
struct DiscreteCircle {
  double R, phi;
  Vecd<2> centre;
  double alpha0;
  explicit DiscreteCircle(double h) {
    const double root = std::sqrt(1.0 + 2.0 * h * h);
    R = (1.0 + root) / 2.0;
    phi = 2.0 * std::asin(std::sqrt(2.0) * h / (1.0 + root));
    centre = Vecd<2>(h / 2, h / 2) + std::sqrt(R * R - h * h / 2) * Vecd<2>(-1.0, 1.0) / std::sqrt(2.0);
    alpha0 = std::atan2(-centre[1], -centre[0]);
  }
  Vecd<2> at(long k) const {
    const double angle = alpha0 + static_cast<double>(k) * phi;
    return centre + R * Vecd<2>(std::cos(angle), std::sin(angle));
  }
};

/// max_k |x_k − x(t_k)| over [0, T] (the paper's error, [BFG13] §4.1.2), for the paper's data.
double max_x_error(double h, long steps, const SecondOrderMethodOptions& options) {
  const CurvatureParticle p;
  const auto x0 = p.default_initial();
  const auto method = make_dsocs(p, h, options);
  auto s = method.initial_state(x0.q, x0.v);
  double worst = 0.0;
  for (long k = 0; k < steps; ++k) {
    method.step(s);
    worst = std::max(worst, std::abs(s.q[0] - p.exact_solution(x0, s.t)->q[0]));
  }
  return worst;
}

}  // namespace

TEST(DsocsCurvature, PaperFirstStepsAndTheGenericStepEqualsTheClosedForm) {
  // independent reference anchors at h = 0.1 with the paper's start x1 = x0 + h, y1 = y0 + h
  const CurvatureParticle p;
  const auto x0 = p.default_initial();
  const auto q = test::dsocs_trajectory(make_dsocs(p, 0.1, paper_start()), x0.q, x0.v, 5);
  EXPECT_LT((q[1] - Vecd<2>(0.1, 0.1)).lpNorm<Eigen::Infinity>(), 1e-16);
  EXPECT_LT((q[2] - Vecd<2>(0.184972629448873, 0.213047123999439)).lpNorm<Eigen::Infinity>(), 1e-14);
  EXPECT_LT((q[3] - Vecd<2>(0.253235220782078, 0.336902760223536)).lpNorm<Eigen::Infinity>(), 1e-14);
  EXPECT_LT((q[4] - Vecd<2>(0.303436006388646, 0.469114261706892)).lpNorm<Eigen::Infinity>(), 1e-14);
  EXPECT_LT((q[5] - Vecd<2>(0.334580886942684, 0.607063514750447)).lpNorm<Eigen::Infinity>(), 1e-14);

  VaryingCurvature varying;  // k = 1 + 0.5 sin x
  varying.csin = 0.5;
  const auto w = test::dsocs_trajectory(make_dsocs(varying, 0.1, paper_start()), x0.q, x0.v, 5);
  EXPECT_LT((w[2] - Vecd<2>(0.184182851754621, 0.213636470688153)).lpNorm<Eigen::Infinity>(), 1e-14);
  EXPECT_LT((w[5] - Vecd<2>(0.318459690977767, 0.612299457226651)).lpNorm<Eigen::Infinity>(), 1e-14);

  // the Newton step on (6), (7) against the closed form at random pairs and curvatures
  std::mt19937 rng(41);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double worst = 0.0;
  for (int i = 0; i < 200; ++i) {
    varying.c0 = 2 * u(rng);
    varying.cx = u(rng);
    varying.csin = 0.0;
    const auto method = make_dsocs(varying, 0.05, paper_start());
    const Vecd<2> a(u(rng), u(rng)), b = a + 0.2 * Vecd<2>(u(rng), u(rng));
    Vecd<2> c = 2.0 * b - a;
    ASSERT_TRUE(method.solve(a, b, Branch::literal, c).converged);
    worst = std::max(worst, (c - closed_form_step(a, b, varying.k(b))).lpNorm<Eigen::Infinity>());
  }
  EXPECT_LT(worst, 1e-14);
}

TEST(DsocsCurvature, TrajectoryIsTheDiscreteUnitCircleThroughTheOriginTangentToSlopeOne) {
  const CurvatureParticle p;
  const auto x0 = p.default_initial();
  // independent reference values at h = 0.1
  const DiscreteCircle circle(0.1);
  EXPECT_NEAR(circle.R, 1.004975246918, 1e-12);
  EXPECT_NEAR(circle.phi, 0.140837602259, 1e-12);
  EXPECT_NEAR(circle.centre[0], -0.6588636141, 1e-10);
  EXPECT_NEAR(circle.centre[1], 0.7588636141, 1e-10);
  // the paper's circle: centre (−√2/2, √2/2), radius 1, through the origin with slope 1 there;
  // the discrete one is off by the start's O(h) centre shift ≈ (h/2, h/2) and R_d − 1 ≈ h²/2
  const Vecd<2> centre(-std::sqrt(0.5), std::sqrt(0.5));
  EXPECT_NEAR((circle.centre - centre - Vecd<2>(0.05, 0.05)).norm(), 0.0, 0.003);
  EXPECT_NEAR(circle.R - 1.0, 0.5 * 0.1 * 0.1, 3e-5);
  EXPECT_NEAR((circle.centre - x0.q).norm(), circle.R, 1e-15);  // through the origin

  for (double h : {0.1, 0.01}) {
    const long steps = std::lround(500 / h);
    const auto q = test::dsocs_trajectory(make_dsocs(p, h, paper_start()), x0.q, x0.v, steps);
    const DiscreteCircle exact(h);
    double worst = 0.0, radius = 0.0;
    for (long k = 0; k <= steps; ++k) {
      worst = std::max(worst, (q[k] - exact.at(k)).lpNorm<Eigen::Infinity>());
      radius = std::max(radius, std::abs((q[k] - exact.centre).norm() - exact.R));
    }
    // no change in amplitude or frequency over [0, 500] (independent check: 6e-12 at h = 0.1, 3e-10 at h = 0.01)
    EXPECT_LT(worst, 1e-9) << "h = " << h;
    EXPECT_LT(radius, 1e-11) << "h = " << h;
    EXPECT_NEAR((q[1] - q[0]).normalized().dot(Vecd<2>(1, 1).normalized()), 1.0, 1e-15);  // slope 1
  }
}

TEST(DsocsCurvature, DiscreteEnergyIsConservedToRoundOff) {
  // (7) ⟺ |q2 − q1| = |q1 − q0|, so L_d(q0, q1) = L_d(q1, q2) ([BFG13] §4.1.2)
  const CurvatureParticle p;
  const auto x0 = p.default_initial();
  const double h = 0.1;
  const auto method = make_dsocs(p, h, paper_start());
  const auto& ds = method.discrete_system();
  const long steps = 500000;
  auto s = method.initial_state(x0.q, x0.v);
  method.step(s);
  const double L0 = ds.lagrangian<double>(s.previous, s.q);
  double per_step = 0.0, drift = 0.0;
  for (long k = 1; k < steps; ++k) {
    const double before = ds.lagrangian<double>(s.previous, s.q);
    method.step(s);
    const double after = ds.lagrangian<double>(s.previous, s.q);
    per_step = std::max(per_step, std::abs(after - before) / L0);
    drift = std::max(drift, std::abs(after - L0) / L0);
  }
  EXPECT_LT(per_step, 1e-14);  // measured 2.4e-15
  EXPECT_LT(drift, 1e-11);     // measured 3.1e-13 after 500000 steps (an independent run: ≤ 3e-11)
  EXPECT_NEAR(L0, 1.0, 1e-15);  // ½ |(h, h)|² / h²
}

TEST(DsocsCurvature, StepMapIsIndependentOfHAndReversible) {
  VaryingCurvature p;  // our choice: k = 1 + 0.3x − 0.2y²
  p.cx = 0.3;
  p.cy2 = -0.2;
  const Vecd<2> q0(0.1, -0.2), q1(0.17, -0.13);
  Vecd<2> a = 2.0 * q1 - q0, b = a;
  ASSERT_TRUE(make_dsocs(p, 0.1, paper_start()).solve(q0, q1, Branch::literal, a).converged);
  ASSERT_TRUE(make_dsocs(p, 0.37, paper_start()).solve(q0, q1, Branch::literal, b).converged);
  EXPECT_LT((a - b).lpNorm<Eigen::Infinity>(), 1e-15);  // h cancels from (6), (7) for h > 0

  // each step is undone by the step with −h ...
  const auto backward_varying = make_dsocs(p, -0.1, paper_start());
  Vecd<2> back = 2.0 * q1 - a;
  ASSERT_TRUE(backward_varying.solve(a, q1, Branch::literal, back).converged);
  EXPECT_LT((back - q0).lpNorm<Eigen::Infinity>(), 1e-15);

  // ... and for the paper's k = 1, 2000 steps forward and 2000 back from (q_N, q_{N−1}) recover (q0, q1)
  const CurvatureParticle circle;
  const double h = 0.1;
  const auto forward = make_dsocs(circle, h, paper_start());
  const auto backward = make_dsocs(circle, -h, paper_start());
  auto s = forward.initial_state_two_point(q0, q1);
  for (int k = 0; k < 2000; ++k) forward.step(s);
  auto r = backward.initial_state_two_point(s.q, s.previous);
  for (int k = 0; k < 2000; ++k) backward.step(r);
  EXPECT_LT((r.q - q0).lpNorm<Eigen::Infinity>(), 1e-12);  // independent run: 3e-13
  EXPECT_LT((r.previous - q1).lpNorm<Eigen::Infinity>(), 1e-12);
}

TEST(DsocsCurvature, Theorem53HoldsAndTheFlowIsNotSymplectic) {
  VaryingCurvature p;
  p.cx = 0.3;
  p.cy2 = -0.2;
  const auto method = make_dsocs(p, 0.1, paper_start());
  const auto defect = test::theorem_5_3(method, Vecd<2>(0.0, 0.0), Vecd<2>(0.1, 0.1));
  EXPECT_LT(defect.identity_mismatch, 1e-8);  // measured 2.7e-11 with central differences
  EXPECT_GT(defect.non_symplecticity, 10.0);  // entries of order 40 (m = 1, h = 0.1)
}

// The paper's error metric (max x error over [0, 500], forward-Euler start) reproduces its slope
// ≈ 1.6 ([BFG13] §4.1.2), but that slope mixes the O(h) centre shift of the start with the O(h² T)
// phase drift of the scheme; it is not an order.
TEST(DsocsCurvature, KnownShortfall_PaperStartAndMetricGiveTheSlope1_6) {
  std::vector<double> errors;
  const double slope = test::measured_order(
      500.0, {10000, 25000, 50000, 100000, 250000, 500000},
      [](double h, long N) { return max_x_error(h, N, paper_start()); }, &errors);
  const double table[] = {0.1416, 0.04147, 0.01339, 0.003590, 0.001501};  // computed independently, h = 0.02 ... 0.001
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(errors[i + 1], table[i], 0.01 * table[i]) << i;
  EXPECT_NEAR(errors[0], 0.7756, 0.01 * 0.7756);  // h = 0.05
  EXPECT_NEAR(slope, 1.60, 0.05);
}

// The paper's forward-Euler start q1 = q0 + h v0 is O(h²) off in q1, which the two-step recurrence
// carries as an O(h) error: on a horizon where the phase drift is negligible the order is 1.
TEST(DsocsCurvature, KnownShortfall_PaperForwardEulerStartCapsTheOrderAtOne) {
  const double order = test::measured_order(5.0, {250, 500, 1000, 2000}, [](double h, long N) {
    return max_x_error(h, N, paper_start());
  });
  EXPECT_NEAR(order, 1.0, 0.05);
}

TEST(DsocsCurvature, SecondOrderStartGivesOrderTwo) {
  SecondOrderMethodOptions taylor;
  taylor.start = SecondOrderStart::taylor2;
  const auto error = [&](double h, long N) { return max_x_error(h, N, taylor); };
  EXPECT_NEAR(test::measured_order(5.0, {250, 500, 1000, 2000}, error), 2.0, 0.05);
  EXPECT_NEAR(test::measured_order(500.0, {25000, 50000, 100000, 200000}, error), 2.0, 0.05);
}
