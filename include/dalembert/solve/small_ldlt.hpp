#pragma once
// LDLᵀ factorisation of a small symmetric positive definite matrix of a size known at compile time:
// a mechanical model's metric G(q), factorised at every evaluation of its constrained acceleration.
//   G = L D Lᵀ,  L unit lower triangular,  D diagonal:
//   d_j = g_jj − Σ_{k<j} l_jk² d_k,   l_ij = (g_ij − Σ_{k<j} l_ik l_jk d_k) / d_j   (i > j).
// Without pivoting, which a positive definite matrix does not need, and with the reciprocals of D
// formed once: the factorisation divides N times and a solve not at all, where LU with partial
// pivoting (SmallLU) divides at every multiplier and at every back substitution, one division
// waiting on the last (docs/decisions.md, *The constrained acceleration of a mechanical model*).
// A singular metric gives an infinite reciprocal, and the solve non-finite entries, as LU does.
#include "dalembert/core/types.hpp"

namespace dalembert {

template <int N>
class SmallLdlt {
 public:
  [[gnu::always_inline]] explicit SmallLdlt(const Matd<N, N>& g) {
    for (int j = 0; j < N; ++j) {
      double d = g(j, j);
      for (int k = 0; k < j; ++k) d -= l_(j, k) * l_(j, k) * d_[k];
      d_[j] = d;
      inverse_d_[j] = 1.0 / d;
      for (int i = j + 1; i < N; ++i) {
        double s = g(i, j);
        for (int k = 0; k < j; ++k) s -= l_(i, k) * l_(j, k) * d_[k];
        l_(i, j) = s * inverse_d_[j];
      }
    }
  }

  /// x with G x = b, column by column, for b a vector or a matrix of doubles or dual numbers (whose
  /// derivatives a constant G solves as it solves the value): L y = b, then Lᵀ x = D⁻¹ y.
  template <class B>
  typename B::PlainObject solve(const B& b) const {
    using Scalar = typename B::Scalar;
    typename B::PlainObject x(b.rows(), b.cols());
    for (Eigen::Index c = 0; c < b.cols(); ++c) {
      Scalar y[N];
      for (int i = 0; i < N; ++i) {
        Scalar s = b(i, c);
        for (int k = 0; k < i; ++k) s -= l_(i, k) * y[k];
        y[i] = s;
      }
      for (int i = N - 1; i >= 0; --i) {
        Scalar s = y[i] * inverse_d_[i];
        for (int k = i + 1; k < N; ++k) s -= l_(k, i) * y[k];
        y[i] = s;
      }
      for (int i = 0; i < N; ++i) x(i, c) = y[i];
    }
    return x;
  }

 private:
  Matd<N, N> l_;  ///< below the diagonal
  double d_[N], inverse_d_[N];
};

}  // namespace dalembert
