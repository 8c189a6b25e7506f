#pragma once
// Classical fourth-order Runge–Kutta on the continuous Lagrange–d'Alembert equations
// q̇ = v, v̇ = q̈(q, v, t) (multiplier extension): the non-geometric baseline the papers compare with.
// The step is solve/runge_kutta4.hpp on y = (q, v).
#include "dalembert/model/dynamics.hpp"
#include "dalembert/solve/runge_kutta4.hpp"

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
    using Phase = Vecd<multiple_of_size(2, n), multiple_of_size(2, max_n_of<S>())>;
    const int dn = coordinate_count(system_);
    Phase y(2 * dn);
    y << s.q, s.v;
    runge_kutta4_step(
        [&](double t, const Phase& x) {
          const VecN<S> q = x.template head<n>(dn), v = x.template segment<n>(dn, dn);
          Phase rate(2 * dn);
          rate << v, acceleration(system_, q, v, t);
          return rate;
        },
        y, grid_time(s.k, h_), h_);
    s.q = y.template head<n>(dn);
    s.v = y.template segment<n>(dn, dn);
    advance(s, h_);
  }

  VecN<S> velocity(const State& s) const { return s.v; }

 private:
  S system_;
  double h_;
};

}  // namespace dalembert
