// Factorise and solve one Newton system of the sizes the integrators meet: the library's SmallLU
// (solve/small_lu.hpp) against Eigen's PartialPivLU, which Newton used before (docs/decisions.md,
// Newton's small linear systems).
//   build/bench/bench_small_lu --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <random>

#include <Eigen/LU>

#include "dalembert/solve/small_lu.hpp"

namespace {

using namespace dalembert;

/// A Newton matrix of a DLA step in its typical shape: −G/h on the diagonal, constraint rows and
/// columns, a zero corner, small off-diagonal terms.
template <int N>
Matd<N, N> dla_like_matrix() {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Matd<N, N> a;
  for (int i = 0; i < N; ++i)
    for (int j = 0; j < N; ++j) a(i, j) = 0.05 * u(rng);
  for (int i = 0; i < N - 1; ++i) {
    a(i, i) = -10.0 + u(rng);
    a(i, N - 1) = u(rng);
    a(N - 1, i) = u(rng);
  }
  a(N - 1, N - 1) = 0.0;
  return a;
}

/// Factorise and solve with Factorisation (constructed from the matrix, with solve()).
template <int N, class Factorisation>
void factorise_and_solve(benchmark::State& state) {
  Matd<N, N> a = dla_like_matrix<N>();
  Vecd<N> b = Vecd<N>::Ones();
  for (auto _ : state) {
    benchmark::DoNotOptimize(a);
    const Factorisation lu(a);
    Vecd<N> x = lu.solve(b);
    benchmark::DoNotOptimize(x);
  }
}

template <int N>
void EigenPartialPivLU(benchmark::State& state) {
  factorise_and_solve<N, Eigen::PartialPivLU<Matd<N, N>>>(state);
}

template <int N>
void LibrarySmallLU(benchmark::State& state) {
  factorise_and_solve<N, SmallLU<N>>(state);
}

BENCHMARK(EigenPartialPivLU<2>);
BENCHMARK(LibrarySmallLU<2>);
BENCHMARK(EigenPartialPivLU<4>);
BENCHMARK(LibrarySmallLU<4>);
BENCHMARK(EigenPartialPivLU<6>);
BENCHMARK(LibrarySmallLU<6>);
BENCHMARK(EigenPartialPivLU<8>);
BENCHMARK(LibrarySmallLU<8>);

}  // namespace

BENCHMARK_MAIN();
