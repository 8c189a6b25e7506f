#pragma once
// The nonholonomic particle (Rosenberg; dLMS Example 4.2, thesis Ex. 3.6.5):
//   L = ½(ẋ² + ẏ² + ż²) − c(x² + y²),   constraint ż − y ẋ = 0  (μ = dz − y dx).
#include <cmath>

#include "dalembert/model/model.hpp"
#include "dalembert/models/catalogue_entry.hpp"

namespace dalembert::models {

struct NonholonomicParticle : Mechanical<NonholonomicParticle, 3> {
  static constexpr int n = 3;
  static constexpr int m = 1;
  static constexpr std::string_view name = "particle";
  static constexpr std::string_view summary =
      "nonholonomic particle in R^3, constraint z' = y x', potential c (x^2 + y^2)";
  static constexpr std::array<std::string_view, n> coordinates = {"x", "y", "z"};
  static constexpr std::array<int, 1> cyclic_coordinates = {2};  ///< V depends on x and y alone

  double potential_coefficient = 0.0;  ///< c in V = c (x² + y²)

  static auto parameters() {
    return std::array{Parameter<NonholonomicParticle>{
        "potential", &NonholonomicParticle::potential_coefficient,
        "coefficient c of the potential V = c (x^2 + y^2); dLMS Example 4.2 uses c = 1"}};
  }

  // Constant metrics are returned with double entries: AD then never multiplies constants.
  template <class T>
  Eigen::DiagonalMatrix<double, 3> metric(const Vec<T, 3>&) const {
    return Eigen::DiagonalMatrix<double, 3>(1.0, 1.0, 1.0);
  }
  template <class T>
  T potential(const Vec<T, 3>& q) const {
    return potential_coefficient * (q[0] * q[0] + q[1] * q[1]);
  }
  template <class T>
  Mat<T, 1, 3> constraint_matrix(const Vec<T, 3>& q) const {
    Mat<T, 1, 3> M;
    M << -q[1], T(0.0), T(1.0);
    return M;
  }
  Matd<3, 2> frame(const Vecd<3>& q) const {
    Matd<3, 2> E;
    E << 1, 0, 0, 1, q[1], 0;  // e1 = ∂x + y ∂z, e2 = ∂y
    return E;
  }

  /// Defaults for [dLMS04] Example 4.2, which gives no initial data: q0 = (1, 0.5, 0), (ẋ, ẏ) = (0.3, 0.7).
  PhasePoint<3> default_initial() const {
    return {Vecd<3>(1.0, 0.5, 0.0), Vecd<3>(0.3, 0.7, 0.5 * 0.3)};
  }

  /// Closed form (thesis (4.3.2)–(4.3.3)) for c = 0: ẏ and ẋ√(1 + y²) are constant.
  std::optional<PhasePoint<3>> exact_solution(const PhasePoint<3>& x0, double t) const {
    if (potential_coefficient != 0.0) return std::nullopt;
    const double X = x0.q[0], Y = x0.q[1], Z = x0.q[2], xd = x0.v[0], yd = x0.v[1];
    const double C = xd * std::sqrt(1.0 + Y * Y);
    const double y = Y + yd * t;
    PhasePoint<3> s;
    if (yd == 0.0) {
      s.q = Vecd<3>(X + xd * t, Y, Z + Y * xd * t);
    } else {
      s.q = Vecd<3>(X + (C / yd) * (std::asinh(y) - std::asinh(Y)), y,
                    Z + (C / yd) * (std::sqrt(y * y + 1.0) - std::sqrt(Y * Y + 1.0)));
    }
    const double xdot = C / std::sqrt(1.0 + y * y);
    s.v = Vecd<3>(xdot, yd, y * xdot);
    return s;
  }
};

}  // namespace dalembert::models
