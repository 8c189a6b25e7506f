#pragma once
// LU factorisation with partial pivoting for the small fixed-size Newton systems of the integrators
// (n + m unknowns, 2 to 8 in the catalogue).
//
// The algorithm is Eigen's PartialPivLU (the largest entry of each column as pivot, rows swapped,
// multipliers by division), written for a size known at compile time so that the compiler unrolls
// it. Eigen's version works on dynamic-size blocks inside, whatever the matrix type (docs/decisions.md,
// Newton's small linear systems). Newton uses it up to sizes::small_lu_max unknowns (core/sizes.hpp)
// and Eigen's above.
#include <algorithm>
#include <cmath>
#include <utility>

#include <Eigen/LU>

#include "dalembert/core/sizes.hpp"
#include "dalembert/core/types.hpp"

namespace dalembert {

template <int N>
class SmallLU {
  static_assert(N > 0 && N <= sizes::small_lu_max, "SmallLU is for small fixed sizes; use Eigen::PartialPivLU");

 public:
  /// Factorises P A = L U; a zero pivot column is left as it is (matrixLU() shows the zero).
  [[gnu::always_inline]] explicit SmallLU(const Matd<N, N>& a) { compute(a); }
  /// Unfactorised, for a factorisation kept across calls of compute().
  SmallLU() = default;

  /// Factorises a, as the constructor does. Always inlined: clang++ otherwise calls it, and the copy
  /// of a Jacobian just written entry by entry then waits on store forwarding (docs/decisions.md,
  /// Compiler).
  [[gnu::always_inline]] void compute(const Matd<N, N>& a) {
    lu_ = a;
    for (int i = 0; i < N; ++i) row_of_[i] = i;
    for (int k = 0; k < N; ++k) {
      int pivot_row = k;
      double biggest = std::abs(lu_(k, k));
      for (int i = k + 1; i < N; ++i) {  // selects, not a branch: clang++ compiles it better
        const double candidate = std::abs(lu_(i, k));
        const bool bigger = candidate > biggest;
        biggest = bigger ? candidate : biggest;
        pivot_row = bigger ? i : pivot_row;
      }
      if (pivot_row != k) {
        for (int j = 0; j < N; ++j) std::swap(lu_(k, j), lu_(pivot_row, j));
        std::swap(row_of_[k], row_of_[pivot_row]);
      }
      if (biggest == 0.0) continue;
      for (int i = k + 1; i < N; ++i) {
        const double l = lu_(i, k) / lu_(k, k);
        lu_(i, k) = l;
        for (int j = k + 1; j < N; ++j) lu_(i, j) -= l * lu_(k, j);
      }
    }
  }

  /// L below the diagonal (unit diagonal implied) and U on and above it, as Eigen's matrixLU().
  const Matd<N, N>& matrixLU() const { return lu_; }

  /// x with A x = b, by forward and back substitution.
  Vecd<N> solve(const Vecd<N>& b) const {
    Vecd<N> x;
    for (int i = 0; i < N; ++i) {
      double s = b[row_of_[i]];
      for (int j = 0; j < i; ++j) s -= lu_(i, j) * x[j];
      x[i] = s;
    }
    for (int i = N - 1; i >= 0; --i) {
      double s = x[i];
      for (int j = i + 1; j < N; ++j) s -= lu_(i, j) * x[j];
      x[i] = s / lu_(i, i);
    }
    return x;
  }

 private:
  Matd<N, N> lu_;
  int row_of_[N];  ///< row k of P A is row row_of_[k] of A
};

/// X = A⁻¹ B for a square A with few rows, one factorisation for every column of B: SmallLU of
/// A's size up to sizes::small_lu_max, dispatched on the size when it is known only at run time, and
/// Eigen's PartialPivLU above. At a run-time size Eigen's own factorisations loop over blocks even
/// for three rows: with its LDLT, the projection of a momentum was much of a `fim` step on a model
/// file (docs/decisions.md, Newton's small linear systems). A singular A gives non-finite entries.
template <class Matrix, class Rhs>
typename Rhs::PlainObject solve_small_system(const Matrix& A, const Rhs& B) {
  using Result = typename Rhs::PlainObject;
  constexpr int N = Matrix::RowsAtCompileTime, MaxN = Matrix::MaxRowsAtCompileTime;
  const auto with = [&]<int K>() {
    const SmallLU<K> lu(A.template topLeftCorner<K, K>());
    Result X(B.rows(), B.cols());
    for (Eigen::Index j = 0; j < B.cols(); ++j) X.col(j) = lu.solve(B.col(j).template head<K>());
    return X;
  };
  if constexpr (N != Eigen::Dynamic && N <= sizes::small_lu_max) {
    return with.template operator()<N>();
  } else {
    constexpr int largest = MaxN == Eigen::Dynamic ? sizes::small_lu_max : std::min(MaxN, sizes::small_lu_max);
    const auto up_to = [&]<int K>(auto& self) -> Result {
      if (A.rows() == K) return with.template operator()<K>();
      if constexpr (K > 1) return self.template operator()<K - 1>(self);
      return Eigen::PartialPivLU<Eigen::Matrix<double, N, N, 0, MaxN, MaxN>>(A).solve(B);
    };
    return up_to.template operator()<largest>(up_to);
  }
}

}  // namespace dalembert
