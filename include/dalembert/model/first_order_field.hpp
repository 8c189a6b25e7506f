#pragma once
// The motion of each kind of system as one first-order field y' = f(t, y) on a phase vector y: the
// one thing the continuous methods, RK4 (method/rk4.hpp) and the reference solver
// (method/reference.hpp), ask of a kind.
//   mechanical    y = (q, v):     q̇ = v, v̇ = q̈(q, v, t), the multiplier extension (model/dynamics.hpp)
//   second order  y = (q, v):     q̇ = v, v̇ = a(q, v) with Φ(q, v, a) = 0 and Bᵀ D_EL L = 0
//                                 (solve_acceleration, model/second_order.hpp)
//   contact       y = (q, v, z):  q̇ = v, v̇ = q̈(q, v, z), ż = L(q, v, z) (model/contact.hpp)
//   rigid body    y = (g, Ω):     ġ = g hat(Ω), Ω̇ of model/rigid_body.hpp, g row by row in R⁹
// A field names its phase point (what a method's state holds) and the size of y, and reads and
// writes y through plain arrays, so that RK4 may keep y in an Eigen vector and Bulirsch–Stoer in
// Odeint's state type.
#include <concepts>

#include "dalembert/model/constraint_projection.hpp"
#include "dalembert/model/contact.hpp"
#include "dalembert/model/dynamics.hpp"
#include "dalembert/model/rigid_body.hpp"
#include "dalembert/model/second_order.hpp"
#include "dalembert/solve/newton.hpp"

namespace dalembert {

template <class F>
concept FirstOrderField = requires(const F& f, const typename F::Point& x, const double* y, double* dy, double t) {
  typename F::System;
  typename F::Point;
  { F::dimension } -> std::convertible_to<int>;      ///< the size of y, or Dynamic
  { F::max_dimension } -> std::convertible_to<int>;  ///< its bound
  { f.size() } -> std::same_as<int>;
  f.pack(x, dy);
  { f.unpack(y) } -> std::same_as<typename F::Point>;
  f.rate(t, y, dy);  ///< dy = f(t, y); dy does not alias y
  f.velocity(x);
};

namespace detail {
/// y[offset, offset + n) as a vector of the model's size.
template <class S>
auto phase_block(const double* y, int offset, int n) {
  return Eigen::Map<const Vec<double, S::n>>(y + offset, n);
}
template <class S>
auto phase_block(double* y, int offset, int n) {
  return Eigen::Map<Vec<double, S::n>>(y + offset, n);
}
}  // namespace detail

/// A continuous method's state: the phase point, and where it is on the grid.
template <class Point>
struct ContinuousState : Point, OnTheGrid {};

/// The state at t = 0 of the phase point with the parts x0: (q0, v0), (q0, v0, z0) or (g0, Ω0).
template <class State, class Point, class... Parts>
State state_at_start(const Parts&... x0) {
  State s;
  static_cast<Point&>(s) = Point{x0...};
  return s;
}

/// The phase vector y = (q, v) of the mechanical and second-order fields.
template <class S>
struct PositionVelocity {
  using System = S;
  using Point = PhasePointOf<S>;
  static constexpr int dimension = multiple_of_size(2, S::n), max_dimension = multiple_of_size(2, max_n_of<S>());
  S system;

  int size() const { return 2 * coordinate_count(system); }
  void pack(const Point& x, double* y) const {
    const int n = coordinate_count(system);
    detail::phase_block<S>(y, 0, n) = x.q;
    detail::phase_block<S>(y, n, n) = x.v;
  }
  Point unpack(const double* y) const {
    const int n = coordinate_count(system);
    return {detail::phase_block<S>(y, 0, n), detail::phase_block<S>(y, n, n)};
  }
  const VecN<S>& velocity(const Point& x) const { return x.v; }
};

/// q̇ = v, v̇ = q̈(q, v, t) of a Lagrange–d'Alembert model.
template <Model S>
struct MechanicalField : PositionVelocity<S> {
  void rate(double t, const double* y, double* dy) const {
    const int n = coordinate_count(this->system);
    const VecN<S> q = detail::phase_block<S>(y, 0, n), v = detail::phase_block<S>(y, n, n);
    detail::phase_block<S>(dy, 0, n) = v;
    detail::phase_block<S>(dy, n, n) = acceleration(this->system, q, v, t);
  }
  /// rate(t, y, dy), returning the power of the forces there: the integrand of the work W.
  double rate_and_power(double t, const double* y, double* dy) const
    requires HasExternalForce<S> || MayHaveAffineConstraints<S>
  {
    const int n = coordinate_count(this->system);
    const VecN<S> q = detail::phase_block<S>(y, 0, n), v = detail::phase_block<S>(y, n, n);
    const auto a = constrained_acceleration(this->system, q, v, t);
    detail::phase_block<S>(dy, 0, n) = v;
    detail::phase_block<S>(dy, n, n) = a.acceleration;
    return power_of_forces(this->system, q, v, t, &a.multiplier);
  }
  /// The new state of step `step` of a continuous method, at the time t, back onto the holonomic
  /// and velocity constraints (model/constraint_projection.hpp), for a model that may have
  /// holonomic ones. Positions that Newton does not bring to φ = 0 (its last correction above
  /// √ε (1 + |q|): not a round-off that lingers) are a SolverError of the step.
  void project(long step, double t, PhasePointOf<S>& x) const
    requires MayHaveHolonomicConstraints<S>
  {
    if (project_onto_constraints(this->system, x.q, x.v, t) > 0x1p-26) {
      const double phi = this->system.template holonomic_values<double>(x.q, t).template lpNorm<Eigen::Infinity>();
      throw SolverError(step, t,
                        NewtonReport{false, max_projection_iterations, phi,
                                     "the projection onto the holonomic constraints phi(q, t) = 0 did not converge "
                                     "(choose a smaller h)"});
    }
  }
};

/// A field whose continuous methods project their new states (MechanicalField::project).
template <class F>
concept ProjectsOntoConstraints = requires(const F& f, typename F::Point& x) { f.project(0L, 0.0, x); };

/// A field whose forces may do work (MechanicalField::rate_and_power), which rk4 and the reference
/// solver integrate with the motion where they do (forces_do_work, model/dynamics.hpp).
template <class F>
concept MayDoWork = requires(const F& f, const double* y, double* dy) {
  { f.rate_and_power(0.0, y, dy) } -> std::convertible_to<double>;
};

/// q̇ = v, v̇ = a(q, v) of a second-order constrained system, the acceleration solved at every
/// evaluation; a failure of that solve is a SolverError (of step 0: the method names its step).
template <SecondOrderSystem S>
struct SecondOrderField : PositionVelocity<S> {
  void rate(double, const double* y, double* dy) const {  // autonomous
    const int n = coordinate_count(this->system);
    const VecN<S> q = detail::phase_block<S>(y, 0, n), v = detail::phase_block<S>(y, n, n);
    VecN<S> a;
    NewtonReport r = solve_acceleration(this->system, q, v, a);
    if (!r.converged) {
      r.reason = "the constraint equations cannot be solved for the acceleration (" + r.reason + ")";
      throw SolverError(0, 0.0, r);
    }
    detail::phase_block<S>(dy, 0, n) = v;
    detail::phase_block<S>(dy, n, n) = a;
  }
  VecN<S> acceleration(const PhasePointOf<S>& x) const { return second_order_acceleration(this->system, x.q, x.v); }
};

/// q̇ = v, v̇ = q̈(q, v, z), ż = L(q, v, z): the Herglotz(–d'Alembert) equations on TQ × R.
template <ContactModel S>
struct ContactField {
  using System = S;
  using Point = ContactPointOf<S>;
  static constexpr int dimension = sum_of_sizes(multiple_of_size(2, S::n), 1);
  static constexpr int max_dimension = sum_of_sizes(multiple_of_size(2, max_n_of<S>()), 1);
  S system;

  int size() const { return 2 * coordinate_count(system) + 1; }
  void pack(const Point& x, double* y) const {
    const int n = coordinate_count(system);
    detail::phase_block<S>(y, 0, n) = x.q;
    detail::phase_block<S>(y, n, n) = x.v;
    y[2 * n] = x.z;
  }
  Point unpack(const double* y) const {
    const int n = coordinate_count(system);
    return {detail::phase_block<S>(y, 0, n), detail::phase_block<S>(y, n, n), y[2 * n]};
  }
  void rate(double, const double* y, double* dy) const {  // autonomous
    const int n = coordinate_count(system);
    const VecN<S> q = detail::phase_block<S>(y, 0, n), v = detail::phase_block<S>(y, n, n);
    VecN<S> a(n);
    herglotz_vector_field(system, q, v, y[2 * n], a, dy[2 * n]);
    detail::phase_block<S>(dy, 0, n) = v;
    detail::phase_block<S>(dy, n, n) = a;
  }
  const VecN<S>& velocity(const Point& x) const { return x.v; }
};

/// ġ = g hat(Ω), Ω̇ of the rigid body, on the embedding R⁹ × R³ (g is orthogonal only up to the
/// truncation error of the method).
template <RigidBodyModel B>
struct RigidBodyField {
  using System = B;
  using Point = RigidBodyPoint;
  using Attitude = Eigen::Matrix<double, 3, 3, Eigen::RowMajor>;
  static constexpr int dimension = 12, max_dimension = 12;
  B system;

  int size() const { return 12; }
  void pack(const Point& x, double* y) const {
    Eigen::Map<Attitude>{y} = x.g;
    Eigen::Map<Vecd<3>>{y + 9} = x.omega;
  }
  Point unpack(const double* y) const { return {Eigen::Map<const Attitude>(y), Eigen::Map<const Vecd<3>>(y + 9)}; }
  void rate(double, const double* y, double* dy) const {  // autonomous
    const Matd<3, 3> g = Eigen::Map<const Attitude>(y);
    const Vecd<3> omega(y[9], y[10], y[11]);
    Eigen::Map<Attitude>{dy} = g * so3::hat(omega);
    Eigen::Map<Vecd<3>>{dy + 9} = rigid_body_acceleration(system, g, omega).omega_dot;
  }
  const Vecd<3>& velocity(const Point& x) const { return x.omega; }
};

namespace detail {
// Declared only, for FieldOf's decltype: overload resolution picks the system's kind, and a system of
// two kinds is ambiguous, of none unmatched (both compile errors).
template <Model S>
MechanicalField<S> field_of();
template <SecondOrderSystem S>
SecondOrderField<S> field_of();
template <ContactModel S>
ContactField<S> field_of();
template <RigidBodyModel B>
RigidBodyField<B> field_of();
}  // namespace detail

/// The first-order field of a system of any kind: what makes RK4 and the reference solver one name
/// each over every kind (RungeKutta4<S>, ReferenceSolver<S>).
template <class S>
using FieldOf = decltype(detail::field_of<S>());

}  // namespace dalembert
