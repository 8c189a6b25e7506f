#pragma once
// What every method offers, and driving one. A method is a small object; the minimum it states
// (the concept Method below) is
//   using State = ...;               holding at least  long k; double t; int iterations;
//   double step_size() const;        h
//   const System& system() const;    the system it integrates
//   void step(State&) const;         one step in place (throws SolverError on failure)
//   velocity(const State&) const;    its own velocity estimate at step k (Ω for a rigid body)
// and a start of its kind: initial_state(q0, v0), (q0, v0, z0) for contact systems, (g0, Ω0) for
// rigid bodies; a two-step method also initial_state_two_point(q0, q1) (TwoStepMethod). Optional
// parts a run writes when they exist: carried_momentum(state) and carried_multiplier(state), the
// columns p_<coordinate> and lambda_<k> (io/observe.hpp), and extra_values(state).
// integrate() calls the observer on the initial state and after every step, Boost.Odeint style,
// with subnormal numbers flushed to zero (core/subnormals.hpp).
#include <concepts>
#include <utility>

#include "dalembert/core/subnormals.hpp"

namespace dalembert {

template <class M>
concept Method = requires(const M& method, typename M::State& state) {
  { state.k } -> std::convertible_to<long>;
  { state.t } -> std::convertible_to<double>;
  { state.iterations } -> std::convertible_to<int>;
  { method.step_size() } -> std::convertible_to<double>;
  method.system();
  method.step(state);
  method.velocity(std::as_const(state));
};

/// A method that also starts, as in the papers, from two positions (q0, q1) ∈ M_d.
template <class M, class Point>
concept TwoStepMethod = Method<M> && requires(const M& method, const Point& q) {
  { method.initial_state_two_point(q, q) } -> std::same_as<typename M::State>;
};

template <Method M, class Observer>
void integrate(const M& method, typename M::State& state, long steps, Observer&& observe) {
  const FlushSubnormals flush;
  observe(static_cast<const typename M::State&>(state));
  for (long i = 0; i < steps; ++i) {
    method.step(state);
    observe(static_cast<const typename M::State&>(state));
  }
}

}  // namespace dalembert
