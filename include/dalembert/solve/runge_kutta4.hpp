#pragma once
// One step of the classical fourth-order Runge–Kutta method for a first-order system y' = f(t, y)
// from the time t:
//   k1 = f(t, y),  k2 = f(t + h/2, y + h/2 k1),  k3 = f(t + h/2, y + h/2 k2),  k4 = f(t + h, y + h k3),
//   y ← y + h/6 (k1 + 2 k2 + 2 k3 + k4).
// The library's one RK4: method/rk4.hpp takes it on the first-order field of every kind of system
// (model/first_order_field.hpp), as method/reference.hpp takes solve/bulirsch_stoer.hpp.
#include <utility>

#include <Eigen/Core>

namespace dalembert {

/// `f(t, y)` returns y' as a `Vector` (an Eigen vector of fixed, bounded or dynamic size). The stages
/// are combined entry by entry, not as Eigen expressions: a field writes its rate an entry at a
/// time, and Eigen's vectorised expressions read it back in pairs at once, which waits on store
/// forwarding (docs/decisions.md, *The constrained acceleration of a mechanical model*). Each entry
/// is the expression's, operation for operation.
template <class Vector, class VectorField>
void runge_kutta4_step(VectorField&& f, Vector& y, double t, double h) {
  const Eigen::Index n = y.size();
  Vector x(n);
  const Vector k1 = f(t, y);
  for (Eigen::Index i = 0; i < n; ++i) x[i] = y[i] + 0.5 * h * k1[i];
  const Vector k2 = f(t + 0.5 * h, x);
  for (Eigen::Index i = 0; i < n; ++i) x[i] = y[i] + 0.5 * h * k2[i];
  const Vector k3 = f(t + 0.5 * h, x);
  for (Eigen::Index i = 0; i < n; ++i) x[i] = y[i] + h * k3[i];
  const Vector k4 = f(t + h, x);
  for (Eigen::Index i = 0; i < n; ++i) y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
}

}  // namespace dalembert
