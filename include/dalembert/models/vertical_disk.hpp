#pragma once
// The vertical rolling disk (thesis Ex. 3.6.6): a disk of radius R rolling upright without slipping.
//   q = (x, y, θ, φ), θ the rolling angle, φ the heading;
//   L = ½ m (ẋ² + ẏ²) + ½ I θ̇² + ½ J φ̇²,   ẋ = R cos φ θ̇,  ẏ = R sin φ θ̇.
#include <cmath>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/model/model.hpp"
#include "dalembert/models/catalogue_entry.hpp"

namespace dalembert::models {

struct VerticalDisk : Mechanical<VerticalDisk, 4> {
  static constexpr int n = 4;
  static constexpr int m = 2;
  static constexpr std::string_view name = "vertical-disk";
  static constexpr std::string_view summary =
      "vertical rolling disk: x' = R cos(phi) theta', y' = R sin(phi) theta'";
  static constexpr std::array<std::string_view, n> coordinates = {"x", "y", "theta", "phi"};
  static constexpr std::array<int, 4> cyclic_coordinates = {0, 1, 2, 3};  ///< constant G, V = 0

  double mass = 1.0;
  double radius = 1.0;
  double rolling_inertia = 1.0;   ///< I, about the axle
  double turning_inertia = 1.0;   ///< J, about the vertical

  static auto parameters() {
    return std::array{
        Parameter<VerticalDisk>{"m", &VerticalDisk::mass, "mass"},
        Parameter<VerticalDisk>{"R", &VerticalDisk::radius, "radius"},
        Parameter<VerticalDisk>{"I", &VerticalDisk::rolling_inertia, "moment of inertia about the axle"},
        Parameter<VerticalDisk>{"J", &VerticalDisk::turning_inertia, "moment of inertia about the vertical"}};
  }

  template <class T>
  Eigen::DiagonalMatrix<double, 4> metric(const Vec<T, 4>&) const {
    return Eigen::DiagonalMatrix<double, 4>(mass, mass, rolling_inertia, turning_inertia);
  }
  template <class T>
  T potential(const Vec<T, 4>&) const {
    return T(0.0);
  }
  template <class T>
  Mat<T, 2, 4> constraint_matrix(const Vec<T, 4>& q) const {
    using ad::sin_cos;
    const auto [s, c] = sin_cos(q[3]);
    Mat<T, 2, 4> M;
    M << T(1.0), T(0.0), -radius * c, T(0.0),  //
        T(0.0), T(1.0), -radius * s, T(0.0);
    return M;
  }

  /// Rolling rate 1 and heading rate 2 from the origin (the issue's accuracy test).
  PhasePoint<4> default_initial() const {
    return {Vecd<4>::Zero(), Vecd<4>(radius, 0.0, 1.0, 2.0)};
  }

  /// θ̇ = Ω and φ̇ = ω are constant; the contact point moves on a circle of radius RΩ/ω.
  std::optional<PhasePoint<4>> exact_solution(const PhasePoint<4>& x0, double t) const {
    const double Om = x0.v[2], w = x0.v[3], phi0 = x0.q[3], phi = phi0 + w * t;
    PhasePoint<4> s;
    s.q = x0.q;
    s.q[2] += Om * t;
    s.q[3] = phi;
    if (w == 0.0) {
      s.q[0] += radius * Om * std::cos(phi0) * t;
      s.q[1] += radius * Om * std::sin(phi0) * t;
    } else {
      s.q[0] += radius * Om / w * (std::sin(phi) - std::sin(phi0));
      s.q[1] -= radius * Om / w * (std::cos(phi) - std::cos(phi0));
    }
    s.v = Vecd<4>(radius * Om * std::cos(phi), radius * Om * std::sin(phi), Om, w);
    return s;
  }
};

}  // namespace dalembert::models
