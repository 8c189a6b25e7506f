#pragma once
// Tests that a method gives the same steps on a model and on the model seen at run time
// (tests/at_run_time.hpp).
#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "at_run_time.hpp"
#include "test_support.hpp"

namespace dalembert::test {

/// The largest difference between the positions and velocities of `steps` steps of the method
/// make(system) on S and on the same model at run time with the bounds MaxN, MaxM.
template <int MaxN, int MaxM, class S, class MakeMethod>
double largest_run_time_difference(const S& sys, MakeMethod make, const Vecd<S::n>& q0, const Vecd<S::n>& v0,
                                   int steps) {
  const AtRunTime<S, MaxN, MaxM> dynamic(sys);
  const auto fixed_method = make(sys);
  const auto dynamic_method = make(dynamic);
  auto a = fixed_method.initial_state(q0, v0);
  using Q = VecN<AtRunTime<S, MaxN, MaxM>>;
  auto b = dynamic_method.initial_state(Q(q0), Q(v0));
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

/// The method gives the same steps (to 1e-12) on S at run time, with the given storage, as on S
/// at compile time.
template <Storage storage, class S, class MakeMethod>
void expect_same_steps_at_run_time(const std::string& label, const S& sys, MakeMethod make, const Vecd<S::n>& q0,
                                   const Vecd<S::n>& v0, int steps = 200) {
  constexpr int max = max_size<storage>;
  const double difference = largest_run_time_difference<max, max>(sys, make, q0, v0, steps);
  report(label + "_run_time_" + storage_name(storage), difference);
  EXPECT_LT(difference, 1e-12) << label;
}

}  // namespace dalembert::test
