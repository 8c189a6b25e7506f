#pragma once
// One step of the classical fourth-order Runge–Kutta method for an autonomous first-order system
// y' = f(y):
//   k1 = f(y),  k2 = f(y + h/2 k1),  k3 = f(y + h/2 k2),  k4 = f(y + h k3),
//   y ← y + h/6 (k1 + 2 k2 + 2 k3 + k4).
// The library's one RK4: the continuous methods of every kind of system write their equations as
// such an f on a state vector (rk4.hpp: y = (q, v); contact_continuous.hpp: (q, v, z);
// rigid_body_continuous.hpp: (g, Ω)), as the reference solvers share solve/bulirsch_stoer.hpp.
#include <utility>

namespace dalembert {

/// `f(y)` returns y' as a `Vector` (an Eigen vector of fixed, bounded or dynamic size).
template <class Vector, class VectorField>
void runge_kutta4_step(VectorField&& f, Vector& y, double h) {
  const Vector k1 = f(y);
  const Vector k2 = f(Vector(y + 0.5 * h * k1));
  const Vector k3 = f(Vector(y + 0.5 * h * k2));
  const Vector k4 = f(Vector(y + h * k3));
  y += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
}

}  // namespace dalembert
