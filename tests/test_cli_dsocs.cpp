// The command line for second-order constrained systems: the two catalogue systems, `dsocs` with
// its --dsocs-start and --root-rule options, `reference` for SOCS systems, the CSV columns (`constraint`
// is the kinematic residual, the pendulum adds `lyapunov`) and bad input (exit status 2).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "cli_harness.hpp"

using namespace cli_test;

namespace fs = std::filesystem;

TEST(CliDsocs, ListsAndDescribesTheSecondOrderSystems) {
  const auto l = lines(dalembert("list --names").out);
  for (const char* name : {"curvature-particle", "inertia-wheel-pendulum", "dsocs"})
    EXPECT_NE(std::find(l.begin(), l.end(), name), l.end()) << name;
  EXPECT_EQ(std::count(l.begin(), l.end(), "reference"), 1);  // shared by two families, listed once

  const auto c = nlohmann::json::parse(dalembert("describe curvature-particle --json").out);
  EXPECT_EQ(c["coordinates"], nlohmann::json({"x", "y"}));
  EXPECT_DOUBLE_EQ(c["parameters"]["k"].get<double>(), 1.0);
  EXPECT_EQ(c["initial"]["q"], nlohmann::json({0.0, 0.0}));
  EXPECT_EQ(c["initial"]["v"], nlohmann::json({1.0, 1.0}));
  EXPECT_EQ(c["constraints"], 1);
  EXPECT_EQ(c["closed_form"], true);
  const auto p = nlohmann::json::parse(dalembert("describe inertia-wheel-pendulum --json").out);
  EXPECT_EQ(p["coordinates"], nlohmann::json({"theta", "psi"}));
  EXPECT_DOUBLE_EQ(p["parameters"]["I"].get<double>(), 312.5);
  EXPECT_DOUBLE_EQ(p["parameters"]["n"].get<double>(), -154.0);
  EXPECT_EQ(p["initial"]["q"], nlohmann::json({0.5, 0.0}));
  EXPECT_EQ(p["initial"]["v"], nlohmann::json({0.0, 0.5}));
}

TEST(CliDsocs, CurvatureParticleRunsThePaperSteps) {
  // the paper's start, as --dsocs-start euler and as the two-point start --q1 (x1 = x0 + h, y1 = y0 + h)
  const auto euler = dalembert("run curvature-particle --method dsocs --h 0.1 --steps 5 --dsocs-start euler");
  const auto two_point = dalembert("run curvature-particle --method dsocs --h 0.1 --steps 5 --q0 0,0 --q1 0.1,0.1");
  ASSERT_EQ(euler.status, 0) << euler.err;
  ASSERT_EQ(two_point.status, 0) << two_point.err;
  const auto l = lines(euler.out), m = lines(two_point.out);
  ASSERT_EQ(l.size(), 7u);
  EXPECT_EQ(l[0], "t,x,y,x_t,y_t,energy,constraint,discrete_constraint,newton_iterations");
  for (int k = 2; k <= 6; ++k) {  // rows k = 1..5: the same positions
    EXPECT_EQ(numbers(l[k])[1], numbers(m[k])[1]);
    EXPECT_EQ(numbers(l[k])[2], numbers(m[k])[2]);
  }
  const auto q5 = numbers(l[6]);  // independent reference values
  EXPECT_NEAR(q5[1], 0.334580886942684, 1e-14);
  EXPECT_NEAR(q5[2], 0.607063514750447, 1e-14);
  EXPECT_LT(q5[7], 1e-14);  // D_K holds to round-off
  // the second-order start (default) gives a different q1
  const auto taylor = lines(dalembert("run curvature-particle --method dsocs --h 0.1 --steps 1").out);
  EXPECT_NEAR(numbers(taylor[2])[1], 0.1 - 0.005 * std::sqrt(2.0), 1e-15);  // x1 = h ẋ0 + ½h²ẍ0, ẍ0 = −k|v|ẏ
}

TEST(CliDsocs, PendulumRunReachesTheReferenceStateWithTheLyapunovColumn) {
  const auto r = dalembert("run inertia-wheel-pendulum --method dsocs --h 0.1 --t-end 2000 --dsocs-start euler --every 5000");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto l = lines(r.out);
  ASSERT_EQ(l.size(), 6u);  // header, k = 0, 5000, 10000, 15000, 20000
  EXPECT_EQ(l[0], "t,theta,psi,theta_t,psi_t,energy,constraint,discrete_constraint,newton_iterations,lyapunov");
  const auto last = numbers(l[5]);
  EXPECT_EQ(last[0], 2000.0);
  EXPECT_NEAR(last[1], -3.759721559554e-4, 1e-8);  // independent reference anchors
  EXPECT_NEAR(last[2], 84.65335311304, 1e-7);
  EXPECT_NEAR(last[9], 197.43, 0.05);  // V at the method's velocity; levels off near 200
  EXPECT_NEAR(numbers(l[1])[9], 14770.16245, 1e-5);
}

TEST(CliDsocs, ClosestRootRuleLeavesThePhysicalBranch) {
  const auto physical = lines(dalembert("run inertia-wheel-pendulum --method dsocs --h 0.1 --t-end 2000 --dsocs-start euler --every 20000").out);
  const auto closest = lines(
      dalembert("run inertia-wheel-pendulum --method dsocs --h 0.1 --t-end 2000 --dsocs-start euler --root-rule closest --every 20000").out);
  ASSERT_EQ(closest.size(), 3u);
  EXPECT_GT(std::abs(numbers(closest[2])[1] - numbers(physical[2])[1]), 0.01);  // θ(2000): -0.0385 vs -0.0004
}

TEST(CliDsocs, ReferenceSolvesTheSecondOrderSystem) {
  const auto r = dalembert("run inertia-wheel-pendulum --method reference --h 50 --t-end 500");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto l = lines(r.out);
  EXPECT_EQ(l[0], "t,theta,psi,theta_t,psi_t,energy,constraint,newton_iterations,lyapunov");
  const auto last = numbers(l.back());
  EXPECT_NEAR(last[1], -0.03895, 5e-6);  // independent reference solution
  EXPECT_NEAR(last[8], 262.94, 5e-3);    // lyapunov
  EXPECT_LT(last[6], 1e-6);  // constraint: the kinematic residual |dV/dt + F| at the continuous acceleration
  const auto c = lines(dalembert("run curvature-particle --method reference --h 0.5 --steps 4 --param k=2").out);
  const auto end = numbers(c.back());
  // circle of radius ½ through the origin: centre (−1/(2√2), 1/(2√2)), angular rate k|v| = 2√2
  const double angle = 2 * std::sqrt(2.0) * 2.0, r0 = 0.5, cx = -r0 / std::sqrt(2.0), cy = r0 / std::sqrt(2.0);
  EXPECT_NEAR(end[1], cx + std::cos(angle - M_PI / 4) * r0, 1e-10);
  EXPECT_NEAR(end[2], cy + std::sin(angle - M_PI / 4) * r0, 1e-10);
  EXPECT_LT(end[6], 1e-12);  // constraint
}

TEST(CliDsocs, BadInputExitsWithStatusTwoAndNamesTheValue) {
  expect_bad_input("run curvature-particle --method dsocs --h 0.1 --steps 5 --root-rule nearest", "'nearest'");
  expect_bad_input("run curvature-particle --method dsocs --h 0.1 --steps 5 --dsocs-start rk", "'rk'");
  expect_bad_input("run curvature-particle --method dsocs --h 0.1 --steps 5 --root-rule closest", "single branch");
  expect_bad_input("run curvature-particle --method dla --h 0.1 --steps 5", "does not apply to system curvature-particle");
  expect_bad_input("run particle --method dsocs --h 0.1 --steps 5", "does not apply to system particle");
  expect_bad_input("run curvature-particle --method dsocs --h 0.1 --steps 5 --v0 0,0", "v0 = (0, 0)");
  expect_bad_input("run curvature-particle --method dsocs --h 0.1 --steps 5 --q0 0,0 --q1 0,0", "(q1 - q0)/h");
  expect_bad_input("run inertia-wheel-pendulum --method dsocs --h 0.1 --steps 5 --param n=-100", "n b > c");
  expect_bad_input("run inertia-wheel-pendulum --method dsocs --h 0.1 --steps 5 --q0 1,2,3", "--q0 has 3 value(s)");
}
