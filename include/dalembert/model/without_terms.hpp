#pragma once
// A locally coupled model (model/local_terms.hpp) seen through its dense interface alone: every
// method then differentiates the whole system, as it would without the terms. For checking that
// the terms and the dense interface describe the same system, and for measuring what the terms save.
#include <utility>

#include "dalembert/model/model.hpp"

namespace dalembert {

template <class S>
struct WithoutTerms {
  static constexpr int n = S::n, m = S::m, max_n = max_n_of<S>(), max_m = max_m_of<S>();
  S model;

  int dimension() const { return coordinate_count(model); }
  int constraint_count() const { return dalembert::constraint_count(model); }
  template <class T>
  T lagrangian(const VecN<S, T>& q, const VecN<S, T>& v) const {
    return model.template lagrangian<T>(q, v);
  }
  template <class T>
  auto metric(const VecN<S, T>& q) const {
    return model.template metric<T>(q);
  }
  template <class T>
  T potential(const VecN<S, T>& q) const {
    return model.template potential<T>(q);
  }
  template <class T>
  MatMN<S, T> constraint_matrix(const VecN<S, T>& q) const {
    return model.template constraint_matrix<T>(q);
  }
};

}  // namespace dalembert
