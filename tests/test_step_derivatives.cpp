// The derivative of a step with respect to the state it starts from (the implicit-function theorem
// on the converged equations, discrete/position_momentum_derivative.hpp for the position–momentum
// methods, each method's own equations for the others, RK4's stages in dual numbers): the
// step_derivative of DLA, MLA, DEL, GF, FIM, McLachlan–Perlmutter, the discrete gradient, SPARK and
// RK4 (by (q_k, v_k)) against central finite differences of the step on systems with constraints,
// with an external force of (q, v, t), and without constraints, where the step is a symplectic
// map, which its derivative shows to round-off; and the derivative by a constant external force
// (step_derivatives of DLA, MLA, DEL, McLachlan–Perlmutter, the discrete gradient, SPARK and RK4)
// against central differences in the force. Each (method, model) pair compiles the step's
// equations in dual numbers anew, so the models are the particle and the sleigh for the
// position–momentum methods (the sleigh with a force, the vertical disk and the particle for the
// others), and beyond them one model for each case that adds something: a force of (q, v, t), two
// constraints (the vertical disk), none (the satellite), terms (the chain). This
// file compiles at -O0 (tests/CMakeLists.txt).
// Model files: ModelFiles.StepDerivativesAgreeWithCentralDifferences and
// ModelFiles.StepDerivativesByAConstantForce; the others:
// Exact.StepDerivativeAgreesWithCentralDifferences, Herglotz.StepDerivativeAgreesWithCentralDifferences
// and DsocsPendulum.StepDerivativeAgreesWithCentralDifferences.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

#include "dalembert/method/del.hpp"
#include "dalembert/method/dla.hpp"
#include "dalembert/method/discrete_gradient.hpp"
#include "dalembert/method/generating_function.hpp"
#include "dalembert/method/mclachlan_perlmutter.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"
#include "dalembert/method/momentum_energy.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/method/spark.hpp"
#include "dalembert/model/without_terms.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/knife_edge_chain.hpp"
#include "dalembert/models/particle.hpp"
#include "dalembert/models/satellite.hpp"
#include "dalembert/models/vertical_disk.hpp"
#include "central_differences.hpp"
#include "test_support.hpp"

using namespace dalembert;

namespace {

/// The sleigh with viscous drag and a periodic push along x: a force of q, v and t.
struct DraggedPushedSleigh : models::ChaplyginSleigh {
  double drag = 0.2, push = 0.5;
  template <class T>
  Vec<T, 3> force(const Vec<T, 3>&, const Vec<T, 3>& v, double t) const {
    Vec<T, 3> f = -drag * v;
    f[0] += push * std::cos(t);
    return f;
  }
};

/// The model with a constant force f added to its own, if it has one: central differences in f.
template <class S>
struct WithConstantForce : S {
  Vecd<S::n> f = Vecd<S::n>::Zero();
  explicit WithConstantForce(const S& system) : S(system) {}
  template <class T>
  Vec<T, S::n> force(const Vec<T, S::n>& q, const Vec<T, S::n>& v, double t) const {
    Vec<T, S::n> total = f.template cast<T>();
    if constexpr (HasExternalForce<S>) total += S::template force<T>(q, v, t);
    return total;
  }
};

// The methods, from a system and a step size.
const auto dla_of = [](const auto& system, double h) { return make_dla(system, h); };
const auto mla_of = [](const auto& system, double h) { return make_midpoint_mla(system, h); };
const auto del_of = [](const auto& system, double h) {
  using S = std::decay_t<decltype(system)>;
  return DiscreteEulerLagrange<S, AlphaRule<S>>(system, AlphaRule<S>(system, h));
};
const auto gf_of = [](const auto& system, double h) {
  return GeneratingFunctionIntegrator<std::decay_t<decltype(system)>>(system, h);
};
const auto gf_sym_of = [](const auto& system, double h) {  // α = 1/4: the average of two rules
  return GeneratingFunctionIntegrator<std::decay_t<decltype(system)>>(system, h, 0.25, true);
};
const auto gf_cp_of = [](const auto& system, double h) {
  return GeneratingFunctionIntegrator<std::decay_t<decltype(system)>, true>(system, h);
};
const auto fim_of = [](const auto& system, double h) {
  using S = std::decay_t<decltype(system)>;
  return MomentumEnergyIntegrator<S, AlphaRule<S>>(system, AlphaRule<S>(system, h));
};

const auto mp_of = [](const auto& system, double h) {
  return McLachlanPerlmutter<std::decay_t<decltype(system)>>(system, h);
};
const auto dg_of = [](const auto& system, double h) {
  return DiscreteGradient<std::decay_t<decltype(system)>>(system, h);
};
const auto rk4_of = [](const auto& system, double h) {
  return RungeKutta4<std::decay_t<decltype(system)>>(system, h);
};
const auto spark_of = [](int stages) {
  return [stages](const auto& system, double h) { return Spark<std::decay_t<decltype(system)>>(system, h, stages); };
};

/// test::step_derivative_error of the method `make` gives for the system and h, from the
/// system's default start.
template <class Make, class S>
double step_derivative_error(const std::string& name, const Make& make, const S& system, double h) {
  const auto x0 = system.default_initial();
  return test::step_derivative_error(name, make(system, h), x0.q, x0.v);
}

/// The largest entry of the derivative by a constant external force (step_derivatives' by_force)
/// off central differences in f (steps of 1e-5), relative to its largest entry, three steps of h
/// from the system's default start; also its by_state off central differences in the state, which
/// it must meet to 1e-8 as step_derivative does.
template <class Make, class S>
double force_derivative_error(const std::string& name, const Make& make, const S& base, double h) {
  const WithConstantForce<S> pushed(base);
  const auto method = make(pushed, h);
  const auto x0 = base.default_initial();
  auto s = method.initial_state(x0.q, x0.v);
  for (int k = 0; k < 3; ++k) method.step(s);
  const StepDerivatives d = method.step_derivatives(s);
  const Eigen::MatrixXd by_state = test::step_by_central_differences(method, s);
  EXPECT_LT((d.by_state - by_state).cwiseAbs().maxCoeff(), 1e-8 * d.by_state.cwiseAbs().maxCoeff()) << name;
  const int n = coordinate_count(base);
  Eigen::MatrixXd reference(2 * n, n);
  for (int j = 0; j < n; ++j) {
    auto up = pushed, down = pushed;
    up.f[j] = 1e-5;
    down.f[j] = -1e-5;
    auto s_up = s, s_down = s;
    make(up, h).step(s_up);
    make(down, h).step(s_down);
    reference.col(j) << (s_up.q - s_down.q) / 2e-5, (momentum_of(s_up) - momentum_of(s_down)) / 2e-5;
  }
  const double error = (d.by_force - reference).cwiseAbs().maxCoeff() / d.by_force.cwiseAbs().maxCoeff();
  test::report("force_derivative_" + name, error);
  return error;
}

/// |Dᵀ Ω D − Ω|_max for the step derivative D of a method on a system without constraints, Ω the
/// canonical form on (q, p): zero for a symplectic step.
template <class Make, class S>
double symplecticity_defect(const Make& make, const S& system, double h) {
  const auto method = make(system, h);
  const auto x0 = system.default_initial();
  auto s = method.initial_state(x0.q, x0.v);
  for (int k = 0; k < 5; ++k) method.step(s);
  const Eigen::MatrixXd D = method.step_derivative(s);
  const int n = coordinate_count(system);
  Eigen::MatrixXd omega = Eigen::MatrixXd::Zero(2 * n, 2 * n);
  omega.topRightCorner(n, n).setIdentity();
  omega.bottomLeftCorner(n, n) = -Eigen::MatrixXd::Identity(n, n);
  return (D.transpose() * omega * D - omega).cwiseAbs().maxCoeff();
}

}  // namespace

// Central differences with steps of 1e-6 are accurate to about 1e-10 here (their truncation 1e-12,
// their round-off 1e-16/1e-6): the bound 1e-8 leaves a factor 100. A block left out or of the wrong
// sign is off by far more: the pushed sleigh's drag alone is about h·0.2 = 2e-2 of its derivative.
TEST(StepDerivative, DlaAgreesWithCentralDifferences) {
  EXPECT_LT(step_derivative_error("particle", dla_of, models::NonholonomicParticle{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("sleigh", dla_of, models::ChaplyginSleigh{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("dragged_pushed_sleigh", dla_of, DraggedPushedSleigh{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("satellite", dla_of, models::Satellite{}, 0.1), 1e-8);
}

// MLA's discrete forces F_d^± = (h/2) M(q_mid)ᵀλ(q_mid, v_d) carry the constraint force's
// multiplier, a function of (q, v) through the constrained acceleration: its derivative is part of
// the step's.
TEST(StepDerivative, MlaAgreesWithCentralDifferences) {
  EXPECT_LT(step_derivative_error("mla_particle", mla_of, models::NonholonomicParticle{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("mla_sleigh", mla_of, models::ChaplyginSleigh{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("mla_dragged_pushed_sleigh", mla_of, DraggedPushedSleigh{}, 0.1), 1e-8);
}

// DEL ignores constraints: on the sleigh its step is the free rigid body's in the plane.
TEST(StepDerivative, DelAgreesWithCentralDifferences) {
  EXPECT_LT(step_derivative_error("del_particle", del_of, models::NonholonomicParticle{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("del_satellite", del_of, models::Satellite{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("del_sleigh", del_of, models::ChaplyginSleigh{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("del_dragged_pushed_sleigh", del_of, DraggedPushedSleigh{}, 0.1), 1e-8);
}

// GF's discrete forces α0, α1 carry Λ~ = −Mᵀλ at the finite-difference velocity, off D.
TEST(StepDerivative, GfAgreesWithCentralDifferences) {
  EXPECT_LT(step_derivative_error("gf_particle", gf_of, models::NonholonomicParticle{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("gf_sleigh", gf_of, models::ChaplyginSleigh{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("gf_sym_particle", gf_sym_of, models::NonholonomicParticle{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("gf_sym_sleigh", gf_sym_of, models::ChaplyginSleigh{}, 0.1), 1e-8);
}

// GF-CP projects the next momentum onto Leg(D) at q_{k+1}, and FIM's state is p⁻, which it reflects
// there, p⁻_{k+1} = (2P* − I) p⁺_{k+1}: the projection's derivative in q_{k+1} is part of the step's.
TEST(StepDerivative, GfCpAndFimAgreeWithCentralDifferences) {
  EXPECT_LT(step_derivative_error("gf_cp_particle", gf_cp_of, models::NonholonomicParticle{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("gf_cp_sleigh", gf_cp_of, models::ChaplyginSleigh{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("fim_particle", fim_of, models::NonholonomicParticle{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("fim_sleigh", fim_of, models::ChaplyginSleigh{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("fim_vertical_disk", fim_of, models::VerticalDisk{}, 0.1), 1e-8);
}

// The methods written with the metric carry (q, v, p), p = G(q)v: their derivative is by (q_k, p_k)
// with v_k = G(q_k)⁻¹p_k, as the central differences move it. McLachlan–Perlmutter's equations hold
// G(q½)⁻¹ and H_q at the drifted midpoint q½ = q0 + (h/2) v0, the discrete gradient's the energy of
// the start and M̃, SPARK's every stage (2 to 4 stages, the stages' IIIA constraint rows and g at the
// step point): all of it depends on the start and enters the derivative. Two models each, whose
// derivatives compile anew for every method: the sleigh with a force of (q, v, t) and a metric that
// varies, and the vertical disk with two constraints; and the particle, whose metric is constant.
TEST(StepDerivative, MetricMethodsAgreeWithCentralDifferences) {
  const DraggedPushedSleigh pushed;
  const models::VerticalDisk disk;
  const models::NonholonomicParticle particle;
  EXPECT_LT(step_derivative_error("mp_particle", mp_of, particle, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("dg_particle", dg_of, particle, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("spark3_particle", spark_of(3), particle, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("mp_dragged_pushed_sleigh", mp_of, pushed, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("mp_vertical_disk", mp_of, disk, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("dg_dragged_pushed_sleigh", dg_of, pushed, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("dg_vertical_disk", dg_of, disk, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("spark2_dragged_pushed_sleigh", spark_of(2), pushed, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("spark3_dragged_pushed_sleigh", spark_of(3), pushed, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("spark4_vertical_disk", spark_of(4), disk, 0.1), 1e-8);
}

// Without constraints DLA's equations are DEL's, whose step is symplectic: Dᵀ Ω D = Ω to round-off.
TEST(StepDerivative, WithoutConstraintsTheStepIsSymplectic) {
  const double satellite = symplecticity_defect(dla_of, models::Satellite{}, 0.1);
  const double del_satellite = symplecticity_defect(del_of, models::Satellite{}, 0.1);
  const double mla_satellite = symplecticity_defect(mla_of, models::Satellite{}, 0.1);
  test::report("step_derivative_symplecticity_satellite", satellite);
  test::report("step_derivative_symplecticity_del_satellite", del_satellite);
  test::report("step_derivative_symplecticity_mla_satellite", mla_satellite);
  EXPECT_LT(satellite, 1e-13);
  EXPECT_LT(del_satellite, 1e-13);
  EXPECT_LT(mla_satellite, 1e-13);
}

// The derivative by a constant external force f over the step (a control input): f enters the
// midpoint discrete forces as (h/2) f at each end, and through them q_{k+1} and p_{k+1}; without
// constraints ∂q_{k+1}/∂f is (h²/2) G⁻¹ and ∂p_{k+1}/∂f is h to leading order, so a sign or a factor
// ½ wrong is far off the bound. Central differences in f with steps of 1e-5 are accurate to about
// 1e-10 of the largest entry (h): with 1e-6 their round-off alone was 1e-9.
TEST(StepDerivative, ByAConstantForceAgreesWithCentralDifferences) {
  EXPECT_LT(force_derivative_error("dla_particle", dla_of, models::NonholonomicParticle{}, 0.1), 1e-8);
  EXPECT_LT(force_derivative_error("dla_sleigh", dla_of, models::ChaplyginSleigh{}, 0.1), 1e-8);
  EXPECT_LT(force_derivative_error("dla_dragged_pushed_sleigh", dla_of, DraggedPushedSleigh{}, 0.1), 1e-8);
  EXPECT_LT(force_derivative_error("del_satellite", del_of, models::Satellite{}, 0.1), 1e-8);
}

// MLA's α-force is h times the total force at the midpoint, the constraint force included: f enters
// it directly and through the multiplier that balances it (λ solves the constrained acceleration
// with the model's force plus f), so ∂q_{k+1}/∂f differs from DLA's in the constrained directions.
TEST(StepDerivative, MlaByAConstantForce) {
  EXPECT_LT(force_derivative_error("mla_particle", mla_of, models::NonholonomicParticle{}, 0.1), 1e-8);
  EXPECT_LT(force_derivative_error("mla_dragged_pushed_sleigh", mla_of, DraggedPushedSleigh{}, 0.1), 1e-8);
}

// The same for the methods written with the metric, on the sleigh with drag and a push of t: f is
// added to the model's force where their equations evaluate it, h f in McLachlan–Perlmutter's and
// the discrete gradient's momentum rows, in each of SPARK's stage rates.
TEST(StepDerivative, ByAConstantForceOfTheMethodsWithTheMetric) {
  const DraggedPushedSleigh sleigh;
  EXPECT_LT(force_derivative_error("mclachlan_perlmutter_dragged_pushed_sleigh", mp_of, sleigh, 0.1), 1e-8);
  EXPECT_LT(force_derivative_error("discrete_gradient_dragged_pushed_sleigh", dg_of, sleigh, 0.1), 1e-8);
  EXPECT_LT(force_derivative_error("spark_dragged_pushed_sleigh", spark_of(3), sleigh, 0.1), 1e-8);
}

// RK4's derivatives by (q_k, v_k) and by a constant force f, through its four stages in dual
// numbers: on the sleigh with drag and a push of t (whose multiplier depends on q, v and t, and on
// f through the constrained acceleration) and on the vertical disk (two constraints). Without
// constraints ∂q_{k+1}/∂f is (h²/2) G⁻¹ and ∂v_{k+1}/∂f is h G⁻¹ to leading order.
TEST(StepDerivative, Rk4ByTheStateAndAConstantForce) {
  const DraggedPushedSleigh sleigh;
  EXPECT_LT(step_derivative_error("rk4_dragged_pushed_sleigh", rk4_of, sleigh, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("rk4_vertical_disk", rk4_of, models::VerticalDisk{}, 0.1), 1e-8);
  EXPECT_LT(force_derivative_error("rk4_dragged_pushed_sleigh", rk4_of, sleigh, 0.1), 1e-8);
}

// At run-time sizes the derivatives of the steps on model files meet central differences, within
// the bound (dla, mla) and on the heap (every discrete method), from the library's instances
// (ModelFiles.StepDerivativesAgreeWithCentralDifferences): not compiled again here at those sizes.

namespace {
/// sin over a range of phases, a direction with entries of order one in every coordinate.
Eigen::VectorXd sines(Eigen::Index size, double phase) {
  return Eigen::VectorXd(Eigen::VectorXd::LinSpaced(size, phase, phase + 7.0 * size).array().sin());
}

/// (δq_{k+1}, δp_{k+1}) of a step derivative by terms applied to d: the n rows from `q_row` (the
/// method's next_position_row, 0 for DLA) and the last n rows.
template <class Map>
Eigen::VectorXd state_part_of_product(const Map& map, const Eigen::VectorXd& d, Eigen::Index q_row = 0) {
  const Eigen::Index n = d.size() / 2;
  const Eigen::VectorXd full = map * d;
  Eigen::VectorXd out(2 * n);
  out << full.segment(q_row, n), full.tail(n);
  return out;
}

/// The largest difference between a step derivative by terms applied to two directions (entries of
/// order one in every coordinate) and central differences of the step along them, relative to the
/// product, a step into a run on the chain from its default start.
template <class Method>
double chain_products_against_central_differences(const Method& method, const models::KnifeEdgeChain& chain) {
  const auto x0 = chain.default_initial();
  auto s = method.initial_state(x0.q, x0.v);
  method.step(s);
  const auto map = method.sparse_step_derivative(s);
  Eigen::Index q_row = 0;
  if constexpr (requires { method.next_position_row(s); }) q_row = method.next_position_row(s);
  double worst = 0.0;
  for (const double phase : {0.0, 0.7}) {
    const Eigen::VectorXd d = sines(2 * s.q.size(), phase), product = state_part_of_product(map, d, q_row);
    const Eigen::VectorXd reference = test::step_along_by_central_differences(method, s, d);
    worst = std::max(worst, (product - reference).lpNorm<Eigen::Infinity>() / product.lpNorm<Eigen::Infinity>());
  }
  return worst;
}
}  // namespace

namespace {
/// A method by terms on 3 skates (`make` of a model) and the same method on them through the chain's
/// dense interface, `steps` steps from the default start: the first, its state, and the relative
/// difference of the two step derivatives, reported as step_derivative_chain_terms_against_dense_<name>.
template <class Make>
auto by_terms_against_dense_on_three_skates(const std::string& name, Make make, int steps) {
  const models::KnifeEdgeChain three(3);
  const WithoutTerms<models::KnifeEdgeChain> dense{three};
  const auto by_terms = make(three);
  const auto whole = make(dense);
  const auto x0 = three.default_initial();
  auto s = by_terms.initial_state(x0.q, x0.v);
  auto t = whole.initial_state(x0.q, x0.v);
  for (int k = 0; k < steps; ++k) {
    by_terms.step(s);
    whole.step(t);
  }
  const Eigen::MatrixXd D = whole.step_derivative(t), E = by_terms.step_derivative(s);
  const double error = (E - D).cwiseAbs().maxCoeff() / D.cwiseAbs().maxCoeff();
  test::report("step_derivative_chain_terms_against_dense_" + name, error);
  return std::tuple{by_terms, s, E, error};
}
}  // namespace

// By terms (model/local_terms.hpp) DLA's derivative is assembled from the terms' blocks in a sparse
// Jacobian: on the chain of knife edges it is the derivative of the same equations differentiated
// whole (the chain through its dense interface) to round-off, under the midpoint and the
// trapezoidal rule, and its product with a direction is the matrix's; on 100 skates (300
// coordinates) its products with two directions agree with central differences along them (two
// steps each: the whole matrix by differences would take 1200 steps, a minute at -O0).
TEST(StepDerivative, DlaByTermsOnTheChain) {
  const double h = 0.05;
  const auto trapezoid = [h](const auto& model) {
    using Model = std::decay_t<decltype(model)>;
    return DiscreteLagrangeDAlembert<Model, TrapezoidRule<Model>, AlphaConstraint<Model>>(
        model, TrapezoidRule<Model>(model, h), AlphaConstraint<Model>(model, h, 0.5));
  };
  const auto midpoint = [h](const auto& model) { return make_dla(model, h); };
  const auto against_dense = [&](const std::string& name, const auto& make) {
    const auto [by_terms, s, E, error] = by_terms_against_dense_on_three_skates(name, make, 1);
    static_assert(std::decay_t<decltype(by_terms)>::by_terms);
    EXPECT_LT(error, 1e-13) << name;
    const Eigen::VectorXd d = sines(E.cols(), 0.3);
    const Eigen::VectorXd product = state_part_of_product(by_terms.sparse_step_derivative(s), d);
    const Eigen::VectorXd by_matrix = E * d;
    const double product_error = (product - by_matrix).lpNorm<Eigen::Infinity>() / by_matrix.lpNorm<Eigen::Infinity>();
    test::report("step_derivative_chain_product_against_matrix_" + name, product_error);
    EXPECT_LT(product_error, 1e-13) << name;
  };
  against_dense("midpoint", midpoint);
  against_dense("trapezoid", trapezoid);

  const models::KnifeEdgeChain chain(100);
  const double worst = chain_products_against_central_differences(make_dla(chain, h), chain);
  test::report("step_derivative_dla_chain_100_along_two_directions", worst);
  EXPECT_LT(worst, 1e-6);
}

namespace {
/// A method by terms on the chain (`make` of a model), against the same method on the chain through
/// its dense interface: on 3 skates its derivative's matrix (from its map) equals the dense step's
/// to round-off; on 100 skates its products with two directions agree with central differences
/// along them.
template <class Make>
void method_by_terms_on_the_chain(const std::string& name, Make make) {
  EXPECT_LT(std::get<3>(by_terms_against_dense_on_three_skates(name, make, 3)), 1e-13) << name;

  const models::KnifeEdgeChain chain(100);
  const double worst = chain_products_against_central_differences(make(chain), chain);
  test::report("step_derivative_" + name + "_chain_100_along_two_directions", worst);
  EXPECT_LT(worst, 1e-6) << name;
}
}  // namespace

// The methods written with the metric, by terms (h = 0.05): the discrete gradient (its equations
// multiplied through by G(q̄), with c and σ as two more unknowns) and McLachlan–Perlmutter (every
// term's metric constant), differentiated by (q_k, v_k), v_k = G(q_k)⁻¹p_k; SPARK with 3 stages (the
// stage velocities among its unknowns, the start entering its equations linearly). A test each, so
// that they run in parallel.
TEST(StepDerivative, DiscreteGradientByTermsOnTheChain) {
  method_by_terms_on_the_chain("discrete_gradient", [](const auto& model) { return DiscreteGradient(model, 0.05); });
}
TEST(StepDerivative, McLachlanPerlmutterByTermsOnTheChain) {
  method_by_terms_on_the_chain("mclachlan_perlmutter",
                               [](const auto& model) { return McLachlanPerlmutter(model, 0.05); });
}
TEST(StepDerivative, SparkByTermsOnTheChain) {
  method_by_terms_on_the_chain("spark3", [](const auto& model) { return Spark(model, 0.05, 3); });
}

// The methods whose steps take the constraint force or the projection onto Leg(D), by terms
// (h = 0.05): MLA (F_d^± at the midpoint), GF (α0, α1 at q_α; GF-sym with α = 1/4 at q_α and
// q_{1−α}), GF-CP (GF's, then P*(q_{k+1})) and FIM (DEL's equations in p⁻, then the reflection
// 2P*(q_{k+1}) − I). Both come from sparse saddle-point systems whose inverses couple every
// coordinate: the forces' share of the equations is solved by iteration, as the step's Newton
// does, and the projection's derivative is applied to the result. On 3 skates the derivative
// equals the dense step's, differentiated whole, to round-off; on 100 skates its products with
// two directions agree with central differences. A test each, so that they run in parallel.
TEST(StepDerivative, MlaByTermsOnTheChain) {
  method_by_terms_on_the_chain("mla", [](const auto& model) { return mla_of(model, 0.05); });
}
TEST(StepDerivative, GfByTermsOnTheChain) {
  method_by_terms_on_the_chain("gf", [](const auto& model) { return gf_of(model, 0.05); });
}
TEST(StepDerivative, GfSymByTermsOnTheChain) {
  method_by_terms_on_the_chain("gf_sym", [](const auto& model) { return gf_sym_of(model, 0.05); });
}
TEST(StepDerivative, GfCpByTermsOnTheChain) {
  method_by_terms_on_the_chain("gf_cp", [](const auto& model) { return gf_cp_of(model, 0.05); });
}
TEST(StepDerivative, FimByTermsOnTheChain) {
  method_by_terms_on_the_chain("fim", [](const auto& model) { return fim_of(model, 0.05); });
}
