#pragma once
// Forward-mode automatic differentiation, behind a small uniform interface.
//
// The library uses Eigen's AutoDiffScalar (unsupported/Eigen/AutoDiff, part of libeigen3-dev).
// ceres::Jet can be selected with -DDALEMBERT_AD_CERES, but only for first derivatives: a nested
// Jet cannot live inside an Eigen expression (Eigen constructs Scalar(0), and Jet's scalar
// constructor is explicit), so second derivatives of Eigen-written models need AutoDiffScalar.
// docs/decisions.md records the measurements behind this choice. Everything else in dalembert
// talks to AD only through this header:
//   Dual<T, N>            a number carrying N directional derivatives, T may itself be a Dual
//   variable<N>(x, i)     x seeded with d/dx_i = 1
//   constant<N>(x)        x with zero derivatives
//   value(d), derivative(d, i)
//   at_width<N, MaxN>(n, f)  f<W, MaxW>() at the width to differentiate along n run-time directions
//   seeded<W>(x, i, first)   x seeded along direction i within the chunk [first, first + W)
//   along(x, dx)          x with the one derivative dx: a directional derivative
//   sin_cos(x)            sin x and cos x with one libm call at every depth
// Second derivatives use nested duals (Dual<Dual<double, N>, M>); the shims below let model code
// mix nested duals with plain double constants (0.5 * v.dot(v)), which neither library does alone.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "dalembert/core/sizes.hpp"
#include "dalembert/core/types.hpp"

#if !defined(DALEMBERT_AD_CERES)
#include <Eigen/Core>
#include <unsupported/Eigen/AutoDiff>
#else
#include <ceres/jet.h>
#endif

/// For a lambda that must be inlined into its caller (the derivative bodies passed to at_width).
#define DALEMBERT_INLINE __attribute__((always_inline))

namespace dalembert::ad {

#if !defined(DALEMBERT_AD_CERES)

/// N derivatives (N may be Eigen::Dynamic: the width of the seeded variables, known at run time,
/// stored inside the number up to the bound MaxN). At a run-time width every number the library
/// passes to a model stores all its derivatives, zeros included (constant(), constants()).
template <class T, int N, int MaxN = N>
using Dual = Eigen::AutoDiffScalar<Vec<T, N, MaxN>>;

template <class D>
struct is_dual : std::false_type {};
template <class Der>
struct is_dual<Eigen::AutoDiffScalar<Der>> : std::true_type {};

template <class S>
inline S lift(double x);

template <class Der>
inline const auto& value(const Eigen::AutoDiffScalar<Der>& d) { return d.value(); }
/// The i-th derivative (of a dynamic width: 0 where none is stored).
template <class Der>
inline decltype(auto) derivative(const Eigen::AutoDiffScalar<Der>& d, int i) {
  if constexpr (Der::SizeAtCompileTime == Eigen::Dynamic) {
    using Scalar = typename Der::Scalar;
    return i < d.derivatives().size() ? Scalar(d.derivatives()[i]) : lift<Scalar>(0.0);
  } else {
    return (d.derivatives()[i]);
  }
}

/// x seeded with d/dx_i = 1 among `width` derivatives (the width is N when N is fixed).
template <int N, int MaxN = N, class T>
inline Dual<T, N, MaxN> variable(const T& x, int i, int width = N) {
  if constexpr (N == Eigen::Dynamic) {
    Dual<T, N, MaxN> d;
    d.value() = x;
    d.derivatives().resize(width);
    for (int k = 0; k < width; ++k) d.derivatives()[k] = lift<T>(0.0);
    d.derivatives()[i] = lift<T>(1.0);
    return d;
  } else if constexpr (std::is_same_v<T, double>) {
    // Built whole rather than zeroed and then patched: the patch (an 8-byte store into the 16-byte
    // store of the zeros) stalls the next vector load of the derivatives (store forwarding).
    // Measured on first-order duals only; nested ones were slower this way.
    return Dual<T, N, MaxN>(x, Vec<T, N, MaxN>::Unit(i));
  } else {
    Dual<T, N, MaxN> d;
    d.value() = x;
    d.derivatives().setZero();
    d.derivatives()[i] = T(1.0);
    return d;
  }
}
/// x with `width` zero derivatives (the width is N when N is fixed). At a run-time width the zeros
/// are stored: Eigen pads a dual without derivatives only where it meets a plain dual, not inside an
/// expression, so in a model's L written as ½|v|² − ½k|q|² with constant q the two terms would
/// have derivative vectors of different lengths (silently wrong in a release build).
template <int N, int MaxN = N, class T>
inline Dual<T, N, MaxN> constant(const T& x, int width = N) {
  Dual<T, N, MaxN> d;
  d.value() = x;
  if constexpr (N == Eigen::Dynamic) {
    d.derivatives().resize(width);
    for (int k = 0; k < width; ++k) d.derivatives()[k] = lift<T>(0.0);
  } else {
    d.derivatives().setZero();
  }
  return d;
}

/// x moving at the rate dx: one derivative, along a direction given by its components.
template <class T>
inline Dual<T, 1> along(const T& x, const T& dx) {
  return Dual<T, 1>(x, Vec<T, 1>::Constant(dx));
}

#else

template <class T, int N, int MaxN = N>  // fixed sizes only: a Jet has no run-time width
using Dual = ceres::Jet<T, N>;

template <class D>
struct is_dual : std::false_type {};
template <class T, int N>
struct is_dual<ceres::Jet<T, N>> : std::true_type {};

template <class T, int N>
inline const T& value(const ceres::Jet<T, N>& d) { return d.a; }
template <class T, int N>
inline const T& derivative(const ceres::Jet<T, N>& d, int i) { return d.v[i]; }

template <int N, int MaxN = N, class T>
inline Dual<T, N> variable(const T& x, int i, int = N) { return Dual<T, N>(x, i); }
template <int N, int MaxN = N, class T>
inline Dual<T, N> constant(const T& x, int = N) { return Dual<T, N>(x); }
template <class T>
inline Dual<T, 1> along(const T& x, const T& dx) {
  Dual<T, 1> d(x);
  d.v[0] = dx;
  return d;
}

#endif

template <class D>
inline constexpr bool is_dual_v = is_dual<D>::value;

/// Whether derivatives along a number of directions known only at run time, within the bound MaxN,
/// are computed at a fixed width W >= n instead (the directions beyond n zero): W = 4 for n <= 4,
/// 8 for n <= 8, else the bound. A dual of fixed width is copied as one block and its arithmetic is
/// unrolled and vectorised; one of run-time width within a bound copies the whole bound at every
/// assignment of a nested dual and loops over run-time lengths (docs/decisions.md, *Run-time
/// sizes*). An unbounded width, or a bound above sizes::padded_width_max, keeps the run-time width.
template <int N, int MaxN>
inline constexpr bool padded_width =
    N == Eigen::Dynamic && MaxN != Eigen::Dynamic && MaxN <= sizes::padded_width_max;

/// Calls f.template operator()<W, MaxW>() with the width (W, bound MaxW) at which to differentiate
/// along n directions: (N, MaxN) itself when N is fixed or the width is not padded, else as above.
/// The callers' lambdas are DALEMBERT_INLINE: a fixed-size caller must compile to the code it had
/// without the indirection ([[gnu::flatten]] does not reach into a lambda; measured 15 % slower
/// `gf` steps without it).
template <int N, int MaxN, class F>
[[gnu::always_inline]] inline decltype(auto) at_width(int n, F&& f) {
  if constexpr (padded_width<N, MaxN>) {
    if constexpr (MaxN > 4) {
      if (n <= 4) return f.template operator()<4, 4>();
    }
    if constexpr (MaxN > 8) {
      if (n <= 8) return f.template operator()<8, 8>();
    }
    return f.template operator()<MaxN, MaxN>();
  } else {
    return f.template operator()<N, MaxN>();
  }
}

/// An unbounded run-time width (or a bound above sizes::padded_width_max) is differentiated by the
/// callers that take the most derivatives a chunk of sizes::chunk_width directions at a time, at
/// that fixed width, with one evaluation per chunk: a dual of run-time width on the heap allocates
/// at every operation, and a hyper-dual at every derivative too (docs/decisions.md, *Run-time
/// sizes*).
template <int N, int MaxN>
inline constexpr bool chunked_width = N == Eigen::Dynamic && !padded_width<N, MaxN>;

/// x seeded along direction i in the chunk of directions [first, first + W): a variable there, a
/// constant elsewhere.
template <int W, class T>
inline Dual<T, W> seeded(const T& x, int i, int first) {
  return i >= first && i < first + W ? variable<W>(x, i - first) : constant<W>(x);
}

/// A plain double promoted to any (possibly nested) dual type with zero derivatives.
template <class S>
inline S lift(double x) {
  if constexpr (std::is_same_v<S, double>) {
    return x;
  } else {
#if !defined(DALEMBERT_AD_CERES)
    using Inner = typename S::Scalar;
#else
    using Inner = decltype(S().a);
#endif
    S s;
    s = S(lift<Inner>(x));
    return s;
  }
}

/// The value of a (possibly nested) dual number as a plain double.
template <class S>
inline double plain(const S& x) {
  if constexpr (std::is_arithmetic_v<S>) {
    return x;
  } else {
#if !defined(DALEMBERT_AD_CERES)
    return plain(x.value());
#else
    return plain(x.a);
#endif
  }
}

/// sin x and cos x of one angle, for model code that needs both (a blade direction, a rotation).
template <class T>
struct SinCos {
  T sin, cos;
};

/// Both at once: one libm call (glibc's sincos; g++ merges a sin and a cos of one double into it,
/// clang++ does not) at every dual depth, where sin(x) and cos(x) of a dual separately each need
/// both of its value (a hyper-dual's pair costs four calls that way). Call it unqualified after `using ad::sin_cos;`
/// so that argument-dependent lookup finds the overload of Tangent (core/tangent.hpp).
///
/// It also remembers its last angle, per thread. A generic step evaluates the metric, the discrete
/// constraint and their derivatives at one midpoint angle in separate calls (a hand-written step
/// computes sin and cos there once), and a repeated angle then costs a comparison instead of a
/// libm call (docs/decisions.md, *`ad::sin_cos` remembers its last angle*). The key is the angle's
/// bit pattern, so −0 and +0 stay apart and the result is bit for bit that of std::sin and std::cos.
inline SinCos<double> sin_cos(double x) {
  struct Last {
    std::uint64_t angle_bits = 0;  // the angle 0, whose sine and cosine are exact
    SinCos<double> value{0.0, 1.0};
  };
  thread_local Last last;
  const auto bits = std::bit_cast<std::uint64_t>(x);
  if (bits != last.angle_bits) {
#if defined(__GLIBC__)
    double s, c;
    ::sincos(x, &s, &c);
    last = {bits, {s, c}};
#else
    last = {bits, {std::sin(x), std::cos(x)}};
#endif
  }
  return last.value;
}

/// Any other scalar (ceres::Jet, for instance): sin and cos as the type defines them.
template <class T>
inline SinCos<T> sin_cos(const T& x) {
  using std::cos, std::sin;
  return {sin(x), cos(x)};
}

#if !defined(DALEMBERT_AD_CERES)
// Spelled out rather than as Dual<T, N, MaxN>: the alias's storage bound is computed from N and
// MaxN, which deduction cannot invert, and the generic overload (two calls) would be chosen.
template <class T, int N, int Options, int MaxN>
inline SinCos<Eigen::AutoDiffScalar<Eigen::Matrix<T, N, 1, Options, MaxN, 1>>> sin_cos(
    const Eigen::AutoDiffScalar<Eigen::Matrix<T, N, 1, Options, MaxN, 1>>& x) {
  using D = Eigen::AutoDiffScalar<Eigen::Matrix<T, N, 1, Options, MaxN, 1>>;
  const SinCos<T> inner = sin_cos(x.value());
  return {D(inner.sin, x.derivatives() * inner.cos), D(inner.cos, -(x.derivatives() * inner.sin))};
}
#endif

}  // namespace dalembert::ad

// --- Mixed arithmetic between nested duals and double ------------------------------------------
#if !defined(DALEMBERT_AD_CERES)

namespace Eigen {
template <class T, int N, int Options, int MaxN, class BinOp>
struct ScalarBinaryOpTraits<AutoDiffScalar<Matrix<AutoDiffScalar<T>, N, 1, Options, MaxN, 1>>, double, BinOp> {
  using ReturnType = AutoDiffScalar<Matrix<AutoDiffScalar<T>, N, 1, Options, MaxN, 1>>;
};
template <class T, int N, int Options, int MaxN, class BinOp>
struct ScalarBinaryOpTraits<double, AutoDiffScalar<Matrix<AutoDiffScalar<T>, N, 1, Options, MaxN, 1>>, BinOp> {
  using ReturnType = AutoDiffScalar<Matrix<AutoDiffScalar<T>, N, 1, Options, MaxN, 1>>;
};
}  // namespace Eigen

#else

namespace ceres {
// ceres defines Jet<T, N> (op) T only for the immediate scalar T; for T itself a Jet this adds
// the double versions. Found by argument-dependent lookup.
#define DALEMBERT_NESTED_JET_OP(op)                                                          \
  template <class T, int M, int N>                                                           \
  inline Jet<Jet<T, M>, N> operator op(const Jet<Jet<T, M>, N>& f, double s) {               \
    return f op dalembert::ad::lift<Jet<T, M>>(s);                                           \
  }                                                                                          \
  template <class T, int M, int N>                                                           \
  inline Jet<Jet<T, M>, N> operator op(double s, const Jet<Jet<T, M>, N>& f) {               \
    return dalembert::ad::lift<Jet<T, M>>(s) op f;                                           \
  }
DALEMBERT_NESTED_JET_OP(+)
DALEMBERT_NESTED_JET_OP(-)
DALEMBERT_NESTED_JET_OP(*)
DALEMBERT_NESTED_JET_OP(/)
#undef DALEMBERT_NESTED_JET_OP
}  // namespace ceres

namespace Eigen {
template <class T, int M, int N, class BinOp>
struct ScalarBinaryOpTraits<ceres::Jet<ceres::Jet<T, M>, N>, double, BinOp> {
  using ReturnType = ceres::Jet<ceres::Jet<T, M>, N>;
};
template <class T, int M, int N, class BinOp>
struct ScalarBinaryOpTraits<double, ceres::Jet<ceres::Jet<T, M>, N>, BinOp> {
  using ReturnType = ceres::Jet<ceres::Jet<T, M>, N>;
};
}  // namespace Eigen

#endif

namespace dalembert::ad {

/// The entries of x as constants of the dual type D with `width` zero derivatives each: what x.cast<D>()
/// gives at a fixed width, and at a run-time width with the zeros stored (see constant()).
template <class D>
constexpr bool has_run_time_width() {
  if constexpr (requires { D::DerType::RowsAtCompileTime; }) {
    return D::DerType::RowsAtCompileTime == Eigen::Dynamic;
  } else {
    return false;
  }
}

template <class D, class Derived>
Eigen::Matrix<D, Derived::RowsAtCompileTime, 1, 0, Derived::MaxRowsAtCompileTime, 1> constants(
    const Eigen::MatrixBase<Derived>& x, int width) {
  if constexpr (has_run_time_width<D>()) {
    constexpr int N = Eigen::Dynamic, MaxN = D::DerType::MaxRowsAtCompileTime;
    Eigen::Matrix<D, Derived::RowsAtCompileTime, 1, 0, Derived::MaxRowsAtCompileTime, 1> out(x.size());
    for (Eigen::Index i = 0; i < x.size(); ++i) out[i] = constant<N, MaxN>(x[i], width);
    return out;
  } else {
    return x.template cast<D>();
  }
}

/// x in the scalar type D: as it is when its entries are of that type already (a step's start where
/// the step is differentiated by it), else constants(x, width).
template <class D, class Derived>
auto in_scalar(const Eigen::MatrixBase<Derived>& x, int width) {
  if constexpr (std::is_same_v<typename Derived::Scalar, D>) {
    return typename Derived::PlainObject(x);
  } else {
    return constants<D>(x, width);
  }
}

/// read(f(x seeded along the chunk), first, columns) for each chunk of sizes::chunk_width directions
/// of x [first, first + columns), at least once (for the value when x is empty).
template <int N, int MaxN, class T, class F, class Read>
inline void over_chunks(const Vec<T, N, MaxN>& x, F&& f, Read&& read) {
  constexpr int W = sizes::chunk_width;
  const int n = static_cast<int>(x.size());
  Vec<Dual<T, W>, N, MaxN> xd(n);
  int first = 0;
  do {
    for (int i = 0; i < n; ++i) xd[i] = seeded<W>(x[i], i, first);
    read(f(xd), first, std::min(W, n - first));
    first += W;
  } while (first < n);
}

/// Value and gradient of a scalar function f : R^N -> R (f generic in its scalar type).
template <int N, int MaxN = N, class T, class F>
inline void value_and_gradient(F&& f, const Vec<T, N, MaxN>& x, T& out_value, Vec<T, N, MaxN>& out_gradient) {
  const int n = static_cast<int>(x.size());
  if constexpr (chunked_width<N, MaxN>) {
    out_gradient.resize(n);
    over_chunks<N, MaxN>(x, f, [&](const Dual<T, sizes::chunk_width>& y, int first, int columns) {
      out_value = value(y);
      for (int i = 0; i < columns; ++i) out_gradient[first + i] = derivative(y, i);
    });
  } else {
    at_width<N, MaxN>(n, [&]<int W, int MaxW>() DALEMBERT_INLINE {
      using D = Dual<T, W, MaxW>;
      Vec<D, N, MaxN> xd(n);
      for (int i = 0; i < n; ++i) xd[i] = variable<W, MaxW>(x[i], i, n);
      const D y = f(xd);
      out_value = value(y);
      out_gradient.resize(n);
      for (int i = 0; i < n; ++i) out_gradient[i] = derivative(y, i);
    });
  }
}

/// Value and Jacobian of a vector function f : R^N -> R^M, a chunk of sizes::chunk_width columns
/// per evaluation of f, whatever N: f is instantiated in one dual type for every N.
template <int N, int M, int MaxN = N, int MaxM = M, class T, class F>
inline void value_and_jacobian_by_chunks(F&& f, const Vec<T, N, MaxN>& x, Vec<T, M, MaxM>& out_value,
                                         Mat<T, M, N, MaxM, MaxN>& out_jacobian) {
  const int n = static_cast<int>(x.size());
  over_chunks<N, MaxN>(x, f, [&](const Vec<Dual<T, sizes::chunk_width>, M, MaxM>& y, int first, int columns) {
    const int m = static_cast<int>(y.size());
    out_value.resize(m);
    out_jacobian.resize(m, n);
    for (int r = 0; r < m; ++r) {
      out_value[r] = value(y[r]);
      for (int c = 0; c < columns; ++c) out_jacobian(r, first + c) = derivative(y[r], c);
    }
  });
}

/// Value and Jacobian of a vector function f : R^N -> R^M.
template <int N, int M, int MaxN = N, int MaxM = M, class T, class F>
inline void value_and_jacobian(F&& f, const Vec<T, N, MaxN>& x, Vec<T, M, MaxM>& out_value,
                               Mat<T, M, N, MaxM, MaxN>& out_jacobian) {
  const int n = static_cast<int>(x.size());
  if constexpr (chunked_width<N, MaxN>) {
    value_and_jacobian_by_chunks<N, M, MaxN, MaxM>(f, x, out_value, out_jacobian);
  } else {
    at_width<N, MaxN>(n, [&]<int W, int MaxW>() DALEMBERT_INLINE {
      using D = Dual<T, W, MaxW>;
      Vec<D, N, MaxN> xd(n);
      for (int i = 0; i < n; ++i) xd[i] = variable<W, MaxW>(x[i], i, n);
      const Vec<D, M, MaxM> y = f(xd);
      const int m = static_cast<int>(y.size());
      out_value.resize(m);
      out_jacobian.resize(m, n);
      for (int r = 0; r < m; ++r) {
        out_value[r] = value(y[r]);
        for (int c = 0; c < n; ++c) out_jacobian(r, c) = derivative(y[r], c);
      }
    });
  }
}

}  // namespace dalembert::ad
