#pragma once
// A metric that is constant only at run time (a model file's, known when the file is read), in
// doubles and factorised once for the model's lifetime, where a compiled model's constant metric is
// a constant the compiler folds. Without it every evaluation of the methods written with the metric
// evaluated G through the model, scanned its n² entries for a product and factorised it for a
// solve (docs/decisions.md, A model file's constant metric, once per model).
#include <concepts>
#include <vector>

#include "dalembert/model/model.hpp"
#include "dalembert/solve/dual_lu.hpp"

namespace dalembert {

/// G in doubles, its entries that are not zero and its factorisation.
template <class Matrix>
class ConstantMetric {
 public:
  explicit ConstantMetric(const Matrix& G) : G_(G), lu_(G) {
    for (Eigen::Index j = 0; j < G.cols(); ++j)
      for (Eigen::Index i = 0; i < G.rows(); ++i)
        if (G(i, j) != 0.0) entries_.push_back({static_cast<int>(i), static_cast<int>(j), G(i, j)});
  }

  const Matrix& matrix() const { return G_; }
  /// G w, over the entries that are not zero column by column: the additions of a matrix product,
  /// in its order, for w of doubles or of dual numbers (whose derivatives' width `out` keeps).
  template <class W>
  typename W::PlainObject product(const W& w) const {
    typename W::PlainObject out(w.size());
    for (Eigen::Index i = 0; i < w.size(); ++i) out[i] = 0.0 * w[i];
    for (const Entry& e : entries_) out[e.row] += e.value * w[e.column];
    return out;
  }
  /// G⁻¹ b, for b of doubles or of dual numbers.
  template <class B>
  typename B::PlainObject solve(const B& b) const {
    return lu_.solve(b);
  }
  const ConstantLU<Matrix>& factorisation() const { return lu_; }

 private:
  struct Entry {
    int row, column;
    double value;
  };
  Matrix G_;
  ConstantLU<Matrix> lu_;
  std::vector<Entry> entries_;
};

/// A model whose metric may be constant at run time: constant_metric() is G with its
/// factorisation while G is constant, null while it varies.
template <class S>
concept GivesConstantMetric = requires(const S& sys) {
  { sys.constant_metric() } -> std::convertible_to<const ConstantMetric<MatNN<S>>*>;
};

}  // namespace dalembert
