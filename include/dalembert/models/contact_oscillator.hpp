#pragma once
// The nonlinear contact oscillator of McLachlan and Perlmutter (J. Nonlinear Sci. 16 (2006), §5.2),
// a unit mass in R³ with the constraint dx + y dz = 0:
//   L = ½|v|² − V(q),   V = ½(x² + y² + z²) + ε x² z² / 2,   ẋ + y ż = 0.
// Besides the energy, ½(x² + (1 + ε x²) z² + (1 + y²) ż²) = E − ½(y² + ẏ²) is conserved. The map
// v → −v is a reversing symmetry of the motion.
//
// Its non-reversible variant adds the gauge term sin(z) ż = −d/dt cos z to L (Modin and Verdier,
// Numer. Math. 145 (2020), as odelab writes it): the motion in (q, v) is the same, but the momentum
// p = v + sin(z) e_z no longer changes sign under v → −v, and a discretisation of L sees the term.
#include <cmath>

#include "dalembert/model/model.hpp"
#include "dalembert/models/catalogue_entry.hpp"

namespace dalembert::models {

namespace detail {
template <class T>
T contact_oscillator_potential(const Vec<T, 3>& q, double eps) {
  return 0.5 * q.squaredNorm() + 0.5 * eps * q[0] * q[0] * q[2] * q[2];
}
template <class T>
Mat<T, 1, 3> contact_oscillator_constraint(const Vec<T, 3>& q) {
  Mat<T, 1, 3> M;
  M << T(1.0), T(0.0), q[1];
  return M;
}
/// odelab's `initial_sin`: z0 = 0.1√2, ẏ0 = 1, E = 1.5 and ½(y² + ẏ²) = ½ (x0 solves the energy).
inline PhasePoint<3> contact_oscillator_initial() {
  return {Vecd<3>(1.4029222554620677, 0.0, 0.14142135623730953), Vecd<3>(0.0, 1.0, 0.0)};
}
}  // namespace detail

struct ContactOscillator : Mechanical<ContactOscillator, 3> {
  static constexpr int n = 3;
  static constexpr int m = 1;
  static constexpr std::string_view name = "contact-oscillator";
  static constexpr std::string_view summary = "nonlinear contact oscillator, dx + y dz = 0 (McLachlan-Perlmutter 5.2)";
  static constexpr std::array<std::string_view, n> coordinates = {"x", "y", "z"};

  double eps = 0.3;  ///< ε of the coupling ε x² z² / 2

  static auto parameters() {
    return std::array{Parameter<ContactOscillator>{"eps", &ContactOscillator::eps,
                                                   "coefficient of the coupling eps x^2 z^2 / 2 in V"}};
  }

  template <class T>
  Eigen::DiagonalMatrix<double, 3> metric(const Vec<T, 3>&) const {
    return Eigen::DiagonalMatrix<double, 3>(1.0, 1.0, 1.0);
  }
  template <class T>
  T potential(const Vec<T, 3>& q) const {
    return detail::contact_oscillator_potential(q, eps);
  }
  template <class T>
  Mat<T, 1, 3> constraint_matrix(const Vec<T, 3>& q) const {
    return detail::contact_oscillator_constraint(q);
  }
  PhasePoint<3> default_initial() const { return detail::contact_oscillator_initial(); }
  std::optional<PhasePoint<3>> exact_solution(const PhasePoint<3>&, double) const { return std::nullopt; }
};

/// The same motion from L + sin(z) ż: a general Lagrangian, so the methods written with a metric
/// (mclachlan-perlmutter, discrete-gradient, spark, fim) do not run on it.
struct NonReversibleContactOscillator {
  static constexpr int n = 3;
  static constexpr int m = 1;
  static constexpr std::string_view name = "non-reversible-contact-oscillator";
  static constexpr std::string_view summary =
      "contact oscillator with the gauge term sin(z) z' (Modin-Verdier's non-reversible case)";
  static constexpr std::array<std::string_view, n> coordinates = {"x", "y", "z"};

  double eps = 0.3;

  static auto parameters() {
    return std::array{Parameter<NonReversibleContactOscillator>{"eps", &NonReversibleContactOscillator::eps,
                                                                "coefficient of the coupling eps x^2 z^2 / 2 in V"}};
  }

  template <class T>
  T lagrangian(const Vec<T, 3>& q, const Vec<T, 3>& v) const {
    using std::sin;
    return 0.5 * v.squaredNorm() + sin(q[2]) * v[2] - detail::contact_oscillator_potential(q, eps);
  }
  template <class T>
  Mat<T, 1, 3> constraint_matrix(const Vec<T, 3>& q) const {
    return detail::contact_oscillator_constraint(q);
  }
  PhasePoint<3> default_initial() const { return detail::contact_oscillator_initial(); }
  std::optional<PhasePoint<3>> exact_solution(const PhasePoint<3>&, double) const { return std::nullopt; }
};

}  // namespace dalembert::models
