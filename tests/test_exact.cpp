// Exact discrete nonholonomic objects by shooting ([ASMM22] §3–5; [AS21] ch. 4, 6, 7): the closed forms
// of the particle and the vertical disk, the identities of the exact discrete Lagrangian and
// forces, exactness of MLA with exact objects (and not of DLA), the exact flow against the
// reference solver, conjugate points, and nonholonomic Jacobi fields.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "dalembert/diagnostics/jacobi_fields.hpp"
#include "dalembert/discrete/exact_nonholonomic.hpp"
#include "dalembert/method/exact_flow.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"
#include "dalembert/method/reference.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "dalembert/models/particle.hpp"
#include "dalembert/models/unconstrained.hpp"
#include "dalembert/models/vertical_disk.hpp"
#include "central_differences.hpp"
#include "test_support.hpp"

using namespace dalembert;
using namespace dalembert::models;

namespace {

// Particle data of our own: q0 = (0.1, 0.2, 0), v0 = (1, 0.5, 0.2) ∈ D.
const Vecd<3> kQ0(0.1, 0.2, 0.0);
const Vecd<3> kV0(1.0, 0.5, 0.2);

Vecd<3> particle_at(const NonholonomicParticle& p, const Vecd<3>& q0, const Vecd<3>& v0, double t) {
  return p.exact_solution({q0, v0}, t)->q;
}

/// [ASMM22] Example 2 (thesis (4.3.2)): R^{e−}(q0, q1) for y1 ≠ y0.
Vecd<3> particle_retraction_minus(const Vecd<3>& q0, const Vecd<3>& q1, double h) {
  const double xdot = (q1[0] - q0[0]) * (q1[1] - q0[1]) /
                      (h * std::sqrt(q0[1] * q0[1] + 1) * (std::asinh(q1[1]) - std::asinh(q0[1])));
  return {xdot, (q1[1] - q0[1]) / h, q0[1] * xdot};
}

/// (4.3.4) / paper (25): the defining function of M^{e,nh}_h of the particle.
double particle_exact_constraint(const Vecd<3>& q0, const Vecd<3>& q1, double h) {
  return (q1[2] - q0[2]) / h - (q1[0] - q0[0]) * (std::sqrt(q1[1] * q1[1] + 1) - std::sqrt(q0[1] * q0[1] + 1)) /
                                   (h * (std::asinh(q1[1]) - std::asinh(q0[1])));
}

}  // namespace

TEST(Exact, ParticleRetractionsAreTheClosedForms) {
  // [ASMM22] Example 2: R^{e−} from shooting equals the closed form, and
  // R^{e+} is the velocity of (19) at t = h.
  const NonholonomicParticle particle;
  for (const double h : {0.1, 0.4, 1.0}) {
    const ExactNonholonomic<NonholonomicParticle> exact(particle, h);
    const Vecd<3> q1 = particle_at(particle, kQ0, kV0, h);
    const Arc<3> arc = exact.arc(kQ0, q1);
    EXPECT_LT((arc.v0 - particle_retraction_minus(kQ0, q1, h)).norm(), 1e-10) << "h = " << h;
    EXPECT_LT((arc.v0 - kV0).norm(), 1e-10);
    EXPECT_LT((arc.v1 - particle.exact_solution({kQ0, kV0}, h)->v).norm(), 1e-10);
    EXPECT_LE(arc.iterations, 5);
  }
}

TEST(Exact, ParticleExactConstraintSubmanifold) {
  // [ASMM22] (25): the closed-form μ_d vanishes on pairs made by the
  // shooting exponential map, ω_e vanishes on closed-form pairs and not off them; the completion of
  // (x1, y1) = (0.4, 0.4) from q0 = 0 gives z1 = 0.07900101095683879 for every h (M^{e,nh} of the
  // particle does not depend on h); the surface is z1 = x1(√(1+y1²) − 1)/asinh y1 (Fig. 4).
  const NonholonomicParticle particle;
  const double h = 0.4;
  const ExactNonholonomic<NonholonomicParticle> exact(particle, h);
  for (const Vecd<3>& v0 : {kV0, Vecd<3>(-0.7, 1.3, -0.14), Vecd<3>(2.0, -0.4, 0.4)}) {
    const Vecd<3> q1 = exact.exponential(kQ0, v0);
    EXPECT_LT(std::abs(particle_exact_constraint(kQ0, q1, h)), 1e-11);
    EXPECT_LT(exact.constraint(kQ0, particle_at(particle, kQ0, v0, h)).norm(), 1e-11);
    const Vecd<3> off = particle_at(particle, kQ0, v0, h) + Vecd<3>(0.0, 0.0, 0.01);  // 0.01 off the surface
    EXPECT_GT(exact.constraint(kQ0, off).norm(), 0.01 / h / 10);
  }
  for (const double step : {0.2, 0.5, 1.0}) {
    const ExactNonholonomic<NonholonomicParticle> e(particle, step);
    const auto c = e.complete(Vecd<3>::Zero(), Vecd<3>(0.4, 0.4, 0.0), {0, 1});
    EXPECT_NEAR(c.q1[2], 0.07900101095683879, 1e-12) << "h = " << step;
    EXPECT_NEAR(c.q1[0], 0.4, 1e-13);
    EXPECT_NEAR(c.q1[1], 0.4, 1e-13);
  }
  const auto c = exact.complete(Vecd<3>::Zero(), Vecd<3>(-0.8, 0.9, 0.0), {0, 1});
  EXPECT_NEAR(c.q1[2], -0.8 * (std::sqrt(1 + 0.81) - 1) / std::asinh(0.9), 1e-12);
}

TEST(Exact, MidpointAndExactConstraintSurfacesDifferAtFourthOrder) {
  // The surfaces of [AS21] Fig. 7.4: at q0 = 0, z1^e − z1^d = −x1 y1³/24 + higher order (our expansion).
  const NonholonomicParticle particle;
  const ExactNonholonomic<NonholonomicParticle> exact(particle, 0.5);
  const auto difference = [&](double s) {
    const double z_exact = exact.complete(Vecd<3>::Zero(), Vecd<3>(s, s, 0.0), {0, 1}).q1[2];
    return z_exact - 0.5 * s * s;
  };
  const double d1 = difference(0.1), d2 = difference(0.05);
  test::report("exact_minus_midpoint_surface_ratio", d1 / d2);
  EXPECT_NEAR(d1 / d2, 16.0, 0.1);
  EXPECT_NEAR(d2 / (-std::pow(0.05, 4) / 24), 1.0, 0.005);
}

TEST(Exact, ParticleExponentialMap) {
  // From the closed-form flow: exp_0(u, v) = ((u/v) asinh v, v, (u/v)(√(v²+1) − 1)) (kinetic, h = 1, frame
  // e1 = ∂x + y∂z = ∂x and e2 = ∂y at the origin); exp_h(s v) = exp_{sh}(v) and T_0 exp_h = h E(q).
  const NonholonomicParticle particle;
  const ExactNonholonomic<NonholonomicParticle> unit(particle, 1.0);
  for (const auto& [u, v] : std::vector<std::pair<double, double>>{{0.7, 1.3}, {-1.1, 0.4}, {2.0, -2.5}}) {
    const Vecd<3> expected((u / v) * std::asinh(v), v, (u / v) * (std::sqrt(v * v + 1) - 1));
    EXPECT_LT((unit.exponential_in_frame(Vecd<3>::Zero(), Vecd<2>(u, v)) - expected).norm(), 1e-11);
  }
  const double h = 0.3, s = 2.5;
  const ExactNonholonomic<NonholonomicParticle> short_step(particle, h), long_step(particle, s * h);
  EXPECT_LT((short_step.exponential(kQ0, s * kV0) - long_step.exponential(kQ0, kV0)).norm(), 1e-11);
  const Matd<3, 2> T0 = short_step.exponential_differential(kQ0, Vecd<2>::Zero());
  EXPECT_LT((T0 - h * constraint_frame(particle, kQ0)).norm(), 1e-12);
  // Away from 0 the differential U(h)E(q0) still has full rank 2 (no conjugate point).
  const Eigen::JacobiSVD<Matd<3, 2>> svd(short_step.exponential_differential(kQ0, Vecd<2>(1.0, 0.5)));
  EXPECT_GT(svd.singularValues()[1], 0.1 * h);
}

TEST(Exact, VerticalDiskClosedForms) {
  // thesis Ex. 4.3.5: M^{e,nh}_h is x1 − x0 = (Δθ/Δφ) R (sin φ1 − sin φ0),
  // y1 − y0 = (Δθ/Δφ) R (cos φ0 − cos φ1) for any masses and inertias, and R^{e−} has rolling and
  // turning rates Δθ/h and Δφ/h.
  VerticalDisk disk;
  disk.mass = 2.0;
  disk.radius = 0.7;
  disk.rolling_inertia = 0.5;
  disk.turning_inertia = 0.3;
  const double h = 0.3, R = disk.radius;
  const ExactNonholonomic<VerticalDisk> exact(disk, h);
  const Vecd<4> q0(0.1, -0.2, 0.3, 0.4);
  const double theta1 = 0.75, phi1 = 1.0, dtheta = theta1 - q0[2], dphi = phi1 - q0[3];
  const auto c = exact.complete(q0, Vecd<4>(0.0, 0.0, theta1, phi1), {2, 3});
  const double k = dtheta / dphi * R;
  EXPECT_NEAR(c.q1[0], q0[0] + k * (std::sin(phi1) - std::sin(q0[3])), 1e-10);
  EXPECT_NEAR(c.q1[1], q0[1] + k * (std::cos(q0[3]) - std::cos(phi1)), 1e-10);
  const double Om = dtheta / h, w = dphi / h;
  const Arc<4> arc = exact.arc(q0, c.q1);
  EXPECT_LT((arc.v0 - Vecd<4>(R * Om * std::cos(q0[3]), R * Om * std::sin(q0[3]), Om, w)).norm(), 1e-10);
  EXPECT_LT((arc.v1 - Vecd<4>(R * Om * std::cos(phi1), R * Om * std::sin(phi1), Om, w)).norm(), 1e-10);
  EXPECT_LT(exact.constraint(q0, c.q1).norm(), 1e-11);
  EXPECT_GT(exact.constraint(q0, Vecd<4>(c.q1 + Vecd<4>(0.01, 0.0, 0.0, 0.0))).norm(), 0.01);
}

TEST(Exact, DerivativesOfTheExactDiscreteLagrangianFromTheIdentities) {
  // [ASMM22] Lemma 4.4 ([AS21] Lemma 3.7.15): D2 L^e + F^{e,+} = ∂L/∂v(q1, R^{e+}) and
  // −D1 L^e − F^{e,−} = ∂L/∂v(q0, R^{e−}) at every pair, on and off M^{e,nh}. The library takes D1,
  // D2 from these identities and F^{e,±} from the sensitivities; this test checks them against
  // central differences of L^e (step 1e-4: truncation ~1e-9, shooting noise 1e-13/1e-4), the only
  // finite differences involved, and only here.
  const NonholonomicParticle particle;
  const double h = 0.4, eps = 1e-4;
  const ExactNonholonomic<NonholonomicParticle> exact(particle, h);
  const Vecd<3> on = particle_at(particle, kQ0, kV0, h);
  for (const Vecd<3>& q1 : {on, Vecd<3>(on + Vecd<3>(0.0, 0.0, 0.05))}) {
    const auto o = exact.objects(kQ0, q1);
    Vecd<3> D1, D2;
    for (int i = 0; i < 3; ++i) {
      const Vecd<3> e = eps * Vecd<3>::Unit(i);
      D1[i] = (exact.objects(Vecd<3>(kQ0 + e), q1).lagrangian - exact.objects(Vecd<3>(kQ0 - e), q1).lagrangian) / (2 * eps);
      D2[i] = (exact.objects(kQ0, Vecd<3>(q1 + e)).lagrangian - exact.objects(kQ0, Vecd<3>(q1 - e)).lagrangian) / (2 * eps);
    }
    EXPECT_LT((o.D1 - D1).norm(), 1e-7);
    EXPECT_LT((o.D2 - D2).norm(), 1e-7);
  }
  // Without constraints or external forces the exact discrete forces vanish and L^e is the exact
  // discrete Lagrangian of the harmonic oscillator.
  const HarmonicOscillator osc;
  const auto o = ExactNonholonomic<HarmonicOscillator>(osc, 0.5).objects(Vecd<1>(1.0), Vecd<1>(0.8));
  EXPECT_EQ(o.force_minus.norm() + o.force_plus.norm(), 0.0);
  // thesis Ex. 3.7.13: L^e = [(θ0² + θ1²) cos h − 2 θ0 θ1] / (2 sin h).
  EXPECT_NEAR(o.lagrangian, ((1.0 + 0.64) * std::cos(0.5) - 2 * 0.8) / (2 * std::sin(0.5)), 1e-12);
}

TEST(Exact, ExactDiscreteLagrangianIsThirdOrderCloseToTheMidpointRule) {
  // |L_d^mid − L^e| = O(h³) along exact solutions.
  const NonholonomicParticle particle;
  const double order = test::measured_order(0.4, {1, 2, 4, 8}, [&](double h, long) {
    const Vecd<3> q1 = particle_at(particle, kQ0, kV0, h);
    const double exact = ExactNonholonomic<NonholonomicParticle>(particle, h).objects(kQ0, q1).lagrangian;
    return std::abs(AlphaRule<NonholonomicParticle>(particle, h)(kQ0, q1) - exact);
  });
  test::report("exact_vs_midpoint_lagrangian_order", order);
  EXPECT_NEAR(order, 3.0, 0.1);
}

TEST(Exact, MLAWithExactObjectsIsExactAndDLAWithTheExactLagrangianIsNot) {
  // [AS21] Thm 7.3.1, [ASMM22] Remark 5.7, particle, h = 0.4, q0 = (0.1, 0.2, 0),
  // v0 = (1, 0.5, 0.2), exact samples q(0), q(h), q(2h):
  //  - MLA residual D2L^e(q0,q1) + D1L^e(q1,q2) + F^{e,+}(q0,q1) + F^{e,−}(q1,q2) = 0, the full
  //    covector (not only its projection on D),
  //  - DLA with L^e: its D-projection is ≈ (−5.5e−4, 1.0e−3) on (e1, e2), not zero.
  const NonholonomicParticle particle;
  const double h = 0.4;
  const ExactNonholonomic<NonholonomicParticle> exact(particle, h);
  const Vecd<3> q0 = kQ0, q1 = particle_at(particle, kQ0, kV0, h), q2 = particle_at(particle, kQ0, kV0, 2 * h);
  const auto a = exact.objects(q0, q1), b = exact.objects(q1, q2);
  const Vecd<3> dla = a.D2 + b.D1;
  const Vecd<3> mla = dla + a.force_plus + b.force_minus;
  EXPECT_LT(mla.norm(), 1e-10);
  const Vecd<2> projected = constraint_frame(particle, q1).transpose() * dla;
  EXPECT_NEAR(projected[0], -5.5e-4, 0.05e-4);
  EXPECT_NEAR(projected[1], 1.04e-3, 0.01e-3);
  test::report("mla_exact_objects_full_residual", mla.norm());
  test::report("dla_exact_lagrangian_residual_e1", projected[0]);
  test::report("dla_exact_lagrangian_residual_e2", projected[1]);

  // The generic MLA solver fed with the exact objects returns the exact samples, with multiplier 0.
  NewtonOptions newton;
  newton.tolerance = 1e-11;  // residuals are known to the shooting accuracy
  const ModifiedLagrangeDAlembert<NonholonomicParticle, ExactNonholonomic<NonholonomicParticle>,
                                  ExactDiscreteConstraint<NonholonomicParticle>>
      mla_exact(particle, exact, ExactDiscreteConstraint<NonholonomicParticle>(exact), newton);
  auto s = mla_exact.initial_state_two_point(q0, q1);
  for (int k = 2; k <= 4; ++k) {
    mla_exact.step(s);
    EXPECT_LT((s.q - particle_at(particle, kQ0, kV0, k * h)).norm(), 1e-10) << "k = " << k;
    EXPECT_LT(s.multiplier.norm(), 1e-9);
  }
}

TEST(Exact, FlowEqualsTheReferenceSolver) {
  // The exact discrete flow (Newton over shooting) against Bulirsch–Stoer on the continuous
  // equations (tolerance 1e-13), 100 steps from the default data.
  const auto difference = [](const auto& sys, double h) {
    using S = std::decay_t<decltype(sys)>;
    const auto x0 = sys.default_initial();
    const ExactDiscreteFlow<S> exact(sys, h);
    const ReferenceSolver<S> reference(sys, h);
    auto a = exact.initial_state(x0.q, x0.v);
    auto b = reference.initial_state(x0.q, x0.v);
    double worst = 0.0;
    for (int k = 0; k < 100; ++k) {
      exact.step(a);
      reference.step(b);
      worst = std::max(worst, (a.q - b.q).template lpNorm<Eigen::Infinity>());
      worst = std::max(worst, (exact.velocity(a) - b.v).template lpNorm<Eigen::Infinity>());
    }
    return worst;
  };
  const double particle = difference(NonholonomicParticle{}, 0.5), knife = difference(KnifeEdge{}, 0.1),
               perturbed = difference(PerturbedKnifeEdge{}, 0.1), disk = difference(VerticalDisk{}, 0.1),
               sleigh = difference(ChaplyginSleigh{}, 0.1);
  test::report("exact_vs_reference_particle", particle);
  test::report("exact_vs_reference_knife_edge", knife);
  test::report("exact_vs_reference_perturbed_knife_edge", perturbed);
  test::report("exact_vs_reference_vertical_disk", disk);
  test::report("exact_vs_reference_chaplygin_sleigh", sleigh);
  EXPECT_LT(particle, 1e-10);
  EXPECT_LT(knife, 1e-10);
  EXPECT_LT(perturbed, 1e-10);
  EXPECT_LT(disk, 1e-10);
  EXPECT_LT(sleigh, 1e-10);
}

// The derivative of the exact step (step_derivative: the velocity of the momentum on D* by the
// implicit-function theorem, the flow by its variational equations; no shooting) against central
// differences of the step, three steps into the run, on the sleigh (a metric of q) and the
// vertical disk (two constraints). Each entry moves by 1e-4 of its size: the steps hold to
// the shooting tolerance (1e-12), which differences over 1e-6 would magnify to 1e-6.
TEST(Exact, StepDerivativeAgreesWithCentralDifferences) {
  const auto error = [](const std::string& name, const auto& sys) {
    using S = std::decay_t<decltype(sys)>;
    const auto x0 = sys.default_initial();
    return test::step_derivative_error("exact_" + name, ExactDiscreteFlow<S>(sys, 0.1), x0.q, x0.v, 3, 1e-4);
  };
  EXPECT_LT(error("sleigh", ChaplyginSleigh{}), 1e-6);
  EXPECT_LT(error("vertical_disk", VerticalDisk{}), 1e-6);
}

TEST(Exact, EveryStepSizeReachesTheShootingTolerance) {
  // Over a sweep of h to t = 10, against the closed forms: the particle (from its own data) and the
  // vertical disk. Each step converges when its correction of q_{k+1} is within the shooting
  // tolerance; on a residual threshold that grew with (1 + |q|)/h, steps at some h stopped after
  // one correction, each short of its solution (the particle: 2.1e-11 at h = 0.05).
  const NonholonomicParticle particle;
  const VerticalDisk disk;
  const auto disk0 = disk.default_initial();
  for (const double h : {0.05, 0.1, 0.125, 0.2, 0.25, 0.5, 1.0}) {
    const long steps = std::lround(10.0 / h);
    const auto p = exact_samples(particle, kQ0, kV0, h, steps);
    const auto d = exact_samples(disk, disk0.q, disk0.v, h, steps);
    double worst_particle = 0.0, worst_disk = 0.0;
    for (long k = 0; k <= steps; ++k) {
      worst_particle = std::max(worst_particle, (p[k].q - particle_at(particle, kQ0, kV0, k * h)).lpNorm<Eigen::Infinity>());
      worst_disk = std::max(worst_disk, (d[k].q - disk.exact_solution(disk0, k * h)->q).lpNorm<Eigen::Infinity>());
    }
    test::report("exact_sweep_particle_h" + std::to_string(h), worst_particle);
    test::report("exact_sweep_vertical_disk_h" + std::to_string(h), worst_disk);
    EXPECT_LE(worst_particle, 1e-11) << "h = " << h;
    EXPECT_LE(worst_disk, 1e-11) << "h = " << h;
  }
}

TEST(Exact, SamplesFollowTheUsersShootingTolerance) {
  // exact_samples, the library's one-call reference, on the vertical disk against its closed form:
  // the error of 50 steps (t = 5) stays within the shooting tolerance per step, for tolerances from
  // 1e-6 down to 1e-12.
  const VerticalDisk disk;
  const auto x0 = disk.default_initial();
  const double h = 0.1;
  const long steps = 50;
  for (const double tolerance : {1e-6, 1e-9, 1e-12}) {
    ShootingOptions options;
    options.tolerance = tolerance;
    const auto samples = exact_samples(disk, x0.q, x0.v, h, steps, options);
    ASSERT_EQ(samples.size(), static_cast<std::size_t>(steps + 1));
    double worst = 0.0;
    for (long k = 0; k <= steps; ++k) {
      const auto truth = *disk.exact_solution(x0, k * h);
      worst = std::max(worst, (samples[k].q - truth.q).lpNorm<Eigen::Infinity>());
      worst = std::max(worst, (samples[k].v - truth.v).lpNorm<Eigen::Infinity>());
    }
    char label[64];
    std::snprintf(label, sizeof label, "exact_samples_vertical_disk_error_tolerance_%g", tolerance);
    test::report(label, worst);
    EXPECT_LT(worst, steps * tolerance) << "tolerance " << tolerance;
  }
}

TEST(Exact, FlowFromTwoPointsReproducesTheClosedForm) {
  // Thm 5.5 / 7.2.3: iterating the exact discrete flow from (q0, q1) ∈ M^{e,nh} gives q(kh).
  const NonholonomicParticle particle;
  const double h = 0.5;
  const ExactDiscreteFlow<NonholonomicParticle> exact(particle, h);
  auto s = exact.initial_state_two_point(kQ0, particle_at(particle, kQ0, kV0, h));
  double worst = 0.0;
  for (int k = 2; k <= 100; ++k) {
    exact.step(s);
    const Vecd<3> truth = particle_at(particle, kQ0, kV0, k * h);
    worst = std::max(worst, (s.q - truth).norm() / truth.norm());
    EXPECT_LT(s.discrete_constraint, 1e-11);
  }
  EXPECT_LT(worst, 1e-11);
}

TEST(Exact, ConjugatePointIsReported) {
  // The harmonic oscillator's exponential map is singular at h = π (U(h) = sin h):
  // the shooting Jacobian is singular and the step fails saying so; below π the exact flow is
  // the closed form θ_k = θ0 cos(kh) + θ̇0 sin(kh) (Ex. 3.7.13).
  const HarmonicOscillator osc;
  const ExactDiscreteFlow<HarmonicOscillator> at_pi(osc, M_PI);
  auto s = at_pi.initial_state(Vecd<1>(1.0), Vecd<1>(0.5));
  try {
    at_pi.step(s);
    FAIL() << "no error at a conjugate point";
  } catch (const SolverError& e) {
    EXPECT_NE(std::string(e.what()).find("conjugate point"), std::string::npos) << e.what();
    EXPECT_EQ(e.step(), 1);
  }
  const double h = 3.0;
  const ExactDiscreteFlow<HarmonicOscillator> below(osc, h);
  auto b = below.initial_state(Vecd<1>(1.0), Vecd<1>(0.5));
  for (int k = 1; k <= 20; ++k) {
    below.step(b);
    ASSERT_NEAR(b.q[0], std::cos(k * h) + 0.5 * std::sin(k * h), 1e-10) << "k = " << k;
  }
}

TEST(Exact, EveryStepBelowTheFirstConjugatePointWorks) {
  // Close to a conjugate point the shot velocity is known only to the shooting tolerance times
  // |U(h)⁻¹| (1/sin h for the oscillator: 24 at h = 3.1, 628 at h = 3.14), and so is Newton's
  // residual; its correction of q_{k+1} is not amplified, and the step converges on it (on a
  // residual threshold of 1/h these steps stalled at a residual of 2.7e-12).
  const HarmonicOscillator osc;
  for (const double h : {3.1, 3.14}) {
    const ExactDiscreteFlow<HarmonicOscillator> near_pi(osc, h);
    auto s = near_pi.initial_state(Vecd<1>(1.0), Vecd<1>(0.5));
    double worst = 0.0;
    for (int k = 1; k <= 20; ++k) {
      near_pi.step(s);
      worst = std::max(worst, std::abs(s.q[0] - (std::cos(k * h) + 0.5 * std::sin(k * h))));
    }
    test::report("exact_oscillator_error_near_pi_h" + std::to_string(h), worst);
    EXPECT_LT(worst, 1e-10) << "h = " << h;
  }
  // The nonholonomic particle with V = x² + y² oscillates at √2 in (x, y): its first conjugate point
  // is at π/√2 = 2.2214. The exact flow at h = 2 and 2.2 follows the reference solver.
  NonholonomicParticle particle;
  particle.potential_coefficient = 1.0;
  const auto x0 = particle.default_initial();
  for (const double h : {2.0, 2.2}) {
    const ExactDiscreteFlow<NonholonomicParticle> exact(particle, h);
    auto s = exact.initial_state(x0.q, x0.v);
    for (int k = 1; k <= 10; ++k) exact.step(s);
    const auto truth = reference_solution(particle, x0.q, x0.v, 10 * h);
    EXPECT_LT((s.q - truth.q).lpNorm<Eigen::Infinity>(), 1e-9) << "h = " << h;
  }
}

TEST(JacobiFields, ParticleClosedForms) {
  // thesis Ex. 6.2.8: varying ẋ0 at rate u (δv0 = (u, 0, y0 u) ∈ D),
  //   ẏ0 ≠ 0: W(t) = (u/ẏ0)√(y0²+1) [(asinh(ẏ0 t + y0) − asinh y0) ∂x + (√((ẏ0 t + y0)² + 1) − √(y0²+1)) ∂z],
  //   ẏ0 = 0: W(t) = u t (∂x + y0 ∂z);
  // and ∂z is a Jacobi field along any trajectory (Ex. 6.2.6).
  const NonholonomicParticle particle;
  const double u = 0.8, y0 = kQ0[1];
  const std::vector<double> times = {0.5, 1.0, 2.0, 4.0};
  const auto moving = jacobi_field(particle, kQ0, kV0, Vecd<3>::Zero(), Vecd<3>(u, 0.0, y0 * u), times);
  const double yd = kV0[1];
  for (const auto& j : moving) {
    const double y = yd * j.t + y0, c = (u / yd) * std::sqrt(y0 * y0 + 1);
    const Vecd<3> W(c * (std::asinh(y) - std::asinh(y0)), 0.0, c * (std::sqrt(y * y + 1) - std::sqrt(y0 * y0 + 1)));
    EXPECT_LT((j.W - W).norm(), 1e-10) << "t = " << j.t;
    EXPECT_LT(j.linearised_constraint, 1e-10);
    EXPECT_LT((j.q - particle_at(particle, kQ0, kV0, j.t)).norm(), 1e-10);
  }
  const Vecd<3> flat_v0(1.0, 0.0, y0);
  for (const auto& j : jacobi_field(particle, kQ0, flat_v0, Vecd<3>::Zero(), Vecd<3>(u, 0.0, y0 * u), times))
    EXPECT_LT((j.W - u * j.t * Vecd<3>(1.0, 0.0, y0)).norm(), 1e-10) << "t = " << j.t;
  for (const auto& j : jacobi_field(particle, kQ0, kV0, Vecd<3>::UnitZ(), Vecd<3>::Zero(), times))
    EXPECT_LT((j.W - Vecd<3>::UnitZ()).norm(), 1e-10) << "t = " << j.t;
}

TEST(JacobiFields, VerticalDiskRotationSymmetry) {
  // thesis Ex. 6.2.25: Z = ∂φ − y∂x + x∂y along a disk trajectory is a Jacobi field:
  // starting from (Z(q0), d/dt Z(c(t))|₀) the field is Z(c(t)).
  const VerticalDisk disk;
  const Vecd<4> q0(0.3, -0.5, 0.1, 0.7), v0(std::cos(0.7) * 1.2, std::sin(0.7) * 1.2, 1.2, -0.9);
  const Vecd<4> Z0(-q0[1], q0[0], 0.0, 1.0), Zdot0(-v0[1], v0[0], 0.0, 0.0);
  for (const auto& j : jacobi_field(disk, q0, v0, Z0, Zdot0, {0.5, 1.5, 3.0})) {
    EXPECT_LT((j.W - Vecd<4>(-j.q[1], j.q[0], 0.0, 1.0)).norm(), 1e-10) << "t = " << j.t;
    EXPECT_LT(j.linearised_constraint, 1e-10);
  }
}
