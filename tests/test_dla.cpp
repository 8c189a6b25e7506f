// Discrete Lagrange–d'Alembert (Cortés–Martínez): the discrete constraint to round-off, measured
// orders against closed forms, the papers' explicit updates, symmetries and equivalent forms.
#include <gtest/gtest.h>

#include <cmath>

#include "dalembert/method/del.hpp"
#include "dalembert/method/dla.hpp"
#include "dalembert/method/reference.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "dalembert/models/particle.hpp"
#include "dalembert/models/unconstrained.hpp"
#include "dalembert/models/vertical_disk.hpp"
#include "test_support.hpp"

using namespace dalembert;
using namespace dalembert::models;

template <class S>
double max_discrete_constraint(const S& sys, double h, long steps) {
  const auto dla = make_dla(sys, h);
  const auto x0 = sys.default_initial();
  auto s = dla.initial_state(x0.q, x0.v);
  double worst = 0.0;
  for (long k = 0; k < steps; ++k) {
    const Vecd<S::n> q = s.q;
    dla.step(s);
    worst = std::max(worst, dla.discrete_constraint()(q, s.q).template lpNorm<Eigen::Infinity>());
  }
  return worst;
}

TEST(DLA, DiscreteConstraintHoldsToRoundOffAtEveryStep) {
  NonholonomicParticle particle;
  particle.potential_coefficient = 1.0;
  test::report("dla_max_discrete_constraint_particle", max_discrete_constraint(particle, 0.1, 2000));
  EXPECT_LT(max_discrete_constraint(particle, 0.1, 2000), 1e-12);
  EXPECT_LT(max_discrete_constraint(KnifeEdge{}, 0.1, 2000), 1e-12);
  EXPECT_LT(max_discrete_constraint(PerturbedKnifeEdge{}, 0.1, 2000), 1e-12);
  EXPECT_LT(max_discrete_constraint(VerticalDisk{}, 0.1, 2000), 1e-12);
  EXPECT_LT(max_discrete_constraint(ChaplyginSleigh{}, 0.1, 2000), 1e-12);
}

/// Max-norm error in q at T against the closed form, for DLA with α-rules.
template <class S>
auto dla_error(const S& sys, double T, double alpha = 0.5) {
  return [&sys, T, alpha](double h, long N) {
    const auto x0 = sys.default_initial();
    const auto dla = make_dla(sys, h, alpha);
    const auto s = test::final_state(dla, x0, N);
    return (s.q - sys.exact_solution(x0, T)->q).template lpNorm<Eigen::Infinity>();
  };
}

TEST(DLA, MidpointIsSecondOrderAgainstClosedForms) {
  const std::vector<long> N = {20, 40, 80, 160};
  const NonholonomicParticle particle;
  const KnifeEdge knife;
  const VerticalDisk disk;
  const double particle_order = test::measured_order(2.0, N, dla_error(particle, 2.0));
  const double knife_order = test::measured_order(2.0, N, dla_error(knife, 2.0));
  const double disk_order = test::measured_order(2.0, N, dla_error(disk, 2.0));
  test::report("dla_midpoint_order_particle", particle_order);
  test::report("dla_midpoint_order_knife_edge", knife_order);
  test::report("dla_midpoint_order_vertical_disk", disk_order);
  EXPECT_NEAR(particle_order, 2.0, 0.1);
  EXPECT_NEAR(knife_order, 2.0, 0.1);
  EXPECT_NEAR(disk_order, 2.0, 0.1);
}

TEST(DLA, OffCentreAlphaIsFirstOrder) {
  const std::vector<long> N = {40, 80, 160, 320};
  const KnifeEdge knife;
  const VerticalDisk disk;
  const double knife0 = test::measured_order(2.0, N, dla_error(knife, 2.0, 0.0));
  const double knife03 = test::measured_order(2.0, N, dla_error(knife, 2.0, 0.3));
  const double disk1 = test::measured_order(2.0, N, dla_error(disk, 2.0, 1.0));
  test::report("dla_alpha0_order_knife_edge", knife0);
  test::report("dla_alpha0.3_order_knife_edge", knife03);
  test::report("dla_alpha1_order_vertical_disk", disk1);
  EXPECT_NEAR(knife0, 1.0, 0.1);
  EXPECT_NEAR(knife03, 1.0, 0.1);
  EXPECT_NEAR(disk1, 1.0, 0.1);
}

TEST(DLA, SecondOrderOnTheSleighAgainstTheReferenceSolver) {
  const ChaplyginSleigh sleigh;
  const auto x0 = sleigh.default_initial();
  const auto ref = reference_solution(sleigh, x0.q, x0.v, 2.0);
  const double order = test::measured_order(2.0, {20, 40, 80, 160}, [&](double h, long N) {
    return (test::final_state(make_dla(sleigh, h), x0, N).q - ref.q).template lpNorm<Eigen::Infinity>();
  });
  test::report("dla_midpoint_order_chaplygin_sleigh", order);
  EXPECT_NEAR(order, 2.0, 0.1);
}

TEST(DLA, VerticalDiskAccuracyAtTheIssuesData) {
  // m = R = I = J = 1, heading rate 2, rolling rate 1, h = 0.1, T = 1.
  const VerticalDisk disk;
  const auto x0 = disk.default_initial();
  ASSERT_DOUBLE_EQ(x0.v[2], 1.0);
  ASSERT_DOUBLE_EQ(x0.v[3], 2.0);
  const double err = dla_error(disk, 1.0)(0.1, 10);
  test::report("dla_vertical_disk_error_h0.1_T1", err);
  EXPECT_LT(err, 1e-2);
}

TEST(DLA, ContinuousConstraintResidualIsSecondOrder) {
  // The central-difference velocity (q_{k+1} − q_{k−1})/2h violates M(q_k) v = 0 by O(h²) (the
  // velocity of the constrained momentum lies in D exactly, so it cannot show this).
  const KnifeEdge knife;
  const auto residual = [&](double h, long N) {
    const auto dla = make_dla(knife, h);
    const auto x0 = knife.default_initial();
    auto s = dla.initial_state(x0.q, x0.v);
    Vecd<3> prev = s.q;
    dla.step(s);
    double worst = 0.0;
    for (long k = 1; k < N; ++k) {
      const Vecd<3> cur = s.q;
      dla.step(s);
      worst = std::max(worst, std::abs((constraint_matrix(knife, cur) * (s.q - prev) / (2 * h))[0]));
      prev = cur;
    }
    return worst;
  };
  const double order = test::measured_order(4.0, {40, 80, 160, 320}, residual);
  test::report("dla_central_difference_constraint_order_knife_edge", order);
  EXPECT_NEAR(order, 2.0, 0.1);
}

TEST(DLA, ReproducesTheThesisExplicitParticleUpdate) {
  // thesis Ex. 7.5.1 with F_d = 0 (its MLA update without the force terms): y2 = 2y1 − y0,
  // x2 = x1 + (x1 − x0)(1 + ½ y1 (y1 + y0)) / (1 + ½ y1 (3 y1 − y0)),  z2 = z1 + ½ (y2 + y1)(x2 − x1).
  const NonholonomicParticle particle;
  const double h = 0.5;
  const auto dla = make_dla(particle, h);
  const double z1 = 0.5 * 0.4 * 0.4;  // (q0, q1) = (0, (0.4, 0.4, z1)) on the midpoint constraint
  Vecd<3> q0 = Vecd<3>::Zero(), q1(0.4, 0.4, z1);
  auto s = dla.initial_state_two_point(q0, q1);
  for (int k = 0; k < 50; ++k) {
    const double x0 = q0[0], y0 = q0[1], x1 = q1[0], y1 = q1[1];
    const double y2 = 2 * y1 - y0;
    const double x2 = x1 + (x1 - x0) * (1 + 0.5 * y1 * (y1 + y0)) / (1 + 0.5 * y1 * (3 * y1 - y0));
    const double z2 = q1[2] + 0.5 * (y2 + y1) * (x2 - x1);
    dla.step(s);
    ASSERT_LT((s.q - Vecd<3>(x2, y2, z2)).norm(), 1e-12 * (1 + s.q.norm())) << "step " << k;
    q0 = q1;
    q1 = s.q;
  }
}

TEST(DLA, ParticleYIsTheExactMidpointRotation) {
  // Our derivation, c = 1: y_k = y0 cos(kθ) + (p_y0/√2) sin(kθ), θ = 2 arctan(h/√2).
  NonholonomicParticle particle;
  particle.potential_coefficient = 1.0;
  const double h = 0.1;
  const auto x0 = particle.default_initial();
  const auto dla = make_dla(particle, h);
  auto s = dla.initial_state(x0.q, x0.v);
  const double theta = 2 * std::atan(h / std::sqrt(2.0));
  for (int k = 1; k <= 3000; ++k) {
    dla.step(s);
    const double y = x0.q[1] * std::cos(k * theta) + x0.v[1] / std::sqrt(2.0) * std::sin(k * theta);
    ASSERT_NEAR(s.q[1], y, 1e-12) << "step " << k;
  }
}

TEST(DLA, HorizontalSymmetriesGiveConstantIncrements) {
  // Knife edge φ_{k+1} − φ_k and free particle y_{k+1} − y_k are constant.
  const KnifeEdge knife;
  const auto dla = make_dla(knife, 0.1);
  const auto x0 = knife.default_initial();
  auto s = dla.initial_state(x0.q, x0.v);
  dla.step(s);
  const double dphi = s.last_velocity[2];
  for (int k = 0; k < 2000; ++k) {
    dla.step(s);
    ASSERT_NEAR(s.last_velocity[2], dphi, 1e-12);
  }
  EXPECT_NEAR(dphi, x0.v[2], 1e-12);
}

TEST(DLA, TwoPointResidualVanishesAndFormsAgree) {
  // D2 L_d(q_{k−1}, q_k) + D1 L_d(q_k, q_{k+1}) ∈ D°_{q_k}: its components on D vanish.
  const ChaplyginSleigh sleigh;
  const double h = 0.1;
  const auto dla = make_dla(sleigh, h);
  const auto x0 = sleigh.default_initial();
  auto a = dla.initial_state(x0.q, x0.v);
  dla.step(a);
  Vecd<3> prev = x0.q;
  auto b = dla.initial_state_two_point(x0.q, a.q);
  for (int k = 0; k < 300; ++k) {
    const Vecd<3> cur = a.q;
    dla.step(a);
    dla.step(b);
    ASSERT_LT((a.q - b.q).norm(), 1e-13);
    const Vecd<3> residual =
        differentiate(dla.discrete_lagrangian(), prev, cur).D2 + differentiate(dla.discrete_lagrangian(), cur, a.q).D1;
    // zero up to the Newton tolerance, 1e-13 relative to the momentum scale
    ASSERT_LT((constraint_frame(sleigh, cur).transpose() * residual).norm(), 1e-12);
    prev = cur;
  }
}

TEST(DLA, TrapezoidalDiscreteLagrangianIsSecondOrder) {
  // L_d = (h/2)[L(q0, v) + L(q1, v)] with the midpoint constraint (`--rule trapezoid`), and the DEL
  // with the same L_d on the harmonic oscillator, against the closed forms.
  const KnifeEdge knife;
  const VerticalDisk disk;
  const HarmonicOscillator oscillator;
  const auto error = [](const auto& sys, double T) {
    return [&sys, T](double h, long N) {
      using S = std::decay_t<decltype(sys)>;
      const auto x0 = sys.default_initial();
      const DiscreteLagrangeDAlembert<S, TrapezoidRule<S>, AlphaConstraint<S>> dla(sys, TrapezoidRule<S>(sys, h),
                                                                                  AlphaConstraint<S>(sys, h));
      return (test::final_state(dla, x0, N).q - sys.exact_solution(x0, T)->q).template lpNorm<Eigen::Infinity>();
    };
  };
  const std::vector<long> N = {20, 40, 80, 160};
  const double knife_order = test::measured_order(2.0, N, error(knife, 2.0));
  const double disk_order = test::measured_order(2.0, N, error(disk, 2.0));
  const double del_order = test::measured_order(2.0, N, [&](double h, long steps) {
    const auto x0 = oscillator.default_initial();
    const DiscreteEulerLagrange<HarmonicOscillator, TrapezoidRule<HarmonicOscillator>> del(
        oscillator, TrapezoidRule<HarmonicOscillator>(oscillator, h));
    return (test::final_state(del, x0, steps).q - oscillator.exact_solution(x0, 2.0)->q).template lpNorm<Eigen::Infinity>();
  });
  test::report("dla_trapezoid_order_knife_edge", knife_order);
  test::report("dla_trapezoid_order_vertical_disk", disk_order);
  test::report("del_trapezoid_order_harmonic_oscillator", del_order);
  EXPECT_NEAR(knife_order, 2.0, 0.1);
  EXPECT_NEAR(disk_order, 2.0, 0.1);
  EXPECT_NEAR(del_order, 2.0, 0.1);
}

TEST(DLA, UserSuppliedDiscreteConstraint) {
  // A discrete constraint of the user's: the trapezoidal ω = ½[M(q0) + M(q1)](q1 − q0)/h instead of
  // the midpoint one. On the vertical disk it is a different discrete constraint space: it holds to
  // round-off at every step, DLA stays second order and differs from the midpoint DLA at O(h²). On
  // the knife edge it is the same space, ½(sin φ0 + sin φ1) = cos(Δφ/2) sin φ̄ (likewise for cos):
  // the same iterates. Written by hand as the midpoint rule it gives the library's iterates.
  const auto trapezoid_constraint = [](const auto& sys, double h) {
    using S = std::decay_t<decltype(sys)>;
    return make_discrete_constraint<S::n, S::m>([sys, h](const auto& q0, const auto& q1) {
      using T = typename std::decay_t<decltype(q0)>::Scalar;
      const Mat<T, S::m, S::n> M = 0.5 * (sys.template constraint_matrix<T>(q0) + sys.template constraint_matrix<T>(q1));
      return Vec<T, S::m>(M * (q1 - q0) / h);
    });
  };
  const auto trapezoid_dla = [&](const auto& sys, double h) {
    using S = std::decay_t<decltype(sys)>;
    return DiscreteLagrangeDAlembert(sys, AlphaRule<S>(sys, h), trapezoid_constraint(sys, h));
  };
  const VerticalDisk disk;
  const auto x0 = disk.default_initial();
  const double order = test::measured_order(2.0, {20, 40, 80, 160}, [&](double h, long N) {
    return (test::final_state(trapezoid_dla(disk, h), x0, N).q - disk.exact_solution(x0, 2.0)->q).template lpNorm<Eigen::Infinity>();
  });
  test::report("dla_user_trapezoidal_constraint_order_vertical_disk", order);
  EXPECT_NEAR(order, 2.0, 0.1);

  const auto dla = trapezoid_dla(disk, 0.1);
  auto s = dla.initial_state(x0.q, x0.v);
  double worst = 0.0;
  for (int k = 0; k < 500; ++k) {
    const Vecd<4> q = s.q;
    dla.step(s);
    worst = std::max(worst, dla.discrete_constraint()(q, s.q).template lpNorm<Eigen::Infinity>());
  }
  EXPECT_LT(worst, 1e-12);
  // The library's TrapezoidConstraint (dla --constraint-rule trapezoid) is this constraint: the same
  // iterates to round-off.
  const DiscreteLagrangeDAlembert library(disk, AlphaRule<VerticalDisk>(disk, 0.1),
                                          TrapezoidConstraint<VerticalDisk>(disk, 0.1));
  const double library_difference =
      (test::final_state(library, x0, 500).q - test::final_state(dla, x0, 500).q).template lpNorm<Eigen::Infinity>();
  test::report("dla_library_trapezoidal_constraint_against_user_one", library_difference);
  EXPECT_LT(library_difference, 1e-13);
  const auto difference = [&](const auto& sys, double h, long steps) {
    const auto y0 = sys.default_initial();
    return (test::final_state(trapezoid_dla(sys, h), y0, steps).q - test::final_state(make_dla(sys, h), y0, steps).q)
        .template lpNorm<Eigen::Infinity>();
  };
  const double disk_difference = difference(disk, 0.1, 20), disk_half = difference(disk, 0.05, 40);
  test::report("vertical disk: trapezoidal vs midpoint constraint at t = 2, h = 0.1", disk_difference);
  EXPECT_NEAR(std::log2(disk_difference / disk_half), 2.0, 0.1);  // an O(h²) difference
  const KnifeEdge knife;
  EXPECT_LT(difference(knife, 0.1, 500), 1e-12);

  const double h = 0.1;
  const auto by_hand = DiscreteLagrangeDAlembert(knife, AlphaRule<KnifeEdge>(knife, h),
                                                 make_discrete_constraint<3, 1>([&knife, h](const auto& q0, const auto& q1) {
                                                   using T = typename std::decay_t<decltype(q0)>::Scalar;
                                                   const Vec<T, 3> q = 0.5 * (q0 + q1);
                                                   return Vec<T, 1>(knife.constraint_matrix<T>(q) * (q1 - q0) / h);
                                                 }));
  const auto y0 = knife.default_initial();
  const double same = (test::final_state(by_hand, y0, 500).q - test::final_state(make_dla(knife, h), y0, 500).q)
                          .template lpNorm<Eigen::Infinity>();
  EXPECT_LT(same, 1e-12);
}
