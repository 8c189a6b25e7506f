// Time of one step on the chain of N knife edges (models/knife_edge_chain.hpp) against N, for every
// method that runs on it: the midpoint DLA and RK4 assembled term by term (sparse, any N), and the
// methods that differentiate the whole system densely (dla on the chain without its terms, mla, gf,
// gf-sym, fim) up to the sizes the catalogue entry accepts (src/catalogue/knife_edge_chain.cpp). docs/benchmarks.md; plot with scripts/plot_chain_benchmark.py.
#include <benchmark/benchmark.h>

#include <cmath>

#include "dalembert/method/dla.hpp"
#include "dalembert/method/generating_function.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"
#include "dalembert/method/momentum_energy.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/models/knife_edge_chain.hpp"

namespace {

using dalembert::models::KnifeEdgeChain;
constexpr double h = 0.05;

/// The chain through its dense interface alone (as tests/test_knife_edge_chain.cpp).
struct DenseChain {
  static constexpr int n = Eigen::Dynamic, m = Eigen::Dynamic;
  KnifeEdgeChain chain;
  int dimension() const { return chain.dimension(); }
  int constraint_count() const { return chain.constraint_count(); }
  template <class T>
  T lagrangian(const dalembert::Vec<T, n>& q, const dalembert::Vec<T, n>& v) const {
    return chain.lagrangian<T>(q, v);
  }
  template <class T>
  auto metric(const dalembert::Vec<T, n>& q) const {
    return chain.metric<T>(q);
  }
  template <class T>
  T potential(const dalembert::Vec<T, n>& q) const {
    return chain.potential<T>(q);
  }
  template <class T>
  dalembert::Mat<T, m, n> constraint_matrix(const dalembert::Vec<T, n>& q) const {
    return chain.constraint_matrix<T>(q);
  }
};

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
  time_steps(state, dalembert::make_dla(DenseChain{chain}, h), chain);
}
void mla(benchmark::State& state) {
  const auto chain = chain_of(state);
  time_steps(state, dalembert::make_midpoint_mla(chain, h), chain);
}
void gf(benchmark::State& state) {
  const auto chain = chain_of(state);
  time_steps(state, dalembert::make_gf(chain, h), chain);
}
void gf_sym(benchmark::State& state) {
  const auto chain = chain_of(state);
  time_steps(state, dalembert::make_gf_sym(chain, h), chain);
}
void fim(benchmark::State& state) {
  const auto chain = chain_of(state);
  time_steps(state, dalembert::make_fim(chain, h), chain);
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
BENCHMARK(fim)->Name("chain_step/fim")->Arg(3)->Arg(10)->Arg(30)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
