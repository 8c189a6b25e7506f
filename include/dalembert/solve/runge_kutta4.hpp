#pragma once
// One step of the classical fourth-order Runge–Kutta method for a first-order system y' = f(t, y)
// from the time t:
//   k1 = f(t, y),  k2 = f(t + h/2, y + h/2 k1),  k3 = f(t + h/2, y + h/2 k2),  k4 = f(t + h, y + h k3),
//   y ← y + h/6 (k1 + 2 k2 + 2 k3 + k4).
// The library's one RK4: method/rk4.hpp takes it on the first-order field of every kind of system
// (model/first_order_field.hpp), as method/reference.hpp takes solve/bulirsch_stoer.hpp.
#include <utility>

namespace dalembert {

/// `f(t, y)` returns y' as a `Vector` (an Eigen vector of fixed, bounded or dynamic size).
template <class Vector, class VectorField>
void runge_kutta4_step(VectorField&& f, Vector& y, double t, double h) {
  const Vector k1 = f(t, y);
  const Vector k2 = f(t + 0.5 * h, Vector(y + 0.5 * h * k1));
  const Vector k3 = f(t + 0.5 * h, Vector(y + 0.5 * h * k2));
  const Vector k4 = f(t + h, Vector(y + h * k3));
  y += h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
}

}  // namespace dalembert
