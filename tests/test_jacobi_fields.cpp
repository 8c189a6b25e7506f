// Jacobi fields of model files (src/modelfile/jacobi_field.hpp, docs/jacobi-fields.md): the field
// against central differences of the flow on five files up to 11 coordinates, the discrete fields
// of the steppers (products of their step's Jacobians A) converging to it at each method's order,
// the exponential map's differential and the conjugate points of the nonholonomic particle in
// closed form, the Maupertuis–Jacobi principle on the steered disk with its reparametrisation in
// closed form, and bad input refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "dalembert/io/errors.hpp"
#include "modelfile/jacobi_field.hpp"
#include "modelfile/model.hpp"
#include "modelfile/stepper.hpp"

using namespace dalembert;

namespace {

std::string model_path(const std::string& name) { return std::string(DALEMBERT_SOURCE_DIR) + "/models/" + name; }

Eigen::VectorXd random_vector(int n, std::mt19937& random) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  return Eigen::VectorXd::NullaryExpr(n, [&] { return uniform(random); });
}

/// The BadInput message of `call`, or "no BadInput".
template <class Call>
std::string message(Call&& call) {
  try {
    call();
  } catch (const BadInput& e) {
    return e.what();
  }
  return "no BadInput";
}

InitialData start(const Eigen::VectorXd& q0, const Eigen::VectorXd& v0, bool project) {
  InitialData init;
  init.q0 = q0;
  init.v0 = v0;
  init.project_v0 = project;
  return init;
}

/// The files' own starts, but the sleigh's and the disk's turned and turning so that no symmetry of
/// theirs hides a wrong sign.
struct FlowCase {
  const char* file;
  double T;
  int quaternion = -1;  ///< where a unit quaternion starts among q (its norm a holonomic constraint), or −1
};

class JacobiFieldOfTheFlow : public testing::TestWithParam<FlowCase> {};

}  // namespace

TEST_P(JacobiFieldOfTheFlow, AgreesWithCentralDifferencesOfTheFlow) {
  // W(T) and Ẇ(T) from a random start variation tangent to the constraint (dv0 projected), against
  // the five-point central difference of (q(T), q̇(T)) along the same variation of the start:
  // f'(0) = [8(f(ε) − f(−ε)) − (f(2ε) − f(−2ε))]/(12ε) + O(ε⁴). The perturbed starts are projected
  // onto the constraint, which changes them at O(ε²) along a smooth curve whose tangent is the
  // variation. ε = 1e-3 and tolerance 1e-13 put both errors near 1e-10.
  const char* file = GetParam().file;
  const double T = GetParam().T;
  const auto model = modelfile::load(model_path(file));
  const InitialData none;
  const auto trajectory = modelfile::jacobi_field(model, {}, none, Eigen::VectorXd::Zero(model->n()),
                                                  Eigen::VectorXd::Zero(model->n()), {0.0}, false, 1e-13);
  const Eigen::VectorXd q0 = trajectory.q.row(0).transpose(), v0 = trajectory.v.row(0).transpose();
  std::mt19937 random(7);
  Eigen::VectorXd dq0 = random_vector(model->n(), random);
  const Eigen::VectorXd dv0_free = random_vector(model->n(), random);
  // A quaternion's variation is tangent to its sphere, and the perturbed starts stay on it: they are
  // normalised, a curve on the constraint whose tangent at 0 is the variation.
  const int k = GetParam().quaternion;
  if (k >= 0) dq0.segment<4>(k) -= dq0.segment<4>(k).dot(q0.segment<4>(k)) * q0.segment<4>(k);
  const auto on_the_constraint = [k](Eigen::VectorXd q) {
    if (k >= 0) q.segment<4>(k).normalize();
    return q;
  };
  const auto field = modelfile::jacobi_field(model, {}, start(q0, v0, false), dq0, dv0_free, {0.0, T}, true, 1e-13);
  const Eigen::VectorXd dv0 = field.W_dot.row(0).transpose();  // projected onto the linearised constraint
  EXPECT_LT(field.linearised_constraint[0], 1e-12);
  EXPECT_LT(field.linearised_constraint[1], 1e-9) << "the linearised constraint is a first integral";

  const double eps = 1e-3;
  const auto end_at = [&](double s) {
    const InitialData perturbed = start(on_the_constraint(q0 + s * eps * dq0), v0 + s * eps * dv0, true);
    const auto f = modelfile::jacobi_field(model, {}, perturbed, Eigen::VectorXd::Zero(model->n()),
                                           Eigen::VectorXd::Zero(model->n()), {T}, false, 1e-13);
    Eigen::VectorXd x(2 * model->n());
    x << f.q.row(0).transpose(), f.v.row(0).transpose();
    return x;
  };
  const Eigen::VectorXd fd = (8 * (end_at(1) - end_at(-1)) - (end_at(2) - end_at(-2))) / (12 * eps);
  Eigen::VectorXd W(2 * model->n());
  W << field.W.row(1).transpose(), field.W_dot.row(1).transpose();
  const double error = (W - fd).lpNorm<Eigen::Infinity>() / W.lpNorm<Eigen::Infinity>();
  std::printf("%-24s n = %2d  T = %.1f  |(W, W_t)| = %.3g  relative difference %.2e\n", file, model->n(), T,
              W.lpNorm<Eigen::Infinity>(), error);
  EXPECT_LT(error, 1e-8);
}

INSTANTIATE_TEST_SUITE_P(ModelFiles, JacobiFieldOfTheFlow,
                         testing::Values(FlowCase{"chaplygin-sleigh.toml", 3.0}, FlowCase{"vertical-disk.toml", 3.0},
                                         FlowCase{"rolling-disk.toml", 2.0}, FlowCase{"two-skates.toml", 2.0},
                                         FlowCase{"chaotic-oscillator.toml", 2.0}, FlowCase{"pendulum.toml", 3.0},
                                         FlowCase{"turntable-ball.toml", 3.0, 2}),
                         [](const auto& info) {
                           std::string name = info.param.file;
                           name = name.substr(0, name.find('.'));
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

TEST(JacobiFields, DiscreteFieldsConvergeAtEachMethodsOrder) {
  // The discrete Jacobi field δx_N = A_{N−1} ⋯ A_0 δx_0 of each stepper, from δx_0 =
  // start_tangent(δq0, δv0), against the continuous field at T = N h on the sleigh turned, sliding
  // and turning; observed orders from h = 0.1 to 0.05 to 0.025. The tangent map of a method of
  // order r converges at order r in the positions (δq against W) and in the momentum's components
  // on D, δ⟨p, e_i(q)⟩ for the frame e_1 = (cos θ, sin θ, 0), e_2 = (0, 0, 1) (rk4: δv against Ẇ).
  // DLA's momentum p⁺_k = D2 L_d(q_{k−1}, q_k) carries the whole constraint impulse M(q_k)ᵀλ_k of
  // its step, so it differs from ∂L/∂v at q_k by O(h) along the annihilator of D, and so does its
  // variation: its whole δp converges at order 1, its components on D at order 2.
  const auto model = modelfile::load(model_path("chaplygin-sleigh.toml"));
  const double T = 1.0;
  const Eigen::Vector3d q0(0.1, -0.2, 0.3);
  const Eigen::Vector3d v0(-0.8 * std::cos(0.3), -0.8 * std::sin(0.3), 0.6);
  const Eigen::Vector3d dq0(0.3, -0.5, 0.7), dv0_free(0.2, 0.4, -0.6);
  const auto field = modelfile::jacobi_field(model, {}, start(q0, v0, true), dq0, dv0_free, {0.0, T}, true, 1e-13);
  const Eigen::VectorXd dv0 = field.W_dot.row(0).transpose();
  const std::vector<double> parameters = modelfile::bind(model, {})->parameters;
  const auto on_D = [](const Eigen::VectorXd& q, const Eigen::VectorXd& p, const Eigen::VectorXd& dq,
                       const Eigen::VectorXd& dp) {
    const double c = std::cos(q[2]), s = std::sin(q[2]);
    return Eigen::Vector2d(dp[0] * c + dp[1] * s + (-p[0] * s + p[1] * c) * dq[2], dp[2]);
  };
  const Eigen::VectorXd qT = field.q.row(1).transpose(), vT = field.v.row(1).transpose();
  Eigen::VectorXd xT(6);
  xT << qT, vT;
  const Eigen::VectorXd pT = model->velocity_hessian(xT, parameters) * vT;  // ∂L/∂v = G(q) v
  const Eigen::VectorXd WT = field.W.row(1).transpose();
  const Eigen::Vector2d continuous_on_D = on_D(qT, pT, WT, field.dp.row(1).transpose());

  struct Expected {
    const char* method;
    double order;
  };
  const auto orders = [](const std::vector<double>& e) {
    return std::pair(std::log2(e[0] / e[1]), std::log2(e[1] / e[2]));
  };
  for (const auto [method, order] : {Expected{"dla", 2}, Expected{"mla", 2}, Expected{"mclachlan-perlmutter", 2},
                                     Expected{"discrete-gradient", 2}, Expected{"spark", 4}, Expected{"rk4", 4}}) {
    const bool velocities = std::string(method) == "rk4";
    std::vector<double> position_errors, momentum_errors, whole_momentum_errors;
    for (const double h : {0.1, 0.05, 0.025}) {
      RunOptions o;
      o.method = method;
      o.h = h;
      modelfile::Stepper stepper(model, {}, start(q0, v0, true), o);
      Eigen::VectorXd dx = stepper.start_tangent(dq0, dv0);
      for (long k = 0; k < std::lround(T / h); ++k) {
        dx = stepper.jacobians(Eigen::VectorXd(0)).A * dx;
        stepper.step(Eigen::VectorXd(0));
      }
      const Eigen::VectorXd x = stepper.state();
      position_errors.push_back((dx.head(3) - WT).lpNorm<Eigen::Infinity>());
      const Eigen::VectorXd continuous_momentum = (velocities ? field.W_dot : field.dp).row(1).transpose();
      whole_momentum_errors.push_back((dx.tail(3) - continuous_momentum).lpNorm<Eigen::Infinity>());
      momentum_errors.push_back(velocities ? whole_momentum_errors.back()
                                           : (on_D(x.head(3), x.tail(3), dx.head(3), dx.tail(3)) - continuous_on_D)
                                                 .lpNorm<Eigen::Infinity>());
    }
    const auto [q1, q2] = orders(position_errors);
    const auto [p1, p2] = orders(momentum_errors);
    const auto [w1, w2] = orders(whole_momentum_errors);
    std::printf("%-22s dq %.2e %.2e %.2e (orders %.2f %.2f)  dp on D %.2e %.2e %.2e (%.2f %.2f)  whole dp (%.2f %.2f)\n",
                method, position_errors[0], position_errors[1], position_errors[2], q1, q2, momentum_errors[0],
                momentum_errors[1], momentum_errors[2], p1, p2, w1, w2);
    EXPECT_NEAR(q2, order, 0.1) << method;
    EXPECT_NEAR(p2, order, 0.1) << method;
    EXPECT_NEAR(w2, std::string(method) == "dla" ? 1.0 : order, 0.1) << method;
  }
}

TEST(JacobiFields, RefuseBadInputByName) {
  const auto model = modelfile::load(model_path("chaplygin-sleigh.toml"));
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(3), e3 = Eigen::Vector3d::UnitZ();
  const InitialData none;
  // The file's start is (0, 0, 0) at v = (1, 0, 1): a sideways dv0 breaks the constraint.
  EXPECT_NE(message([&] { modelfile::jacobi_field(model, {}, none, zero, Eigen::Vector3d::UnitY(), {1.0}); })
                .find("not tangent to the constraint"),
            std::string::npos);
  EXPECT_NE(message([&] { modelfile::jacobi_field(model, {}, none, zero, e3, {1.0, 0.5}); }).find("times[1] = 0.5"),
            std::string::npos);
  EXPECT_NE(message([&] { modelfile::jacobi_field(model, {}, none, zero, e3, {}); }).find("times is empty"),
            std::string::npos);
  EXPECT_NE(message([&] { modelfile::jacobi_field(model, {}, none, Eigen::VectorXd::Zero(2), e3, {1.0}); })
                .find("dq0 has 2 entries"),
            std::string::npos);
  EXPECT_NE(message([&] { modelfile::jacobi_field(model, {}, none, zero, e3, {1.0}, false, 0.5); })
                .find("tolerance = 0.5"),
            std::string::npos);
  EXPECT_NE(message([&] {
              modelfile::jacobi_field(model, {}, none, zero, Eigen::Vector3d(0, NAN, 0), {1.0});
            }).find("dv0[1] = nan"),
            std::string::npos);
  EXPECT_NE(message([&] {
              modelfile::jacobi_field(modelfile::load(model_path("driven-oscillator.toml")), {}, none,
                                      Eigen::VectorXd::Zero(1), Eigen::VectorXd::Ones(1), {1.0});
            }).find("depends on t"),
            std::string::npos);
  EXPECT_NE(message([&] {
              modelfile::jacobi_field(modelfile::load(model_path("damped-oscillator.toml")), {}, none,
                                      Eigen::VectorXd::Zero(1), Eigen::VectorXd::Ones(1), {1.0});
            }).find("contact system"),
            std::string::npos);
  // A variation the projection makes tangent is accepted, and the constraint stays linearised to zero.
  const auto field = modelfile::jacobi_field(model, {}, none, zero, Eigen::Vector3d::UnitY(), {0.0, 2.0}, true);
  EXPECT_LT(field.linearised_constraint[1], 1e-10);
  EXPECT_GT(field.W.row(1).norm(), 0.1);
  // Affine constraints M(q) v + b(q) = 0 are taken (JacobiFieldOfTheFlow: the turntable's ball), but
  // not a b of the time, nor by the computations of the distribution ker M.
  const Eigen::VectorXd six = Eigen::VectorXd::Zero(6), x_shift = Eigen::VectorXd::Unit(6, 0);
  const auto varying = modelfile::load(model_path("varying-turntable-ball.toml"));
  EXPECT_NE(message([&] { modelfile::jacobi_field(varying, {}, none, x_shift, six, {1.0}, true); })
                .find("the Jacobi-field computation does not take affine constraints of the time"),
            std::string::npos);
  const auto turntable = modelfile::load(model_path("turntable-ball.toml"));
  EXPECT_NE(message([&] { modelfile::exponential_map(turntable, {}, none, 1.0); })
                .find("the exponential map does not take affine constraints, M(q) v + b(q) = 0"),
            std::string::npos);
  EXPECT_NE(message([&] { modelfile::nonholonomic_connection(turntable, {}, Eigen::VectorXd::Unit(6, 2)); })
                .find("the nonholonomic connection does not take affine constraints"),
            std::string::npos);
  // dq0 moves the ball in x, where the table's surface moves by Ω x in y: the projection gives the
  // start a velocity variation (zero without ∂b/∂q), and the field stays tangent
  const auto shifted = modelfile::jacobi_field(turntable, {}, none, x_shift, six, {0.0, 1.0}, true);
  EXPECT_GT(shifted.W_dot.row(0).norm(), 0.1);
  EXPECT_LT(shifted.linearised_constraint[0], 1e-12);
  EXPECT_LT(shifted.linearised_constraint[1], 1e-10);
}

namespace {

/// The nonholonomic particle (x, y, z), z_t = y x_t, with potential c (x² + y²).
std::shared_ptr<const modelfile::LoadedModel> particle() { return modelfile::load(model_path("particle.toml")); }

}  // namespace

TEST(ExponentialMap, OfTheParticleAtTheOriginInClosedForm) {
  // Thesis Ex. 5.2.11: at q0 = 0, D(q0) = span(∂x, ∂y) and exp_1 at v = (1, 1, 0) has, in that
  // basis, the differential [[asinh 1, √2/2 − asinh 1], [0, 1], [√2 − 1, 1 − √2/2]]; the images of
  // U = ∂x and Ū = ∂x + ∂y have the inner product (√2/2)(asinh 1 + √2 − 1).
  const auto model = particle();
  const double r = std::sqrt(0.5), a = std::asinh(1.0), b = std::sqrt(2.0) - 1.0;
  Eigen::Matrix<double, 3, 2> closed_form;
  closed_form << a, r - a, 0, 1, b, 1 - r;
  Eigen::Matrix<double, 3, 2> U_and_Ubar;
  U_and_Ubar << 1, 1, 0, 1, 0, 0;
  const auto at_origin = start(Eigen::Vector3d::Zero(), Eigen::Vector3d(1, 1, 0), false);
  const auto given = modelfile::exponential_map(model, {}, at_origin, 1.0, U_and_Ubar);
  EXPECT_LT((given.differential - closed_form * U_and_Ubar.topRows<2>()).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_NEAR(given.differential.col(0).dot(given.differential.col(1)), r * (a + b), 1e-10);
  // exp_1(v) itself: x = asinh 1, y = 1, z = √2 − 1 (thesis (4.3.2)-(4.3.3)).
  EXPECT_LT((given.q - Eigen::Vector3d(a, 1, b)).cwiseAbs().maxCoeff(), 1e-10);
  // Without directions: an orthonormal basis of D(q0), mapped by the same matrix.
  const auto basis = modelfile::exponential_map(model, {}, at_origin, 1.0);
  ASSERT_EQ(basis.directions.cols(), 2);
  EXPECT_LT((basis.directions.transpose() * basis.directions - Eigen::Matrix2d::Identity()).norm(), 1e-14);
  EXPECT_LT(basis.directions.row(2).norm(), 1e-14);
  EXPECT_LT((basis.differential - closed_form * basis.directions.topRows<2>()).cwiseAbs().maxCoeff(), 1e-10);
}

TEST(NonholonomicConnection, OfTheParticleAndTheSphereInClosedForm) {
  // The particle (G = I, M = (−y, 0, 1)): Γ^k_ij = ∂_i P'^k_j with P' = MᵀM/s, s = 1 + y², so the
  // only symbols are Γ^x_yx = 2y/s², Γ^x_yz = Γ^z_yx = (y² − 1)/s², Γ^z_yz = −2y/s² (thesis
  // (6.2.25)); its torsion T^k_ij = Γ^k_ij − Γ^k_ji, and its curvature vanishes (Γ depends on y
  // alone and has i = y). The unit sphere's metric dθ² + sin²θ dφ², without constraints: the
  // Levi-Civita connection, Γ^θ_φφ = −sin θ cos θ, Γ^φ_θφ = cot θ, R^θ_θφφ = sin²θ.
  const Eigen::Vector3d q(0.4, -0.7, 0.3);
  const double y = q[1], s = 1 + y * y;
  const auto c = modelfile::nonholonomic_connection(particle(), {}, q);
  std::vector<Eigen::Matrix3d> expected(3, Eigen::Matrix3d::Zero());
  expected[0](1, 0) = 2 * y / (s * s);
  expected[0](1, 2) = expected[2](1, 0) = (y * y - 1) / (s * s);
  expected[2](1, 2) = -2 * y / (s * s);
  for (int k = 0; k < 3; ++k) {
    EXPECT_LT((c.christoffel[k] - expected[k]).cwiseAbs().maxCoeff(), 1e-15) << k;
    EXPECT_LT((c.torsion[k] - (expected[k] - expected[k].transpose())).cwiseAbs().maxCoeff(), 1e-15) << k;
    for (int i = 0; i < 3; ++i) EXPECT_LT(c.curvature[k][i].cwiseAbs().maxCoeff(), 1e-15) << k << i;
  }
  const auto sphere = modelfile::load_text(
      "name = \"sphere\"\ncoordinates = [\"theta\", \"phi\"]\nmetric = [1, \"sin(theta)^2\"]\n"
      "[initial]\nq = [1, 0]\nv = [0, 1]\n",
      "sphere");
  const double theta = 0.8;
  const auto lc = modelfile::nonholonomic_connection(sphere, {}, Eigen::Vector2d(theta, 0.3));
  EXPECT_NEAR(lc.christoffel[0](1, 1), -std::sin(theta) * std::cos(theta), 1e-15);
  EXPECT_NEAR(lc.christoffel[1](0, 1), std::cos(theta) / std::sin(theta), 1e-15);
  EXPECT_NEAR(lc.curvature[0][0](1, 1), std::sin(theta) * std::sin(theta), 1e-14);
  EXPECT_NEAR(lc.curvature[0][1](0, 1), -std::sin(theta) * std::sin(theta), 1e-14);
  EXPECT_THROW(modelfile::nonholonomic_connection(particle(), {}, Eigen::Vector2d(0, 0)), BadInput);
}

TEST(ExponentialMap, TheParticlesPulledBackMetricFailsTheGaussCondition) {
  // Thesis Ex. 5.2.11: G0 = exp_1^* g on D(0) of the particle, at Ū = ∂x + ∂y. Radially the
  // condition holds (G0(Ū)(Ū, Ū) = |q̇(1)|² = g(Ū, Ū) = 2, the energy kept); along U = ∂x it does not:
  // G0(Ū)(Ū, U) = (√2/2)(asinh 1 + √2 − 1) = 0.916118458953683 where g(Ū, U) = 1.
  const double r = std::sqrt(0.5), a = std::asinh(1.0), b = std::sqrt(2.0) - 1.0;
  Eigen::Matrix<double, 3, 2> closed_form;  // T exp_1 in the basis (∂x, ∂y) of D(0)
  closed_form << a, r - a, 0, 1, b, 1 - r;
  Eigen::Matrix<double, 3, 2> U_and_V;
  U_and_V << 1, 0, 0, 1, 0, 0;
  const auto at_origin = start(Eigen::Vector3d::Zero(), Eigen::Vector3d(1, 1, 0), false);
  const auto e = modelfile::exponential_map(particle(), {}, at_origin, 1.0, U_and_V);
  EXPECT_LT((e.metric - closed_form.transpose() * closed_form).cwiseAbs().maxCoeff(), 1e-10);
  EXPECT_NEAR(e.radial[0], 0.916118458953683, 1e-10);
  EXPECT_NEAR(r * (a + b), 0.916118458953683, 1e-15);
  EXPECT_NEAR(e.initial[0], 1.0, 1e-15);
  EXPECT_NEAR(e.radial[0] + e.radial[1], 2.0, 1e-10);  // along Ū = U + V
  EXPECT_NEAR(e.initial[0] + e.initial[1], 2.0, 1e-15);
}

TEST(ExponentialMap, TheLagrangianisedDiskIsTheDiskAndItsMetricAGaussMetric) {
  // Thesis Ex. 5.2.14 (T37, T40): the geodesics of g_mod (tests/data/lagrangianised-disk.toml, no
  // constraint) from v = u(∂x + ∂θ) + w ∂φ ∈ D(0) are the vertical disk's trajectories (m = R = I =
  // J = 1), and G0 = exp_1^* g_mod in the coordinates (u, w) is E du² + 2F du dw + G dw², which
  // satisfies the Gauss condition G0(v)(v, ·) = G0(0)(v, ·); at w = 0 it is du² + (u²/4 + 1) dw².
  const auto lagrangianised =
      modelfile::load(std::string(DALEMBERT_SOURCE_DIR) + "/tests/data/lagrangianised-disk.toml");
  const auto disk = modelfile::load(model_path("vertical-disk.toml"));
  Eigen::Matrix<double, 4, 2> basis;  // ∂x + ∂θ and ∂φ: D(0) in the coordinates (u, w)
  basis << 1, 0, 0, 0, 1, 0, 0, 1;
  const std::pair<double, double> starts[] = {{1.0, 1.0}, {0.7, -1.3}, {-2.0, 0.4}, {1.5, 2.5}, {0.8, 0.0}};
  for (const auto& [u, w] : starts) {
    const Eigen::Vector4d v = basis * Eigen::Vector2d(u, w);
    const auto e = modelfile::exponential_map(lagrangianised, {}, start(Eigen::Vector4d::Zero(), v, false), 1.0, basis);
    const auto nh = modelfile::exponential_map(disk, {}, start(Eigen::Vector4d::Zero(), v, false), 1.0, basis);
    EXPECT_LT((e.q - nh.q).cwiseAbs().maxCoeff(), 1e-10) << u << ", " << w;
    EXPECT_LT((e.differential - nh.differential).cwiseAbs().maxCoeff(), 1e-9) << u << ", " << w;
    Eigen::Matrix2d G0;
    if (w == 0.0) {
      G0 << 1, 0, 0, u * u / 4 + 1;
    } else {
      const double s = std::sin(w), c = std::cos(w);
      const double E = 2 * (w * w - w * s - c + 1) / (w * w);
      const double F = -u * (w * w - 2 * c - 2 * w * s + 2) / (w * w * w);
      const double G =
          (u * u * w * w - 2 * u * u * w * s - 2 * u * u * c + 2 * u * u + w * w * w * w) / (w * w * w * w);
      G0 << E, F, F, G;
    }
    EXPECT_LT((e.metric - G0).cwiseAbs().maxCoeff(), 1e-9) << u << ", " << w;
    EXPECT_LT((e.radial - e.initial).cwiseAbs().maxCoeff(), 1e-9) << u << ", " << w;
    // The disk's own kinetic metric pulled back is another metric, which fails the condition off
    // the straight rolling (w = 0).
    if (w != 0.0) EXPECT_GT((nh.radial - nh.initial).cwiseAbs().maxCoeff(), 1e-3) << u << ", " << w;
  }
}

TEST(ExponentialMap, IsHomogeneousAndTheInclusionAtZeroTime) {
  // Thesis Lemma 5.2.2: where L is the kinetic energy alone, exp_1(s v) = exp_s(v), so s T_{s v} exp_1 · w =
  // T_v exp_s · w; and T exp_h · w = h w + O(h²). On the free particle and the sleigh (whose file
  // has no potential), from starts off their symmetric points.
  struct Case {
    const char* file;
    Eigen::Vector3d q0, v;
  };
  for (const Case& c : {Case{"particle.toml", {0.4, -0.3, 0.2}, {0.6, 0.5, 0.6 * -0.3}},
                        Case{"chaplygin-sleigh.toml", {0.3, -0.2, 0.7}, {0.8, -0.4, 1.1}}}) {
    const auto model = modelfile::load(model_path(c.file));
    for (const double s : {0.5, 2.0}) {
      const auto scaled = modelfile::exponential_map(model, {}, start(c.q0, s * c.v, true), 1.0);
      const auto longer = modelfile::exponential_map(model, {}, start(c.q0, c.v, true), s);
      EXPECT_LT((scaled.q - longer.q).cwiseAbs().maxCoeff(), 1e-10) << c.file << " " << s;
      EXPECT_LT((s * scaled.differential - longer.differential).cwiseAbs().maxCoeff(), 1e-10) << c.file << " " << s;
    }
    const double h = 1e-6;
    const auto short_time = modelfile::exponential_map(model, {}, start(c.q0, c.v, true), h);
    EXPECT_LT((short_time.differential / h - short_time.directions).cwiseAbs().maxCoeff(), 10 * h) << c.file;
  }
}

TEST(ConjugatePoints, OfTheParticleInAPotentialAreWhereTheOscillationReturns) {
  // With V = c (x² + y²), x and y oscillate at ω = √(2c). From the origin along x, both fields of
  // D(q0) = span(∂x, ∂y) vanish at t = kπ/ω (δz = ∫ δy ẋ = sin²(ωt)/(2ω) too): multiplicity 2.
  // From (0.3, 0, 0) at (0.5, 0, 0) only the field from ∂x does (δz from ∂y does not return).
  const auto model = particle();
  for (const double c : {0.5, 2.0}) {
    const double period = M_PI / std::sqrt(2 * c);
    const modelfile::ParameterOverrides potential = {{"potential", c}};
    const auto origin = modelfile::conjugate_points(model, potential,
                                                    start(Eigen::Vector3d::Zero(), Eigen::Vector3d(1, 0, 0), false),
                                                    2.2 * period);
    ASSERT_EQ(origin.size(), 2u) << c;
    for (int k = 0; k < 2; ++k) {
      EXPECT_NEAR(origin[k].t, (k + 1) * period, 1e-9) << c;
      EXPECT_EQ(origin[k].multiplicity, 2) << c;
      EXPECT_LT(origin[k].relative_size, 1e-9) << c;
    }
    const auto off = modelfile::conjugate_points(model, potential,
                                                 start(Eigen::Vector3d(0.3, 0, 0), Eigen::Vector3d(0.5, 0, 0), false),
                                                 3.5 * period);
    ASSERT_EQ(off.size(), 3u) << c;
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(off[k].t, (k + 1) * period, 1e-9) << c;
      ASSERT_EQ(off[k].multiplicity, 1) << c;
      EXPECT_NEAR(std::abs(off[k].directions(0, 0)), 1.0, 1e-9) << c;
      // The field from the returned direction vanishes there, to the integration's accuracy.
      const auto field = modelfile::jacobi_field(model, potential,
                                                 start(Eigen::Vector3d(0.3, 0, 0), Eigen::Vector3d(0.5, 0, 0), false),
                                                 Eigen::Vector3d::Zero(), off[k].directions.col(0), {off[k].t});
      EXPECT_LT(field.W.row(0).cwiseAbs().maxCoeff(), 1e-10) << c;
    }
  }
  // The free particle and the Chaplygin sleigh have none: their exponential maps are immersions.
  EXPECT_TRUE(modelfile::conjugate_points(model, {}, start(Eigen::Vector3d::Zero(), Eigen::Vector3d(1, 0, 0), false),
                                          20.0)
                  .empty());
  EXPECT_TRUE(modelfile::conjugate_points(modelfile::load(model_path("chaplygin-sleigh.toml")), {}, InitialData{}, 20.0)
                  .empty());
}

TEST(ExponentialMap, RefusesBadInputByName) {
  const auto model = particle();
  const auto at_origin = start(Eigen::Vector3d::Zero(), Eigen::Vector3d(1, 1, 0), false);
  EXPECT_NE(message([&] { modelfile::exponential_map(model, {}, at_origin, 0.0); }).find("h = 0 must be"),
            std::string::npos);
  EXPECT_NE(message([&] { modelfile::exponential_map(model, {}, at_origin, 1.0, Eigen::MatrixXd::Identity(3, 3)); })
                .find("direction 2 is not in D(q0)"),
            std::string::npos);
  EXPECT_NE(message([&] { modelfile::exponential_map(model, {}, at_origin, 1.0, Eigen::MatrixXd::Ones(2, 1)); })
                .find("directions has 2 rows"),
            std::string::npos);
  EXPECT_NE(message([&] { modelfile::conjugate_points(model, {}, at_origin, -1.0); }).find("t_end = -1"),
            std::string::npos);
  EXPECT_NE(message([&] { modelfile::conjugate_points(model, {}, at_origin, 1.0, 2); }).find("samples = 2"),
            std::string::npos);
}

namespace {

/// The vertical disk (R = 1) steered by a potential of its heading φ (thesis Ex. 5.3.9, 5.3.10):
/// L = ½(ẋ² + ẏ² + θ̇² + φ̇²) − V(φ), ẋ = cos φ θ̇, ẏ = sin φ θ̇, from q0 = (0.1, −0.2, 0.3, 0.4)
/// along (θ̇, φ̇) ∝ (0.7, 1.3).
std::shared_ptr<const modelfile::LoadedModel> steered_disk(const std::string& potential) {
  return modelfile::load_text("name = \"steered-disk\"\n"
                              "coordinates = [\"x\", \"y\", \"theta\", \"phi\"]\n"
                              "metric = [1, 1, 1, 1]\n"
                              "potential = \"" + potential + "\"\n"
                              "constraints = [\"x_t - cos(phi)*theta_t\", \"y_t - sin(phi)*theta_t\"]\n"
                              "[initial]\n"
                              "q = [0.1, -0.2, 0.3, 0.4]\n"
                              "v = [\"0.7*cos(0.4)\", \"0.7*sin(0.4)\", 0.7, 1.3]\n",
                              "steered disk");
}

}  // namespace

TEST(MaupertuisJacobi, TheSteeredDiskIsTheJacobiMetricsReparametrised) {
  // At energy e the mechanical start is P = √(2(e − V(q0))) v/|v|, so φ̇(0) = ω = 1.3 √(2 f0 / 2.67)
  // with f0 = e − V(φ0) and |v|² = 2 · 0.49 + 1.69. The heading then moves in closed form and so does
  // h(s) = ∫ (e − V(φ)) ds (corrected from the thesis):
  //   V = φ²/2: φ = φ0 cos s + ω sin s, h = e s − ½[(φ0² − ω²) sin s cos s / 2 + (φ0² + ω²) s / 2 + φ0 ω sin² s];
  //   V = φ:    φ = φ0 + ω s − s²/2,    h = e s − φ0 s − ω s²/2 + s³/6.
  const double e = 2.0, phi0 = 0.4;
  const std::vector<double> s = {0.5, 1.0, 2.0, 4.0};
  for (const bool harmonic : {true, false}) {
    const auto model = steered_disk(harmonic ? "phi^2/2" : "phi");
    const double f0 = e - (harmonic ? phi0 * phi0 / 2 : phi0), omega = 1.3 * std::sqrt(2 * f0 / 2.67);
    const auto both = modelfile::maupertuis_jacobi(model, {}, InitialData{}, e, s);
    for (std::size_t i = 0; i < s.size(); ++i) {
      const double si = s[i];
      const double h = harmonic ? e * si - 0.5 * ((phi0 * phi0 - omega * omega) * std::sin(si) * std::cos(si) / 2 +
                                                 (phi0 * phi0 + omega * omega) * si / 2 +
                                                 phi0 * omega * std::sin(si) * std::sin(si))
                                : e * si - phi0 * si - omega * si * si / 2 + si * si * si / 6;
      const double phi = harmonic ? phi0 * std::cos(si) + omega * std::sin(si) : phi0 + omega * si - si * si / 2;
      EXPECT_NEAR(both.h[i], h, 1e-10) << harmonic << " s = " << si;
      EXPECT_NEAR(both.q(static_cast<Eigen::Index>(i), 3), phi, 1e-10) << harmonic << " s = " << si;
      EXPECT_LT((both.q.row(static_cast<Eigen::Index>(i)) - both.q_jacobi.row(static_cast<Eigen::Index>(i)))
                    .cwiseAbs()
                    .maxCoeff(),
                1e-9)
          << harmonic << " s = " << si;
    }
    // The thesis' case: V = φ²/2, e = 2, S = 2.
    if (harmonic) EXPECT_NEAR(both.h[2], 2.232115921, 1e-9);
  }
}

TEST(MaupertuisJacobi, RefusesBadInputByName) {
  const auto disk = steered_disk("phi^2/2");
  EXPECT_NE(message([&] { modelfile::maupertuis_jacobi(disk, {}, InitialData{}, 0.05, {1.0}); })
                .find("must exceed the potential V(q0) = 0.08"),
            std::string::npos);
  EXPECT_NE(message([&] { modelfile::maupertuis_jacobi(disk, {}, InitialData{}, 2.0, {1.0, 0.5}); }).find("s[1] = 0.5"),
            std::string::npos);
  // A term linear in the velocity (a magnetic one) is not of the form ½ vᵀGv − V.
  const auto magnetic = modelfile::load_text("name = \"magnetic\"\ncoordinates = [\"x\", \"y\"]\n"
                                             "lagrangian = \"(x_t^2 + y_t^2)/2 + x*y_t\"\n"
                                             "[initial]\nq = [0, 0]\nv = [1, 0]\n",
                                             "magnetic");
  EXPECT_NE(message([&] { modelfile::maupertuis_jacobi(magnetic, {}, InitialData{}, 2.0, {1.0}); })
                .find("is not of that form"),
            std::string::npos);
  EXPECT_NE(message([&] {
              modelfile::maupertuis_jacobi(modelfile::load(model_path("dragged-knife-edge.toml")), {}, InitialData{},
                                           2.0, {1.0});
            }).find("has a force"),
            std::string::npos);
}
