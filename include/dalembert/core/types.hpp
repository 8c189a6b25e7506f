#pragma once
// Basic vocabulary: Eigen vectors and matrices, generic in the scalar type so that the same model
// code runs on double and on automatic-differentiation scalars, and in their sizes as Eigen is:
// a size is a compile-time int, or Eigen::Dynamic when it is known only at run time, and has a
// compile-time bound (the size itself when fixed; Eigen::Dynamic when unbounded). A dynamic size
// with a bound keeps its storage inside the object, so small run-time-sized systems compute
// without touching the heap; the types of fixed sizes are exactly Eigen's fixed-size types.
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

namespace dalembert {

inline constexpr int Dynamic = Eigen::Dynamic;

/// The storage options Eigen gives a matrix of these sizes by default (row vectors row-major).
constexpr int default_options(int rows, int cols, int max_rows, int max_cols) {
  const bool row_vector = (rows == 1 && cols != 1) || (max_rows == 1 && max_cols != 1);
  const bool column_vector = (cols == 1 && rows != 1) || (max_cols == 1 && max_rows != 1);
  return row_vector ? Eigen::RowMajor : column_vector ? Eigen::ColMajor : EIGEN_DEFAULT_MATRIX_STORAGE_ORDER_OPTION;
}

/// The bound of a size: the size itself when fixed (a bound given for a fixed size is ignored).
constexpr int bound_of(int size, int bound) { return size == Dynamic ? bound : size; }

template <class T, int N, int MaxN = N>
using Vec = Eigen::Matrix<T, N, 1, Eigen::ColMajor, bound_of(N, MaxN), 1>;

template <class T, int Rows, int Cols, int MaxRows = Rows, int MaxCols = Cols>
using Mat = Eigen::Matrix<T, Rows, Cols, default_options(Rows, Cols, bound_of(Rows, MaxRows), bound_of(Cols, MaxCols)),
                          bound_of(Rows, MaxRows), bound_of(Cols, MaxCols)>;

template <int N, int MaxN = N>
using Vecd = Vec<double, N, MaxN>;

template <int Rows, int Cols, int MaxRows = Rows, int MaxCols = Cols>
using Matd = Mat<double, Rows, Cols, MaxRows, MaxCols>;

/// Size arithmetic at compile time: Eigen::Dynamic is contagious (a bound that is Dynamic means
/// unbounded, and stays so).
constexpr int sum_of_sizes(int a, int b) { return (a == Dynamic || b == Dynamic) ? Dynamic : a + b; }
constexpr int difference_of_sizes(int a, int b) { return (a == Dynamic || b == Dynamic) ? Dynamic : a - b; }
constexpr int multiple_of_size(int k, int a) { return a == Dynamic ? Dynamic : k * a; }

/// The size N as a constant of its type (std::integral_constant<int, N>) when N is fixed, else
/// `value`. Methods hand Newton lambdas that capture their sizes by reference; in them an int size is
/// read back from the caller's frame at every call (Newton is not inlined into the step), and tests
/// and offsets on it stay in the code, while a size held this way is a constant (docs/decisions.md,
/// "Sizes as constants in Newton's lambdas"). Where Eigen wants an index type, write int{size}.
template <int N>
auto size_constant(int value) {
  if constexpr (N == Dynamic) {
    return value;
  } else {
    return std::integral_constant<int, N>{};
  }
}

/// a * b coefficient by coefficient (a lazy product) where a size is known only at run time, as
/// Eigen computes small fixed-size products. At a run-time size `a * b` would take Eigen's general
/// matrix–vector kernel, which sums in another order (a run-time-size system would drift from the
/// fixed-size one by round-off), gains nothing at the sizes of a model, and over a hyper-dual costs
/// up to a minute of compile time per scalar type (docs/decisions.md). Diagonal matrices multiply
/// as they are. The expression must be evaluated within the caller's full expression.
template <class A, class B>
auto coefficient_product(const A& a, const B& b) {
  if constexpr (std::is_base_of_v<Eigen::MatrixBase<A>, A> && std::is_base_of_v<Eigen::MatrixBase<B>, B>) {
    if constexpr (A::SizeAtCompileTime == Dynamic || B::SizeAtCompileTime == Dynamic) {
      return a.lazyProduct(b);
    } else {
      return a * b;
    }
  } else {
    return a * b;
  }
}

/// F⁻¹ B for a factorisation F (LU, LDLT) and a matrix B with a size known only at run time, one
/// column at a time, as Eigen solves small fixed-size systems. At a run-time size a matrix
/// right-hand side takes Eigen's blocked triangular kernels, slower at the sizes of a model
/// (docs/decisions.md, Newton's small linear systems).
template <class Factorisation, class B>
auto solve_by_columns(const Factorisation& f, const B& b) {
  using Result = typename B::PlainObject;
  if constexpr (B::SizeAtCompileTime == Dynamic) {
    Result x(b.rows(), b.cols());
    for (Eigen::Index j = 0; j < b.cols(); ++j) x.col(j) = f.solve(b.col(j));
    return x;
  } else {
    return Result(f.solve(b));
  }
}

/// A state of K doubles for Boost.Odeint: an array for a fixed K, a vector (sized by its user) for
/// K = Eigen::Dynamic.
template <int K>
using OdeintState = std::conditional_t<K == Dynamic, std::vector<double>, std::array<double, (K == Dynamic ? 0 : K)>>;

/// The time of step k on the grid of step size h, t_k = k h: computed from k rather than
/// accumulated, so that rounding does not grow with the number of steps.
constexpr double grid_time(long k, double h) { return static_cast<double>(k) * h; }

/// A time as the messages print it, "(t = 0.300000)": six decimals (std::to_string's) up to 1e9,
/// and in scientific notation beyond, where six decimals would print every digit of a huge t.
inline std::string time_text(double t) {
  char text[40];
  std::snprintf(text, sizeof text, std::abs(t) < 1e9 ? "%f" : "%.6e", t);
  return text;
}

/// What every method's state opens with: where it is on the time grid and what its last step cost.
struct OnTheGrid {
  long k = 0;          ///< the step index
  double t = 0.0;      ///< t_k
  int iterations = 0;  ///< Newton iterations of the last step (0 for the explicit methods)
};

/// Moves a method's state (members k and t) to the next grid point.
template <class State>
constexpr void advance(State& s, double h) {
  s.k += 1;
  s.t = grid_time(s.k, h);
}

}  // namespace dalembert
