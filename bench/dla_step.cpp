// One midpoint DLA step on the nonholonomic particle with potential c(x² + y²), c = 1, h = 0.1:
// the generic step (derivatives by automatic differentiation) against the hand-written one.
//   build/bench/bench_dla_step
#include <benchmark/benchmark.h>

#include "dalembert/method/dla.hpp"
#include "dalembert/models/particle.hpp"
#include "hand_written.hpp"

namespace {

using dalembert::models::NonholonomicParticle;

NonholonomicParticle particle() {
  NonholonomicParticle p;
  p.potential_coefficient = 1.0;
  return p;
}

void GenericAutodiffStep(benchmark::State& state) {
  const auto sys = particle();
  const auto dla = dalembert::make_dla(sys, 0.1);
  const auto x0 = sys.default_initial();
  auto s = dla.initial_state(x0.q, x0.v);
  long iterations = 0;
  for (auto _ : state) {
    dla.step(s);
    iterations += s.iterations;
    benchmark::DoNotOptimize(s.q.data());
  }
  state.counters["newton_iterations"] = benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kAvgIterations);
}
BENCHMARK(GenericAutodiffStep);

void HandWrittenStep(benchmark::State& state) {
  const auto sys = particle();
  const bench::HandWrittenParticleDla dla{0.1, 1.0};
  const auto x0 = sys.default_initial();
  bench::HandWrittenParticleDla::State s{x0.q, x0.v, x0.v};
  long iterations = 0;
  for (auto _ : state) {
    dla.step(s);
    iterations += s.iterations;
    benchmark::DoNotOptimize(s.q.data());
  }
  state.counters["newton_iterations"] = benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kAvgIterations);
}
BENCHMARK(HandWrittenStep);

// The parts of the generic step: one hyper-dual evaluation of L_d, one Jacobian of ω.
void DiscreteLagrangianDerivatives(benchmark::State& state) {
  const auto sys = particle();
  const dalembert::AlphaRule<NonholonomicParticle> ld(sys, 0.1);
  dalembert::Vecd<3> q0(1.0, 0.5, 0.0), q1(1.03, 0.57, 0.016);
  for (auto _ : state) {
    const auto d = dalembert::differentiate(ld, q0, q1);
    benchmark::DoNotOptimize(d.D12.data());
    q1[0] += 1e-15;
  }
}
BENCHMARK(DiscreteLagrangianDerivatives);

void DiscreteConstraintDerivatives(benchmark::State& state) {
  const auto sys = particle();
  const dalembert::AlphaConstraint<NonholonomicParticle> dc(sys, 0.1);
  dalembert::Vecd<3> q0(1.0, 0.5, 0.0), q1(1.03, 0.57, 0.016);
  for (auto _ : state) {
    const auto d = dalembert::differentiate(dc, q0, q1);
    benchmark::DoNotOptimize(d.D2.data());
    q1[0] += 1e-15;
  }
}
BENCHMARK(DiscreteConstraintDerivatives);

// Same trajectory check: both steppers must produce the same positions (not timed).
void SameTrajectory(benchmark::State& state) {
  const auto sys = particle();
  const auto dla = dalembert::make_dla(sys, 0.1);
  const bench::HandWrittenParticleDla hand{0.1, 1.0};
  const auto x0 = sys.default_initial();
  auto a = dla.initial_state(x0.q, x0.v);
  bench::HandWrittenParticleDla::State b{x0.q, x0.v, x0.v};
  double worst = 0.0;
  for (auto _ : state) {
    dla.step(a);
    hand.step(b);
    worst = std::max(worst, (a.q - b.q).norm());
  }
  state.counters["max_position_difference"] = worst;
}
BENCHMARK(SameTrajectory)->Iterations(10000);

}  // namespace

BENCHMARK_MAIN();
