// Modified Lagrange–d'Alembert (MLA): reductions to DLA and forced DEL, the papers' explicit
// updates and Legendre maps, the three experiments of [ASMM22] §5.4 / thesis §7.5 with MLA and
// DLA side by side (against independently computed reference numbers), orders by refinement.
#include <gtest/gtest.h>

#include <cmath>

#include "dalembert/method/del.hpp"
#include "dalembert/method/dla.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"
#include "dalembert/method/reference.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "dalembert/models/particle.hpp"
#include "test_support.hpp"

using namespace dalembert;
using namespace dalembert::models;

namespace {

/// DLA written as MLA with F_d^± = 0 and the midpoint L_d and ω (the same iterates as make_dla,
/// test WithoutForcesIsDLA), which also gives DLA's discrete Legendre maps F^−l_d = E(q0)ᵀ(−D1 L_d).
template <class S>
auto mla_without_forces(const S& sys, double h) {
  return make_mla(sys, AlphaRule<S>(sys, h), ZeroForce<S::n>{}, AlphaConstraint<S>(sys, h));
}

/// The energies the papers plot, H_k = H|_{D*}(q_k, F^−l_d(q_k, q_{k+1})) for k = 0..N−1, and the
/// positions q_0..q_N, from the two-point start (q0, q1).
struct Experiment {
  std::vector<double> H;
  std::vector<Vecd<3>> q;
  double spread() const { return *std::max_element(H.begin(), H.end()) - *std::min_element(H.begin(), H.end()); }
  double min() const { return *std::min_element(H.begin(), H.end()); }
};

template <class S, class Method>
Experiment experiment(const S& sys, const Method& method, const Vecd<3>& q0, const Vecd<3>& q1, long N) {
  Experiment e;
  e.q = {q0, q1};
  e.H.push_back(constrained_hamiltonian(sys, q0, method.legendre_minus(q0, q1)));
  auto s = method.initial_state_two_point(q0, q1);
  for (long k = 1; k < N; ++k) {
    e.H.push_back(constrained_hamiltonian(sys, s.q, method.constrained_momentum(s)));  // = F^−l_d(q_k, q_{k+1})
    method.step(s);
    e.q.push_back(s.q);
  }
  return e;
}

void expect_near_relative(const Vecd<3>& a, const Vecd<3>& b, double tol) {
  EXPECT_LT((a - b).norm(), tol * (1.0 + b.norm())) << a.transpose() << "  vs  " << b.transpose();
}

// Paper data (thesis Ex. 7.5.1–7.5.3, as we read them): q0 = 0, h = 0.5; the particle's q1 =
// (0.4, 0.4, z1) with z1 from the midpoint constraint; the knife edges' "q1 = (0.4, 0.4, y1)" lists
// (x, φ, y) as in H(x, φ, y, p1, p2): x1 = φ1 = 0.4 and y1 from the midpoint constraint.
const Vecd<3> kOrigin = Vecd<3>::Zero();
const Vecd<3> kParticleQ1(0.4, 0.4, 0.08);
Vecd<3> knife_q1(double eps) { return {0.4, 0.4 * std::sin(0.2) / (std::cos(0.2) - eps), 0.4}; }

}  // namespace

TEST(MLA, WithoutForcesIsDLA) {
  // Same equations, same Newton start, same iterates to round-off.
  NonholonomicParticle particle;
  particle.potential_coefficient = 1.0;
  const auto same = [](const auto& sys, double h) {
    const auto x0 = sys.default_initial();
    const auto dla = make_dla(sys, h);
    const auto mla = mla_without_forces(sys, h);
    auto a = dla.initial_state(x0.q, x0.v);
    auto b = mla.initial_state(x0.q, x0.v);
    double worst = 0.0;
    for (int k = 0; k < 500; ++k) {
      dla.step(a);
      mla.step(b);
      worst = std::max({worst, (a.q - b.q).norm() / (1.0 + a.q.norm()), (a.p - b.p).norm() / (1.0 + a.p.norm())});
    }
    return worst;
  };
  EXPECT_LT(same(particle, 0.1), 1e-14);
  EXPECT_LT(same(KnifeEdge{}, 0.1), 1e-14);
  EXPECT_LT(same(PerturbedKnifeEdge{}, 0.1), 1e-14);
  EXPECT_LT(same(ChaplyginSleigh{}, 0.1), 1e-14);
}

namespace {
/// An unconstrained system with an external force: L = ½q̇² − ½kq², F = −c q̇.
struct FrictionOscillator : Mechanical<FrictionOscillator, 1> {
  static constexpr int n = 1, m = 0;
  double k = 1.0, c = 0.3;
  template <class T>
  Eigen::DiagonalMatrix<double, 1> metric(const Vec<T, 1>&) const {
    return Eigen::DiagonalMatrix<double, 1>(Vecd<1>(1.0));
  }
  template <class T>
  T potential(const Vec<T, 1>& q) const { return 0.5 * k * q[0] * q[0]; }
  template <class T>
  Mat<T, 0, 1> constraint_matrix(const Vec<T, 1>&) const { return {}; }
  template <class T>
  Vec<T, 1> force(const Vec<T, 1>&, const Vec<T, 1>& v, double) const {
    return -c * v;
  }
};
}  // namespace

TEST(MLA, WithoutConstraintsIsForcedDiscreteEulerLagrange) {
  // D = TQ, M_d = Q×Q: the forced midpoint DEL D2L_d + D1L_d + F_d^+ + F_d^− = 0 of the damped
  // oscillator is the linear recurrence
  //   (1/h + hk/4 + c/2) q2 = (2/h − hk/2) q1 − (1/h + hk/4 − c/2) q0.
  const FrictionOscillator osc;
  const double h = 0.2, k = osc.k, c = osc.c;
  const auto mla = make_midpoint_mla(osc, h);
  double q0 = 1.0, q1 = 0.95;
  auto s = mla.initial_state_two_point(Vecd<1>(q0), Vecd<1>(q1));
  for (int step = 0; step < 200; ++step) {
    const double q2 = ((2 / h - h * k / 2) * q1 - (1 / h + h * k / 4 - c / 2) * q0) / (1 / h + h * k / 4 + c / 2);
    mla.step(s);
    ASSERT_NEAR(s.q[0], q2, 1e-14) << "step " << step;
    q0 = q1;
    q1 = s.q[0];
  }
  EXPECT_LT(std::abs(q1), 0.01);  // the oscillator has lost its energy to the damping

  // and the library's forced DEL (del.hpp with the midpoint force) gives the same iterates.
  const DiscreteEulerLagrange<FrictionOscillator, AlphaRule<FrictionOscillator>> del(
      osc, AlphaRule<FrictionOscillator>(osc, h));
  const PhasePoint<1> x0{Vecd<1>(1.0), Vecd<1>(-0.4)};
  auto a = del.initial_state(x0.q, x0.v);
  auto b = mla.initial_state(x0.q, x0.v);
  double worst = 0.0;
  for (int step = 0; step < 200; ++step) {
    del.step(a);
    mla.step(b);
    worst = std::max({worst, std::abs(a.q[0] - b.q[0]), std::abs(a.p[0] - b.p[0])});
  }
  test::report("mla_vs_forced_del_max_difference", worst);
  EXPECT_LT(worst, 1e-15);
}

TEST(MLA, GenericStepIsThePapersExplicitParticleUpdate) {
  // thesis Ex. 7.5.1 / [ASMM22] Example 3 (z2, not printed, from the midpoint constraint (43)), checked at every
  // step from the generic solver's own history over the whole experiment.
  const NonholonomicParticle particle;
  const auto mla = make_midpoint_mla(particle, 0.5);
  auto s = mla.initial_state_two_point(kOrigin, kParticleQ1);
  Vecd<3> prev = kOrigin;
  double worst = 0.0;
  for (int k = 1; k < 1200; ++k) {
    const double x0 = prev[0], y0 = prev[1], x1 = s.q[0], y1 = s.q[1], z1 = s.q[2];
    const double y2 = 2 * y1 - y0;
    const double num = 1 + 0.5 * y1 * (y1 + y0) + (y1 - y0) * (y1 - y0) / (4 + (y1 + y0) * (y1 + y0));
    const double den = 1 + 0.5 * y1 * (3 * y1 - y0) + (y1 - y0) * (y1 - y0) / (4 + (3 * y1 - y0) * (3 * y1 - y0));
    const double x2 = x1 + (x1 - x0) * num / den;
    const double z2 = z1 + 0.5 * (y2 + y1) * (x2 - x1);
    prev = s.q;
    mla.step(s);
    const Vecd<3> step_generic = s.q - prev, step_paper = Vecd<3>(x2, y2, z2) - prev;
    worst = std::max(worst, (step_generic - step_paper).norm() / step_paper.norm());
  }
  EXPECT_LT(worst, 1e-12);
}

TEST(MLA, DiscreteLegendreMapsAreThePapers) {
  // thesis Ex. 7.5.1: on M_d, with s = y0 + y1,
  //   F^∓l_d(q0, q1) = ((Δx/h)(1 + ½ y_{0|1} s + Δy²/(4 + s²)), Δy/h) on the frame e1 = ∂x + y∂z, e2 = ∂y.
  const NonholonomicParticle particle;
  const double h = 0.3;
  const auto mla = make_midpoint_mla(particle, h);
  for (const auto& [x0, y0, z0, x1, y1] : std::vector<std::array<double, 5>>{
           {0.0, 0.0, 0.0, 0.4, 0.4}, {1.0, -0.3, 2.0, 0.7, 0.5}, {-2.0, 1.5, 0.1, -1.2, 1.1}}) {
    const double z1 = z0 + 0.5 * (y0 + y1) * (x1 - x0);  // on M_d
    const Vecd<3> q0(x0, y0, z0), q1(x1, y1, z1);
    const double dx = x1 - x0, dy = y1 - y0, s = y0 + y1, extra = dy * dy / (4 + s * s);
    const Vecd<2> minus((dx / h) * (1 + 0.5 * y0 * s + extra), dy / h);
    const Vecd<2> plus((dx / h) * (1 + 0.5 * y1 * s + extra), dy / h);
    EXPECT_LT((mla.legendre_minus(q0, q1) - minus).norm(), 1e-14 * (1 + minus.norm()));
    EXPECT_LT((mla.legendre_plus(q0, q1) - plus).norm(), 1e-14 * (1 + plus.norm()));
  }
}

TEST(MLA, KnifeEdgeForcesAreThePapersWithTheSignCorrected) {
  // thesis Ex. 7.5.2 prints μ_y = +cos φ̄; it must be −cos φ̄ (the constraint is sin φ ẋ − cos φ ẏ = 0).
  // The generic force (h/2) M(q̄)ᵀλ(q̄, v_d) equals the corrected formula; the literal one destroys
  // the energy (H falls below zero), so the sign is not a matter of taste.
  const KnifeEdge knife;
  const double h = 0.5;
  const auto paper_force = [h](double sign) {
    return [h, sign](const auto& q0, const auto& q1) {
      using T = typename std::decay_t<decltype(q0)>::Scalar;
      using std::cos, std::sin;
      const T phi = 0.5 * (q0[2] + q1[2]);
      const T lambda = -((q1[2] - q0[2]) / (h * h)) * ((q1[0] - q0[0]) * cos(phi) + (q1[1] - q0[1]) * sin(phi)) -
                       0.5 * sin(phi);
      Vec<T, 3> F;
      F << 0.5 * h * lambda * sin(phi), 0.5 * h * lambda * sign * cos(phi), T(0.0);
      return F;
    };
  };
  const AlphaForce<KnifeEdge> generic(knife, h);
  const auto corrected = paper_force(-1.0);
  for (const auto& q1 : {Vecd<3>(0.4, 0.08, 0.4), Vecd<3>(-0.3, 1.2, 2.0), Vecd<3>(1.5, -0.7, -1.0)}) {
    const Vecd<3> q0(0.1, -0.2, 0.3);
    EXPECT_LT((generic.minus(q0, q1, 0.0) - corrected(q0, q1)).norm(), 1e-15);
    EXPECT_LT((generic.plus(q0, q1, 0.0) - corrected(q0, q1)).norm(), 1e-15);
  }
  const auto literal = make_mla(knife, AlphaRule<KnifeEdge>(knife, h),
                                make_discrete_force<3>(paper_force(+1.0), paper_force(+1.0)),
                                AlphaConstraint<KnifeEdge>(knife, h));
  EXPECT_LT(experiment(knife, literal, kOrigin, knife_q1(0.0), 600).min(), 0.0);
  EXPECT_GT(experiment(knife, make_midpoint_mla(knife, h), kOrigin, knife_q1(0.0), 600).min(), 0.57);
}

TEST(MLA, ParticleExperimentReproducesTheReferenceNumbers) {
  // [ASMM22] §5.4 Example 3, thesis Ex. 7.5.1: h = 0.5, N = 1200; independently computed values.
  const NonholonomicParticle particle;
  const auto mla = experiment(particle, make_midpoint_mla(particle, 0.5), kOrigin, kParticleQ1, 1200);
  const auto dla = experiment(particle, mla_without_forces(particle, 0.5), kOrigin, kParticleQ1, 1200);
  expect_near_relative(mla.q[2], {0.752434590432737, 0.8, 0.2914607542596422}, 1e-12);
  expect_near_relative(mla.q[3], {1.0447252042176118, 1.2, 0.583751368044517}, 1e-12);
  expect_near_relative(mla.q[1200], {7.117945976832498, 480.0, 497.4561242740663}, 1e-10);
  expect_near_relative(dla.q[2], {0.7483870967741937, 0.8, 0.2890322580645162}, 1e-12);
  expect_near_relative(dla.q[3], {1.0348387096774196, 1.2, 0.5754838709677421}, 1e-12);
  expect_near_relative(dla.q[1200], {6.944239137708333, 480.0, 483.930092225243}, 1e-10);
  // Energies to the 12 digits given (the independent run solved the implicit equations by Newton).
  EXPECT_NEAR(mla.H[0], 0.665088757396, 1e-11);
  EXPECT_NEAR(mla.H[1], 0.665091369108, 1e-11);
  EXPECT_NEAR(mla.H[1199], 0.665133018813, 1e-11);
  EXPECT_NEAR(dla.H[0], 0.64, 1e-11);
  EXPECT_NEAR(dla.H[1], 0.641765517241, 1e-11);
  EXPECT_NEAR(dla.H[1199], 0.646605796806, 1e-11);
  // The claim: H is nearly constant after the first steps, and MLA's spread is far smaller
  // (independent run: relative spreads 6.65e-5 and 1.03e-2; the issue asks for at least 10×).
  EXPECT_NEAR(mla.spread() / mla.H[0], 6.65e-5, 0.05e-5);
  EXPECT_NEAR(dla.spread() / dla.H[0], 1.03e-2, 0.01e-2);
  EXPECT_LT(10 * mla.spread(), dla.spread());
  const auto late_spread = [](const Experiment& e, int from) {
    const auto [lo, hi] = std::minmax_element(e.H.begin() + from, e.H.end());
    return *hi - *lo;
  };
  EXPECT_LT(late_spread(mla, 10), 1e-7);   // independent run: 3.5e-8
  EXPECT_LT(late_spread(mla, 100), 1e-10);  // independent run: 4.6e-12
  test::report("particle_mla_energy_spread", mla.spread());
  test::report("particle_dla_energy_spread", dla.spread());
}

TEST(MLA, ParticleTrajectoryErrorAgainstTheExactFlow) {
  // Our reading of the "error" of Fig. 3: against the exact trajectory through q0 whose
  // velocity is the exact retraction matched to (x1, y1) (closed form of Example 2):
  // MLA 6.218 < DLA 7.309 at k = 1200; from the same one-step start (q0, FL(v0)) MLA stays within
  // 0.05 while DLA drifts beyond 1 (independent run: 0.0341 and 5.06).
  const NonholonomicParticle particle;
  const double h = 0.5;
  const double xdot = 0.4 * 0.4 / (h * std::asinh(0.4));  // ẋ0 = ΔxΔy/(h√(1+y0²)(asinh y1 − asinh y0))
  const PhasePoint<3> start{kOrigin, Vecd<3>(xdot, 0.8, 0.0)};
  EXPECT_NEAR(xdot, 0.8204385187170077, 1e-15);
  const Vecd<3> exact = particle.exact_solution(start, 1200 * h)->q;
  const auto two_point = [&](const auto& method) {
    auto s = method.initial_state_two_point(kOrigin, kParticleQ1);
    for (int k = 1; k < 1200; ++k) method.step(s);
    return (s.q - exact).norm();
  };
  const auto one_step = [&](const auto& method) { return (test::final_state(method, start, 1200).q - exact).norm(); };
  const auto mla = make_midpoint_mla(particle, h);
  const auto dla = make_dla(particle, h);
  test::report("particle_mla_error_k1200_two_point", two_point(mla));
  test::report("particle_dla_error_k1200_two_point", two_point(dla));
  test::report("particle_mla_error_k1200_one_step", one_step(mla));
  test::report("particle_dla_error_k1200_one_step", one_step(dla));
  EXPECT_NEAR(two_point(mla), 6.218, 0.001);
  EXPECT_NEAR(two_point(dla), 7.309, 0.001);
  EXPECT_NEAR(one_step(mla), 0.0341, 0.0001);
  EXPECT_NEAR(one_step(dla), 5.06, 0.01);
}

TEST(MLA, KnifeEdgeExperimentReproducesTheReferenceNumbers) {
  // Thesis Ex. 7.5.2, [ASMM22] Example 4: m = J = 1, g = ½, k = 0, h = 0.5, N = 600.
  const KnifeEdge knife;
  ASSERT_EQ(knife.mass, 1.0);
  ASSERT_EQ(knife.inertia, 1.0);
  ASSERT_EQ(knife.slope, 0.5);
  ASSERT_EQ(knife.spring, 0.0);
  const Vecd<3> q1 = knife_q1(0.0);
  EXPECT_NEAR(q1[1], 0.081084014203469, 1e-15);
  const auto mla = experiment(knife, make_midpoint_mla(knife, 0.5), kOrigin, q1, 600);
  const auto dla = experiment(knife, mla_without_forces(knife, 0.5), kOrigin, q1, 600);
  expect_near_relative(mla.q[2], {0.8263491901133035, 0.3727651883666499, 0.8}, 1e-12);
  expect_near_relative(mla.q[3], {1.1497760890289832, 0.8764727390991096, 1.2}, 1e-12);
  expect_near_relative(dla.q[2], {0.833804509620343, 0.3778656468593635, 0.8}, 1e-12);
  expect_near_relative(dla.q[3], {1.1658037658584668, 0.8949238531042998, 1.2}, 1e-12);
  // H_0 is explicit (1e-12); H_1 follows a Newton solve, in the independent run to ~1e-10 (so we
  // allow 1e-8 for Newton-based values).
  EXPECT_NEAR(mla.H[0], 0.5737335804644379, 1e-12);
  EXPECT_NEAR(mla.H[1], 0.5736280466271884, 1e-9);
  EXPECT_NEAR(dla.H[0], 0.5478125, 1e-12);
  EXPECT_NEAR(dla.H[1], 0.5387338599435512, 1e-9);
  // Ranges over k = 0..599: MLA [0.573401, 0.573865], DLA [0.514763, 0.552399].
  EXPECT_NEAR(mla.min(), 0.573401, 1e-6);
  EXPECT_NEAR(mla.spread(), 4.64e-4, 0.01e-4);
  EXPECT_NEAR(dla.min(), 0.514763, 1e-6);
  EXPECT_NEAR(dla.spread(), 3.76e-2, 0.01e-2);
  test::report("knife_edge_mla_energy_spread", mla.spread());
  test::report("knife_edge_dla_energy_spread", dla.spread());
  EXPECT_LT(10 * mla.spread(), dla.spread());
  EXPECT_LT(20 * mla.spread(), dla.spread());  // independent run: about 80×
}

TEST(MLA, KnownShortfall_KnifeEdgeTrajectoryErrorIsLargerThanDLAs) {
  // Independent runs: on the knife edge MLA's energy is far better but its trajectory error
  // against the exact solution is larger than DLA's (≈4.86 vs ≈2.56 at k = 600) under every
  // initialisation tried; the paper claims nothing about it. Here: both started from the same
  // (q0, v0) with the velocity of the exact trajectory through q0 and (x1, φ1) = (0.4, 0.4).
  const KnifeEdge knife;
  const double h = 0.5;
  // Exact retraction in closed form (from the exact solution of the knife edge): the heading rate is Δφ/h and
  // the blade speed u0 follows from the x-displacement of the exact solution.
  const double w = 0.4 / h;
  const double phi1 = 0.4;
  const double c = (0.4 - (std::sin(phi1) * std::sin(phi1)) / (4 * w * w)) * w / std::sin(phi1);
  const PhasePoint<3> start{kOrigin, Vecd<3>(c, 0.0, w)};  // u0 = c at φ0 = 0
  ASSERT_NEAR(knife.exact_solution(start, h)->q[0], 0.4, 1e-14);
  const Vecd<3> exact = knife.exact_solution(start, 600 * h)->q;
  const double e_mla = (test::final_state(make_midpoint_mla(knife, h), start, 600).q - exact).norm();
  const double e_dla = (test::final_state(make_dla(knife, h), start, 600).q - exact).norm();
  test::report("knife_edge_mla_error_k600", e_mla);
  test::report("knife_edge_dla_error_k600", e_dla);
  EXPECT_GT(e_mla, 1.5 * e_dla);
}

TEST(MLA, PerturbedKnifeEdgeExperimentReproducesTheReferenceNumbers) {
  // Thesis Ex. 7.5.3, ε = 0.1: MLA drifts mildly (+0.019), DLA strongly (−0.372, below zero).
  const PerturbedKnifeEdge knife;
  ASSERT_EQ(knife.eps, 0.1);
  const Vecd<3> q1 = knife_q1(0.1);
  EXPECT_NEAR(q1[1], 0.09029740967206684, 1e-15);
  const auto mla = experiment(knife, make_midpoint_mla(knife, 0.5), kOrigin, q1, 600);
  const auto dla = experiment(knife, mla_without_forces(knife, 0.5), kOrigin, q1, 600);
  expect_near_relative(mla.q[2], {0.8068800213724772, 0.40703594686824296, 0.8}, 1e-12);
  expect_near_relative(mla.q[3], {1.0810159149478997, 0.9309428110016913, 1.2}, 1e-12);
  expect_near_relative(dla.q[2], {0.8147107709626393, 0.4131318474778896, 0.8}, 1e-12);
  expect_near_relative(dla.q[3], {1.09607849025343, 0.9508596056324841, 1.2}, 1e-12);
  const double mla_values[] = {0.579982, 0.579982, 0.580406, 0.583927, 0.587705, 0.589582, 0.599026};
  const double dla_values[] = {0.547812, 0.552267, 0.464982, 0.492332, 0.421122, 0.078546, 0.175828};
  const int ks[] = {0, 100, 200, 300, 400, 500, 599};
  for (int i = 0; i < 7; ++i) {
    EXPECT_NEAR(mla.H[ks[i]], mla_values[i], 1e-6) << "k = " << ks[i];
    EXPECT_NEAR(dla.H[ks[i]], dla_values[i], 1e-6) << "k = " << ks[i];
  }
  const double drift_mla = mla.H[599] - mla.H[0], drift_dla = dla.H[599] - dla.H[0];
  test::report("perturbed_knife_edge_mla_drift", drift_mla);
  test::report("perturbed_knife_edge_dla_drift", drift_dla);
  EXPECT_NEAR(drift_mla, 0.019, 0.001);
  EXPECT_NEAR(drift_dla, -0.372, 0.001);
  EXPECT_LT(std::abs(drift_mla), std::abs(drift_dla));
  EXPECT_GT(mla.min(), 0.57);
  EXPECT_NEAR(dla.min(), -0.103, 0.001);
}

TEST(MLA, DiscreteConstraintMomentumMatchingAndHorizontalSymmetries) {
  // ω(q_k, q_{k+1}) = 0 to round-off, F^+l_d(q_{k−1}, q_k)
  // = F^−l_d(q_k, q_{k+1}) to the Newton tolerance, y_k (particle) and φ_k (knife edges) linear in k,
  // over 1000 steps of h = 0.1 from the default data.
  const auto check = [](const auto& sys, int symmetric_coordinate) {
    const double h = 0.1;
    const auto mla = make_midpoint_mla(sys, h);
    const auto x0 = sys.default_initial();
    auto s = mla.initial_state(x0.q, x0.v);
    mla.step(s);
    const double increment = s.q[symmetric_coordinate] - x0.q[symmetric_coordinate];
    double omega = 0.0, matching = 0.0, symmetry = 0.0;
    for (int k = 0; k < 1000; ++k) {
      const auto prev = s.q;
      const auto before = mla.constrained_momentum(s);
      mla.step(s);
      omega = std::max(omega, mla.discrete_constraint()(prev, s.q).template lpNorm<Eigen::Infinity>());
      matching = std::max(matching, (mla.legendre_minus(prev, s.q) - before).template lpNorm<Eigen::Infinity>());
      symmetry = std::max(symmetry, std::abs(s.q[symmetric_coordinate] - prev[symmetric_coordinate] - increment));
    }
    EXPECT_LT(omega, 1e-12);
    EXPECT_LT(matching, 1e-11);  // Newton accepts residuals up to 1e3 × 1e-13 near round-off
    EXPECT_LT(symmetry, 1e-12);
  };
  check(NonholonomicParticle{}, 1);
  check(KnifeEdge{}, 2);
  check(PerturbedKnifeEdge{}, 2);
}

TEST(MLA, MidpointIsSecondOrder) {
  // Order 2 (independently measured slopes 1.99–2.01): against the closed forms of the particle and the
  // knife edge and the reference solver on the perturbed knife edge; start from (q0, v0).
  const std::vector<long> N = {20, 40, 80, 160};
  const double T = 2.0;
  const auto error_against = [&](const auto& sys, const Vecd<3>& truth) {
    return [&sys, truth](double h, long steps) {
      return (test::final_state(make_midpoint_mla(sys, h), sys.default_initial(), steps).q - truth)
          .template lpNorm<Eigen::Infinity>();
    };
  };
  const NonholonomicParticle particle;
  const KnifeEdge knife;
  const PerturbedKnifeEdge perturbed;
  const auto x_p = particle.default_initial(), x_k = knife.default_initial(), x_e = perturbed.default_initial();
  const double p = test::measured_order(T, N, error_against(particle, particle.exact_solution(x_p, T)->q));
  const double k = test::measured_order(T, N, error_against(knife, knife.exact_solution(x_k, T)->q));
  const double e = test::measured_order(T, N, error_against(perturbed, reference_solution(perturbed, x_e.q, x_e.v, T).q));
  EXPECT_NEAR(p, 2.0, 0.1);
  EXPECT_NEAR(k, 2.0, 0.1);
  EXPECT_NEAR(e, 2.0, 0.1);
  test::report("mla_order_particle", p);
  test::report("mla_order_knife_edge", k);
  test::report("mla_order_perturbed_knife_edge", e);
}

TEST(MLA, OffCentreAlphaIsFirstOrder) {
  // The α-rule generalisation (forces weighted (1 − α) and α) loses the symmetry of the midpoint.
  const KnifeEdge knife;
  const auto x0 = knife.default_initial();
  const Vecd<3> truth = knife.exact_solution(x0, 2.0)->q;
  const double order = test::measured_order(2.0, {40, 80, 160, 320}, [&](double h, long steps) {
    return (test::final_state(make_midpoint_mla(knife, h, 0.3), x0, steps).q - truth).template lpNorm<Eigen::Infinity>();
  });
  test::report("mla_order_knife_edge_alpha_0.3", order);
  EXPECT_NEAR(order, 1.0, 0.1);
}
