// DSOCS on the inertia wheel pendulum with a Lyapunov constraint (Borda–Fernández–Grillo,
// [BFG13] Ex. 4.2): independently computed discrete anchors, the two roots of each step, stabilisation and the
// Lyapunov function, the orders against the reference solver with both starts, the paper's root
// rule, Theorems 5.1 and 5.3, and per-step symmetry.
#include <gtest/gtest.h>

#include <cmath>

#include "dalembert/method/reference.hpp"
#include "dalembert/models/curvature_particle.hpp"
#include "dalembert/models/inertia_wheel_pendulum.hpp"
#include "dsocs_support.hpp"
#include "test_support.hpp"

using namespace dalembert;
using models::InertiaWheelPendulum;

namespace {

SecondOrderMethodOptions with(SecondOrderStart start, RootRule roots = RootRule::physical) {
  SecondOrderMethodOptions o;
  o.start = start;
  o.roots = roots;
  return o;
}
const SecondOrderMethodOptions paper = with(SecondOrderStart::forward_euler);

/// The paper's run: h = 0.1 on [0, 2000] with its start θ1 = θ0, ψ1 = ψ0 + 0.5 h ([BFG13] §4.2.2).
const std::vector<Vecd<2>>& paper_run() {
  static const std::vector<Vecd<2>> q = [] {
    const InertiaWheelPendulum p;
    const auto x0 = p.default_initial();
    return test::dsocs_trajectory(make_dsocs(p, 0.1, paper), x0.q, x0.v, 20001);
  }();
  return q;
}

/// V_k = V(q_k, (q_{k+1} − q_{k−1})/(2h)), the Lyapunov function at the central velocity.
double discrete_lyapunov(const std::vector<Vecd<2>>& q, long k, double h) {
  return InertiaWheelPendulum{}.lyapunov<double>(q[k], Vecd<2>((q[k + 1] - q[k - 1]) / (2 * h)));
}

/// θ of the reference solution on the grid t_k = k h_ref of [0, 2000].
constexpr double reference_h = 0.01;
const std::vector<double>& reference_theta() {
  static const std::vector<double> theta = [] {
    const InertiaWheelPendulum p;
    const auto x0 = p.default_initial();
    const ReferenceSolver<InertiaWheelPendulum> reference(p, reference_h);
    auto s = reference.initial_state(x0.q, x0.v);
    std::vector<double> out{s.q[0]};
    for (long k = 0; k < 200000; ++k) {
      reference.step(s);
      out.push_back(s.q[0]);
    }
    return out;
  }();
  return theta;
}

/// The paper's error ([BFG13] §4.2.2): max_k |θ_k − θ_ref(k h)| over [0, 2000].
double max_theta_error(double h, const SecondOrderMethodOptions& options) {
  const InertiaWheelPendulum p;
  const auto x0 = p.default_initial();
  const auto method = make_dsocs(p, h, options);
  const long steps = std::lround(2000 / h), stride = std::lround(h / reference_h);
  const auto& reference = reference_theta();
  auto s = method.initial_state(x0.q, x0.v);
  double worst = 0.0;
  for (long k = 1; k <= steps; ++k) {
    method.step(s);
    worst = std::max(worst, std::abs(s.q[0] - reference[k * stride]));
  }
  return worst;
}

}  // namespace

TEST(DsocsPendulum, ReproducesTheIndependentDiscreteTrajectory) {
  // independent reference values, h = 0.1, physical branch (two independent root solvers agree to 2e-13 / 5e-11)
  const auto& q = paper_run();
  EXPECT_NEAR(q[2][0], 0.4652992658316, 1e-12);
  EXPECT_NEAR(q[3][0], 0.3981180180214, 1e-12);
  EXPECT_NEAR(q[2][1], 5.442839212494, 1e-10);
  EXPECT_NEAR(q[3][1], 15.83666128710, 1e-10);
  const struct {
    long k;
    double theta, psi;
  } anchors[] = {{5, 0.1859947188766, 48.59693096493},
                 {100, 0.1541582111014, 57.44499506391},
                 {1000, -0.07673858400773, 96.51139946294},
                 {10000, -0.01029524401890, 86.20619239068},
                 {20000, -3.759721559554e-4, 84.65335311304}};
  for (const auto& a : anchors) {
    EXPECT_NEAR(q[a.k][0], a.theta, 1e-8) << "k = " << a.k;
    EXPECT_NEAR(q[a.k][1], a.psi, 1e-7) << "k = " << a.k;
  }
}

TEST(DsocsPendulum, FirstStepHasThePhysicalAndSpuriousRoots) {
  // computed independently at h = 0.1: the spurious root −E/D = 0.426612354175 (σ_d = 0, no dissipation) and the
  // physical one 0.465299265832, closer to θ1 = 0.5 here
  const InertiaWheelPendulum p;
  const auto method = make_dsocs(p, 0.1, paper);
  const Vecd<2> q0(0.5, 0.0), q1(0.5, 0.05);
  Vecd<2> physical = 2.0 * q1 - q0, spurious = physical;
  ASSERT_TRUE(method.solve(q0, q1, Branch::physical, physical).converged);
  ASSERT_TRUE(method.solve(q0, q1, Branch::spurious, spurious).converged);
  EXPECT_NEAR(physical[0], 0.465299265832, 1e-12);
  EXPECT_NEAR(spurious[0], 0.426612354175, 1e-12);
  // both solve the literal equations (8), (9): relative to the size of their terms (≈ 1e7)
  EXPECT_LT(method.residual(q0, q1, physical).lpNorm<Eigen::Infinity>(), 1e-6);
  EXPECT_LT(method.residual(q0, q1, spurious).lpNorm<Eigen::Infinity>(), 1e-6);
  EXPECT_GT(std::abs(method.residual(q0, q1, Vecd<2>(0.5 * (physical + spurious)))[0]), 1e4);  // two roots
}

TEST(DsocsPendulum, StabilisesUpright) {
  // independent reference run: discrete max |θ| 0.0244 on [750, 1000] and 0.00205 on [1500, 2000] at h = 0.1
  const auto& q = paper_run();
  double late = 0.0, latest = 0.0;
  for (long k = 7500; k <= 10000; ++k) late = std::max(late, std::abs(q[k][0]));
  for (long k = 15000; k <= 20000; ++k) latest = std::max(latest, std::abs(q[k][0]));
  EXPECT_LT(late, 0.05);
  EXPECT_LT(latest, 5e-3);
  EXPECT_NEAR(late, 0.0244, 5e-4);
  EXPECT_NEAR(latest, 0.00205, 5e-5);
}

TEST(DsocsPendulum, LyapunovFunctionDecreasesOverWindows) {
  const auto& q = paper_run();
  const double h = 0.1, V0 = InertiaWheelPendulum{}.lyapunov<double>(q[0], Vecd<2>(0.0, 0.5));
  // reference values computed independently: V_k at t = 0.1, 10, 100, 500, 1000, 2000
  EXPECT_NEAR(discrete_lyapunov(q, 1, h), 14819.38, 0.006);
  EXPECT_NEAR(discrete_lyapunov(q, 100, h), 9376.77, 0.006);
  EXPECT_NEAR(discrete_lyapunov(q, 1000, h), 3135.00, 0.006);
  EXPECT_NEAR(discrete_lyapunov(q, 5000, h), 262.22, 0.006);
  EXPECT_NEAR(discrete_lyapunov(q, 10000, h), 200.12, 0.006);
  EXPECT_NEAR(discrete_lyapunov(q, 20000, h), 197.43, 0.006);
  EXPECT_LT(discrete_lyapunov(q, 5000, h), 0.03 * V0);  // "tending to zero (t ≈ 500)" at plot scale
  // max and mean over consecutive 100 s windows never increase
  double previous_max = INFINITY, previous_mean = INFINITY;
  for (long w = 0; w < 20; ++w) {
    double max = 0.0, mean = 0.0;
    for (long k = std::max(1L, w * 1000); k < (w + 1) * 1000; ++k) {
      max = std::max(max, discrete_lyapunov(q, k, h));
      mean += discrete_lyapunov(q, k, h) / 1000.0;
    }
    EXPECT_LE(max, previous_max) << "window " << w;
    EXPECT_LE(mean, previous_mean) << "window " << w;
    previous_max = max;
    previous_mean = mean;
  }
}

// V does not reach 0. The trajectory passes slowly near the closed-loop saddle
// ψ − nθ ≡ π, where χ[1 − cos] ≈ 2χ = 200; the paper's "tending to zero" holds at plot scale only.
TEST(DsocsPendulum, KnownShortfall_LyapunovFunctionLevelsOffNearTwoHundred) {
  const auto& q = paper_run();
  const double V = discrete_lyapunov(q, 20000, 0.1);
  EXPECT_GT(V, 150.0);
  EXPECT_LT(V, 250.0);
  EXPECT_NEAR(std::cos(q[20000][1] - InertiaWheelPendulum{}.winding * q[20000][0]), -1.0, 0.05);
}

// V_k is monotone on coarse windows only; step to step it increases in 7632 of 19998
// steps at h = 0.1, by at most 21.3 (the discrete dV/dt = −F holds at the central point, not for
// V along the sequence).
TEST(DsocsPendulum, KnownShortfall_DiscreteLyapunovFunctionIsNotMonotoneStepToStep) {
  const auto& q = paper_run();
  long increases = 0;
  double largest = 0.0;
  for (long k = 1; k < 19999; ++k) {
    const double change = discrete_lyapunov(q, k + 1, 0.1) - discrete_lyapunov(q, k, 0.1);
    if (change > 0) ++increases;
    largest = std::max(largest, change);
  }
  EXPECT_NEAR(static_cast<double>(increases), 7632.0, 20.0);
  EXPECT_NEAR(largest, 21.3, 0.05);
}

// With the paper's start q1 = q0 + h v0 the O(h) start-up transient (initial ψ
// accelerations ≈ 530 rad/s²) dominates for small h: errors halve with h.
TEST(DsocsPendulum, KnownShortfall_PaperForwardEulerStartCapsTheOrderAtOne) {
  const double e10 = max_theta_error(0.1, paper), e05 = max_theta_error(0.05, paper);
  const double e02 = max_theta_error(0.02, paper), e01 = max_theta_error(0.01, paper);
  // computed independently: 0.3287, 0.08044, 0.01324, 0.006642
  EXPECT_NEAR(e10, 0.3287, 0.01 * 0.3287);
  EXPECT_NEAR(e05, 0.08044, 0.01 * 0.08044);
  EXPECT_NEAR(e02, 0.01324, 0.01 * 0.01324);
  EXPECT_NEAR(e01, 0.006642, 0.01 * 0.006642);
  EXPECT_NEAR(e05 / e10, 0.24, 0.01);
  EXPECT_NEAR(e01 / e02, 0.50, 0.01);
}

TEST(DsocsPendulum, SecondOrderStartGivesOrderTwoAgainstTheReference) {
  const auto taylor = with(SecondOrderStart::taylor2);
  std::vector<double> errors;
  const double order = test::measured_order(2000.0, {40000, 100000, 200000},
                                            [&](double h, long) { return max_theta_error(h, taylor); }, &errors);
  EXPECT_NEAR(order, 2.0, 0.1);
  // computed independently: 0.1029, 0.01653, 0.004132 at h = 0.05, 0.02, 0.01
  EXPECT_NEAR(errors[0], 0.1029, 0.01 * 0.1029);
  EXPECT_NEAR(errors[1], 0.01653, 0.01 * 0.01653);
  EXPECT_NEAR(errors[2], 0.004132, 0.01 * 0.004132);
}

// The paper's rule "closest to the previous θ" ([BFG13] §4.2.2) is wrong in most late steps: the two
// roots are |σ_d/D| apart (median 7.7e-6) and the spurious one (σ_d = 0, F = 0) is the closer one
// in 12661 of 19999 steps, so the rule leaves the physical branch. The default follows the
// physical factor (docs/methods.md), which is also the paper's fallback "the solution that decreases F".
TEST(DsocsPendulum, KnownShortfall_PaperClosestRootRuleLeavesThePhysicalBranch) {
  const InertiaWheelPendulum p;
  const double h = 0.1;
  const auto& q = paper_run();
  const auto method = make_dsocs(p, h, paper);
  long closer = 0, closer_to_extrapolation = 0, late = 0, late_closer = 0;
  double spurious_F = 0.0, smallest_physical_F = INFINITY;
  for (long k = 1; k < 20000; ++k) {
    Vecd<2> spurious = 2.0 * q[k] - q[k - 1];
    ASSERT_TRUE(method.solve(q[k - 1], q[k], Branch::spurious, spurious).converged);
    const double extrapolation = 2.0 * q[k][0] - q[k - 1][0];
    const bool is_closer = std::abs(spurious[0] - q[k][0]) < std::abs(q[k + 1][0] - q[k][0]);
    closer += is_closer;
    closer_to_extrapolation += std::abs(spurious[0] - extrapolation) < std::abs(q[k + 1][0] - extrapolation);
    if (k * h >= 500) {
      ++late;
      late_closer += is_closer;
    }
    // F at the central velocity of each candidate: zero on the spurious root, positive on the physical
    spurious_F = std::max(spurious_F, p.dissipation<double>(q[k], Vecd<2>((spurious - q[k - 1]) / (2 * h))));
    smallest_physical_F = std::min(smallest_physical_F, p.dissipation<double>(q[k], Vecd<2>((q[k + 1] - q[k - 1]) / (2 * h))));
  }
  EXPECT_NEAR(static_cast<double>(closer), 12661.0, 20.0);
  EXPECT_NEAR(static_cast<double>(closer_to_extrapolation), 15252.0, 20.0);
  EXPECT_GT(static_cast<double>(late_closer) / static_cast<double>(late), 0.5);
  EXPECT_LT(spurious_F, 1e-6 * smallest_physical_F);  // so "larger F" always picks the physical root

  // the literal rule, run on its own: O(1) errors (independent check: max |Δθ| ≈ 1.0)
  const auto literal = make_dsocs(p, h, with(SecondOrderStart::forward_euler, RootRule::closest));
  const auto x0 = p.default_initial();
  const auto r = test::dsocs_trajectory(literal, x0.q, x0.v, 20000);
  double difference = 0.0;
  for (long k = 0; k <= 20000; ++k) difference = std::max(difference, std::abs(r[k][0] - q[k][0]));
  EXPECT_GT(difference, 0.5);

  // with an infinite separation tolerance every step falls back to "decrease F": the physical branch
  auto fallback = with(SecondOrderStart::forward_euler, RootRule::closest);
  fallback.root_separation = INFINITY;
  const auto f = test::dsocs_trajectory(make_dsocs(p, h, fallback), x0.q, x0.v, 20000);
  for (long k = 0; k <= 20000; k += 1000) EXPECT_EQ(f[k], q[k]) << k;
}

// [BFG13] Theorem 5.1, condition 2: on the literal (unfactored) equations the step Jacobian
// at the physical root is σ_d times the factored one, so it degenerates where the roots merge;
// the factored Jacobian stays regular.
TEST(DsocsPendulum, LiteralStepJacobianDegeneratesWithSigmaAndTheFactoredOneDoesNot) {
  const InertiaWheelPendulum p;
  const double h = 0.1;
  const auto& q = paper_run();
  const auto method = make_dsocs(p, h, paper);
  // The derivative of the kinematic row along the solutions of β = 0 (ψ2 eliminated by (9)): det J
  // divided by ∂β/∂ψ2. For the factored equation it is g'(θ2) = −I/h² + ρ D sech²(σ_d), at least
  // I/h² in size; for the literal one it is σ_d times that.
  const auto reduced_derivative = [](const Matd<2, 2>& J) { return J.determinant() / J(1, 1); };
  double worst_ratio = 0.0, smallest_sigma = INFINITY, smallest_factored = INFINITY, smallest_literal = INFINITY;
  for (long k = 1; k < 20000; k += 7) {
    const Matd<2, 2> literal = method.residual_jacobian(q[k - 1], q[k], q[k + 1], Branch::literal);
    const Matd<2, 2> factored = method.residual_jacobian(q[k - 1], q[k], q[k + 1], Branch::physical);
    const double sigma = p.sigma<double>(Vecd<2>((q[k + 1] - q[k - 1]) / (2 * h)));
    const double ratio = literal.determinant() / factored.determinant();
    worst_ratio = std::max(worst_ratio, std::abs(ratio - sigma) / std::max(std::abs(sigma), 1e-3));
    smallest_sigma = std::min(smallest_sigma, std::abs(sigma));
    smallest_factored = std::min(smallest_factored, std::abs(reduced_derivative(factored)));
    smallest_literal = std::min(smallest_literal, std::abs(reduced_derivative(literal)));
  }
  EXPECT_LT(worst_ratio, 1e-6);
  EXPECT_LT(smallest_sigma, 1e-4);
  EXPECT_GE(smallest_factored, (1 - 1e-12) * p.I / (h * h));    // g is strictly monotone: well posed
  EXPECT_LT(smallest_literal, 1e-4 * smallest_factored);         // degenerate: Thm 5.1 condition 2 fails
}

TEST(DsocsPendulum, Theorem53HoldsAndTheFlowIsNotSymplectic) {
  // independent check at (q0, q1) = ((0.5, 0), (0.5, 0.05)), h = 0.1: an entry ≈ 2012 in the q1-q1 block
  const auto method = make_dsocs(InertiaWheelPendulum{}, 0.1, paper);
  const auto defect = test::theorem_5_3(method, Vecd<2>(0.5, 0.0), Vecd<2>(0.5, 0.05));
  EXPECT_LT(defect.identity_mismatch, 1e-8);  // measured 6.4e-11 with central differences
  EXPECT_NEAR(defect.non_symplecticity, 2012.0, 5.0);
}

// DSOCS ([BFG13]), a two-step method: ∂(q_k, q_{k+1})/∂(q_{k−1}, q_k) (step_derivative: the
// implicit-function theorem on the equations of the branch the step took) against central
// differences, on the inertia wheel pendulum (the physical factor of its kinematic constraint) and
// the curvature particle.
TEST(DsocsPendulum, StepDerivativeAgreesWithCentralDifferences) {
  const InertiaWheelPendulum pendulum;
  const models::CurvatureParticle particle;
  const auto x = pendulum.default_initial(), y = particle.default_initial();
  EXPECT_LT(test::dsocs_step_derivative_error("dsocs_pendulum", make_dsocs(pendulum, 0.1), x.q, x.v), 1e-8);
  EXPECT_LT(test::dsocs_step_derivative_error("dsocs_curvature", make_dsocs(particle, 0.1), y.q, y.v), 1e-8);
}

TEST(DsocsPendulum, EachStepIsReversedByTheStepWithMinusH) {
  // S_{−h}(q_{k+1}, q_k) = q_{k−1}; one step at a time (long backward runs blow up,
  // the reversed constraint is anti-dissipative)
  const auto backward = make_dsocs(InertiaWheelPendulum{}, -0.1, paper);
  const auto& q = paper_run();
  double worst = 0.0;
  for (long k = 1; k <= 2000; ++k) {
    Vecd<2> back = 2.0 * q[k] - q[k + 1];
    ASSERT_TRUE(backward.solve(q[k + 1], q[k], Branch::physical, back).converged);
    worst = std::max(worst, (back - q[k - 1]).lpNorm<Eigen::Infinity>());
  }
  EXPECT_LT(worst, 1e-10);
}

TEST(DsocsPendulum, TwoPointStartIsThePaperStart) {
  const InertiaWheelPendulum p;
  const auto method = make_dsocs(p, 0.1, paper);
  auto s = method.initial_state_two_point(Vecd<2>(0.5, 0.0), Vecd<2>(0.5, 0.05));
  for (int k = 0; k < 100; ++k) method.step(s);
  EXPECT_EQ(s.q, paper_run()[101]);
  EXPECT_EQ(s.t, 101 * 0.1);
}
