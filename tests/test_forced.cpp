// External forces in the variational integrators: the forced DEL and forced DLA with midpoint
// discrete forces converge at order 2 to the forced dynamics (closed form or reference solver),
// a dissipative force makes the energy decrease, and a force of the time is read at the step's
// midpoint time (RK4: at its stage times).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "dalembert/method/del.hpp"
#include "dalembert/method/dla.hpp"
#include "dalembert/method/reference.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "test_support.hpp"

using namespace dalembert;

namespace {

/// L = ½ v² − ½ q², F = −c v: the damped oscillator as a forced Lagrangian system.
struct ViscousOscillator : Mechanical<ViscousOscillator, 1> {
  static constexpr int n = 1, m = 0;
  double c = 0.3;
  template <class T>
  Eigen::DiagonalMatrix<double, 1> metric(const Vec<T, 1>&) const { return Eigen::DiagonalMatrix<double, 1>(Vecd<1>(1.0)); }
  template <class T>
  T potential(const Vec<T, 1>& q) const { return 0.5 * q[0] * q[0]; }
  template <class T>
  Mat<T, 0, 1> constraint_matrix(const Vec<T, 1>&) const { return {}; }
  template <class T>
  Vec<T, 1> force(const Vec<T, 1>&, const Vec<T, 1>& v, double) const {
    return -c * v;
  }
  /// q(t) = e^{−ct/2}(q0 cos ωt + (v0 + c q0/2)/ω sin ωt), ω = √(1 − c²/4).
  double exact(double q0, double v0, double t) const {
    const double w = std::sqrt(1 - c * c / 4);
    return std::exp(-c * t / 2) * (q0 * std::cos(w * t) + (v0 + c * q0 / 2) / w * std::sin(w * t));
  }
};

/// L = ½ v² − ½ q², F = A cos(Ω t): the driven oscillator, a force of the time alone.
struct DrivenOscillator : Mechanical<DrivenOscillator, 1> {
  static constexpr int n = 1, m = 0;
  double amplitude = 0.7, frequency = 2.5;
  template <class T>
  Eigen::DiagonalMatrix<double, 1> metric(const Vec<T, 1>&) const {
    return Eigen::DiagonalMatrix<double, 1>(Vecd<1>(1.0));
  }
  template <class T>
  T potential(const Vec<T, 1>& q) const {
    return 0.5 * q[0] * q[0];
  }
  template <class T>
  Mat<T, 0, 1> constraint_matrix(const Vec<T, 1>&) const {
    return {};
  }
  template <class T>
  Vec<T, 1> force(const Vec<T, 1>& q, const Vec<T, 1>&, double t) const {
    return Vec<T, 1>(0.0 * q[0] + amplitude * std::cos(frequency * t));
  }
  /// q(t) = (q0 − K) cos t + v0 sin t + K cos Ωt, K = A/(1 − Ω²).
  double exact(double q0, double v0, double t) const {
    const double K = amplitude / (1 - frequency * frequency);
    return (q0 - K) * std::cos(t) + v0 * std::sin(t) + K * std::cos(frequency * t);
  }
};

/// The knife edge with a viscous drag on the blade: F = −c (ẋ, ẏ, 0).
struct DraggedKnifeEdge : models::KnifeEdge {
  double drag = 0.2;
  template <class T>
  Vec<T, 3> force(const Vec<T, 3>&, const Vec<T, 3>& v, double) const {
    Vec<T, 3> f;
    f << -drag * v[0], -drag * v[1], T(0.0);
    return f;
  }
};

}  // namespace

TEST(Forced, DampedOscillatorIsSecondOrderWithTheMidpointForce) {
  const ViscousOscillator osc;
  const PhasePoint<1> x0{Vecd<1>(1.0), Vecd<1>(0.0)};
  const double T = 5.0;
  const double order = test::measured_order(T, {25, 50, 100, 200}, [&](double h, long N) {
    const DiscreteEulerLagrange<ViscousOscillator, AlphaRule<ViscousOscillator>> del(osc, AlphaRule<ViscousOscillator>(osc, h));
    return std::abs(test::final_state(del, x0, N).q[0] - osc.exact(1.0, 0.0, T));
  });
  test::report("forced_del_order_damped_oscillator", order);
  EXPECT_NEAR(order, 2.0, 0.05);
}

TEST(Forced, DragOnTheKnifeEdgeDissipatesEnergyAndDlaStaysSecondOrder) {
  const DraggedKnifeEdge knife;
  const auto x0 = knife.default_initial();
  const double T = 3.0;
  const auto ref = reference_solution(knife, x0.q, x0.v, T);
  const double order = test::measured_order(T, {30, 60, 120, 240}, [&](double h, long N) {
    return (test::final_state(make_dla(knife, h), x0, N).q - ref.q).template lpNorm<Eigen::Infinity>();
  });
  test::report("forced_dla_order_dragged_knife_edge", order);
  EXPECT_NEAR(order, 2.0, 0.1);

  // With g = 0.5 the slope feeds energy in; switch it off to see the drag alone: E decreases.
  DraggedKnifeEdge flat = knife;
  flat.slope = 0.0;
  const auto dla = make_dla(flat, 0.05);
  auto s = dla.initial_state(x0.q, x0.v);
  double previous = energy(flat, s.q, dla.velocity(s));
  const double E0 = previous;
  for (int k = 0; k < 400; ++k) {
    dla.step(s);
    const double E = energy(flat, s.q, dla.velocity(s));
    ASSERT_LT(E, previous + 1e-12) << "step " << k;
    previous = E;
  }
  // the blade speed decays like e^{−c t/m}: E_kinetic of the blade ∝ e^{−2ct}
  const double blade = 0.5 * x0.v.head<2>().squaredNorm() * std::exp(-2 * flat.drag * 20.0);
  EXPECT_NEAR(previous - 0.5 * x0.v[2] * x0.v[2], blade, 1e-3 * E0);
}

// A two-point start (q0, q1) of a forced system: the momentum at q0 is the forced discrete Legendre
// map −D1 L_d − F_d^−, a second-order estimate of ∂L/∂v(q0, v0); leaving out F_d^− = (h/2)F would
// make it first order (off by c·h·v0/2 here).
TEST(Forced, TwoPointStartMomentumIncludesTheDiscreteForce) {
  const ViscousOscillator osc;
  const double q0 = 1.0, v0 = 1.0;
  std::vector<double> errors;
  for (double h : {0.04, 0.02, 0.01}) {
    const DiscreteEulerLagrange<ViscousOscillator, AlphaRule<ViscousOscillator>> del(osc, AlphaRule<ViscousOscillator>(osc, h));
    const auto dla = make_dla(osc, h);
    const Vecd<1> a(q0), b(osc.exact(q0, v0, h));
    errors.push_back(std::abs(del.pre_momentum(a, b)[0] - v0));
    EXPECT_NEAR(dla.pre_momentum(a, b)[0], del.pre_momentum(a, b)[0], 1e-14);
  }
  const double order = std::log2(errors[1] / errors[2]);
  test::report("forced_two_point_start_momentum_order", order);
  EXPECT_NEAR(order, 2.0, 0.1);
}

// A force of the time: DEL and DLA read it at the midpoint time t_k + h/2 of each step, RK4 at its
// stage times, the reference solver wherever it evaluates. Read at t_k instead, DEL would be of
// order 1; the orders here are 2, 2 and 4 against the closed form, from a start at t = 0 and on.
TEST(Forced, ForceOfTheTimeKeepsTheOrders) {
  const DrivenOscillator osc;
  const PhasePoint<1> x0{Vecd<1>(1.0), Vecd<1>(0.5)};
  const double T = 5.0, truth = osc.exact(1.0, 0.5, T);
  const auto order_of = [&](auto make) {
    return test::measured_order(T, {25, 50, 100, 200}, [&](double h, long N) {
      return std::abs(test::final_state(make(h), x0, N).q[0] - truth);
    });
  };
  const double del = order_of([&](double h) {
    return DiscreteEulerLagrange<DrivenOscillator, AlphaRule<DrivenOscillator>>(osc,
                                                                                AlphaRule<DrivenOscillator>(osc, h));
  });
  const double dla = order_of([&](double h) { return make_dla(osc, h); });
  const double rk4 = order_of([&](double h) { return RungeKutta4<DrivenOscillator>(osc, h); });
  test::report("driven_oscillator_del_order", del);
  test::report("driven_oscillator_dla_order", dla);
  test::report("driven_oscillator_rk4_order", rk4);
  EXPECT_NEAR(del, 2.0, 0.05);
  EXPECT_NEAR(dla, 2.0, 0.05);
  EXPECT_NEAR(rk4, 4.0, 0.1);
  EXPECT_NEAR(test::final_state(ReferenceSolver<DrivenOscillator>(osc, 0.5), x0, 10).q[0], truth, 1e-10);
}
