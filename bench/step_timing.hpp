#pragma once
// One step of every single-trajectory method, timed the same way in bench/steps.cpp (C++ models,
// at fixed and at run-time sizes) and bench/model_file.cpp (model files against the catalogue).
// Names: Step/<label>/<method>. The counter newton_iterations is the mean number of Newton
// iterations per step. `del` ignores the constraints (the unconstrained discrete Euler–Lagrange
// flow of the same Lagrangian); gf-sym is taken at α = ¼ (at α = ½ it is gf), spark with 3 stages.
// Every trajectory is
// restarted from the same state every 1000 steps, so that long runs stay in the region of the
// initial data (a state copy, negligible against a step).
#include <benchmark/benchmark.h>

#include <string>

#include "dalembert/method/del.hpp"
#include "dalembert/method/discrete_gradient.hpp"
#include "dalembert/method/dla.hpp"
#include "dalembert/method/generating_function.hpp"
#include "dalembert/method/mclachlan_perlmutter.hpp"
#include "dalembert/method/modified_lagrange_dalembert.hpp"
#include "dalembert/method/momentum_energy.hpp"
#include "dalembert/method/rk4.hpp"
#include "dalembert/method/spark.hpp"

namespace bench {

/// Times method.step from `start`, restarting there every 1000 steps.
template <class Method, class State>
void time_steps_from(benchmark::State& state, const Method& method, const State& start) {
  constexpr long restart_every = 1000;
  auto s = start;
  long iterations = 0, since_restart = 0;
  for (auto _ : state) {
    method.step(s);
    iterations += s.iterations;
    benchmark::DoNotOptimize(s.q.data());
    if (++since_restart == restart_every) {
      s = start;
      since_restart = 0;
    }
  }
  state.counters["newton_iterations"] =
      benchmark::Counter(static_cast<double>(iterations), benchmark::Counter::kAvgIterations);
}

template <class Method, class X0>
void time_steps(benchmark::State& state, const Method& method, const X0& x0) {
  time_steps_from(state, method, method.initial_state(x0.q, x0.v));
}

/// Registers Step/<label>/<method> for every method on `sys` from (q0, v0) = x0, step h.
template <class S, class X0>
void register_steps(const std::string& label, const S& sys, const X0& x0, double h) {
  const auto add = [&](const std::string& method, auto make) {
    benchmark::RegisterBenchmark(("Step/" + label + "/" + method).c_str(),
                                 [sys, x0, make](benchmark::State& st) { time_steps(st, make(sys), x0); });
  };
  add("dla", [h](const S& s) { return dalembert::make_dla(s, h); });
  add("del", [h](const S& s) {
    return dalembert::DiscreteEulerLagrange<S, dalembert::AlphaRule<S>>(s, dalembert::AlphaRule<S>(s, h));
  });
  add("mla", [h](const S& s) { return dalembert::make_midpoint_mla(s, h); });
  add("gf", [h](const S& s) { return dalembert::make_gf(s, h); });
  add("gf-sym", [h](const S& s) { return dalembert::make_gf_sym(s, h, 0.25); });
  add("gf-cp", [h](const S& s) { return dalembert::make_gf_cp(s, h); });
  add("fim", [h](const S& s) { return dalembert::make_fim(s, h); });
  add("rk4", [h](const S& s) { return dalembert::RungeKutta4<S>(s, h); });
  add("mclachlan-perlmutter", [h](const S& s) { return dalembert::McLachlanPerlmutter<S>(s, h); });
  add("discrete-gradient", [h](const S& s) { return dalembert::DiscreteGradient<S>(s, h); });
  add("spark", [h](const S& s) { return dalembert::Spark<S>(s, h, 3); });
}

}  // namespace bench
