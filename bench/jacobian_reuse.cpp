// Jacobian reuse in the midpoint DLA step (issue 8; docs/decisions.md, "Newton: a fresh Jacobian
// at every iterate"). The library's Newton (solve/newton.hpp) takes the Jacobian of every iterate
// from the same hyper-dual evaluation of L_d that gives the residual. Against it, two chord
// variants that evaluate the residual alone (first-order duals, about a third of the work) and
// factorise less often:
//   chord/step: the Jacobian at the initial guess of each step, reused for that step's iterations;
//   chord/run:  the last factorisation of the previous step kept across steps, refreshed when an
//               iteration reduces the residual by less than a factor 4.
// Both stop as solve/newton.hpp does (|F| ≤ 1e-13 max(1, |p|, |v|)) and refactorise when an
// iteration fails to contract; their positions after 2000 steps equal the library's to 1e-10
// relative (checked before the timings: both stop at the same residual tolerance, not at the same
// point, and the difference grows along the run). Counters: residual evaluations and factorisations per step.
//   build/bench/bench_jacobian_reuse
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>

#include <Eigen/LU>

#include "dalembert/method/dla.hpp"
#include "dalembert/models/chaplygin_sleigh.hpp"
#include "dalembert/models/knife_edge.hpp"
#include "dalembert/models/particle.hpp"

namespace {

using namespace dalembert;

enum class Reuse { within_step, across_steps };

/// Midpoint DLA with a chord (simplified Newton) iteration; the same equations as
/// DiscreteLagrangeDAlembert (method/dla.hpp).
template <class S>
class ChordDla {
 public:
  static constexpr int n = S::n, m = S::m, N = n + m;
  struct State {
    long k = 0;
    Vecd<n> q, p, last_velocity;
    Vecd<m> multiplier;
    long residuals = 0, factorisations = 0;
  };

  ChordDla(const S& sys, double h, Reuse reuse) : sys_(sys), h_(h), ld_(sys, h), dc_(sys, h), reuse_(reuse) {}

  State initial_state(const Vecd<n>& q0, const Vecd<n>& v0) const {
    State s;
    s.q = q0;
    s.p = momentum(sys_, q0, v0);
    s.last_velocity = v0;
    s.multiplier.setZero();
    return s;
  }

  void step(State& s) const {
    const Matd<m, n> Mq = sys_.template constraint_matrix<double>(s.q);
    Vecd<N> x, F, trial;
    x << s.q + h_ * s.last_velocity, s.multiplier;
    const double tol = 1e-13 * std::max({1.0, s.p.template lpNorm<Eigen::Infinity>(),
                                         s.last_velocity.template lpNorm<Eigen::Infinity>()});
    if (reuse_ == Reuse::within_step || !have_lu_) factorise(s, Mq, x);
    residual(s, Mq, x, F);
    double norm = F.template lpNorm<Eigen::Infinity>();
    bool fresh = reuse_ == Reuse::within_step;  // is the factorisation that of this very x?
    for (int it = 0; norm > tol; ++it) {
      if (it == 50) std::abort();  // not expected on these problems
      trial = x - lu_.solve(F);
      Vecd<N> F_trial;
      residual(s, Mq, trial, F_trial);
      const double trial_norm = F_trial.template lpNorm<Eigen::Infinity>();
      if (!fresh && trial_norm > 0.25 * norm && trial_norm > tol) {  // slow contraction: a fresh Jacobian
        factorise(s, Mq, x);
        fresh = true;
        continue;
      }
      // a full Newton step that cannot contract further has reached round-off (as solve/newton.hpp)
      if (fresh && trial_norm >= norm) break;
      fresh = false;
      x = trial;
      F = F_trial;
      norm = trial_norm;
    }
    const Vecd<n> q1 = x.template head<n>();
    double value;
    Vecd<n> D2;  // p⁺_{k+1} = D2 L_d(q_k, q_{k+1}): one more first-order evaluation
    ad::value_and_gradient<n>(
        [&](const auto& q1d) {
          using D = typename std::decay_t<decltype(q1d)>::Scalar;
          return ld_(Vec<D, n>(s.q.template cast<D>()), q1d);
        },
        q1, value, D2);
    s.p = D2;
    s.multiplier = x.template tail<m>();
    s.last_velocity = (q1 - s.q) / h_;
    s.q = q1;
    ++s.k;
  }

 private:
  /// F = (p⁺_k + D1 L_d(q_k, q1) − M(q_k)ᵀλ, ω(q_k, q1)) with first-order duals only.
  void residual(State& s, const Matd<m, n>& Mq, const Vecd<N>& x, Vecd<N>& F) const {
    const Vecd<n> q1 = x.template head<n>();
    double value;
    Vecd<n> D1;
    ad::value_and_gradient<n>(
        [&](const auto& q0d) {
          using D = typename std::decay_t<decltype(q0d)>::Scalar;
          return ld_(q0d, Vec<D, n>(q1.template cast<D>()));
        },
        s.q, value, D1);
    F.template head<n>() = s.p + D1 - Mq.transpose() * x.template tail<m>();
    F.template tail<m>() = dc_(s.q, q1);
    ++s.residuals;
  }

  /// The Jacobian at x, exactly as method/dla.hpp assembles it, factorised.
  void factorise(State& s, const Matd<m, n>& Mq, const Vecd<N>& x) const {
    const Vecd<n> q1 = x.template head<n>();
    Matd<N, N> J;
    J.template topLeftCorner<n, n>() = differentiate(ld_, s.q, q1).D12;
    J.template topRightCorner<n, m>() = -Mq.transpose();
    J.template bottomLeftCorner<m, n>() = differentiate(dc_, s.q, q1).D2;
    J.template bottomRightCorner<m, m>().setZero();
    lu_.compute(J);
    have_lu_ = true;
    ++s.factorisations;
  }

  S sys_;
  double h_;
  AlphaRule<S> ld_;
  AlphaConstraint<S> dc_;
  Reuse reuse_;
  mutable Eigen::PartialPivLU<Matd<N, N>> lu_;
  mutable bool have_lu_ = false;
};

models::NonholonomicParticle particle() {
  models::NonholonomicParticle p;
  p.potential_coefficient = 1.0;
  return p;
}

template <class S>
void library_newton(benchmark::State& state, S sys) {
  const double h = static_cast<double>(state.range(0)) / 1000.0;
  const auto dla = make_dla(sys, h);
  const auto x0 = sys.default_initial();
  auto s = dla.initial_state(x0.q, x0.v);
  long steps = 0, evaluations = 0;
  for (auto _ : state) {
    if (s.k == 2000) s = dla.initial_state(x0.q, x0.v);  // the same stretch of motion throughout
    dla.step(s);
    evaluations += s.iterations + 1;  // each with its Jacobian
    ++steps;
    benchmark::DoNotOptimize(s.q.data());
  }
  state.counters["residuals"] = static_cast<double>(evaluations) / static_cast<double>(steps);
  state.counters["factorisations"] = static_cast<double>(evaluations - steps) / static_cast<double>(steps);
}

template <class S>
void chord(benchmark::State& state, S sys, Reuse reuse) {
  const double h = static_cast<double>(state.range(0)) / 1000.0;
  const ChordDla<S> dla(sys, h, reuse);
  const auto x0 = sys.default_initial();
  auto s = dla.initial_state(x0.q, x0.v);
  long steps = 0, residuals = 0, factorisations = 0;
  for (auto _ : state) {
    if (s.k == 2000) {
      residuals += s.residuals, factorisations += s.factorisations;
      s = dla.initial_state(x0.q, x0.v);
    }
    dla.step(s);
    ++steps;
    benchmark::DoNotOptimize(s.q.data());
  }
  residuals += s.residuals, factorisations += s.factorisations;
  state.counters["residuals"] = static_cast<double>(residuals) / static_cast<double>(steps);
  state.counters["factorisations"] = static_cast<double>(factorisations) / static_cast<double>(steps);
}

/// The chord iterations solve the same equations: same positions after 2000 steps.
template <class S>
void check_same_trajectory(const char* name, const S& sys, double h) {
  const auto x0 = sys.default_initial();
  const auto dla = make_dla(sys, h);
  auto a = dla.initial_state(x0.q, x0.v);
  for (const Reuse reuse : {Reuse::within_step, Reuse::across_steps}) {
    const ChordDla<S> chord(sys, h, reuse);
    auto b = chord.initial_state(x0.q, x0.v);
    a = dla.initial_state(x0.q, x0.v);
    for (int k = 0; k < 2000; ++k) dla.step(a), chord.step(b);
    // relative: on the knife edge |y| grows to about 50 over these steps
    const double d = (a.q - b.q).template lpNorm<Eigen::Infinity>() / (1.0 + a.q.template lpNorm<Eigen::Infinity>());
    if (!(d < 1e-10)) {
      std::fprintf(stderr, "%s h=%g: chord and Newton differ by %g\n", name, h, d);
      std::exit(1);
    }
  }
}

}  // namespace

#define DALEMBERT_REUSE_BENCHMARKS(label, system)                                                            \
  BENCHMARK_CAPTURE(library_newton, label, system)->Arg(100)->Arg(10);                                       \
  BENCHMARK_CAPTURE(chord, label##_within_step, system, Reuse::within_step)->Arg(100)->Arg(10);              \
  BENCHMARK_CAPTURE(chord, label##_across_steps, system, Reuse::across_steps)->Arg(100)->Arg(10);

DALEMBERT_REUSE_BENCHMARKS(particle, particle())
DALEMBERT_REUSE_BENCHMARKS(knife_edge, models::KnifeEdge{})
DALEMBERT_REUSE_BENCHMARKS(sleigh, models::ChaplyginSleigh{})

int main(int argc, char** argv) {
  for (const double h : {0.1, 0.01}) {
    check_same_trajectory("particle", particle(), h);
    check_same_trajectory("knife edge", models::KnifeEdge{}, h);
    check_same_trajectory("sleigh", models::ChaplyginSleigh{}, h);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
