#pragma once
// Driving a method: a method is a small object with
//   using State = ...;           holding at least  long k; double t; Vecd<n> q;
//   void step(State&) const;     advance one step (throws SolverError on failure)
//   Vecd<n> velocity(const State&) const;   its own velocity estimate at step k
// and optionally carried_momentum(state) and carried_multiplier(state), written by a run as the
// columns p_<coordinate> and lambda_<k> (io/observe.hpp).
// integrate() calls the observer on the initial state and after every step, Boost.Odeint style.
namespace dalembert {

template <class Method, class Observer>
void integrate(const Method& method, typename Method::State& state, long steps, Observer&& observe) {
  observe(static_cast<const typename Method::State&>(state));
  for (long i = 0; i < steps; ++i) {
    method.step(state);
    observe(static_cast<const typename Method::State&>(state));
  }
}

}  // namespace dalembert
