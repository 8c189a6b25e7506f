// The Newton solver: quadratic convergence, clear failures.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cmath>
#include <random>
#include <utility>

#include <Eigen/LU>

#include "dalembert/core/sizes.hpp"
#include "dalembert/core/autodiff.hpp"
#include "dalembert/solve/gauss_newton.hpp"
#include "dalembert/solve/newton.hpp"
#include "dalembert/solve/small_ldlt.hpp"
#include "dalembert/solve/step_driver.hpp"

using namespace dalembert;

TEST(Newton, ConvergesQuadraticallyOnASmoothSystem) {
  // x² + y² = 4, x y = 1.
  const auto F = [](const Vecd<2>& x, Vecd<2>& r, Matd<2, 2>& J) {
    r << x[0] * x[0] + x[1] * x[1] - 4.0, x[0] * x[1] - 1.0;
    J << 2 * x[0], 2 * x[1], x[1], x[0];
  };
  Vecd<2> x(2.0, 0.3);
  const auto report = newton_solve<2>(F, x, 4.0);
  ASSERT_TRUE(report.converged);
  EXPECT_LE(report.iterations, 6);
  EXPECT_NEAR(x[0] * x[0] + x[1] * x[1], 4.0, 1e-13);
  EXPECT_NEAR(x[0] * x[1], 1.0, 1e-13);
}

TEST(Newton, DampingRescuesAnOvershootingStart) {
  // arctan(x) = 0 diverges from |x0| > 1.39 with full steps; backtracking converges.
  const auto F = [](const Vecd<1>& x, Vecd<1>& r, Matd<1, 1>& J) {
    r[0] = std::atan(x[0]);
    J(0, 0) = 1.0 / (1.0 + x[0] * x[0]);
  };
  Vecd<1> x(3.0);
  const auto damped = newton_solve<1>(F, x, 1.0);
  EXPECT_TRUE(damped.converged);
  EXPECT_NEAR(x[0], 0.0, 1e-13);

  Vecd<1> y(3.0);
  NewtonOptions plain;
  plain.damped = false;
  plain.max_iterations = 8;
  EXPECT_FALSE(newton_solve<1>(F, y, 1.0, plain).converged);
}

TEST(Newton, ReportsASingularJacobian) {
  const auto F = [](const Vecd<2>& x, Vecd<2>& r, Matd<2, 2>& J) {
    r << x[0] + x[1] - 1.0, 2 * x[0] + 2 * x[1] - 3.0;
    J << 1, 1, 2, 2;
  };
  Vecd<2> x(0.0, 0.0);
  const auto report = newton_solve<2>(F, x, 1.0);
  EXPECT_FALSE(report.converged);
  EXPECT_EQ(report.reason, "singular Jacobian");
}

TEST(Newton, ReportsNonConvergenceWithItsResidual) {
  const auto F = [](const Vecd<1>& x, Vecd<1>& r, Matd<1, 1>& J) {
    r[0] = x[0] * x[0] + 1.0;  // no real root
    J(0, 0) = 2 * x[0];
  };
  Vecd<1> x(0.5);
  NewtonOptions o;
  o.max_iterations = 5;
  const auto report = newton_solve<1>(F, x, 1.0, o);
  EXPECT_FALSE(report.converged);
  EXPECT_GE(report.residual_norm, 1.0);
  const SolverError error(7, 0.7, report);
  EXPECT_EQ(error.step(), 7);
  EXPECT_NE(std::string(error.what()).find("step 7"), std::string::npos);
  EXPECT_NE(std::string(error.what()).find("t = 0.7"), std::string::npos);
  EXPECT_NE(std::string(error.what()).find("residual norm"), std::string::npos);
}

// A step's time in a message: six decimals, as std::to_string prints it, up to 1e9; beyond, in
// scientific notation (a step of 1e300 printed all 301 digits of t).
TEST(Newton, AFailureAtAHugeTimeNamesItInScientificNotation) {
  const NewtonReport report{false, 3, 2.0, "did not converge"};
  EXPECT_EQ(std::string(SolverError(1, 1e300, report).what()),
            "Newton solver failed at step 1 (t = 1.000000e+300): did not converge, residual norm 2.000e+00 after 3 "
            "iterations");
  EXPECT_EQ(std::string(SolverError(3, 0.3, "the shooting did not converge").what()),
            "step 3 (t = 0.300000) failed: the shooting did not converge");
  EXPECT_EQ(time_text(-2.5e9), "-2.500000e+09");
  EXPECT_EQ(time_text(999999999.5), std::to_string(999999999.5));
}

// A residual known only to an inner computation's accuracy (newton_solve's NoisyResidual, the
// shooting's): here F(x) = x, but 1e-12 wherever |x| < 1e-12, a floor no correction gets below.
// From x = 1 Newton reaches the floor in one step; then the correction to -1e-12 and every halving
// of it leave |F| at 1e-12. Newton stops there: converged if 1e-12 is within 10 times the threshold
// (tolerance 1e-13), stalled if not (1e-14). Without the option Newton takes the full step near the
// threshold and cycles between 0 and -1e-12 until its iterations run out.
TEST(Newton, ANoisyResidualStopsWhereNoHalvingReducesIt) {
  const auto F = [](const Vecd<1>& x, Vecd<1>& r) { r[0] = std::abs(x[0]) < 1e-12 ? 1e-12 : x[0]; };
  const auto J = [](const Vecd<1>&, Matd<1, 1>& jacobian) { jacobian(0, 0) = 1.0; };
  const auto solve = [&](double tolerance, bool noisy) {
    Vecd<1> x(1.0);
    const NewtonOptions o{.tolerance = tolerance, .correction_tolerance = 1e-15};
    const NewtonReport r =
        noisy ? newton_solve<1, 1, Matd<1, 1>, true>(F, J, x, 1.0, o) : newton_solve<1>(F, J, x, 1.0, o);
    return std::pair{r, x[0]};
  };
  const auto [within, x_within] = solve(1e-13, true);
  EXPECT_TRUE(within.converged);
  EXPECT_EQ(x_within, 0.0);
  EXPECT_EQ(within.residual_norm, 1e-12);
  const auto [above, x_above] = solve(1e-14, true);
  EXPECT_FALSE(above.converged);
  EXPECT_EQ(above.reason, "stalled: no correction within 12 halvings reduces the residual");
  EXPECT_EQ(x_above, 0.0);
  const auto [plain, x_plain] = solve(1e-13, false);
  EXPECT_FALSE(plain.converged);
  EXPECT_EQ(plain.reason, "no convergence within 30 iterations");
}

TEST(Newton, StopsAtTheRoundOffFloorFarFromTheOrigin) {
  // A DLA-like residual (x − x_prev)/h − v + c (x − x_prev) far from the origin: with |x| ≈ 2.3e4
  // and h = 0.1 no x makes it smaller than about ε |x| / h ≈ 5e-11, far above the threshold
  // 1e-13. Newton must stop at that floor with x correct to round-off, not fail.
  const double h = 0.1;
  const Vecd<2> previous(23456.789, -17345.123), velocity(0.7, -0.2);
  const auto F = [&](const Vecd<2>& x, Vecd<2>& r, Matd<2, 2>& J) {
    r = (x - previous) / h - velocity;
    r[1] += 0.3 * (x[0] - previous[0]);
    J << 1 / h, 0, 0.3, 1 / h;
  };
  const Vecd<2> exact(previous[0] + h * velocity[0], previous[1] + h * (velocity[1] - 0.3 * h * velocity[0]));
  Vecd<2> x = previous;
  const auto report = newton_solve<2>(F, x, 1.0);
  ASSERT_TRUE(report.converged) << report.reason;
  EXPECT_GT(report.residual_norm, 1e-13);  // the absolute test alone could not have stopped
  EXPECT_LE(report.iterations, 3);
  const double ulp = std::nextafter(exact[0], 1e9) - exact[0];
  EXPECT_LE((x - exact).lpNorm<Eigen::Infinity>(), 4 * ulp) << x.transpose() << " vs " << exact.transpose();

  // The floor is not a loophole: an equation without a root still fails (x² + 1 = 0 above).
  const auto no_root = [](const Vecd<1>& y, Vecd<1>& r, Matd<1, 1>& J) {
    r[0] = y[0] * y[0] + 1.0;
    J(0, 0) = 2 * y[0];
  };
  Vecd<1> y(1e8);
  EXPECT_FALSE(newton_solve<1>(no_root, y, 1.0).converged);
}

TEST(Newton, SeparateJacobianIsEvaluatedOnlyWhereNewtonStepsAndAtTheLatestResidual) {
  // The same system as above, in the residual/jacobian form: the same iterates as the combined
  // form, one Jacobian per Newton step (none at the converged iterate), each at the x of the
  // residual evaluated just before it.
  int residuals = 0, jacobians = 0;
  Vecd<2> latest_residual_at = Vecd<2>::Constant(NAN);
  double jacobian_off_latest = 0.0;
  const auto residual = [&](const Vecd<2>& x, Vecd<2>& r) {
    ++residuals;
    latest_residual_at = x;
    r << x[0] * x[0] + x[1] * x[1] - 4.0, x[0] * x[1] - 1.0;
  };
  const auto jacobian = [&](const Vecd<2>& x, Matd<2, 2>& J) {
    ++jacobians;
    jacobian_off_latest = std::max(jacobian_off_latest, (x - latest_residual_at).lpNorm<Eigen::Infinity>());
    J << 2 * x[0], 2 * x[1], x[1], x[0];
  };
  Vecd<2> x(2.0, 0.3);
  const auto report = newton_solve<2>(residual, jacobian, x, 4.0);
  ASSERT_TRUE(report.converged);
  EXPECT_EQ(jacobians, report.iterations);
  EXPECT_EQ(residuals, report.iterations + 1);  // no backtracking from this start
  EXPECT_EQ(jacobian_off_latest, 0.0);

  const auto combined = [](const Vecd<2>& y, Vecd<2>& r, Matd<2, 2>& J) {
    r << y[0] * y[0] + y[1] * y[1] - 4.0, y[0] * y[1] - 1.0;
    J << 2 * y[0], 2 * y[1], y[1], y[0];
  };
  Vecd<2> z(2.0, 0.3);
  const auto same = newton_solve<2>(combined, z, 4.0);
  EXPECT_EQ(same.iterations, report.iterations);
  EXPECT_EQ((x - z).lpNorm<Eigen::Infinity>(), 0.0);
}

namespace {
// Random N×N matrices with entries in [-1, 1]; every fourth one has a zero leading column entry,
// so that the first pivot needs a row swap.
template <int N>
double worst_small_lu_difference_from_eigen() {
  std::mt19937 rng(31);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  double worst = 0.0;
  for (int trial = 0; trial < 200; ++trial) {
    Matd<N, N> a;
    Vecd<N> b;
    for (int i = 0; i < N; ++i) {
      b[i] = u(rng);
      for (int j = 0; j < N; ++j) a(i, j) = u(rng);
    }
    if (trial % 4 == 0) a(0, 0) = 0.0;
    const Eigen::PartialPivLU<Matd<N, N>> eigen(a);
    const SmallLU<N> small(a);
    const Vecd<N> x = small.solve(b);
    // the same pivots, and a solution whose residual is at round-off for the matrix's condition
    worst = std::max({worst, (small.matrixLU() - eigen.matrixLU()).template lpNorm<Eigen::Infinity>(),
                      (a * x - b).template lpNorm<Eigen::Infinity>() / (1.0 + b.template lpNorm<Eigen::Infinity>())});
  }
  return worst;
}
}  // namespace

// A kept factorisation whose corrections shrink by 0.3 each (K = I / 0.7 for F(y) = y − b): too slow
// below sizes::patient_chord_unknowns unknowns, where chord_solve takes a fresh Jacobian, and slow
// enough from there on, where it goes on with the kept one (docs/decisions.md, SPARK's Newton).
TEST(ChordSolve, GoesOnWithASlowlyContractingFactorisationOnlyOnLargeSystems) {
  for (const int n : {sizes::patient_chord_unknowns - 1, sizes::patient_chord_unknowns}) {
    SCOPED_TRACE(n);
    struct {
      long k = 0;
    } state;
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(n, 1.0, 2.0);
    const auto residual = [&](const Eigen::VectorXd& y) -> Eigen::VectorXd { return y - b; };
    int jacobians = 0;
    const auto jacobian = [&](const Eigen::VectorXd&, Eigen::MatrixXd& J) {
      J = Eigen::MatrixXd::Identity(n, n);
      ++jacobians;
    };
    KeptJacobian<Eigen::MatrixXd> kept;
    kept.factorisation.compute(Eigen::MatrixXd(Eigen::MatrixXd::Identity(n, n) / 0.7));
    kept.uses = 1;
    Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
    const int corrections = chord_solve(state, 0.1, residual, jacobian, x, 1.0, NewtonOptions{}, kept);
    EXPECT_LE((x - b).lpNorm<Eigen::Infinity>(), 1e-13);
    if (n < sizes::patient_chord_unknowns) {
      EXPECT_EQ(jacobians, 1);  // after two corrections on the kept one, the second 0.3 of the first
      EXPECT_EQ(corrections, 3);
      EXPECT_EQ(kept.uses, 0);
    } else {
      EXPECT_EQ(jacobians, 0);
      EXPECT_GE(corrections, 26);  // 2 · 0.3^k ≤ 1e-13
      EXPECT_EQ(kept.uses, 2);
    }
  }
}

// Newton, chord iterations and Gauss–Newton are one loop (newton_iterate): each reads the run's stop
// flag at its first iteration and ends with Interrupted, carrying the signal.
TEST(NewtonLoop, EveryKindOfIterationEndsWhenTheRunIsAskedToStop) {
  const std::atomic<int> stop{SIGTERM};
  const StepLimits limits(&stop, max_step_substeps);
  const auto signal_of = [](auto&& solve) {
    try {
      solve();
    } catch (const Interrupted& e) {
      return e.signal();
    }
    return 0;
  };
  const auto residual = [](const Eigen::VectorXd& y) -> Eigen::VectorXd { return y.array().square() - 2.0; };
  const auto jacobian = [](const Eigen::VectorXd& y, Eigen::MatrixXd& J) { J = (2.0 * y).asDiagonal(); };
  EXPECT_EQ(signal_of([&] {
              Eigen::VectorXd x = Eigen::VectorXd::Ones(2);
              newton_solve<Eigen::Dynamic>([&](const Eigen::VectorXd& y, Eigen::VectorXd& F) { F = residual(y); },
                                           jacobian, x, 1.0);
            }),
            SIGTERM);
  EXPECT_EQ(signal_of([&] {
              struct {
                long k = 0;
              } state;
              KeptJacobian<Eigen::MatrixXd> kept;
              Eigen::VectorXd x = Eigen::VectorXd::Ones(2);
              chord_solve(state, 0.1, residual, jacobian, x, 1.0, NewtonOptions{}, kept);
            }),
            SIGTERM);
  EXPECT_EQ(signal_of([&] {
              Eigen::VectorXd x = Eigen::VectorXd::Ones(2), R(2);
              Eigen::MatrixXd D(2, 2);
              const auto evaluate = [&](const Eigen::VectorXd& y, Eigen::VectorXd& F, Eigen::MatrixXd& J) {
                F = residual(y);
                jacobian(y, J);
              };
              gauss_newton(x, R, D, evaluate, [](const Eigen::VectorXd&, double norm) { return norm < 1e-12; }, 10);
            }),
            SIGTERM);
}

TEST(SmallLU, FactorsAsEigenDoesAndSolvesToRoundOff) {
  const double worst = std::max({worst_small_lu_difference_from_eigen<1>(), worst_small_lu_difference_from_eigen<2>(),
                                 worst_small_lu_difference_from_eigen<4>(), worst_small_lu_difference_from_eigen<8>()});
  EXPECT_LT(worst, 1e-12);
}

TEST(SmallLU, SwapsRowsForAZeroPivotAndShowsASingularMatrix) {
  Matd<3, 3> a;
  a << 0, 1, 2,  //
      3, 4, 5,   //
      6, 7, 9;
  const Vecd<3> x(1.0, -2.0, 0.5);
  EXPECT_LT((SmallLU<3>(a).solve(a * x) - x).lpNorm<Eigen::Infinity>(), 1e-14);

  a.row(2) = a.row(0) + a.row(1);  // rank 2: one pivot is zero to round-off
  const SmallLU<3> singular(a);
  const Vecd<3> pivots = singular.matrixLU().diagonal().cwiseAbs();
  EXPECT_LT(pivots.minCoeff(), 1e-15 * pivots.maxCoeff());
}

// LDLᵀ of a metric (model/dynamics.hpp's metric_factorisation): against a solve with Eigen's LU on
// random well-conditioned symmetric positive definite matrices, for a vector, a matrix of two
// columns and a dual right-hand side, whose derivative a constant matrix solves as its value.
template <int N>
double worst_small_ldlt_error() {
  std::mt19937 random(17 + N);
  std::uniform_real_distribution<double> entry(-1.0, 1.0);
  double worst = 0.0;
  for (int trial = 0; trial < 50; ++trial) {
    const Matd<N, N> a = Matd<N, N>::NullaryExpr([&] { return entry(random); });
    const Matd<N, N> g = a * a.transpose() + Matd<N, N>::Identity();
    const Eigen::Matrix<double, N, 2> b = Eigen::Matrix<double, N, 2>::NullaryExpr([&] { return entry(random); });
    const Eigen::Matrix<double, N, 2> expected = g.partialPivLu().solve(b);
    const SmallLdlt<N> ldlt(g);
    worst = std::max(worst, (ldlt.solve(b) - expected).template lpNorm<Eigen::Infinity>());
    worst = std::max(worst, (ldlt.solve(b.col(0).eval()) - expected.col(0)).template lpNorm<Eigen::Infinity>());
    using D = ad::Dual<double, 1>;
    Vec<D, N> bd;
    for (int i = 0; i < N; ++i) bd[i] = ad::along(b(i, 0), b(i, 1));
    const Vec<D, N> xd = ldlt.solve(bd);
    for (int i = 0; i < N; ++i) {
      worst = std::max(worst, std::abs(xd[i].value() - expected(i, 0)));
      worst = std::max(worst, std::abs(xd[i].derivatives()[0] - expected(i, 1)));
    }
  }
  return worst;
}

TEST(SmallLdlt, SolvesASymmetricPositiveDefiniteMatrixToRoundOff) {
  const double worst = std::max({worst_small_ldlt_error<1>(), worst_small_ldlt_error<2>(),
                                 worst_small_ldlt_error<3>(), worst_small_ldlt_error<8>()});
  EXPECT_LT(worst, 1e-12);
}

TEST(SmallLdlt, SolvesAMetricOfTheSleighsShapeExactly) {
  // G = [[m, 0, −b], [0, m, c], [−b, c, J]] with m = 2, b = c = 1, J = 1.5: D = (2, 2, 0.5) and L's
  // last row (−0.5, 0.5), every entry exact in binary, so the solve is exact.
  Matd<3, 3> g;
  g << 2.0, 0.0, -1.0,  //
      0.0, 2.0, 1.0,    //
      -1.0, 1.0, 1.5;
  const Vecd<3> x(1.0, -2.0, 0.5);
  const Vecd<3> b(1.5, -3.5, -2.25);  // G x
  EXPECT_EQ(SmallLdlt<3>(g).solve(b), x);
  g(2, 2) = 1.0;  // d₃ = 1 − 0.5 − 0.5 = 0: a singular metric gives non-finite entries
  EXPECT_FALSE(SmallLdlt<3>(g).solve(b).allFinite());
}

// A step's first guess from the increments of the last steps (SPARK's stages, the discrete
// gradient's unknowns on its chord path): exact on a quadratic sequence once three steps are known,
// a line through two and a constant from one before; none for another number of unknowns.
TEST(StepIncrements, ExtrapolateAQuadraticExactlyFromThreeSteps) {
  const auto at = [](double k) { return Eigen::Vector2d(1.0 + 2.0 * k - 0.5 * k * k, -3.0 + k * k).eval(); };
  StepIncrements<Eigen::VectorXd> increments;
  Eigen::VectorXd x(2);
  EXPECT_FALSE(increments.extrapolate(x));
  increments.record(at(0));
  ASSERT_TRUE(increments.extrapolate(x));
  EXPECT_EQ(x, at(0));
  increments.record(at(1));
  ASSERT_TRUE(increments.extrapolate(x));
  EXPECT_EQ(x, (2.0 * at(1) - at(0)).eval());
  for (int k = 2; k <= 5; ++k) {
    increments.record(at(k));
    ASSERT_TRUE(increments.extrapolate(x));
    EXPECT_LT((x - at(k + 1)).lpNorm<Eigen::Infinity>(), 1e-13) << k;
  }
  EXPECT_EQ(increments.last(), at(5));
  Eigen::VectorXd other(3);
  EXPECT_FALSE(increments.extrapolate(other));
}
