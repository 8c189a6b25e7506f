// Continuous Lagrange–d'Alembert dynamics: multipliers against the papers' formulas, invariance of
// the constraint functions off D (multiplier extension), energy, closed-form solutions against the
// reference solver.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "dalembert/method/reference.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "dalembert/models/particle.hpp"
#include "dalembert/models/unconstrained.hpp"
#include "dalembert/models/vertical_disk.hpp"
#include "test_support.hpp"

using namespace dalembert;
using namespace dalembert::models;

TEST(Dynamics, ParticleConstraintForceIsThePapersFormula) {
  // dLMS Example 4.2 (c = 1): Λ~ = (2xy − ẋẏ)/(1+y²) (−y, 0, 1) and our force is M^T λ = −Λ~.
  NonholonomicParticle p;
  p.potential_coefficient = 1.0;
  const Vecd<3> q(0.7, -0.4, 0.2), v(0.3, 1.1, -0.5);  // v deliberately off D: the raw formula
  const double x = q[0], y = q[1], xd = v[0], yd = v[1];
  const Vecd<3> Lambda = (2 * x * y - xd * yd) / (1 + y * y) * Vecd<3>(-y, 0, 1);
  EXPECT_LT((constraint_force(p, q, v, 0.0) + Lambda).norm(), 1e-14);
  // and the accelerations of the paper's ODEs (on D)
  const Vecd<3> vD(0.3, 1.1, y * 0.3);
  const Vecd<3> a = acceleration(p, q, vD, 0.0);
  EXPECT_NEAR(a[0], -(2 * x + y * xd * yd) / (1 + y * y), 1e-14);
  EXPECT_NEAR(a[1], -2 * y, 1e-14);
  EXPECT_NEAR(a[2], (xd * yd - 2 * x * y) / (1 + y * y), 1e-14);
}

TEST(Dynamics, KnifeEdgeMultiplierIsTheClosedForm) {
  // Our knife edge test system: λ = ∂xV sinφ − ∂yV cosφ − m φ̇ (ẋ cosφ + ẏ sinφ) (with M = (sinφ, −cosφ, 0)).
  KnifeEdge k;
  k.mass = 2.0;
  k.inertia = 0.5;
  k.slope = 1.0;
  k.spring = 0.5;
  const Vecd<3> q(0.2, -0.1, 0.7), v(0.5 * std::cos(0.7), 0.5 * std::sin(0.7), 1.3);
  const double dVx = -k.mass * k.slope + k.spring * q[0], dVy = k.spring * q[1];
  const double lambda =
      dVx * std::sin(q[2]) - dVy * std::cos(q[2]) - k.mass * v[2] * (v[0] * std::cos(q[2]) + v[1] * std::sin(q[2]));
  const auto a = constrained_acceleration(k, q, v, 0.0);
  EXPECT_NEAR(a.multiplier[0], lambda, 1e-13);
}

TEST(Dynamics, SleighMultiplierIsTheCorrectedThesisFormula) {
  // [AS21] Ex. 3.6.7, corrected: on D, with ẋ = u cosθ, ẏ = u sinθ: λ = I m θ̇ u / (I + m a²),
  // (I + m a²) θ̈ = −m a θ̇ u, u̇ = a θ̇² (the thesis' λ = θ̇ u/2 holds only for m = 1, I = a²).
  ChaplyginSleigh s;
  s.mass = 2.0;
  s.inertia = 0.7;
  s.offset = 0.4;
  const double th = 0.9, u = 1.3, w = -0.8;
  const Vecd<3> q(0.1, 0.2, th), v(u * std::cos(th), u * std::sin(th), w);
  const auto a = constrained_acceleration(s, q, v, 0.0);
  const double J = s.inertia + s.mass * s.offset * s.offset;
  EXPECT_NEAR(std::abs(a.multiplier[0]), s.inertia * s.mass * std::abs(w * u) / J, 1e-13);
  EXPECT_NEAR(a.acceleration[2], -s.mass * s.offset * w * u / J, 1e-13);
  const double udot = a.acceleration[0] * std::cos(th) + a.acceleration[1] * std::sin(th);
  EXPECT_NEAR(udot, s.offset * w * w, 1e-13);
}

template <class S>
void expect_constraint_functions_invariant(const S& sys, const Vecd<S::n>& q, const Vecd<S::n>& v) {
  // d/dt (M(q) v) = M q̈ + (∂(M v)/∂q) v = 0 at every (q, v), on D or off it.
  const Vecd<S::n> a = acceleration(sys, q, v, 0.0);
  const auto rate = (constraint_matrix(sys, q) * a + constraint_curvature(sys, q, v)).eval();
  EXPECT_LT(rate.norm(), 1e-13) << S::name;
}

TEST(Dynamics, MultiplierExtensionKeepsEveryConstraintLevelSet) {
  NonholonomicParticle particle;
  particle.potential_coefficient = 1.0;
  expect_constraint_functions_invariant(particle, Vecd<3>(0.3, 0.8, -1), Vecd<3>(1, -0.5, 2));
  expect_constraint_functions_invariant(KnifeEdge{}, Vecd<3>(0.3, 0.8, 0.6), Vecd<3>(1, -0.5, 2));
  expect_constraint_functions_invariant(PerturbedKnifeEdge{}, Vecd<3>(0.3, 0.8, 0.6), Vecd<3>(1, -0.5, 2));
  expect_constraint_functions_invariant(VerticalDisk{}, Vecd<4>(0.3, 0.8, 0.6, 1.1), Vecd<4>(1, -0.5, 2, 0.3));
  expect_constraint_functions_invariant(ChaplyginSleigh{}, Vecd<3>(0.3, 0.8, 0.6), Vecd<3>(1, -0.5, 2));
  // and along a trajectory started off D: M v stays at its initial value
  const Vecd<3> q0(0.0, 0.5, 0.0), v0(1.0, 0.3, 0.9);  // M v0 = 0.9 − 0.5 = 0.4
  const auto end = reference_solution(particle, q0, v0, 5.0);
  EXPECT_NEAR((constraint_matrix(particle, end.q) * end.v)[0], 0.4, 1e-10);
}

/// The largest difference, relative to the largest entry, between constrained_acceleration of a
/// mechanical model (first derivatives of G v and V along the non-cyclic coordinates and of M v
/// along q: detail::mechanical_rates) and the saddle point [W −Mᵀ; M 0](q̈, λ) = (r, −(∂(M v)/∂q) v)
/// solved with W and r = L_q − B v from L's second derivatives, at random points off D.
template <class S>
double mechanical_path_against_lagrangian(const S& sys, std::mt19937& rng) {
  constexpr int n = S::n, m = S::m;
  std::uniform_real_distribution<double> uniform(-2.0, 2.0);
  double worst = 0.0;
  for (int k = 0; k < 20; ++k) {
    Vecd<n> q, v;
    for (int i = 0; i < n; ++i) q[i] = uniform(rng), v[i] = uniform(rng);
    const auto a = constrained_acceleration(sys, q, v, 0.0);
    const auto d = lagrangian_derivatives(sys, q, v);
    Matd<n + m, n + m> K = Matd<n + m, n + m>::Zero();
    Vecd<n + m> rhs;
    K.template topLeftCorner<n, n>() = d.W;
    rhs.template head<n>() = d.Lq - d.B * v;
    if constexpr (m > 0) {
      const Matd<m, n> M = constraint_matrix(sys, q);
      K.template topRightCorner<n, m>() = -M.transpose();
      K.template bottomLeftCorner<m, n>() = M;
      rhs.template tail<m>() = -constraint_curvature(sys, q, v);
    }
    const Vecd<n + m> expected = K.fullPivLu().solve(rhs);
    Vecd<n + m> got;
    got << a.acceleration, a.multiplier;
    worst = std::max(worst, (got - expected).template lpNorm<Eigen::Infinity>() /
                                std::max(1.0, expected.template lpNorm<Eigen::Infinity>()));
  }
  return worst;
}

TEST(Dynamics, MechanicalPathEqualsTheLagrangiansSecondDerivatives) {
  // The particle, knife edge and sleigh declare cyclic coordinates (x and y of the sleigh enter r
  // through ∂_θ(G v) alone), the vertical disk all four (r = 0), the pendulum none and no constraint.
  std::mt19937 rng(7);
  NonholonomicParticle particle;
  particle.potential_coefficient = 1.0;
  KnifeEdge knife;
  knife.spring = 0.5;
  ChaplyginSleigh sleigh;
  sleigh.offset = 0.7;
  EXPECT_LT(mechanical_path_against_lagrangian(particle, rng), 1e-13);
  EXPECT_LT(mechanical_path_against_lagrangian(knife, rng), 1e-13);
  EXPECT_LT(mechanical_path_against_lagrangian(sleigh, rng), 1e-13);
  EXPECT_LT(mechanical_path_against_lagrangian(VerticalDisk{}, rng), 1e-13);
  EXPECT_LT(mechanical_path_against_lagrangian(Pendulum{}, rng), 1e-13);
}

template <class S>
double closed_form_vs_reference(const S& sys, double T) {
  const auto x0 = sys.default_initial();
  const auto ref = reference_solution(sys, x0.q, x0.v, T);
  const auto exact = sys.exact_solution(x0, T);
  return std::max((ref.q - exact->q).template lpNorm<Eigen::Infinity>(),
                  (ref.v - exact->v).template lpNorm<Eigen::Infinity>());
}

TEST(Dynamics, ClosedFormsSolveTheEquationsOfMotion) {
  EXPECT_LT(closed_form_vs_reference(NonholonomicParticle{}, 10.0), 1e-10);
  EXPECT_LT(closed_form_vs_reference(KnifeEdge{}, 10.0), 1e-10);
  EXPECT_LT(closed_form_vs_reference(VerticalDisk{}, 10.0), 1e-10);
  EXPECT_LT(closed_form_vs_reference(HarmonicOscillator{}, 10.0), 1e-10);
  // knife edge from a general state (blade speed, heading and turning rate all non-zero)
  KnifeEdge k;
  k.slope = 1.3;
  const PhasePoint<3> x0{Vecd<3>(0.4, -0.2, 0.9), Vecd<3>(-0.7 * std::cos(0.9), -0.7 * std::sin(0.9), -0.6)};
  const auto ref = reference_solution(k, x0.q, x0.v, 7.0);
  EXPECT_LT((ref.q - k.exact_solution(x0, 7.0)->q).norm(), 1e-10);
}

TEST(Dynamics, EnergyIsConservedAlongConstrainedFlows) {
  const auto drift = [](const auto& sys) {
    const auto x0 = sys.default_initial();
    const auto end = reference_solution(sys, x0.q, x0.v, 20.0);
    return std::abs(energy(sys, end.q, end.v) - energy(sys, x0.q, x0.v));
  };
  NonholonomicParticle particle;
  particle.potential_coefficient = 1.0;
  EXPECT_LT(drift(particle), 1e-10);
  EXPECT_LT(drift(PerturbedKnifeEdge{}), 1e-10);
  EXPECT_LT(drift(ChaplyginSleigh{}), 1e-10);
}

TEST(Dynamics, RungeKutta4IsFourthOrderAndAccurateOnTheKnifeEdge) {
  // RK4 with h = 1e-3 matches the exact knife-edge solution to 1e-12.
  const KnifeEdge k;
  const auto x0 = k.default_initial();
  const RungeKutta4<KnifeEdge> rk(k, 1e-3);
  const auto s = test::final_state(rk, x0, 1000);
  EXPECT_LT((s.q - k.exact_solution(x0, s.t)->q).norm(), 1e-12);
  const double order = test::measured_order(2.0, {20, 40, 80, 160}, [&](double h, long N) {
    const RungeKutta4<KnifeEdge> method(k, h);
    return (test::final_state(method, x0, N).q - k.exact_solution(x0, 2.0)->q).norm();
  });
  EXPECT_NEAR(order, 4.0, 0.15);
}
