// The stepper of model files with inputs (src/modelfile/stepper.hpp, docs/control.md): its Jacobians
// (A, B) against central differences of its own steps, for every method it takes; a held input is a
// run with the input as a parameter; bad inputs are refused and leave the state as it was; and a
// model file's inputs must enter its force linearly with coefficients of the parameters alone.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "catalogue/catalogue.hpp"
#include "modelfile/model.hpp"
#include "modelfile/stepper.hpp"
#include "test_support.hpp"

using namespace dalembert;

namespace {

const std::string steered_sleigh = std::string(DALEMBERT_SOURCE_DIR) + "/models/steered-sleigh.toml";

RunOptions options(const std::string& method, double h, long steps = 1) {
  RunOptions o;
  o.method = method;
  o.h = h;
  o.steps = steps;
  return o;
}

/// A start away from every symmetry of the sleigh: turned, sliding backwards and turning. v0 is
/// projected onto the constraint, so that every direction of (q0, v0) is a direction of the start.
InitialData generic_start(const Eigen::Vector3d& dq = Eigen::Vector3d::Zero(),
                          const Eigen::Vector3d& dv = Eigen::Vector3d::Zero()) {
  const double theta = 0.3, speed = -0.8;
  InitialData init;
  init.q0 = Eigen::Vector3d(0.1, -0.2, theta) + dq;
  init.v0 = Eigen::Vector3d(speed * std::cos(theta), speed * std::sin(theta), 0.25) + dv;
  init.project_v0 = true;
  return init;
}

Eigen::VectorXd input(double tau) { return Eigen::VectorXd::Constant(1, tau); }

/// |B − B_fd| / |B| with B_fd from steps at u ± ε from the same start.
double input_jacobian_error(modelfile::Stepper& stepper, double u, double eps) {
  stepper.reset(generic_start());
  const Eigen::MatrixXd B = stepper.jacobians(input(u)).B;
  stepper.step(input(u + eps));
  const Eigen::VectorXd up = stepper.state();
  stepper.reset(generic_start());
  stepper.step(input(u - eps));
  const Eigen::VectorXd B_fd = (up - stepper.state()) / (2 * eps);
  return (B.col(0) - B_fd).lpNorm<Eigen::Infinity>() / B.lpNorm<Eigen::Infinity>();
}

/// A along directions of the start (δq0, δv0): A δx0 against δx1, both by central differences of
/// the start and of its first step. The largest relative difference over `directions` directions.
double state_jacobian_error(modelfile::Stepper& stepper, double u, double eps, int directions) {
  stepper.reset(generic_start());
  const Eigen::MatrixXd A = stepper.jacobians(input(u)).A;
  std::mt19937 random(2026);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  double worst = 0.0;
  for (int k = 0; k < directions; ++k) {
    const Eigen::Vector3d dq = Eigen::Vector3d::NullaryExpr([&] { return uniform(random); });
    const Eigen::Vector3d dv = Eigen::Vector3d::NullaryExpr([&] { return uniform(random); });
    const auto start_and_step = [&](double sign) {
      stepper.reset(generic_start(sign * eps * dq, sign * eps * dv));
      const Eigen::VectorXd x0 = stepper.state();
      stepper.step(input(u));
      return std::pair(x0, Eigen::VectorXd(stepper.state()));
    };
    const auto [x0_up, x1_up] = start_and_step(1.0);
    const auto [x0_down, x1_down] = start_and_step(-1.0);
    const Eigen::VectorXd dx0 = (x0_up - x0_down) / (2 * eps), dx1 = (x1_up - x1_down) / (2 * eps);
    worst = std::max(worst, (A * dx0 - dx1).lpNorm<Eigen::Infinity>() / dx1.lpNorm<Eigen::Infinity>());
  }
  return worst;
}

}  // namespace

// (A, B) of a step of h = 0.1 from a generic start at τ = 0.2, every method the stepper takes,
// against central differences (ε = 1e-5) of the stepper's own steps: to 1e-7 (the differences' own
// error, from Newton's tolerance over 2ε and ε², is about 1e-9).
TEST(Stepper, JacobiansAgreeWithCentralDifferences) {
  const auto model = modelfile::load(steered_sleigh);
  for (const auto& method : modelfile::Stepper::method_names()) {
    modelfile::Stepper stepper(model, {}, generic_start(), options(method, 0.1));
    const double b = input_jacobian_error(stepper, 0.2, 1e-5), a = state_jacobian_error(stepper, 0.2, 1e-5, 4);
    test::report("stepper_" + method + "_B_error", b);
    test::report("stepper_" + method + "_A_error", a);
    EXPECT_LT(b, 1e-7) << method;
    EXPECT_LT(a, 1e-7) << method;
  }
}

// B is nothing without the force of the input: B_u = ∂F/∂τ = (0, 0, 1), and B's rows of q_{k+1}
// are O(h²) while those of p_{k+1} are h B_u + O(h²) (the impulse of the torque).
TEST(Stepper, TheInputForceIsTheForcesDerivative) {
  modelfile::Stepper stepper(modelfile::load(steered_sleigh), {}, generic_start(), options("dla", 1e-3));
  EXPECT_EQ(stepper.input_names(), std::vector<std::string>{"tau"});
  EXPECT_EQ(stepper.state_names(), (std::vector<std::string>{"x", "y", "theta", "p_x", "p_y", "p_theta"}));
  ASSERT_EQ(stepper.input_force().rows(), 3);
  EXPECT_EQ(stepper.input_force().col(0), Eigen::Vector3d(0, 0, 1));
  const Eigen::MatrixXd B = stepper.jacobians(input(0.0)).B;
  EXPECT_LT(B.topRows(3).lpNorm<Eigen::Infinity>(), 1e-6);
  EXPECT_NEAR(B(5, 0), 1e-3, 1e-6);  // p_θ gains h τ
}

// An input held over n steps is the run with the input as a parameter (--param tau=0.3): the same
// method, the same steps (the run at the bounded size, the stepper at run-time size: to round-off).
// fim starts from p⁻_0 = G v0 here (--fim-start A): its start B takes the constraint force, which
// the run's τ moves and the stepper's start, at zero inputs, does not.
TEST(Stepper, AHeldInputIsTheRunWithTheInputAsAParameter) {
  const auto& entry = catalogue::find(steered_sleigh);
  for (const std::string method : {"dla", "mla", "gf", "gf-sym", "gf-cp", "fim", "spark", "rk4"}) {
    InitialData init;
    init.q0 = generic_start().q0;
    init.v0 = generic_start().v0;
    init.project_v0 = true;
    RunOptions o = options(method, 0.05, 40);
    o.fim_start = "A";
    const RunResult run = entry.run({{"tau", 0.3}}, init, o);
    o.steps = 1;
    modelfile::Stepper stepper(modelfile::load(steered_sleigh), {}, init, o);
    EXPECT_EQ(stepper.step(input(0.3), 40), 40);
    EXPECT_DOUBLE_EQ(stepper.t(), 2.0);
    EXPECT_EQ(stepper.steps(), 40);
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR(stepper.q()[i], run.trajectory.at(40, run.trajectory.column(i == 2 ? "theta" : i ? "y" : "x")), 1e-13)
          << method;
  }
}

// The stepper's steps flush subnormal numbers to zero, as a run does (Limits.ADecayingSpinEndsAtZero-
// NotInSubnormalNumbers): the sleigh's spin passes 2.2e-308 near t = 1180.
TEST(Stepper, ADecayingSpinEndsAtZeroNotInSubnormalNumbers) {
  const std::string sleigh = std::string(DALEMBERT_SOURCE_DIR) + "/models/chaplygin-sleigh.toml";
  InitialData init;
  init.q0 = Eigen::Vector3d::Zero();
  init.v0 = Eigen::Vector3d(1.0, 0.0, 1.0);
  modelfile::Stepper stepper(modelfile::load(sleigh), {}, init, options("rk4", 0.01));
  ASSERT_EQ(stepper.step(Eigen::VectorXd(0), 150000), 150000);
  EXPECT_NE(std::fpclassify(stepper.v()[2]), FP_SUBNORMAL) << stepper.v()[2];
  EXPECT_LT(std::abs(stepper.v()[2]), 1e-300);
}

// Bad values are refused, naming them, and leave the state as it was.
TEST(Stepper, RefusesBadValuesAndKeepsItsState) {
  const auto model = modelfile::load(steered_sleigh);
  modelfile::Stepper stepper(model, {}, generic_start(), options("dla", 0.1));
  stepper.step(input(0.1), 3);
  const Eigen::VectorXd before = stepper.state();
  const auto message = [&](auto&& call) {
    try {
      call();
    } catch (const BadInput& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([&] { stepper.step(Eigen::Vector2d(0.1, 0.2)); }),
            "u has 2 value(s) but the model file " + steered_sleigh + " has 1 input(s) (tau)");
  EXPECT_EQ(message([&] { stepper.step(input(std::nan(""))); }).substr(0, 14), "u[0] (tau) = n");
  EXPECT_EQ(message([&] { stepper.step(input(0.1), -1); }), "count = -1 is negative");
  EXPECT_EQ(stepper.state(), before);
  EXPECT_EQ(stepper.steps(), 3);
  EXPECT_NE(message([&] { modelfile::Stepper(model, {}, generic_start(), options("exact", 0.1)); })
                .find("method: exact has no stepper"),
            std::string::npos);
  EXPECT_NE(message([&] { modelfile::Stepper(model, {}, generic_start(), options("dla", -0.1)); }).find("-0.1"),
            std::string::npos);
}

// Inputs enter the force linearly with coefficients of the parameters alone, and nothing else
// uses them: B is then the step's derivative by a constant force (docs/control.md).
TEST(ModelFileInputs, EnterTheForceLinearlyWithCoefficientsOfTheParameters) {
  const auto refusal = [](const std::string& lines) {
    const std::string text = "name = \"pushed\"\ncoordinates = [\"x\", \"theta\"]\n"
                             "lagrangian = \"0.5*x_t^2 + 0.5*theta_t^2\"\n" + lines + "\n[parameters]\nk = 2.0\n";
    try {
      modelfile::load_text(text, "pushed");
    } catch (const BadInput& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal("inputs = [\"u\"]\nforce = [\"u*cos(theta)\", 0]")
                .find("input 'u' must enter linearly, with a coefficient of the parameters alone, but its "
                      "coefficient depends on theta"),
            std::string::npos);
  EXPECT_NE(refusal("inputs = [\"u\"]\nforce = [\"u^2\", 0]").find("coefficient depends on u"), std::string::npos);
  EXPECT_NE(refusal("inputs = [\"u\"]\nforce = [\"u*x_t\", 0]").find("coefficient depends on x_t"), std::string::npos);
  EXPECT_NE(refusal("inputs = [\"u\"]\nforce = [\"u*t\", 0]").find("coefficient depends on t"), std::string::npos);
  EXPECT_NE(refusal("inputs = [\"u\"]").find("inputs enter the force, but the model file has no 'force'"),
            std::string::npos);
  EXPECT_NE(refusal("inputs = [\"x\"]\nforce = [\"x\", 0]").find("input 'x' is defined twice"), std::string::npos);
  EXPECT_NE(refusal("inputs = [\"u\"]\nforce = [\"u\", 0]\nconstraints = [\"x_t - u*theta_t\"]")
                .find("unknown symbol 'u': inputs are allowed only in the force"),
            std::string::npos);
  EXPECT_EQ(refusal("inputs = [\"u\", \"w\"]\nforce = [\"k*u - x_t\", \"(k + 1)*w + sin(theta)\"]"), "accepted");
}
