#pragma once
// Integrators of the continuous rigid-body equations ġ = g hat(Ω), Ω' of model/rigid_body.hpp, on
// the embedding R⁹ × R³ (g is orthogonal only up to the truncation error): classical RK4 (the
// non-geometric baseline; solve/runge_kutta4.hpp on y = (g, Ω)) and Boost.Odeint's Bulirsch–Stoer
// with tight tolerances (the reference for error measurements of fim-lie), both sampled at t_k = k h.
#include <array>
#include <stdexcept>
#include <string>

#include <boost/numeric/odeint.hpp>

#include "dalembert/model/rigid_body.hpp"
#include "dalembert/solve/bulirsch_stoer.hpp"
#include "dalembert/solve/newton.hpp"
#include "dalembert/solve/runge_kutta4.hpp"

namespace dalembert {

namespace detail {
using RigidBodyOdeState = std::array<double, 12>;  ///< g row by row, then Ω

template <RigidBodyModel B>
void rigid_body_rhs(const B& body, const RigidBodyOdeState& y, RigidBodyOdeState& dy) {
  const Matd<3, 3> g = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(y.data());
  const Vecd<3> omega(y[9], y[10], y[11]);
  const Eigen::Matrix<double, 3, 3, Eigen::RowMajor> gdot = g * so3::hat(omega);
  const Vecd<3> wdot = rigid_body_acceleration(body, g, omega).omega_dot;
  for (int i = 0; i < 9; ++i) dy[i] = gdot.data()[i];
  for (int i = 0; i < 3; ++i) dy[9 + i] = wdot[i];
}

inline RigidBodyOdeState pack(const Matd<3, 3>& g, const Vecd<3>& omega) {
  RigidBodyOdeState y;
  Eigen::Map<Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(y.data()) = g;
  for (int i = 0; i < 3; ++i) y[9 + i] = omega[i];
  return y;
}
inline void unpack(const RigidBodyOdeState& y, Matd<3, 3>& g, Vecd<3>& omega) {
  g = Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(y.data());
  omega = Vecd<3>(y[9], y[10], y[11]);
}
}  // namespace detail

template <RigidBodyModel B>
class RigidBodyRungeKutta4 {
 public:
  struct State {
    long k = 0;
    double t = 0.0;
    Matd<3, 3> g;
    Vecd<3> omega;
    int iterations = 0;  ///< always 0: explicit
  };

  RigidBodyRungeKutta4(const B& body, double h) : body_(body), h_(h) {}
  double step_size() const { return h_; }

  State initial_state(const Matd<3, 3>& g0, const Vecd<3>& omega0) const { return State{0, 0.0, g0, omega0, 0}; }

  void step(State& s) const {
    using Point = Vecd<12>;
    const detail::RigidBodyOdeState start = detail::pack(s.g, s.omega);
    Point y = Eigen::Map<const Point>(start.data());
    runge_kutta4_step(
        [this](double, const Point& x) {  // autonomous
          detail::RigidBodyOdeState at, rate;
          Eigen::Map<Point>(at.data()) = x;
          detail::rigid_body_rhs(body_, at, rate);
          return Point(Eigen::Map<const Point>(rate.data()));
        },
        y, grid_time(s.k, h_), h_);
    detail::RigidBodyOdeState end;
    Eigen::Map<Point>(end.data()) = y;
    detail::unpack(end, s.g, s.omega);
    advance(s, h_);
  }

  Vecd<3> velocity(const State& s) const { return s.omega; }

 private:
  B body_;
  double h_;
};

template <RigidBodyModel B>
class RigidBodyReference {
 public:
  struct State {
    long k = 0;
    double t = 0.0;
    Matd<3, 3> g;
    Vecd<3> omega;
    int iterations = 0;
    double substep = 0.0;  ///< inner step-size suggestion carried between output intervals
  };

  RigidBodyReference(const B& body, double h, double tolerance = 1e-13) : body_(body), h_(h), tolerance_(tolerance) {}
  double step_size() const { return h_; }

  State initial_state(const Matd<3, 3>& g0, const Vecd<3>& omega0) const {
    return State{0, 0.0, g0, omega0, 0, h_ / 8};
  }

  void step(State& s) const {
    auto y = detail::pack(s.g, s.omega);
    const auto rhs = [this](const detail::RigidBodyOdeState& x, detail::RigidBodyOdeState& dx, double) {
      detail::rigid_body_rhs(body_, x, dx);
    };
    try {
      bulirsch_stoer_interval(rhs, y, grid_time(s.k, h_), grid_time(s.k + 1, h_), tolerance_, s.substep,
                              max_step_substeps);
    } catch (const IntegrationLimit& e) {
      throw SolverError(s.k + 1, grid_time(s.k + 1, h_), reference_limit_message(e));
    }
    detail::unpack(y, s.g, s.omega);
    advance(s, h_);
  }

  Vecd<3> velocity(const State& s) const { return s.omega; }

 private:
  B body_;
  double h_, tolerance_;
};

/// The reference solution at t_end from (g0, Ω0).
template <RigidBodyModel B>
RigidBodyPoint rigid_body_reference_solution(const B& body, const RigidBodyPoint& x0, double t_end,
                                             double tolerance = 1e-13) {
  const RigidBodyReference<B> solver(body, t_end, tolerance);
  auto s = solver.initial_state(x0.g, x0.omega);
  solver.step(s);
  return {s.g, s.omega};
}

}  // namespace dalembert
