// One step of every single-trajectory method (bench/step_timing.hpp) on the particle (with potential
// c = 1), the knife edge on the inclined plane (catalogue defaults) and the Chaplygin sleigh, h = 0.1;
// and the midpoint DLA step written by hand with analytic Jacobians for each of the three
// (bench/hand_written.cpp).
//   build/bench/bench_steps --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Names: Step/<system>/<method>; HandWrittenDla/<system>; StepDerivative/<system>/<method>, the
// method's step_derivative (the derivative of a step with respect to (q_k, p_k), a step of its own
// included).
// Step/<system>-at-run-time/<method> is the same step on the system seen with sizes known only at
// run time, stored within a bound of 8 (tests/at_run_time.hpp): the cost of run-time sizes.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <type_traits>

#include "dalembert/method/dla.hpp"
#include "dalembert/method/exact_flow.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "dalembert/models/particle.hpp"
#include "at_run_time.hpp"
#include "hand_written.hpp"
#include "step_timing.hpp"

namespace {

using namespace dalembert;
using namespace dalembert::models;

constexpr double h = 0.1;

NonholonomicParticle particle() {
  NonholonomicParticle p;
  p.potential_coefficient = 1.0;
  return p;
}

/// The hand-written step for `sys`, checked against the generic DLA step over 2000 steps before it
/// is timed (the counter max_position_difference; the benchmark fails above 1e-10).
template <class Hand, class S>
void time_hand_written(benchmark::State& state, const Hand& hand, const S& sys) {
  const auto generic = make_dla(sys, h);
  const auto x0 = sys.default_initial();
  const auto g0 = generic.initial_state(x0.q, x0.v);
  const typename Hand::State start{x0.q, g0.p, x0.v};
  {
    auto a = g0;
    auto b = start;
    double worst = 0.0;
    for (int k = 0; k < 2000; ++k) {
      generic.step(a);
      hand.step(b);
      worst = std::max(worst, (a.q - b.q).template lpNorm<Eigen::Infinity>());
    }
    state.counters["max_position_difference"] = worst;
    if (!(worst <= 1e-10)) {
      state.SkipWithError("hand-written and generic DLA trajectories differ");
      return;
    }
  }
  bench::time_steps_from(state, hand, start);
}

/// A method's step_derivative from a state three steps in.
template <class Method, class S>
void time_step_derivative(benchmark::State& state, const Method& method, const S& sys) {
  const auto x0 = sys.default_initial();
  auto s = method.initial_state(x0.q, x0.v);
  for (int k = 0; k < 3; ++k) method.step(s);
  for (auto _ : state) benchmark::DoNotOptimize(method.step_derivative(s));
}

/// Every method on `sys`, and on `sys` with its sizes known only at run time.
template <class S>
void register_both(const std::string& label, const S& sys) {
  const auto x0 = sys.default_initial();
  bench::register_steps(label, sys, x0, h);
  using AtRunTime = test::AtRunTime<S, 8, 8>;
  bench::register_steps(label + "-at-run-time", AtRunTime(sys), PhasePointOf<AtRunTime>{x0.q, x0.v}, h);
}

void register_all() {
  register_both("particle", particle());
  register_both("knife-edge", KnifeEdge{});
  register_both("chaplygin-sleigh", ChaplyginSleigh{});
  const auto derivatives = [](const std::string& label, const auto& sys) {
    benchmark::RegisterBenchmark(("StepDerivative/" + label + "/dla").c_str(), [sys](benchmark::State& st) {
      time_step_derivative(st, make_dla(sys, h), sys);
    });
    benchmark::RegisterBenchmark(("StepDerivative/" + label + "/mla").c_str(), [sys](benchmark::State& st) {
      time_step_derivative(st, make_midpoint_mla(sys, h), sys);
    });
    using S = std::decay_t<decltype(sys)>;
    const auto add = [&](const std::string& method, auto make) {
      benchmark::RegisterBenchmark(("StepDerivative/" + label + "/" + method).c_str(),
                                   [sys, make](benchmark::State& st) { time_step_derivative(st, make(sys), sys); });
    };
    add("del", [](const S& s) { return DiscreteEulerLagrange<S, AlphaRule<S>>(s, AlphaRule<S>(s, h)); });
    add("gf", [](const S& s) { return make_gf(s, h); });
    add("fim", [](const S& s) { return make_fim(s, h); });
    add("mclachlan-perlmutter", [](const S& s) { return McLachlanPerlmutter<S>(s, h); });
    add("discrete-gradient", [](const S& s) { return DiscreteGradient<S>(s, h); });
    add("spark", [](const S& s) { return Spark<S>(s, h, 3); });
    add("exact", [](const S& s) { return ExactDiscreteFlow<S>(s, h); });
  };
  derivatives("particle", particle());
  derivatives("knife-edge", KnifeEdge{});
  derivatives("chaplygin-sleigh", ChaplyginSleigh{});
  benchmark::RegisterBenchmark("HandWrittenDla/particle", [](benchmark::State& st) {
    time_hand_written(st, bench::HandWrittenParticleDla{h, 1.0}, particle());
  });
  benchmark::RegisterBenchmark("HandWrittenDla/knife-edge", [](benchmark::State& st) {
    const KnifeEdge k;
    time_hand_written(st, bench::HandWrittenKnifeEdgeDla{h, k.mass, k.inertia, k.slope, k.spring, k.eps}, k);
  });
  benchmark::RegisterBenchmark("HandWrittenDla/chaplygin-sleigh", [](benchmark::State& st) {
    const ChaplyginSleigh c;
    time_hand_written(st, bench::HandWrittenSleighDla{h, c.mass, c.inertia, c.offset}, c);
  });
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
