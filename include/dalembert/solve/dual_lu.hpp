#pragma once
// A linear solve inside differentiated code: A y = b with A and b of dual numbers
// (core/autodiff.hpp), A = A₀ + Σ_k A_k ε_k, b = b₀ + Σ_k b_k ε_k. Its solution is the value's
// solution and the derivative of the solve,
//   y₀ = A₀⁻¹ b₀,   y_k = A₀⁻¹ (b_k − A_k y₀),
// so one LU factorisation of the value A₀ serves the value and every derivative: O(n³) once and
// O(n²) per derivative. Eigen's LU run in dual arithmetic repeats the elimination's O(n³) work for
// every derivative, and at a run-time width allocates at every operation (docs/decisions.md,
// *Linear solves in dual numbers: the value factorised once*). Nested duals recurse: the value of a
// hyper-dual matrix is a matrix of duals, factorised the same way. Below sizes::value_factorised_lu
// rows Eigen's LU in dual arithmetic costs less and is kept, except for nested duals, for which it
// does not compile. Its triangular solves are Eigen's only where Eigen unrolls them, at a size known
// at compile time of at most sizes::unrolled_triangular_solve: beyond, Eigen skips a right-hand
// side entry whose value is zero, and with it the entry's derivatives, so the substitution is
// written out here (in Eigen's order of operations). A matrix of doubles is
// factorised by SmallLU at a size of at most sizes::small_lu_max known at compile time, by Eigen's LU
// otherwise.
#include <Eigen/Dense>
#include <algorithm>
#include <optional>
#include <type_traits>
#include <variant>

#include "dalembert/core/autodiff.hpp"
#include "dalembert/core/sizes.hpp"
#include "dalembert/solve/small_lu.hpp"

namespace dalembert {

/// LU with partial pivoting of a square matrix, for A.solve(b) with b a vector or a matrix of the
/// same scalar: Eigen's PartialPivLU, but for dual numbers one factorisation of the value, and for
/// doubles at a small size known at compile time SmallLU, which the compiler unrolls and inlines
/// where Eigen's is a call (docs/decisions.md, Newton's small linear systems).
template <class Matrix, class Scalar = typename Matrix::Scalar>
class DualLU {
  static constexpr int Rows = Matrix::RowsAtCompileTime;
  static constexpr bool small = std::is_same_v<Scalar, double> && Rows > 0 && Rows <= sizes::small_lu_max;

 public:
  explicit DualLU(const Matrix& A) : lu_(A) {}
  template <class B>
  typename B::PlainObject solve(const B& b) const {
    if constexpr (small) {
      typename B::PlainObject y(b.rows(), b.cols());
      for (Eigen::Index c = 0; c < b.cols(); ++c) y.col(c) = lu_.solve(b.col(c));
      return y;
    } else {
      return lu_.solve(b);
    }
  }

 private:
  std::conditional_t<small, SmallLU<(small ? Rows : 1)>, Eigen::PartialPivLU<Matrix>> lu_;
};

#if !defined(DALEMBERT_AD_CERES)
template <class Matrix, class Derivatives>
  requires(Matrix::RowsAtCompileTime == Eigen::Dynamic ||
           Matrix::RowsAtCompileTime > sizes::unrolled_triangular_solve ||
           !std::is_same_v<typename Derivatives::Scalar, double>)
class DualLU<Matrix, Eigen::AutoDiffScalar<Derivatives>> {
  using T = Eigen::AutoDiffScalar<Derivatives>;
  using V = typename Derivatives::Scalar;  ///< the value's scalar: double, or a dual for nested ones
  static constexpr int Rows = Matrix::RowsAtCompileTime, MaxRows = Matrix::MaxRowsAtCompileTime;
  static constexpr int Width = Derivatives::RowsAtCompileTime, MaxWidth = Derivatives::MaxRowsAtCompileTime;
  using ValueMatrix = Eigen::Matrix<V, Rows, Rows, 0, MaxRows, MaxRows>;
  using ValueVector = Eigen::Matrix<V, Rows, 1, 0, MaxRows, 1>;
  static constexpr bool first_order = std::is_same_v<V, double>;
  /// b_k − A_k y₀ for every derivative k, a row for each equation (the derivatives of one entry
  /// are contiguous, as in the dual numbers).
  static constexpr int ByDerivativeOrder = (MaxWidth == 1 && MaxRows != 1) ? Eigen::ColMajor : Eigen::RowMajor;
  using ByDerivative = Eigen::Matrix<V, Rows, Width, ByDerivativeOrder, MaxRows, MaxWidth>;

 public:
  /// A named matrix is referenced (it must outlive the factorisation), a temporary one kept.
  explicit DualLU(const Matrix& A) : A_(A) { factorise(); }
  explicit DualLU(Matrix&& A) : kept_(std::move(A)), A_(kept_) { factorise(); }
  DualLU(const DualLU&) = delete;
  DualLU& operator=(const DualLU&) = delete;

  template <class B>
  typename B::PlainObject solve(const B& b) const {
    if constexpr (first_order) {
      if (small_) return substitute(*small_, b);
    }
    typename B::PlainObject y(b.rows(), b.cols());
    for (Eigen::Index c = 0; c < b.cols(); ++c) solve_column(b.col(c), y.col(c));
    return y;
  }

 private:
  void factorise() {
    if constexpr (first_order) {
      if (A_.rows() < sizes::value_factorised_lu) {
        small_.emplace(A_);
        return;
      }
    }
    A0_ = values(A_);
    value_.emplace(A0_);
  }

  /// b solved with the factors of Eigen's LU in dual arithmetic: P b, then L's and U's substitutions
  /// in the order of Eigen's column-major triangular solve of a vector, without its skipping of an
  /// entry whose value is zero.
  template <class B>
  static typename B::PlainObject substitute(const Eigen::PartialPivLU<Matrix>& lu, const B& b) {
    typename B::PlainObject y = lu.permutationP() * b;
    const Matrix& LU = lu.matrixLU();
    const Eigen::Index n = LU.rows();
    for (Eigen::Index c = 0; c < y.cols(); ++c) {
      for (Eigen::Index j = 0; j < n; ++j)  // L, unit diagonal: column j updates the rows below
        for (Eigen::Index i = j + 1; i < n; ++i) y(i, c) -= y(j, c) * LU(i, j);
      for (Eigen::Index j = n - 1; j >= 0; --j) {  // U: y_j final, then column j updates the rows above
        y(j, c) /= LU(j, j);
        for (Eigen::Index i = 0; i < j; ++i) y(i, c) -= y(j, c) * LU(i, j);
      }
    }
    return y;
  }

  static ValueMatrix values(const Matrix& A) {
    ValueMatrix A0(A.rows(), A.cols());
    for (Eigen::Index j = 0; j < A.cols(); ++j)
      for (Eigen::Index i = 0; i < A.rows(); ++i) A0(i, j) = A(i, j).value();
    return A0;
  }

  /// The number of derivatives: the width, or at a run-time width the largest stored (a constant
  /// may store none, which counts as zeros).
  template <class Column>
  Eigen::Index width_of(const Column& b) const {
    if constexpr (Width != Eigen::Dynamic) {
      return Width;
    } else {
      Eigen::Index w = 0;
      for (Eigen::Index i = 0; i < b.rows(); ++i) w = std::max(w, b(i).derivatives().size());
      for (Eigen::Index j = 0; j < A_.cols(); ++j)
        for (Eigen::Index i = 0; i < A_.rows(); ++i) w = std::max(w, A_(i, j).derivatives().size());
      return w;
    }
  }

  template <class Column, class Out>
  void solve_column(const Column& b, Out&& y) const {
    const Eigen::Index n = A_.rows(), width = width_of(b);
    ValueVector y0(n);
    for (Eigen::Index i = 0; i < n; ++i) y0[i] = b(i).value();
    y0 = value_->solve(y0);
    ByDerivative r(n, width);
    for (Eigen::Index i = 0; i < n; ++i) {
      const T bi = b(i);  // a copy: an expression's coefficient may be a temporary
      const Eigen::Index stored = bi.derivatives().size();
      if constexpr (Width != Eigen::Dynamic) {
        r.row(i) = bi.derivatives().transpose();
      } else {
        r.row(i).head(stored) = bi.derivatives().transpose();
        r.row(i).tail(width - stored).setZero();
      }
      for (Eigen::Index j = 0; j < n; ++j) {
        const auto& a = A_(i, j).derivatives();
        if constexpr (Width != Eigen::Dynamic) {
          r.row(i) -= y0[j] * a.transpose();
        } else {
          r.row(i).head(a.size()) -= y0[j] * a.transpose();
        }
      }
    }
    r = value_->solve(r);
    for (Eigen::Index i = 0; i < n; ++i) {
      y(i).value() = y0[i];
      y(i).derivatives() = r.row(i).transpose();
    }
  }

  Matrix kept_;
  const Matrix& A_;
  /// Below the size, Eigen's LU in dual arithmetic (none for nested duals, where it does not compile).
  [[no_unique_address]] std::conditional_t<first_order, std::optional<Eigen::PartialPivLU<Matrix>>, std::monostate>
      small_;
  ValueMatrix A0_;
  std::optional<DualLU<ValueMatrix>> value_;
};
#endif

/// LU with partial pivoting of a matrix of doubles, for A.solve(b) with b of doubles or of dual
/// numbers (nested ones recurse): a constant matrix has no derivatives A_k, so y₀ = A⁻¹ b₀ and
/// y_k = A⁻¹ b_k, the value and every derivative the columns of one solve. DualLU of the same matrix
/// in dual numbers would subtract the products A_k y₀ of zeros. A diagonal matrix (a constant
/// metric of masses and moments of inertia) is not factorised: b is divided by its diagonal, which
/// is what the LU's substitutions compute for it, to the bit.
template <class ValueMatrix>
class ConstantLU {
  static constexpr int Rows = ValueMatrix::RowsAtCompileTime, MaxRows = ValueMatrix::MaxRowsAtCompileTime;

 public:
  explicit ConstantLU(const ValueMatrix& A) : diagonal_(A.diagonal()) {
    diagonal_only_ = A.isDiagonal(0.0);
    if (!diagonal_only_) lu_.compute(A);
  }
  /// A matrix that is diagonal by its type (a model's Eigen::DiagonalMatrix): nothing to look at.
  template <class Diagonal>
  explicit ConstantLU(const Eigen::DiagonalBase<Diagonal>& A) : diagonal_(A.diagonal()), diagonal_only_(true) {}

  template <class B>
  typename B::PlainObject solve(const B& b) const {
    if constexpr (std::is_same_v<typename B::Scalar, double>) {
      if (diagonal_only_) return typename B::PlainObject(b.array().colwise() / diagonal_.array());
      return lu_.solve(b);
    } else {
      typename B::PlainObject y(b.rows(), b.cols());
      for (Eigen::Index c = 0; c < b.cols(); ++c) solve_column(b.col(c), y.col(c));
      return y;
    }
  }

 private:
  template <class Column, class Out>
  void solve_column(const Column& b, Out&& y) const {
    using Derivatives = typename Column::Scalar::DerType;
    using V = typename Derivatives::Scalar;
    constexpr int Width = Derivatives::RowsAtCompileTime, MaxWidth = Derivatives::MaxRowsAtCompileTime;
    constexpr int Columns = Width == Eigen::Dynamic ? Eigen::Dynamic : Width + 1;
    constexpr int MaxColumns = MaxWidth == Eigen::Dynamic ? Eigen::Dynamic : MaxWidth + 1;
    const Eigen::Index n = b.rows();
    Eigen::Index width = 0;  // at a run-time width the largest stored: a constant may store none
    for (Eigen::Index i = 0; i < n; ++i) width = std::max(width, b(i).derivatives().size());
    constexpr int Order = MaxRows == 1 ? Eigen::RowMajor : Eigen::ColMajor;  // Eigen's rule for one row
    Eigen::Matrix<V, Rows, Columns, Order, MaxRows, MaxColumns> x(n, width + 1);
    for (Eigen::Index i = 0; i < n; ++i) {
      const auto bi = b(i);  // a copy: an expression's coefficient may be a temporary
      const Eigen::Index stored = bi.derivatives().size();
      x(i, 0) = bi.value();
      for (Eigen::Index k = 0; k < width; ++k) x(i, k + 1) = k < stored ? bi.derivatives()[k] : V(0.0);
    }
    x = solve(x);
    for (Eigen::Index i = 0; i < n; ++i) {
      y(i).value() = x(i, 0);
      y(i).derivatives() = x.row(i).tail(width).transpose();
    }
  }

  Eigen::Matrix<double, Rows, 1, Eigen::ColMajor, MaxRows, 1> diagonal_;
  bool diagonal_only_ = false;
  Eigen::PartialPivLU<ValueMatrix> lu_;
};

/// Eigen's LU for a matrix of doubles, where a computation keeps Eigen's rounding, and DualLU for
/// dual numbers, whose derivatives Eigen's own triangular solve may lose (above).
template <class Matrix>
using LuKeepingDerivatives = std::conditional_t<std::is_same_v<typename Matrix::Scalar, double>,
                                                Eigen::PartialPivLU<Matrix>, DualLU<Matrix>>;

/// DualLU of a matrix, its type deduced.
template <class Matrix>
DualLU<std::decay_t<Matrix>> dual_lu(Matrix&& A) {
  return DualLU<std::decay_t<Matrix>>(std::forward<Matrix>(A));
}

}  // namespace dalembert
