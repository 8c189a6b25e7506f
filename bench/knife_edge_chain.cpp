// Time of one step on the chain of N knife edges (models/knife_edge_chain.hpp) against N, for every
// method that runs on it term by term (sparse, any N): the midpoint and trapezoidal DLA and FIM, MLA, GF,
// GF-sym, GF-CP, McLachlan–Perlmutter, the discrete gradient, SPARK (3 stages) and RK4; and, for
// comparison, some of them on the chain without its terms (differentiated densely) up to the sizes the
// catalogue entry used to accept (src/catalogue/knife_edge_chain.cpp; docs/decisions.md, Large
// systems). Plot with scripts/plot_chain_benchmark.py.
#include <benchmark/benchmark.h>

#include <cmath>

#include "dalembert/method/discrete_gradient.hpp"
#include "dalembert/method/dla.hpp"
#include "dalembert/method/generating_function.hpp"
#include "dalembert/method/mclachlan_perlmutter.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"
#include "dalembert/method/momentum_energy.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/method/spark.hpp"
#include "dalembert/model/without_terms.hpp"
#include "dalembert/models/knife_edge_chain.hpp"

namespace {

using dalembert::models::KnifeEdgeChain;
constexpr double h = 0.05;

/// Steps `method` from the chain's default start, restarting every 1000 steps so that every N
/// times the same stretch of motion. The first step, whose Newton starts from zero multipliers, is
/// taken before the timing: at large N a slow method times only a few steps, which would otherwise
/// be mostly that one (18 Newton iterations of discrete-gradient at N = 3000, against 5–6 later).
template <class Method>
void time_steps(benchmark::State& state, const Method& method, const KnifeEdgeChain& chain) {
  const auto x0 = chain.default_initial();
  auto s = method.initial_state(x0.q, x0.v);
  method.step(s);
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
/// The method make(chain) on the chain of state.range(0) skates.
template <class Make>
void method_on_chain(benchmark::State& state, Make make) {
  const auto chain = chain_of(state);
  time_steps(state, make(chain), chain);
}
void mla(benchmark::State& s) {
  method_on_chain(s, [](const auto& c) { return dalembert::make_midpoint_mla(c, h); });
}
void gf(benchmark::State& s) {
  method_on_chain(s, [](const auto& c) { return dalembert::make_gf(c, h); });
}
void gf_sym(benchmark::State& s) {
  method_on_chain(s, [](const auto& c) { return dalembert::make_gf_sym(c, h, 0.25); });
}
void gf_cp(benchmark::State& s) {
  method_on_chain(s, [](const auto& c) { return dalembert::make_gf_cp(c, h); });
}
using DenseChain = dalembert::WithoutTerms<KnifeEdgeChain>;
void mla_dense(benchmark::State& s) {
  method_on_chain(s, [](const auto& c) { return dalembert::make_midpoint_mla(DenseChain{c}, h); });
}
void gf_dense(benchmark::State& s) {
  method_on_chain(s, [](const auto& c) { return dalembert::make_gf(DenseChain{c}, h); });
}
void mclachlan_perlmutter(benchmark::State& s) {
  method_on_chain(s, [](const auto& c) { return dalembert::McLachlanPerlmutter(c, h); });
}
void mclachlan_perlmutter_dense(benchmark::State& s) {
  method_on_chain(s, [](const auto& c) { return dalembert::McLachlanPerlmutter(DenseChain{c}, h); });
}
void discrete_gradient(benchmark::State& s) {
  method_on_chain(s, [](const auto& c) { return dalembert::DiscreteGradient(c, h); });
}
void discrete_gradient_dense(benchmark::State& s) {
  method_on_chain(s, [](const auto& c) { return dalembert::DiscreteGradient(DenseChain{c}, h); });
}
void spark(benchmark::State& s) {
  method_on_chain(s, [](const auto& c) { return dalembert::Spark(c, h, 3); });
}
void spark_dense(benchmark::State& s) {
  method_on_chain(s, [](const auto& c) { return dalembert::Spark(DenseChain{c}, h, 3); });
}
void fim_by_terms(benchmark::State& state) {
  const auto chain = chain_of(state);
  time_steps(state, dalembert::make_fim(chain, h), chain);
}
void fim_dense(benchmark::State& state) {
  const auto chain = chain_of(state);
  time_steps(state, dalembert::make_fim(dalembert::WithoutTerms<KnifeEdgeChain>{chain}, h), chain);
}
/// DLA (with the midpoint discrete constraint, as on the command line) and FIM with the trapezoidal L_d.
template <class Model>
auto trapezoidal_dla(const Model& c) {
  using dalembert::AlphaConstraint, dalembert::TrapezoidRule;
  return dalembert::DiscreteLagrangeDAlembert<Model, TrapezoidRule<Model>, AlphaConstraint<Model>>(
      c, TrapezoidRule<Model>(c, h), AlphaConstraint<Model>(c, h, 0.5));
}
template <class Model>
auto trapezoidal_fim(const Model& c) {
  return dalembert::MomentumEnergyIntegrator<Model, dalembert::TrapezoidRule<Model>>(
      c, dalembert::TrapezoidRule<Model>(c, h));
}
void dla_trapezoid(benchmark::State& s) {
  method_on_chain(s, [](const auto& c) { return trapezoidal_dla(c); });
}
void dla_trapezoid_dense(benchmark::State& s) {
  method_on_chain(s, [](const auto& c) { return trapezoidal_dla(DenseChain{c}); });
}
void fim_trapezoid(benchmark::State& s) {
  method_on_chain(s, [](const auto& c) { return trapezoidal_fim(c); });
}
void fim_trapezoid_dense(benchmark::State& s) {
  method_on_chain(s, [](const auto& c) { return trapezoidal_fim(DenseChain{c}); });
}

/// A method's step derivative by terms applied to one direction (a Jacobian–vector product): the
/// step it takes, the terms' blocks, one sparse factorisation and one solve; against its chain_step.
template <class Make>
void derivative_product(benchmark::State& state, Make make) {
  const auto chain = chain_of(state);
  const auto method = make(chain);
  const auto x0 = chain.default_initial();
  auto s = method.initial_state(x0.q, x0.v);
  method.step(s);
  const Eigen::VectorXd direction = Eigen::VectorXd::Ones(2 * s.q.size());
  for (auto _ : state) benchmark::DoNotOptimize(method.sparse_step_derivative(s) * direction);
  state.counters["skates"] = chain.skates();
}
void dla_derivative_product(benchmark::State& s) {
  derivative_product(s, [](const auto& c) { return dalembert::make_dla(c, h); });
}
void discrete_gradient_derivative_product(benchmark::State& s) {
  derivative_product(s, [](const auto& c) { return dalembert::DiscreteGradient(c, h); });
}
void mclachlan_perlmutter_derivative_product(benchmark::State& s) {
  derivative_product(s, [](const auto& c) { return dalembert::McLachlanPerlmutter(c, h); });
}
void spark_derivative_product(benchmark::State& s) {
  derivative_product(s, [](const auto& c) { return dalembert::Spark(c, h, 3); });
}
void mla_derivative_product(benchmark::State& s) {
  derivative_product(s, [](const auto& c) { return dalembert::make_midpoint_mla(c, h); });
}
void gf_derivative_product(benchmark::State& s) {
  derivative_product(s, [](const auto& c) { return dalembert::make_gf(c, h); });
}
void gf_sym_derivative_product(benchmark::State& s) {
  derivative_product(s, [](const auto& c) { return dalembert::make_gf_sym(c, h, 0.25); });
}
void gf_cp_derivative_product(benchmark::State& s) {
  derivative_product(s, [](const auto& c) { return dalembert::make_gf_cp(c, h); });
}
void fim_derivative_product(benchmark::State& s) {
  derivative_product(s, [](const auto& c) { return dalembert::make_fim(c, h); });
}

}  // namespace

/// The sizes of the methods assembled term by term, which take any N.
void any_chain(benchmark::internal::Benchmark* b) {
  for (const int skates : {3, 10, 30, 100, 300, 1000, 3000}) b->Arg(skates);
  b->Unit(benchmark::kMicrosecond);
}

/// The sizes of the dense steps of `dla` and `fim`, up to the 30 skates the catalogue entry used to accept.
void to_thirty_skates(benchmark::internal::Benchmark* b) {
  for (const int skates : {3, 10, 30}) b->Arg(skates);
  b->Unit(benchmark::kMicrosecond);
}

BENCHMARK(dla_by_terms)->Name("chain_step/dla")->Apply(any_chain);
/// The sizes of the derivatives' products.
void derivative_sizes(benchmark::internal::Benchmark* b) {
  for (const int skates : {100, 1000, 3000}) b->Arg(skates);
  b->Unit(benchmark::kMicrosecond);
}

BENCHMARK(dla_derivative_product)->Name("chain_step_derivative/dla_product")->Apply(derivative_sizes);
BENCHMARK(discrete_gradient_derivative_product)
    ->Name("chain_step_derivative/discrete-gradient_product")
    ->Apply(derivative_sizes);
BENCHMARK(mclachlan_perlmutter_derivative_product)
    ->Name("chain_step_derivative/mclachlan-perlmutter_product")
    ->Apply(derivative_sizes);
BENCHMARK(spark_derivative_product)->Name("chain_step_derivative/spark_product")->Apply(derivative_sizes);
BENCHMARK(mla_derivative_product)->Name("chain_step_derivative/mla_product")->Apply(derivative_sizes);
BENCHMARK(gf_derivative_product)->Name("chain_step_derivative/gf_product")->Apply(derivative_sizes);
BENCHMARK(gf_sym_derivative_product)->Name("chain_step_derivative/gf-sym_product")->Apply(derivative_sizes);
BENCHMARK(gf_cp_derivative_product)->Name("chain_step_derivative/gf-cp_product")->Apply(derivative_sizes);
BENCHMARK(fim_derivative_product)->Name("chain_step_derivative/fim_product")->Apply(derivative_sizes);
BENCHMARK(rk4_by_terms)->Name("chain_step/rk4")->Apply(any_chain);
BENCHMARK(dla_dense)->Name("chain_step/dla_dense")->Apply(to_thirty_skates);
BENCHMARK(mla)->Name("chain_step/mla")->Apply(any_chain);
BENCHMARK(gf)->Name("chain_step/gf")->Apply(any_chain);
BENCHMARK(gf_sym)->Name("chain_step/gf-sym")->Apply(any_chain);
BENCHMARK(gf_cp)->Name("chain_step/gf-cp")->Apply(any_chain);
BENCHMARK(mla_dense)->Name("chain_step/mla_dense")->Arg(3)->Arg(6)->Unit(benchmark::kMicrosecond);
BENCHMARK(gf_dense)->Name("chain_step/gf_dense")->Arg(3)->Arg(10)->Arg(15)->Unit(benchmark::kMicrosecond);
BENCHMARK(mclachlan_perlmutter)->Name("chain_step/mclachlan-perlmutter")->Apply(any_chain);
BENCHMARK(mclachlan_perlmutter_dense)
    ->Name("chain_step/mclachlan-perlmutter_dense")
    ->Arg(3)
    ->Arg(10)
    ->Arg(15)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(discrete_gradient)->Name("chain_step/discrete-gradient")->Apply(any_chain);
BENCHMARK(discrete_gradient_dense)
    ->Name("chain_step/discrete-gradient_dense")
    ->Arg(3)
    ->Arg(5)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(spark)->Name("chain_step/spark")->Apply(any_chain);
BENCHMARK(spark_dense)->Name("chain_step/spark_dense")->Arg(3)->Arg(5)->Unit(benchmark::kMicrosecond);
BENCHMARK(fim_by_terms)->Name("chain_step/fim")->Apply(any_chain);
BENCHMARK(fim_dense)->Name("chain_step/fim_dense")->Apply(to_thirty_skates);
BENCHMARK(dla_trapezoid)->Name("chain_step/dla-trapezoid")->Apply(any_chain);
BENCHMARK(dla_trapezoid_dense)->Name("chain_step/dla-trapezoid_dense")->Apply(to_thirty_skates);
BENCHMARK(fim_trapezoid)->Name("chain_step/fim-trapezoid")->Apply(any_chain);
BENCHMARK(fim_trapezoid_dense)->Name("chain_step/fim-trapezoid_dense")->Apply(to_thirty_skates);

BENCHMARK_MAIN();
