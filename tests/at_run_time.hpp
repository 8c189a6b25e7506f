#pragma once
// A compiled model seen as a model of run-time size: n = m = Eigen::Dynamic, with the compile-time
// bounds MaxN and MaxM (Eigen::Dynamic: unbounded, on the heap). It forwards every function to the
// model itself, so a method run on it must give the steps it gives on the model (the run-time-size
// tests compare the two).
#include <type_traits>
#include <utility>

#include "dalembert/model/model.hpp"
#include "run_time_storage.hpp"

namespace dalembert::test {

template <class S, int MaxN = S::n, int MaxM = S::m>
class AtRunTime {
 public:
  static constexpr int n = Eigen::Dynamic, m = Eigen::Dynamic, max_n = MaxN, max_m = MaxM;
  template <class T>
  using Q = dalembert::Vec<T, n, max_n>;

  explicit AtRunTime(S system) : s_(std::move(system)) {}
  const S& model() const { return s_; }
  int dimension() const { return S::n; }
  int constraint_count() const { return S::m; }

  template <class T>
  T lagrangian(const Q<T>& q, const Q<T>& v) const {
    return s_.template lagrangian<T>(fixed(q), fixed(v));
  }
  template <class T>
  dalembert::Mat<T, m, n, max_m, max_n> constraint_matrix(const Q<T>& q) const {
    return dense<T, m, max_m>(s_.template constraint_matrix<T>(fixed(q)));
  }
  /// Of doubles when the model's is (a constant metric), as a model of run-time size would write it.
  template <class T>
    requires dalembert::HasMetric<S>
    auto metric(const Q<T>& q) const {
      const auto G = s_.template metric<T>(fixed(q));
      return dense<typename std::decay_t<decltype(G)>::Scalar, n, max_n>(G);
    }
  template <class T>
    requires dalembert::HasMetric<S>
  T potential(const Q<T>& q) const {
    return s_.template potential<T>(fixed(q));
  }
  template <class T>
    requires dalembert::HasExternalForce<S>
  Q<T> force(const Q<T>& q, const Q<T>& v, double t) const {
    return s_.template force<T>(fixed(q), fixed(v), t);
  }
  bool force_depends_on_time() const
    requires dalembert::HasExternalForce<S>
  {
    return dalembert::has_time_dependent_force(s_);
  }

 private:
  template <class T>
  static dalembert::Vec<T, S::n> fixed(const Q<T>& x) {
    return x;
  }
  /// A matrix of the model's (of doubles, for a constant one, or diagonal) as a dense one of T.
  template <class T, int Rows, int MaxRows, class M>
  static dalembert::Mat<T, Rows, n, MaxRows, max_n> dense(const M& a) {
    const Eigen::Matrix<typename M::Scalar, M::RowsAtCompileTime, M::ColsAtCompileTime> d = a;  // fixed: no heap
    dalembert::Mat<T, Rows, n, MaxRows, max_n> out(d.rows(), d.cols());
    for (Eigen::Index i = 0; i < d.rows(); ++i)
      for (Eigen::Index j = 0; j < d.cols(); ++j) out(i, j) = T(d(i, j));
    return out;
  }

  S s_;
};

}  // namespace dalembert::test
