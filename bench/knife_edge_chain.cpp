// Time of one midpoint DLA step on a chain of N knife edges (method/knife_edge_chain_dla.hpp)
// against N, with Newton on Eigen::SparseLU and, up to N = 300, on dense PartialPivLU.
// docs/ensembles.md; plot with scripts/plot_chain_benchmark.py.
#include <benchmark/benchmark.h>

#include <cmath>

#include "dalembert/method/knife_edge_chain_dla.hpp"

namespace {

void chain_step(benchmark::State& state, dalembert::KnifeEdgeChainDla::Linear linear) {
  const int N = static_cast<int>(state.range(0));
  const dalembert::KnifeEdgeChainDla dla(N, {}, 0.05, linear);
  Eigen::VectorXd q0(3 * N), v0(3 * N);
  for (int i = 0; i < N; ++i) {
    const double phi = 0.1 * std::sin(0.7 * i), s = 1.0 + 0.5 * std::cos(0.3 * i);
    q0.segment<3>(3 * i) << 1.0 * i, 0.0, phi;
    v0.segment<3>(3 * i) << s * std::cos(phi), s * std::sin(phi), 0.3 * std::cos(1.1 * i);
  }
  auto s = dla.initial_state(q0, v0);
  long iterations = 0, steps = 0;
  for (auto _ : state) {
    if (s.k == 1000) s = dla.initial_state(q0, v0);  // the same stretch of motion for every N
    dla.step(s);
    iterations += s.iterations;
    ++steps;
  }
  state.counters["skates"] = N;
  state.counters["unknowns"] = 4.0 * N;
  state.counters["newton_iterations"] = static_cast<double>(iterations) / static_cast<double>(steps);
}

void sparse(benchmark::State& state) { chain_step(state, dalembert::KnifeEdgeChainDla::Linear::sparse); }
void dense(benchmark::State& state) { chain_step(state, dalembert::KnifeEdgeChainDla::Linear::dense); }

}  // namespace

BENCHMARK(sparse)->Name("chain_step/sparse")->Arg(3)->Arg(10)->Arg(30)->Arg(100)->Arg(300)->Arg(1000)->Arg(3000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(dense)->Name("chain_step/dense")->Arg(3)->Arg(10)->Arg(30)->Arg(100)->Arg(300)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
