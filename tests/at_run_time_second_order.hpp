#pragma once
// A compiled second-order constrained system (model/second_order.hpp) seen as one of run-time size:
// n = m = Eigen::Dynamic, with the compile-time bounds MaxN and MaxM (Eigen::Dynamic: unbounded, on
// the heap). It forwards every function to the system itself, so a method run on it must give the
// steps it gives on the system (the run-time-size tests compare the two), as test::AtRunTime does
// for Lagrange–d'Alembert models (at_run_time.hpp).
#include <algorithm>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "dalembert/model/second_order.hpp"
#include "run_time_storage.hpp"
#include "test_support.hpp"

namespace dalembert::test {

template <class S, int MaxN = S::n, int MaxM = S::m>
class SecondOrderAtRunTime {
 public:
  static constexpr int n = Eigen::Dynamic, m = Eigen::Dynamic, max_n = MaxN, max_m = MaxM;
  /// The coordinate RootRule::closest compares (the system's, 0 if it declares none, as the method).
  static constexpr int root_selection_coordinate = [] {
    if constexpr (requires { S::root_selection_coordinate; }) {
      return S::root_selection_coordinate;
    } else {
      return 0;
    }
  }();
  template <class T>
  using Q = dalembert::Vec<T, n, max_n>;
  template <class T>
  using Constraints = dalembert::Vec<T, m, max_m>;
  template <class T>
  using Frame = dalembert::Mat<T, n, n, max_n, max_n>;  ///< n × (n − m), as MatNK

  explicit SecondOrderAtRunTime(S system) : s_(std::move(system)) {}
  const S& system() const { return s_; }
  int dimension() const { return S::n; }
  int constraint_count() const { return S::m; }

  template <class T>
  T lagrangian(const Q<T>& q, const Q<T>& v) const {
    return s_.template lagrangian<T>(fixed(q), fixed(v));
  }
  template <class T>
  Constraints<T> kinematic_constraint(const Q<T>& q, const Q<T>& v, const Q<T>& a) const {
    return s_.template kinematic_constraint<T>(fixed(q), fixed(v), fixed(a));
  }
  template <class T>
  Frame<T> variational_frame(const Q<T>& q, const Q<T>& v, const Q<T>& a) const {
    return s_.template variational_frame<T>(fixed(q), fixed(v), fixed(a));
  }
  template <class T>
    requires dalembert::HasFactoredKinematicConstraint<S>
  Constraints<T> physical_factor(const Q<T>& q, const Q<T>& v, const Q<T>& a) const {
    return s_.template physical_factor<T>(fixed(q), fixed(v), fixed(a));
  }
  template <class T>
    requires dalembert::HasFactoredKinematicConstraint<S>
  Constraints<T> spurious_factor(const Q<T>& q, const Q<T>& v, const Q<T>& a) const {
    return s_.template spurious_factor<T>(fixed(q), fixed(v), fixed(a));
  }
  template <class T>
    requires dalembert::HasExplicitAcceleration<S>
  Q<T> acceleration(const Q<T>& q, const Q<T>& v) const {
    return s_.template acceleration<T>(fixed(q), fixed(v));
  }

 private:
  template <class T>
  static dalembert::Vec<T, S::n> fixed(const Q<T>& x) {
    return x;
  }

  S s_;
};

/// The largest difference between the positions and velocities of `steps` steps of the method
/// make(system) on S and on View<S, MaxN, MaxM>, the same system at run time with those bounds.
template <template <class, int, int> class View, int MaxN, int MaxM, class S, class MakeMethod>
double largest_second_order_difference(const S& sys, MakeMethod make, const Vecd<S::n>& q0, const Vecd<S::n>& v0,
                                       int steps) {
  using AtRunTimeView = View<S, MaxN, MaxM>;
  const AtRunTimeView dynamic(sys);
  const auto fixed_method = make(sys);
  const auto dynamic_method = make(dynamic);
  auto a = fixed_method.initial_state(q0, v0);
  auto b = dynamic_method.initial_state(VecN<AtRunTimeView>(q0), VecN<AtRunTimeView>(v0));
  double worst = 0.0;
  for (int k = 0; k < steps; ++k) {
    fixed_method.step(a);
    dynamic_method.step(b);
    worst = std::max(worst, (Vecd<S::n>(b.q) - a.q).template lpNorm<Eigen::Infinity>());
    worst = std::max(worst, (Vecd<S::n>(dynamic_method.velocity(b)) - fixed_method.velocity(a))
                                .template lpNorm<Eigen::Infinity>());
  }
  return worst;
}

/// The method gives the same steps (to 1e-12) on S seen through View at run time, with the given
/// storage, as on S at compile time; prints the difference.
template <template <class, int, int> class View, Storage storage, class S, class MakeMethod>
void expect_same_second_order_steps(const std::string& label, const S& sys, MakeMethod make, const Vecd<S::n>& q0,
                                    const Vecd<S::n>& v0, int steps = 300) {
  constexpr int max = max_size<storage>;
  const double difference = largest_second_order_difference<View, max, max>(sys, make, q0, v0, steps);
  report(label + "_run_time_" + storage_name(storage), difference);
  EXPECT_LT(difference, 1e-12) << label;
}

}  // namespace dalembert::test
