// First derivatives with the AD back end selected at compile time (Eigen AutoDiffScalar by default,
// ceres::Jet with -DDALEMBERT_AD_CERES): built twice, as bench_ad_eigen and bench_ad_ceres.
// Only first derivatives are compared: a nested ceres::Jet does not compile inside Eigen
// expressions (docs/decisions.md), so second derivatives have one back end.
#include <benchmark/benchmark.h>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/models/particle.hpp"

namespace {

using namespace dalembert;

// Gradient of the midpoint discrete Lagrangian with respect to (q0, q1) ∈ R^6.
void GradientOfDiscreteLagrangian(benchmark::State& state) {
  models::NonholonomicParticle sys;
  sys.potential_coefficient = 1.0;
  const double h = 0.1;
  Vecd<6> x;
  x << 1.0, 0.5, 0.0, 1.03, 0.57, 0.016;
  double value;
  Vecd<6> gradient;
  for (auto _ : state) {
    ad::value_and_gradient<6>(
        [&](const auto& y) {
          using D = typename std::decay_t<decltype(y)>::Scalar;
          const Vec<D, 3> q0 = y.template head<3>(), q1 = y.template tail<3>();
          const Vec<D, 3> qm = 0.5 * (q0 + q1);
          const Vec<D, 3> v = (q1 - q0) / h;
          return h * sys.lagrangian<D>(qm, v);
        },
        x, value, gradient);
    benchmark::DoNotOptimize(gradient.data());
    x[0] += 1e-12;
  }
}
BENCHMARK(GradientOfDiscreteLagrangian);

// Jacobian of the midpoint discrete constraint with respect to q1 (the DLA Newton block).
void JacobianOfDiscreteConstraint(benchmark::State& state) {
  const models::NonholonomicParticle sys;
  const double h = 0.1;
  const Vecd<3> q0(1.0, 0.5, 0.0);
  Vecd<3> q1(1.03, 0.57, 0.016);
  Vecd<1> w;
  Matd<1, 3> J;
  for (auto _ : state) {
    ad::value_and_jacobian<3, 1>(
        [&](const auto& y) {
          using D = typename std::decay_t<decltype(y)>::Scalar;
          const Vec<D, 3> a = q0.template cast<D>();
          const Vec<D, 3> qm = 0.5 * (a + y);
          return Vec<D, 1>(sys.constraint_matrix<D>(qm) * ((y - a) / h));
        },
        q1, w, J);
    benchmark::DoNotOptimize(J.data());
    q1[0] += 1e-12;
  }
}
BENCHMARK(JacobianOfDiscreteConstraint);

}  // namespace

int main(int argc, char** argv) {
  benchmark::AddCustomContext("ad_backend", DALEMBERT_BENCH_BACKEND);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  return 0;
}
