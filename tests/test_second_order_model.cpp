// Second-order constrained systems, continuous side ([BFG13] Def. 2.1, §4.1.1, §4.2.1): the SOCS
// equations against closed forms, the Remark 2.3 embedding of nonholonomic systems, the constants
// and the exact factorisation of the Lyapunov constraint, and the reference solver against the
// independently computed reference trajectory.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "dalembert/method/reference.hpp"
#include "dalembert/models/curvature_particle.hpp"
#include "dalembert/models/inertia_wheel_pendulum.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "dalembert/models/particle.hpp"
#include "dalembert/models/vertical_disk.hpp"
#include "test_support.hpp"

using namespace dalembert;
using namespace dalembert::models;

namespace {
std::mt19937 rng(20131205);
double uniform(double a, double b) { return std::uniform_real_distribution<double>(a, b)(rng); }
template <int N>
Vecd<N> random_vector(double a, double b) {
  Vecd<N> x;
  for (int i = 0; i < N; ++i) x[i] = uniform(a, b);
  return x;
}
}  // namespace

TEST(SecondOrderModel, KernelFrameSpansTheKernelAndDifferentiatesThroughAutomaticDifferentiation) {
  // M(s) = M0 + s M1: the frame E(s) must satisfy M(s) E(s) = 0 for all s, so d/ds (M E) = 0 too.
  const Matd<2, 4> M0 = Matd<2, 4>::Random(), M1 = Matd<2, 4>::Random();
  const auto E = kernel_frame<double, 2, 4>(M0);
  EXPECT_LT((M0 * E).lpNorm<Eigen::Infinity>(), 1e-14);
  EXPECT_EQ((Eigen::FullPivLU<Matd<4, 2>>(E).rank()), 2);
  using D = ad::Dual<double, 1>;
  const D s = ad::variable<1>(0.0, 0);
  const Mat<D, 2, 4> Ms = M0.cast<D>() + s * M1.cast<D>();
  const Mat<D, 4, 2> Es = kernel_frame<D, 2, 4>(Ms);
  Matd<4, 2> dE;
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 2; ++j) dE(i, j) = ad::derivative(Es(i, j), 0);
  EXPECT_LT((M1 * E + M0 * dE).lpNorm<Eigen::Infinity>(), 1e-13);
  const double eps = 1e-6;  // and the derivative is the one of the smooth frame
  const Matd<4, 2> fd = (kernel_frame<double, 2, 4>(Matd<2, 4>(M0 + eps * M1)) -
                         kernel_frame<double, 2, 4>(Matd<2, 4>(M0 - eps * M1))) / (2 * eps);
  EXPECT_LT((fd - dE).lpNorm<Eigen::Infinity>(), 1e-8);
}

TEST(SecondOrderModel, TotalDerivativeIsTheChainRule) {
  const auto f = [](const auto& q, const auto& v) {
    using std::sin;
    return sin(q[0]) * v[1] * v[1] + q[1] * v[0];
  };
  const Vecd<2> q(0.3, -1.2), v(0.7, 2.0), a(-0.4, 1.5);
  const double expected = std::cos(q[0]) * v[0] * v[1] * v[1] + v[1] * v[0] +  // ∂f/∂q · v
                          2 * std::sin(q[0]) * v[1] * a[1] + q[1] * a[0];      // ∂f/∂v · a
  EXPECT_NEAR(total_derivative(f, q, v, a), expected, 1e-15);
}

// Remark 2.3: the exact trajectory of a nonholonomic system, with its acceleration taken from the
// closed form by central differences, satisfies the SOCS equations of its embedding.
template <class S>
void expect_exact_trajectory_is_socs_trajectory(const S& sys) {
  const NonholonomicAsSecondOrder<S> socs{sys};
  const auto x0 = sys.default_initial();
  for (double t : {0.0, 0.7, 1.9}) {
    const auto x = *sys.exact_solution(x0, t);
    const double dt = 1e-4;
    const Vecd<S::n> a = (sys.exact_solution(x0, t + dt)->v - sys.exact_solution(x0, t - dt)->v) / (2 * dt);
    const Vecd<S::n> del = euler_lagrange_covector(socs, x.q, x.v, a);
    const auto B = socs.template variational_frame<double>(x.q, x.v, a);
    EXPECT_LT(socs.template kinematic_constraint<double>(x.q, x.v, a).template lpNorm<Eigen::Infinity>(), 1e-14);
    EXPECT_LT((B.transpose() * del).template lpNorm<Eigen::Infinity>(), 1e-7) << S::name << " t = " << t;
    // and the SOCS acceleration is the Lagrange–d'Alembert one
    EXPECT_LT((second_order_acceleration(socs, x.q, x.v) - a).template lpNorm<Eigen::Infinity>(), 1e-7);
  }
}

TEST(SecondOrderModel, NonholonomicSystemsEmbedAsSecondOrderSystems) {
  expect_exact_trajectory_is_socs_trajectory(NonholonomicParticle{});
  expect_exact_trajectory_is_socs_trajectory(KnifeEdge{});
  expect_exact_trajectory_is_socs_trajectory(VerticalDisk{});
}

TEST(SecondOrderModel, CurvatureParticleCircleSolvesTheConstraintAndTheVariationalEquation) {
  for (double k : {1.0, -0.4, 2.5}) {
    CurvatureParticle p;
    p.curvature = k;
    const PhasePoint<2> x0{Vecd<2>(0.3, -0.2), Vecd<2>(0.8, -1.1)};
    for (double t : {0.0, 1.3, 7.0}) {
      const auto x = *p.exact_solution(x0, t);
      // from [BFG13] §4.1.1: ẍ = −k|v|ẏ, ÿ = k|v|ẋ, and the speed is conserved
      const Vecd<2> a_exact = k * x.v.norm() * Vecd<2>(-x.v[1], x.v[0]);
      EXPECT_NEAR(x.v.norm(), x0.v.norm(), 1e-14);
      EXPECT_LT(kinematic_residual(p, x.q, x.v, a_exact), 1e-14);
      EXPECT_LT((second_order_acceleration(p, x.q, x.v) - a_exact).lpNorm<Eigen::Infinity>(), 1e-14);
      const double dt = 1e-4;  // the closed form is a trajectory: its acceleration is a_exact
      const Vecd<2> a_fd = (p.exact_solution(x0, t + dt)->v - p.exact_solution(x0, t - dt)->v) / (2 * dt);
      EXPECT_LT((a_fd - a_exact).lpNorm<Eigen::Infinity>(), 1e-7);
    }
  }
  // the paper's exact solution (§4.1.2): x = cos(√2 t − π/4) − √2/2, y = sin(√2 t − π/4) + √2/2
  const CurvatureParticle p;
  const double t = 3.7, r2 = std::sqrt(2.0);
  const auto x = *p.exact_solution(p.default_initial(), t);
  EXPECT_NEAR(x.q[0], std::cos(r2 * t - M_PI / 4) - r2 / 2, 1e-14);
  EXPECT_NEAR(x.q[1], std::sin(r2 * t - M_PI / 4) + r2 / 2, 1e-14);
}

TEST(SecondOrderModel, InertiaWheelPendulumConstantsMatchThePaper) {
  // [BFG13] §4.2: the controller constants from the paper's definitions, and V, F, σ at t = 0
  const InertiaWheelPendulum p;
  EXPECT_NEAR(p.h_c(), 5.3116, 1e-9 * 5.3116);
  EXPECT_NEAR(p.g_c(), -317.8116, 1e-9 * 317.8116);
  EXPECT_NEAR(p.f(), 19204.04644, 1e-9 * 19204.04644);
  EXPECT_NEAR(p.kappa(), -60.4359515, 1e-9 * 60.4359515);
  // our simplifications of the paper's definitions: h_c = −d(I + (n+1)J), g_c = d(n+1)J, f h_c − g_c² = e
  EXPECT_NEAR(p.h_c(), -p.d * (p.I + (p.winding + 1) * p.J), 1e-12);
  EXPECT_NEAR(p.g_c(), p.d * (p.winding + 1) * p.J, 1e-11);
  EXPECT_NEAR(p.f() * p.h_c() - p.g_c() * p.g_c(), p.e, 1e-8);
  const auto x0 = p.default_initial();
  EXPECT_NEAR(p.sigma<double>(x0.v), -324.5625, 1e-12);
  EXPECT_NEAR(p.dissipation<double>(x0.q, x0.v), 649.125, 1e-10);
  EXPECT_NEAR(p.lyapunov<double>(x0.q, x0.v), 14770.16245, 1e-9 * 14770.16245);
  EXPECT_EQ(p.parameter_problem(), "");
  InertiaWheelPendulum bad = p;
  bad.winding = -100;  // I + (n+1)J = 106.7 > 0: n b > c fails
  EXPECT_NE(bad.parameter_problem().find("n b > c"), std::string::npos);
}

TEST(SecondOrderModel, LyapunovConstraintFactorsExactlyOnTheVariationalEquation) {
  // our factorisation (docs/methods.md): on Ṗ = M sin θ, dV/dt + F = σ·g identically; off it the two differ.
  const InertiaWheelPendulum p;
  double worst = 0.0, off = 0.0;
  for (int i = 0; i < 200; ++i) {
    const Vecd<2> q = random_vector<2>(-3, 3), v = random_vector<2>(-2, 2);
    Vecd<2> a;
    a[0] = uniform(-5, 5);
    a[1] = (p.M * std::sin(q[0]) - (p.I + p.J) * a[0]) / p.J;  // Ṗ = (I+J)θ̈ + Jψ̈ = M sin θ
    const double phi = p.kinematic_constraint<double>(q, v, a)[0];
    const double product = p.spurious_factor<double>(q, v, a)[0] * p.physical_factor<double>(q, v, a)[0];
    // the size of the terms: f P Ṗ with Ṗ = M sin θ, and the product itself
    const double scale = std::abs(p.f() * ((p.I + p.J) * v[0] + p.J * v[1]) * p.M) + std::abs(product);
    worst = std::max(worst, std::abs(phi - product) / scale);
    const Vecd<2> a_off = a + Vecd<2>(0.1, 0.0);
    off = std::max(off, std::abs(p.kinematic_constraint<double>(q, v, a_off)[0] -
                                 p.spurious_factor<double>(q, v, a_off)[0] * p.physical_factor<double>(q, v, a_off)[0]) /
                            scale);
  }
  EXPECT_LT(worst, 1e-13);  // measured 2.6e-15
  EXPECT_GT(off, 1e-3);
}

TEST(SecondOrderModel, CoefficientsOfThePapersEquationTen) {
  // [BFG13] (10): with ψ2 eliminated by (9), the Lyapunov constraint (8) at the discrete point
  // (q1, (q2 − q0)/2h, (q2 − 2q1 + q0)/h²) is A θ2² + B θ2 + C + ρ σ_d tanh σ_d with our
  // coefficients (B–E derived by us, A the paper's −d I² (I + (n+1)J)/(2h³)), at random (q0, q1, θ2).
  const InertiaWheelPendulum p;
  const double h = 0.1, n = p.winding;
  const double D = p.d * p.I * (p.I + (n + 1) * p.J) / (2 * h);
  const double A = -D * p.I / (h * h);
  EXPECT_NEAR(A, -p.d * p.I * p.I * (p.I + (n + 1) * p.J) / (2 * h * h * h), 1e-12 * std::abs(A));
  double worst = 0.0;
  for (int i = 0; i < 200; ++i) {
    const Vecd<2> q0 = random_vector<2>(-3, 3), q1 = q0 + random_vector<2>(-0.1, 0.1);
    const double theta2 = q1[0] + uniform(-0.1, 0.1);
    const double t0 = q0[0], p0 = q0[1], t1 = q1[0], p1 = q1[1];
    const double S1 = std::sin(t1), Sx = std::sin(p1 - n * t1);
    const double psi2 = 2 * p1 - p0 + (h * h * p.M * S1 - (p.I + p.J) * (theta2 - 2 * t1 + t0)) / p.J;  // (9)
    const double E = -(p.d * p.I / (2 * h)) * ((p.I + p.J) * (2 * t1 - t0) + 2 * p.J * (p1 - p0) + n * p.J * t0 +
                                                p.M * h * h * S1);
    const double K0 = p.I * (2 * t1 - t0) / (h * h) + p.M * (1 + p.kappa()) * S1 - p.chi / (p.d * p.I * p.J) * Sx;
    const double B = D * K0 - E * p.I / (h * h), C = E * K0;
    const double sigma = D * theta2 + E;
    const double equation_ten = A * theta2 * theta2 + B * theta2 + C + p.rho * sigma * std::tanh(sigma);
    const Vecd<2> q2(theta2, psi2);
    const double literal =
        p.kinematic_constraint<double>(q1, (q2 - q0) / (2 * h), (q2 - 2 * q1 + q0) / (h * h))[0];
    const double scale = std::abs(A * theta2 * theta2) + std::abs(B * theta2) + std::abs(C);
    worst = std::max(worst, std::abs(literal - equation_ten) / scale);
    // σ_d is σ at the central-difference velocity
    EXPECT_NEAR(sigma, p.sigma<double>((q2 - q0) / (2 * h)), 1e-9 * (1 + std::abs(sigma)));
  }
  test::report("inertia wheel pendulum: (10) with the coefficients A-E against the literal (8), relative", worst);
  EXPECT_LT(worst, 1e-10);
}

TEST(SecondOrderModel, InertiaWheelPendulumAccelerationIsTheRegularisedClosedLoop) {
  // our regularised closed loop: u = −ρ tanh σ − Mκ sin θ + χ/(dIJ) sin(ψ − nθ), θ̈ = (M sin θ − u)/I, ψ̈ = u/J − θ̈;
  // wherever σ ≠ 0 this acceleration satisfies the Lyapunov constraint (8) itself.
  const InertiaWheelPendulum p;
  for (int i = 0; i < 50; ++i) {
    const Vecd<2> q = random_vector<2>(-3, 3), v = random_vector<2>(-2, 2);
    const double s = p.sigma<double>(v);
    const double u = -p.rho * std::tanh(s) - p.M * p.kappa() * std::sin(q[0]) +
                     p.chi / (p.d * p.I * p.J) * std::sin(q[1] - p.winding * q[0]);
    const double theta_dd = (p.M * std::sin(q[0]) - u) / p.I;
    const Vecd<2> expected(theta_dd, u / p.J - theta_dd);
    const Vecd<2> a = second_order_acceleration(p, q, v);
    EXPECT_LT((a - expected).lpNorm<Eigen::Infinity>(), 1e-12 * (1 + expected.lpNorm<Eigen::Infinity>()));
    const double terms = p.f() * std::abs((p.I + p.J) * v[0] + p.J * v[1]) * (1 + a.lpNorm<Eigen::Infinity>());
    EXPECT_LT(kinematic_residual(p, q, v, a), 1e-13 * terms);
  }
}

TEST(SecondOrderModel, ReferenceSolverReproducesTheIndependentReferenceTrajectory) {
  // independent reference (DOP853 at 1e-12, agreeing with a 1e-13 run to 2e-10 in θ): t, θ, ψ, V
  const InertiaWheelPendulum p;
  const auto x0 = p.default_initial();
  struct Row {
    double t, theta, psi, V, theta_tol, psi_tol, V_tol;
  };
  const Row rows[] = {{50, 0.4389, 17.107, 4317.1, 5e-5, 5e-4, 0.05},      {100, 0.1552, 60.77, 3146.3, 5e-5, 5e-3, 0.05},
                      {200, -0.1614, 109.46, 1450.0, 5e-5, 5e-3, 0.05},    {500, -0.03895, 90.57, 262.94, 5e-6, 5e-3, 5e-3},
                      {1000, 0.002582, 84.157, 198.75, 5e-7, 5e-4, 5e-3},  {2000, 3.87e-4, 84.461, 195.47, 5e-7, 5e-4, 5e-3}};
  const ReferenceSolver<InertiaWheelPendulum> reference(p, 50.0);
  auto s = reference.initial_state(x0.q, x0.v);
  for (const Row& row : rows) {
    while (s.t < row.t - 1e-9) reference.step(s);
    EXPECT_NEAR(s.q[0], row.theta, row.theta_tol) << "t = " << row.t;
    EXPECT_NEAR(s.q[1], row.psi, row.psi_tol) << "t = " << row.t;
    EXPECT_NEAR(p.lyapunov<double>(s.q, s.v), row.V, row.V_tol) << "t = " << row.t;
  }
  // the curvature particle's reference follows its closed form
  const CurvatureParticle c;
  const auto y0 = c.default_initial();
  const auto end = second_order_reference_solution(c, y0.q, y0.v, 20.0);
  EXPECT_LT((end.q - c.exact_solution(y0, 20.0)->q).lpNorm<Eigen::Infinity>(), 1e-11);
}
