// Steady motions and their stability (diagnostics/steady_motions.hpp, issue 54): the eigenvalues of
// the linearised dynamics on the linearised constraint against closed forms, continuous to
// round-off and from discrete methods' steps at their orders. Compiled in one unit with
// test_step_derivatives.cpp, whose steps' derivatives on the same models it shares (the names at
// file scope differ).
//  - The Chaplygin sleigh sliding straight at speed u along its blade: with the body's velocity u
//    and angular velocity ω, u̇ = a ω², ω̇ = −m a u ω / (I + m a²), so the eigenvalues on the
//    constraint are 0 (the heading), 0 (the speed) and −m a u / (I + m a²): stable forwards,
//    unstable backwards.
//  - The nonholonomic particle at rest at the bottom of V = c (x² + y²): ±i √(2c), each twice
//    (the constraint ż = y ẋ is ż = 0 to first order there).
//  - The vertical disk rolling on a circle, steady under the rotation of the plane: its rates and
//    two neutral eigenvalues; steady motions found by Gauss–Newton from guesses.
//  - The steps' own steady motions near the continuous ones, where the steps are linearised.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "dalembert/diagnostics/steady_motions.hpp"
#include "dalembert/method/discrete_gradient.hpp"
#include "dalembert/method/dla.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/method/spark.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/particle.hpp"
#include "dalembert/models/vertical_disk.hpp"
#include "test_support.hpp"

using namespace dalembert;

namespace {

models::ChaplyginSleigh sleigh(double m, double I, double a) {
  models::ChaplyginSleigh s;
  s.mass = m;
  s.inertia = I;
  s.offset = a;
  return s;
}

/// The straight motion of the sleigh at speed u with heading θ.
PhasePoint<3> straight(double u, double theta) {
  return {Vecd<3>(0.3, -0.2, theta), Vecd<3>(u * std::cos(theta), u * std::sin(theta), 0.0)};
}

const std::span<const int> sleigh_symmetry(models::ChaplyginSleigh::cyclic_coordinates);    // x, y
const std::span<const int> particle_symmetry(models::NonholonomicParticle::cyclic_coordinates);  // z

double decay_rate(const models::ChaplyginSleigh& s, double u) {
  return -s.mass * s.offset * u / (s.inertia + s.mass * s.offset * s.offset);
}

/// The eigenvalues sorted by real part, then imaginary part.
std::vector<std::complex<double>> sorted(const Eigen::VectorXcd& values) {
  std::vector<std::complex<double>> out(values.data(), values.data() + values.size());
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) {
    return x.real() != y.real() ? x.real() < y.real() : x.imag() < y.imag();
  });
  return out;
}

/// The sleigh's eigenvalue that is not zero, and the largest of the other two.
std::pair<std::complex<double>, double> sleigh_rate_and_rest(const Eigen::VectorXcd& values) {
  int largest = 0;
  for (int i = 1; i < values.size(); ++i)
    if (std::abs(values[i]) > std::abs(values[largest])) largest = i;
  double rest = 0.0;
  for (int i = 0; i < values.size(); ++i)
    if (i != largest) rest = std::max(rest, std::abs(values[i]));
  return {values[largest], rest};
}

}  // namespace

TEST(SteadyMotions, SleighStraightMotionDecaysForwardsAndGrowsBackwards) {
  double worst = 0.0;
  for (const auto& s : {sleigh(1.0, 1.0, 0.5), sleigh(2.0, 0.5, 0.7), sleigh(0.7, 1.3, 0.2)}) {
    for (const double u : {1.0, -1.0, 2.5, -0.4}) {
      for (const double theta : {0.0, 0.4, -2.0}) {
        const PhasePoint<3> x = straight(u, theta);
        const SteadyMotionLinearisation L = steady_motion_linearisation(s, x.q, x.v);
        ASSERT_EQ(L.eigenvalues.size(), 3);  // 2n − s − m = 6 − 2 − 1
        const double expected = decay_rate(s, u);
        const auto [rate, rest] = sleigh_rate_and_rest(L.eigenvalues);
        worst = std::max({worst, std::abs(rate - expected) / std::abs(expected), rest / std::abs(expected)});
        EXPECT_EQ(rate.real() < 0, u > 0) << "forwards stable, backwards unstable";
        // K A = 0: the field maps every variation into the linearised constraint.
        EXPECT_LT((L.constraint * L.field).cwiseAbs().maxCoeff(), 1e-14 * (1 + L.field.cwiseAbs().maxCoeff()));
      }
    }
  }
  test::report("steady_sleigh_eigenvalue_error", worst);
  EXPECT_LT(worst, 1e-12);
}

TEST(SteadyMotions, ParticleAtTheBottomOfItsWellOscillates) {
  for (const double c : {0.5, 1.0, 3.0}) {
    models::NonholonomicParticle p;
    p.potential_coefficient = c;
    const SteadyMotionLinearisation L = steady_motion_linearisation(p, Vecd<3>::Zero(), Vecd<3>::Zero());
    ASSERT_EQ(L.eigenvalues.size(), 4);  // 6 − 1 − 1
    const double omega = std::sqrt(2.0 * c);
    const auto values = sorted(L.eigenvalues);
    for (const auto& value : values) {
      EXPECT_LT(std::abs(value.real()), 1e-13 * omega);
      EXPECT_NEAR(std::abs(value.imag()), omega, 1e-13 * omega);
    }
  }
}

TEST(SteadyMotions, WhatIsNotASteadyMotionOrASymmetryIsRefused) {
  const auto s = sleigh(1.0, 1.0, 0.5);
  PhasePoint<3> turning = straight(1.0, 0.3);
  turning.v[2] = 0.5;  // θ̇ ≠ 0: θ, not symmetric, moves
  EXPECT_THROW(steady_motion_linearisation(s, turning.q, turning.v), std::invalid_argument);
  const PhasePoint<3> x = straight(1.0, 0.3);
  const std::vector<int> heading_too = {0, 1, 2};  // the constraint depends on θ
  EXPECT_THROW(steady_motion_linearisation(s, x.q, x.v, heading_too), std::invalid_argument);
  const std::vector<int> out_of_range = {0, 3};
  EXPECT_THROW(steady_motion_linearisation(s, x.q, x.v, out_of_range), std::invalid_argument);
  models::NonholonomicParticle p;
  p.potential_coefficient = 1.0;
  EXPECT_THROW(steady_motion_linearisation(p, Vecd<3>(0.1, 0.0, 0.0), Vecd<3>::Zero()), std::invalid_argument)
      << "off the bottom of the well the particle accelerates";
}

namespace {

/// |λ_h − λ| of the sleigh's decay rate from `method_of`'s step at h and h/2, and the others' largest
/// |λ_h| at h/2.
template <class MethodOf>
std::tuple<double, double, double> sleigh_discrete_errors(const MethodOf& method_of, double h) {
  const auto s = sleigh(2.0, 0.5, 0.7);
  const PhasePoint<3> x = straight(1.5, 0.4);
  const double expected = decay_rate(s, 1.5);
  std::vector<double> errors;
  double rest = 0.0;
  for (const double step : {h, h / 2}) {
    const auto method = method_of(s, step);
    const auto state = method.initial_state(x.q, x.v);
    const SteadyMotionLinearisation L =
        discrete_steady_motion_linearisation(method, state, sleigh_symmetry);
    EXPECT_EQ(L.eigenvalues.size(), 3);
    const auto [rate, others] = sleigh_rate_and_rest(L.eigenvalues);
    errors.push_back(std::abs(rate - expected));
    rest = others;
  }
  return {errors[0], errors[1], rest};
}

const auto steady_dla_of = [](const auto& system, double h) { return make_dla(system, h); };
const auto steady_rk4_of = [](const auto& system, double h) {
  return RungeKutta4<std::decay_t<decltype(system)>>(system, h);
};
const auto steady_dg_of = [](const auto& system, double h) {
  return DiscreteGradient<std::decay_t<decltype(system)>>(system, h);
};
const auto steady_spark3_of = [](const auto& system, double h) {
  return Spark<std::decay_t<decltype(system)>>(system, h, 3);
};

}  // namespace

TEST(SteadyMotions, DiscreteSleighRatesConvergeAtEachMethodsOrder) {
  const auto check = [](const char* name, const auto& method_of, int order) {
    const auto [coarse, fine, rest] = sleigh_discrete_errors(method_of, 0.2);
    const double observed = std::log2(coarse / fine);
    test::report(std::string("steady_sleigh_order_") + name, observed);
    EXPECT_GT(observed, order - 0.2) << name << ": errors " << coarse << ", " << fine;
    EXPECT_LT(observed, order + 0.5) << name << ": errors " << coarse << ", " << fine;
    EXPECT_LT(rest, 1e-9) << name << ": the heading and the speed stay neutral";
  };
  check("dla", steady_dla_of, 2);
  check("rk4", steady_rk4_of, 4);
  check("discrete_gradient", steady_dg_of, 2);
  check("spark3", steady_spark3_of, 4);
}

TEST(SteadyMotions, DiscreteParticleFrequenciesConvergeAtEachMethodsOrder) {
  models::NonholonomicParticle p;
  p.potential_coefficient = 1.0;
  const double omega = std::sqrt(2.0);
  const auto error_at = [&](const auto& method_of, double h) {
    const auto method = method_of(p, h);
    const auto state = method.initial_state(Vecd<3>::Zero(), Vecd<3>::Zero());
    const SteadyMotionLinearisation L =
        discrete_steady_motion_linearisation(method, state, particle_symmetry);
    EXPECT_EQ(L.eigenvalues.size(), 4);
    double worst = 0.0;
    for (const auto& value : L.eigenvalues) worst = std::max(worst, std::abs(std::abs(value.imag()) - omega));
    for (const auto& mu : L.multipliers) worst = std::max(worst, std::abs(std::abs(mu) - 1.0) / h);
    return worst;
  };
  const auto check = [&](const char* name, const auto& method_of, int order, bool on_the_circle) {
    const double coarse = error_at(method_of, 0.2), fine = error_at(method_of, 0.1);
    const double observed = std::log2(coarse / fine);
    test::report(std::string("steady_particle_order_") + name, observed);
    EXPECT_GT(observed, order - 0.2) << name << ": errors " << coarse << ", " << fine;
    if (on_the_circle) {  // a symmetric method's multipliers stay on the unit circle
      const auto method = method_of(p, 0.1);
      const auto at_rest = method.initial_state(Vecd<3>::Zero(), Vecd<3>::Zero());
      const auto L = discrete_steady_motion_linearisation(method, at_rest, particle_symmetry);
      for (const auto& mu : L.multipliers) EXPECT_NEAR(std::abs(mu), 1.0, 1e-12) << name;
    }
  };
  check("dla", steady_dla_of, 2, true);
  check("rk4", steady_rk4_of, 4, false);
  check("discrete_gradient", steady_dg_of, 2, true);
  check("spark3", steady_spark3_of, 4, true);
}

namespace {

/// The vertical disk (R = 0.7, rolling and turning inertias 0.4 and 0.3) rolling at θ̇ = Ω = 1.3
/// and turning at φ̇ = ω = 0.8 from q, and its symmetry: the translations of x, y and θ and the
/// rotation of (x, y) turning φ.
struct DiskOnACircle {
  models::VerticalDisk disk = [] {
    models::VerticalDisk d;
    d.radius = 0.7;
    d.rolling_inertia = 0.4;
    d.turning_inertia = 0.3;
    return d;
  }();
  double Omega = 1.3, omega = 0.8;
  Vecd<4> q = Vecd<4>(0.3, -0.2, 0.5, 0.4);
  Vecd<4> v = Vecd<4>(disk.radius * Omega * std::cos(q[3]), disk.radius * Omega * std::sin(q[3]), Omega, omega);
  Symmetry symmetry = [] {
    Symmetry s = translations(4, std::vector<int>{0, 1, 2});  // x, y, θ
    s.push_back(rotation(4, 0, 1, 3));                        // (x, y) turning φ
    return s;
  }();
};

}  // namespace

// The vertical disk rolling on a circle (θ̇ = Ω, φ̇ = ω): not steady under translations, whose
// motions have constant velocities, but under the rotation of the plane that turns the heading with
// it, at rate ω about the circle's centre; the translations of x and y take up the centre's offset:
// ẋ = α − ω y, ẏ = β + ω x at the start. Every (Ω, ω) rolls on a circle, so what is left modulo the
// orbit (2n − m − 4 = 2 directions, the two rates) is neutral: both eigenvalues 0.
TEST(SteadyMotions, VerticalDiskOnACircleIsSteadyUnderTheRotation) {
  const DiskOnACircle circle;
  const models::VerticalDisk& d = circle.disk;
  const double Omega = circle.Omega, omega = circle.omega;
  const Vecd<4>& q = circle.q;
  const Vecd<4>& v = circle.v;
  const Symmetry& symmetry = circle.symmetry;
  const SteadyMotionLinearisation L = steady_motion_linearisation(d, q, v, symmetry);
  ASSERT_EQ(L.rates.size(), 4);
  EXPECT_NEAR(L.rates[0], v[0] + omega * q[1], 1e-14);  // α
  EXPECT_NEAR(L.rates[1], v[1] - omega * q[0], 1e-14);  // β
  EXPECT_NEAR(L.rates[2], Omega, 1e-14);
  EXPECT_NEAR(L.rates[3], omega, 1e-14);
  ASSERT_EQ(L.eigenvalues.size(), 2);
  for (const auto& value : L.eigenvalues) EXPECT_LT(std::abs(value), L.resolution);
  EXPECT_EQ(L.growing_modes(), 0);
  // Under translations (the heading's too, for its velocity) the circle is not steady: x and y
  // accelerate. Rolling straight is steady under them, but the heading's is no symmetry: the
  // constraint turns with φ.
  const std::vector<int> all = {0, 1, 2, 3};
  try {
    steady_motion_linearisation(d, q, v, std::span<const int>(all));
    ADD_FAILURE() << "the circle is steady under translations";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not a steady motion: the acceleration of coordinate"), std::string::npos)
        << e.what();
  }
  const Vecd<4> straight_on(v[0], v[1], Omega, 0.0);
  try {
    steady_motion_linearisation(d, q, straight_on, std::span<const int>(all));
    ADD_FAILURE() << "the heading's translation is taken for a symmetry";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("it is not a symmetry"), std::string::npos) << e.what();
  }
  // From each step, turned back by the rotation at its own steady motion near the circle: the two
  // rates are a Jordan block at the multiplier 1, resolved to round-off there (at the circle's
  // own point, the step's error off its steady motion split them by its square root, 1e-3 for rk4 at
  // h = 0.05).
  const auto check_step = [&](const char* name, const auto& method) {
    const SteadyMotionLinearisation D =
        discrete_steady_motion_linearisation(method, method.initial_state(q, v), symmetry);
    ASSERT_EQ(D.multipliers.size(), 2) << name;
    for (const auto& mu : D.multipliers) {
      test::report(std::string("steady_vertical_disk_multiplier_error_") + name, std::abs(mu - 1.0));
      EXPECT_LT(std::abs(mu - 1.0), 1e-9) << name << ": " << mu;
    }
    EXPECT_EQ(D.growing_modes(), 0) << name;
  };
  check_step("rk4", RungeKutta4<models::VerticalDisk>(d, 0.05));
  check_step("dla", make_dla(d, 0.05));
  check_step("discrete_gradient", DiscreteGradient<models::VerticalDisk>(d, 0.05));
  check_step("spark3", Spark<models::VerticalDisk>(d, 0.05, 3));
}

// The steady motions of the steps themselves (find_discrete_steady_motion): one step takes the state
// to itself moved by the symmetry, at rates within O(h^p) of the continuous motion's.
//  - The sleigh sliding straight along its blade is DLA's steady motion exactly, at its speed: from
//    a state on it, no correction and the rates u (cos θ, sin θ).
//  - The vertical disk's circle with its position, spin rate Ω and turning rate ω held: the offsets
//    of the centre, (α, β) = (ẋ + ω y, ẏ − ω x), converge at each method's order.
TEST(SteadyMotions, EachStepHasItsOwnSteadyMotionsNearTheContinuousOnes) {
  const auto s = sleigh(2.0, 0.5, 0.7);
  const PhasePoint<3> x = straight(1.5, 0.4);
  const auto dla = make_dla(s, 0.2);
  const Symmetry along = translations(3, sleigh_symmetry);
  const auto sliding = find_discrete_steady_motion(dla, dla.initial_state(x.q, x.v), along);
  EXPECT_EQ(sliding.iterations, 0);
  EXPECT_NEAR(sliding.rates[0], x.v[0], 1e-14);
  EXPECT_NEAR(sliding.rates[1], x.v[1], 1e-14);
  const auto next = step_from(dla, sliding.state);
  EXPECT_LT((next.q - sliding.state.q - 0.2 * x.v).lpNorm<Eigen::Infinity>(), 1e-14);

  const DiskOnACircle c;
  SteadyMotionHold hold;
  hold.positions = {0, 1, 2, 3};
  hold.velocities = {2, 3};
  const auto offset_error = [&](const auto& method) {
    const auto motion = find_discrete_steady_motion(method, method.initial_state(c.q, c.v), c.symmetry, hold);
    EXPECT_NEAR(motion.rates[2], c.Omega, 1e-13);
    EXPECT_NEAR(motion.rates[3], c.omega, 1e-13);
    EXPECT_LT(motion.iterations, 6);
    const double alpha = c.v[0] + c.omega * c.q[1], beta = c.v[1] - c.omega * c.q[0];
    return std::max(std::abs(motion.rates[0] - alpha), std::abs(motion.rates[1] - beta));
  };
  const auto check = [&](const char* name, const auto& method_of, int order) {
    const double coarse = offset_error(method_of(c.disk, 0.1)), fine = offset_error(method_of(c.disk, 0.05));
    const double observed = std::log2(coarse / fine);
    test::report(std::string("steady_vertical_disk_own_motion_order_") + name, observed);
    EXPECT_GT(observed, order - 0.2) << name << ": errors " << coarse << ", " << fine;
    EXPECT_LT(observed, order + 0.5) << name << ": errors " << coarse << ", " << fine;
  };
  check("dla", steady_dla_of, 2);
  check("rk4", steady_rk4_of, 4);
  check("discrete_gradient", steady_dg_of, 2);
  check("spark3", steady_spark3_of, 4);
}

// find_steady_motion: from a guess, the steady motion nearest it; what `hold` names stays at the
// guess's values.
TEST(SteadyMotions, GaussNewtonFindsTheSteadyMotionNearestAGuess) {
  // The particle in its well: from off the bottom and moving, the bottom at rest, z kept (a
  // translation, the least-norm correction does not move it).
  models::NonholonomicParticle p;
  p.potential_coefficient = 1.0;
  const std::vector<int> z = {2};
  const SteadyMotionPoint bottom =
      find_steady_motion(p, Vecd<3>(0.3, -0.2, 0.5), Vecd<3>(0.1, 0.0, 0.02), translations(3, z));
  EXPECT_LT(bottom.q.head(2).norm(), 1e-14);
  EXPECT_NEAR(bottom.q[2], 0.5, 1e-14);
  EXPECT_LT(bottom.v.norm(), 1e-14);
  EXPECT_LE(bottom.iterations, 5);
  // The sleigh with θ and ẋ held: straight along the blade at θ = 0.4 with ẋ = 1, so
  // v = (1, tan θ, 0), whose decay rate is that of the speed 1/cos θ.
  const auto s = sleigh(2.0, 0.5, 0.7);
  SteadyMotionHold hold;
  hold.positions = {2};
  hold.velocities = {0};
  const SteadyMotionPoint straight_on =
      find_steady_motion(s, Vecd<3>(0.3, -0.2, 0.4), Vecd<3>(1.0, 0.3, 0.2), translations(3, sleigh_symmetry), hold);
  EXPECT_NEAR(straight_on.q[2], 0.4, 1e-15);
  EXPECT_NEAR(straight_on.v[0], 1.0, 1e-14);
  EXPECT_NEAR(straight_on.v[1], std::tan(0.4), 1e-14);
  EXPECT_NEAR(straight_on.v[2], 0.0, 1e-14);
  const auto L = steady_motion_linearisation(s, Vecd<3>(straight_on.q), Vecd<3>(straight_on.v));
  EXPECT_NEAR(sleigh_rate_and_rest(L.eigenvalues).first.real(), decay_rate(s, 1.0 / std::cos(0.4)), 1e-13);
  // Holding what no steady motion has (the particle's ẋ = 1 where only rest is steady) fails.
  SteadyMotionHold moving;
  moving.velocities = {0};
  EXPECT_THROW(find_steady_motion(p, Vecd<3>(0.3, -0.2, 0.5), Vecd<3>(1.0, 0.0, 0.0), translations(3, z), moving),
               std::invalid_argument);
}
