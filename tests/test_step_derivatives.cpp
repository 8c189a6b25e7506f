// The derivative of a step with respect to the state it starts from (the implicit-function theorem
// on the converged equations, solve/step_driver.hpp): DLA's step_derivative against central finite
// differences of the step on systems with constraints, with an external force of (q, v, t), and
// without constraints, where DLA's equations are DEL's and the step is a symplectic map, which its
// derivative shows to round-off.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "dalembert/method/dla.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "dalembert/models/particle.hpp"
#include "dalembert/models/satellite.hpp"
#include "dalembert/models/unconstrained.hpp"
#include "dalembert/models/vertical_disk.hpp"
#include "at_run_time.hpp"
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

/// ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k) of `method`'s step from s by central differences, each entry of
/// (q_k, p_k) moved by 1e-6 of its size (at least 1e-6), the difference taken of the doubles reached.
template <class Method>
Eigen::MatrixXd step_by_central_differences(const Method& method, const typename Method::State& s) {
  const int n = static_cast<int>(s.q.size());
  Eigen::MatrixXd D(2 * n, 2 * n);
  for (int j = 0; j < 2 * n; ++j) {
    auto up = s, down = s;
    double& x_up = j < n ? up.q[j] : up.p[j - n];
    double& x_down = j < n ? down.q[j] : down.p[j - n];
    const double e = 1e-6 * std::max(1.0, std::abs(x_up));
    x_up += e;
    x_down -= e;
    const double width = x_up - x_down;
    method.step(up);
    method.step(down);
    D.col(j) << (up.q - down.q) / width, (up.p - down.p) / width;
  }
  return D;
}

/// The largest entry of DLA's step derivative off the central differences, relative to the largest
/// entry, after `steps` steps of h from the system's default start (at t > 0, where a force of t
/// differs from its start).
template <class S>
double step_derivative_error(const std::string& name, const S& system, double h, int steps = 3) {
  const auto dla = make_dla(system, h);
  const auto x0 = system.default_initial();
  auto s = dla.initial_state(x0.q, x0.v);
  for (int k = 0; k < steps; ++k) dla.step(s);
  const Eigen::MatrixXd D = dla.step_derivative(s);
  const Eigen::MatrixXd reference = step_by_central_differences(dla, s);
  const double error = (D - reference).cwiseAbs().maxCoeff() / D.cwiseAbs().maxCoeff();
  test::report("step_derivative_" + name, error);
  return error;
}

/// |Dᵀ Ω D − Ω|_max for the step derivative D of DLA on a system without constraints, Ω the
/// canonical form on (q, p): zero for a symplectic step.
template <class S>
double symplecticity_defect(const S& system, double h) {
  const auto dla = make_dla(system, h);
  const auto x0 = system.default_initial();
  auto s = dla.initial_state(x0.q, x0.v);
  for (int k = 0; k < 5; ++k) dla.step(s);
  const Eigen::MatrixXd D = dla.step_derivative(s);
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
  EXPECT_LT(step_derivative_error("particle", models::NonholonomicParticle{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("knife_edge", models::KnifeEdge{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("sleigh", models::ChaplyginSleigh{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("vertical_disk", models::VerticalDisk{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("dragged_pushed_sleigh", DraggedPushedSleigh{}, 0.1), 1e-8);
  EXPECT_LT(step_derivative_error("satellite", models::Satellite{}, 0.1), 1e-8);
}

// Without constraints DLA's equations are DEL's, whose step is symplectic: Dᵀ Ω D = Ω to round-off.
TEST(StepDerivative, WithoutConstraintsTheStepIsSymplectic) {
  const double pendulum = symplecticity_defect(models::Pendulum{}, 0.1);
  const double satellite = symplecticity_defect(models::Satellite{}, 0.1);
  test::report("step_derivative_symplecticity_pendulum", pendulum);
  test::report("step_derivative_symplecticity_satellite", satellite);
  EXPECT_LT(pendulum, 1e-13);
  EXPECT_LT(satellite, 1e-13);
}

// The same derivative at run-time sizes, within a bound (the storage of model files up to 8
// coordinates) and on the heap (beyond, with derivatives taken a chunk of directions at a time).
TEST(StepDerivative, TheSameAtRunTimeSizes) {
  const models::KnifeEdge knife_edge;
  const auto x0 = knife_edge.default_initial();
  const auto fixed = make_dla(knife_edge, 0.1);
  const Eigen::MatrixXd D = fixed.step_derivative(fixed.initial_state(x0.q, x0.v));
  const auto at_run_time = [&](const auto& system) {
    using S = std::decay_t<decltype(system)>;
    const auto dla = make_dla(system, 0.1);
    const Eigen::MatrixXd E = dla.step_derivative(dla.initial_state(VecN<S>(x0.q), VecN<S>(x0.v)));
    return (E - D).cwiseAbs().maxCoeff() / D.cwiseAbs().maxCoeff();
  };
  const double bounded = at_run_time(test::AtRunTime<models::KnifeEdge, 8, 8>(knife_edge));
  const double heap = at_run_time(test::AtRunTime<models::KnifeEdge, Eigen::Dynamic, Eigen::Dynamic>(knife_edge));
  test::report("step_derivative_bounded_against_fixed", bounded);
  test::report("step_derivative_heap_against_fixed", heap);
  EXPECT_LT(bounded, 1e-14);
  EXPECT_LT(heap, 1e-14);
}
