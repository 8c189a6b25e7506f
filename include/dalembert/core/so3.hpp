#pragma once
// SO(3) primitives, generic in the scalar type: hat/vee between R³ and so(3), the exponential
// (Rodrigues), the Cayley map, and the (co)adjoint actions. Debian bookworm packages no Lie-group
// library (neither Sophus nor manif), so these few lines live here.
// Conventions: hat(w) x = w × x; body angular velocity Ω with ġ = g hat(Ω); Ad_W ξ = W ξ and
// Ad*_W μ = Wᵀ μ (⟨Ad*_W μ, ξ⟩ = ⟨μ, Ad_W ξ⟩), identifying so(3)* with R³ by the dot product.
#include <algorithm>
#include <cmath>

#include "dalembert/core/types.hpp"

namespace dalembert::so3 {

template <class T>
Mat<T, 3, 3> hat(const Vec<T, 3>& w) {
  Mat<T, 3, 3> A = Mat<T, 3, 3>::Zero();
  A(0, 1) = -w[2];
  A(0, 2) = w[1];
  A(1, 0) = w[2];
  A(1, 2) = -w[0];
  A(2, 0) = -w[1];
  A(2, 1) = w[0];
  return A;
}

/// The vector of the skew-symmetric part of A: vee(hat(w)) = w, vee(A) = vee((A − Aᵀ)/2).
template <class T>
Vec<T, 3> vee(const Mat<T, 3, 3>& A) {
  return Vec<T, 3>(0.5 * (A(2, 1) - A(1, 2)), 0.5 * (A(0, 2) - A(2, 0)), 0.5 * (A(1, 0) - A(0, 1)));
}

/// exp(hat(w)) by Rodrigues' formula (Taylor coefficients near 0).
template <class T>
Mat<T, 3, 3> exp(const Vec<T, 3>& w) {
  using std::cos;
  using std::sin;
  using std::sqrt;
  const T theta2 = w.squaredNorm();
  const Mat<T, 3, 3> K = hat(w);
  T a, b;  // sin θ / θ, (1 − cos θ)/θ²
  if (theta2 < T(1e-8)) {
    a = T(1.0) - theta2 / 6.0 + theta2 * theta2 / 120.0;
    b = T(0.5) - theta2 / 24.0 + theta2 * theta2 / 720.0;
  } else {
    const T theta = sqrt(theta2);
    a = sin(theta) / theta;
    b = (T(1.0) - cos(theta)) / theta2;
  }
  return Mat<T, 3, 3>::Identity() + a * K + b * (K * K);
}

/// The rotation vector w with exp(hat(w)) = R, |w| ≤ π (for tests and diagnostics).
inline Vecd<3> log(const Matd<3, 3>& R) {
  const double c = std::clamp(0.5 * (R.trace() - 1.0), -1.0, 1.0);
  const double theta = std::acos(c);
  const Vecd<3> s(R(2, 1) - R(1, 2), R(0, 2) - R(2, 0), R(1, 0) - R(0, 1));  // 2 sin θ · axis
  if (theta < 1e-6) return 0.5 * (1.0 + theta * theta / 6.0) * s;
  if (std::abs(M_PI - theta) > 1e-6) return theta / (2.0 * std::sin(theta)) * s;
  // θ ≈ π: axis from the symmetric part R + I = 2 u uᵀ (up to the round-off of sin θ)
  const Matd<3, 3> B = 0.5 * (R + Matd<3, 3>::Identity());
  int i;
  B.diagonal().maxCoeff(&i);
  Vecd<3> u = B.col(i) / std::sqrt(B(i, i));
  if (u.dot(s) < 0) u = -u;
  return theta * u;
}

/// The Cayley map cay(x) = (I − hat x)⁻¹ (I + hat x) = I + 2/(1 + |x|²) (hat x + hat x²):
/// the rotation by 2 atan|x| about x; rational, so exactly orthogonal up to round-off.
template <class T>
Mat<T, 3, 3> cayley(const Vec<T, 3>& x) {
  const Mat<T, 3, 3> K = hat(x);
  const T c = 2.0 / (1.0 + x.squaredNorm());
  return Mat<T, 3, 3>::Identity() + c * (K + K * K);
}

/// Ad_W ξ = vee(W hat(ξ) Wᵀ) = W ξ.
template <class T>
Vec<T, 3> adjoint(const Mat<T, 3, 3>& W, const Vec<T, 3>& xi) {
  return W * xi;
}

/// Ad*_W μ = Wᵀ μ, the dual of Ad_W.
template <class T>
Vec<T, 3> coadjoint(const Mat<T, 3, 3>& W, const Vec<T, 3>& mu) {
  return W.transpose() * mu;
}

/// |gᵀg − I|_inf: distance of g from the orthogonal group.
inline double orthogonality_error(const Matd<3, 3>& g) {
  return (g.transpose() * g - Matd<3, 3>::Identity()).cwiseAbs().maxCoeff();
}

}  // namespace dalembert::so3
