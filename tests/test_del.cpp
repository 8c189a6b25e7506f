// Discrete Euler–Lagrange integrators (no constraints): exact identities, order, exactness of the
// exact discrete Lagrangian, and agreement of every form.
#include <gtest/gtest.h>

#include <cmath>

#include "dalembert/method/del.hpp"
#include "dalembert/method/dla.hpp"
#include "dalembert/models/unconstrained.hpp"
#include "test_support.hpp"

using namespace dalembert;
using namespace dalembert::models;

TEST(DEL, LeftRectangleRuleIsStormerVerlet) {
  // thesis Ex. 3.7.8: L_d = (ml²/2h)(θ1−θ0)² + h m g l cos θ0 gives
  // θ_{k+1} = 2θ_k − θ_{k−1} − (h² g / l) sin θ_k and p_{k+1} = (m l²/h)(θ_{k+1} − θ_k).
  Pendulum pendulum;
  pendulum.mass = 1.3;
  pendulum.length = 0.8;
  pendulum.gravity = 9.81;
  const double h = 0.05;
  const DiscreteEulerLagrange<Pendulum, AlphaRule<Pendulum>> del(pendulum, AlphaRule<Pendulum>(pendulum, h, 0.0));
  double prev = 0.4, cur = 0.43;
  auto s = del.initial_state_two_point(Vecd<1>(prev), Vecd<1>(cur));
  for (int k = 0; k < 200; ++k) {
    del.step(s);
    const double expected = 2 * cur - prev - h * h * pendulum.gravity / pendulum.length * std::sin(cur);
    ASSERT_NEAR(s.q[0], expected, 1e-14) << "step " << k;
    EXPECT_NEAR(s.p[0], pendulum.mass * pendulum.length * pendulum.length / h * (s.q[0] - cur), 1e-12);
    prev = cur;
    cur = s.q[0];
  }
}

TEST(DEL, ExactDiscreteLagrangianReproducesTheFlow) {
  // thesis Ex. 3.7.13: for L = ½θ̇² − ½θ² the exact L_d is ((θ0²+θ1²) cos h − 2θ0θ1)/(2 sin h); its DEL
  // samples the exact solution θ0 cos t + θ̇0 sin t.
  const HarmonicOscillator osc;
  const double h = 0.3;
  const auto exact_ld = make_discrete_lagrangian<1>(h, [h](const auto& a, const auto& b) {
    return ((a[0] * a[0] + b[0] * b[0]) * std::cos(h) - 2.0 * a[0] * b[0]) / (2 * std::sin(h));
  });
  const DiscreteEulerLagrange<HarmonicOscillator, decltype(exact_ld)> del(osc, exact_ld);
  const PhasePoint<1> x0{Vecd<1>(0.8), Vecd<1>(-0.3)};
  auto s = del.initial_state(x0.q, x0.v);  // p0 = θ̇0 is the exact momentum
  double worst = 0.0;
  for (int k = 1; k <= 1000; ++k) {
    del.step(s);
    worst = std::max(worst, std::abs(s.q[0] - osc.exact_solution(x0, k * h)->q[0]));
  }
  EXPECT_LT(worst, 1e-12);
}

TEST(DEL, MidpointIsSecondOrderAndLeftRectangleFirstOrder) {
  const HarmonicOscillator osc;
  const PhasePoint<1> x0{Vecd<1>(1.0), Vecd<1>(0.5)};
  const double T = 3.0;
  const auto error = [&](double alpha) {
    return [&, alpha](double h, long N) {
      const DiscreteEulerLagrange<HarmonicOscillator, AlphaRule<HarmonicOscillator>> del(
          osc, AlphaRule<HarmonicOscillator>(osc, h, alpha));
      const auto s = test::final_state(del, x0, N);
      const auto exact = osc.exact_solution(x0, T);
      // both q and the momentum p = v (order in p is what separates the rules)
      return std::max(std::abs(s.q[0] - exact->q[0]), std::abs(s.p[0] - exact->v[0]));
    };
  };
  const double midpoint = test::measured_order(T, {30, 60, 120, 240}, error(0.5));
  const double left = test::measured_order(T, {30, 60, 120, 240}, error(0.0));
  test::report("del_midpoint_order_oscillator", midpoint);
  test::report("del_left_rectangle_order_oscillator", left);
  EXPECT_NEAR(midpoint, 2.0, 0.05);
  EXPECT_NEAR(left, 1.0, 0.1);
}

TEST(DEL, TwoPointAndMomentumFormsAgree) {
  const Pendulum pendulum;
  const double h = 0.1;
  const DiscreteEulerLagrange<Pendulum, AlphaRule<Pendulum>> del(pendulum, AlphaRule<Pendulum>(pendulum, h));
  auto a = del.initial_state(Vecd<1>(1.0), Vecd<1>(0.2));
  del.step(a);
  auto b = del.initial_state_two_point(Vecd<1>(1.0), a.q);  // same (q0, q1)
  for (int k = 0; k < 500; ++k) {
    del.step(a);
    del.step(b);
    ASSERT_NEAR(a.q[0], b.q[0], 1e-13);
  }
}

TEST(DEL, DLAWithoutConstraintsIsDEL) {
  // With m = 0 the constrained method reduces to the DEL. From every
  // state of a DEL trajectory, one DLA step gives the same next position to solver tolerance.
  const Pendulum pendulum;
  const double h = 0.2;
  const DiscreteEulerLagrange<Pendulum, AlphaRule<Pendulum>> del(pendulum, AlphaRule<Pendulum>(pendulum, h));
  const auto dla = make_dla(pendulum, h);
  auto a = del.initial_state(Vecd<1>(2.0), Vecd<1>(0.1));
  for (int k = 0; k < 1000; ++k) {
    auto b = dla.initial_state(a.q, Vecd<1>::Zero());
    b.p = a.p;
    b.last_velocity = a.last_velocity;
    del.step(a);
    dla.step(b);
    ASSERT_NEAR(a.q[0], b.q[0], 1e-13 * (1 + std::abs(a.q[0]))) << "step " << k;
    ASSERT_NEAR(a.p[0], b.p[0], 1e-13 * (1 + std::abs(a.p[0]))) << "step " << k;
  }
}

TEST(DEL, MidpointEnergyIsBoundedOnThePendulum) {
  const Pendulum pendulum;
  const double h = 0.1;
  const DiscreteEulerLagrange<Pendulum, AlphaRule<Pendulum>> del(pendulum, AlphaRule<Pendulum>(pendulum, h));
  auto s = del.initial_state(Vecd<1>(2.5), Vecd<1>(0.0));
  const double E0 = energy(pendulum, s.q, Vecd<1>(0.0));
  double first = 0.0, last = 0.0;
  const long N = 20000;
  for (long k = 1; k <= N; ++k) {
    del.step(s);
    const double dE = std::abs(energy(pendulum, s.q, del.velocity(s)) - E0);
    (k <= N / 10 ? first : last) = std::max(k <= N / 10 ? first : last, dE);
  }
  EXPECT_LT(last, 1.5 * first);  // no drift: the late oscillation is no larger than the early one
  EXPECT_LT(last, 0.02);
}
