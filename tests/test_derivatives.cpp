// Derivative self-check (the "AD derivatives agree with finite differences") for every
// catalogue system, at random states off the constraint distribution.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "dalembert/diagnostics/derivative_check.hpp"
#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "dalembert/models/knife_edge_chain.hpp"
#include "dalembert/models/particle.hpp"
#include "dalembert/models/satellite.hpp"
#include "dalembert/models/unconstrained.hpp"
#include "dalembert/models/vertical_disk.hpp"
#include "double_pendulum.hpp"
#include "test_support.hpp"

using namespace dalembert;
using namespace dalembert::models;

// The knife edge with its optional terms switched on, as the particle's potential is in
// test::particle_with_potential, so that every term of their derivatives is exercised.
KnifeEdge knife_edge_with_spring() {
  KnifeEdge knife;
  knife.spring = 0.5;
  knife.mass = 2.0;
  return knife;
}

template <class S>
double worst_derivative_error(const S& sys) {
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  double worst = 0.0;
  for (int trial = 0; trial < 5; ++trial) {
    Vecd<S::n> q, v;
    for (int i = 0; i < S::n; ++i) {
      q[i] = u(rng);
      v[i] = u(rng);
    }
    worst = std::max(worst, check_derivatives(sys, q, v).worst());
  }
  return worst;
}

TEST(DerivativeCheck, EveryCatalogueSystemAgreesWithFiniteDifferences) {
  // Central differences with eps = 1e-5 are accurate to ~1e-9; AD is exact to round-off.
  const NonholonomicParticle particle = test::particle_with_potential();
  const KnifeEdge knife = knife_edge_with_spring();
  EXPECT_LT(worst_derivative_error(particle), 1e-8);
  EXPECT_LT(worst_derivative_error(knife), 1e-8);
  EXPECT_LT(worst_derivative_error(PerturbedKnifeEdge{}), 1e-8);
  EXPECT_LT(worst_derivative_error(VerticalDisk{}), 1e-8);
  EXPECT_LT(worst_derivative_error(ChaplyginSleigh{}), 1e-8);
  EXPECT_LT(worst_derivative_error(Pendulum{}), 1e-8);
  EXPECT_LT(worst_derivative_error(HarmonicOscillator{}), 1e-8);
  // the two terms of the chain of knife edges (model/local_terms.hpp), each a model of fixed size
  EXPECT_LT(worst_derivative_error(chain_terms::Skate{}), 1e-8);
  EXPECT_LT(worst_derivative_error(chain_terms::Spring{}), 1e-8);
  // the satellite's L has k/r: radii away from the singularity at r = 0
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-0.5, 0.5);
  double satellite = 0.0;
  for (int trial = 0; trial < 5; ++trial) {
    const Vecd<2> q(1.0 + u(rng), 3 * u(rng)), v(u(rng), u(rng));
    satellite = std::max(satellite, check_derivatives(Satellite{}, q, v).worst());
  }
  EXPECT_LT(satellite, 1e-8);
}

namespace {
// A model whose potential has the right value but a wrong derivative: the check must see it.
struct Broken : Mechanical<Broken, 2> {
  static constexpr int n = 2, m = 1;
  template <class T>
  Mat<T, 2, 2> metric(const Vec<T, 2>&) const { return Mat<T, 2, 2>::Identity(); }
  template <class T>
  T potential(const Vec<T, 2>& q) const {
    // correct value, wrong derivative: the dual part is scaled by 2
    if constexpr (std::is_same_v<T, double>) return q[0] * q[0];
    else return q[0] * q[0] * 2.0 - ad::plain(q[0]) * ad::plain(q[0]);
  }
  template <class T>
  Mat<T, 1, 2> constraint_matrix(const Vec<T, 2>&) const { return Mat<T, 1, 2>(T(1.0), T(0.0)); }
};
}  // namespace

TEST(DerivativeCheck, DetectsAWrongDerivative) {
  const auto c = check_derivatives(Broken{}, Vecd<2>(0.5, 0.1), Vecd<2>(0.0, 1.0));
  EXPECT_GT(c.lagrangian_gradient, 0.1);
}

namespace {
// A pendulum pair hung from a cart on a rail: coordinates (θ1, x, θ2), with the cart's position x
// cyclic and in the middle, so that the structured path must map its one-dimensional gaps right.
// G(0, 1) = cos θ1 couples the cart to the first pendulum, so that C has entries in the column of
// the cyclic coordinate.
struct CartWithPendulumPair : Mechanical<CartWithPendulumPair, 3> {
  static constexpr int n = 3, m = 0;
  static constexpr std::array<int, 1> cyclic_coordinates = {1};
  template <class T>
  Mat<T, 3, 3> metric(const Vec<T, 3>& q) const {
    using std::cos;
    const T c1 = cos(q[0]), c12 = cos(q[0] - q[2]);
    Mat<T, 3, 3> G;
    G << T(2.0), c1, c12,  //
        c1, T(3.0), T(0.0),  //
        c12, T(0.0), T(1.0);
    return G;
  }
  template <class T>
  T potential(const Vec<T, 3>& q) const {
    using std::cos;
    return -2.0 * cos(q[0]) - cos(q[2]) + 0.1 * q[0] * q[0] * q[2];
  }
  template <class T>
  Mat<T, 0, 3> constraint_matrix(const Vec<T, 3>&) const {
    return {};
  }
};

// The same cart, declaring θ2 cyclic although G and V depend on it.
struct CartWithAWrongDeclaration : CartWithPendulumPair {
  static constexpr std::array<int, 2> cyclic_coordinates = {1, 2};
};

static_assert(noncyclic_coordinates<ChaplyginSleigh>() == std::array<int, 1>{2});
static_assert(noncyclic_coordinates<KnifeEdge>() == std::array<int, 2>{0, 1});
static_assert(noncyclic_coordinates<CartWithPendulumPair>() == std::array<int, 2>{0, 2});
static_assert(noncyclic_coordinates<VerticalDisk>().empty());
static_assert(noncyclic_coordinates<test::DoublePendulum>() == std::array<int, 2>{0, 1});  // none declared
}  // namespace

TEST(DerivativeCheck, EveryDeclaredCyclicCoordinateIsCyclic) {
  // The structured α-rule derivatives take a declaration on trust, so the check reads L itself.
  std::mt19937 rng(99);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  double worst = 0.0;
  for (int trial = 0; trial < 5; ++trial) {
    const Vecd<3> q(u(rng), u(rng), u(rng)), v(u(rng), u(rng), u(rng));
    const Vecd<4> q4(u(rng), u(rng), u(rng), u(rng)), v4(u(rng), u(rng), u(rng), u(rng));
    worst = std::max({worst, check_derivatives(ChaplyginSleigh{}, q, v).cyclic_coordinates,
                      check_derivatives(knife_edge_with_spring(), q, v).cyclic_coordinates,
                      check_derivatives(test::particle_with_potential(), q, v).cyclic_coordinates,
                      check_derivatives(PerturbedKnifeEdge{}, q, v).cyclic_coordinates,
                      check_derivatives(CartWithPendulumPair{}, q, v).cyclic_coordinates,
                      check_derivatives(VerticalDisk{}, q4, v4).cyclic_coordinates});
  }
  EXPECT_EQ(worst, 0.0);  // differences of a function that does not depend on q_c vanish exactly
}

TEST(DerivativeCheck, DetectsAWrongCyclicDeclaration) {
  const Vecd<3> q(0.4, -0.2, 1.1), v(0.3, 0.5, -0.7);
  const auto c = check_derivatives(CartWithAWrongDeclaration{}, q, v);
  EXPECT_GT(c.cyclic_coordinates, 0.1);
  // The structured D1 misses h/2 ∂L/∂θ2 (h = 0.1): about 2e-2 here, where differences agree to 1e-8.
  EXPECT_GT(c.discrete_lagrangian, 1e-3);
}

namespace {
// Largest difference between the structured and the hyper-dual derivatives of the α-rule or the
// trapezoidal rule `ld` (and between both first-order forms and the hyper-dual D1, D2), relative to
// the size of each quantity, over random pairs (q0, q1) a step apart.
template <class Ld>
double worst_structured_difference(const Ld& ld) {
  constexpr int n = Ld::n;
  const double h = ld.step_size();
  std::mt19937 rng(2024);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  double worst = 0.0;
  for (int trial = 0; trial < 5; ++trial) {
    Vecd<n> q0, v;
    for (int i = 0; i < n; ++i) {
      q0[i] = u(rng);
      v[i] = u(rng);
    }
    const Vecd<n> q1 = q0 + h * v;
    const auto fast = differentiate(ld, q0, q1);
    const auto reference = detail::hyper_dual_derivatives(ld, q0, q1);
    const auto relative = [](const auto& a, const auto& b) {
      return (a - b).template lpNorm<Eigen::Infinity>() / std::max(1.0, b.template lpNorm<Eigen::Infinity>());
    };
    const auto relative_value = [&](double a) {
      return std::abs(a - reference.value) / std::max(1.0, std::abs(reference.value));
    };
    worst = std::max({worst, relative_value(fast.value), relative(fast.D1, reference.D1),
                      relative(fast.D2, reference.D2), relative(fast.D12, reference.D12)});
    // The velocity part apart (SplitDerivatives): D1 = D1_rest − L_v and D2 = D2_rest + L_v as the
    // structured path sums them, and D1_rest + D2_rest = D1 + D2 = h L_q, which has no velocity part.
    if constexpr (requires { fast.Lv; }) {
      EXPECT_EQ(fast.D1, Vecd<n>(fast.D1_rest - fast.Lv));
      EXPECT_EQ(fast.D2, Vecd<n>(fast.D2_rest + fast.Lv));
      worst = std::max(worst, relative(Vecd<n>(fast.D1_rest + fast.D2_rest), Vecd<n>(reference.D1 + reference.D2)));
    }
    // First-order only: the structured path and the generic one (duals along (q0, q1)).
    for (const auto& slots : {SlotDerivativesOf<Ld>(slot_derivatives(ld, q0, q1)), slot_derivatives<Ld>(ld, q0, q1)}) {
      worst = std::max({worst, relative_value(slots.value), relative(slots.D1, reference.D1),
                        relative(slots.D2, reference.D2)});
    }
  }
  return worst;
}
}  // namespace

TEST(DiscreteLagrangianDerivatives, StructuredMechanicalPathEqualsHyperDuals) {
  // differentiate(AlphaRule<S>) of a model with a metric assembles D1, D2, D12 from the Hessian of
  // ½ vᵀG(q)v − V(q) at fixed v; the generic path differentiates the whole L_d. Same numbers. A
  // wrong sign or a transposed C in D12 shows on the sleigh and the double pendulum at O(1). The
  // sleigh, knife edge, particle, disk and cart declare cyclic coordinates (model/model.hpp), which
  // the structured path leaves out of its hyper-duals and the generic path does not know of.
  // differentiate(TrapezoidRule<S>) is the mean of the structured α-rules with α = 0 and 1.
  const NonholonomicParticle particle = test::particle_with_potential();
  const KnifeEdge knife = knife_edge_with_spring();
  test::DoublePendulum pendulum;  // G(q), and with c ≠ 0 a V whose Hessian depends on q
  pendulum.cubic = 0.1;
  const auto worst_of_rules = [](const auto& sys) {
    using S = std::decay_t<decltype(sys)>;
    double worst_here = 0.0;
    for (double h : {0.01, 0.1}) {
      worst_here = std::max(worst_here, worst_structured_difference(TrapezoidRule<S>(sys, h)));
      for (double alpha : {0.0, 0.3, 0.5, 1.0})
        worst_here = std::max(worst_here, worst_structured_difference(AlphaRule<S>(sys, h, alpha)));
    }
    return worst_here;
  };
  const double worst = std::max({worst_of_rules(particle), worst_of_rules(knife), worst_of_rules(VerticalDisk{}),
                                 worst_of_rules(ChaplyginSleigh{}), worst_of_rules(chain_terms::Skate{}),
                                 worst_of_rules(chain_terms::Spring{}), worst_of_rules(pendulum),
                                 worst_of_rules(CartWithPendulumPair{})});
  test::report("structured_vs_hyper_dual_relative_difference", worst);
  EXPECT_LT(worst, 1e-13);
}
