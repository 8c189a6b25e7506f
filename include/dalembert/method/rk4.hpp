#pragma once
// Classical fourth-order Runge–Kutta on the continuous Lagrange–d'Alembert equations
// q̇ = v, v̇ = q̈(q, v) (multiplier extension): the non-geometric baseline the papers compare with.
#include "dalembert/model/dynamics.hpp"

namespace dalembert {

template <Model S>
class RungeKutta4 {
 public:
  static constexpr int n = S::n;
  struct State {
    long k = 0;
    double t = 0.0;
    VecN<S> q;
    VecN<S> v;
    int iterations = 0;  ///< always 0: explicit method
  };

  RungeKutta4(const S& system, double h) : system_(system), h_(h) {}
  double step_size() const { return h_; }

  State initial_state(const VecN<S>& q0, const VecN<S>& v0) const { return State{0, 0.0, q0, v0, 0}; }

  void step(State& s) const {
    const auto a = [&](const VecN<S>& q, const VecN<S>& v) { return acceleration(system_, q, v); };
    const VecN<S> k1q = s.v, k1v = a(s.q, s.v);
    const VecN<S> k2q = s.v + 0.5 * h_ * k1v, k2v = a(s.q + 0.5 * h_ * k1q, k2q);
    const VecN<S> k3q = s.v + 0.5 * h_ * k2v, k3v = a(s.q + 0.5 * h_ * k2q, k3q);
    const VecN<S> k4q = s.v + h_ * k3v, k4v = a(s.q + h_ * k3q, k4q);
    s.q += h_ / 6.0 * (k1q + 2.0 * k2q + 2.0 * k3q + k4q);
    s.v += h_ / 6.0 * (k1v + 2.0 * k2v + 2.0 * k3v + k4v);
    advance(s, h_);
  }

  VecN<S> velocity(const State& s) const { return s.v; }

 private:
  S system_;
  double h_;
};

}  // namespace dalembert
