#pragma once
// Integrators of the continuous Herglotz(–d'Alembert) equations on TQ × R,
//   q̇ = v,  v̇ = q̈(q, v, z),  ż = L(q, v, z):
// classical RK4 (the non-geometric baseline; solve/runge_kutta4.hpp on y = (q, v, z)) and the
// Bulirsch–Stoer reference ("the truth" for errors where no closed form exists), the contact
// counterparts of rk4.hpp and reference.hpp.
#include "dalembert/discrete/contact_flow.hpp"
#include "dalembert/model/contact.hpp"
#include "dalembert/solve/runge_kutta4.hpp"

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
    constexpr int N = sum_of_sizes(multiple_of_size(2, n), 1);
    constexpr int MaxN = sum_of_sizes(multiple_of_size(2, max_n_of<S>()), 1);
    using Point = Vecd<N, MaxN>;
    const int dn = coordinate_count(system_);
    Point y(2 * dn + 1);
    y << s.q, s.v, s.z;
    runge_kutta4_step(
        [&](double, const Point& x) {  // autonomous
          const VecN<S> q = x.template head<n>(dn), v = x.template segment<n>(dn, dn);
          VecN<S> acceleration(dn);
          double zdot;
          herglotz_vector_field(system_, q, v, x[2 * dn], acceleration, zdot);
          Point rate(2 * dn + 1);
          rate << v, acceleration, zdot;
          return rate;
        },
        y, grid_time(s.k, h_), h_);
    s.q = y.template head<n>(dn);
    s.v = y.template segment<n>(dn, dn);
    s.z = y[2 * dn];
    advance(s, h_);
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
    ContactSegmentOf<S> seg;
    try {
      seg = contact_flow(system_, s.q, s.v, s.z, h_, tolerance_, max_step_substeps);
    } catch (const IntegrationLimit& e) {
      throw SolverError(s.k + 1, grid_time(s.k + 1, h_), reference_limit_message(e));
    }
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
  const auto seg = contact_flow(system, x0.q, x0.v, x0.z, t_end, tolerance, max_step_substeps);
  return {seg.q1, seg.v1, seg.z1};
}

}  // namespace dalembert
