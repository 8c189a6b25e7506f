#pragma once
// What the methods written with the metric share (McLachlan–Perlmutter, the discrete gradient,
// SPARK): the state (q, v, p), p = G(q)v (MetricMethodState, which a method may extend), the start
// from (q0, v0), the step (by terms for a locally coupled model, model/local_terms.hpp) and the
// derivative of a step from the method's own equations (metric_method_step_derivative). A method
// derives from MetricMethod<Method, S, State> and gives
//   dense_step(State&), step_by_terms(State&)    its step, in both storages;
//   unknowns_at(s, next)                         its unknowns at the solution of the step s → next;
//   step_equations(q0, v0, p0, x, t0, width)     its equations, generic in the scalar type, with the
//                                                members residual, q1 and p1.
#include "dalembert/model/metric_derivatives.hpp"

namespace dalembert {

template <class Method, HasMetric S, class MethodState = MetricMethodState<S>>
class MetricMethod {
 public:
  using State = MethodState;

  MetricMethod(const S& system, double h, NewtonOptions options) : system_(system), h_(h), options_(options) {}

  double step_size() const { return h_; }
  const S& system() const { return system_; }

  State initial_state(const VecN<S>& q0, const VecN<S>& v0) const {
    State s;
    static_cast<MetricMethodState<S>&>(s) = metric_method_start(system_, q0, v0);
    return s;
  }

  void step(State& s) const {
    if constexpr (SteppedByTerms<S>) {
      method().step_by_terms(s);
    } else {
      method().dense_step(s);
    }
  }

  VecN<S> velocity(const State& s) const { return s.v; }
  const VecN<S>& carried_momentum(const State& s) const { return s.p; }

  /// ∂(q_{k+1}, p_{k+1})/∂(q_k, p_k) of the step from s, with v_k = G(q_k)⁻¹p_k: a 2n × 2n matrix,
  /// rows q_{k+1} then p_{k+1}, columns q_k then p_k, by the implicit-function theorem on the step's
  /// equations at their solution. It takes a step of its own.
  Eigen::MatrixXd step_derivative(const State& s) const
    requires(!SteppedByTerms<S>)
  {
    State next = s;
    step(next);
    const auto equations = [&](const auto& q0, const auto& v0, const auto& p0, const auto& x, int width) {
      return method().step_equations(q0, v0, p0, x, s.t, width);
    };
    return metric_method_step_derivative(system_, s.q, s.p, method().unknowns_at(s, next), equations);
  }

 protected:
  const Method& method() const { return static_cast<const Method&>(*this); }

  S system_;
  double h_;
  NewtonOptions options_;
};

}  // namespace dalembert
