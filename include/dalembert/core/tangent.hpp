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
#include <algorithm>
#include <array>
#include <cmath>
#include <type_traits>

#include "dalembert/core/autodiff.hpp"

namespace dalembert::ad {

namespace detail {
/// The derivatives of a Tangent: an array of N, or for N = Eigen::Dynamic a vector of run-time
/// length stored inside up to MaxN (an empty one is zero: a constant).
template <class T, int N, int MaxN>
struct TangentStorage {
  using type = std::array<T, N>;
};
template <class T, int MaxN>
struct TangentStorage<T, Eigen::Dynamic, MaxN> {
  using type = Vec<T, Eigen::Dynamic, MaxN>;
};
}  // namespace detail

template <class T, int N, int MaxN = N>
struct Tangent {
  T a;                                                    ///< value
  typename detail::TangentStorage<T, N, MaxN>::type d;   ///< derivatives along N directions

  Tangent() = default;
  template <class U>
    requires std::is_arithmetic_v<U>
  Tangent(U x) : a(lift<T>(static_cast<double>(x))) {
    clear();
  }
  Tangent(const T& x)
    requires(!std::is_arithmetic_v<T>)
      : a(x) {
    clear();
  }

  const T& value() const { return a; }
  /// The number of directions (0 for a constant of run-time width).
  int size() const { return static_cast<int>(d.size()); }
  /// Derivative i, zero beyond size().
  decltype(auto) at(int i) const {
    if constexpr (N == Eigen::Dynamic) {
      return i < size() ? T(d[i]) : lift<T>(0.0);
    } else {
      return (d[i]);
    }
  }
  /// Room for `k` directions (run-time width only; the new ones zero).
  void resize(int k) {
    if constexpr (N == Eigen::Dynamic) {
      d.resize(k);
      for (int i = 0; i < k; ++i) d[i] = lift<T>(0.0);
    }
  }

  Tangent& operator+=(const Tangent& y) { return *this = *this + y; }
  Tangent& operator-=(const Tangent& y) { return *this = *this - y; }
  Tangent& operator*=(const Tangent& y) { return *this = *this * y; }
  Tangent& operator/=(const Tangent& y) { return *this = *this / y; }

  /// A result with as many directions as the wider of x and y.
  static Tangent like(const Tangent& x, const Tangent& y) {
    Tangent r;
    if constexpr (N == Eigen::Dynamic) r.d.resize(std::max(x.size(), y.size()));
    return r;
  }

  friend Tangent operator+(const Tangent& x, const Tangent& y) {
    Tangent r = like(x, y);
    r.a = x.a + y.a;
    for (int i = 0; i < r.size(); ++i) r.d[i] = x.at(i) + y.at(i);
    return r;
  }
  friend Tangent operator-(const Tangent& x, const Tangent& y) {
    Tangent r = like(x, y);
    r.a = x.a - y.a;
    for (int i = 0; i < r.size(); ++i) r.d[i] = x.at(i) - y.at(i);
    return r;
  }
  friend Tangent operator-(const Tangent& x) {
    Tangent r = like(x, x);
    r.a = -x.a;
    for (int i = 0; i < r.size(); ++i) r.d[i] = -x.d[i];
    return r;
  }
  friend Tangent operator+(const Tangent& x) { return x; }
  friend Tangent operator*(const Tangent& x, const Tangent& y) {
    Tangent r = like(x, y);
    r.a = x.a * y.a;
    for (int i = 0; i < r.size(); ++i) r.d[i] = x.at(i) * y.a + x.a * y.at(i);
    return r;
  }
  friend Tangent operator/(const Tangent& x, const Tangent& y) {
    Tangent r = like(x, y);
    const T inv = lift<T>(1.0) / y.a;
    r.a = x.a * inv;
    for (int i = 0; i < r.size(); ++i) r.d[i] = (x.at(i) - r.a * y.at(i)) * inv;
    return r;
  }
  friend bool operator<(const Tangent& x, const Tangent& y) { return x.a < y.a; }
  friend bool operator>(const Tangent& x, const Tangent& y) { return x.a > y.a; }
  friend bool operator<=(const Tangent& x, const Tangent& y) { return x.a <= y.a; }
  friend bool operator>=(const Tangent& x, const Tangent& y) { return x.a >= y.a; }
  friend bool operator==(const Tangent& x, const Tangent& y) { return x.a == y.a; }
  friend bool operator!=(const Tangent& x, const Tangent& y) { return x.a != y.a; }

 private:
  void clear() {
    if constexpr (N == Eigen::Dynamic) {
      d.resize(0);
    } else {
      d.fill(lift<T>(0.0));
    }
  }
};

namespace detail {
/// f(x) with f'(x.a) = slope: the chain rule for an elementary function.
template <class T, int N, int MaxN>
Tangent<T, N, MaxN> chain(const Tangent<T, N, MaxN>& x, const T& value, const T& slope) {
  Tangent<T, N, MaxN> r = Tangent<T, N, MaxN>::like(x, x);
  r.a = value;
  for (int i = 0; i < r.size(); ++i) r.d[i] = slope * x.d[i];
  return r;
}
}  // namespace detail

// Elementary functions, found by argument-dependent lookup; the inner calls find std:: or
// Eigen's AutoDiffScalar overloads the same way.
template <class T, int N, int MaxN>
Tangent<T, N, MaxN> sin(const Tangent<T, N, MaxN>& x) {
  using std::cos, std::sin;
  return detail::chain<T, N, MaxN>(x, sin(x.a), cos(x.a));
}
template <class T, int N, int MaxN>
Tangent<T, N, MaxN> cos(const Tangent<T, N, MaxN>& x) {
  using std::cos, std::sin;
  return detail::chain<T, N, MaxN>(x, cos(x.a), -sin(x.a));
}
template <class T, int N, int MaxN>
SinCos<Tangent<T, N, MaxN>> sin_cos(const Tangent<T, N, MaxN>& x) {
  const SinCos<T> inner = sin_cos(x.a);
  return {detail::chain<T, N, MaxN>(x, inner.sin, inner.cos), detail::chain<T, N, MaxN>(x, inner.cos, -inner.sin)};
}
template <class T, int N, int MaxN>
Tangent<T, N, MaxN> tan(const Tangent<T, N, MaxN>& x) {
  using std::tan;
  const T t = tan(x.a);
  return detail::chain<T, N, MaxN>(x, t, lift<T>(1.0) + t * t);
}
template <class T, int N, int MaxN>
Tangent<T, N, MaxN> exp(const Tangent<T, N, MaxN>& x) {
  using std::exp;
  const T e = exp(x.a);
  return detail::chain<T, N, MaxN>(x, e, e);
}
template <class T, int N, int MaxN>
Tangent<T, N, MaxN> log(const Tangent<T, N, MaxN>& x) {
  using std::log;
  return detail::chain<T, N, MaxN>(x, log(x.a), lift<T>(1.0) / x.a);
}
template <class T, int N, int MaxN>
Tangent<T, N, MaxN> sqrt(const Tangent<T, N, MaxN>& x) {
  using std::sqrt;
  const T s = sqrt(x.a);
  return detail::chain<T, N, MaxN>(x, s, lift<T>(0.5) / s);
}
template <class T, int N, int MaxN>
Tangent<T, N, MaxN> pow(const Tangent<T, N, MaxN>& x, double p) {
  using std::pow;
  return detail::chain<T, N, MaxN>(x, pow(x.a, p), p * pow(x.a, p - 1.0));
}
template <class T, int N, int MaxN>
Tangent<T, N, MaxN> abs(const Tangent<T, N, MaxN>& x) {
  return x.a < lift<T>(0.0) ? -x : x;
}
template <class T, int N, int MaxN>
Tangent<T, N, MaxN> asin(const Tangent<T, N, MaxN>& x) {
  using std::asin, std::sqrt;
  return detail::chain<T, N, MaxN>(x, asin(x.a), lift<T>(1.0) / sqrt(lift<T>(1.0) - x.a * x.a));
}
template <class T, int N, int MaxN>
Tangent<T, N, MaxN> acos(const Tangent<T, N, MaxN>& x) {
  using std::acos, std::sqrt;
  return detail::chain<T, N, MaxN>(x, acos(x.a), lift<T>(-1.0) / sqrt(lift<T>(1.0) - x.a * x.a));
}
template <class T, int N, int MaxN>
Tangent<T, N, MaxN> atan(const Tangent<T, N, MaxN>& x) {
  using std::atan;
  return detail::chain<T, N, MaxN>(x, atan(x.a), lift<T>(1.0) / (lift<T>(1.0) + x.a * x.a));
}
template <class T, int N, int MaxN>
Tangent<T, N, MaxN> atan2(const Tangent<T, N, MaxN>& y, const Tangent<T, N, MaxN>& x) {
  using std::atan2;
  Tangent<T, N, MaxN> r = Tangent<T, N, MaxN>::like(y, x);
  r.a = atan2(y.a, x.a);
  const T inv = lift<T>(1.0) / (x.a * x.a + y.a * y.a);
  for (int i = 0; i < r.size(); ++i) r.d[i] = (x.a * y.at(i) - y.a * x.at(i)) * inv;
  return r;
}
template <class T, int N, int MaxN>
Tangent<T, N, MaxN> sinh(const Tangent<T, N, MaxN>& x) {
  using std::cosh, std::sinh;
  return detail::chain<T, N, MaxN>(x, sinh(x.a), cosh(x.a));
}
template <class T, int N, int MaxN>
Tangent<T, N, MaxN> cosh(const Tangent<T, N, MaxN>& x) {
  using std::cosh, std::sinh;
  return detail::chain<T, N, MaxN>(x, cosh(x.a), sinh(x.a));
}
template <class T, int N, int MaxN>
Tangent<T, N, MaxN> tanh(const Tangent<T, N, MaxN>& x) {
  using std::tanh;
  const T t = tanh(x.a);
  return detail::chain<T, N, MaxN>(x, t, lift<T>(1.0) - t * t);
}
template <class T, int N, int MaxN>
Tangent<T, N, MaxN> asinh(const Tangent<T, N, MaxN>& x) {
  using std::asinh, std::sqrt;
  return detail::chain<T, N, MaxN>(x, asinh(x.a), lift<T>(1.0) / sqrt(lift<T>(1.0) + x.a * x.a));
}

}  // namespace dalembert::ad

namespace Eigen {

template <class T, int N, int MaxN>
struct NumTraits<dalembert::ad::Tangent<T, N, MaxN>> : NumTraits<double> {
  using Real = dalembert::ad::Tangent<T, N, MaxN>;
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

template <class T, int N, int MaxN, class BinOp>
struct ScalarBinaryOpTraits<dalembert::ad::Tangent<T, N, MaxN>, double, BinOp> {
  using ReturnType = dalembert::ad::Tangent<T, N, MaxN>;
};
template <class T, int N, int MaxN, class BinOp>
struct ScalarBinaryOpTraits<double, dalembert::ad::Tangent<T, N, MaxN>, BinOp> {
  using ReturnType = dalembert::ad::Tangent<T, N, MaxN>;
};

}  // namespace Eigen
