// The exact discrete contact Lagrangian and the exact discrete Herglotz flow ([AS21] §8.2,
// Ex. 8.3.1): shooting against the closed form of the free particle,
// the identities (8.2.12) against finite differences, iterates = samples of the continuous flow,
// the energy law H_k = H_0 e^{γkh}, and conjugate points.
#include <gtest/gtest.h>

#include <cmath>

#include "contact_test_models.hpp"
#include "dalembert/discrete/exact_contact.hpp"
#include "dalembert/method/reference.hpp"
#include "dalembert/method/herglotz.hpp"
#include "dalembert/models/contact_systems.hpp"
#include "central_differences.hpp"
#include "test_support.hpp"

using namespace dalembert;
using namespace dalembert::models;

TEST(ExactContact, FreeParticleClosedFormWithTheCorrectedSign) {
  // Corrected: L^e = γ (q1 − q0)² e^{γh} / (2 (e^{γh} − 1)) + z0 (e^{γh} − 1); the thesis' (8.3.2)
  // prints − z0 (e^{γh} − 1), which is off by exactly 2 z0 (e^{γh} − 1).
  ContactParticle sys;
  for (double gamma : {-0.05, -0.7, 0.3}) {
    sys.gamma = gamma;
    for (double h : {0.5, 0.1}) {
      const ExactContactLagrangian<ContactParticle> ld(sys, h);
      for (const auto& [q0, q1, z0] : {std::tuple{1.0, 2.0, 0.0}, std::tuple{-0.3, 0.1, 1.7}, std::tuple{2.0, 1.2, -0.8}}) {
        const double numeric = ld(Vecd<1>(q0), Vecd<1>(q1), z0);
        const double closed = sys.exact_discrete_lagrangian(q0, q1, z0, h);
        EXPECT_NEAR(numeric, closed, 1e-12 * (1 + std::abs(closed))) << gamma << " " << h << " " << z0;
        const double e = std::exp(gamma * h);
        const double printed = gamma * (q1 - q0) * (q1 - q0) * e / (2 * e - 2) - z0 * (e - 1);
        EXPECT_NEAR(numeric - printed, 2 * z0 * (e - 1), 1e-12 * (1 + std::abs(closed)));
      }
    }
  }
}

TEST(ExactContact, DerivativesAreTheClosedIdentities) {
  // (8.2.12): D1 L^e = −∂L/∂v(q0, v0, z0) e^b, D2 L^e = ∂L/∂v(q(h), q̇(h), z(h)), D_z L^e = e^b − 1,
  // against central differences of the shooting value; and the Newton blocks D12 = ∂D1/∂q1,
  // Dz2 = ∂Dz/∂q1 (from the sensitivities) against central differences of the identities.
  const test::ZNonlinearOscillator sys;  // z-nonlinear: b ≠ γh
  const double h = 0.4;
  const ExactContactLagrangian<test::ZNonlinearOscillator> ld(sys, h);
  const Vecd<1> q0(0.7), q1(1.1);
  const double z0 = 0.3, delta = 1e-4;
  const auto d = ld.derivatives(q0, q1, z0);
  const auto central = [&](auto f) { return (f(delta) - f(-delta)) / (2 * delta); };
  EXPECT_NEAR(d.D1[0], central([&](double e) { return ld(Vecd<1>(q0[0] + e), q1, z0); }), 1e-8);
  EXPECT_NEAR(d.D2[0], central([&](double e) { return ld(q0, Vecd<1>(q1[0] + e), z0); }), 1e-8);
  EXPECT_NEAR(d.Dz, central([&](double e) { return ld(q0, q1, z0 + e); }), 1e-8);
  EXPECT_GT(std::abs(d.sigma() - std::exp(sys.gamma * h)), 1e-3);  // σ_d = e^b, b ≠ γh
  EXPECT_NEAR(d.D12(0, 0), central([&](double e) { return ld.derivatives(q0, Vecd<1>(q1[0] + e), z0).D1[0]; }), 1e-7);
  EXPECT_NEAR(d.Dz2[0], central([&](double e) { return ld.derivatives(q0, Vecd<1>(q1[0] + e), z0).Dz; }), 1e-7);
}

TEST(ExactContact, FreeParticleIteratesAreTheContinuousSamples) {
  // Thm 8.2.5, thesis' data (Ex. 8.3.1): from q0 = 1, q1 = 2, z0 = 0, h = 0.5 the exact discrete
  // Herglotz flow gives q_k = q(kh), z_k = z(kh) of the trajectory with q(0) = 1, q(h) = 2,
  // z(0) = 0 (v0 = γ/(e^{γh} − 1)); independent values q(2h) = 2.97531, z(h) = 0.987552.
  const ContactParticle sys;
  const double h = 0.5;
  const auto method = make_herglotz(sys, ExactContactLagrangian<ContactParticle>(sys, h));
  const ContactPoint<1> x0{Vecd<1>(1.0), Vecd<1>(sys.gamma / std::expm1(sys.gamma * h)), 0.0};
  auto s = method.initial_state_two_point(Vecd<1>(1.0), Vecd<1>(2.0), 0.0);
  EXPECT_NEAR(s.z, 0.987552, 5e-7);
  for (int k = 2; k <= 200; ++k) {
    method.step(s);
    const auto exact = *sys.exact_solution(x0, k * h);
    if (k == 2) {
      EXPECT_NEAR(s.q[0], 2.97531, 5e-6);
    }
    ASSERT_NEAR(s.q[0], exact.q[0], 1e-11 * std::abs(exact.q[0])) << k;
    ASSERT_NEAR(s.z, exact.z, 1e-11 * std::abs(exact.z)) << k;
    ASSERT_NEAR(s.p[0], exact.v[0], 1e-11) << k;
  }
}

TEST(ExactContact, IteratesAreTheContinuousSamplesAlsoWhenLIsNonlinearInZ) {
  // The damped oscillator (closed form) and L = ½v² − ½q² + γz + 0.1 z v² (against the
  // Bulirsch–Stoer reference), from the position–momentum start.
  const DampedOscillator osc;
  const double h = 0.3;
  const ContactPoint<1> x0{Vecd<1>(1.0), Vecd<1>(2.0), 0.0};
  const auto method = make_herglotz(osc, ExactContactLagrangian<DampedOscillator>(osc, h));
  auto s = method.initial_state(x0.q, x0.v, x0.z);
  double worst = 0.0;
  for (int k = 1; k <= 150; ++k) {
    method.step(s);
    const auto exact = *osc.exact_solution(x0, k * h);
    worst = std::max({worst, std::abs(s.q[0] - exact.q[0]), std::abs(s.z - exact.z), std::abs(s.p[0] - exact.v[0])});
  }
  test::report("exact_herglotz_max_error_oscillator_150_steps", worst);
  EXPECT_LT(worst, 1e-10);

  const test::ZNonlinearOscillator zn;
  const auto zmethod = make_herglotz(zn, ExactContactLagrangian<test::ZNonlinearOscillator>(zn, h));
  const ContactPoint<1> y0{Vecd<1>(0.4), Vecd<1>(0.9), 0.2};
  auto t = zmethod.initial_state(y0.q, y0.v, y0.z);
  ContactPoint<1> ref = y0;
  worst = 0.0;
  for (int k = 1; k <= 50; ++k) {
    zmethod.step(t);
    ref = contact_reference_solution(zn, ref, h);
    worst = std::max({worst, std::abs(t.q[0] - ref.q[0]), std::abs(t.z - ref.z),
                      std::abs(zmethod.velocity(t)[0] - ref.v[0])});
  }
  test::report("exact_herglotz_max_error_z_nonlinear_50_steps", worst);
  EXPECT_LT(worst, 1e-10);
}

// The derivative of the exact discrete Herglotz step by (q, p, z) is the flow's, from its
// variational equations: against central differences of the step (entries moved by 1e-4, as the
// steps hold only to the shooting tolerance), three steps into a run on the quartic planar
// oscillator and on a planar Lagrangian nonlinear in z. For L = L0(q, v) + γz the (q, p) flow is
// free of z and conformally symplectic, Aᵀ J A = e^{γh} J for its block A, and ∂z_{k+1}/∂z_k = e^{γh}.
TEST(ExactContact, StepDerivativeIsTheFlowsDerivative) {
  const auto against_differences = [](const std::string& name, const auto& method, const Vecd<2>& q0,
                                      const Vecd<2>& v0) {
    auto s = method.initial_state(q0, v0, 0.2);
    for (int k = 0; k < 3; ++k) method.step(s);
    const Eigen::MatrixXd D = method.step_derivative(s);
    const double e =
        (D - test::step_by_central_differences(method, s, 1e-4)).cwiseAbs().maxCoeff() / D.cwiseAbs().maxCoeff();
    test::report("step_derivative_exact_herglotz_" + name, e);
    EXPECT_LT(e, 1e-6) << name;
    return D;
  };
  const DampedOscillator2D planar;
  const double h = 0.25;
  const auto quartic = make_exact_herglotz(planar, h);
  const Eigen::MatrixXd D = against_differences("quartic_planar", quartic, Vecd<2>(0.8, -0.3), Vecd<2>(0.2, 0.9));
  const test::ZNonlinearPlanar zn;
  against_differences("z_nonlinear_planar", make_exact_herglotz(zn, h), Vecd<2>(0.6, -0.2), Vecd<2>(0.1, 0.5));

  const Eigen::Matrix4d A = D.topLeftCorner<4, 4>();
  Eigen::Matrix4d J = Eigen::Matrix4d::Zero();
  J.topRightCorner<2, 2>().setIdentity();
  J.bottomLeftCorner<2, 2>() = -Eigen::Matrix2d::Identity();
  const double conformal = std::exp(planar.gamma * h);
  const double symplectic_defect = (A.transpose() * J * A - conformal * J).cwiseAbs().maxCoeff();
  test::report("exact_herglotz_step_derivative_conformal_symplectic_defect", symplectic_defect);
  EXPECT_LT(symplectic_defect, 1e-11);
  EXPECT_NEAR(D(4, 4), conformal, 1e-12);
  EXPECT_EQ(D.col(4).head<4>().cwiseAbs().maxCoeff(), 0.0);
}

TEST(ExactContact, ExactSamplesSolveTheDiscreteHerglotzEquations) {
  // (8.1.5) with L^e on three samples (q(0), q(h), q(2h)) of a z-nonlinear trajectory, z0 = z(0):
  // D1 L^e(q1, q2, z1) + σ_d D2 L^e(q0, q1, z0) = 0 to the shooting tolerance.
  const test::ZNonlinearOscillator sys;
  const double h = 0.4;
  const ExactContactLagrangian<test::ZNonlinearOscillator> ld(sys, h);
  const ContactPoint<1> x0{Vecd<1>(0.4), Vecd<1>(0.9), 0.2};
  const auto x1 = contact_reference_solution(sys, x0, h), x2 = contact_reference_solution(sys, x0, 2 * h);
  EXPECT_LT(discrete_herglotz_residual(ld, x0.q, x1.q, x2.q, x0.z).lpNorm<Eigen::Infinity>(), 1e-11);
  // and z1 = z0 + L^e(q0, q1, z0) is the continuous z(h)
  EXPECT_NEAR(x0.z + ld(x0.q, x1.q, x0.z), x1.z, 1e-12);
  // whereas the thesis' rule leaves an O(h²)-sized residual on the same samples
  const ContactAlphaRule<test::ZNonlinearOscillator> mid(sys, h);
  EXPECT_GT(discrete_herglotz_residual(mid, x0.q, x1.q, x2.q, x0.z).lpNorm<Eigen::Infinity>(), 1e-3);
}

TEST(ExactContact, EnergyDecaysExactlyLikeExpGammaT) {
  // With L^e, H_k = H_0 e^{γkh} to the shooting tolerance (independent run: 1e−10; measured 1.0e−11 at
  // worst), thesis' data for the oscillator and the quartic planar oscillator (no closed form).
  const DampedOscillator osc;
  const double h = 0.5;
  const auto method = make_herglotz(osc, ExactContactLagrangian<DampedOscillator>(osc, h));
  auto s = method.initial_state_two_point(Vecd<1>(1.0), Vecd<1>(2.0), 0.0);
  const auto start = discrete_legendre_minus(method.discrete_lagrangian(), Vecd<1>(1.0), Vecd<1>(2.0), 0.0);
  const double H0 = contact_hamiltonian(osc, start.q, start.p, start.z);
  double worst = 0.0;
  for (int k = 1; k <= 200; ++k) {
    if (k > 1) method.step(s);
    worst = std::max(worst, std::abs(method.hamiltonian(s) - H0 * std::exp(osc.gamma * k * h)) / H0);
  }
  test::report("exact_herglotz_energy_law_defect_oscillator", worst);
  EXPECT_LT(worst, 1e-10);

  DampedOscillator2D planar;
  planar.quartic = 0.5;
  const auto pmethod = make_herglotz(planar, ExactContactLagrangian<DampedOscillator2D>(planar, 0.25));
  auto p = pmethod.initial_state(Vecd<2>(1.0, 0.2), Vecd<2>(-0.3, 0.9), 0.1);
  const double P0 = pmethod.hamiltonian(p);
  worst = 0.0;
  for (int k = 1; k <= 100; ++k) {
    pmethod.step(p);
    worst = std::max(worst, std::abs(pmethod.hamiltonian(p) - P0 * std::exp(planar.gamma * p.t)) / P0);
  }
  test::report("exact_herglotz_energy_law_defect_quartic_planar", worst);
  EXPECT_LT(worst, 1e-10);
}

TEST(ExactContact, ConjugatePointIsReported) {
  // Without damping the oscillator's U(h) = ∂q(h)/∂v0 = sin h vanishes at h = π: every trajectory
  // from q0 returns to −q0, so (q0, q1) cannot be joined (Lemma B.0.2).
  DampedOscillator osc;
  osc.gamma = 0.0;
  const ExactContactLagrangian<DampedOscillator> ld(osc, M_PI);
  try {
    ld(Vecd<1>(1.0), Vecd<1>(0.5), 0.0);
    FAIL() << "no error";
  } catch (const DiscreteLagrangianError& e) {
    EXPECT_NE(std::string(e.what()).find("conjugate"), std::string::npos) << e.what();
  }
}
