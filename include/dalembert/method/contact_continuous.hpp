#pragma once
// Integrators of the continuous Herglotz(–d'Alembert) equations on TQ × R,
//   q̇ = v,  v̇ = q̈(q, v, z),  ż = L(q, v, z):
// classical RK4 (the non-geometric baseline) and the Bulirsch–Stoer reference ("the truth" for
// errors where no closed form exists), the contact counterparts of rk4.hpp and reference.hpp.
#include "dalembert/discrete/contact_flow.hpp"
#include "dalembert/model/contact.hpp"

namespace dalembert {

template <ContactModel S>
class ContactRungeKutta4 {
 public:
  static constexpr int n = S::n;
  struct State {
    long k = 0;
    double t = 0.0;
    VecN<S> q;
    VecN<S> v;
    double z = 0.0;
    int iterations = 0;  ///< always 0: explicit method
  };

  ContactRungeKutta4(const S& system, double h) : system_(system), h_(h) {}
  double step_size() const { return h_; }

  State initial_state(const VecN<S>& q0, const VecN<S>& v0, double z0) const { return State{0, 0.0, q0, v0, z0, 0}; }

  void step(State& s) const {
    struct Rate {
      VecN<S> q, v;
      double z;
    };
    const auto f = [&](const VecN<S>& q, const VecN<S>& v, double z) {
      Rate r{v, VecN<S>(), 0.0};
      herglotz_vector_field(system_, q, v, z, r.v, r.z);
      return r;
    };
    const double h = h_;
    const Rate k1 = f(s.q, s.v, s.z);
    const Rate k2 = f(s.q + 0.5 * h * k1.q, s.v + 0.5 * h * k1.v, s.z + 0.5 * h * k1.z);
    const Rate k3 = f(s.q + 0.5 * h * k2.q, s.v + 0.5 * h * k2.v, s.z + 0.5 * h * k2.z);
    const Rate k4 = f(s.q + h * k3.q, s.v + h * k3.v, s.z + h * k3.z);
    s.q += h / 6.0 * (k1.q + 2.0 * k2.q + 2.0 * k3.q + k4.q);
    s.v += h / 6.0 * (k1.v + 2.0 * k2.v + 2.0 * k3.v + k4.v);
    s.z += h / 6.0 * (k1.z + 2.0 * k2.z + 2.0 * k3.z + k4.z);
    advance(s, h);
  }

  VecN<S> velocity(const State& s) const { return s.v; }

 private:
  S system_;
  double h_;
};

template <ContactModel S>
class ContactReferenceSolver {
 public:
  static constexpr int n = S::n;
  struct State {
    long k = 0;
    double t = 0.0;
    VecN<S> q;
    VecN<S> v;
    double z = 0.0;
    int iterations = 0;  ///< always 0: explicit
  };

  ContactReferenceSolver(const S& system, double h, double tolerance = 1e-13)
      : system_(system), h_(h), tolerance_(tolerance) {}
  double step_size() const { return h_; }

  State initial_state(const VecN<S>& q0, const VecN<S>& v0, double z0) const { return State{0, 0.0, q0, v0, z0, 0}; }

  void step(State& s) const {
    const auto seg = contact_flow(system_, s.q, s.v, s.z, h_, tolerance_);
    s.q = seg.q1;
    s.v = seg.v1;
    s.z = seg.z1;
    advance(s, h_);
  }

  VecN<S> velocity(const State& s) const { return s.v; }

 private:
  S system_;
  double h_;
  double tolerance_;
};

/// The reference solution (q, v, z) at t_end from (q0, v0, z0).
template <ContactModel S>
ContactPointOf<S> contact_reference_solution(const S& system, const ContactPointOf<S>& x0, double t_end,
                                              double tolerance = 1e-13) {
  const auto seg = contact_flow(system, x0.q, x0.v, x0.z, t_end, tolerance);
  return {seg.q1, seg.v1, seg.z1};
}

}  // namespace dalembert
