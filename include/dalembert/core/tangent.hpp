#pragma once
// A forward-mode dual number that can sit *outside* nested AutoDiffScalars: third derivatives.
//
// Eigen's AutoDiffScalar converts a double into a value of one nesting level only (one implicit
// conversion), so a triple-nested Dual<Dual<Dual<double>>> cannot be built from a literal: model
// code such as `0.5 * v.dot(G * v)` or `T(mass)` and Eigen's own `Scalar(0)` fail to compile. The
// Jacobian of the Lagrange–d'Alembert acceleration (for shooting and Jacobi fields) needs exactly
// that depth: a direction of differentiation on top of the hyper-dual numbers that give ∂²L.
// Tangent<T, N> is that outer level: a value of type T (for example a hyper-dual) with N
// directional derivatives, constructible from any arithmetic value in one step, with the usual
// arithmetic and elementary functions. It is used by lagrangian_derivatives (model/dynamics.hpp)
// when that is called with first-order duals; model code needs nothing special.
#include <array>
#include <cmath>
#include <type_traits>

#include "dalembert/core/autodiff.hpp"

namespace dalembert::ad {

template <class T, int N>
struct Tangent {
  T a;                  ///< value
  std::array<T, N> d;   ///< derivatives along N directions

  Tangent() = default;
  template <class U>
    requires std::is_arithmetic_v<U>
  Tangent(U x) : a(lift<T>(static_cast<double>(x))) {
    d.fill(lift<T>(0.0));
  }
  Tangent(const T& x)
    requires(!std::is_arithmetic_v<T>)
      : a(x) {
    d.fill(lift<T>(0.0));
  }

  const T& value() const { return a; }

  Tangent& operator+=(const Tangent& y) { return *this = *this + y; }
  Tangent& operator-=(const Tangent& y) { return *this = *this - y; }
  Tangent& operator*=(const Tangent& y) { return *this = *this * y; }
  Tangent& operator/=(const Tangent& y) { return *this = *this / y; }

  friend Tangent operator+(const Tangent& x, const Tangent& y) {
    Tangent r;
    r.a = x.a + y.a;
    for (int i = 0; i < N; ++i) r.d[i] = x.d[i] + y.d[i];
    return r;
  }
  friend Tangent operator-(const Tangent& x, const Tangent& y) {
    Tangent r;
    r.a = x.a - y.a;
    for (int i = 0; i < N; ++i) r.d[i] = x.d[i] - y.d[i];
    return r;
  }
  friend Tangent operator-(const Tangent& x) {
    Tangent r;
    r.a = -x.a;
    for (int i = 0; i < N; ++i) r.d[i] = -x.d[i];
    return r;
  }
  friend Tangent operator+(const Tangent& x) { return x; }
  friend Tangent operator*(const Tangent& x, const Tangent& y) {
    Tangent r;
    r.a = x.a * y.a;
    for (int i = 0; i < N; ++i) r.d[i] = x.d[i] * y.a + x.a * y.d[i];
    return r;
  }
  friend Tangent operator/(const Tangent& x, const Tangent& y) {
    Tangent r;
    const T inv = lift<T>(1.0) / y.a;
    r.a = x.a * inv;
    for (int i = 0; i < N; ++i) r.d[i] = (x.d[i] - r.a * y.d[i]) * inv;
    return r;
  }
  friend bool operator<(const Tangent& x, const Tangent& y) { return x.a < y.a; }
  friend bool operator>(const Tangent& x, const Tangent& y) { return x.a > y.a; }
  friend bool operator<=(const Tangent& x, const Tangent& y) { return x.a <= y.a; }
  friend bool operator>=(const Tangent& x, const Tangent& y) { return x.a >= y.a; }
  friend bool operator==(const Tangent& x, const Tangent& y) { return x.a == y.a; }
  friend bool operator!=(const Tangent& x, const Tangent& y) { return x.a != y.a; }
};

namespace detail {
/// f(x) with f'(x.a) = slope: the chain rule for an elementary function.
template <class T, int N>
Tangent<T, N> chain(const Tangent<T, N>& x, const T& value, const T& slope) {
  Tangent<T, N> r;
  r.a = value;
  for (int i = 0; i < N; ++i) r.d[i] = slope * x.d[i];
  return r;
}
}  // namespace detail

// Elementary functions, found by argument-dependent lookup; the inner calls find std:: or
// Eigen's AutoDiffScalar overloads the same way.
template <class T, int N>
Tangent<T, N> sin(const Tangent<T, N>& x) {
  using std::cos, std::sin;
  return detail::chain<T, N>(x, sin(x.a), cos(x.a));
}
template <class T, int N>
Tangent<T, N> cos(const Tangent<T, N>& x) {
  using std::cos, std::sin;
  return detail::chain<T, N>(x, cos(x.a), -sin(x.a));
}
template <class T, int N>
SinCos<Tangent<T, N>> sin_cos(const Tangent<T, N>& x) {
  const SinCos<T> inner = sin_cos(x.a);
  return {detail::chain<T, N>(x, inner.sin, inner.cos), detail::chain<T, N>(x, inner.cos, -inner.sin)};
}
template <class T, int N>
Tangent<T, N> tan(const Tangent<T, N>& x) {
  using std::tan;
  const T t = tan(x.a);
  return detail::chain<T, N>(x, t, lift<T>(1.0) + t * t);
}
template <class T, int N>
Tangent<T, N> exp(const Tangent<T, N>& x) {
  using std::exp;
  const T e = exp(x.a);
  return detail::chain<T, N>(x, e, e);
}
template <class T, int N>
Tangent<T, N> log(const Tangent<T, N>& x) {
  using std::log;
  return detail::chain<T, N>(x, log(x.a), lift<T>(1.0) / x.a);
}
template <class T, int N>
Tangent<T, N> sqrt(const Tangent<T, N>& x) {
  using std::sqrt;
  const T s = sqrt(x.a);
  return detail::chain<T, N>(x, s, lift<T>(0.5) / s);
}
template <class T, int N>
Tangent<T, N> pow(const Tangent<T, N>& x, double p) {
  using std::pow;
  return detail::chain<T, N>(x, pow(x.a, p), p * pow(x.a, p - 1.0));
}
template <class T, int N>
Tangent<T, N> abs(const Tangent<T, N>& x) {
  return x.a < lift<T>(0.0) ? -x : x;
}
template <class T, int N>
Tangent<T, N> asin(const Tangent<T, N>& x) {
  using std::asin, std::sqrt;
  return detail::chain<T, N>(x, asin(x.a), lift<T>(1.0) / sqrt(lift<T>(1.0) - x.a * x.a));
}
template <class T, int N>
Tangent<T, N> acos(const Tangent<T, N>& x) {
  using std::acos, std::sqrt;
  return detail::chain<T, N>(x, acos(x.a), lift<T>(-1.0) / sqrt(lift<T>(1.0) - x.a * x.a));
}
template <class T, int N>
Tangent<T, N> atan(const Tangent<T, N>& x) {
  using std::atan;
  return detail::chain<T, N>(x, atan(x.a), lift<T>(1.0) / (lift<T>(1.0) + x.a * x.a));
}
template <class T, int N>
Tangent<T, N> atan2(const Tangent<T, N>& y, const Tangent<T, N>& x) {
  using std::atan2;
  Tangent<T, N> r;
  r.a = atan2(y.a, x.a);
  const T inv = lift<T>(1.0) / (x.a * x.a + y.a * y.a);
  for (int i = 0; i < N; ++i) r.d[i] = (x.a * y.d[i] - y.a * x.d[i]) * inv;
  return r;
}
template <class T, int N>
Tangent<T, N> sinh(const Tangent<T, N>& x) {
  using std::cosh, std::sinh;
  return detail::chain<T, N>(x, sinh(x.a), cosh(x.a));
}
template <class T, int N>
Tangent<T, N> cosh(const Tangent<T, N>& x) {
  using std::cosh, std::sinh;
  return detail::chain<T, N>(x, cosh(x.a), sinh(x.a));
}
template <class T, int N>
Tangent<T, N> tanh(const Tangent<T, N>& x) {
  using std::tanh;
  const T t = tanh(x.a);
  return detail::chain<T, N>(x, t, lift<T>(1.0) - t * t);
}
template <class T, int N>
Tangent<T, N> asinh(const Tangent<T, N>& x) {
  using std::asinh, std::sqrt;
  return detail::chain<T, N>(x, asinh(x.a), lift<T>(1.0) / sqrt(lift<T>(1.0) + x.a * x.a));
}

}  // namespace dalembert::ad

namespace Eigen {

template <class T, int N>
struct NumTraits<dalembert::ad::Tangent<T, N>> : NumTraits<double> {
  using Real = dalembert::ad::Tangent<T, N>;
  using NonInteger = Real;
  using Nested = Real;
  using Literal = double;
  enum { IsComplex = 0, IsInteger = 0, IsSigned = 1, RequireInitialization = 1, ReadCost = 1, AddCost = 4, MulCost = 8 };
  static Real epsilon() { return Real(NumTraits<double>::epsilon()); }
  static Real dummy_precision() { return Real(NumTraits<double>::dummy_precision()); }
  static Real highest() { return Real(NumTraits<double>::highest()); }
  static Real lowest() { return Real(NumTraits<double>::lowest()); }
  static int digits10() { return NumTraits<double>::digits10(); }
};

template <class T, int N, class BinOp>
struct ScalarBinaryOpTraits<dalembert::ad::Tangent<T, N>, double, BinOp> {
  using ReturnType = dalembert::ad::Tangent<T, N>;
};
template <class T, int N, class BinOp>
struct ScalarBinaryOpTraits<double, dalembert::ad::Tangent<T, N>, BinOp> {
  using ReturnType = dalembert::ad::Tangent<T, N>;
};

}  // namespace Eigen
