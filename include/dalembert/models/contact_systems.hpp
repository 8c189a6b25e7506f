#pragma once
// Contact (Herglotz) examples of [AS21] §8.3, with closed forms:
//   contact-particle        L = ½ q̇² + γ z                          (Ex. 8.3.1)
//   damped-oscillator       L = ½ q̇² − ½ q² + γ z                   (Ex. 8.3.2)
//   damped-oscillator-2d    L = ½|v|² − ½ k|q|² − ¼ c|q|⁴ + γ z     (rotation invariant, of the form of §8.3)
// γ < 0 dissipates: the energy E_L = ½|v|² + V − γ z obeys E(t) = E(0) e^{γt} exactly.
// Default data follow the thesis' figures 8.1–8.2: q0 = 1, z0 = 0, γ = −0.05 (the figures start
// from q1 = 2 with h = 0.5: `--q1 2 --h 0.5`); the default velocity is 2.
#include <cmath>

#include "dalembert/model/contact.hpp"
#include "dalembert/models/contact_entry.hpp"

namespace dalembert::models {

namespace detail {

/// (e^{γt} − 1)/γ, with its limit t at γ = 0.
inline double expm1_over(double gamma, double t) { return gamma == 0.0 ? t : std::expm1(gamma * t) / gamma; }

/// One coordinate of the damped oscillator q̈ = γ q̇ − k q (underdamped, γ² < 4k): position,
/// velocity and ∫_0^t e^{−γs} (½ q̇² − ½ k q²) ds, the part of z it contributes to
/// z(t) = e^{γt} (z0 + ∫_0^t e^{−γs} L0 ds).
struct OscillatorComponent {
  double q, v, integral;
};

inline OscillatorComponent damped_oscillator_component(double q0, double v0, double gamma, double k, double t) {
  const double a = 0.5 * gamma, w = std::sqrt(k - a * a);
  const double A = q0, B = (v0 - a * q0) / w;  // q = e^{at}(A cos wt + B sin wt)
  const double P = v0, Q = a * B - w * A;      // q̇ = e^{at}(P cos wt + Q sin wt)
  const double c = std::cos(w * t), s = std::sin(w * t), e = std::exp(a * t);
  // e^{−γs} L0 = c0 + c1 cos 2ws + c2 sin 2ws
  const double c0 = 0.25 * (P * P - k * A * A + Q * Q - k * B * B);
  const double c1 = 0.25 * (P * P - k * A * A - Q * Q + k * B * B);
  const double c2 = 0.5 * (P * Q - k * A * B);
  const double integral = c0 * t + c1 * std::sin(2 * w * t) / (2 * w) + c2 * (1 - std::cos(2 * w * t)) / (2 * w);
  return {e * (A * c + B * s), e * (P * c + Q * s), integral};
}

}  // namespace detail

struct ContactParticle : LinearContact<ContactParticle, 1> {
  static constexpr int n = 1;
  static constexpr std::string_view name = "contact-particle";
  static constexpr std::string_view summary =
      "contact free particle (thesis Ex. 8.3.1): L = q'^2/2 + gamma z, q'' = gamma q'";
  static constexpr std::array<std::string_view, n> coordinates = {"q"};

  double gamma = -0.05;

  static auto parameters() {
    return std::array{Parameter<ContactParticle>{"gamma", &ContactParticle::gamma, "damping coefficient of L = ... + gamma z"}};
  }
  template <class T>
  T base_lagrangian(const Vec<T, 1>&, const Vec<T, 1>& v) const {
    return 0.5 * v[0] * v[0];
  }

  ContactPoint<1> default_initial() const { return {Vecd<1>(1.0), Vecd<1>(2.0), 0.0}; }

  /// q̇ = v0 e^{γt}, q = q0 + v0 (e^{γt} − 1)/γ, z = e^{γt} (z0 + v0² (e^{γt} − 1)/(2γ)).
  std::optional<ContactPoint<1>> exact_solution(const ContactPoint<1>& x0, double t) const {
    const double v0 = x0.v[0], e = std::exp(gamma * t), f = detail::expm1_over(gamma, t);
    return ContactPoint<1>{Vecd<1>(x0.q[0] + v0 * f), Vecd<1>(v0 * e), e * (x0.z + 0.5 * v0 * v0 * f)};
  }

  /// The exact discrete Lagrangian (8.3.2) with the sign of its z0 term corrected (the thesis prints −z0(e^{γh} − 1)):
  /// L^e = γ (q1 − q0)² e^{γh} / (2 (e^{γh} − 1)) + z0 (e^{γh} − 1).
  double exact_discrete_lagrangian(double q0, double q1, double z0, double h) const {
    const double e = std::exp(gamma * h), dq = q1 - q0;
    return dq * dq * e / (2 * detail::expm1_over(gamma, h)) + z0 * std::expm1(gamma * h);
  }
};

struct DampedOscillator : LinearContact<DampedOscillator, 1> {
  static constexpr int n = 1;
  static constexpr std::string_view name = "damped-oscillator";
  static constexpr std::string_view summary =
      "contact damped harmonic oscillator (thesis Ex. 8.3.2): L = q'^2/2 - q^2/2 + gamma z, q'' = gamma q' - q";
  static constexpr std::array<std::string_view, n> coordinates = {"q"};

  double gamma = -0.05;

  static auto parameters() {
    return std::array{Parameter<DampedOscillator>{"gamma", &DampedOscillator::gamma, "damping coefficient of L = ... + gamma z"}};
  }
  template <class T>
  T base_lagrangian(const Vec<T, 1>& q, const Vec<T, 1>& v) const {
    return 0.5 * (v[0] * v[0] - q[0] * q[0]);
  }

  ContactPoint<1> default_initial() const { return {Vecd<1>(1.0), Vecd<1>(2.0), 0.0}; }

  /// Underdamped closed form (γ² < 4); none otherwise.
  std::optional<ContactPoint<1>> exact_solution(const ContactPoint<1>& x0, double t) const {
    if (!(gamma * gamma < 4.0)) return std::nullopt;
    const auto c = detail::damped_oscillator_component(x0.q[0], x0.v[0], gamma, 1.0, t);
    return ContactPoint<1>{Vecd<1>(c.q), Vecd<1>(c.v), std::exp(gamma * t) * (x0.z + c.integral)};
  }
};

struct DampedOscillator2D : LinearContact<DampedOscillator2D, 2> {
  static constexpr int n = 2;
  static constexpr std::string_view name = "damped-oscillator-2d";
  static constexpr std::string_view summary =
      "damped isotropic oscillator in the plane: L = |v|^2/2 - k |q|^2/2 - c |q|^4/4 + gamma z "
      "(rotation invariant: the angular momentum decays like the energy)";
  static constexpr std::array<std::string_view, n> coordinates = {"x", "y"};

  double gamma = -0.05;
  double stiffness = 1.0;  ///< k
  double quartic = 0.0;    ///< c

  static auto parameters() {
    return std::array{
        Parameter<DampedOscillator2D>{"gamma", &DampedOscillator2D::gamma, "damping coefficient of L = ... + gamma z"},
        Parameter<DampedOscillator2D>{"k", &DampedOscillator2D::stiffness, "stiffness of the isotropic spring"},
        Parameter<DampedOscillator2D>{"c", &DampedOscillator2D::quartic, "coefficient of the quartic potential c |q|^4 / 4"}};
  }
  template <class T>
  T base_lagrangian(const Vec<T, 2>& q, const Vec<T, 2>& v) const {
    const T r2 = q.squaredNorm();
    return 0.5 * v.squaredNorm() - 0.5 * stiffness * r2 - 0.25 * quartic * r2 * r2;
  }

  ContactPoint<2> default_initial() const { return {Vecd<2>(1.0, 0.0), Vecd<2>(0.0, 0.8), 0.0}; }

  /// Closed form for the linear spring (c = 0, γ² < 4k): each coordinate is a damped oscillator.
  std::optional<ContactPoint<2>> exact_solution(const ContactPoint<2>& x0, double t) const {
    if (quartic != 0.0 || !(stiffness > 0.0) || !(gamma * gamma < 4.0 * stiffness)) return std::nullopt;
    const auto a = detail::damped_oscillator_component(x0.q[0], x0.v[0], gamma, stiffness, t);
    const auto b = detail::damped_oscillator_component(x0.q[1], x0.v[1], gamma, stiffness, t);
    return ContactPoint<2>{Vecd<2>(a.q, b.q), Vecd<2>(a.v, b.v), std::exp(gamma * t) * (x0.z + a.integral + b.integral)};
  }
};

}  // namespace dalembert::models
