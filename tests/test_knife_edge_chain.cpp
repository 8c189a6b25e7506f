// The chain of knife edges, a locally coupled model (model/local_terms.hpp): its terms and its dense
// interface describe the same system (energies, momenta, constraints, velocities in D), and the
// midpoint and trapezoidal DLA and FIM, RK4, McLachlan–Perlmutter, the discrete gradient, SPARK and the
// generating-function methods assembled term by term with sparse matrices take the steps of the generic dense methods;
// DLA keeps the discrete constraints and keeps the energy bounded.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "dalembert/method/discrete_gradient.hpp"
#include "dalembert/method/dla.hpp"
#include "dalembert/method/generating_function.hpp"
#include "dalembert/method/mclachlan_perlmutter.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"
#include "dalembert/method/momentum_energy.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/method/spark.hpp"
#include "dalembert/model/dynamics.hpp"
#include "dalembert/model/without_terms.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/knife_edge_chain.hpp"
#include "test_support.hpp"

using namespace dalembert;
using models::KnifeEdgeChain;

namespace {

/// The chain through its dense interface alone: what every method sees without the sparse structure.
using DenseChain = WithoutTerms<KnifeEdgeChain>;
static_assert(LocallyCoupled<KnifeEdgeChain> && !LocallyCoupled<DenseChain> && HasMetric<DenseChain>);

/// A state off the default one: every skate displaced and turned, velocities in D.
PhasePoint<Eigen::Dynamic> perturbed_start(const KnifeEdgeChain& chain) {
  auto x = chain.default_initial();
  for (int i = 0; i < chain.skates(); ++i) {
    x.q.segment<3>(3 * i) += Eigen::Vector3d(0.1 * std::sin(i + 1.0), 0.2 * std::cos(2.0 * i), 0.3 * std::sin(3.0 * i));
    const double phi = x.q[3 * i + 2], speed = 0.7 + 0.1 * i;
    x.v.segment<3>(3 * i) << speed * std::cos(phi), speed * std::sin(phi), 0.2 - 0.15 * i;
  }
  return x;
}

/// Steps `a` from `sa` and `b` from `sb` side by side `steps` times (the states end where the steps
/// leave them) and returns the largest difference(sa, sb) after a step.
template <class A, class B, class Difference>
double largest_difference_side_by_side(const A& a, typename A::State& sa, const B& b, typename B::State& sb, int steps,
                                       Difference difference) {
  double largest = 0.0;
  for (int k = 0; k < steps; ++k) {
    a.step(sa);
    b.step(sb);
    largest = std::max(largest, difference(sa, sb));
  }
  return largest;
}

/// max(|q_a − q_b|, |p_a − p_b|) of two states that carry one momentum p.
const auto positions_and_momenta = [](const auto& a, const auto& b) {
  return std::max((a.q - b.q).template lpNorm<Eigen::Infinity>(), (a.p - b.p).template lpNorm<Eigen::Infinity>());
};

/// A locally coupled model whose terms' metrics depend on q: N of the catalogue's Chaplygin sleighs
/// (models/chaplygin_sleigh.hpp) joined by the chain's springs. Only the tests use it.
using Sleigh = models::ChaplyginSleigh;

class SleighChain : public Mechanical<SleighChain, Eigen::Dynamic> {
 public:
  static constexpr int n = Eigen::Dynamic, m = Eigen::Dynamic;
  explicit SleighChain(int sleighs) : sleighs_(sleighs) {}
  int dimension() const { return 3 * sleighs_; }
  int constraint_count() const { return sleighs_; }

  template <class T>
  Mat<T, Eigen::Dynamic, Eigen::Dynamic> metric(const Vec<T, Eigen::Dynamic>& q) const {
    Mat<T, Eigen::Dynamic, Eigen::Dynamic> G = Mat<T, Eigen::Dynamic, Eigen::Dynamic>::Zero(dimension(), dimension());
    for (int i = 0; i < sleighs_; ++i)
      G.template block<3, 3>(3 * i, 3 * i) = Sleigh{}.metric<T>(Vec<T, 3>(q.template segment<3>(3 * i)));
    return G;
  }
  template <class T>
  T potential(const Vec<T, Eigen::Dynamic>& q) const {
    T V(0.0);
    for (int i = 0; i + 1 < sleighs_; ++i)
      V += models::chain_terms::Spring{}.potential<T>(q.template segment<6>(3 * i));
    return V;
  }
  template <class T>
  Mat<T, Eigen::Dynamic, Eigen::Dynamic> constraint_matrix(const Vec<T, Eigen::Dynamic>& q) const {
    Mat<T, Eigen::Dynamic, Eigen::Dynamic> M = Mat<T, Eigen::Dynamic, Eigen::Dynamic>::Zero(sleighs_, dimension());
    for (int i = 0; i < sleighs_; ++i)
      M.template block<1, 3>(i, 3 * i) = Sleigh{}.constraint_matrix<T>(Vec<T, 3>(q.template segment<3>(3 * i)));
    return M;
  }
  template <class Visit>
  void visit_terms(Visit&& visit) const {
    for (int i = 0; i < sleighs_; ++i) visit(Sleigh{}, std::array<int, 3>{3 * i, 3 * i + 1, 3 * i + 2});
    for (int i = 0; i + 1 < sleighs_; ++i)
      visit(models::chain_terms::Spring{},
            std::array<int, 6>{3 * i, 3 * i + 1, 3 * i + 2, 3 * i + 3, 3 * i + 4, 3 * i + 5});
  }

 private:
  int sleighs_;
};
static_assert(LocallyCoupled<SleighChain> && HasMetric<SleighChain>);

/// N sleighs spread along x, turned and moving along their blades (in D).
PhasePoint<Eigen::Dynamic> sleigh_start(int N) {
  PhasePoint<Eigen::Dynamic> x{Eigen::VectorXd(3 * N), Eigen::VectorXd(3 * N)};
  for (int i = 0; i < N; ++i) {
    const double phi = 0.4 * i - 0.2;
    x.q.segment<3>(3 * i) << 1.1 * i, 0.1 * std::sin(i + 1.0), phi;
    x.v.segment<3>(3 * i) << 0.8 * std::cos(phi), 0.8 * std::sin(phi), 0.5 - 0.3 * i;
  }
  return x;
}

}  // namespace

TEST(KnifeEdgeChain, TermsDescribeTheDenseSystem) {
  const KnifeEdgeChain chain(4, {1.3, 0.7, 3.0, 1.5, 0.8});
  const DenseChain dense{chain};
  const auto x = perturbed_start(chain);
  const Eigen::VectorXd w = Eigen::VectorXd::LinSpaced(12, -1.0, 2.0);  // a velocity off D
  EXPECT_NEAR(local::energy(chain, x.q, w), energy(dense, x.q, w), 1e-13);
  EXPECT_LT((local::momentum(chain, x.q, w) - momentum(dense, x.q, w)).lpNorm<Eigen::Infinity>(), 1e-13);
  EXPECT_NEAR(local::constraint_residual(chain, x.q, w), constraint_residual(dense, x.q, w), 1e-14);
  EXPECT_LT((Eigen::MatrixXd(local::constraint_matrix(chain, x.q)) - constraint_matrix(dense, x.q)).lpNorm<Eigen::Infinity>(),
            1e-15);
  const Eigen::VectorXd p = momentum(dense, x.q, w);
  const Eigen::VectorXd v_local = local::velocity_in_distribution(chain, x.q, p);
  EXPECT_LT((v_local - velocity_in_distribution(dense, x.q, p)).lpNorm<Eigen::Infinity>(), 1e-13);
  EXPECT_LT(constraint_residual(dense, x.q, v_local), 1e-14);  // in D
  EXPECT_LT(constraint_residual(dense, x.q, x.v), 1e-15);      // the start is in D
}

TEST(KnifeEdgeChain, StepsByTermsEqualTheDenseDla) {
  for (const int N : {1, 3, 8}) {
    const KnifeEdgeChain chain(N);
    const DenseChain dense{chain};
    const double h = 0.05;
    const auto x = perturbed_start(chain);
    const auto sparse_dla = make_dla(chain, h);
    const auto dense_dla = make_dla(dense, h);
    auto s = sparse_dla.initial_state(x.q, x.v);
    auto d = dense_dla.initial_state(x.q, x.v);
    const double largest = largest_difference_side_by_side(
        sparse_dla, s, dense_dla, d, 200,
        [](const auto& a, const auto& b) { return (a.q - b.q).template lpNorm<Eigen::Infinity>(); });
    test::report("chain N=" + std::to_string(N) + " max |q_terms - q_dense| over 200 steps", largest);
    EXPECT_LT(largest, 1e-12) << N;
    EXPECT_LT((s.p - d.p).lpNorm<Eigen::Infinity>(), 1e-11) << N;
    EXPECT_LT((s.multiplier - d.multiplier).lpNorm<Eigen::Infinity>(), 1e-9) << N;
    EXPECT_LT((sparse_dla.velocity(s) - dense_dla.velocity(d)).lpNorm<Eigen::Infinity>(), 1e-11) << N;
    // the two-point start of both
    const Eigen::VectorXd q1 = s.q, q0 = s.q - h * s.last_velocity;
    EXPECT_LT((sparse_dla.pre_momentum(q0, q1) - dense_dla.pre_momentum(q0, q1)).lpNorm<Eigen::Infinity>(), 1e-12);
    EXPECT_LT((sparse_dla.initial_state_two_point(q0, q1).p - dense_dla.initial_state_two_point(q0, q1).p)
                  .lpNorm<Eigen::Infinity>(),
              1e-12);
  }
}

TEST(KnifeEdgeChain, FimByTermsEqualsTheDenseFim) {
  for (const int N : {1, 3, 8}) {
    const KnifeEdgeChain chain(N);
    const DenseChain dense{chain};
    const double h = 0.05;
    const auto x = perturbed_start(chain);
    const auto by_terms = make_fim(chain, h);
    const auto whole = make_fim(dense, h);
    auto s = by_terms.initial_state(x.q, x.v);
    auto d = whole.initial_state(x.q, x.v);
    EXPECT_LT((s.p_minus - d.p_minus).lpNorm<Eigen::Infinity>(), 1e-13) << N;  // start B: Λ~ by terms
    const double largest =
        largest_difference_side_by_side(by_terms, s, whole, d, 200, [](const auto& a, const auto& b) {
          return std::max({(a.q - b.q).template lpNorm<Eigen::Infinity>(),
                           (a.p_minus - b.p_minus).template lpNorm<Eigen::Infinity>(),
                           (a.p_average - b.p_average).template lpNorm<Eigen::Infinity>()});
        });
    test::report("chain N=" + std::to_string(N) + " fim max |x_terms - x_dense| over 200 steps", largest);
    EXPECT_LT(largest, 1e-12) << N;
    EXPECT_LT((by_terms.velocity(s) - whole.velocity(d)).lpNorm<Eigen::Infinity>(), 1e-12) << N;
    const auto a = by_terms.extra_values(s), b = whole.extra_values(d);
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-12) << N << " column " << i;
    // the start from two positions
    const Eigen::VectorXd q0 = d.q - h * d.last_velocity;
    EXPECT_LT((by_terms.initial_state_from_positions(q0, d.q).p_plus - whole.initial_state_from_positions(q0, d.q).p_plus)
                  .lpNorm<Eigen::Infinity>(),
              1e-12);
  }
}

// The trapezoidal L_d by terms, (h/2)(L_e(q0, v̄) + L_e(q1, v̄)) summed over the terms, under DLA (with
// the midpoint discrete constraint, as on the command line) and FIM: the dense methods' steps, on the
// chain and on the sleighs, whose metrics the rule reads at both ends of the step.
TEST(KnifeEdgeChain, TrapezoidRulesByTermsEqualTheDenseOnes) {
  const double h = 0.05;
  const auto compare = [&](const auto& model, const auto& x, const std::string& label) {
    using Model = std::decay_t<decltype(model)>;
    using Dense = WithoutTerms<Model>;
    const Dense dense{model};
    const DiscreteLagrangeDAlembert<Model, TrapezoidRule<Model>, AlphaConstraint<Model>> dla(
        model, TrapezoidRule<Model>(model, h), AlphaConstraint<Model>(model, h, 0.5));
    const DiscreteLagrangeDAlembert<Dense, TrapezoidRule<Dense>, AlphaConstraint<Dense>> dense_dla(
        dense, TrapezoidRule<Dense>(dense, h), AlphaConstraint<Dense>(dense, h, 0.5));
    auto s = dla.initial_state(x.q, x.v);
    auto d = dense_dla.initial_state(x.q, x.v);
    const double dla_largest = largest_difference_side_by_side(dla, s, dense_dla, d, 200, positions_and_momenta);
    test::report(label + " dla trapezoid max |x_terms - x_dense| over 200 steps", dla_largest);
    EXPECT_LT(dla_largest, 1e-12) << label;
    EXPECT_LT((s.multiplier - d.multiplier).template lpNorm<Eigen::Infinity>(), 1e-10) << label;
    EXPECT_LT(s.discrete_constraint, 1e-13) << label;
    const Eigen::VectorXd q1 = s.q, q0 = s.q - h * s.last_velocity;
    EXPECT_LT((dla.initial_state_two_point(q0, q1).p - dense_dla.initial_state_two_point(q0, q1).p)
                  .template lpNorm<Eigen::Infinity>(),
              1e-12)
        << label;

    const MomentumEnergyIntegrator<Model, TrapezoidRule<Model>> fim(model, TrapezoidRule<Model>(model, h));
    const MomentumEnergyIntegrator<Dense, TrapezoidRule<Dense>> dense_fim(dense, TrapezoidRule<Dense>(dense, h));
    auto a = fim.initial_state(x.q, x.v);
    auto b = dense_fim.initial_state(x.q, x.v);
    const double fim_largest =
        largest_difference_side_by_side(fim, a, dense_fim, b, 200, [](const auto& u, const auto& w) {
          return std::max({(u.q - w.q).template lpNorm<Eigen::Infinity>(),
                           (u.p_minus - w.p_minus).template lpNorm<Eigen::Infinity>(),
                           (u.p_average - w.p_average).template lpNorm<Eigen::Infinity>()});
        });
    test::report(label + " fim trapezoid max |x_terms - x_dense| over 200 steps", fim_largest);
    EXPECT_LT(fim_largest, 1e-12) << label;
    EXPECT_LT((fim.initial_state_from_positions(q0, q1).p_plus - dense_fim.initial_state_from_positions(q0, q1).p_plus)
                  .template lpNorm<Eigen::Infinity>(),
              1e-12)
        << label;
  };
  for (const int N : {1, 3, 8}) {
    const KnifeEdgeChain chain(N);
    compare(chain, perturbed_start(chain), "chain N=" + std::to_string(N));
  }
  for (const int N : {1, 3}) compare(SleighChain(N), sleigh_start(N), "sleighs N=" + std::to_string(N));
}

// gf, gf-sym and gf-cp by terms: Newton on D12 S~ alone (the multiplier's derivative, a dense
// matrix, left out) converges to the steps of the dense methods, in a few more iterations. It
// converges linearly and stops at the tolerance (1e-13 of |p| by default), where Newton on the
// whole Jacobian overshoots to round-off, so both solve to round-off here (a tolerance below it):
// the test is that they solve the same equations.
TEST(KnifeEdgeChain, GeneratingFunctionMethodsByTermsEqualTheDenseOnes) {
  NewtonOptions to_round_off;
  to_round_off.tolerance = 1e-16;
  for (const int N : {1, 3}) {
    const KnifeEdgeChain chain(N);
    const DenseChain dense{chain};
    const double h = 0.05;
    const auto x = perturbed_start(chain);
    const auto compare = [&](const auto& by_terms, const auto& whole, const std::string& label) {
      auto s = by_terms.initial_state(x.q, x.v);
      auto d = whole.initial_state(x.q, x.v);
      const double largest = largest_difference_side_by_side(by_terms, s, whole, d, 200, positions_and_momenta);
      test::report("chain N=" + std::to_string(N) + " " + label + " max |x_terms - x_dense| over 200 steps", largest);
      EXPECT_LT(largest, 1e-12) << label << " N = " << N;
      EXPECT_NEAR(s.discrete_constraint, d.discrete_constraint, 1e-13) << label << " N = " << N;
      EXPECT_LT((by_terms.velocity(s) - whole.velocity(d)).template lpNorm<Eigen::Infinity>(), 1e-12) << label;
      const Eigen::VectorXd q0 = d.q - h * d.last_velocity;
      EXPECT_LT((by_terms.initial_state_from_positions(q0, d.q).p - whole.initial_state_from_positions(q0, d.q).p)
                    .template lpNorm<Eigen::Infinity>(),
                1e-12)
          << label;
    };
    compare(make_gf(chain, h, 0.5, to_round_off), make_gf(dense, h, 0.5, to_round_off), "gf");
    compare(make_gf_sym(chain, h, 0.25, to_round_off), make_gf_sym(dense, h, 0.25, to_round_off), "gf-sym");
    compare(make_gf_cp(chain, h, 0.5, false, to_round_off), make_gf_cp(dense, h, 0.5, false, to_round_off), "gf-cp");
  }
}

// mla by terms: DLA's sparse Jacobian with the α-force's derivative left out, as for gf above.
TEST(KnifeEdgeChain, MlaByTermsEqualsTheDenseMla) {
  for (const int N : {1, 3}) {
    const KnifeEdgeChain chain(N);
    const DenseChain dense{chain};
    const double h = 0.05;
    const auto x = perturbed_start(chain);
    const auto by_terms = make_midpoint_mla(chain, h);
    const auto whole = make_midpoint_mla(dense, h);
    auto s = by_terms.initial_state(x.q, x.v);
    auto d = whole.initial_state(x.q, x.v);
    const double largest = largest_difference_side_by_side(by_terms, s, whole, d, 100, positions_and_momenta);
    test::report("chain N=" + std::to_string(N) + " mla max |x_terms - x_dense| over 100 steps", largest);
    EXPECT_LT(largest, 1e-12) << N;
    EXPECT_LT((s.multiplier - d.multiplier).lpNorm<Eigen::Infinity>(), 1e-9) << N;
    EXPECT_NEAR(s.discrete_constraint, d.discrete_constraint, 1e-14) << N;
    EXPECT_LT(s.discrete_constraint, 1e-12) << N;
    const Eigen::VectorXd q1 = s.q, q0 = s.q - h * s.last_velocity;
    EXPECT_LT((by_terms.pre_momentum(q0, q1) - whole.pre_momentum(q0, q1)).lpNorm<Eigen::Infinity>(), 1e-12) << N;
    EXPECT_LT((by_terms.initial_state_two_point(q0, q1).p - whole.initial_state_two_point(q0, q1).p)
                  .lpNorm<Eigen::Infinity>(),
              1e-12)
        << N;
  }
}

// McLachlan–Perlmutter by terms: on the chain (constant metrics) Newton's Jacobian is the whole one;
// on the chain of sleighs (metrics of q) it leaves out (h/2) ∂H_q(q½, p1)/∂v1, and the simplified
// iteration, solved to 1e-15 (it stalls just above round-off, 1.7e-16, where the exact one gets there),
// still reaches the dense step's solution.
TEST(KnifeEdgeChain, McLachlanPerlmutterByTermsEqualsTheDenseOne) {
  const double h = 0.05;
  const auto compare = [&](const auto& model, const auto& x, const std::string& label, double tolerance) {
    const WithoutTerms<std::decay_t<decltype(model)>> dense{model};
    NewtonOptions options;
    options.tolerance = tolerance;
    const McLachlanPerlmutter by_terms(model, h, options);
    const McLachlanPerlmutter whole(dense, h, options);
    auto s = by_terms.initial_state(x.q, x.v);
    auto d = whole.initial_state(x.q, x.v);
    EXPECT_LT((s.p - d.p).template lpNorm<Eigen::Infinity>(), 1e-14) << label;
    int most_iterations = 0;
    const double largest =
        largest_difference_side_by_side(by_terms, s, whole, d, 200, [&](const auto& a, const auto& b) {
          most_iterations = std::max(most_iterations, a.iterations);
          return std::max({(a.q - b.q).template lpNorm<Eigen::Infinity>(),
                           (a.v - b.v).template lpNorm<Eigen::Infinity>(),
                           (a.p - b.p).template lpNorm<Eigen::Infinity>()});
        });
    test::report(label + " mclachlan-perlmutter max |x_terms - x_dense| over 200 steps", largest);
    test::report(label + " mclachlan-perlmutter most Newton iterations by terms", most_iterations);
    EXPECT_LT(largest, 1e-12) << label;
    EXPECT_LT((s.multiplier - d.multiplier).template lpNorm<Eigen::Infinity>(), 1e-10) << label;
    EXPECT_LT(local::constraint_residual(model, s.q, s.v), 1e-13) << label;  // M(q1) v1 = 0 at every step point
  };
  for (const int N : {1, 3, 8}) {
    const KnifeEdgeChain chain(N);
    compare(chain, perturbed_start(chain), "chain N=" + std::to_string(N), 1e-16);
  }
  for (const int N : {1, 4}) compare(SleighChain(N), sleigh_start(N), "sleighs N=" + std::to_string(N), 1e-15);

  // Its step derivative by terms is for constant metrics: on the sleighs it says so.
  const McLachlanPerlmutter sleighs(SleighChain(2), h);
  const auto x = sleigh_start(2);
  EXPECT_THROW(sleighs.sparse_step_derivative(sleighs.initial_state(x.q, x.v)), std::logic_error);
}

// The discrete gradient by terms: exact Newton on the equations multiplied through by G(q̄), with the
// two coupling scalars as unknowns; the dense step's solution, and the energy (of the terms) to round-off.
// Solved to 1e-15: c is a quotient by |Δ|², so its last correction stays above round-off (about
// 1e-16/|Δ|²) and Newton cannot declare convergence at 1e-16 by the size of its corrections.
TEST(KnifeEdgeChain, DiscreteGradientByTermsEqualsTheDenseOne) {
  NewtonOptions options;
  options.tolerance = 1e-15;
  const double h = 0.05;
  const auto compare = [&](const auto& model, const auto& x, const std::string& label) {
    const WithoutTerms<std::decay_t<decltype(model)>> dense{model};
    const DiscreteGradient by_terms(model, h, options);
    const DiscreteGradient whole(dense, h, options);
    auto s = by_terms.initial_state(x.q, x.v);
    auto d = whole.initial_state(x.q, x.v);
    const double E0 = local::energy(model, x.q, x.v);
    double energy_error = 0.0;
    int most_iterations = 0;
    const double largest =
        largest_difference_side_by_side(by_terms, s, whole, d, 100, [&](const auto& a, const auto& b) {
          energy_error = std::max(energy_error, std::abs(local::energy(model, a.q, a.v) - E0));
          most_iterations = std::max(most_iterations, a.iterations);
          return std::max({(a.q - b.q).template lpNorm<Eigen::Infinity>(),
                           (a.v - b.v).template lpNorm<Eigen::Infinity>(),
                           (a.p - b.p).template lpNorm<Eigen::Infinity>()});
        });
    test::report(label + " discrete-gradient max |x_terms - x_dense| over 100 steps", largest);
    test::report(label + " discrete-gradient max |E - E0| / E0 by terms", energy_error / E0);
    test::report(label + " discrete-gradient most Newton iterations by terms", most_iterations);
    EXPECT_LT(largest, 1e-12) << label;
    EXPECT_LT((s.multiplier - d.multiplier).template lpNorm<Eigen::Infinity>(), 1e-10) << label;
    EXPECT_LT(energy_error, 1e-14 * E0) << label;
    EXPECT_LT(local::constraint_residual(model, s.q, s.v), 1e-13) << label;
  };
  for (const int N : {1, 3}) {
    const KnifeEdgeChain chain(N);
    compare(chain, perturbed_start(chain), "chain N=" + std::to_string(N));
  }
  for (const int N : {1, 3}) compare(SleighChain(N), sleigh_start(N), "sleighs N=" + std::to_string(N));
}

// SPARK by terms, with the stage and end velocities as unknowns: the dense step's solution (which
// iterates with a kept Jacobian) for 2, 3 and 4 stages, on the chain and on the sleighs.
TEST(KnifeEdgeChain, SparkByTermsEqualsTheDenseOne) {
  NewtonOptions options;
  options.tolerance = 1e-15;
  const double h = 0.05;
  const auto compare = [&](const auto& model, const auto& x, const std::string& label) {
    const WithoutTerms<std::decay_t<decltype(model)>> dense{model};
    for (const int stages : {2, 3, 4}) {
      const Spark by_terms(model, h, stages, options);
      const Spark whole(dense, h, stages, options);
      auto s = by_terms.initial_state(x.q, x.v);
      auto d = whole.initial_state(x.q, x.v);
      const double largest =
          largest_difference_side_by_side(by_terms, s, whole, d, 50, [&](const auto& a, const auto& b) {
            return std::max({(a.q - b.q).template lpNorm<Eigen::Infinity>(),
                             (a.v - b.v).template lpNorm<Eigen::Infinity>(),
                             (a.p - b.p).template lpNorm<Eigen::Infinity>()});
          });
      const std::string name = label + " spark s=" + std::to_string(stages);
      test::report(name + " max |x_terms - x_dense| over 50 steps", largest);
      EXPECT_LT(largest, 1e-12) << name;
      EXPECT_LT((s.multiplier - d.multiplier).template lpNorm<Eigen::Infinity>(), 1e-10) << name;
      EXPECT_LT(local::constraint_residual(model, s.q, s.v), 1e-13) << name;
    }
  };
  for (const int N : {1, 3}) {
    const KnifeEdgeChain chain(N);
    compare(chain, perturbed_start(chain), "chain N=" + std::to_string(N));
  }
  compare(SleighChain(2), sleigh_start(2), "sleighs N=2");
}

TEST(KnifeEdgeChain, Rk4ByTermsEqualsTheDenseRk4) {
  for (const int N : {1, 5}) {
    const KnifeEdgeChain chain(N);
    const DenseChain dense{chain};
    const auto x = perturbed_start(chain);
    const RungeKutta4<KnifeEdgeChain> by_terms(chain, 0.05);
    const RungeKutta4<DenseChain> whole(dense, 0.05);
    auto s = by_terms.initial_state(x.q, x.v);
    auto d = whole.initial_state(x.q, x.v);
    const double largest =
        largest_difference_side_by_side(by_terms, s, whole, d, 200, [](const auto& a, const auto& b) {
          return (a.q - b.q).template lpNorm<Eigen::Infinity>() + (a.v - b.v).template lpNorm<Eigen::Infinity>();
        });
    test::report("chain N=" + std::to_string(N) + " rk4 max |x_terms - x_dense| over 200 steps", largest);
    EXPECT_LT(largest, 1e-12) << N;
    const auto a = constrained_acceleration(chain, x.q, x.v, 0.0), b = constrained_acceleration(dense, x.q, x.v, 0.0);
    EXPECT_LT((a.multiplier - b.multiplier).lpNorm<Eigen::Infinity>(), 1e-12) << N;
  }
}

TEST(KnifeEdgeChain, LongChainKeepsItsDiscreteConstraintsAndEnergy) {
  const KnifeEdgeChain chain(40);
  const double h = 0.05;
  const auto x = chain.default_initial();
  const auto dla = make_dla(chain, h);
  auto s = dla.initial_state(x.q, x.v);
  const double E0 = energy(chain, x.q, x.v);
  double max_drift = 0.0, max_omega = 0.0;
  int max_iterations = 0;
  for (int k = 0; k < 400; ++k) {
    const Eigen::VectorXd q_prev = s.q;
    dla.step(s);
    // the discrete constraint ω(q_k, q_{k+1}), recomputed here, and the energy at the midpoint
    for (int i = 0; i < chain.skates(); ++i) {
      const double phim = 0.5 * (q_prev[3 * i + 2] + s.q[3 * i + 2]);
      const Eigen::Vector2d vm = (s.q.segment<2>(3 * i) - q_prev.segment<2>(3 * i)) / h;
      max_omega = std::max(max_omega, std::abs(std::sin(phim) * vm[0] - std::cos(phim) * vm[1]));
    }
    max_drift = std::max(max_drift, std::abs(energy(chain, Eigen::VectorXd(0.5 * (q_prev + s.q)), s.last_velocity) - E0));
    max_iterations = std::max(max_iterations, s.iterations);
  }
  test::report("chain N=40 energy drift (midpoint), t = 20", max_drift);
  test::report("chain N=40 max |omega|", max_omega);
  EXPECT_LT(max_omega, 1e-12);
  EXPECT_LE(s.discrete_constraint, max_omega);
  EXPECT_LT(max_drift, 1e-2 * E0);
  EXPECT_LE(max_iterations, 4);
}
