// FIM on SO(3) ([FIM08] §3–4, on test systems of our own) and the SO(3)
// primitives it rests on: Theorem 1 (energy of p± exact for a bi-invariant metric), Suslov's
// constraint on p~, order 2 against the reference solution of the body equations, the body form
// against the group form (2) with spatial covectors, and the period-2 mode that grows on SO(3).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "dalembert/core/so3.hpp"
#include "dalembert/method/momentum_energy_lie.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/method/reference.hpp"
#include "dalembert/models/rigid_bodies.hpp"
#include "test_support.hpp"

using namespace dalembert;
using namespace dalembert::models;

namespace {
Vecd<3> random_vector(std::mt19937& rng, double scale) {
  std::uniform_real_distribution<double> u(-scale, scale);
  return Vecd<3>(u(rng), u(rng), u(rng));
}
}  // namespace

TEST(So3, PrimitivesAndTheirIdentities) {
  std::mt19937 rng(5);
  double worst = 0.0;
  for (int i = 0; i < 50; ++i) {
    const Vecd<3> w = random_vector(rng, 1.8), x = random_vector(rng, 1.0), mu = random_vector(rng, 1.0);  // |w| < π
    const Matd<3, 3> R = so3::exp(w), C = so3::cayley(x), I = Matd<3, 3>::Identity();
    const Matd<3, 3> K = so3::hat(x);
    worst = std::max({worst, (so3::hat(w) * x - w.cross(x)).norm(), (so3::vee(so3::hat(w)) - w).norm(),
                      so3::orthogonality_error(R), std::abs(R.determinant() - 1), (R * w - w).norm(),
                      (so3::log(R) - w).norm(),
                      so3::orthogonality_error(C), (C - (I - K).inverse() * (I + K)).norm(),
                      std::abs(std::acos(0.5 * (C.trace() - 1)) - 2 * std::atan(x.norm())),
                      // ⟨Ad*_W μ, ξ⟩ = ⟨μ, Ad_W ξ⟩ and Ad_W ξ = vee(W hat(ξ) Wᵀ)
                      std::abs(so3::coadjoint(R, mu).dot(x) - mu.dot(so3::adjoint(R, x))),
                      (so3::adjoint(R, x) - so3::vee(Matd<3, 3>(R * K * R.transpose()))).norm()});
  }
  // exp of a small vector (Taylor branch) and exp(θ e3) in closed form
  const Vecd<3> tiny(1e-5, -2e-5, 3e-5);
  worst = std::max(worst, (so3::exp(tiny) - (Matd<3, 3>::Identity() + so3::hat(tiny) + 0.5 * so3::hat(tiny) * so3::hat(tiny))).norm());
  const double th = 0.7;
  Matd<3, 3> Rz;
  Rz << std::cos(th), -std::sin(th), 0, std::sin(th), std::cos(th), 0, 0, 0, 1;
  worst = std::max(worst, (so3::exp(Vecd<3>(0, 0, th)) - Rz).norm());
  EXPECT_LT(worst, 1e-13);
}

TEST(So3, LogNearPi) {
  const Vecd<3> axis = Vecd<3>(1, 2, -2).normalized();
  for (const double theta : {M_PI - 1e-9, M_PI}) {
    const Matd<3, 3> R = so3::exp(Vecd<3>(theta * axis));
    EXPECT_LT((so3::exp(so3::log(R)) - R).norm(), 1e-7) << theta;
  }
}

TEST(FimLie, MomentumOfTheMoserVeselovLagrangianIsItsRightTrivialisedDerivative) {
  // ⟨p, ξ⟩ = d/dε l_d(exp(εξ) W) at ε = 0, by central differences; and p → IΩ as W = exp(hΩ), h → 0.
  const Suslov body;
  const double h = 0.1;
  const RigidBodyMomentumEnergy<Suslov> fim(body, h);
  const Matd<3, 3> I = body.inertia(), Jd = 0.5 * I.trace() * Matd<3, 3>::Identity() - I;
  const auto ld = [&](const Matd<3, 3>& W) { return ((Matd<3, 3>::Identity() - W) * Jd).trace() / h; };
  const Matd<3, 3> W = so3::exp(Vecd<3>(0.1, -0.05, 0.02));
  const Vecd<3> p = fim.momentum_of<double>(W);
  for (int j = 0; j < 3; ++j) {
    const Vecd<3> e = 1e-6 * Vecd<3>::Unit(j);
    const double fd = (ld(so3::exp(e) * W) - ld(so3::exp(Vecd<3>(-e)) * W)) / 2e-6;
    EXPECT_NEAR(p[j], fd, 1e-8);
  }
  const Vecd<3> omega(0.3, -0.2, 0.5);
  const auto consistency = [&](double step) {  // p(exp(hΩ)) = IΩ + O(h)
    const RigidBodyMomentumEnergy<Suslov> m(body, step);
    return (m.momentum_of<double>(so3::exp(Vecd<3>(step * omega))) - I * omega).norm();
  };
  EXPECT_LT(consistency(1e-3), 1e-3);
  EXPECT_NEAR(consistency(1e-3) / consistency(1e-4), 10.0, 0.01);
}

TEST(FimLie, TheoremOneBiInvariantMetricWithAnAttitudeDependentConstraint) {
  // [FIM08] Theorem 1: I = identity, a(g) = (g11 + 2, g22, g33): ½|p±|² constant to 1e-13 over
  // 3000 steps, gᵀg = I to 1e-12, and A(g) Ω~ = 0 to round-off.
  const RigidBodyAttitudeConstraint body;
  const auto x0 = body.default_initial();
  const double E0 = energy(body, x0.g, x0.omega);
  const RigidBodyMomentumEnergy<RigidBodyAttitudeConstraint> fim(body, 0.1, FimStart::A);
  auto s = fim.initial_state(x0.g, x0.omega);
  double energy = 0.0, orthogonality = 0.0, constraint = 0.0;
  for (int k = 0; k < 3000; ++k) {
    fim.step(s);
    const auto e = fim.extra_values(s);
    energy = std::max({energy, std::abs(e[0] - E0), std::abs(e[1] - E0)});
    orthogonality = std::max(orthogonality, so3::orthogonality_error(s.g));
    constraint = std::max({constraint, constraint_residual(body, s.g, fim.velocity(s)), e[2]});
  }
  EXPECT_LT(energy, 1e-13);
  EXPECT_LT(orthogonality, 1e-12);
  EXPECT_LT(constraint, 1e-15);
  test::report("SO(3) I=1 attitude constraint 3000 steps |E(p-) - E0|", energy);
}

TEST(FimLie, SuslovAverageMomentumOnTheConstraintAndEnergies) {
  // Suslov: I = diag(1, 2, 3), a = e3, h = 0.1, 2·10^4 steps: Q*(p~) = 0,
  // ½ pᵀI⁻¹p constant for p± (beyond Theorem 1, an observation of ours; it needs the
  // Moser–Veselov equation solved to round-off, hence the Newton tolerance), while the energy of
  // p~ varies (an independent run: up to 1e-4 for unrecorded initial data; here Ω0 = (1, 0.5, 0)).
  const Suslov body;
  const auto x0 = body.default_initial();
  const double E0 = energy(body, x0.g, x0.omega);
  NewtonOptions tight;
  tight.tolerance = 1e-16;
  for (const FimStart start : {FimStart::A, FimStart::B}) {
    const RigidBodyMomentumEnergy<Suslov> fim(body, 0.1, start, tight);
    auto s = fim.initial_state(x0.g, x0.omega);
    const double Eminus = fim.extra_values(s)[0];
    double residual = 0.0, pm = 0.0, average = 0.0;
    for (int k = 0; k < 20000; ++k) {
      fim.step(s);
      const auto e = fim.extra_values(s);
      residual = std::max(residual, e[2]);
      pm = std::max({pm, std::abs(e[0] - Eminus), std::abs(e[1] - Eminus)});
      average = std::max(average, std::abs(energy(body, s.g, fim.velocity(s)) - E0));
    }
    EXPECT_LT(residual, 1e-15);
    EXPECT_LT(pm, 1e-13);
    // start B seeds the period-2 mode at O(h³) and the energy of p~ varies 300 times less
    test::report(std::string("Suslov variation of E(p~), start ") + (start == FimStart::A ? "A" : "B"), average);
    if (start == FimStart::A) {
      EXPECT_NEAR(average, 4.19e-4, 0.01e-4);
    } else {
      EXPECT_NEAR(average, 1.31e-6, 0.01e-6);
    }
  }
}

TEST(FimLie, SecondOrderAgainstTheReferenceAndTheSuslovClosedForm) {
  // T = 3, h = 0.1 … 0.0125, error in g and Ω~.
  const std::vector<long> N = {30, 60, 120, 240};
  const double T = 3.0;
  const auto order = [&](const auto& body, const RigidBodyPoint& x0, const RigidBodyPoint& truth, FimStart start) {
    using B = std::decay_t<decltype(body)>;
    return test::measured_order(T, N, [&](double h, long n) {
      const RigidBodyMomentumEnergy<B> fim(body, h, start);
      auto s = fim.initial_state(x0.g, x0.omega);
      for (long k = 0; k < n; ++k) fim.step(s);
      return std::max((s.g - truth.g).cwiseAbs().maxCoeff(), (fim.velocity(s) - truth.omega).cwiseAbs().maxCoeff());
    });
  };
  const Suslov suslov;
  const auto xs = suslov.default_initial();
  const auto exact = *suslov.exact_solution(xs, T);
  EXPECT_LT((rigid_body_reference_solution(suslov, xs, T).g - exact.g).norm(), 1e-12);
  EXPECT_NEAR(order(suslov, xs, exact, FimStart::A), 2.0, 0.05);
  Suslov tilted;  // a not a principal axis: a nontrivial Suslov problem
  tilted.a1 = 1.0;
  tilted.a2 = 1.0;
  const auto xt = tilted.default_initial();
  EXPECT_NEAR(order(tilted, xt, rigid_body_reference_solution(tilted, xt, T), FimStart::A), 2.0, 0.05);
  RigidBodyAttitudeConstraint sphere;
  const auto xa = sphere.default_initial();
  EXPECT_NEAR(order(sphere, xa, rigid_body_reference_solution(sphere, xa, T), FimStart::A), 2.0, 0.05);
  EXPECT_NEAR(order(sphere, xa, rigid_body_reference_solution(sphere, xa, T), FimStart::B), 2.0, 0.05);
  RigidBodyAttitudeConstraint asymmetric;
  asymmetric.I2 = 2.0;
  asymmetric.I3 = 3.0;
  EXPECT_NEAR(order(asymmetric, xa, rigid_body_reference_solution(asymmetric, xa, T), FimStart::A), 2.0, 0.05);
}

TEST(FimLie, Rk4OnTheBodyEquationsIsFourthOrder) {
  const RigidBodyAttitudeConstraint body;
  const auto x0 = body.default_initial();
  const double T = 3.0;
  const auto ref = rigid_body_reference_solution(body, x0, T);
  const double order = test::measured_order(T, {15, 30, 60}, [&](double h, long n) {
    const RungeKutta4<RigidBodyAttitudeConstraint> rk4(body, h);
    auto s = rk4.initial_state(x0.g, x0.omega);
    for (long k = 0; k < n; ++k) rk4.step(s);
    return (s.g - ref.g).cwiseAbs().maxCoeff();
  });
  EXPECT_NEAR(order, 4.0, 0.15);
}

TEST(FimLie, BodyFormEqualsTheGroupFormWithSpatialCovectors) {
  // [FIM08] (2): p⁻_{k+1} = (P − Q)*|_{g_{k+1}}(R*_{W_k⁻¹} p⁻_k). In spatial covectors
  // (π = g μ) the right translation leaves π unchanged and (P − Q)* uses the spatial inertia
  // g I gᵀ and spatial constraint covectors g a(g); the body momentum is then gᵀπ.
  const auto check = [](const auto& body) {
    using B = std::decay_t<decltype(body)>;
    const auto x0 = body.default_initial();
    const RigidBodyMomentumEnergy<B> fim(body, 0.1);
    auto s = fim.initial_state(x0.g, x0.omega);
    double worst = 0.0;
    for (int k = 0; k < 500; ++k) {
      const Vecd<3> pi = s.g * s.p;  // spatial p⁻_k
      fim.step(s);
      const Matd<3, 3> Is = s.g * body.inertia() * s.g.transpose();
      const Vecd<3> as = s.g * body.template constraint_matrix<double>(s.g).transpose();
      const Vecd<3> Isinv_as = Is.ldlt().solve(as);
      const Vecd<3> reflected = pi - 2 * as * (Isinv_as.dot(pi) / Isinv_as.dot(as));
      worst = std::max(worst, (s.g.transpose() * reflected - s.p).norm());
    }
    EXPECT_LT(worst, 1e-13);
  };
  check(Suslov{});
  RigidBodyAttitudeConstraint body;
  body.I2 = 2.0;
  check(body);
}

TEST(FimLie, KnownShortfall_PeriodTwoModeGrowsOnSo3) {
  // Expected behaviour (our observation, docs/methods.md): on SO(3) with I = identity and the attitude-dependent
  // constraint, the alternating component of Q* p± grows at a rate that does not depend on h.
  // With start A it starts at O(h) and reaches O(1) around t ≈ 20–25: ½|p±|² stays exact but the
  // accuracy is lost for every h by T = 30 (g0 = exp(0.2, 0.75, −0.5), Ω0 = (−0.15, 0.86, −0.49)
  // projected onto a(g0)⊥). Start B seeds it at O(h³), which postpones the growth past T = 30.
  const RigidBodyAttitudeConstraint body;
  const Matd<3, 3> g0 = so3::exp(Vecd<3>(0.2, 0.75, -0.5));
  const Vecd<3> a = body.constraint_matrix<double>(g0).transpose(), w(-0.15, 0.86, -0.49);
  const Vecd<3> omega0 = w - a * (a.dot(w) / a.squaredNorm());
  const double E0 = energy(body, g0, omega0);
  const auto ref3 = rigid_body_reference_solution(body, {g0, omega0}, 3.0);
  const auto ref30 = rigid_body_reference_solution(body, {g0, omega0}, 30.0);
  for (const double h : {0.1, 0.025}) {
    const RigidBodyMomentumEnergy<RigidBodyAttitudeConstraint> fim(body, h, FimStart::A);
    auto s = fim.initial_state(g0, omega0);
    double early = 0.0, late = 0.0, energy = 0.0, error3 = 0.0;
    for (long k = 1; k <= std::lround(30 / h); ++k) {
      fim.step(s);
      const auto e = fim.extra_values(s);
      (s.t <= 10 ? early : late) = std::max(s.t <= 10 ? early : late, e[3]);
      energy = std::max(energy, std::abs(e[0] - E0));
      if (k == std::lround(3 / h)) error3 = (s.g - ref3.g).cwiseAbs().maxCoeff();
    }
    EXPECT_LT(early, 0.3 * h) << h;  // O(h) seed
    EXPECT_GT(late, 0.6) << h;       // O(1) whatever h
    EXPECT_LT(error3, 1.0 * h * h) << h;
    EXPECT_GT((s.g - ref30.g).cwiseAbs().maxCoeff(), 0.5) << h;
    EXPECT_LT(energy, 1e-13) << h;

    const RigidBodyMomentumEnergy<RigidBodyAttitudeConstraint> fim_b(body, h, FimStart::B);
    auto b = fim_b.initial_state(g0, omega0);
    for (long k = 1; k <= std::lround(30 / h); ++k) fim_b.step(b);
    test::report("SO(3) shortfall error in g at T=30, start A, h=" + std::to_string(h), (s.g - ref30.g).cwiseAbs().maxCoeff());
    test::report("SO(3) shortfall error in g at T=30, start B, h=" + std::to_string(h), (b.g - ref30.g).cwiseAbs().maxCoeff());
    EXPECT_LT((b.g - ref30.g).cwiseAbs().maxCoeff(), 4.0 * h * h) << h;
  }
}

namespace {
/// A free rigid body (no constraint): FIM on SO(3) is then the Moser–Veselov discrete Euler–Lagrange
/// equation itself.
struct FreeRigidBody {
  static constexpr int m = 0;
  Matd<3, 3> inertia() const { return Vecd<3>(1.0, 2.0, 3.0).asDiagonal(); }
  template <class T>
  Mat<T, 0, 3> constraint_matrix(const Mat<T, 3, 3>&) const {
    return {};
  }
};
}  // namespace

TEST(FimLie, WithoutConstraintsItIsTheMoserVeselovStep) {
  // On SO(3) with m = 0 the step is the unconstrained discrete Euler–Lagrange
  // equation of l_d, so (i) p_{k+1} = W_kᵀ p_k with (1/h) vee(W_k J_d − J_d W_kᵀ) = p_k, and (ii) the
  // spatial momentum g_k p_k, the Noether momentum of the left-invariant l_d, is conserved.
  const FreeRigidBody body;
  const double h = 0.1;
  const RigidBodyMomentumEnergy<FreeRigidBody> fim(body, h, FimStart::A);
  const Matd<3, 3> I = body.inertia(), Jd = 0.5 * I.trace() * Matd<3, 3>::Identity() - I;
  auto s = fim.initial_state(Matd<3, 3>::Identity(), Vecd<3>(0.3, 1.0, -0.5));
  const Vecd<3> pi0 = s.g * s.p;
  double equation = 0.0, noether = 0.0, average = 0.0;
  for (int k = 0; k < 3000; ++k) {
    const Matd<3, 3> g = s.g;
    const Vecd<3> p = s.p;
    fim.step(s);
    const Matd<3, 3> W = g.transpose() * s.g;
    equation = std::max({equation, (so3::vee(Matd<3, 3>(W * Jd - Jd * W.transpose())) / h - p).norm(),
                         (s.p - W.transpose() * p).norm()});
    noether = std::max(noether, (s.g * s.p - pi0).norm());
    average = std::max(average, (s.p_average - s.p).norm());  // P* = I: no averaging
  }
  test::report("fim-lie without constraints: Moser-Veselov residual", equation);
  test::report("fim-lie without constraints: spatial momentum drift over 3000 steps", noether);
  EXPECT_LT(equation, 1e-12);
  EXPECT_LT(noether, 1e-11);
  EXPECT_LT(average, 1e-15);
}

// The step's derivative on SO(3) (step_derivative: the chart g exp(hat ξ), the step's momentum
// equation by the implicit-function theorem, the projectors at g_{k+1} in dual numbers) against
// central differences of the step, three steps into the run: g_k moved to g_k exp(±ε hat e_j) and
// p_k by ±ε (ε = 1e-6), ξ_{k+1} read as log(g_{k+1}ᵀ g'_{k+1}). Suslov's constraint is fixed in the
// body; the attitude constraint turns with g, and its projectors' derivative is part of the step's:
// without it the derivative is off by more than a tenth of its largest entry.
TEST(FimLie, StepDerivativeAgreesWithCentralDifferences) {
  const auto error_of = [](const auto& body, const std::string& name) {
    using B = std::decay_t<decltype(body)>;
    const RigidBodyMomentumEnergy<B> fim(body, 0.1);
    const auto x0 = body.default_initial();
    auto s = fim.initial_state(x0.g, x0.omega);
    for (int k = 0; k < 3; ++k) fim.step(s);
    const Eigen::MatrixXd D = fim.step_derivative(s);
    auto next = s;
    fim.step(next);
    const double e = 1e-6;
    Eigen::MatrixXd reference(6, 6);
    for (int j = 0; j < 6; ++j) {
      auto up = s, down = s;
      if (j < 3) {
        up.g = s.g * so3::exp(Vecd<3>(e * Vecd<3>::Unit(j)));
        down.g = s.g * so3::exp(Vecd<3>(-e * Vecd<3>::Unit(j)));
      } else {
        up.p[j - 3] += e;
        down.p[j - 3] -= e;
      }
      fim.step(up);
      fim.step(down);
      const Matd<3, 3> back = next.g.transpose();
      reference.col(j) << (so3::log(back * up.g) - so3::log(back * down.g)) / (2 * e), (up.p - down.p) / (2 * e);
    }
    const double error = (D - reference).cwiseAbs().maxCoeff() / D.cwiseAbs().maxCoeff();
    test::report("step_derivative_fim_lie_" + name, error);
    return error;
  };
  EXPECT_LT(error_of(Suslov{}, "suslov"), 1e-8);
  EXPECT_LT(error_of(RigidBodyAttitudeConstraint{}, "attitude_constraint"), 1e-8);
}
