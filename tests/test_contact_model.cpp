// Continuous contact (Herglotz) systems, [AS21] (3.5.8): the Herglotz equations
// against closed forms, the energy law dE/dt = (∂L/∂z) E, dissipated momenta of symmetries, and
// the constraint of the damped knife edge along the multiplier extension.
#include <gtest/gtest.h>

#include <cmath>

#include "contact_test_models.hpp"
#include "dalembert/discrete/contact_flow.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/method/reference.hpp"
#include "dalembert/models/contact_systems.hpp"
#include "dalembert/models/damped_knife_edge.hpp"
#include "test_support.hpp"

using namespace dalembert;
using namespace dalembert::models;

TEST(ContactModel, HerglotzAccelerationOfTheThesisExamples) {
  // Ex. 8.3.1: q̈ = γ q̇;  Ex. 8.3.2: q̈ = γ q̇ − q (the Herglotz equations of L = ½q̇² − V + γz), exactly.
  ContactParticle k1;
  DampedOscillator k2;
  k1.gamma = k2.gamma = -0.37;
  const Vecd<1> q(0.8), v(-1.3);
  EXPECT_NEAR(herglotz_acceleration(k1, q, v, 2.5).acceleration[0], -0.37 * -1.3, 1e-15);
  EXPECT_NEAR(herglotz_acceleration(k2, q, v, 2.5).acceleration[0], -0.37 * -1.3 - 0.8, 1e-15);
  EXPECT_DOUBLE_EQ(dissipation_rate(k2, q, v, 2.5), -0.37);
  // E_L = ½ v² + V − γ z
  EXPECT_NEAR(energy(k2, q, v, 2.5), 0.5 * 1.69 + 0.32 + 0.37 * 2.5, 1e-15);
}

TEST(ContactModel, ClosedFormsAgreeWithTheReferenceSolver) {
  // The closed forms (q, v and z) of the catalogue against Bulirsch–Stoer on the Herglotz equations, at t = 10.
  const auto check = [](const auto& sys, const auto& x0) {
    const auto ref = contact_reference_solution(sys, x0, 10.0);
    const auto exact = *sys.exact_solution(x0, 10.0);
    EXPECT_LT((ref.q - exact.q).template lpNorm<Eigen::Infinity>(), 1e-11) << sys.name;
    EXPECT_LT((ref.v - exact.v).template lpNorm<Eigen::Infinity>(), 1e-11) << sys.name;
    EXPECT_NEAR(ref.z, exact.z, 1e-11) << sys.name;
  };
  check(ContactParticle{}, ContactPoint<1>{Vecd<1>(1.0), Vecd<1>(2.0), 0.3});
  check(DampedOscillator{}, ContactPoint<1>{Vecd<1>(1.0), Vecd<1>(2.0), -0.4});
  DampedOscillator2D planar;
  planar.gamma = -0.3;
  planar.stiffness = 2.0;
  check(planar, ContactPoint<2>{Vecd<2>(1.0, -0.5), Vecd<2>(0.2, 0.9), 0.7});
  DampedKnifeEdge knife;
  knife.slope = 0.0;
  knife.gamma = -0.2;
  check(knife, ContactPoint<3>{Vecd<3>(0.1, -0.2, 0.3), Vecd<3>(0.8 * std::cos(0.3), 0.8 * std::sin(0.3), 1.1), 0.5});
}

TEST(ContactModel, EnergyLawAlongTheFlow) {
  // dE/dt = (∂L/∂z) E, so E(t) = E(0) e^{b(t)} with b = ∫ ∂L/∂z dt; for L = L0 + γz, b = γt.
  // Checked where no closed form exists: the damped knife edge on the incline, the quartic
  // planar oscillator and a Lagrangian nonlinear in z.
  DampedKnifeEdge knife;
  knife.gamma = -0.15;
  const ContactPoint<3> k0{Vecd<3>(0.0, 0.0, 0.2), Vecd<3>(0.5 * std::cos(0.2), 0.5 * std::sin(0.2), 1.0), 0.3};
  const auto k1 = contact_reference_solution(knife, k0, 8.0);
  const double Ek0 = energy(knife, k0.q, k0.v, k0.z);
  EXPECT_NEAR(energy(knife, k1.q, k1.v, k1.z), Ek0 * std::exp(-0.15 * 8.0), 1e-11 * std::abs(Ek0));

  DampedOscillator2D planar;
  planar.quartic = 0.5;
  const ContactPoint<2> p0{Vecd<2>(1.0, 0.2), Vecd<2>(-0.3, 0.9), 0.0};
  const auto p1 = contact_reference_solution(planar, p0, 20.0);
  const double Ep0 = energy(planar, p0.q, p0.v, p0.z);
  EXPECT_NEAR(energy(planar, p1.q, p1.v, p1.z), Ep0 * std::exp(planar.gamma * 20.0), 1e-11 * Ep0);

  const test::ZNonlinearPlanar zn;
  const ContactPoint<2> z0{Vecd<2>(0.6, -0.4), Vecd<2>(0.5, 0.7), 0.2};
  const auto seg = contact_flow(zn, z0.q, z0.v, z0.z, 3.0, 1e-13);
  const double Ez0 = energy(zn, z0.q, z0.v, z0.z);
  EXPECT_GT(std::abs(seg.b - zn.gamma * 3.0), 1e-2);  // the rate really varies
  EXPECT_NEAR(energy(zn, seg.q1, seg.v1, seg.z1), Ez0 * std::exp(seg.b), 1e-11 * std::abs(Ez0));
}

TEST(ContactModel, AngularMomentumIsDissipatedLikeTheEnergy) {
  // Thesis Thm 3.5.2: L invariant under rotations ⇒ J = ⟨∂L/∂v, ξ_Q⟩ with ξ_Q(q) = (−y, x) obeys
  // dJ/dt = (∂L/∂z) J.
  const auto rotation = [](const Vecd<2>& q) { return Vecd<2>(-q[1], q[0]); };
  DampedOscillator2D planar;
  planar.quartic = 0.5;
  planar.gamma = -0.2;
  const ContactPoint<2> x0{Vecd<2>(1.0, 0.2), Vecd<2>(-0.3, 0.9), 0.4};
  const auto x1 = contact_reference_solution(planar, x0, 15.0);
  const double J0 = dissipated_quantity(planar, x0.q, x0.v, x0.z, rotation);
  EXPECT_NEAR(dissipated_quantity(planar, x1.q, x1.v, x1.z, rotation), J0 * std::exp(-0.2 * 15.0), 1e-12);

  const test::ZNonlinearPlanar zn;
  const auto seg = contact_flow(zn, x0.q, x0.v, x0.z, 3.0, 1e-13);
  const double Jz0 = dissipated_quantity(zn, x0.q, x0.v, x0.z, rotation);
  EXPECT_NEAR(dissipated_quantity(zn, seg.q1, seg.v1, seg.z1, rotation), Jz0 * std::exp(seg.b), 1e-12);
}

TEST(ContactModel, KnifeEdgeConstraintIsAFirstIntegralOfTheExtension) {
  // The multipliers are eliminated at every (q, v, z): M(q) v is conserved, on D (= 0) and off it.
  DampedKnifeEdge knife;
  const Vecd<3> q0(0.0, 0.0, 0.4);
  const Vecd<3> on_d(std::cos(0.4), std::sin(0.4), 0.7);
  const Vecd<3> off_d = on_d + 0.3 * Vecd<3>(std::sin(0.4), -std::cos(0.4), 0.0);  // M v = 0.3
  for (const auto& v0 : {on_d, off_d}) {
    const double Mv0 = (knife.constraint_matrix<double>(q0) * v0)[0];
    const auto x1 = contact_reference_solution(knife, ContactPoint<3>{q0, v0, 0.1}, 10.0);
    EXPECT_NEAR((knife.constraint_matrix<double>(x1.q) * x1.v)[0], Mv0, 1e-11);
  }
}

TEST(ContactModel, HamiltonianInvertsTheLegendreMap) {
  // H(q, ∂L/∂v(q, v, z), z) = E_L(q, v, z), also where ∂L/∂v depends on z.
  const test::ZNonlinearPlanar zn;
  const Vecd<2> q(0.3, -0.7), v(1.1, 0.4);
  const double z = 0.8;
  const Vecd<2> p = contact_momentum(zn, q, v, z);
  EXPECT_NEAR(p[0], 1.1 * (1 + zn.a * z), 1e-15);
  EXPECT_LT((contact_velocity(zn, q, p, z) - v).lpNorm<Eigen::Infinity>(), 1e-14);
  EXPECT_NEAR(contact_hamiltonian(zn, q, p, z), energy(zn, q, v, z), 1e-14);
}

TEST(ContactModel, RungeKutta4IsFourthOrder) {
  DampedOscillator osc;
  osc.gamma = -0.3;
  const ContactPoint<1> x0{Vecd<1>(1.0), Vecd<1>(0.5), 0.2};
  const double T = 5.0;
  std::vector<double> hs, errors;
  for (long N : {25, 50, 100, 200}) {
    const RungeKutta4<DampedOscillator> rk4(osc, T / N);
    auto s = rk4.initial_state(x0.q, x0.v, x0.z);
    for (long k = 0; k < N; ++k) rk4.step(s);
    const auto exact = *osc.exact_solution(x0, T);
    hs.push_back(T / N);
    errors.push_back(std::max({std::abs(s.q[0] - exact.q[0]), std::abs(s.v[0] - exact.v[0]), std::abs(s.z - exact.z)}));
  }
  const double order = fitted_order(hs, errors);
  test::report("contact_rk4_order_damped_oscillator", order);
  EXPECT_NEAR(order, 4.0, 0.1);
}
