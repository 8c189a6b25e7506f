#pragma once
// Discrete Euler–Lagrange equations (variational integrators, thesis §3.7.1):
//   D2 L_d(q_{k−1}, q_k) + D1 L_d(q_k, q_{k+1}) = 0.
// Position–momentum form: with p_k = D2 L_d(q_{k−1}, q_k), solve p_k + D1 L_d(q_k, q_{k+1}) = 0 for
// q_{k+1} (Newton, Jacobian D12 L_d), then p_{k+1} = D2 L_d(q_k, q_{k+1}).
// A model with an external force gets the forced DEL, with the midpoint discrete forces F_d^±:
// p_k + D1 L_d + F_d^- = 0,  p_{k+1} = D2 L_d + F_d^+.
#include "dalembert/discrete/discrete_force.hpp"
#include "dalembert/discrete/discrete_lagrangian.hpp"
#include "dalembert/model/dynamics.hpp"
#include "dalembert/solve/newton.hpp"

namespace dalembert {

template <Model S, DiscreteLagrangian Ld>
class DiscreteEulerLagrange {
 public:
  static constexpr int n = S::n;
  static_assert(Ld::n == n, "discrete Lagrangian and system must have the same dimension");

  struct State {
    long k = 0;
    double t = 0.0;
    Vecd<n> q;
    Vecd<n> p;               ///< discrete momentum p_k = D2 L_d(q_{k−1}, q_k) = −D1 L_d(q_k, q_{k+1})
    Vecd<n> last_velocity;   ///< (q_k − q_{k−1})/h, the Newton initial guess of the next step
    int iterations = 0;      ///< Newton iterations of the last step
  };

  DiscreteEulerLagrange(const S& system, Ld discrete_lagrangian, NewtonOptions options = {})
      : system_(system), ld_(std::move(discrete_lagrangian)), options_(options) {}

  double step_size() const { return ld_.step_size(); }
  const Ld& discrete_lagrangian() const { return ld_; }

  /// Position–momentum start: p0 = ∂L/∂v(q0, v0).
  State initial_state(const Vecd<n>& q0, const Vecd<n>& v0) const {
    return State{0, 0.0, q0, momentum(system_, q0, v0), v0, 0};
  }

  /// The momentum at q0 of a two-point start, the forced discrete Legendre map
  /// F^{f−}L_d(q0, q1) = −D1 L_d(q0, q1) − F_d^−(q0, q1): the first row's velocity is its.
  Vecd<n> pre_momentum(const Vecd<n>& q0, const Vecd<n>& q1) const {
    Vecd<n> p = -differentiate(ld_, q0, q1).D1;
    if constexpr (HasExternalForce<S>) p -= MidpointForce<S>(system_, step_size())(q0, q1);
    return p;
  }

  /// Two-point start from (q0, q1) as in the papers; the returned state is at k = 1.
  State initial_state_two_point(const Vecd<n>& q0, const Vecd<n>& q1) const {
    const double h = step_size();
    Vecd<n> p1 = differentiate(ld_, q0, q1).D2;
    if constexpr (HasExternalForce<S>) p1 += MidpointForce<S>(system_, h)(q0, q1);
    return State{1, h, q1, p1, (q1 - q0) / h, 0};
  }

  void step(State& s) const {
    const double h = step_size();
    Vecd<n> x = s.q + h * s.last_velocity;
    DiscreteLagrangianDerivatives<n> d;  // of the last evaluation = at the solution
    DiscreteForceDerivatives<n> f;
    const auto evaluate = [&](const Vecd<n>& q1, Vecd<n>& F, Matd<n, n>& J) {
      d = differentiate(ld_, s.q, q1);
      F = s.p + d.D1;
      J = d.D12;
      if constexpr (HasExternalForce<S>) {
        f = differentiate(MidpointForce<S>(system_, h), s.q, q1);
        F += f.value;
        J += f.D2;
      }
    };
    const NewtonReport r = newton_solve<n>(evaluate, x, s.p.template lpNorm<Eigen::Infinity>(), options_);
    if (!r.converged) throw SolverError(s.k + 1, s.t + h, r);
    s.p = d.D2;
    if constexpr (HasExternalForce<S>) s.p += f.value;
    s.last_velocity = (x - s.q) / h;
    s.q = x;
    s.k += 1;
    s.t = static_cast<double>(s.k) * h;  // not accumulated: t_k = k h exactly
    s.iterations = r.iterations;
  }

  /// The velocity of the discrete momentum (inverse Legendre map).
  Vecd<n> velocity(const State& s) const { return velocity_in_distribution(unconstrained(), s.q, s.p); }

 private:
  // DEL ignores constraints: the velocity of p is the plain inverse Legendre map.
  struct Unconstrained {
    static constexpr int n = S::n, m = 0;
    const S* system;
    template <class T>
    T lagrangian(const Vec<T, n>& q, const Vec<T, n>& v) const { return system->template lagrangian<T>(q, v); }
    template <class T>
    Mat<T, 0, n> constraint_matrix(const Vec<T, n>&) const { return {}; }
  };
  Unconstrained unconstrained() const { return Unconstrained{&system_}; }

  S system_;
  Ld ld_;
  NewtonOptions options_;
};

}  // namespace dalembert
