#pragma once
// A compiled contact model seen as a contact model of run-time size (the contact analogue of
// tests/at_run_time.hpp): n = Eigen::Dynamic with the bound MaxN, and m = Eigen::Dynamic with the
// bound MaxM when the model has constraints (m = 0 otherwise, as the unconstrained-only contact
// methods require). It forwards every function to the model, so a method must give the same steps
// on both.
#include <algorithm>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "dalembert/model/contact.hpp"
#include "run_time_storage.hpp"
#include "test_support.hpp"

namespace dalembert::test {

template <class S, int MaxN = S::n, int MaxM = contact_constraint_count<S>()>
class AtRunTimeContact {
 public:
  static constexpr bool constrained = contact_constraint_count<S>() != 0;
  static constexpr int n = Eigen::Dynamic, max_n = MaxN;
  static constexpr int m = constrained ? Eigen::Dynamic : 0, max_m = constrained ? MaxM : 0;
  template <class T>
  using Q = dalembert::Vec<T, n, max_n>;

  explicit AtRunTimeContact(S system) : s_(std::move(system)) {
    if constexpr (LinearInAction<S>) gamma = s_.gamma;
  }
  const S& model() const { return s_; }
  int dimension() const { return S::n; }
  int constraint_count() const { return contact_constraint_count<S>(); }
  double gamma = 0.0;  ///< the model's γ when L = L0 + γz (read by the exponential rule)

  template <class T>
  T lagrangian(const Q<T>& q, const Q<T>& v, const T& z) const {
    return s_.template lagrangian<T>(fixed(q), fixed(v), z);
  }
  template <class T>
    requires LinearInAction<S>
  T base_lagrangian(const Q<T>& q, const Q<T>& v) const {
    return s_.template base_lagrangian<T>(fixed(q), fixed(v));
  }
  template <class T>
    requires(contact_constraint_count<S>() != 0)
  dalembert::Mat<T, m, n, max_m, max_n> constraint_matrix(const Q<T>& q) const {
    const auto a = s_.template constraint_matrix<T>(fixed(q));
    dalembert::Mat<T, m, n, max_m, max_n> out(a.rows(), a.cols());
    for (Eigen::Index i = 0; i < a.rows(); ++i)
      for (Eigen::Index j = 0; j < a.cols(); ++j) out(i, j) = a(i, j);
    return out;
  }

 private:
  template <class T>
  static dalembert::Vec<T, S::n> fixed(const Q<T>& x) {
    return x;
  }

  S s_;
};

/// The largest difference between the positions, velocities and actions of `steps` steps of the
/// contact method make(system) on S and on the same model at run time with the bounds MaxN, MaxM.
template <int MaxN, int MaxM, class S, class MakeMethod>
double largest_contact_run_time_difference(const S& sys, MakeMethod make, const Vecd<S::n>& q0, const Vecd<S::n>& v0,
                                           double z0, int steps) {
  const AtRunTimeContact<S, MaxN, MaxM> dynamic(sys);
  const auto fixed_method = make(sys);
  const auto dynamic_method = make(dynamic);
  auto a = fixed_method.initial_state(q0, v0, z0);
  using Q = VecN<AtRunTimeContact<S, MaxN, MaxM>>;
  auto b = dynamic_method.initial_state(Q(q0), Q(v0), z0);
  double worst = 0.0;
  for (int k = 0; k < steps; ++k) {
    fixed_method.step(a);
    dynamic_method.step(b);
    worst = std::max(worst, (Vecd<S::n>(b.q) - a.q).template lpNorm<Eigen::Infinity>());
    worst = std::max(worst, (Vecd<S::n>(dynamic_method.velocity(b)) - fixed_method.velocity(a))
                                .template lpNorm<Eigen::Infinity>());
    worst = std::max(worst, std::abs(b.z - a.z));
  }
  return worst;
}

/// The contact method gives the same steps (to 1e-12) on S at run time, with the given storage, as
/// on S at compile time.
template <Storage storage, class S, class MakeMethod>
void expect_same_contact_steps_at_run_time(const std::string& label, const S& sys, MakeMethod make,
                                           const Vecd<S::n>& q0, const Vecd<S::n>& v0, double z0, int steps = 100) {
  constexpr int max = max_size<storage>;
  const double difference = largest_contact_run_time_difference<max, max>(sys, make, q0, v0, z0, steps);
  report(label + "_run_time_" + storage_name(storage), difference);
  EXPECT_LT(difference, 1e-12) << label;
}

}  // namespace dalembert::test
