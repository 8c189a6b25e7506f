#pragma once
// The knife edge (skate) on an inclined plane, and its perturbed variant (Modin–Verdier):
//   L = ½ m (ẋ² + ẏ²) + ½ J φ̇² − V,   V = −m g x + ½ k (x² + y²),
//   constraint sin φ ẋ − (cos φ − ε) ẏ = 0.
// ε = 0 is the knife edge (thesis Ex. 7.5.2 is m = J = 1, g = ½, k = 0); ε = 0.1 is the perturbed
// knife edge of thesis Ex. 7.5.3, which breaks the reversibility that nonholonomic integrators
// usually profit from.
#include <cmath>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/model/model.hpp"
#include "dalembert/models/catalogue_entry.hpp"

namespace dalembert::models {

struct KnifeEdge : Mechanical<KnifeEdge, 3> {
  static constexpr int n = 3;
  static constexpr int m = 1;
  static constexpr std::string_view name = "knife-edge";
  static constexpr std::string_view summary =
      "knife edge on an inclined plane: L = m/2 (x'^2 + y'^2) + J/2 phi'^2 + m g x - k/2 (x^2 + y^2), "
      "blade along (cos phi, sin phi)";
  static constexpr std::array<std::string_view, n> coordinates = {"x", "y", "phi"};
  static constexpr std::array<int, 1> cyclic_coordinates = {2};  ///< V depends on x and y alone

  double mass = 1.0;
  double inertia = 1.0;
  double slope = 0.5;   ///< g: downhill force per unit mass (along +x)
  double spring = 0.0;  ///< k: isotropic spring towards the origin
  double eps = 0.0;     ///< perturbation of the constraint

  static auto parameters() {
    return std::array{
        Parameter<KnifeEdge>{"m", &KnifeEdge::mass, "mass"},
        Parameter<KnifeEdge>{"J", &KnifeEdge::inertia, "moment of inertia about the vertical axis"},
        Parameter<KnifeEdge>{"g", &KnifeEdge::slope, "downhill acceleration (gravity times sine of the incline)"},
        Parameter<KnifeEdge>{"k", &KnifeEdge::spring, "stiffness of a spring to the origin"}};
  }

  template <class T>
  Eigen::DiagonalMatrix<double, 3> metric(const Vec<T, 3>&) const {
    return Eigen::DiagonalMatrix<double, 3>(mass, mass, inertia);
  }
  template <class T>
  T potential(const Vec<T, 3>& q) const {
    return -mass * slope * q[0] + 0.5 * spring * (q[0] * q[0] + q[1] * q[1]);
  }
  template <class T>
  Mat<T, 1, 3> constraint_matrix(const Vec<T, 3>& q) const {
    using ad::sin_cos;
    const auto [s, c] = sin_cos(q[2]);
    Mat<T, 1, 3> M;
    M << s, -(c - eps), T(0.0);
    return M;
  }

  PhasePoint<3> default_initial() const {
    // At φ = 0 the constraint forces ẏ = 0; blade speed 0.5, turning rate 1.
    return {Vecd<3>(0.0, 0.0, 0.0), Vecd<3>(0.5, 0.0, 1.0)};
  }

  /// Closed form for k = 0, ε = 0: φ = φ0 + ωt and the blade speed s obeys ṡ = g cos φ, so
  /// s = c + (g/ω) sin φ with c = s0 − (g/ω) sin φ0 (a start at rest with φ0 = 0 is the case c = 0).
  std::optional<PhasePoint<3>> exact_solution(const PhasePoint<3>& x0, double t) const {
    if (spring != 0.0 || eps != 0.0) return std::nullopt;
    const double g = slope, phi0 = x0.q[2], w = x0.v[2];
    const double s0 = x0.v[0] * std::cos(phi0) + x0.v[1] * std::sin(phi0);
    const double phi = phi0 + w * t;
    PhasePoint<3> s;
    if (w == 0.0) {
      const double dist = s0 * t + 0.5 * g * std::cos(phi0) * t * t;
      const double speed = s0 + g * std::cos(phi0) * t;
      s.q = Vecd<3>(x0.q[0] + std::cos(phi0) * dist, x0.q[1] + std::sin(phi0) * dist, phi0);
      s.v = Vecd<3>(speed * std::cos(phi0), speed * std::sin(phi0), 0.0);
      return s;
    }
    const double c = s0 - (g / w) * std::sin(phi0);
    const double x = x0.q[0] + (c / w) * (std::sin(phi) - std::sin(phi0)) +
                     g / (2 * w * w) * (std::sin(phi) * std::sin(phi) - std::sin(phi0) * std::sin(phi0));
    const double y = x0.q[1] + (c / w) * (std::cos(phi0) - std::cos(phi)) +
                     (g / w) * (0.5 * t - (std::sin(2 * phi) - std::sin(2 * phi0)) / (4 * w));
    const double speed = c + (g / w) * std::sin(phi);
    s.q = Vecd<3>(x, y, phi);
    s.v = Vecd<3>(speed * std::cos(phi), speed * std::sin(phi), w);
    return s;
  }
};

/// The perturbed knife edge: the same system with ε = 0.1 by default and ε a parameter.
struct PerturbedKnifeEdge : KnifeEdge {
  static constexpr std::string_view name = "perturbed-knife-edge";
  static constexpr std::string_view summary =
      "knife edge with perturbed constraint sin(phi) x' - (cos(phi) - eps) y' = 0 (Modin-Verdier test)";
  PerturbedKnifeEdge() { eps = 0.1; }

  static auto parameters() {
    return std::array{
        Parameter<PerturbedKnifeEdge>{"m", &PerturbedKnifeEdge::mass, "mass"},
        Parameter<PerturbedKnifeEdge>{"J", &PerturbedKnifeEdge::inertia, "moment of inertia about the vertical axis"},
        Parameter<PerturbedKnifeEdge>{"g", &PerturbedKnifeEdge::slope, "downhill acceleration (gravity times sine of the incline)"},
        Parameter<PerturbedKnifeEdge>{"k", &PerturbedKnifeEdge::spring, "stiffness of a spring to the origin"},
        Parameter<PerturbedKnifeEdge>{"eps", &PerturbedKnifeEdge::eps, "perturbation of the constraint"}};
  }
};

}  // namespace dalembert::models
