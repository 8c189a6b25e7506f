#pragma once
// The knife edge on an inclined plane with linear (Herglotz) damping: contact and nonholonomic
// together,
//   L = ½ m (ẋ² + ẏ²) + ½ J φ̇² + m g x + γ z,   constraint sin φ ẋ − cos φ ẏ = 0.
// The Herglotz–d'Alembert equations give J φ̈ = γ J φ̇ and, for the blade speed
// s = ẋ cos φ + ẏ sin φ, ṡ = g cos φ + γ s; the energy E_L = ½ m s² + ½ J φ̇² − m g x − γ z obeys
// E(t) = E(0) e^{γt}. γ = 0 is the knife edge of thesis Ex. 7.5.2 (m = J = 1, g = ½).
#include <cmath>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/model/contact.hpp"
#include "dalembert/models/contact_entry.hpp"

namespace dalembert::models {

struct DampedKnifeEdge : LinearContact<DampedKnifeEdge, 3> {
  static constexpr int n = 3;
  static constexpr int m = 1;
  static constexpr std::string_view name = "damped-knife-edge";
  static constexpr std::string_view summary =
      "knife edge on an inclined plane with damping: L = m/2 (x'^2 + y'^2) + J/2 phi'^2 + m g x + gamma z, "
      "blade along (cos phi, sin phi)";
  static constexpr std::array<std::string_view, n> coordinates = {"x", "y", "phi"};

  double mass = 1.0;
  double inertia = 1.0;
  double slope = 0.5;  ///< g
  double gamma = -0.05;

  static auto parameters() {
    return std::array{
        Parameter<DampedKnifeEdge>{"m", &DampedKnifeEdge::mass, "mass"},
        Parameter<DampedKnifeEdge>{"J", &DampedKnifeEdge::inertia, "moment of inertia about the vertical axis"},
        Parameter<DampedKnifeEdge>{"g", &DampedKnifeEdge::slope, "downhill acceleration (gravity times sine of the incline)"},
        Parameter<DampedKnifeEdge>{"gamma", &DampedKnifeEdge::gamma, "damping coefficient of L = ... + gamma z"}};
  }

  template <class T>
  T base_lagrangian(const Vec<T, 3>& q, const Vec<T, 3>& v) const {
    return 0.5 * mass * (v[0] * v[0] + v[1] * v[1]) + 0.5 * inertia * v[2] * v[2] + mass * slope * q[0];
  }
  template <class T>
  Mat<T, 1, 3> constraint_matrix(const Vec<T, 3>& q) const {
    using ad::sin_cos;
    const auto [s, c] = sin_cos(q[2]);
    Mat<T, 1, 3> M;
    M << s, -c, T(0.0);
    return M;
  }

  ContactPoint<3> default_initial() const { return {Vecd<3>(0.0, 0.0, 0.0), Vecd<3>(0.5, 0.0, 1.0), 0.0}; }

  /// Closed form on the level plane (g = 0): φ̇ = ω e^{γt} and s = s0 e^{γt}, so s/φ̇ = s0/ω and
  /// the blade runs on a circle: x = x0 + (s0/ω)(sin φ − sin φ0), y = y0 − (s0/ω)(cos φ − cos φ0);
  /// z = e^{γt} (z0 + (m s0² + J ω²)(e^{γt} − 1)/(2γ)).
  std::optional<ContactPoint<3>> exact_solution(const ContactPoint<3>& x0, double t) const {
    if (slope != 0.0) return std::nullopt;
    const double phi0 = x0.q[2], w = x0.v[2];
    const double s0 = x0.v[0] * std::cos(phi0) + x0.v[1] * std::sin(phi0);
    const double e = std::exp(gamma * t), f = gamma == 0.0 ? t : std::expm1(gamma * t) / gamma;
    const double phi = phi0 + w * f, s = s0 * e;
    ContactPoint<3> x;
    if (w == 0.0) {
      x.q = Vecd<3>(x0.q[0] + s0 * f * std::cos(phi0), x0.q[1] + s0 * f * std::sin(phi0), phi0);
    } else {
      x.q = Vecd<3>(x0.q[0] + (s0 / w) * (std::sin(phi) - std::sin(phi0)),
                    x0.q[1] - (s0 / w) * (std::cos(phi) - std::cos(phi0)), phi);
    }
    x.v = Vecd<3>(s * std::cos(phi), s * std::sin(phi), w * e);
    x.z = e * (x0.z + 0.5 * (mass * s0 * s0 + inertia * w * w) * f);
    return x;
  }
};

}  // namespace dalembert::models
