// Time of one step on the chain of N knife edges (models/knife_edge_chain.hpp) against N, for every
// method that runs on it: the midpoint DLA, FIM and RK4 assembled term by term (sparse, any N), and
// the methods that differentiate the whole system densely (dla and fim on the chain without its
// terms, mla, gf, gf-sym) up to the sizes the catalogue entry accepts (src/catalogue/knife_edge_chain.cpp). docs/benchmarks.md; plot with scripts/plot_chain_benchmark.py.
#include <benchmark/benchmark.h>

#include <cmath>

#include "dalembert/method/dla.hpp"
#include "dalembert/method/generating_function.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"
#include "dalembert/method/momentum_energy.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/model/without_terms.hpp"
#include "dalembert/models/knife_edge_chain.hpp"

namespace {

using dalembert::models::KnifeEdgeChain;
constexpr double h = 0.05;

/// Steps `method` from the chain's default start, restarting every 1000 steps so that every N
/// times the same stretch of motion.
template <class Method>
void time_steps(benchmark::State& state, const Method& method, const KnifeEdgeChain& chain) {
  const auto x0 = chain.default_initial();
  auto s = method.initial_state(x0.q, x0.v);
  long iterations = 0, steps = 0;
  for (auto _ : state) {
    if (s.k == 1000) s = method.initial_state(x0.q, x0.v);
    method.step(s);
    iterations += s.iterations;
    ++steps;
  }
  state.counters["skates"] = chain.skates();
  state.counters["newton_iterations"] = static_cast<double>(iterations) / static_cast<double>(steps);
}

KnifeEdgeChain chain_of(const benchmark::State& state) { return KnifeEdgeChain(static_cast<int>(state.range(0))); }

void dla_by_terms(benchmark::State& state) {
  const auto chain = chain_of(state);
  time_steps(state, dalembert::make_dla(chain, h), chain);
}
void rk4_by_terms(benchmark::State& state) {
  const auto chain = chain_of(state);
  time_steps(state, dalembert::RungeKutta4<KnifeEdgeChain>(chain, h), chain);
}
void dla_dense(benchmark::State& state) {
  const auto chain = chain_of(state);
  time_steps(state, dalembert::make_dla(dalembert::WithoutTerms<KnifeEdgeChain>{chain}, h), chain);
}
/// A method that differentiates the whole chain: make(chain) builds it.
template <class Make>
void dense_method(benchmark::State& state, Make make) {
  const auto chain = chain_of(state);
  time_steps(state, make(chain), chain);
}
void mla(benchmark::State& s) { dense_method(s, [](const auto& c) { return dalembert::make_midpoint_mla(c, h); }); }
void gf(benchmark::State& s) { dense_method(s, [](const auto& c) { return dalembert::make_gf(c, h); }); }
void gf_sym(benchmark::State& s) { dense_method(s, [](const auto& c) { return dalembert::make_gf_sym(c, h); }); }
void fim_by_terms(benchmark::State& state) {
  const auto chain = chain_of(state);
  time_steps(state, dalembert::make_fim(chain, h), chain);
}
void fim_dense(benchmark::State& state) {
  const auto chain = chain_of(state);
  time_steps(state, dalembert::make_fim(dalembert::WithoutTerms<KnifeEdgeChain>{chain}, h), chain);
}

}  // namespace

BENCHMARK(dla_by_terms)->Name("chain_step/dla")->Arg(3)->Arg(10)->Arg(30)->Arg(100)->Arg(300)
    ->Arg(1000)->Arg(3000)->Unit(benchmark::kMicrosecond);
BENCHMARK(rk4_by_terms)->Name("chain_step/rk4")->Arg(3)->Arg(10)->Arg(30)->Arg(100)->Arg(300)->Arg(1000)->Arg(3000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(dla_dense)->Name("chain_step/dla_dense")->Arg(3)->Arg(10)->Arg(30)->Unit(benchmark::kMicrosecond);
BENCHMARK(mla)->Name("chain_step/mla")->Arg(3)->Arg(6)->Unit(benchmark::kMicrosecond);
BENCHMARK(gf)->Name("chain_step/gf")->Arg(3)->Arg(10)->Arg(15)->Unit(benchmark::kMicrosecond);
BENCHMARK(gf_sym)->Name("chain_step/gf-sym")->Arg(3)->Arg(10)->Arg(15)->Unit(benchmark::kMicrosecond);
BENCHMARK(fim_by_terms)->Name("chain_step/fim")->Arg(3)->Arg(10)->Arg(30)->Arg(100)->Arg(300)->Arg(1000)->Arg(3000)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(fim_dense)->Name("chain_step/fim_dense")->Arg(3)->Arg(10)->Arg(30)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
